//! The `metadata-log` of a table's next metadata file, as Iceberg Java's `TableMetadata.Builder`
//! keeps it when a commit replaces one file by the next: the replaced file is logged with the
//! time it was written, and the log keeps the newest `write.metadata.previous-versions-max`
//! entries (100 unless the table says otherwise). Readers that walk a table's history
//! (`metadata_log_entries` in pyiceberg, Spark's `metadata_log_entries` table) find the
//! previous file there.

use serde_json::{Value as JsonValue, json};

use crate::iceberg::metadata::unwrap_load_table_result;
use crate::json::{self, Edit, Node, Style};

/// The table property bounding the log, and Java's default for it.
pub const PREVIOUS_VERSIONS_MAX: &str = "write.metadata.previous-versions-max";
const DEFAULT_PREVIOUS_VERSIONS_MAX: usize = 100;

/// A metadata file a commit replaces: where it is kept, and when it was written (its
/// `last-updated-ms`).
pub struct Replaced<'a> {
    pub file: &'a str,
    pub written_at: i64,
}

/// The edit of `text` (parsed as `root`, the file that replaces `replaced`) that appends
/// `replaced` to its `metadata-log`, keeping the newest entries the new metadata's
/// `write.metadata.previous-versions-max` (`max_property`) allows.
pub fn log_edit(
    text: &str,
    root: &Node<'_>,
    replaced: &Replaced<'_>,
    max_property: Option<&str>,
    style: &Style,
) -> Result<Edit, String> {
    let max = max_property
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(DEFAULT_PREVIOUS_VERSIONS_MAX)
        .max(1);
    let logged = root.get("metadata-log");
    let mut entries: Vec<JsonValue> = match logged {
        Some(log) => {
            let listed = text.get(log.span.range()).unwrap_or_default();
            match serde_json::from_str(listed) {
                Ok(JsonValue::Array(items)) => items,
                _ => return Err("`metadata-log` is not an array".into()),
            }
        }
        None => Vec::new(),
    };
    entries.push(json!({"timestamp-ms": replaced.written_at, "metadata-file": replaced.file}));
    let keep_from = entries.len().saturating_sub(max);
    let log = JsonValue::Array(entries.split_off(keep_from));
    match logged {
        Some(node) => Ok(json::replace_with_value(text, node, &log, style)),
        None => {
            json::insert_member(text, root, "metadata-log", &log, style).map_err(|e| e.to_string())
        }
    }
}

/// Where the catalog keeps the metadata a saved LoadTableResult holds: its
/// `metadata-location`. `None` for a metadata file, which does not say where it is kept.
pub fn saved_metadata_location(text: &str) -> Option<String> {
    // A metadata file of megabytes is not parsed again to learn it is none.
    if !text.contains("\"metadata-location\"") {
        return None;
    }
    let root = json::parse(text).ok()?;
    if std::ptr::eq(unwrap_load_table_result(&root), &root) {
        return None;
    }
    root.get("metadata-location")?.as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Edits;

    /// `next` with `file`, written at `written_at`, logged, as the patch logs it.
    fn logged(next: &str, file: &str, written_at: i64) -> Result<JsonValue, String> {
        let root = json::parse(next).map_err(|e| e.to_string())?;
        let max = root
            .get("properties")
            .and_then(|p| p.get(PREVIOUS_VERSIONS_MAX))
            .and_then(|v| v.as_str());
        let replaced = Replaced { file, written_at };
        let edit = log_edit(next, &root, &replaced, max, &Style::detect(next, &root))?;
        let mut edits = Edits::new();
        edits.push(edit);
        let out = edits.apply(next).map_err(|e| e.to_string())?;
        Ok(serde_json::from_str(&out).unwrap())
    }

    #[test]
    fn appends_the_replaced_file_and_keeps_the_newest() {
        let next = r#"{"last-updated-ms":9,"metadata-log":[{"timestamp-ms":1,"metadata-file":"v1"}],"properties":{"write.metadata.previous-versions-max":"2"}}"#;
        let value = logged(next, "file:/t/metadata/v2.metadata.json", 5).unwrap();
        assert_eq!(
            value["metadata-log"],
            json!([{"timestamp-ms":1,"metadata-file":"v1"},{"timestamp-ms":5,"metadata-file":"file:/t/metadata/v2.metadata.json"}])
        );
        let value = logged(&value.to_string(), "v3", 9).unwrap();
        assert_eq!(value["metadata-log"].as_array().unwrap().len(), 2);
        assert_eq!(value["metadata-log"][1]["metadata-file"], "v3");
    }

    #[test]
    fn adds_the_log_where_there_was_none() {
        let value = logged(r#"{"a": 1}"#, "p", 3).unwrap();
        assert_eq!(
            value["metadata-log"],
            json!([{"timestamp-ms":3,"metadata-file":"p"}])
        );
        assert!(logged(r#"{"metadata-log": 1}"#, "p", 3).is_err());
    }

    #[test]
    fn a_saved_load_table_result_says_where_its_metadata_is_kept() {
        let saved = r#"{"metadata-location":"s3://b/t/metadata/1.metadata.json","metadata":{"format-version":2},"config":{}}"#;
        assert_eq!(
            saved_metadata_location(saved).as_deref(),
            Some("s3://b/t/metadata/1.metadata.json")
        );
        let file = r#"{"format-version":2,"metadata-location":"x","metadata":{}}"#;
        assert_eq!(saved_metadata_location(file), None);
    }
}
