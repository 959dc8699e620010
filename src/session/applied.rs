//! Migrations routed `lint` leaves out because they are history already: HEAD holds the file
//! with the text the working tree has, and the table's metadata committed at HEAD holds its
//! changes. Without this, linting the whole migrations directory of a table whose migrations
//! have all been applied judges every one of them again, against the table they produced.
//!
//! "Applied" is decided from the repository, never from a file name: the migrations HEAD
//! holds (their text at HEAD, in path order) are applied, one file after another, to the
//! table as it was committed just before the oldest of them got that text (its first-parent
//! ancestor). When no table was committed there (the history starts with them, or the table's
//! first metadata came in the same commit), a `CREATE TABLE` may begin, or they start from one of
//! the earlier versions HEAD's table directory holds (an engine-written table committed together
//! with the migrations that made it). The longest run of them that gives the table committed at HEAD (by everything
//! the gate judges, as `metadata-drift` compares, and the properties they set) is applied.
//! Of those, the files the working tree holds unchanged are left out; an edited one is judged,
//! and so is every migration after the run (committed without its metadata, or new).

use std::path::{Path, PathBuf};

use git2::Oid;

use crate::change::{Change, Statement, StatementKind};
use crate::evolve::evolve;
use crate::evolve::new_table::new_table;
use crate::failure::Failure;
use crate::frontend::ddl::Dialect;
use crate::iceberg::metadata::TableMetadata;
use crate::repo::config::Config;
use crate::repo::git::{CommitFiles, Repo};
use crate::repo::location::{Files, TableLocation, locate_in};
use crate::session::drift::same_state;
use crate::session::input::iceberg_table;
use crate::session::plan::routing::{Item, parse_sources, route, slashed};

/// A migration left out of a table's judging because HEAD has it applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedMigration {
    /// The file as given.
    pub path: PathBuf,
    pub table: String,
}

/// What the history of one table's migrations is read from.
pub struct History<'a> {
    pub git: &'a Repo,
    pub config: &'a Config,
    pub dialect: Dialect,
    /// The repository root and the directory the items' paths are relative to, both canonical.
    pub root: &'a Path,
    pub here: &'a Path,
}

/// One migration HEAD holds: which item it is, its path in the repository, its statements for
/// the table as HEAD has them, and whether the working tree's text is the same.
struct Committed {
    item: usize,
    path: PathBuf,
    statements: Vec<Statement>,
    unchanged: bool,
}

/// For each of `items` (the table's, `index` in the configuration, in path order, as the working
/// tree holds them), whether HEAD has it applied and unchanged: the ones to leave out.
pub fn applied_at_head(
    history: &History<'_>,
    index: usize,
    table_path: &Path,
    items: &[Item],
) -> Result<Vec<bool>, Failure> {
    let mut applied = vec![false; items.len()];
    let Some(head) = history.git.head() else {
        return Ok(applied);
    };
    let files = history.git.files_at(head).map_err(Failure::Message)?;
    let committed = committed_migrations(history, &files, index, items);
    // Only an unchanged file is left out: with none, the history need not be read (an editor
    // judges an edited migration on every keystroke).
    if !committed.iter().any(|c| c.unchanged) {
        return Ok(applied);
    }
    let Ok(location) = locate_in(&files, table_path) else {
        return Ok(applied);
    };
    let Some(at_head) = table_at(&files, location.clone()) else {
        return Ok(applied);
    };
    let paths: Vec<PathBuf> = committed.iter().map(|c| c.path.clone()).collect();
    let before = history
        .git
        .before_all(head, &paths)
        .map_err(Failure::Message)?;
    let start = match before {
        Some(commit) => table_at_commit(history.git, commit, table_path)?,
        None => None,
    };
    let migrations: Vec<&[Statement]> = committed.iter().map(|c| c.statements.as_slice()).collect();
    let count = match &start {
        Some(start) => applied_count(Some(start), &migrations, &at_head),
        None => {
            let created = applied_count(None, &migrations, &at_head);
            let versions = Earlier {
                files: &files,
                location: &location,
            };
            created.max(versions.applied_count(&migrations, &at_head))
        }
    };
    for migration in committed[..count].iter().filter(|c| c.unchanged) {
        applied[migration.item] = true;
    }
    Ok(applied)
}

/// The items that are migrations HEAD holds, each with its statements for the table as HEAD's
/// text gives them (an edited file's text at HEAD parsed and routed again; one that no longer
/// parses or routes there is no applied migration).
fn committed_migrations(
    history: &History<'_>,
    files: &CommitFiles<'_>,
    index: usize,
    items: &[Item],
) -> Vec<Committed> {
    let mut committed = Vec::new();
    for (item, found) in items.iter().enumerate() {
        let Item::Ddl { path, statements } = found else {
            continue;
        };
        let Some(relative) = std::fs::canonicalize(history.here.join(path))
            .ok()
            .and_then(|p| p.strip_prefix(history.root).ok().map(Path::to_path_buf))
        else {
            continue;
        };
        let Some(working) = statements.first().map(|s| &s.source) else {
            continue;
        };
        let Ok(text) = files.read_to_string(&relative) else {
            continue;
        };
        let unchanged = text == working.text;
        let statements = match unchanged {
            true => statements.clone(),
            false => match statements_at_head(history, index, path, text, &working.name) {
                Some(statements) => statements,
                None => continue,
            },
        };
        committed.push(Committed {
            item,
            path: relative,
            statements,
            unchanged,
        });
    }
    committed
}

/// HEAD's text of an edited migration, parsed and routed: its statements for table `index`.
fn statements_at_head(
    history: &History<'_>,
    index: usize,
    path: &Path,
    text: String,
    name: &str,
) -> Option<Vec<Statement>> {
    let source = std::sync::Arc::new(crate::change::SourceFile {
        name: name.to_string(),
        text,
    });
    let items = parse_sources(vec![(path.to_path_buf(), source)], history.dialect).ok()?;
    let mut routed = route(history.config, items).ok()?;
    let mine = routed.get_mut(index).map(std::mem::take)?;
    match mine.into_iter().next()? {
        Item::Ddl { statements, .. } => Some(statements),
        Item::SchemaFile { .. } => None,
    }
}

/// The table's Iceberg metadata at `location` in `files`; `None` when it does not read.
fn table_at(files: &CommitFiles<'_>, location: TableLocation) -> Option<TableMetadata> {
    let text = files.read_metadata(&location.metadata_file).ok()?;
    let name = slashed(&location.metadata_file);
    let source = std::sync::Arc::new(crate::change::SourceFile { name, text });
    iceberg_table(location, source).ok().map(|t| t.metadata)
}

fn table_at_commit(
    git: &Repo,
    commit: Oid,
    table_path: &Path,
) -> Result<Option<TableMetadata>, Failure> {
    let files = git.files_at(commit).map_err(Failure::Message)?;
    Ok(locate_in(&files, table_path)
        .ok()
        .and_then(|location| table_at(&files, location)))
}

/// How many earlier versions of a table [`Earlier`] tries as the start of its migrations: each
/// costs a metadata file parsed and the migrations evolved once more.
const EARLIER_VERSIONS: i32 = 64;

/// The earlier versions HEAD holds of a table in the Hadoop layout, for when its migrations
/// came into the history with its first metadata (an engine-written table committed together
/// with the migrations that made it): nothing was committed before them, but the table
/// directory holds the versions they started from.
struct Earlier<'a, 'r> {
    files: &'a CommitFiles<'r>,
    location: &'a TableLocation,
}

impl Earlier<'_, '_> {
    /// The longest run of `migrations` that gives `committed` from one of the versions before
    /// the current one (the last [`EARLIER_VERSIONS`], oldest first); 0 when none does.
    fn applied_count(&self, migrations: &[&[Statement]], committed: &TableMetadata) -> usize {
        let Some(hadoop) = &self.location.hadoop else {
            return 0;
        };
        let first = hadoop.version.saturating_sub(EARLIER_VERSIONS).max(1);
        let mut best = 0;
        for version in first..hadoop.version {
            let Some(file) = hadoop.version_file(self.files, version) else {
                continue;
            };
            let location = TableLocation {
                metadata_file: file,
                hadoop: None,
            };
            let Some(start) = table_at(self.files, location) else {
                continue;
            };
            best = best.max(applied_count(Some(&start), migrations, committed));
            if best == migrations.len() {
                break;
            }
        }
        best
    }
}

/// How many of `migrations` (each one file's statements for the table), applied one file after
/// another to `start` (`None`: no table yet, so the first must create it), give `committed`:
/// the longest such run. A file whose changes cannot all apply ends the search.
fn applied_count(
    start: Option<&TableMetadata>,
    migrations: &[&[Statement]],
    committed: &TableMetadata,
) -> usize {
    let mut state = start.cloned();
    let mut count = 0;
    for (i, statements) in migrations.iter().enumerate() {
        let mut rest = *statements;
        if state.is_none() {
            let Some((
                Statement {
                    kind: StatementKind::CreateTable(create),
                    ..
                },
                after,
            )) = statements.split_first()
            else {
                break;
            };
            // The location and clock are no part of what is compared.
            let Ok(created) = new_table(create, committed.location.clone(), 0) else {
                break;
            };
            state = Some(created);
            rest = after;
        }
        let Some(before) = &state else { break };
        let mut changes: Vec<&[Change]> = Vec::new();
        for statement in rest {
            match &statement.kind {
                StatementKind::Alter(list) => changes.push(list),
                StatementKind::CreateTable(_) => return count,
            }
        }
        let evolution = evolve(before, changes);
        if !evolution.problems.is_empty() || evolution.too_large.is_some() {
            break;
        }
        state = Some(evolution.metadata);
        if let Some(now) = &state
            && same_state(now, committed)
            && same_properties_set(start, now, committed)
        {
            count = i + 1;
        }
    }
    count
}

/// Whether every property the migrations changed from `start` has in `committed` the value
/// they leave (`metadata-drift` compares only the properties that change how readers read).
fn same_properties_set(
    start: Option<&TableMetadata>,
    now: &TableMetadata,
    committed: &TableMetadata,
) -> bool {
    let was = |key: &str| start.and_then(|s| s.property(key));
    let keys = now
        .properties
        .iter()
        .chain(start.map_or(&[][..], |s| s.properties.as_slice()))
        .map(|(key, _)| key.as_str());
    keys.filter(|key| was(key) != now.property(key))
        .all(|key| committed.property(key) == now.property(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::Source;
    use crate::frontend::ddl::parse_sql;

    fn statements(text: &str) -> Vec<Statement> {
        let source: Source = std::sync::Arc::new(crate::change::SourceFile {
            name: "m.sql".into(),
            text: text.into(),
        });
        parse_sql(source, Dialect::Spark).unwrap()
    }

    fn after(start: Option<&TableMetadata>, migrations: &[&[Statement]]) -> TableMetadata {
        let mut state = start.cloned();
        for statements in migrations {
            let (rest, base) = match (&state, statements.split_first()) {
                (None, Some((first, rest))) => {
                    let StatementKind::CreateTable(create) = &first.kind else {
                        panic!()
                    };
                    (rest, new_table(create, "/t".into(), 0).unwrap())
                }
                (Some(s), _) => (*statements, s.clone()),
                (None, None) => panic!(),
            };
            let changes = rest.iter().map(|s| match &s.kind {
                StatementKind::Alter(list) => list.as_slice(),
                StatementKind::CreateTable(_) => &[],
            });
            state = Some(evolve(&base, changes).metadata);
        }
        state.unwrap()
    }

    #[test]
    fn the_longest_run_that_gives_the_committed_table_is_applied() {
        let create = statements("CREATE TABLE db.t (id bigint, name string);");
        let add = statements("ALTER TABLE db.t ADD COLUMN a int;");
        let props = statements("ALTER TABLE db.t SET TBLPROPERTIES ('owner' = 'x');");
        let migrations: Vec<&[Statement]> = vec![&create, &add, &props];
        // The property the last one sets is not committed: that one is not applied.
        let both = after(None, &migrations[..2]);
        assert_eq!(applied_count(None, &migrations, &both), 2);
        let all = after(None, &migrations);
        assert_eq!(applied_count(None, &migrations, &all), 3);
        let created = after(None, &migrations[..1]);
        assert_eq!(applied_count(None, &migrations[1..], &created), 0);
        // From a table that already has the first one, nothing applies.
        assert_eq!(applied_count(Some(&created), &migrations, &all), 0);
        assert_eq!(applied_count(Some(&created), &migrations[1..], &all), 2);
    }
}
