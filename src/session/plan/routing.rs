//! Routing proposal files to the tables of `fieldgate.yaml`, shared by `check` (the files a
//! branch changed) and `lint` (the files given): which files are proposals (the `proposals`
//! globs), each file read and parsed, and each statement or schema file sent to the configured
//! table it names.

use std::path::{Path, PathBuf};

use crate::change::{Source, Span, Statement, StatementKind};
use crate::failure::{Failure, LocatedError};
use crate::frontend::ddl::Dialect;
use crate::frontend::schema_file::SchemaFile;
use crate::proposal::Proposal;
use crate::repo::config::{CONFIG_FILE, Config, TableConfig, code_name};
use crate::repo::glob;
use crate::session::input::{FileKind, parse_proposal, read_source_named, schema_file_failure};
use crate::suggest::closest;

/// A configured table's metadata leads out of the repository: an error at its entry in the
/// configuration.
pub fn metadata_outside(table: &TableConfig, message: String) -> Failure {
    Failure::Located(vec![LocatedError::new(
        &table.source,
        table.metadata_span,
        format!("the metadata of `{}`: {message}", table.name),
        Some(
            "keep the table's metadata in the repository, as files, not as links to elsewhere"
                .into(),
        ),
    )])
}

/// Whether a file (relative to the root) matches one of the `proposals` globs (made relative to
/// the root by `Config::proposal_globs`). A table's own metadata is never a proposal, whatever a
/// broad glob (`**/*.json`) says: `check` compares it with the proposals (`metadata-drift`). Only
/// migrations and YAML schema files count inside a table's metadata location.
pub fn is_proposal(globs: &[String], table_paths: &[PathBuf], file: &Path) -> bool {
    let in_a_table = table_paths.iter().any(|table| file.starts_with(table));
    let name = file.to_string_lossy().to_ascii_lowercase();
    if in_a_table && ![".sql", ".yaml", ".yml"].iter().any(|e| name.ends_with(e)) {
        return false;
    }
    let path = slashed(file);
    globs.iter().any(|pattern| glob::matches(pattern, &path))
}

/// One proposal file as routed to its table: a migration's statements (split by the table they
/// name), or a schema file, which names its table and is diffed once the table is at hand.
#[derive(Clone)]
pub enum Item {
    Ddl {
        path: PathBuf,
        statements: Vec<Statement>,
    },
    SchemaFile {
        path: PathBuf,
        source: Source,
        table: String,
        table_span: Span,
    },
}

impl Item {
    /// Whether the item can bring a table into being (CREATE TABLE, or a schema file).
    pub fn may_create(&self) -> bool {
        match self {
            Item::Ddl { statements, .. } => statements
                .first()
                .is_some_and(|s| matches!(s.kind, StatementKind::CreateTable(_))),
            Item::SchemaFile { .. } => true,
        }
    }

    pub fn path(&self) -> &Path {
        match self {
            Item::Ddl { path, .. } | Item::SchemaFile { path, .. } => path,
        }
    }
}

/// Every proposal file read and parsed, in path order; located errors of all files together.
/// Each goes through the dispatcher's file kinds: a migration is parsed now, a schema file only
/// read for its table name (its diff needs the table). `read_from` says where a file is read:
/// `check` confines it to the repository, `lint` reads what the user named.
pub fn parse_all(
    files: &[&PathBuf],
    dialect: Dialect,
    read_from: impl Fn(&Path) -> Result<PathBuf, Failure>,
) -> Result<Vec<Item>, Failure> {
    let mut sources = Vec::new();
    for file in files {
        let source = read_source_named(&read_from(file)?, slashed(file))?;
        sources.push((file.to_path_buf(), source));
    }
    parse_sources(sources, dialect)
}

/// Proposal texts already at hand (an editor's unsaved buffers), each with its path, parsed as
/// [`parse_all`] parses the files it reads.
pub fn parse_sources(
    sources: Vec<(PathBuf, Source)>,
    dialect: Dialect,
) -> Result<Vec<Item>, Failure> {
    let mut items = Vec::new();
    let mut errors = Vec::new();
    for (file, source) in sources {
        let parsed = match FileKind::of(&source.name, &source.text) {
            Some(FileKind::SchemaFile(format)) => SchemaFile::parse(&source.text, format)
                .map(|schema| Item::SchemaFile {
                    path: file.clone(),
                    source: source.clone(),
                    table: schema.table.clone(),
                    table_span: schema.table_span,
                })
                .map_err(|e| schema_file_failure(&source, e)),
            Some(FileKind::Metadata) => Err(Failure::Located(vec![LocatedError::new(
                &source,
                Span::new(0, 0),
                format!(
                    "`{}` is Iceberg table metadata: a metadata file names no table, so it is not routed by {CONFIG_FILE} (and `check` compares each table's committed metadata with the proposals anyway)",
                    source.name
                ),
                Some(format!(
                    "judge an engine-written metadata file against the table it replaces with `fieldgate lint --metadata TABLE {}` (TABLE: the table's current metadata file or directory), or narrow `proposals` in {CONFIG_FILE} so it does not match",
                    source.name
                )),
            )])),
            _ => parse_proposal(source, dialect, None).and_then(|proposal| match proposal {
                Proposal::Ddl(statements) => Ok(Item::Ddl {
                    path: file.clone(),
                    statements,
                }),
                _ => Err(Failure::Message(format!(
                    "`{}` is not a migration",
                    file.display()
                ))),
            }),
        };
        match parsed {
            Ok(item) => items.push(item),
            Err(Failure::Located(mut located)) => errors.append(&mut located),
            Err(other) => return Err(other),
        }
    }
    if errors.is_empty() {
        Ok(items)
    } else {
        Err(Failure::Located(errors))
    }
}

/// A repository path with `/`, as reports and git name files.
pub fn slashed(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Each configured table's items, in path order; a migration naming several tables is split.
/// A name matching no configured table, or several, is a located error: guessing would judge a
/// change against the wrong table.
pub fn route(config: &Config, items: Vec<Item>) -> Result<Vec<Vec<Item>>, Failure> {
    let mut routed: Vec<Vec<Item>> = vec![Vec::new(); config.tables.len()];
    let mut errors = Vec::new();
    let tables = config.table_index();
    let mut table_of = |name: &str, source: &Source, span: Span| -> Option<usize> {
        let matches = tables.positions(name);
        match matches.as_slice() {
            [index] => return Some(*index),
            [] => {
                let help = closest(name, config.tables.iter().map(|t| t.name.as_str()))
                    .map(|found| format!("did you mean `{found}`? ({})", known_tables(config)))
                    .unwrap_or_else(|| {
                        format!(
                            "{}: add this one under `tables`, with its metadata",
                            known_tables(config)
                        )
                    });
                errors.push(LocatedError::new(
                    source,
                    span,
                    format!("{} is not a table of {CONFIG_FILE}", code_name(name)),
                    Some(help),
                ));
            }
            several => {
                let names: Vec<String> = several
                    .iter()
                    .map(|i| format!("`{}`", config.tables[*i].name))
                    .collect();
                errors.push(LocatedError::new(
                    source,
                    span,
                    format!("{} could be any of {}", code_name(name), names.join(", ")),
                    Some("qualify the table name as fieldgate.yaml does".into()),
                ));
            }
        }
        None
    };
    for item in items {
        match item {
            Item::Ddl { path, statements } => {
                let mut per_table: Vec<(usize, Vec<Statement>)> = Vec::new();
                // The table of the file's last table statement, which takes the statements that
                // name none (they come last, and get its name where the table is judged); a file
                // without one touches no table.
                let mut last = None;
                for statement in statements {
                    let index = match statement.names_table() {
                        true => table_of(&statement.table, &statement.source, statement.table_span),
                        false => last,
                    };
                    let Some(index) = index else {
                        continue;
                    };
                    last = Some(index);
                    match per_table.iter_mut().find(|(i, _)| *i == index) {
                        Some((_, list)) => list.push(statement),
                        None => per_table.push((index, vec![statement])),
                    }
                }
                for (index, statements) in per_table {
                    routed[index].push(Item::Ddl {
                        path: path.clone(),
                        statements,
                    });
                }
            }
            Item::SchemaFile {
                ref source,
                ref table,
                table_span,
                ..
            } => {
                if let Some(index) = table_of(table, source, table_span) {
                    routed[index].push(item.clone());
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(routed)
    } else {
        Err(Failure::Located(errors))
    }
}

/// Gives the session statements of files that name no table (only `USE`, `SET`, ...) to
/// `table` (`--table`) when it is given; returns the files that still touch no table.
pub fn name_unnamed(items: &mut [Item], table: Option<&str>) -> Vec<PathBuf> {
    let mut tableless = Vec::new();
    for item in items {
        let Item::Ddl { path, statements } = item else {
            continue;
        };
        if statements.iter().any(Statement::names_table) || statements.is_empty() {
            continue;
        }
        match table {
            Some(table) => {
                for statement in statements.iter_mut() {
                    statement.table = table.to_string();
                }
            }
            None => tableless.push(path.clone()),
        }
    }
    tableless
}

/// The configured table names for an error's help, the first few when there are many.
fn known_tables(config: &Config) -> String {
    const SHOWN: usize = 8;
    let mut names: Vec<String> = config
        .tables
        .iter()
        .take(SHOWN)
        .map(|t| format!("`{}`", t.name))
        .collect();
    if config.tables.len() > SHOWN {
        names.push(format!("and {} more", config.tables.len() - SHOWN));
    }
    match names.is_empty() {
        true => format!("{CONFIG_FILE} lists no tables"),
        false => format!("{CONFIG_FILE} lists {}", names.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::change::SourceFile;

    fn config(tables: usize) -> Config {
        let mut text = String::from(if tables == 0 {
            "tables: {}\n"
        } else {
            "tables:\n"
        });
        for i in 0..tables {
            text.push_str(&format!("  db.t{i}:\n    metadata: w/t{i}\n"));
        }
        text.push_str("proposals:\n  - migrations/**/*.sql\n");
        let source = Arc::new(SourceFile {
            name: CONFIG_FILE.into(),
            text,
        });
        Config::parse(source).unwrap()
    }

    #[test]
    fn the_help_names_the_configured_tables_and_stops_after_a_few() {
        assert_eq!(known_tables(&config(0)), "fieldgate.yaml lists no tables");
        assert_eq!(
            known_tables(&config(2)),
            "fieldgate.yaml lists `db.t0`, `db.t1`"
        );
        let many = known_tables(&config(1000));
        assert!(many.ends_with("`db.t7`, and 992 more"), "{many}");
    }

    #[test]
    fn proposals_are_matched_relative_to_the_configuration() {
        let config = config(1);
        let globs = config.proposal_globs(Path::new("lake")).unwrap();
        let matches = |file: &str| is_proposal(&globs, &[], Path::new(file));
        assert!(matches("lake/migrations/a/0001.sql"));
        assert!(!matches("migrations/a/0001.sql"));
        assert!(!matches("lake/migrations/0001.yaml"));
    }

    #[test]
    fn a_tables_own_metadata_is_never_a_proposal() {
        let globs = vec!["**/*".to_string()];
        let tables = [PathBuf::from("warehouse/db/t")];
        let matches = |file: &str| is_proposal(&globs, &tables, Path::new(file));
        assert!(!matches("warehouse/db/t/metadata/v2.metadata.json"));
        assert!(matches("warehouse/db/t/migrations/0001.sql"));
        assert!(matches("elsewhere/new.metadata.json"));
    }
}
