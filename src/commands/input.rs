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
use crate::repo::location::{TableLocation, locate};

/// Reads a file as UTF-8 text; invalid bytes are a located error, not a lossy conversion.
pub fn read_source(path: &Path) -> Result<Source, Failure> {
    let bytes = fs::read(path)
        .map_err(|e| Failure::Message(format!("cannot read `{}`: {e}", path.display())))?;
    let name = path.display().to_string();
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

pub struct LoadedTable {
    pub location: TableLocation,
    pub source: Source,
    pub metadata: TableMetadata,
}

pub fn load_table(path: &Path) -> Result<LoadedTable, Failure> {
    let location = locate(path)?;
    let source = read_source(&location.metadata_file)?;
    let root = crate::json::parse(&source.text).map_err(|e| {
        Failure::Located(vec![LocatedError::new(
            &source,
            Span::new(e.offset, e.len.max(1)),
            format!("malformed JSON: {e}"),
            None,
        )])
    })?;
    let metadata = TableMetadata::from_json(&root).map_err(|e| {
        Failure::Located(vec![LocatedError::new(
            &source,
            e.span,
            format!("not valid Iceberg table metadata: {}", e.message),
            None,
        )])
    })?;
    Ok(LoadedTable {
        location,
        source,
        metadata,
    })
}

pub fn parse_proposals(
    files: &[impl AsRef<Path>],
    dialect: DialectArg,
) -> Result<Vec<Statement>, Failure> {
    let dialect = match dialect {
        DialectArg::Spark => Dialect::Spark,
        DialectArg::Trino => Dialect::Trino,
        DialectArg::Hive => Dialect::Hive,
    };
    let mut statements = Vec::new();
    let mut errors = Vec::new();
    for file in files {
        let path = file.as_ref();
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        if extension != "sql" {
            return Err(Failure::Message(format!(
                "`{}`: only `.sql` migrations are read so far; schema files and metadata proposals are not supported yet",
                path.display()
            )));
        }
        let source = read_source(path)?;
        match ddl::parse_sql(source.clone(), dialect) {
            Ok(mut parsed) => statements.append(&mut parsed),
            Err(e) => errors.extend(
                e.errors
                    .into_iter()
                    .map(|e| LocatedError::new(&source, e.span, e.message, e.help)),
            ),
        }
    }
    if errors.is_empty() {
        Ok(statements)
    } else {
        Err(Failure::Located(errors))
    }
}
