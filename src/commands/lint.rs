//! `fieldgate lint`: judge a proposal against the table (or, through `fieldgate.yaml`, against
//! each table it names) and report; never writes.

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::cli::{FailOnArg, LintArgs, ReportFormatArg};
use crate::commands::failure::Failure;
use crate::commands::lint_routed::{self, find_config};
use crate::commands::pipeline::{Judgement, judge};
use crate::commands::settings::{Resolved, resolve};
use crate::finding::Severity;
use crate::judge::Settings;
use crate::report::{self, Format, Run, TableRun};
use crate::rules::related::locate_in_metadata;

/// The lowest severity that fails the run (exit code 1).
pub fn threshold(fail_on: FailOnArg) -> Severity {
    match fail_on {
        FailOnArg::Error => Severity::Error,
        FailOnArg::Warning => Severity::Warning,
    }
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

pub fn report_format(format: ReportFormatArg) -> Format {
    match format {
        ReportFormatArg::Human => Format::Human {
            colour: report::human::colour_wanted(),
        },
        ReportFormatArg::Json => Format::Json,
        ReportFormatArg::Github => Format::Github,
        ReportFormatArg::Sarif => Format::Sarif,
        ReportFormatArg::Markdown => Format::Markdown,
        ReportFormatArg::Gitlab => Format::Gitlab,
        ReportFormatArg::Junit => Format::Junit,
    }
}

pub fn write_report(
    run: &Run<'_>,
    format: ReportFormatArg,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    report::reporter(report_format(format)).write(run, out)
}

/// Gives the related places rules named in the committed metadata their position in its text.
pub fn locate_related(judgement: &mut Judgement) {
    if let Some(base) = &judgement.base {
        let findings = judgement
            .findings
            .iter_mut()
            .chain(judgement.suppressed.iter_mut().map(|s| &mut s.finding));
        locate_in_metadata(findings, &base.source);
    }
}

/// What a command adds to the judgement before it is reported (`apply`'s reader verification),
/// given the configuration and settings the table is judged with and the `--fail-on` threshold.
pub type BeforeReport<'a> =
    &'a mut dyn FnMut(&mut Judgement, &Resolved, &Settings, Severity) -> Result<(), Failure>;

/// Judges the proposal and writes the report; returns the judgement and whether the gate passed.
/// When nothing could be judged, machine formats still get a document saying why (main prints
/// the diagnostics on stderr and exits 2).
pub fn judge_and_report(
    args: &LintArgs,
    location: String,
    now_ms: i64,
    out: &mut dyn Write,
    before_report: BeforeReport<'_>,
) -> Result<(Judgement, bool), Failure> {
    let fail_on = threshold(args.fail_on);
    let failed = |failure: Failure, out: &mut dyn Write| {
        if args.format != ReportFormatArg::Human {
            // The run already failed; a report that cannot be written changes nothing.
            let _ = write_report(&Run::failed(&failure, fail_on), args.format, out);
        }
        failure
    };
    let mut judgement = match judge(&args.proposal, location, now_ms) {
        Ok(judgement) => judgement,
        Err(failure) => return Err(failed(failure, out)),
    };
    locate_related(&mut judgement);
    let resolved = resolve(&args.proposal)?;
    let settings = resolved.settings_for(&judgement.table);
    if let Err(failure) = before_report(&mut judgement, &resolved, &settings, fail_on) {
        return Err(failed(failure, out));
    }
    let run = Run::judged(vec![TableRun::new(&judgement, &settings)], fail_on);
    match write_report(&run, args.format, out) {
        Ok(()) => {}
        // A reader that stopped early (`| head`) is not a failure of ours: the verdict still
        // decides the exit code.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(Failure::Message(format!("cannot write the report: {e}"))),
    }
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
        return lint_routed::run(args, repo, &cwd, now_ms(), out);
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
