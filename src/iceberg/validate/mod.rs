//! What Iceberg Java's `TableMetadataParser` (and the `Schema` and `TableMetadata` it builds)
//! refuses, refused here too, located at the offending key: a gate that read a file Java cannot
//! would judge a table no engine can load, and `apply` must never write one.

use std::collections::{HashMap, HashSet};

mod history;
mod required;

use crate::iceberg::codec::{ModelError, ModelResult};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::schema::visit_paths;
use crate::json::Node;

/// What Java refuses in typed metadata, and the key it is about.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub at: Culprit,
    pub message: String,
}

/// The key a refusal points at: a schema by its position in `schemas`, the id of an entry of a
/// list Java indexes by id, or `last-column-id`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Culprit {
    Schema(usize),
    /// The entry at `index` of the list `list`, at its `key`.
    Id {
        list: &'static str,
        key: &'static str,
        index: usize,
    },
    LastColumnId,
    /// A list, as a whole.
    List(&'static str),
}

/// Checks `metadata`, read from `root`, as Java's parser would.
pub fn validate_as_java(root: &Node<'_>, metadata: &TableMetadata) -> ModelResult<()> {
    required::required_keys(root, metadata.format_version)?;
    schemas_are_structs(root)?;
    history::history(root, metadata.format_version)?;
    match refusal(metadata) {
        None => Ok(()),
        Some(refused) => {
            let at = match refused.at {
                Culprit::Schema(index) => schema_node(root, index),
                Culprit::Id { list, key, index } => id_node(root, list, key, index),
                Culprit::LastColumnId => root.get("last-column-id").unwrap_or(root),
                Culprit::List(list) => root.get(list).unwrap_or(root),
            };
            Err(ModelError::at(at, refused.message))
        }
    }
}

/// What Java refuses in `metadata` once it is typed: ids or full names used twice in a schema
/// (Java indexes each schema by both), a schema, spec, order or snapshot id listed twice, a
/// `last-column-id` that is negative or below an id in use, no partition spec or sort order.
/// `apply` asks it of the metadata it built, so a change is checked without writing and
/// re-reading the text. Each schema is walked once.
pub fn refusal(metadata: &TableMetadata) -> Option<Refusal> {
    let mut highest = None;
    for (index, schema) in metadata.schemas.iter().enumerate() {
        let mut ids = HashSet::new();
        let mut names = HashSet::new();
        let mut refused = None;
        visit_paths(&schema.fields, &mut |id, path| {
            highest = highest.max(Some(id));
            if refused.is_some() {
                return;
            }
            if !ids.insert(id) {
                refused = Some(format!(
                    "field id {id} is used twice in schema {} (`{path}`): Iceberg Java refuses a schema whose ids collide",
                    schema.schema_id
                ));
            } else if !names.insert(path.to_string()) {
                refused = Some(format!(
                    "Invalid schema: multiple fields for name {path} in schema {}",
                    schema.schema_id
                ));
            }
        });
        if let Some(message) = refused {
            return Some(Refusal {
                at: Culprit::Schema(index),
                message,
            });
        }
    }
    empty_list_refusal(metadata)
        .or_else(|| id_refusal(metadata))
        .or_else(|| last_column_id_refusal(metadata.last_column_id, highest))
}

/// Java's `TableMetadata` refuses a table without a partition spec or a sort order: there is
/// always at least the unpartitioned spec and the unsorted order.
fn empty_list_refusal(metadata: &TableMetadata) -> Option<Refusal> {
    let (list, holds) = if metadata.partition_specs.is_empty() {
        ("partition-specs", "Partition specs")
    } else if metadata.sort_orders.is_empty() {
        ("sort-orders", "Sort orders")
    } else {
        return None;
    };
    Some(Refusal {
        at: Culprit::List(list),
        message: format!("{holds} cannot be null or empty: the table has none"),
    })
}

/// Java's `TableMetadata` indexes schemas, partition specs, sort orders and snapshots by id into
/// immutable maps, which refuse a key given twice ("Multiple entries with same key"): a file
/// that lists an id twice is one no engine loads, and a lookup by id here would silently take
/// one of the two. Refused at the second entry.
fn id_refusal(metadata: &TableMetadata) -> Option<Refusal> {
    let lists: [(&'static str, &'static str, &str, Vec<i64>); 4] = [
        (
            "schemas",
            "schema-id",
            "schema",
            metadata
                .schemas
                .iter()
                .map(|s| i64::from(s.schema_id))
                .collect(),
        ),
        (
            "partition-specs",
            "spec-id",
            "partition spec",
            metadata
                .partition_specs
                .iter()
                .map(|s| i64::from(s.spec_id))
                .collect(),
        ),
        (
            "sort-orders",
            "order-id",
            "sort order",
            metadata
                .sort_orders
                .iter()
                .map(|o| i64::from(o.order_id))
                .collect(),
        ),
        (
            "snapshots",
            "snapshot-id",
            "snapshot",
            metadata.snapshots.iter().map(|s| s.snapshot_id).collect(),
        ),
    ];
    for (list, key, what, ids) in lists {
        let mut seen = HashMap::new();
        for (index, id) in ids.into_iter().enumerate() {
            if let Some(&first) = seen.get(&id) {
                return Some(Refusal {
                    at: Culprit::Id { list, key, index },
                    message: format!(
                        "{what} id {id} is listed twice in `{list}` (entries {} and {}): Iceberg Java indexes them by `{key}` and refuses a file that repeats one",
                        first + 1,
                        index + 1
                    ),
                });
            }
            seen.insert(id, index);
        }
    }
    None
}

/// `last-column-id` is the highest id ever assigned: never negative, never below an id in use.
fn last_column_id_refusal(last: i32, highest: Option<i32>) -> Option<Refusal> {
    let message = match highest {
        _ if last < 0 => format!("`last-column-id` {last} is negative"),
        Some(highest) if highest > last => format!(
            "`last-column-id` {last} is below field id {highest}: the next column added would reuse an id"
        ),
        _ => return None,
    };
    Some(Refusal {
        at: Culprit::LastColumnId,
        message,
    })
}

/// Java's `SchemaParser` reads a schema as a type: its object must say `"type": "struct"`.
fn schemas_are_structs(root: &Node<'_>) -> ModelResult<()> {
    let schemas: Vec<&Node<'_>> = match root.get("schemas").and_then(|s| s.as_array()) {
        Some(list) => list.iter().collect(),
        None => root.get("schema").into_iter().collect(),
    };
    for schema in schemas {
        match schema.get("type") {
            Some(kind) if kind.as_str() == Some("struct") => {}
            Some(kind) => {
                return Err(ModelError::at(
                    kind,
                    "Cannot create schema, not a struct type: a schema's `type` is \"struct\"",
                ));
            }
            None => {
                return Err(ModelError::at(
                    schema,
                    "a schema must say `\"type\": \"struct\"` (Iceberg Java cannot parse it without)",
                ));
            }
        }
    }
    Ok(())
}

/// The `key` of entry `index` of `list`, else the entry, else the root.
fn id_node<'n, 'a>(root: &'n Node<'a>, list: &str, key: &str, index: usize) -> &'n Node<'a> {
    let entry = root
        .get(list)
        .and_then(|l| l.as_array())
        .and_then(|l| l.get(index));
    entry.and_then(|e| e.get(key)).or(entry).unwrap_or(root)
}

fn schema_node<'n, 'a>(root: &'n Node<'a>, index: usize) -> &'n Node<'a> {
    root.get("schemas")
        .and_then(|s| s.as_array())
        .and_then(|s| s.get(index))
        .or_else(|| root.get("schema"))
        .unwrap_or(root)
}

#[cfg(test)]
mod tests {
    use crate::iceberg::metadata::TableMetadata;
    use crate::json;

    const GOOD: &str = r#"{"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":"s3://b/t","last-sequence-number":0,"last-updated-ms":1,"last-column-id":3,"current-schema-id":0,"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"s","required":false,"type":{"type":"struct","fields":[{"id":3,"name":"x","required":false,"type":"int"}]}}]}],"default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,"default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}]}"#;

    fn read(text: &str) -> Result<TableMetadata, String> {
        let root = json::parse(text).map_err(|e| e.to_string())?;
        TableMetadata::from_json(&root).map_err(|e| e.message)
    }

    #[test]
    fn accepts_what_java_accepts() {
        assert!(read(GOOD).is_ok(), "{:?}", read(GOOD));
    }

    #[test]
    fn refuses_what_java_refuses() {
        for (from, to, says) in [
            (
                r#"{"type":"struct","schema-id":0,"#,
                r#"{"schema-id":0,"#,
                "\"type\": \"struct\"",
            ),
            (
                r#""last-column-id":3"#,
                r#""last-column-id":2"#,
                "below field id 3",
            ),
            (
                r#""last-column-id":3"#,
                r#""last-column-id":-1"#,
                "negative",
            ),
            (
                r#"{"id":3,"name":"x""#,
                r#"{"id":2,"name":"x""#,
                "field id 2 is used twice",
            ),
        ] {
            assert!(GOOD.contains(from), "{from}");
            let text = GOOD.replacen(from, to, 1);
            let message = read(&text).err().unwrap_or_default();
            assert!(message.contains(says), "{from}: {message:?}");
        }
        for (from, to, says) in [
            (
                r#""partition-specs":[{"spec-id":0,"fields":[]}]"#,
                r#""partition-specs":[{"spec-id":0,"fields":[]},{"spec-id":1,"fields":[]},{"spec-id":0,"fields":[]}]"#,
                "partition spec id 0 is listed twice in `partition-specs` (entries 1 and 3)",
            ),
            (
                r#""sort-orders":[{"order-id":0,"fields":[]}]"#,
                r#""sort-orders":[{"order-id":0,"fields":[]},{"order-id":0,"fields":[]}]"#,
                "sort order id 0 is listed twice in `sort-orders` (entries 1 and 2)",
            ),
            (
                r#""current-schema-id":0,"#,
                r#""current-schema-id":0,"snapshots":[{"snapshot-id":7,"timestamp-ms":1,"manifest-list":"a"},{"snapshot-id":7,"timestamp-ms":2,"manifest-list":"b"}],"#,
                "snapshot id 7 is listed twice in `snapshots` (entries 1 and 2)",
            ),
        ] {
            assert!(GOOD.contains(from), "{from}");
            let text = GOOD.replacen(from, to, 1);
            let message = read(&text).err().unwrap_or_default();
            assert!(message.contains(says), "{from}: {message:?}");
        }
        let text = GOOD.replacen(r#"{"id":2,"name":"s""#, r#"{"id":2,"name":"id""#, 1);
        assert!(
            read(&text)
                .unwrap_err()
                .contains("multiple fields for name id")
        );
    }

    #[test]
    fn a_repeated_id_is_refused_at_its_second_entry() {
        let schema = r#"{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"s","required":false,"type":{"type":"struct","fields":[{"id":3,"name":"x","required":false,"type":"int"}]}}]}"#;
        let text = GOOD.replacen(schema, &format!("{schema},{schema}"), 1);
        let root = json::parse(&text).unwrap();
        let error = TableMetadata::from_json(&root).unwrap_err();
        assert!(
            error.message.contains("schema id 0 is listed twice"),
            "{}",
            error.message
        );
        let second = text.rfind(r#""schema-id":0"#).unwrap() + r#""schema-id":"#.len();
        assert_eq!(error.span.offset, second);
    }
}
