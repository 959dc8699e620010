//! Reading what the user pointed at: proposal files and the table, each turned into a source
//! text plus a model, or into located errors.
//!
//! [`parse_proposal`] is the one dispatcher from a proposal file to a [`Proposal`]: by name, a
//! `.sql` file is DDL, `*.metadata.json` a metadata file an engine wrote, `.yaml`/`.yml` a schema
//! file; any other `.json` is a metadata file if it looks like one (`format-version` and
//! `schemas`) and a schema file otherwise. A table (`--metadata`) is Iceberg metadata (a
//! `*.metadata.json` file or a table directory) or, for a table that has none, a schema file
//! describing it, told apart the same way.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::change::{Source, SourceFile, Span, Statement, StatementKind};
use crate::evolve::evolve;
use crate::evolve::new_table::new_table;
use crate::failure::{Failure, LocatedError};
use crate::frontend::ddl::{self, Dialect};
use crate::frontend::metadata_diff::diff_metadata;
use crate::frontend::schema_file::{Format, SchemaFile, SchemaFileErrors, TableDescription};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::schema::Schema;
use crate::proposal::{FileProposal, Proposal};
use crate::repo::git::Repo;
use crate::repo::location::{TableLocation, decode_metadata, locate, not_local, read_input};
use crate::rules::{CommitInfo, FileHistory, Mapping, RuleOptions};

/// Reads a file as UTF-8 text (a gzip metadata file inflated first, as its name says); invalid
/// bytes are a located error, not a lossy conversion.
pub fn read_source(path: &Path) -> Result<Source, Failure> {
    read_source_named(path, path.display().to_string())
}

/// [`read_source`], with the name reports give the file (a path relative to the repository).
pub fn read_source_named(path: &Path, name: String) -> Result<Source, Failure> {
    let bytes =
        read_input(path, path).map_err(|e| Failure::Message(not_local(path).unwrap_or(e)))?;
    let bytes = decode_metadata(path, bytes).map_err(Failure::Message)?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Arc::new(SourceFile { name, text })),
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let source = Arc::new(SourceFile { name, text });
            Err(Failure::Located(vec![LocatedError::new(
                &source,
                Span::new(offset, 1),
                format!("invalid UTF-8 at byte {offset}"),
                Some("save the file as UTF-8".into()),
            )]))
        }
    }
}

/// The table a run judges against, as read.
#[derive(Clone)]
pub struct LoadedTable {
    pub location: TableLocation,
    pub source: Source,
    pub metadata: TableMetadata,
    /// `Some` when a schema file describes the table instead of Iceberg metadata (a Hive table,
    /// or one whose metadata is not at hand). Such a table has no metadata file to patch.
    pub description: Option<Description>,
}

/// What a describing schema file says beyond the metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    pub table: String,
    /// How the table's readers find columns.
    pub mapping: Mapping,
}

/// What kind of file a proposal (or a table description) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Ddl,
    SchemaFile(Format),
    Metadata,
}

impl FileKind {
    /// By name; a plain `.json` (or a name without a known extension) by its content: Iceberg
    /// metadata has `format-version` and `schemas` (or v1's `schema`), a schema file has
    /// `table` and `fields`.
    pub fn of(name: &str, text: &str) -> Option<FileKind> {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".sql") {
            Some(FileKind::Ddl)
        } else if lower.ends_with(".metadata.json") || lower.ends_with(".metadata.json.gz") {
            Some(FileKind::Metadata)
        } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            Some(FileKind::SchemaFile(Format::Yaml))
        } else if lower.ends_with(".json") {
            Some(if looks_like_metadata(text) {
                FileKind::Metadata
            } else {
                FileKind::SchemaFile(Format::Json)
            })
        } else {
            None
        }
    }
}

/// Whether `text` is a JSON object with Iceberg metadata's keys.
fn looks_like_metadata(text: &str) -> bool {
    crate::json::parse(text).is_ok_and(|root| {
        let root = crate::iceberg::metadata::unwrap_load_table_result(&root);
        root.get("format-version").is_some()
            && (root.get("schemas").is_some() || root.get("schema").is_some())
            && root.get("fields").is_none()
    })
}

/// The dispatcher: one proposal file's text, read as what its name says it is.
///
/// `base` is the table as it stands just before this proposal (after any earlier proposals of
/// the same run); `None` when the table does not exist yet, which DDL must then create and a
/// schema file describes (a metadata proposal needs a base). A schema file is diffed against
/// `base` here, so its statement is ready for `judge::judge_proposals`.
pub fn parse_proposal(
    source: Source,
    dialect: Dialect,
    base: Option<&TableMetadata>,
) -> Result<Proposal, Failure> {
    let kind = FileKind::of(&source.name, &source.text).ok_or_else(|| {
        Failure::Message(format!(
            "`{}`: a proposal is a `.sql` migration, a `.yaml`/`.yml`/`.json` schema file or a new `*.metadata.json`",
            source.name
        ))
    })?;
    match kind {
        FileKind::Ddl => ddl::parse_sql(source.clone(), dialect)
            .map(Proposal::Ddl)
            .map_err(|e| {
                Failure::Located(
                    e.errors
                        .into_iter()
                        .map(|e| LocatedError::new(&source, e.span, e.message, e.help))
                        .collect(),
                )
            }),
        FileKind::SchemaFile(format) => {
            let file = SchemaFile::parse(&source.text, format)
                .map_err(|e| schema_file_failure(&source, e))?;
            let (statement, problems, notes, suppressions) = match base {
                Some(base) => {
                    let diff = file.diff(&source, base);
                    (
                        Some(diff.statement),
                        diff.problems,
                        diff.notes,
                        diff.suppressions,
                    )
                }
                None => (None, Vec::new(), Vec::new(), Vec::new()),
            };
            Ok(Proposal::SchemaFile(FileProposal {
                file,
                source,
                format,
                statement,
                problems,
                notes,
                suppressions,
            }))
        }
        FileKind::Metadata => {
            let Some(base) = base else {
                return Err(Failure::Message(format!(
                    "`{}` is a metadata file proposed as the table's next state: name the table it replaces with --metadata PATH",
                    source.name
                )));
            };
            let root = parse_json(&source)?;
            let proposed = metadata_from_json(&source, &root)?;
            Ok(Proposal::Metadata(diff_metadata(
                &source, &root, proposed, base,
            )))
        }
    }
}

/// A proposal file as read by [`read_proposals`].
pub struct ReadProposal {
    pub path: PathBuf,
    pub proposal: Proposal,
    /// The table's current schema right after this proposal, for writing a schema file's ids
    /// back (`None` where it could not be worked out: the proposal failed to apply).
    pub schema_after: Option<Schema>,
}

/// Reads proposal files in order (see [`parse_in_order`]).
pub fn read_proposals(
    files: &[impl AsRef<Path>],
    dialect: Dialect,
    base: Option<&TableMetadata>,
) -> Result<Vec<ReadProposal>, Failure> {
    let sources = files
        .iter()
        .map(|f| read_source(f.as_ref()))
        .collect::<Result<Vec<_>, _>>()?;
    let parsed = parse_in_order(sources, dialect, base)?;
    Ok(files
        .iter()
        .zip(parsed)
        .map(|(file, (proposal, schema_after))| ReadProposal {
            path: file.as_ref().to_path_buf(),
            proposal,
            schema_after,
        })
        .collect())
}

/// Parses proposals in order, each against the table as the proposals before it left it, so a
/// schema file after a migration is diffed against the migrated table; with each, the table's
/// current schema right after it (for writing a schema file's ids back). Every source's errors
/// are collected before failing. For texts that are not files (a git blob), as `check` reads them.
pub fn parse_in_order(
    sources: impl IntoIterator<Item = Source>,
    dialect: Dialect,
    base: Option<&TableMetadata>,
) -> Result<Vec<(Proposal, Option<Schema>)>, Failure> {
    let mut state = base.cloned();
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut sources = sources.into_iter().peekable();
    while let Some(source) = sources.next() {
        match parse_proposal(source, dialect, state.as_ref()) {
            Ok(proposal) => {
                // Evolving costs as much as judging: the last migration's result is needed by
                // nothing that follows, while a schema file needs it for its ids.
                let needed =
                    sources.peek().is_some() || matches!(proposal, Proposal::SchemaFile(_));
                let schema_after = if needed {
                    state = state_after(state, &proposal);
                    state.as_ref().map(|s| s.current_schema().clone())
                } else {
                    None
                };
                out.push((proposal, schema_after));
            }
            Err(Failure::Located(mut located)) => errors.append(&mut located),
            Err(message) => return Err(message),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(Failure::Located(errors))
    }
}

/// The table after `proposal`, as far as the next proposal's diff needs it (ids and names; the
/// location and times of a created table do not matter here).
pub fn state_after(state: Option<TableMetadata>, proposal: &Proposal) -> Option<TableMetadata> {
    match (state, proposal) {
        (_, Proposal::Metadata(metadata)) => Some(metadata.metadata.clone()),
        (None, Proposal::SchemaFile(file)) => describe(&file.file).ok().map(|d| d.metadata),
        (None, Proposal::Ddl(statements)) => {
            let (first, rest) = statements.split_first()?;
            let StatementKind::CreateTable(create) = &first.kind else {
                return None;
            };
            let created = new_table(create, String::new(), 0).ok()?;
            Some(evolve_with(&created, rest.iter()))
        }
        (Some(state), proposal) => Some(evolve_with(&state, proposal.statements().into_iter())),
    }
}

fn evolve_with<'s>(
    state: &TableMetadata,
    statements: impl Iterator<Item = &'s Statement>,
) -> TableMetadata {
    let lists: Vec<&[crate::change::Change]> = statements
        .filter_map(|s| match &s.kind {
            StatementKind::Alter(changes) => Some(changes.as_slice()),
            StatementKind::CreateTable(_) => None,
        })
        .collect();
    evolve(state, lists).metadata
}

/// The table a schema file describes on its own: with no id at all it is a new table, numbered
/// as Iceberg numbers one; otherwise every field must have its id.
pub fn describe(file: &SchemaFile) -> Result<TableDescription, SchemaFileErrors> {
    if file.has_no_ids() {
        file.with_fresh_ids().to_table_metadata()
    } else {
        file.to_table_metadata()
    }
}

/// A schema file's errors, each at its text.
pub fn schema_file_failure(source: &Source, errors: SchemaFileErrors) -> Failure {
    Failure::Located(
        errors
            .errors
            .into_iter()
            .map(|e| {
                LocatedError::new(
                    source,
                    e.span,
                    format!(
                        "{}: {}",
                        e.kind.code().trim_start_matches("fieldgate::"),
                        e.message
                    ),
                    e.help,
                )
            })
            .collect(),
    )
}

fn parse_json(source: &Source) -> Result<crate::json::Node<'_>, Failure> {
    crate::json::parse(&source.text).map_err(|e| {
        Failure::Located(vec![LocatedError::new(
            source,
            Span::new(e.offset, e.len.max(1)),
            format!("malformed JSON: {e}"),
            None,
        )])
    })
}

/// Parses Iceberg table metadata text (a working-tree file or a git blob); malformed JSON or
/// metadata is a located error.
pub fn parse_metadata(source: &Source) -> Result<TableMetadata, Failure> {
    let root = parse_json(source)?;
    metadata_from_json(source, &root)
}

/// Who dropped which field when, and since when fields are marked deprecated, from the versions
/// of the table at `path` (relative to the root) along `commit`'s history. Versions that do not
/// parse are skipped: history informs findings, it does not fail the run.
pub fn file_history(
    repo: &Repo,
    commit: git2::Oid,
    path: &Path,
    options: &RuleOptions,
) -> Result<FileHistory, Failure> {
    let versions: Vec<(CommitInfo, TableMetadata)> = repo
        .versions(commit, path)?
        .into_iter()
        .filter_map(|version| {
            let source = Arc::new(SourceFile {
                name: version.file.display().to_string(),
                text: version.text,
            });
            parse_metadata(&source)
                .ok()
                .map(|metadata| (version.commit, metadata))
        })
        .collect();
    Ok(FileHistory::from_versions(&versions, options))
}

/// [`file_history`] for a table given on the command line, up to HEAD, when it lives in a git
/// repository: so `lint` and `apply` judge name reuse and deprecation windows as `check` does.
/// Outside git, or when git cannot tell, there is none.
pub fn history_on_disk(path: &Path, options: &RuleOptions) -> Option<FileHistory> {
    let dir = if path.is_dir() { path } else { path.parent()? };
    let repo = Repo::discover(dir).ok()?;
    let relative = repo.relative(path)?;
    let head = repo.head()?;
    let key = (repo.root().to_path_buf(), head, relative, options.clone());
    if let Some(known) = remembered(&key) {
        return known;
    }
    let history = file_history(&repo, head, &key.2, options).ok();
    remember(key, history.clone());
    history
}

/// A table's history at a commit, by repository, commit, table path and rule options.
type HistoryKey = (PathBuf, git2::Oid, PathBuf, RuleOptions);

/// The histories read in this process: a commit's history never changes, and an editor's
/// server judges the same table at the same `HEAD` on every keystroke, where walking a long
/// history and parsing each version of the metadata every time would cost seconds.
static HISTORIES: std::sync::Mutex<Vec<(HistoryKey, Option<FileHistory>)>> =
    std::sync::Mutex::new(Vec::new());

/// How many histories are kept (the tables an editor has open, at their last few commits).
const HISTORIES_KEPT: usize = 16;

fn remembered(key: &HistoryKey) -> Option<Option<FileHistory>> {
    let kept = HISTORIES.lock().unwrap_or_else(|p| p.into_inner());
    kept.iter().find(|(k, _)| k == key).map(|(_, h)| h.clone())
}

fn remember(key: HistoryKey, history: Option<FileHistory>) {
    let mut kept = HISTORIES.lock().unwrap_or_else(|p| p.into_inner());
    if kept.len() >= HISTORIES_KEPT {
        kept.remove(0);
    }
    kept.push((key, history));
}

fn metadata_from_json(
    source: &Source,
    root: &crate::json::Node<'_>,
) -> Result<TableMetadata, Failure> {
    TableMetadata::from_json(root).map_err(|e| {
        Failure::Located(vec![LocatedError::new(
            source,
            e.span,
            format!("not valid Iceberg table metadata: {}", e.message),
            None,
        )])
    })
}

/// Reads the table: Iceberg metadata (a metadata file, or a table directory in the Hadoop
/// layout), or a schema file that describes it.
pub fn load_table(path: &Path) -> Result<LoadedTable, Failure> {
    let location = locate(path)?;
    let source = read_source(&location.metadata_file)?;
    table_from_source(location, source)
}

/// [`load_table`] once the metadata file is found and read (`source` named as reports show it).
pub fn table_from_source(location: TableLocation, source: Source) -> Result<LoadedTable, Failure> {
    let described = match (&location.hadoop, FileKind::of(&source.name, &source.text)) {
        (None, Some(FileKind::SchemaFile(format))) => Some(format),
        (None, None) if !looks_like_metadata(&source.text) => Some(Format::Yaml),
        _ => None,
    };
    if let Some(format) = described {
        let file =
            SchemaFile::parse(&source.text, format).map_err(|e| schema_file_failure(&source, e))?;
        let description = file.to_table_metadata().map_err(|e| {
            let mut failure = schema_file_failure(&source, e);
            if let Failure::Located(errors) = &mut failure {
                for error in errors.iter_mut() {
                    error.help = Some(
                        "a schema file given as --metadata describes the table as it is, so every field needs its id (a proposal may leave them out)".into(),
                    );
                }
            }
            failure
        })?;
        return Ok(LoadedTable {
            location,
            source,
            metadata: description.metadata,
            description: Some(Description {
                table: description.table,
                mapping: description.mapping,
            }),
        });
    }
    iceberg_table(location, source)
}

/// A table read from its Iceberg metadata file (a working-tree file or a git blob).
pub fn iceberg_table(location: TableLocation, source: Source) -> Result<LoadedTable, Failure> {
    let metadata = parse_metadata(&source)?;
    Ok(LoadedTable {
        location,
        source,
        metadata,
        description: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proposals_are_told_apart_by_name_then_by_content() {
        let metadata = r#"{"format-version": 2, "schemas": [], "location": "x"}"#;
        let schema = r#"{"table": "t", "fields": []}"#;
        assert_eq!(FileKind::of("m/0001.SQL", ""), Some(FileKind::Ddl));
        assert_eq!(
            FileKind::of("v3.metadata.json", schema),
            Some(FileKind::Metadata)
        );
        assert_eq!(
            FileKind::of("users.yml", metadata),
            Some(FileKind::SchemaFile(Format::Yaml))
        );
        assert_eq!(
            FileKind::of("tables/users/metadata.json", metadata),
            Some(FileKind::Metadata)
        );
        assert_eq!(
            FileKind::of("schemas/users.json", schema),
            Some(FileKind::SchemaFile(Format::Json))
        );
        // Broken JSON is read as a schema file, whose reader then points at the error.
        assert_eq!(
            FileKind::of("x.json", "{"),
            Some(FileKind::SchemaFile(Format::Json))
        );
        assert_eq!(FileKind::of("notes.txt", ""), None);
    }

    #[test]
    fn a_schema_file_is_diffed_against_the_table_it_is_given() {
        let base = SchemaFile::parse_yaml("table: t\nfields:\n  - {id: 1, name: a, type: int}\n")
            .and_then(|f| f.to_table_metadata())
            .unwrap()
            .metadata;
        let source = Arc::new(SourceFile {
            name: "t.yaml".into(),
            text: "table: t\nfields:\n  - {id: 1, name: a, type: long}\n  - {name: b, type: int}\n"
                .into(),
        });
        let Ok(Proposal::SchemaFile(file)) =
            parse_proposal(source.clone(), Dialect::Spark, Some(&base))
        else {
            panic!("a schema-file proposal")
        };
        let Some(Statement {
            kind: StatementKind::Alter(changes),
            ..
        }) = &file.statement
        else {
            panic!("one alter statement")
        };
        assert_eq!(changes.len(), 2);
        // Without a table the file describes a new one: no statement to apply.
        let Ok(Proposal::SchemaFile(file)) = parse_proposal(source, Dialect::Spark, None) else {
            panic!("a schema-file proposal")
        };
        assert!(file.statement.is_none());
    }
}
