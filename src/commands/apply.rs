//! `fieldgate apply`: lint, then on pass write the new metadata atomically. A table directory in
//! the Hadoop layout gets the next `vN.metadata.json` (`vN.gz.metadata.json` when the table's
//! `write.metadata.compression-codec` is `gzip`, as Java commits it) and then its version hint,
//! so a reader that follows the hint never sees a version that is not fully written. A metadata
//! file proposed as the next state is written as it is. With `--write`, each schema-file
//! proposal also gets the ids the table now has written into it (see
//! `frontend::schema_file::fill_ids`); a table that only a schema file describes has no metadata
//! to replace, so `--write` writes just the ids and `-o OUT` writes its complete Iceberg
//! metadata. Once the rules pass, sample data files are read under the new schema
//! (`session::verification`) before anything is written.
//!
//! Without `--metadata`, in a repository with `fieldgate.yaml`, the files are routed to their
//! tables as `lint` routes them (`session::routed`), each table read from the working tree it is
//! written back to; the report is `lint`'s, and every touched table is written or none is.

mod plan;

use std::io::Write;
use std::path::Path;

use crate::cli::ApplyArgs;
use crate::commands::emit::{failed, threshold};
use crate::commands::lint::{Given, emit_routed, judge_and_report};
use crate::failure::Failure;
use crate::finding::Severity;
use crate::judge::Settings;
use crate::repo::config::{repo_path, same_table};
use crate::repo::location::{new_table_uri, not_local_output};
use crate::session::now_ms;
use crate::session::plan::repo_config::{RepoConfig, find_config};
use crate::session::plan::settings::{Resolved, resolve_with};
use crate::session::routed::{TablesFrom, judge_all};
use crate::session::table::Judgement;
use crate::session::verification;

pub fn run(args: &ApplyArgs, out: &mut dyn Write) -> Result<bool, Failure> {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::Message(format!("cannot read the current directory: {e}")))?;
    if let Some(why) = args.output.as_deref().and_then(not_local_output) {
        return Err(Failure::Message(why));
    }
    let proposal = &args.lint.proposal;
    if proposal.metadata.is_none()
        && let Some(repo) = find_config(proposal.config.as_deref(), &cwd)?
    {
        return routed(args, repo, &cwd, out);
    }
    let now = now_ms();
    let location = new_table_uri(args.output.as_deref());
    let mut verify =
        |judgement: &mut Judgement, resolved: &Resolved, settings: &Settings, fail_on| {
            verify_sample(args, judgement, resolved, settings, fail_on)
        };
    let (judgement, passed) = judge_and_report(&args.lint, location, now, out, &mut verify)?;
    // A change Iceberg cannot express has no metadata to write, whatever --force says.
    if !judgement.evolution.problems.is_empty() || (!passed && !args.force) {
        return Ok(false);
    }
    plan::write(&[plan::planned(args, &judgement, None, now)?])?;
    // --force writes, but the verdict stays what the findings say.
    Ok(passed)
}

/// Every table the files touch, judged as routed `lint` judges it but from the working tree,
/// verified, reported once, then written: all of them, or, when one fails, none.
fn routed(
    args: &ApplyArgs,
    repo: RepoConfig,
    cwd: &Path,
    out: &mut dyn Write,
) -> Result<bool, Failure> {
    let lint = &args.lint;
    let fail_on = threshold(lint.fail_on);
    let now = now_ms();
    let judged = judge_all(&lint.proposal, &repo, cwd, now, TablesFrom::WorkTree).and_then(
        |(mut routed, proposals)| {
            routed.judged = one_output(args, std::mem::take(&mut routed.judged))?;
            Ok((routed, proposals))
        },
    );
    let (mut routed, proposals) = judged.map_err(|f| failed(f, lint.format, fail_on, out))?;
    let root = std::fs::canonicalize(&repo.root)
        .map_err(|e| Failure::Message(format!("cannot resolve `{}`: {e}", repo.root.display())))?;
    let resolved = resolve_with(
        &lint.proposal,
        Some(repo.config.clone()),
        Some(repo.file.clone()),
    );
    for (judgement, settings) in &mut routed.judged {
        // The table is written where it was read: the repository's paths as the file system's.
        if let Some(base) = &mut judgement.base {
            base.location = base.location.under(&root);
        }
        verify_sample(args, judgement, &resolved, settings, fail_on)
            .map_err(|f| failed(f, lint.format, fail_on, out))?;
    }
    let given = Given {
        proposals,
        applied: &routed,
    };
    let judged = &routed.judged;
    let passed = emit_routed(lint, &repo, judged, given, out)?;
    let problems = judged.iter().any(|(j, _)| !j.evolution.problems.is_empty());
    if problems || (!passed && !args.force) {
        return Ok(false);
    }
    let mut planned = Vec::new();
    for (judgement, _) in judged {
        let home = configured_path(&repo, &judgement.table).map(|p| root.join(p));
        planned.push(plan::planned(args, judgement, home.as_deref(), now)?);
    }
    plan::write(&planned)?;
    Ok(passed)
}

/// `-o OUT` names one file: the run must touch one table.
fn one_output(
    args: &ApplyArgs,
    judged: Vec<(Judgement, Settings)>,
) -> Result<Vec<(Judgement, Settings)>, Failure> {
    if args.output.is_none() || judged.len() < 2 {
        return Ok(judged);
    }
    let names: Vec<String> = judged
        .iter()
        .map(|(j, _)| format!("`{}`", j.table))
        .collect();
    Err(Failure::Message(format!(
        "-o OUT writes one table's metadata, and the files touch {} tables ({}): use --write to write each where fieldgate.yaml keeps it, or --table NAME with that table's files",
        judged.len(),
        names.join(", ")
    )))
}

/// The table's `metadata:` path in the configuration, relative to the repository root.
fn configured_path(repo: &RepoConfig, table: &str) -> Option<std::path::PathBuf> {
    let entry = repo
        .config
        .tables
        .iter()
        .find(|t| same_table(&t.name, table))?;
    repo_path(&repo.dir, entry.metadata.as_deref()?).ok()
}

/// Reads the sample under the new schema before anything is written, so a failed verification
/// writes nothing: `--verify`, `--sample`, else the table's `sample:` in the configuration.
fn verify_sample(
    args: &ApplyArgs,
    judgement: &mut Judgement,
    resolved: &Resolved,
    settings: &Settings,
    fail_on: Severity,
) -> Result<(), Failure> {
    verification::run(judgement, settings, fail_on, |judgement| {
        let configured = resolved
            .config
            .as_ref()
            .zip(resolved.config_path.as_deref());
        let config = configured.map(|(config, path)| {
            let sample = config
                .table(&judgement.table)
                .and_then(|t| t.sample.as_ref());
            (path, &config.source, sample)
        });
        verification::for_apply(
            args.no_verify,
            &args.verify,
            args.sample.map(|n| n as usize),
            config,
        )
    })
}
