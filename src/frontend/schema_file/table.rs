//! A schema file as Iceberg table metadata: how rule-example bases and tables that have no
//! Iceberg metadata (Hive tables read by name or position) become a table to judge changes
//! against.
//!
//! The metadata is what Iceberg would hold after the file's history: the dropped fields live in
//! an earlier schema, so schema history shows them as dropped and their ids as used. Usually
//! that is one schema (schema 0 = the current fields plus the dropped ones, schema 1 = the
//! current fields); when a dropped field shares its name with a current field or with another
//! dropped one, each such name gets its own earlier schema, since no real schema could hold the
//! same name twice.

use std::sync::Arc;

use crate::change::Span;
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::name_mapping::{NAME_MAPPING_PROPERTY, NameMapping};
use crate::iceberg::partition::{PARTITION_DATA_ID_START, PartitionField, PartitionSpec};
use crate::iceberg::schema::{Field, Schema};
use crate::iceberg::sort::{SortField, SortOrder};
use crate::iceberg::types::{FieldId, ListType, MapType, StructType, Type};

use super::error::{SchemaFileError, SchemaFileErrorKind, SchemaFileErrors};
use super::read::find_column;
use super::{ColumnRef, FileField, FileType, Mapping, SchemaFile, Transform};

/// A table described by a schema file: its metadata, and what the metadata cannot say.
#[derive(Debug, Clone, PartialEq)]
pub struct TableDescription {
    pub table: String,
    pub metadata: TableMetadata,
    /// How readers find columns; Iceberg metadata has no place for it (its name mapping is a
    /// different thing: a translation for files without ids, not a statement about readers).
    pub mapping: Mapping,
}

const MISSING_ID_HELP: &str =
    "give every field an id in a table description; only proposals may omit them";

impl SchemaFile {
    /// The metadata of the table this file describes. Every field, list element and map key and
    /// value needs an id; each one without is reported.
    ///
    /// Schemas: the dropped fields' schemas first (see the module doc), then the current one,
    /// which is `current-schema-id`. `last-column-id` is the highest id anywhere. One partition
    /// spec (id 0, partition field ids from 1000) and, when `sort-order` is given, sort order 1
    /// next to the unsorted order 0.
    pub fn to_table_metadata(&self) -> Result<TableDescription, SchemaFileErrors> {
        let mut errors = Vec::new();
        let fields = convert_fields(&self.fields, "", &mut errors);
        let dropped = convert_fields(&self.dropped, "", &mut errors);
        let (identifier_field_ids, partition_fields, sort_fields) =
            self.column_references(&mut errors);
        let (properties, name_mapping) = self.table_properties(&mut errors);
        if !errors.is_empty() {
            errors.sort_by_key(|e| (e.span.offset, e.span.len));
            return Err(SchemaFileErrors { errors });
        }

        let schemas = schemas_with_history(fields, &dropped, &identifier_field_ids);
        let current_schema_id = schemas.len() - 1;
        let last_column_id = schemas
            .iter()
            .map(Schema::highest_field_id)
            .max()
            .unwrap_or(0);
        let sort_orders = sort_orders(sort_fields);
        let metadata = TableMetadata {
            format_version: self.format_version,
            location: String::new(),
            last_column_id,
            last_updated_ms: 0,
            current_schema_id: schema_id(current_schema_id),
            schemas: schemas.into_iter().map(Arc::new).collect(),
            partition_specs: vec![PartitionSpec {
                spec_id: 0,
                fields: partition_fields,
            }],
            default_spec_id: 0,
            last_partition_id: None,
            default_sort_order_id: sort_orders.last().map_or(0, |o| o.order_id),
            sort_orders,
            properties,
            name_mapping,
            snapshots: Vec::new(),
            current_snapshot_id: None,
        };
        Ok(TableDescription {
            table: self.table.clone(),
            metadata,
            mapping: self.mapping,
        })
    }
}

impl SchemaFile {
    /// The properties the table has (a `null` one it has not), and the name mapping among them.
    fn table_properties(
        &self,
        errors: &mut Vec<SchemaFileError>,
    ) -> (Vec<(String, String)>, Option<NameMapping>) {
        let mut name_mapping = None;
        let mut properties = Vec::new();
        for property in &self.properties {
            let Some(value) = &property.value else {
                continue;
            };
            if property.key == NAME_MAPPING_PROPERTY {
                match NameMapping::parse_value(value) {
                    Ok(mapping) => name_mapping = Some(mapping),
                    Err(e) => errors.push(SchemaFileError::new(
                        SchemaFileErrorKind::InvalidValue,
                        property.value_span,
                        e,
                    )),
                }
            }
            properties.push((property.key.clone(), value.clone()));
        }
        (properties, name_mapping)
    }

    /// The identifier fields, partition fields and sort fields, by the ids of the columns
    /// they name; a name that is not a column is an error (and id 0 meanwhile).
    fn column_references(
        &self,
        errors: &mut Vec<SchemaFileError>,
    ) -> (Vec<FieldId>, Vec<PartitionField>, Vec<SortField>) {
        let mut id_of =
            |column: &ColumnRef| match find_column(&self.fields, &column.name).and_then(|f| f.id) {
                Some(id) => id,
                None => {
                    errors.push(SchemaFileError::new(
                        SchemaFileErrorKind::UnknownColumn,
                        column.span,
                        format!("`{}` is not a column of the table", column.name),
                    ));
                    0
                }
            };
        let identifier_field_ids: Vec<FieldId> =
            self.identifier_fields.iter().map(&mut id_of).collect();
        let partition_fields: Vec<PartitionField> = self
            .partition
            .iter()
            .zip(PARTITION_DATA_ID_START..)
            .map(|(term, field_id)| PartitionField {
                source_ids: vec![id_of(&term.column)],
                field_id: Some(field_id),
                name: partition_field_name(&term.column.name, term.transform),
                transform: term.transform.to_string(),
            })
            .collect();
        let sort_fields: Vec<SortField> = self
            .sort_order
            .iter()
            .map(|term| SortField {
                source_ids: vec![id_of(&term.column)],
                transform: "identity".to_owned(),
                direction: term.direction.as_str().to_owned(),
                null_order: term.null_order.as_str().to_owned(),
            })
            .collect();
        (identifier_field_ids, partition_fields, sort_fields)
    }
}

/// One schema per layer of dropped fields (each the current fields with that layer back), then
/// the current schema, last.
fn schemas_with_history(
    fields: Vec<Field>,
    dropped: &[Field],
    identifier_field_ids: &[FieldId],
) -> Vec<Schema> {
    let mut schemas = Vec::new();
    for layer in history_layers(dropped) {
        let names: Vec<&str> = layer.iter().map(|f| f.name.as_str()).collect();
        let mut schema_fields: Vec<Field> = fields
            .iter()
            .filter(|f| !names.contains(&f.name.as_str()))
            .cloned()
            .collect();
        schema_fields.extend(layer.into_iter().cloned());
        schemas.push(schema(schemas.len(), schema_fields, identifier_field_ids));
    }
    schemas.push(schema(schemas.len(), fields, identifier_field_ids));
    schemas
}

/// The unsorted order, then the file's own when it has one (which becomes the default).
fn sort_orders(sort_fields: Vec<SortField>) -> Vec<SortOrder> {
    let mut sort_orders = vec![SortOrder {
        order_id: 0,
        fields: Vec::new(),
    }];
    if !sort_fields.is_empty() {
        sort_orders.push(SortOrder {
            order_id: 1,
            fields: sort_fields,
        });
    }
    sort_orders
}

fn schema_id(index: usize) -> i32 {
    i32::try_from(index).unwrap_or(i32::MAX)
}

/// A schema holding the identifier ids that are among its fields.
fn schema(index: usize, fields: Vec<Field>, identifier_ids: &[FieldId]) -> Schema {
    let top_level: Vec<FieldId> = fields.iter().map(|f| f.id).collect();
    let mut schema = Schema {
        schema_id: schema_id(index),
        identifier_field_ids: Vec::new(),
        fields,
    };
    let present = schema.index_by_id();
    schema.identifier_field_ids = identifier_ids
        .iter()
        .copied()
        .filter(|id| top_level.contains(id) || present.contains_key(id))
        .collect();
    schema
}

/// The dropped fields split into groups with unique names: the first group takes every field
/// whose name it does not hold yet, the next group the rest, and so on.
fn history_layers(dropped: &[Field]) -> Vec<Vec<&Field>> {
    let mut layers: Vec<Vec<&Field>> = Vec::new();
    for field in dropped {
        match layers
            .iter_mut()
            .find(|layer| layer.iter().all(|f| f.name != field.name))
        {
            Some(layer) => layer.push(field),
            None => layers.push(vec![field]),
        }
    }
    layers
}

/// Iceberg Java's partition field names (`id_bucket`, `ts_day`, `name_trunc`).
fn partition_field_name(column: &str, transform: Transform) -> String {
    let suffix = match transform {
        Transform::Identity => return column.to_owned(),
        Transform::Bucket(_) => "bucket",
        Transform::Truncate(_) => "trunc",
        Transform::Year => "year",
        Transform::Month => "month",
        Transform::Day => "day",
        Transform::Hour => "hour",
    };
    format!("{column}_{suffix}")
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}.{name}")
    }
}

fn missing_id(span: Span, what: String) -> SchemaFileError {
    SchemaFileError::new(
        SchemaFileErrorKind::MissingId,
        span,
        format!("{what} has no id"),
    )
    .with_help(MISSING_ID_HELP)
}

/// An id, or a placeholder 0 and an error (the result is then discarded).
fn required_id(
    id: Option<FieldId>,
    span: Span,
    what: impl FnOnce() -> String,
    errors: &mut Vec<SchemaFileError>,
) -> FieldId {
    id.unwrap_or_else(|| {
        errors.push(missing_id(span, what()));
        0
    })
}

fn convert_fields(
    fields: &[FileField],
    prefix: &str,
    errors: &mut Vec<SchemaFileError>,
) -> Vec<Field> {
    fields
        .iter()
        .map(|f| {
            let path = join(prefix, &f.name);
            let id = required_id(f.id, f.name_span, || format!("field `{path}`"), errors);
            let mut field = Field::new(
                id,
                f.name.clone(),
                f.required,
                convert_type(&f.field_type, &path, errors),
            );
            field.doc = f.doc.clone();
            field
        })
        .collect()
}

fn convert_type(ty: &FileType, path: &str, errors: &mut Vec<SchemaFileError>) -> Type {
    match ty {
        FileType::Primitive(p) => Type::Primitive(p.clone()),
        FileType::Struct(fields) => Type::Struct(StructType {
            fields: convert_fields(fields, path, errors),
        }),
        FileType::List(list) => {
            let element_id = required_id(
                list.element_id,
                list.element_span,
                || format!("the element of `{path}`"),
                errors,
            );
            Type::List(ListType {
                element_id,
                element_required: list.element_required,
                element: Box::new(convert_type(
                    &list.element,
                    &format!("{path}.element"),
                    errors,
                )),
            })
        }
        FileType::Map(map) => {
            let key_id = required_id(
                map.key_id,
                map.key_span,
                || format!("the key of `{path}`"),
                errors,
            );
            let value_id = required_id(
                map.value_id,
                map.value_span,
                || format!("the value of `{path}`"),
                errors,
            );
            Type::Map(MapType {
                key_id,
                key: Box::new(convert_type(&map.key, &format!("{path}.key"), errors)),
                value_id,
                value_required: map.value_required,
                value: Box::new(convert_type(&map.value, &format!("{path}.value"), errors)),
            })
        }
    }
}
