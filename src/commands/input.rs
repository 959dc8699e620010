//! Reading what the user pointed at: proposal files and table metadata, each turned into a
//! source text plus a model, or into located errors.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use crate::change::{Source, SourceFile, Span, Statement};
use crate::cli::DialectArg;
use crate::commands::failure::{Failure, LocatedError};
use crate::frontend::ddl::{self, Dialect};
use crate::iceberg::metadata::TableMetadata;
use crate::repo::git::Repo;
use crate::repo::location::{TableLocation, locate};
use crate::rules::{CommitInfo, FileHistory, RuleOptions};

/// Reads a file as UTF-8 text; invalid bytes are a located error, not a lossy conversion.
pub fn read_source(path: &Path) -> Result<Source, Failure> {
    read_source_named(path, path.display().to_string())
}

/// [`read_source`], with the name reports give the file (a path relative to the repository).
pub fn read_source_named(path: &Path, name: String) -> Result<Source, Failure> {
    let bytes = fs::read(path)
        .map_err(|e| Failure::Message(format!("cannot read `{}`: {e}", path.display())))?;
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
    file_history(&repo, repo.head()?, &relative, options).ok()
}

pub struct LoadedTable {
    pub location: TableLocation,
    pub source: Source,
    pub metadata: TableMetadata,
}

pub fn load_table(path: &Path) -> Result<LoadedTable, Failure> {
    let location = locate(path)?;
    let source = read_source(&location.metadata_file)?;
    let metadata = parse_metadata(&source)?;
    Ok(LoadedTable {
        location,
        source,
        metadata,
    })
}

/// Parses table metadata text; malformed JSON or Iceberg is a located error.
pub fn parse_metadata(source: &Source) -> Result<TableMetadata, Failure> {
    let root = crate::json::parse(&source.text).map_err(|e| {
        Failure::Located(vec![LocatedError::new(
            source,
            Span::new(e.offset, e.len.max(1)),
            format!("malformed JSON: {e}"),
            None,
        )])
    })?;
    TableMetadata::from_json(&root).map_err(|e| {
        Failure::Located(vec![LocatedError::new(
            source,
            e.span,
            format!("not valid Iceberg table metadata: {}", e.message),
            None,
        )])
    })
}

pub fn dialect_of(dialect: DialectArg) -> Dialect {
    match dialect {
        DialectArg::Spark => Dialect::Spark,
        DialectArg::Trino => Dialect::Trino,
        DialectArg::Hive => Dialect::Hive,
    }
}

pub fn parse_proposals(
    files: &[impl AsRef<Path>],
    dialect: DialectArg,
) -> Result<Vec<Statement>, Failure> {
    let mut statements = Vec::new();
    let mut errors = Vec::new();
    for file in files {
        let path = file.as_ref();
        match parse_proposal(path, path.display().to_string(), dialect_of(dialect)) {
            Ok(mut parsed) => statements.append(&mut parsed),
            Err(Failure::Located(mut located)) => errors.append(&mut located),
            Err(other) => return Err(other),
        }
    }
    if errors.is_empty() {
        Ok(statements)
    } else {
        Err(Failure::Located(errors))
    }
}

/// One proposal file turned into statements: the single place each proposal format plugs into
/// (`lint`, `apply` and `check` all come through here). `name` is how reports name the file.
pub fn parse_proposal(
    path: &Path,
    name: String,
    dialect: Dialect,
) -> Result<Vec<Statement>, Failure> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if extension != "sql" {
        return Err(Failure::Message(format!(
            "`{name}`: only `.sql` migrations are read so far; schema files and metadata proposals are not supported yet"
        )));
    }
    let source = read_source_named(path, name)?;
    ddl::parse_sql(source.clone(), dialect).map_err(|e| {
        Failure::Located(
            e.errors
                .into_iter()
                .map(|e| LocatedError::new(&source, e.span, e.message, e.help))
                .collect(),
        )
    })
}
