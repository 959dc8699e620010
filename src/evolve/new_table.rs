//! A table that does not exist yet (CREATE TABLE): fresh ids from 1, partition fields from 1000,
//! and a complete metadata document in the shape Iceberg Java writes for a new table.

use std::sync::Arc;

use serde_json::{Map, Value as JsonValue, json};

use crate::change::CreateTable;
use crate::evolve::{assign_fresh_schema_ids, field_from_new};
use crate::iceberg::codec::{WriterStyle, schema_to_json};
use crate::iceberg::metadata::{MAX_FORMAT_VERSION, TableMetadata};
use crate::iceberg::partition::{PARTITION_DATA_ID_START, PartitionField, PartitionSpec};
use crate::iceberg::schema::Schema;
use crate::iceberg::sort::SortOrder;

/// The format version a new table gets unless its properties say otherwise (Java's default).
pub const DEFAULT_FORMAT_VERSION: u8 = 2;

/// A problem with a CREATE TABLE statement; `term` indexes `partition_by` when it is about one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateError {
    pub message: String,
    pub term: Option<usize>,
}

pub fn new_table(
    create: &CreateTable,
    location: String,
    now_ms: i64,
) -> Result<TableMetadata, CreateError> {
    let (format_version, properties) = format_version_and_properties(create)?;
    let mut fields: Vec<_> = create.fields.iter().map(field_from_new).collect();
    let last_column_id = assign_fresh_schema_ids(&mut fields);
    let schema = Schema {
        schema_id: 0,
        identifier_field_ids: Vec::new(),
        fields,
    };
    let partition_fields = partition_fields(create, &schema)?;
    Ok(TableMetadata {
        format_version,
        location: create.location.clone().unwrap_or(location),
        last_column_id,
        last_updated_ms: now_ms,
        current_schema_id: 0,
        schemas: vec![Arc::new(schema)],
        partition_specs: vec![PartitionSpec {
            spec_id: 0,
            fields: partition_fields,
        }],
        default_spec_id: 0,
        last_partition_id: None,
        sort_orders: vec![SortOrder {
            order_id: 0,
            fields: Vec::new(),
        }],
        default_sort_order_id: 0,
        properties,
        name_mapping: None,
        snapshots: Vec::new(),
        current_snapshot_id: None,
    })
}

/// The format version the properties ask for, and the other properties, which the table keeps.
fn format_version_and_properties(
    create: &CreateTable,
) -> Result<(u8, Vec<(String, String)>), CreateError> {
    let mut format_version = DEFAULT_FORMAT_VERSION;
    let mut properties = Vec::new();
    for (key, value) in &create.properties {
        if key == "format-version" || key == "format_version" {
            format_version = value
                .parse::<u8>()
                .ok()
                .filter(|v| (1..=MAX_FORMAT_VERSION).contains(v))
                .ok_or_else(|| CreateError {
                    message: format!(
                        "format version `{value}` is not one of 1..={MAX_FORMAT_VERSION}"
                    ),
                    term: None,
                })?;
        } else {
            properties.push((key.clone(), value.clone()));
        }
    }
    Ok((format_version, properties))
}

/// The `PARTITIONED BY` terms as partition fields of `schema`, numbered from 1000.
fn partition_fields(
    create: &CreateTable,
    schema: &Schema,
) -> Result<Vec<PartitionField>, CreateError> {
    let mut partition_fields = Vec::new();
    for (index, term) in create.partition_by.iter().enumerate() {
        let source = schema
            .fields
            .iter()
            .find(|f| crate::iceberg::names::same_name(&f.name, &term.column))
            .ok_or_else(|| CreateError {
                message: format!(
                    "PARTITIONED BY names `{}`, which is not a column of the table",
                    term.column
                ),
                term: Some(index),
            })?;
        partition_fields.push(PartitionField {
            source_ids: vec![source.id],
            field_id: Some(PARTITION_DATA_ID_START + index as i32),
            name: partition_field_name(&source.name, &term.transform),
            transform: term.transform.clone(),
        });
    }
    Ok(partition_fields)
}

/// The partition field names Iceberg derives from a transform (`id_bucket`, `ts_day`, ...).
fn partition_field_name(column: &str, transform: &str) -> String {
    let suffix = match transform.split('[').next().unwrap_or(transform) {
        "identity" => return column.to_string(),
        "bucket" => "bucket",
        "truncate" => "trunc",
        other => other,
    };
    format!("{column}_{suffix}")
}

/// Renders a brand-new table's metadata document (Java key order, two-space pretty printing).
pub fn render_new_table(metadata: &TableMetadata, table_uuid: &str) -> String {
    let style = WriterStyle::default();
    let schemas: Vec<JsonValue> = metadata
        .schemas
        .iter()
        .map(|s| schema_to_json(s, style))
        .collect();
    let specs = specs_json(metadata);
    let mut doc = Map::new();
    doc.insert("format-version".into(), metadata.format_version.into());
    doc.insert("table-uuid".into(), table_uuid.into());
    doc.insert("location".into(), metadata.location.clone().into());
    if metadata.format_version >= 2 {
        doc.insert("last-sequence-number".into(), 0.into());
    }
    doc.insert("last-updated-ms".into(), metadata.last_updated_ms.into());
    doc.insert("last-column-id".into(), metadata.last_column_id.into());
    if metadata.format_version == 1 {
        doc.insert(
            "schema".into(),
            schema_to_json(metadata.current_schema(), style),
        );
    }
    doc.insert(
        "current-schema-id".into(),
        metadata.current_schema_id.into(),
    );
    doc.insert("schemas".into(), schemas.into());
    if metadata.format_version == 1 {
        let fields = specs
            .first()
            .and_then(|s| s.get("fields"))
            .cloned()
            .unwrap_or(json!([]));
        doc.insert("partition-spec".into(), fields);
    }
    doc.insert("default-spec-id".into(), metadata.default_spec_id.into());
    doc.insert("partition-specs".into(), specs.into());
    doc.insert(
        "last-partition-id".into(),
        last_partition_id(metadata).into(),
    );
    doc.insert(
        "default-sort-order-id".into(),
        metadata.default_sort_order_id.into(),
    );
    doc.insert("sort-orders".into(), sort_orders_json(metadata).into());
    let properties: Map<String, JsonValue> = metadata
        .properties
        .iter()
        .map(|(k, v)| (k.clone(), v.clone().into()))
        .collect();
    doc.insert("properties".into(), properties.into());
    insert_empty_history(&mut doc, metadata.format_version);
    let mut text = serde_json::to_string_pretty(&JsonValue::Object(doc)).unwrap_or_default();
    text.push('\n');
    text
}

/// The highest partition field id, or the one below the first a new table hands out.
fn last_partition_id(metadata: &TableMetadata) -> i32 {
    metadata
        .partition_specs
        .iter()
        .flat_map(|s| s.fields.iter().filter_map(|f| f.field_id))
        .max()
        .unwrap_or(PARTITION_DATA_ID_START - 1)
}

fn specs_json(metadata: &TableMetadata) -> Vec<JsonValue> {
    metadata
        .partition_specs
        .iter()
        .map(|spec| {
            let fields: Vec<JsonValue> = spec
                .fields
                .iter()
                .map(|f| {
                    json!({"name": f.name, "transform": f.transform, "source-id": f.source_ids.first(), "field-id": f.field_id})
                })
                .collect();
            json!({"spec-id": spec.spec_id, "fields": fields})
        })
        .collect()
}

/// A table described by a schema file may have a sort order; Java writes one source-id.
fn sort_orders_json(metadata: &TableMetadata) -> Vec<JsonValue> {
    metadata
        .sort_orders
        .iter()
        .map(|order| {
            let fields: Vec<JsonValue> = order
                .fields
                .iter()
                .map(|f| {
                    json!({"transform": f.transform, "source-id": f.source_ids.first(), "direction": f.direction, "null-order": f.null_order})
                })
                .collect();
            json!({"order-id": order.order_id, "fields": fields})
        })
        .collect()
}

/// The keys of a table with no snapshots, statistics or logs yet, closing the document.
fn insert_empty_history(doc: &mut Map<String, JsonValue>, format_version: u8) {
    doc.insert("current-snapshot-id".into(), (-1).into());
    doc.insert("refs".into(), json!({}));
    doc.insert("snapshots".into(), json!([]));
    doc.insert("statistics".into(), json!([]));
    doc.insert("partition-statistics".into(), json!([]));
    doc.insert("snapshot-log".into(), json!([]));
    doc.insert("metadata-log".into(), json!([]));
    if format_version >= 3 {
        doc.insert("next-row-id".into(), 0.into());
    }
}
