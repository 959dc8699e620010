//! What Iceberg Java's `TableMetadataParser` (and the `Schema` and `TableMetadata` it builds)
//! refuses, refused here too, located at the offending key: a gate that read a file Java cannot
//! would judge a table no engine can load, and `apply` must never write one.

use std::collections::HashSet;

use crate::iceberg::codec::{ModelError, ModelResult};
use crate::iceberg::metadata::TableMetadata;
use crate::json::Node;

/// Checks `metadata`, read from `root`, as Java's parser would.
pub fn validate_as_java(root: &Node<'_>, metadata: &TableMetadata) -> ModelResult<()> {
    schemas_are_structs(root)?;
    ids_and_names_are_unique(root, metadata)?;
    last_column_id_covers_every_field(root, metadata)
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

/// Java indexes each schema by id and by full name; a repeated one fails the index.
fn ids_and_names_are_unique(root: &Node<'_>, metadata: &TableMetadata) -> ModelResult<()> {
    for (index, schema) in metadata.schemas.iter().enumerate() {
        let at = schema_node(root, index);
        let mut ids = HashSet::new();
        let mut names = HashSet::new();
        for field in schema.walk() {
            if !ids.insert(field.id) {
                return Err(ModelError::at(
                    at,
                    format!(
                        "field id {} is used twice in schema {} (`{}`): Iceberg Java refuses a schema whose ids collide",
                        field.id, schema.schema_id, field.path
                    ),
                ));
            }
            if !names.insert(field.path.clone()) {
                return Err(ModelError::at(
                    at,
                    format!(
                        "Invalid schema: multiple fields for name {} in schema {}",
                        field.path, schema.schema_id
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `last-column-id` is the highest id ever assigned: never negative, never below an id in use.
fn last_column_id_covers_every_field(root: &Node<'_>, metadata: &TableMetadata) -> ModelResult<()> {
    let at = root.get("last-column-id").unwrap_or(root);
    let last = metadata.last_column_id;
    if last < 0 {
        return Err(ModelError::at(
            at,
            format!("`last-column-id` {last} is negative"),
        ));
    }
    let highest = metadata
        .schemas
        .iter()
        .flat_map(|s| s.walk())
        .map(|f| f.id)
        .max();
    match highest {
        Some(highest) if highest > last => Err(ModelError::at(
            at,
            format!(
                "`last-column-id` {last} is below field id {highest}: the next column added would reuse an id"
            ),
        )),
        _ => Ok(()),
    }
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
        let text = GOOD.replacen(r#"{"id":2,"name":"s""#, r#"{"id":2,"name":"id""#, 1);
        assert!(
            read(&text)
                .unwrap_err()
                .contains("multiple fields for name id")
        );
    }
}
