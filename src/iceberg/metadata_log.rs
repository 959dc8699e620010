//! The `metadata-log` of a table's next metadata file, as Iceberg Java's `TableMetadata.Builder`
//! keeps it when a commit replaces one file by the next: the replaced file is logged with the
//! time it was written, and the log keeps the newest `write.metadata.previous-versions-max`
//! entries (100 unless the table says otherwise). Readers that walk a table's history
//! (`metadata_log_entries` in pyiceberg, Spark's `metadata_log_entries` table) find the
//! previous file there.

use serde_json::{Value as JsonValue, json};

use crate::iceberg::metadata::unwrap_load_table_result;
use crate::json::{self, Edits, Style};

/// The table property bounding the log, and Java's default for it.
const PREVIOUS_VERSIONS_MAX: &str = "write.metadata.previous-versions-max";
const DEFAULT_PREVIOUS_VERSIONS_MAX: usize = 100;

/// `next`, the text of the metadata file that replaces `previous_text` (read from
/// `previous_file`; a saved LoadTableResult's metadata is the one it holds), with the previous
/// file appended to its `metadata-log`.
pub fn log_previous_file(
    next: &str,
    previous_text: &str,
    previous_file: &str,
) -> Result<String, String> {
    let previous_root = json::parse(previous_text).map_err(|e| e.to_string())?;
    let written_at = unwrap_load_table_result(&previous_root)
        .get("last-updated-ms")
        .and_then(|n| n.as_i64())
        .ok_or("the replaced metadata has no `last-updated-ms` to log")?;
    let root = json::parse(next).map_err(|e| e.to_string())?;
    let max = root
        .get("properties")
        .and_then(|p| p.get(PREVIOUS_VERSIONS_MAX))
        .and_then(|v| v.as_str())
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(DEFAULT_PREVIOUS_VERSIONS_MAX)
        .max(1);
    let mut entries: Vec<JsonValue> = match root.get("metadata-log") {
        Some(log) => {
            let text = next.get(log.span.range()).unwrap_or_default();
            match serde_json::from_str(text) {
                Ok(JsonValue::Array(items)) => items,
                _ => return Err("`metadata-log` is not an array".into()),
            }
        }
        None => Vec::new(),
    };
    entries.push(json!({"timestamp-ms": written_at, "metadata-file": previous_file}));
    let keep_from = entries.len().saturating_sub(max);
    let log = JsonValue::Array(entries.split_off(keep_from));
    let style = Style::detect(next, &root);
    let mut edits = Edits::new();
    match root.get("metadata-log") {
        Some(node) => edits.push(json::replace_with_value(next, node, &log, &style)),
        None => edits.push(
            json::insert_member(next, &root, "metadata-log", &log, &style)
                .map_err(|e| e.to_string())?,
        ),
    }
    edits.apply(next).map_err(|e| e.to_string())
}

/// Where the catalog keeps the metadata a saved LoadTableResult holds: its
/// `metadata-location`. `None` for a metadata file, which does not say where it is kept.
pub fn saved_metadata_location(text: &str) -> Option<String> {
    let root = json::parse(text).ok()?;
    if std::ptr::eq(unwrap_load_table_result(&root), &root) {
        return None;
    }
    root.get("metadata-location")?.as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_the_replaced_file_and_keeps_the_newest() {
        let previous = r#"{"last-updated-ms":5,"metadata-log":[]}"#;
        let next = r#"{"last-updated-ms":9,"metadata-log":[{"timestamp-ms":1,"metadata-file":"v1"}],"properties":{"write.metadata.previous-versions-max":"2"}}"#;
        let out = log_previous_file(next, previous, "file:/t/metadata/v2.metadata.json").unwrap();
        let value: JsonValue = serde_json::from_str(&out).unwrap();
        assert_eq!(
            value["metadata-log"],
            json!([{"timestamp-ms":1,"metadata-file":"v1"},{"timestamp-ms":5,"metadata-file":"file:/t/metadata/v2.metadata.json"}])
        );
        let out = log_previous_file(&out, &out, "v3").unwrap();
        let value: JsonValue = serde_json::from_str(&out).unwrap();
        assert_eq!(value["metadata-log"].as_array().unwrap().len(), 2);
        assert_eq!(value["metadata-log"][1]["metadata-file"], "v3");
    }

    #[test]
    fn adds_the_log_where_there_was_none() {
        let out = log_previous_file(r#"{"a": 1}"#, r#"{"last-updated-ms": 3}"#, "p").unwrap();
        let value: JsonValue = serde_json::from_str(&out).unwrap();
        assert_eq!(
            value["metadata-log"],
            json!([{"timestamp-ms":3,"metadata-file":"p"}])
        );
        assert!(log_previous_file("{}", "{}", "p").is_err());
    }
}
