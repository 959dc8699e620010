//! The pinned copy of a catalog table: valid Iceberg metadata holding what the gate judges
//! (format version, uuid, location, schemas and the current one, `last-column-id`, partition
//! specs, sort orders, identifier fields, and the properties that change how readers resolve
//! columns), without what every data commit changes (snapshots, logs, statistics, refs), so an
//! append to the live table leaves the pinned copy as it is.

use serde_json::{Map, Value};

use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::schema::{FieldInfo, MemberKind};

/// What the pinned copy leaves out: the table's data history.
const DATA_HISTORY: &[&str] = &[
    "snapshots",
    "snapshot-log",
    "metadata-log",
    "statistics",
    "partition-statistics",
    "refs",
    "current-snapshot-id",
];

/// Kept, but not compared: they move with every commit, data or not.
const COMMIT_COUNTERS: &[&str] = &["last-updated-ms", "last-sequence-number", "next-row-id"];

/// The properties kept: the name mapping and the other `schema.*` settings, and `read.*`.
fn kept_property(key: &str) -> bool {
    key.starts_with("schema.") || key.starts_with("read.")
}

/// The pinned copy of `live`, a table metadata object.
pub fn pinned_copy(live: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in live {
        if DATA_HISTORY.contains(&key.as_str()) {
            continue;
        }
        let value = match (key.as_str(), value) {
            ("properties", Value::Object(properties)) => Value::Object(
                properties
                    .iter()
                    .filter(|(k, _)| kept_property(k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            ),
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    out
}

/// The members that decide whether two pinned copies are the same table state.
fn judged(pinned: &Map<String, Value>) -> Map<String, Value> {
    pinned
        .iter()
        .filter(|(k, _)| !COMMIT_COUNTERS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Whether `a` and `b` (both pinned copies) hold the same table state.
pub fn same_state(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    judged(a) == judged(b)
}

/// What differs from the pinned copy (`was`) to the live table (`now`), in words: fields of the
/// current schema by id, then every other member that differs.
pub fn changes(
    was: (&TableMetadata, &Map<String, Value>),
    now: (&TableMetadata, &Map<String, Value>),
) -> Vec<String> {
    let mut out = field_changes(was.0, now.0);
    let (a, b) = (judged(was.1), judged(now.1));
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.dedup();
    let mut seen = Vec::new();
    for key in keys {
        if seen.contains(&key) || a.get(key) == b.get(key) {
            continue;
        }
        seen.push(key);
        let schema_keys = ["schemas", "schema", "current-schema-id", "last-column-id"];
        if schema_keys.contains(&key.as_str()) && !out.is_empty() {
            continue;
        }
        out.push(match (a.get(key), b.get(key)) {
            (Some(x), Some(y)) if is_scalar(x) && is_scalar(y) => {
                format!("`{key}` changed from {x} to {y}")
            }
            (None, Some(_)) => format!("`{key}` was added"),
            (Some(_), None) => format!("`{key}` was removed"),
            _ => match key.as_str() {
                "partition-specs" => "the partition specs changed (the spec evolved)".to_string(),
                "sort-orders" => "the sort orders changed".to_string(),
                "properties" => property_changes(a.get(key), b.get(key)),
                other => format!("`{other}` changed"),
            },
        });
    }
    out
}

fn is_scalar(value: &Value) -> bool {
    !value.is_object() && !value.is_array()
}

fn property_changes(was: Option<&Value>, now: Option<&Value>) -> String {
    let keys = |v: Option<&Value>| v.and_then(Value::as_object).cloned().unwrap_or_default();
    let (was, now) = (keys(was), keys(now));
    let changed: Vec<String> = was
        .keys()
        .chain(now.keys())
        .filter(|k| was.get(*k) != now.get(*k))
        .map(|k| format!("`{k}`"))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    format!("the table properties changed: {}", changed.join(", "))
}

/// The current schema's fields, paired by id.
fn field_changes(was: &TableMetadata, now: &TableMetadata) -> Vec<String> {
    let (before, after) = (struct_fields(was), struct_fields(now));
    let mut out = Vec::new();
    for field in &after {
        match before.iter().find(|f| f.id == field.id) {
            None => out.push(format!(
                "field `{}` (id {}) was added, {}",
                field.path, field.id, field.field_type
            )),
            Some(old) => out.extend(kept_field_changes(old, field)),
        }
    }
    for field in before
        .iter()
        .filter(|f| !after.iter().any(|a| a.id == f.id))
    {
        out.push(format!(
            "field `{}` (id {}) was dropped",
            field.path, field.id
        ));
    }
    let (a, b) = (
        &was.current_schema().identifier_field_ids,
        &now.current_schema().identifier_field_ids,
    );
    if a != b {
        out.push(format!("the identifier fields changed from {a:?} to {b:?}"));
    }
    if out.is_empty() && was.current_schema_id != now.current_schema_id {
        out.push(format!(
            "the current schema changed from {} to {}",
            was.current_schema_id, now.current_schema_id
        ));
    }
    out
}

/// The struct fields of the current schema, nested ones included.
fn struct_fields(metadata: &TableMetadata) -> Vec<FieldInfo> {
    metadata
        .current_schema()
        .walk()
        .into_iter()
        .filter(|f| f.kind == MemberKind::StructField)
        .collect()
}

/// How a field both schemas hold changed: its name, type, nullability and doc.
fn kept_field_changes(old: &FieldInfo, field: &FieldInfo) -> Vec<String> {
    let mut out = Vec::new();
    if old.path != field.path {
        out.push(format!(
            "field `{}` (id {}) was renamed to `{}`",
            old.path, field.id, field.path
        ));
    }
    if old.field_type != field.field_type {
        out.push(format!(
            "field `{}` (id {}) changed type from {} to {}",
            field.path, field.id, old.field_type, field.field_type
        ));
    }
    if old.required != field.required {
        let now = if field.required {
            "required"
        } else {
            "optional"
        };
        out.push(format!(
            "field `{}` (id {}) became {now}",
            field.path, field.id
        ));
    }
    if old.doc != field.doc {
        out.push(format!(
            "the doc of field `{}` (id {}) changed",
            field.path, field.id
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(text: &str) -> Map<String, Value> {
        serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default()
    }

    #[test]
    fn the_pinned_copy_drops_data_history_and_unread_properties() {
        let live = object(
            r#"{"format-version":2,"table-uuid":"u","current-snapshot-id":5,"snapshots":[{}],"snapshot-log":[],"metadata-log":[],"refs":{},"statistics":[],"properties":{"schema.name-mapping.default":"[]","write.parquet.compression-codec":"zstd","read.split.target-size":"1"},"last-updated-ms":3}"#,
        );
        let pinned = pinned_copy(&live);
        assert_eq!(
            Value::Object(pinned),
            serde_json::json!({"format-version":2,"table-uuid":"u","properties":{"schema.name-mapping.default":"[]","read.split.target-size":"1"},"last-updated-ms":3})
        );
    }

    #[test]
    fn commit_counters_are_no_difference() {
        let a = object(r#"{"format-version":2,"last-updated-ms":1,"last-sequence-number":1}"#);
        let b = object(r#"{"format-version":2,"last-updated-ms":9,"last-sequence-number":4}"#);
        assert!(same_state(&a, &b));
        let c = object(r#"{"format-version":2,"default-spec-id":1}"#);
        assert!(!same_state(&a, &c));
    }
}
