//! What Iceberg Java's `TableMetadata` constructor checks of a table's history: snapshots no
//! newer than the table's sequence number, a current snapshot and refs that name listed
//! snapshots, and logs in time order. fieldgate does not judge snapshots, but a file that breaks
//! these is one no engine loads, and a gate that passed it would pass a broken table.

use std::collections::HashSet;

use crate::iceberg::codec::{ModelError, ModelResult, as_array, as_i64, as_object, as_str};
use crate::json::{Node, Value};

/// Java tolerates this much clock skew between log entries written by different machines.
const ONE_MINUTE_MS: i64 = 60_000;

/// Checks the snapshots, refs and logs of `root`, a file of `format_version` (v1 tables have no
/// sequence numbers: Java reads their last sequence number as 0).
pub(super) fn history(root: &Node<'_>, format_version: u8) -> ModelResult<()> {
    let last_sequence = match root.get("last-sequence-number") {
        Some(node) if format_version >= 2 => as_i64(node, "`last-sequence-number`")?,
        _ => 0,
    };
    let ids = snapshots(root, last_sequence)?;
    current_and_refs(root, &ids)?;
    let last_updated = root.get("last-updated-ms").and_then(|n| n.as_i64());
    for (log, other) in [
        ("snapshot-log", "snapshot-id"),
        ("metadata-log", "metadata-file"),
    ] {
        in_time_order(root, log, other, last_updated)?;
    }
    Ok(())
}

/// The listed snapshot ids; refuses a snapshot whose sequence number is above the table's.
fn snapshots(root: &Node<'_>, last_sequence: i64) -> ModelResult<HashSet<i64>> {
    let mut ids = HashSet::new();
    let Some(list) = root.get("snapshots") else {
        return Ok(ids);
    };
    for snapshot in as_array(list, "`snapshots`")? {
        if let Some(id) = snapshot.get("snapshot-id").and_then(|n| n.as_i64()) {
            ids.insert(id);
        }
        let Some(node) = snapshot.get("sequence-number") else {
            continue;
        };
        let sequence = as_i64(node, "`sequence-number`")?;
        if sequence > last_sequence {
            return Err(ModelError::at(
                node,
                format!(
                    "Invalid snapshot with sequence number {sequence} greater than last sequence number {last_sequence}"
                ),
            ));
        }
    }
    Ok(ids)
}

/// The current snapshot and every ref must be listed; `main` is the current snapshot.
fn current_and_refs(root: &Node<'_>, ids: &HashSet<i64>) -> ModelResult<()> {
    // Java reads a null or absent current snapshot as -1: no snapshot is current.
    let current = match root.get("current-snapshot-id") {
        Some(node) if !matches!(node.value, Value::Null) => {
            Some((as_i64(node, "`current-snapshot-id`")?, node))
        }
        _ => None,
    }
    .filter(|(id, _)| *id != -1);
    if let Some((id, node)) = current
        && id >= 0
        && !ids.contains(&id)
    {
        return Err(ModelError::at(
            node,
            format!(
                "Invalid table metadata: Cannot find current version: snapshot {id} is not in `snapshots`"
            ),
        ));
    }
    let Some(refs) = root.get("refs") else {
        return Ok(());
    };
    as_object(refs, "`refs`")?;
    for member in refs.as_object().unwrap_or_default() {
        let id_node = member.value.get("snapshot-id").ok_or_else(|| {
            ModelError::at(
                &member.value,
                format!("ref `{}` has no `snapshot-id`", member.key),
            )
        })?;
        let id = as_i64(id_node, "a ref's `snapshot-id`")?;
        if !ids.contains(&id) {
            return Err(ModelError::at(
                id_node,
                format!(
                    "Snapshot for reference `{}` ({id}) does not exist in the existing snapshots list",
                    member.key
                ),
            ));
        }
        if member.key == "main" {
            main_is_current(id, id_node, current.map(|(id, _)| id))?;
        }
    }
    Ok(())
}

fn main_is_current(main: i64, at: &Node<'_>, current: Option<i64>) -> ModelResult<()> {
    match current {
        Some(current) if current != main => Err(ModelError::at(
            at,
            format!("Current snapshot ID does not match main branch ({current} != {main})"),
        )),
        None => Err(ModelError::at(
            at,
            format!("Current snapshot is not set, but main branch exists (snapshot {main})"),
        )),
        _ => Ok(()),
    }
}

/// A log's entries come in time order (within Java's minute of skew), each with its
/// `timestamp-ms` and `other` key, and the file is not older than its last entry.
fn in_time_order(
    root: &Node<'_>,
    log: &str,
    other: &str,
    last_updated: Option<i64>,
) -> ModelResult<()> {
    let Some(list) = root.get(log) else {
        return Ok(());
    };
    let mut previous: Option<i64> = None;
    for entry in as_array(list, &format!("`{log}`"))? {
        let stamp = entry.get("timestamp-ms").ok_or_else(|| {
            ModelError::at(entry, format!("an entry of `{log}` has no `timestamp-ms`"))
        })?;
        let at = as_i64(stamp, "`timestamp-ms`")?;
        match entry.get(other) {
            Some(node) if other == "metadata-file" => {
                as_str(node, "`metadata-file`")?;
            }
            Some(node) => {
                as_i64(node, "`snapshot-id`")?;
            }
            None => {
                return Err(ModelError::at(
                    entry,
                    format!("an entry of `{log}` has no `{other}`"),
                ));
            }
        }
        if previous.is_some_and(|before| at - before < -ONE_MINUTE_MS) {
            return Err(ModelError::at(
                stamp,
                format!(
                    "[BUG] Expected sorted {log} entries: this entry is older than the one before"
                ),
            ));
        }
        previous = Some(at);
    }
    match (previous, last_updated) {
        (Some(last), Some(updated)) if updated - last < -ONE_MINUTE_MS => Err(ModelError::at(
            root.get("last-updated-ms").unwrap_or(root),
            format!("Invalid update timestamp {updated}: before the last `{log}` entry at {last}"),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use crate::iceberg::metadata::TableMetadata;
    use crate::json;

    const BASE: &str = r#"{"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":"s3://b/t","last-sequence-number":2,"last-updated-ms":200000,"last-column-id":1,"current-schema-id":0,"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}],"default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,"default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],"current-snapshot-id":8,"snapshots":[{"snapshot-id":7,"sequence-number":1,"timestamp-ms":100000,"manifest-list":"a"},{"snapshot-id":8,"sequence-number":2,"timestamp-ms":150000,"manifest-list":"b"}],"refs":{"main":{"snapshot-id":8,"type":"branch"},"old":{"snapshot-id":7,"type":"tag"}},"snapshot-log":[{"timestamp-ms":100000,"snapshot-id":7},{"timestamp-ms":150000,"snapshot-id":8}],"metadata-log":[{"timestamp-ms":90000,"metadata-file":"s3://b/t/metadata/v1.metadata.json"}]}"#;

    fn refusal(text: &str) -> String {
        let root = json::parse(text).unwrap();
        match TableMetadata::from_json(&root) {
            Ok(_) => String::new(),
            Err(error) => error.message,
        }
    }

    #[test]
    fn a_consistent_history_is_read() {
        assert_eq!(refusal(BASE), "");
        let unset = BASE
            .replacen(
                r#""current-snapshot-id":8"#,
                r#""current-snapshot-id":null"#,
                1,
            )
            .replacen(r#""main":{"snapshot-id":8,"type":"branch"},"#, "", 1);
        assert_eq!(refusal(&unset), "");
    }

    #[test]
    fn what_java_refuses_of_a_history_is_refused() {
        for (from, to, says) in [
            (
                r#""last-sequence-number":2"#,
                r#""last-sequence-number":1"#,
                "Invalid snapshot with sequence number 2 greater than last sequence number 1",
            ),
            (
                r#""current-snapshot-id":8"#,
                r#""current-snapshot-id":9"#,
                "Cannot find current version",
            ),
            (
                r#""current-snapshot-id":8"#,
                r#""current-snapshot-id":"8""#,
                "`current-snapshot-id` must be an integer",
            ),
            (
                r#""old":{"snapshot-id":7"#,
                r#""old":{"snapshot-id":6"#,
                "Snapshot for reference `old` (6) does not exist",
            ),
            (
                r#""main":{"snapshot-id":8"#,
                r#""main":{"snapshot-id":7"#,
                "Current snapshot ID does not match main branch (8 != 7)",
            ),
            (
                r#""current-snapshot-id":8"#,
                r#""current-snapshot-id":-1"#,
                "Current snapshot is not set, but main branch exists",
            ),
            (
                r#"{"timestamp-ms":150000,"snapshot-id":8}"#,
                r#"{"timestamp-ms":30000,"snapshot-id":8}"#,
                "Expected sorted snapshot-log entries",
            ),
            (
                r#""last-updated-ms":200000"#,
                r#""last-updated-ms":80000"#,
                "Invalid update timestamp 80000: before the last `snapshot-log` entry at 150000",
            ),
            (
                r#""metadata-file":"s3://b/t/metadata/v1.metadata.json""#,
                r#""metadata-file":1"#,
                "`metadata-file` must be a string",
            ),
        ] {
            assert!(BASE.contains(from), "{from}");
            let message = refusal(&BASE.replacen(from, to, 1));
            assert!(message.contains(says), "{to}: {message:?}");
        }
    }

    #[test]
    fn a_minute_of_clock_skew_is_tolerated() {
        let skewed = BASE.replacen(
            r#""last-updated-ms":200000"#,
            r#""last-updated-ms":100000"#,
            1,
        );
        assert_eq!(refusal(&skewed), "");
    }

    #[test]
    fn v1_snapshots_have_no_sequence_numbers() {
        let v1 = BASE.replacen(r#""format-version":2"#, r#""format-version":1"#, 1);
        assert!(refusal(&v1).contains("greater than last sequence number 0"));
    }
}
