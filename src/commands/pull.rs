//! `fieldgate pull`: each catalog table's pinned copy (its `metadata:` file) rewritten from the
//! live table when the table changed, and `pull --check`, which writes nothing and fails when a
//! pinned copy is not the live table. One LoadTable per table; one `GET /v1/config` per catalog.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::cli::{PullArgs, PullFormat};
use crate::failure::Failure;
use crate::repo::atomic::write_atomically;
use crate::repo::config::{CONFIG_FILE, Config, TableConfig, repo_path, same_table};
use crate::session::input::read_source;
use crate::session::live::{Catalogs, Pinned};
use crate::session::plan::settings::load_config;

/// What became of one table.
#[derive(Debug)]
struct Outcome {
    table: String,
    path: PathBuf,
    /// `None`: no pinned copy yet.
    changes: Option<Vec<String>>,
}

pub fn run(args: &PullArgs, out: &mut dyn Write) -> Result<bool, Failure> {
    let config_path = args
        .config
        .clone()
        .unwrap_or_else(|| PathBuf::from(CONFIG_FILE));
    let config = load_config(&config_path)?;
    let dir = config_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let tables = chosen_tables(&config, &args.tables)?;
    let mut catalogs = Catalogs::default();
    let mut outcomes = Vec::new();
    for table in tables {
        let path = pinned_path(table, &dir)?;
        let live = catalogs.load(&config, table)?;
        let changes = match path.exists() {
            true => Some(Pinned::from_source(&read_source(&path)?)?.changes_to(&live)),
            false => None,
        };
        if !args.check && changes.as_ref().is_none_or(|c| !c.is_empty()) {
            write_pinned(&path, &live.text)?;
        }
        outcomes.push(Outcome {
            table: table.name.clone(),
            path,
            changes,
        });
    }
    let in_sync = outcomes
        .iter()
        .all(|o| o.changes.as_ref().is_some_and(Vec::is_empty));
    let written = report(args, &outcomes, out);
    written.map_err(|e| Failure::Message(format!("cannot write the report: {e}")))?;
    Ok(!args.check || in_sync)
}

/// The tables named (each must have a `catalog:`), or every table with one and a pinned copy
/// (a live-only table has none to pull or push).
pub fn chosen_tables<'c>(
    config: &'c Config,
    names: &[String],
) -> Result<Vec<&'c TableConfig>, Failure> {
    let with_catalog = || {
        config
            .tables
            .iter()
            .filter(|t| t.catalog.is_some() && !t.live_only())
    };
    if names.is_empty() {
        let all: Vec<_> = with_catalog().collect();
        if all.is_empty() {
            return Err(Failure::Message(format!(
                "no table of {CONFIG_FILE} has a `catalog:` and a pinned copy (`metadata:`): give the tables that live in a catalog `catalog: NAME`, and the catalog under `catalogs:` (a table without `metadata:` lives only in its catalog and has nothing to pull)"
            )));
        }
        return Ok(all);
    }
    names
        .iter()
        .map(|name| {
            let table = config.tables.iter().find(|t| same_table(&t.name, name));
            match table {
                Some(t) if t.catalog.is_some() => Ok(t),
                Some(t) => Err(Failure::Message(format!(
                    "`{}` has no `catalog:` in {CONFIG_FILE}",
                    t.name
                ))),
                None => Err(Failure::Message(format!(
                    "there is no table `{name}` in {CONFIG_FILE}"
                ))),
            }
        })
        .collect()
}

/// The pinned copy's file: the table's `metadata:`, a `*.metadata.json` path.
pub fn pinned_path(table: &TableConfig, dir: &Path) -> Result<PathBuf, Failure> {
    let Some(metadata) = &table.metadata else {
        return Err(Failure::Message(format!(
            "`{}` has no `metadata:`, so it lives only in its catalog and has no pinned copy (`check` judges it against the live table): to keep one, give the file it is kept in, e.g. `metadata: tables/{}.metadata.json`",
            table.name, table.name
        )));
    };
    if !metadata.ends_with(".json") {
        return Err(Failure::Message(format!(
            "the `metadata:` of `{}` is `{metadata}`: `pull` writes one file, so give a `*.metadata.json` path",
            table.name
        )));
    }
    // Relative to fieldgate.yaml and confined to its tree, as `check` reads it.
    repo_path(dir, metadata).map_err(Failure::Message)
}

pub fn write_pinned(path: &Path, text: &str) -> Result<(), Failure> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| Failure::Message(format!("cannot create `{}`: {e}", parent.display())))?;
    }
    write_atomically(path, text.as_bytes())
        .map_err(|e| Failure::Message(format!("cannot write `{}`: {e}", path.display())))
}

fn report(args: &PullArgs, outcomes: &[Outcome], out: &mut dyn Write) -> std::io::Result<()> {
    if args.format == PullFormat::Json {
        let tables: Vec<Value> = outcomes
            .iter()
            .map(|o| {
                json!({
                    "table": o.table,
                    "metadata": o.path.display().to_string(),
                    "pinned": o.changes.is_some(),
                    "in-sync": o.changes.as_ref().is_some_and(Vec::is_empty),
                    "changes": o.changes.clone().unwrap_or_default(),
                    "written": !args.check && o.changes.as_ref().is_none_or(|c| !c.is_empty()),
                })
            })
            .collect();
        return writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&json!({ "tables": tables })).unwrap_or_default()
        );
    }
    for outcome in outcomes {
        let path = outcome.path.display();
        match (&outcome.changes, args.check) {
            (Some(changes), _) if changes.is_empty() => {
                writeln!(out, "{}: in sync with the catalog ({path})", outcome.table)?
            }
            (None, true) => writeln!(
                out,
                "error[live-drift] {}: no pinned copy at {path} (run `fieldgate pull {}`)",
                outcome.table, outcome.table
            )?,
            (None, false) => writeln!(out, "{}: pinned copy written to {path}", outcome.table)?,
            (Some(changes), true) => {
                writeln!(
                    out,
                    "error[live-drift] {}: the pinned copy ({path}) is not the live table; it was changed outside the repository (run `fieldgate pull {}`):",
                    outcome.table, outcome.table
                )?;
                for change in changes {
                    writeln!(out, "  - {change}")?;
                }
            }
            (Some(changes), false) => {
                writeln!(out, "{}: pinned copy updated ({path}):", outcome.table)?;
                for change in changes {
                    writeln!(out, "  - {change}")?;
                }
            }
        }
    }
    Ok(())
}
