//! Table metadata (`*.metadata.json`) of format v1, v2 and v3: a typed view for the rest of the
//! program, and lossless writing. We never re-serialise a document: a change is a handful of text
//! edits at the spans of the keys a schema change touches (`schemas`, `current-schema-id`,
//! `last-column-id`, `last-updated-ms`, the v1 `schema`, the name-mapping property; the keys
//! partition evolution and properties touch, in `table_patch`), in the formatting style of the
//! writer that made the file. Everything else stays byte for byte.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value as JsonValue;

use crate::iceberg::codec::{
    ModelError, ModelResult, as_array, as_i32, as_i64, as_object, as_str, detect_style,
    required_member, schema_from_json, schema_to_json,
};
use crate::iceberg::metadata_log::{PREVIOUS_VERSIONS_MAX, Replaced, log_edit};
use crate::iceberg::name_mapping::{NAME_MAPPING_PROPERTY, NameMapping};
use crate::iceberg::partition::PartitionSpec;
use crate::iceberg::schema::Schema;
use crate::iceberg::sort::SortOrder;
use crate::iceberg::table_patch;
use crate::iceberg::validate::validate_as_java;
use crate::json::{self, Edits, Node, Style};

/// The newest format version whose tables we can judge.
pub const MAX_FORMAT_VERSION: u8 = 3;

/// Properties Iceberg keeps out of `properties`: they set fields of the metadata itself.
pub const RESERVED_PROPERTIES: &[&str] = &[
    "format-version",
    "uuid",
    "snapshot-count",
    "current-snapshot-id",
];

#[derive(Debug, Clone, PartialEq)]
pub struct TableMetadata {
    pub format_version: u8,
    pub location: String,
    pub last_column_id: i32,
    pub last_updated_ms: i64,
    pub current_schema_id: i32,
    pub schemas: Vec<Arc<Schema>>,
    pub partition_specs: Vec<PartitionSpec>,
    pub default_spec_id: i32,
    /// `last-partition-id`; absent in early v1 files, where it follows from the specs.
    pub last_partition_id: Option<i32>,
    pub sort_orders: Vec<SortOrder>,
    pub default_sort_order_id: i32,
    pub properties: Vec<(String, String)>,
    pub name_mapping: Option<NameMapping>,
    pub snapshots: Vec<SnapshotSchema>,
    pub current_snapshot_id: Option<i64>,
}

/// The only part of a snapshot schema evolution cares about: which schema it was written with.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotSchema {
    pub snapshot_id: i64,
    pub schema_id: Option<i32>,
}

impl TableMetadata {
    pub fn current_schema(&self) -> &Schema {
        self.schema(self.current_schema_id)
            .or_else(|| self.schemas.last().map(|schema| &**schema))
            .unwrap_or(&EMPTY_SCHEMA)
    }

    pub fn schema(&self, id: i32) -> Option<&Schema> {
        self.schemas
            .iter()
            .find(|s| s.schema_id == id)
            .map(|schema| &**schema)
    }

    pub fn property(&self, key: &str) -> Option<&str> {
        self.properties
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Reads the typed view from a parsed document.
    pub fn from_json(root: &Node<'_>) -> ModelResult<TableMetadata> {
        let root = unwrap_load_table_result(root);
        as_object(root, "table metadata")?;
        let format_version = format_version_from_json(root)?;
        let schemas = schemas_from_json(root)?;
        let current_schema_id = current_schema_id_from_json(root, &schemas)?;
        let partition_specs = partition_specs_from_json(root)?;
        let sort_orders = sort_orders_from_json(root)?;
        let (properties, name_mapping) = properties_from_json(root)?;
        let snapshots = snapshots_from_json(root)?;
        let current_snapshot_id = match root.get("current-snapshot-id") {
            Some(node) if node.as_i64().is_some() => node.as_i64().filter(|id| *id != -1),
            _ => None,
        };

        let optional_i32 = |key: &str, default: i32| -> ModelResult<i32> {
            optional_member(root, key).map(|v| v.unwrap_or(default))
        };
        let metadata = TableMetadata {
            format_version,
            location: as_str(required_member(root, "location")?, "`location`")?.to_string(),
            last_column_id: as_i32(required_member(root, "last-column-id")?, "`last-column-id`")?,
            last_updated_ms: as_i64(
                required_member(root, "last-updated-ms")?,
                "`last-updated-ms`",
            )?,
            current_schema_id,
            schemas,
            partition_specs,
            default_spec_id: optional_i32("default-spec-id", 0)?,
            last_partition_id: optional_member(root, "last-partition-id")?,
            sort_orders,
            default_sort_order_id: optional_i32("default-sort-order-id", 0)?,
            properties,
            name_mapping,
            snapshots,
            current_snapshot_id,
        };
        validate_as_java(root, &metadata).map(|()| metadata)
    }
}

/// `format-version`, one fieldgate reads.
fn format_version_from_json(root: &Node<'_>) -> ModelResult<u8> {
    let version_node = required_member(root, "format-version")?;
    let format_version = as_i64(version_node, "`format-version`")?;
    if !(1..=i64::from(MAX_FORMAT_VERSION)).contains(&format_version) {
        return Err(ModelError::at(
            version_node,
            format!(
                "format version {format_version} is not supported (fieldgate reads v1 to v{MAX_FORMAT_VERSION})"
            ),
        ));
    }
    Ok(format_version as u8)
}

/// `current-schema-id`, one of `schemas`; early v1 files without it mean the last schema.
fn current_schema_id_from_json(root: &Node<'_>, schemas: &[Arc<Schema>]) -> ModelResult<i32> {
    let current_schema_id = match root.get("current-schema-id") {
        Some(id) => as_i32(id, "`current-schema-id`")?,
        None => schemas.last().map(|s| s.schema_id).unwrap_or(0),
    };
    if !schemas.iter().any(|s| s.schema_id == current_schema_id) {
        let at = root.get("current-schema-id").unwrap_or(root);
        return Err(ModelError::at(
            at,
            format!("current schema id {current_schema_id} is not in `schemas`"),
        ));
    }
    Ok(current_schema_id)
}

/// `partition-specs`, or the single `partition-spec` of early v1 files.
fn partition_specs_from_json(root: &Node<'_>) -> ModelResult<Vec<PartitionSpec>> {
    match root.get("partition-specs") {
        Some(list) => as_array(list, "`partition-specs`")?
            .iter()
            .map(|s| PartitionSpec::from_json(s, 0))
            .collect(),
        None => match root.get("partition-spec") {
            Some(spec) => Ok(vec![PartitionSpec::from_json(spec, 0)?]),
            None => Ok(Vec::new()),
        },
    }
}

/// `sort-orders`. A v1 file may have none: Java reads it as unsorted (order 0).
fn sort_orders_from_json(root: &Node<'_>) -> ModelResult<Vec<SortOrder>> {
    match root.get("sort-orders") {
        Some(list) => as_array(list, "`sort-orders`")?
            .iter()
            .map(SortOrder::from_json)
            .collect(),
        None => Ok(vec![SortOrder {
            order_id: 0,
            fields: Vec::new(),
        }]),
    }
}

/// A table's properties, key and value, in file order.
type Properties = Vec<(String, String)>;

/// The table's properties, and the name mapping one of them holds.
fn properties_from_json(root: &Node<'_>) -> ModelResult<(Properties, Option<NameMapping>)> {
    let mut properties = Vec::new();
    let mut name_mapping = None;
    if let Some(props) = root.get("properties") {
        as_object(props, "`properties`")?;
        for member in props.as_object().unwrap_or_default() {
            let value = as_str(&member.value, "a table property")?;
            if member.key == NAME_MAPPING_PROPERTY {
                name_mapping = Some(NameMapping::parse(value, &member.value)?);
            }
            properties.push((member.key.to_string(), value.to_string()));
        }
    }
    Ok((properties, name_mapping))
}

/// Each snapshot's id and the schema it was written with, where recorded.
fn snapshots_from_json(root: &Node<'_>) -> ModelResult<Vec<SnapshotSchema>> {
    let mut snapshots = Vec::new();
    if let Some(list) = root.get("snapshots") {
        for snapshot in as_array(list, "`snapshots`")? {
            snapshots.push(SnapshotSchema {
                snapshot_id: as_i64(required_member(snapshot, "snapshot-id")?, "`snapshot-id`")?,
                schema_id: snapshot
                    .get("schema-id")
                    .map(|id| as_i32(id, "`schema-id`"))
                    .transpose()?,
            });
        }
    }
    Ok(snapshots)
}

/// Whether two schema lists are equal. A schema the evolution did not touch is the base's own
/// allocation, shared, so it is recognised without comparing its fields.
pub fn same_schemas(a: &[Arc<Schema>], b: &[Arc<Schema>]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| Arc::ptr_eq(a, b) || a == b)
}

/// The table's schemas: `schemas`, or the single `schema` of early v1 files.
fn schemas_from_json(root: &Node<'_>) -> ModelResult<Vec<Arc<Schema>>> {
    match root.get("schemas") {
        Some(list) => as_array(list, "`schemas`")?
            .iter()
            .map(|s| schema_from_json(s, 0).map(Arc::new))
            .collect(),
        None => Ok(vec![Arc::new(schema_from_json(
            required_member(root, "schema")?,
            0,
        )?)]),
    }
}

/// An integer member that may be absent.
fn optional_member(root: &Node<'_>, key: &str) -> ModelResult<Option<i32>> {
    root.get(key).map(|n| as_i32(n, key)).transpose()
}

static EMPTY_SCHEMA: Schema = Schema {
    schema_id: 0,
    identifier_field_ids: Vec::new(),
    fields: Vec::new(),
};

/// The table metadata of a document: a metadata file is its own, a REST catalog's
/// LoadTableResult (`metadata-location`, `metadata`, `config`, as `GET .../tables/{table}`
/// answers) holds it under `metadata`. Every reader of metadata text goes through here, so a
/// saved catalog response is read as the table it describes, never as a schema file.
pub fn unwrap_load_table_result<'n, 'a>(root: &'n Node<'a>) -> &'n Node<'a> {
    match root.get("metadata") {
        Some(inner) if root.get("format-version").is_none() && inner.as_object().is_some() => inner,
        _ => root,
    }
}

/// Produces the text of `updated` by patching `original`, the document `base` was read from.
/// Only schema-evolution keys are compared and patched; `now_ms` becomes `last-updated-ms` when
/// anything changed. Returns the original text unchanged when nothing did. Of a LoadTableResult,
/// the result is the metadata file it holds, patched: what a table's next metadata file is.
///
/// `replaced`: the file `original` was read from, to log in the patched file's `metadata-log`
/// (as a commit that replaces it logs it), when anything changed.
pub fn patch(
    original: &str,
    base: &TableMetadata,
    updated: &TableMetadata,
    now_ms: i64,
    replaced: Option<&Replaced<'_>>,
) -> Result<String, String> {
    let root = json::parse(original).map_err(|e| e.to_string())?;
    let inner = unwrap_load_table_result(&root);
    if !std::ptr::eq(inner, &root) {
        return patch(
            &original[inner.span.range()],
            base,
            updated,
            now_ms,
            replaced,
        );
    }
    if !anything_changed(base, updated) {
        return Ok(original.to_string());
    }
    let style = Style::detect(original, &root);
    let mut edits = Edits::new();
    patch_schemas(original, &root, base, updated, &style, &mut edits)?;
    replace_number(
        &mut edits,
        &root,
        "current-schema-id",
        updated.current_schema_id.into(),
    );
    replace_number(
        &mut edits,
        &root,
        "last-column-id",
        updated.last_column_id.into(),
    );
    replace_number(&mut edits, &root, "last-updated-ms", now_ms.into());
    if let Some(replaced) = replaced {
        let max = updated.property(PREVIOUS_VERSIONS_MAX);
        edits.push(log_edit(original, &root, replaced, max, &style)?);
    }

    table_patch::patch_table_keys(original, &root, base, updated, &style, &mut edits)?;
    if updated.name_mapping != base.name_mapping
        && !table_patch::properties_rewritten(base, updated)
        && let Some(mapping) = &updated.name_mapping
        && let Some(node) = root
            .get("properties")
            .and_then(|p| p.get(NAME_MAPPING_PROPERTY))
    {
        let text = JsonValue::String(mapping.to_json_string());
        edits.push(json::replace_with_value(original, node, &text, &style));
    }
    edits.apply(original).map_err(|e| e.to_string())
}

/// Whether any key `patch` writes differs between the two tables.
fn anything_changed(base: &TableMetadata, updated: &TableMetadata) -> bool {
    !same_schemas(&updated.schemas, &base.schemas)
        || updated.current_schema_id != base.current_schema_id
        || updated.last_column_id != base.last_column_id
        || updated.name_mapping != base.name_mapping
        || table_patch::table_keys_changed(base, updated)
}

/// The schemas the evolution added, appended to `schemas` in the style the file's writer used
/// for its own; in early v1 files, `schemas` and `current-schema-id` added and the deprecated
/// `schema` replaced.
fn patch_schemas(
    original: &str,
    root: &Node<'_>,
    base: &TableMetadata,
    updated: &TableMetadata,
    style: &Style,
    edits: &mut Edits,
) -> Result<(), String> {
    let writer = root
        .get("schemas")
        .and_then(|s| s.as_array())
        .and_then(|s| s.first())
        .or_else(|| root.get("schema"))
        .map(detect_style)
        .unwrap_or_default();
    if let Some(schemas) = root.get("schemas") {
        let old_ids: HashSet<i32> = base.schemas.iter().map(|s| s.schema_id).collect();
        let mut added = updated
            .schemas
            .iter()
            .filter(|s| !old_ids.contains(&s.schema_id))
            .peekable();
        if added.peek().is_some() {
            let rendered = added.map(|s| schema_to_json(s, writer));
            let edit = json::append_elements(original, schemas, rendered, style)
                .map_err(|e| e.to_string())?;
            edits.push(edit);
        }
    }
    // Early v1 writers kept only `schema`: add `schemas` and `current-schema-id`, as Java's v1
    // writer has done since, so the replaced schema stays in the table's history.
    if root.get("schemas").is_none() {
        let all = JsonValue::Array(
            updated
                .schemas
                .iter()
                .map(|s| schema_to_json(s, writer))
                .collect(),
        );
        for (key, value) in [
            ("current-schema-id", updated.current_schema_id.into()),
            ("schemas", all),
        ] {
            let edit = json::insert_member(original, root, key, &value, style)
                .map_err(|e| e.to_string())?;
            edits.push(edit);
        }
    }
    // v1 writers also keep the current schema under the deprecated `schema` key.
    if let Some(node) = root.get("schema") {
        let value = schema_to_json(updated.current_schema(), writer);
        edits.push(json::replace_with_value(original, node, &value, style));
    }
    Ok(())
}

fn replace_number(edits: &mut Edits, root: &Node<'_>, key: &str, value: JsonValue) {
    if let Some(node) = root.get(key) {
        edits.replace(node.span, value.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A v3 document in the spec's shape (Appendix C; written here by hand because no pinned
    /// reference writer can produce v3 yet: PyIceberg 0.12 refuses, and Java is not reachable).
    const V3: &str = r#"{"format-version":3,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":"s3://b/t","last-sequence-number":4,"last-updated-ms":1602638573590,"last-column-id":4,"current-schema-id":0,"schemas":[{"type":"struct","schema-id":0,"identifier-field-ids":[1],"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"ts","required":false,"type":"timestamp_ns"},{"id":3,"name":"u","required":false,"type":"unknown"},{"id":4,"name":"level","required":true,"type":"int","initial-default":1,"write-default":2}]}],"default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[{"source-ids":[1],"field-id":1000,"name":"id_bucket","transform":"bucket[4]"}]}],"last-partition-id":1000,"default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],"properties":{},"current-snapshot-id":null,"next-row-id":12,"snapshots":[{"snapshot-id":7,"schema-id":0,"timestamp-ms":1,"manifest-list":"x","summary":{"operation":"append"},"sequence-number":1,"first-row-id":0,"added-rows":12}]}"#;

    /// A v1 document with only the deprecated `schema` and `partition-spec`, as early writers made.
    const V1: &str = r#"{"format-version":1,"location":"/t","last-updated-ms":1,"last-column-id":2,"schema":{"type":"struct","fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"day","required":false,"type":"date"}]},"partition-spec":[{"name":"day","transform":"identity","source-id":2}]}"#;

    fn read(text: &str) -> TableMetadata {
        TableMetadata::from_json(&json::parse(text).unwrap()).unwrap()
    }

    #[test]
    fn reads_v3_types_defaults_and_multi_argument_sources() {
        let table = read(V3);
        assert_eq!(table.format_version, 3);
        let schema = table.current_schema();
        assert_eq!(
            schema.field_by_path("ts").unwrap().field_type.to_string(),
            "timestamp_ns"
        );
        assert_eq!(
            schema.field_by_path("u").unwrap().field_type.to_string(),
            "unknown"
        );
        let level = schema.field_by_path("level").unwrap();
        assert_eq!(
            (level.initial_default, level.write_default),
            (Some(1.into()), Some(2.into()))
        );
        assert_eq!(table.partition_specs[0].fields[0].source_ids, vec![1]);
        assert_eq!(table.snapshots[0].schema_id, Some(0));
        assert_eq!(table.current_snapshot_id, None);
    }

    #[test]
    fn reads_v1_deprecated_keys_and_patches_them_like_java() {
        let table = read(V1);
        assert_eq!(
            (
                table.current_schema_id,
                table.partition_specs[0].fields[0].source_ids.clone()
            ),
            (0, vec![2])
        );
        let mut updated = table.clone();
        let mut schema = table.current_schema().clone();
        schema.schema_id = 1;
        schema.fields.pop();
        updated.schemas.push(Arc::new(schema));
        updated.current_schema_id = 1;
        // `schema` becomes the current schema and the history moves into a new `schemas`.
        let written = patch(V1, &table, &updated, 5, None).unwrap();
        let reread = read(&written);
        assert_eq!(reread.schemas.len(), 2);
        assert_eq!(reread.current_schema_id, 1);
        assert_eq!(reread.current_schema().fields.len(), 1);
        assert_eq!(reread.last_updated_ms, 5);
        let root = json::parse(&written).unwrap();
        assert_eq!(
            root.get("schema")
                .and_then(|s| s.get("schema-id"))
                .and_then(|i| i.as_i64()),
            Some(1)
        );
    }

    #[test]
    fn refuses_versions_it_does_not_know() {
        let err = TableMetadata::from_json(
            &json::parse(&V1.replace("\"format-version\":1", "\"format-version\":4")).unwrap(),
        )
        .unwrap_err();
        assert!(
            err.message.contains("format version 4 is not supported"),
            "{}",
            err.message
        );
    }
}
