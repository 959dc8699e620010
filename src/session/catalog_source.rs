//! A table that lives only in its catalog (live mode: `catalog:` without `metadata:`), as a
//! [`TableSource`]: its committed state is the live table (one LoadTable, through
//! `session::live`, at the catalog the trusted configuration defines), and its history is the
//! table's own `metadata-log`: the previous metadata files, read from object storage or a
//! `file:` warehouse, each dated by its log timestamp, as git dates the versions of a pinned
//! copy. Teams whose engine commits to the catalog keep no metadata in the repository, and this
//! is the only record of when a field was dropped or marked deprecated.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::change::SourceFile;
use crate::failure::Failure;
use crate::iceberg::metadata::TableMetadata;
use crate::repo::config::{Config, TableConfig};
use crate::repo::location::{TableLocation, decode_metadata, read_input};
use crate::rules::{CommitInfo, FileHistory, RuleOptions};
use crate::session::drift::failure_text;
use crate::session::input::{LoadedTable, parse_metadata};
use crate::session::live::{Catalogs, LiveTable};
use crate::session::source::TableSource;
use crate::storage::is_remote;
use crate::verify::sample::local_path;

/// A live-only table, read from its catalog.
pub struct CatalogSource<'a> {
    pub catalogs: RefCell<&'a mut Catalogs>,
    /// The configuration whose catalogs may be reached: the base's for `check`, since a pull
    /// request must not choose where credentials are sent.
    pub config: &'a Config,
    pub table: &'a TableConfig,
    /// How many previous metadata files are read, newest first (`limits: metadata-log-files`).
    pub log_files: u64,
}

impl CatalogSource<'_> {
    fn live(&self) -> Result<LiveTable, Failure> {
        self.catalogs
            .borrow_mut()
            .live_table(self.config, self.table)
    }

    fn catalog(&self) -> &str {
        self.table.catalog.as_ref().map_or("", |(c, _)| c.as_str())
    }
}

impl TableSource for CatalogSource<'_> {
    fn load(&self) -> Result<Option<LoadedTable>, Failure> {
        let live = self.live().map_err(|failure| match failure {
            Failure::Message(why) => Failure::Message(format!(
                "`{}` has no `metadata:` in the repository, so it is judged against its live table in catalog `{}`, which cannot be read: {why}",
                self.table.name,
                self.catalog()
            )),
            located => located,
        })?;
        Ok(Some(LoadedTable {
            location: TableLocation {
                metadata_file: PathBuf::from(&live.source.name),
                hadoop: None,
            },
            source: live.source,
            metadata: live.metadata,
            description: None,
        }))
    }

    fn history(&self, options: &RuleOptions) -> Result<Option<FileHistory>, Failure> {
        let live = self.live()?;
        let log = metadata_log(&live.source.text);
        let read = read_log(&live, &log, self.log_files);
        if let Some(why) = &read.cut {
            crate::pipe::to_stderr(&format!(
                "note: the history of `{}` (catalog `{}`) starts at {}: {why}; a drop or deprecation mark before it is not dated",
                self.table.name,
                self.catalog(),
                read.versions
                    .first()
                    .map_or_else(|| "the live table".into(), |(c, _)| c.date.clone())
            ));
        }
        let mut versions = read.versions;
        let current = live
            .metadata_location
            .as_deref()
            .map_or("the live table", file_name);
        versions.push((dated(current, live.metadata.last_updated_ms), live.metadata));
        Ok(Some(FileHistory::from_versions(&versions, options)))
    }
}

/// One entry of `metadata-log`: when the file was written, and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Logged {
    timestamp_ms: i64,
    file: String,
}

/// The `metadata-log` of a metadata text, oldest first; entries that are not an object with a
/// whole `timestamp-ms` and a `metadata-file` string are left out.
fn metadata_log(text: &str) -> Vec<Logged> {
    let root: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let entries = root.get("metadata-log").and_then(Value::as_array);
    let mut log: Vec<Logged> = entries
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            Some(Logged {
                timestamp_ms: entry.get("timestamp-ms")?.as_i64()?,
                file: entry.get("metadata-file")?.as_str()?.to_string(),
            })
        })
        .collect();
    log.sort_by_key(|l| l.timestamp_ms);
    log
}

/// The versions read from the log, oldest first, and why the history starts later than the log
/// does, if it does.
struct ReadLog {
    versions: Vec<(CommitInfo, TableMetadata)>,
    cut: Option<String>,
}

/// Reads the newest `limit` files of `log`, stopping at the first that cannot be read: the
/// history is an unbroken run of versions ending at the live table, so a drop is never dated by
/// a later version than the one that made it.
fn read_log(live: &LiveTable, log: &[Logged], limit: u64) -> ReadLog {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut versions = Vec::new();
    let mut cut = None;
    for logged in log.iter().rev() {
        if versions.len() >= limit {
            cut = Some(format!(
                "{} of its {} previous metadata files are read (`limits: metadata-log-files`)",
                versions.len(),
                log.len()
            ));
            break;
        }
        match read_version(live, logged) {
            Ok(metadata) => versions.push((
                dated(file_name(&logged.file), logged.timestamp_ms),
                metadata,
            )),
            Err(why) => {
                cut = Some(format!("`{}` cannot be read: {why}", logged.file));
                break;
            }
        }
    }
    versions.reverse();
    ReadLog { versions, cut }
}

/// One previous metadata file, from object storage or the local file system.
fn read_version(live: &LiveTable, logged: &Logged) -> Result<TableMetadata, String> {
    let url = logged.file.as_str();
    let local = match is_remote(url) {
        true => live.objects.local_copy(url)?,
        false => local_path(url)?,
    };
    // Named by the URL: its file name says whether the file is gzip.
    let shown = Path::new(url);
    let bytes = read_input(&local, shown).and_then(|b| decode_metadata(shown, b))?;
    let text = String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())?;
    let source = Arc::new(SourceFile {
        name: url.to_string(),
        text,
    });
    parse_metadata(&source).map_err(|failure| failure_text(&failure))
}

/// The last segment of a metadata file's address, as findings name the version.
fn file_name(url: &str) -> &str {
    url.rsplit('/').next().unwrap_or(url)
}

/// A version as the history's findings name it: the metadata file, and the UTC day it was
/// written. The catalog records no author.
fn dated(id: &str, timestamp_ms: i64) -> CommitInfo {
    let day = timestamp_ms.div_euclid(86_400_000);
    CommitInfo {
        id: id.to_string(),
        date: crate::suppress::date_from_unix_days(day),
        day,
        author: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_is_read_oldest_first_and_malformed_entries_are_left_out() {
        let text = r#"{"metadata-log": [
            {"timestamp-ms": 20, "metadata-file": "s3://b/t/metadata/00002-b.metadata.json"},
            {"timestamp-ms": 10, "metadata-file": "s3://b/t/metadata/00001-a.metadata.json"},
            {"timestamp-ms": "x", "metadata-file": "s3://b/t/metadata/bad.metadata.json"},
            {"metadata-file": "s3://b/t/metadata/none.metadata.json"},
            7
        ]}"#;
        let log = metadata_log(text);
        let files: Vec<&str> = log.iter().map(|l| file_name(&l.file)).collect();
        assert_eq!(files, ["00001-a.metadata.json", "00002-b.metadata.json"]);
        assert!(metadata_log("not json").is_empty());
        assert!(metadata_log(r#"{"metadata-log": {}}"#).is_empty());
    }

    #[test]
    fn a_version_is_dated_by_its_utc_day() {
        let info = dated("00003-c.metadata.json", 1_764_892_800_000 + 3_600_000);
        assert_eq!(info.date, "2025-12-05");
        assert_eq!(info.day, 20_427);
        assert_eq!(dated("x", -1).date, "1969-12-31");
    }
}
