//! `fieldgate lint`: judge a proposal against the table (or, through `fieldgate.yaml`, against
//! each table it names, the session of `session::routed`) and report; never writes.

use std::io::Write;

use crate::cli::LintArgs;
use crate::commands::emit::{emit, failed, threshold};
use crate::failure::Failure;
use crate::finding::Severity;
use crate::judge::Settings;
use crate::plural::counted;
use crate::report::{Run, TableRun};
use crate::session::now_ms;
use crate::session::plan::repo_config::{RepoConfig, find_config};
use crate::session::plan::settings::{Resolved, resolve};
use crate::session::routed::{Routed, TablesFrom, judge_all};
use crate::session::table::{Judgement, judge, locate_related};

/// What a command adds to the judgement before it is reported (`apply`'s reader verification),
/// given the configuration and settings the table is judged with and the `--fail-on` threshold.
pub type BeforeReport<'a> =
    &'a mut dyn FnMut(&mut Judgement, &Resolved, &Settings, Severity) -> Result<(), Failure>;

/// Judges the proposal and writes the report; returns the judgement and whether the gate passed.
pub fn judge_and_report(
    args: &LintArgs,
    location: String,
    now_ms: i64,
    out: &mut dyn Write,
    before_report: BeforeReport<'_>,
) -> Result<(Judgement, bool), Failure> {
    let fail_on = threshold(args.fail_on);
    let mut judgement = match judge(&args.proposal, location, now_ms) {
        Ok(judgement) => judgement,
        Err(failure) => return Err(failed(failure, args.format, fail_on, out)),
    };
    locate_related(&mut judgement);
    let resolved = resolve(&args.proposal)?;
    let settings = resolved.settings_for(&judgement.table);
    if let Err(failure) = before_report(&mut judgement, &resolved, &settings, fail_on) {
        return Err(failed(failure, args.format, fail_on, out));
    }
    let run = Run::judged(vec![TableRun::new(&judgement, &settings)], fail_on);
    emit(&run, args.format, None, out)?;
    let passed = run.passed;
    Ok((judgement, passed))
}

/// Returns whether the gate passed. Without `--metadata`, a `fieldgate.yaml` (here or at the
/// repository root) says which table each statement is for.
pub fn run(args: &LintArgs, out: &mut dyn Write) -> Result<bool, Failure> {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::Message(format!("cannot read the current directory: {e}")))?;
    if args.proposal.metadata.is_none()
        && let Some(repo) = find_config(args.proposal.config.as_deref(), &cwd)?
    {
        return routed(args, repo, &cwd, out);
    }
    let (_, passed) = judge_and_report(
        args,
        cwd.display().to_string(),
        now_ms(),
        out,
        &mut |_, _, _, _| Ok(()),
    )?;
    Ok(passed)
}

/// Every touched table of the configuration judged, in one report, as `check` writes it.
fn routed(
    args: &LintArgs,
    repo: RepoConfig,
    cwd: &std::path::Path,
    out: &mut dyn Write,
) -> Result<bool, Failure> {
    let fail_on = threshold(args.fail_on);
    let (routed, proposals) = judge_all(&args.proposal, &repo, cwd, now_ms(), TablesFrom::Head)
        .map_err(|failure| failed(failure, args.format, fail_on, out))?;
    let given = Given {
        proposals,
        applied: &routed,
    };
    emit_routed(args, &repo, &routed.judged, given, out)
}

/// How many of the files given were proposals, and the migrations among them left out as
/// applied at HEAD.
pub struct Given<'a> {
    pub proposals: usize,
    pub applied: &'a Routed,
}

/// The report of a routed run (`lint`, `apply`), headed by what the files touched; returns
/// whether the gate passed.
pub fn emit_routed(
    args: &LintArgs,
    repo: &RepoConfig,
    judged: &[(Judgement, Settings)],
    given: Given,
    out: &mut dyn Write,
) -> Result<bool, Failure> {
    let fail_on = threshold(args.fail_on);
    let tables = judged
        .iter()
        .map(|(judgement, settings)| TableRun::new(judgement, settings))
        .collect();
    let run = Run::judged(tables, fail_on).with_applied(&given.applied.applied);
    let applied = match given.applied.applied_files() {
        0 => String::new(),
        n => format!(", {n} already applied at HEAD and left out"),
    };
    let header = format!(
        "{} of {} given{applied}; {} of {} of `{}` touched\n",
        counted(given.proposals, "proposal file"),
        args.proposal.files.len(),
        run.tables.len(),
        counted(repo.config.tables.len(), "table"),
        repo.config.source.name
    );
    emit(&run, args.format, Some(header), out)?;
    Ok(run.passed)
}
