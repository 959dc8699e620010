//! `fieldgate push`: the approved change committed through the catalog. For each table whose
//! pinned copy holds schemas the live table lacks, the change live -> pinned copy is judged with
//! every rule and the configured policy (push never deploys what `check` would refuse), then one
//! CommitTableRequest (`catalog::commit`) is sent; on success the pinned copy is rewritten from
//! the catalog's answer. A 409 changes nothing (exit 1); a commit whose outcome is unknown is
//! exit 2 and never retried.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::catalog::commit::schema_update;
use crate::catalog::rest::ErrorKind;
use crate::cli::{ProposalArgs, PullFormat, PushArgs, ReportFormatArg};
use crate::commands::emit::emit;
use crate::commands::pull::{chosen_tables, pinned_path, write_pinned};
use crate::failure::Failure;
use crate::finding::Severity;
use crate::repo::config::{CONFIG_FILE, Config, TableConfig};
use crate::repo::location::TableLocation;
use crate::report::{Run, TableRun};
use crate::session::input::{
    LoadedTable, ReadProposal, iceberg_table, parse_proposal, read_source,
};
use crate::session::live::{Catalogs, Pinned, identifier};
use crate::session::now_ms;
use crate::session::plan::settings::{load_config, resolve_with};
use crate::session::table::{Target, dialect, judge_read};

/// What became of one table.
enum Pushed {
    InSync,
    Refused(String),
    /// The rules refuse the change: for `--format json`, their report, which goes into the
    /// one document the command prints (`Null` when the report was printed as text).
    Rejected(Value),
    DryRun(Value),
    Committed(Value),
    Conflict(String),
}

pub fn run(args: &PushArgs, out: &mut dyn Write) -> Result<bool, Failure> {
    let config_path = args
        .config
        .clone()
        .unwrap_or_else(|| PathBuf::from(CONFIG_FILE));
    let config = load_config(&config_path)?;
    let dir = config_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut catalogs = Catalogs::default();
    let mut results = Vec::new();
    for table in chosen_tables(&config, &args.tables)? {
        let path = pinned_path(table, &dir)?;
        let pushed = push_one(
            args,
            &config,
            &config_path,
            table,
            &path,
            &mut catalogs,
            out,
        )?;
        results.push((table.name.clone(), pushed));
    }
    let ok = results
        .iter()
        .all(|(_, p)| matches!(p, Pushed::InSync | Pushed::DryRun(_) | Pushed::Committed(_)));
    report(args, &results, out)
        .map_err(|e| Failure::Message(format!("cannot write the report: {e}")))?;
    Ok(ok)
}

fn push_one(
    args: &PushArgs,
    config: &Config,
    config_path: &Path,
    table: &TableConfig,
    path: &Path,
    catalogs: &mut Catalogs,
    out: &mut dyn Write,
) -> Result<Pushed, Failure> {
    let source = read_source(path)?;
    let pinned = Pinned::from_source(&source)?;
    let live = catalogs.load(config, table)?;
    let request = match schema_update(
        (&live.metadata, &live.members),
        (&pinned.metadata, &pinned.members),
    ) {
        Ok(Some(request)) => request,
        Ok(None) => return Ok(Pushed::InSync),
        Err(why) => {
            return Ok(Pushed::Refused(format!(
                "the pinned copy ({}) is not the live table plus new schemas: {why}",
                path.display()
            )));
        }
    };
    if let Some(report) =
        judged_failing(config, config_path, table, &live, source, args.format, out)?
    {
        return Ok(Pushed::Rejected(report));
    }
    if args.dry_run {
        return Ok(Pushed::DryRun(request));
    }
    let client = catalogs.client(config, table)?;
    match client.commit_table(&identifier(table), &request) {
        Ok(committed) => {
            let written = Pinned::from_live(table, &client.name, &committed.metadata)?;
            write_pinned(path, &written.text)?;
            Ok(Pushed::Committed(request))
        }
        Err(e) if e.kind == ErrorKind::Conflict => Ok(Pushed::Conflict(e.message)),
        Err(e) => Err(Failure::Message(e.message)),
    }
}

/// The change live -> pinned copy judged as a metadata proposal, with the configuration's
/// settings for the table. When it fails, the report: printed as text, or, for JSON, returned
/// to go into the command's one document.
fn judged_failing(
    config: &Config,
    config_path: &Path,
    table: &TableConfig,
    live: &Pinned,
    pinned_source: crate::change::Source,
    format: PullFormat,
    out: &mut dyn Write,
) -> Result<Option<Value>, Failure> {
    let proposal_args = ProposalArgs {
        files: Vec::new(),
        metadata: None,
        table: Some(table.name.clone()),
        dialect: None,
        config: Some(config_path.to_path_buf()),
        mapping: None,
        compatibility: None,
    };
    let resolved = resolve_with(
        &proposal_args,
        Some(config.clone()),
        Some(config_path.to_path_buf()),
    );
    let base = live_base(table, live)?;
    let proposal = parse_proposal(
        pinned_source.clone(),
        dialect(resolved.dialect),
        Some(&base.metadata),
    )?;
    let read = vec![ReadProposal {
        path: PathBuf::from(&pinned_source.name),
        proposal,
        schema_after: None,
    }];
    let target = Target {
        table: Some(table.name.clone()),
        base: Some(base),
        source: None,
    };
    let judgement = judge_read(&resolved, target, read, String::new(), now_ms())?;
    let settings = resolved.settings_for(&table.name);
    let run = Run::judged(vec![TableRun::new(&judgement, &settings)], Severity::Error);
    if run.passed {
        return Ok(None);
    }
    if format == PullFormat::Human {
        emit(&run, ReportFormatArg::Human, None, out)?;
        return Ok(Some(Value::Null));
    }
    let mut report = Vec::new();
    emit(&run, ReportFormatArg::Json, None, &mut report)?;
    serde_json::from_slice(&report)
        .map(Some)
        .map_err(|e| Failure::Message(format!("the rules' report is not JSON: {e}")))
}

/// The live table, the start of the judgement, named as the report shows it.
fn live_base(table: &TableConfig, live: &Pinned) -> Result<LoadedTable, Failure> {
    let live_source = crate::change::Source::new(crate::change::SourceFile {
        name: format!("{} (live)", table.name),
        text: live.text.clone(),
    });
    let location = TableLocation {
        metadata_file: PathBuf::from(&live_source.name),
        hadoop: None,
    };
    iceberg_table(location, live_source)
}

fn report(
    args: &PushArgs,
    results: &[(String, Pushed)],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    if args.format == PullFormat::Json {
        let tables: Vec<Value> = results
            .iter()
            .map(|(table, pushed)| {
                let (status, detail) = match pushed {
                    Pushed::InSync => ("in-sync", Value::Null),
                    Pushed::Refused(why) => ("refused", json!(why)),
                    Pushed::Rejected(report) => ("rejected-by-rules", report.clone()),
                    Pushed::DryRun(request) => ("dry-run", request.clone()),
                    Pushed::Committed(request) => ("committed", request.clone()),
                    Pushed::Conflict(why) => ("conflict", json!(why)),
                };
                json!({"table": table, "status": status, "detail": detail})
            })
            .collect();
        return writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&json!({"tables": tables})).unwrap_or_default()
        );
    }
    for (table, pushed) in results {
        match pushed {
            Pushed::InSync => writeln!(
                out,
                "{table}: the live table already is the pinned copy; nothing to push"
            )?,
            Pushed::Refused(why) => writeln!(out, "{table}: not pushed: {why}")?,
            Pushed::Rejected(_) => writeln!(
                out,
                "{table}: not pushed: the rules refuse the change (see above)"
            )?,
            Pushed::DryRun(request) => writeln!(
                out,
                "{table}: would send (dry run, nothing sent):\n{}",
                serde_json::to_string_pretty(request).unwrap_or_default()
            )?,
            Pushed::Committed(_) => writeln!(
                out,
                "{table}: committed; the pinned copy is rewritten from the catalog's answer"
            )?,
            Pushed::Conflict(why) => writeln!(
                out,
                "{table}: not pushed: {why}; nothing changed. The table changed since it was pulled: pull, re-apply the migrations, re-review"
            )?,
        }
    }
    Ok(())
}
