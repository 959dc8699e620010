//! `fieldgate init`: write a commented `fieldgate.yaml` for the directory at hand. It looks for
//! Iceberg tables (directories in the Hadoop layout, `*.metadata.json` files) and SQL migration
//! directories, lists what it found, and comments every other setting with its default, so the
//! file is both a working configuration and its own reference. With `--catalog`, it adds the
//! tables of a catalog to an existing configuration instead ([`catalog`]).

mod catalog;

use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::change::SourceFile;
use crate::cli::InitArgs;
use crate::failure::Failure;
use crate::plural::counted;
use crate::repo::atomic::write_atomically;
use crate::repo::config::{CONFIG_FILE, Config};

/// How deep the search goes, and directories it never enters (build output, dependencies,
/// virtualenvs): a warehouse is not hidden there, and they can be huge.
const MAX_DEPTH: usize = 8;
const SKIPPED: [&str; 5] = ["target", "node_modules", "venv", "__pycache__", "data"];

/// A table found on disk: its path relative to the directory, and how it was recognised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundTable {
    pub name: String,
    pub path: String,
    pub note: Option<String>,
}

pub fn run(args: &InitArgs, out: &mut dyn Write) -> Result<bool, Failure> {
    if let Some(name) = &args.catalog {
        return catalog::run(args, name, out);
    }
    let dir = std::env::current_dir()
        .map_err(|e| Failure::Message(format!("cannot read the current directory: {e}")))?;
    let target = dir.join(CONFIG_FILE);
    if target.exists() && !args.force {
        return Err(Failure::Message(format!(
            "{CONFIG_FILE} already exists: edit it, or run `fieldgate init --force` to replace it"
        )));
    }
    let (tables, sql_dirs) = discover(&dir);
    let text = render(&tables, &sql_dirs);
    // The file must be one `check` accepts; a failure here is a defect of `init`, reported as such.
    if let Err(errors) = Config::parse(Arc::new(SourceFile {
        name: CONFIG_FILE.into(),
        text: text.clone(),
    })) {
        let first = errors
            .first()
            .map(|e| e.message.clone())
            .unwrap_or_default();
        return Err(Failure::Message(format!(
            "fieldgate init made a configuration it cannot read ({first}); please report this"
        )));
    }
    write_atomically(&target, text.as_bytes())
        .map_err(|e| Failure::Message(format!("cannot write `{}`: {e}", target.display())))?;
    let summary = (|| -> std::io::Result<()> {
        writeln!(
            out,
            "wrote {CONFIG_FILE} with {}:",
            counted(tables.len(), "table")
        )?;
        for table in &tables {
            writeln!(out, "  {}: {}", table.name, table.path)?;
        }
        if tables.is_empty() {
            writeln!(
                out,
                "  (no Iceberg metadata found: add your tables under `tables:`)"
            )?;
        }
        writeln!(out, "check it, then run `fieldgate check` on a branch")
    })();
    summary.map_err(|e| Failure::Message(format!("cannot write the summary: {e}")))?;
    Ok(true)
}

/// The tables and the directories holding `.sql` files under `dir`, both sorted by path.
pub fn discover(dir: &Path) -> (Vec<FoundTable>, Vec<String>) {
    let mut found: Vec<(PathBuf, Option<String>)> = Vec::new();
    let mut sql_dirs = BTreeSet::new();
    walk(dir, dir, 0, &mut found, &mut sql_dirs);
    found.sort();
    let paths: Vec<&PathBuf> = found.iter().map(|(p, _)| p).collect();
    let tables = found
        .iter()
        .map(|(path, note)| FoundTable {
            name: table_name(path, &paths),
            path: slashed(path),
            note: note.clone(),
        })
        .collect();
    // Keep only the outermost directories: `migrations/**/*.sql` covers `migrations/db/`.
    let mut outermost: Vec<String> = Vec::new();
    for sql_dir in sql_dirs {
        if !outermost
            .iter()
            .any(|o| sql_dir == *o || sql_dir.starts_with(&format!("{o}/")))
        {
            outermost.push(sql_dir);
        }
    }
    (tables, outermost)
}

fn walk(
    root: &Path,
    dir: &Path,
    depth: usize,
    found: &mut Vec<(PathBuf, Option<String>)>,
    sql_dirs: &mut BTreeSet<String>,
) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    let relative = |p: &Path| {
        p.strip_prefix(root)
            .map(Path::to_path_buf)
            .unwrap_or_default()
    };
    // A table directory in the Hadoop layout: take it whole, never its files one by one.
    if dir != root
        && let Some((path, note)) = table_directory(dir)
    {
        found.push((relative(&path), note));
        return;
    }
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if depth < MAX_DEPTH && !name.starts_with('.') && !SKIPPED.contains(&name.as_str()) {
                walk(root, &path, depth + 1, found, sql_dirs);
            }
        } else if name.ends_with("metadata.json") {
            found.push((relative(&path), None));
        } else if name.ends_with(".sql")
            && let Some(parent) = path.parent().map(relative)
            && !parent.as_os_str().is_empty()
        {
            sql_dirs.insert(slashed(&parent));
        }
    }
}

/// What a table directory's metadata is found by: the directory itself when it is versioned
/// (`version-hint.text` or `vN.metadata.json`), else its newest metadata file with a note.
fn table_directory(dir: &Path) -> Option<(PathBuf, Option<String>)> {
    let metadata = dir.join("metadata");
    if !metadata.is_dir() {
        return None;
    }
    let names = file_names(&metadata);
    let versioned = names.iter().any(|n| {
        n == "version-hint.text"
            || n.strip_prefix('v')
                .and_then(|v| v.strip_suffix(".metadata.json"))
                .is_some_and(|v| v.parse::<u64>().is_ok())
    });
    if versioned {
        return Some((dir.to_path_buf(), None));
    }
    // A catalog-managed table (`00003-<uuid>.metadata.json`): the catalog knows which file is
    // current; the newest name is the best guess, and the comment says so.
    let mut json: Vec<&String> = names
        .iter()
        .filter(|n| n.ends_with(".metadata.json"))
        .collect();
    json.sort();
    let newest = json.last()?;
    let note = format!(
        "newest of {} metadata files; no version-hint.text, so point this at the current one",
        json.len()
    );
    Some((metadata.join(newest), Some(note)))
}

fn file_names(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn slashed(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// A table's name from its path: `warehouse/db/orders` is `db.orders` (a Hive-style `db.db`
/// directory counts as `db`); a file is named by its stem or, for `metadata.json` or a file in
/// `metadata/`, by its directory. Names are taken from more of the path until they are unique.
fn table_name(path: &Path, all: &[&PathBuf]) -> String {
    let parts = name_parts(path);
    for take in 2..=parts.len().max(2) {
        let name = join_last(&parts, take);
        let unique = all
            .iter()
            .filter(|other| other.as_path() != path)
            .all(|other| join_last(&name_parts(other), take) != name);
        if unique {
            return name;
        }
    }
    join_last(&parts, parts.len())
}

fn name_parts(path: &Path) -> Vec<String> {
    let mut parts: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.last().cloned()
        && last.ends_with("metadata.json")
    {
        parts.pop();
        let stem = last.trim_end_matches("metadata.json").trim_end_matches('.');
        if parts.last().is_some_and(|p| p == "metadata") {
            parts.pop();
        } else if !stem.is_empty() {
            parts.push(stem.to_string());
        }
    }
    parts
        .into_iter()
        .map(|p| p.strip_suffix(".db").map(str::to_string).unwrap_or(p))
        .collect()
}

fn join_last(parts: &[String], take: usize) -> String {
    parts[parts.len().saturating_sub(take)..].join(".")
}

/// A YAML scalar: plain when it is safe to be, else double-quoted.
fn scalar(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/*".contains(c))
        && !text.starts_with(['-', '*', '.']);
    if plain {
        text.to_string()
    } else {
        format!("{text:?}")
    }
}

/// The commented configuration.
pub fn render(tables: &[FoundTable], sql_dirs: &[String]) -> String {
    let mut text = String::from(
        "# fieldgate.yaml: which Iceberg tables this repository holds, where proposed schema changes\n\
         # live, and how strictly they are judged. `fieldgate check` reads it on every pull request;\n\
         # `fieldgate lint --config fieldgate.yaml` uses its rule settings. Reference: README.md.\n\n",
    );
    text.push_str(
        "# Each table: its name as migrations write it (ALTER TABLE db.orders ...), and its metadata:\n\
         # a `*.metadata.json` file, or a table directory in the Hadoop layout (metadata/version-hint.text,\n\
         # else the newest metadata/vN.metadata.json). Paths are relative to this file.\n",
    );
    tables_section(&mut text, tables);
    text.push_str(
        "\n# Where proposed changes live: globs relative to this file (`*` within a directory, `**` across\n\
         # directories). `check` judges the matching files added or changed since the base branch.\n\
         proposals:\n",
    );
    proposals_section(&mut text, sql_dirs);
    text.push_str(
        "\n# The SQL dialect of the migrations: spark (default) | trino | hive.\n\
         dialect: spark\n\n\
         # Compatibility mode for every table: backward (default) | forward | full, each also -transitive.\n\
         # compatibility: backward\n\n\
         # Rule severities (error | warning | note | off) and options; `fieldgate rules` lists them all.\n\
         rules:\n\
         \x20 # column-drop: error\n\
         \x20 # column-drop: {require-deprecation-days: 30}   # drop only after 30 days marked 'deprecated'\n\
         \x20 # name-reuse: {severity: error, window-days: 90} # reusing a name dropped over 90 days ago: a warning\n\
         \x20 missing-doc: off\n",
    );
    text
}

/// `tables:`, an entry per table found (or an example when none was), and what else an entry
/// may set.
fn tables_section(text: &mut String, tables: &[FoundTable]) {
    if tables.is_empty() {
        text.push_str(
            "# No Iceberg metadata was found; add your tables here, for example:\n\
             #   lake_prod.fact_orders:\n\
             #     metadata: warehouse/lake_prod/fact_orders\n\
             tables: {}\n",
        );
    } else {
        text.push_str("tables:\n");
        for table in tables {
            text.push_str(&format!("  {}:\n", scalar(&table.name)));
            if let Some(note) = &table.note {
                text.push_str(&format!("    # {note}\n"));
            }
            text.push_str(&format!("    metadata: {}\n", scalar(&table.path)));
        }
        text.push_str(
            "    # Each table may also set:\n\
             \x20   # mapping: field-id        # how readers find columns in old files: field-id | name | position\n\
             \x20   # compatibility: backward  # who must keep reading: backward | forward | full, each also -transitive\n\
             \x20   # rules: {column-rename: off}\n\
             \x20   # sample: 3                # data files read under the new schema once the rules pass:\n\
             \x20   #                          # N from the table's manifests, or [data/orders/*.parquet]\n",
        );
    }
}

/// The `proposals` globs: the directories holding `.sql` files, else the usual place.
fn proposals_section(text: &mut String, sql_dirs: &[String]) {
    if sql_dirs.is_empty() {
        text.push_str("  - migrations/**/*.sql\n");
    } else {
        for dir in sql_dirs {
            text.push_str(&format!("  - {}\n", scalar(&format!("{dir}/**/*.sql"))));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::config::test_config as parse;

    #[test]
    fn finds_table_directories_files_and_migrations() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for path in [
            "warehouse/sales.db/orders/metadata/v1.metadata.json",
            "warehouse/sales.db/orders/metadata/version-hint.text",
            "warehouse/hr/users/metadata/v3.metadata.json",
            "tables/dim_users/metadata.json",
            "catalog/events/metadata/00002-ab.metadata.json",
            "catalog/events/metadata/00001-aa.metadata.json",
            "migrations/sales/0001.sql",
            "migrations/0001.sql",
            "target/debug/x.metadata.json",
        ] {
            let file = root.join(path);
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(file, "{}").unwrap();
        }
        let (tables, sql_dirs) = discover(root);
        let found: Vec<(&str, &str)> = tables
            .iter()
            .map(|t| (t.name.as_str(), t.path.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "catalog.events",
                    "catalog/events/metadata/00002-ab.metadata.json"
                ),
                ("tables.dim_users", "tables/dim_users/metadata.json"),
                ("hr.users", "warehouse/hr/users"),
                ("sales.orders", "warehouse/sales.db/orders"),
            ]
        );
        assert_eq!(sql_dirs, ["migrations"]);
        let config = parse(&render(&tables, &sql_dirs));
        assert_eq!(config.tables.len(), 4);
        assert_eq!(config.proposals, ["migrations/**/*.sql"]);
        assert!(config.table("sales.orders").is_some());
    }

    #[test]
    fn an_empty_directory_still_gets_a_valid_file() {
        let config = parse(&render(&[], &[]));
        assert!(config.tables.is_empty());
        assert_eq!(config.proposals, ["migrations/**/*.sql"]);
    }
}
