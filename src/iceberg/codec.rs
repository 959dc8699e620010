//! The spec's JSON forms (Appendix C) for types, schemas, partition specs and sort orders: read
//! from a spanned JSON tree (so a malformed value is reported where it is) and written as
//! `serde_json::Value`s in the key order of the writer whose file we are patching.

use serde_json::{Map, Value as JsonValue};

use crate::iceberg::schema::{Field, Schema};
use crate::iceberg::types::{FieldId, ListType, MapType, PrimitiveType, StructType, Type};
use crate::json::{Node, Value};
use crate::span::Span;

/// A metadata document that parses as JSON but not as Iceberg.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ModelError {
    pub span: Span,
    pub message: String,
}

impl ModelError {
    pub fn at(node: &Node<'_>, message: impl Into<String>) -> ModelError {
        ModelError {
            span: Span::from_range(node.span.start, node.span.end),
            message: message.into(),
        }
    }
}

pub type ModelResult<T> = Result<T, ModelError>;

/// Iceberg Java writes a struct field as `id, name, required, type, doc`; PyIceberg as `id, name,
/// type, required, doc`. New schemas follow whichever the file already uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FieldKeyOrder {
    #[default]
    Java,
    PyIceberg,
}

/// Likewise for the schema object: Java puts `schema-id`/`identifier-field-ids` before `fields`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriterStyle {
    pub field_order: FieldKeyOrder,
    pub schema_fields_last: bool,
}

pub fn required_member<'n, 'a>(node: &'n Node<'a>, key: &str) -> ModelResult<&'n Node<'a>> {
    node.get(key)
        .ok_or_else(|| ModelError::at(node, format!("missing required key `{key}`")))
}

pub fn as_object<'n, 'a>(node: &'n Node<'a>, what: &str) -> ModelResult<&'n Node<'a>> {
    match node.value {
        Value::Object(_) => Ok(node),
        _ => Err(ModelError::at(
            node,
            format!("{what} must be an object, found {}", node.kind_name()),
        )),
    }
}

pub fn as_array<'n, 'a>(node: &'n Node<'a>, what: &str) -> ModelResult<&'n [Node<'a>]> {
    node.as_array().ok_or_else(|| {
        ModelError::at(
            node,
            format!("{what} must be an array, found {}", node.kind_name()),
        )
    })
}

pub fn as_str<'n>(node: &'n Node<'_>, what: &str) -> ModelResult<&'n str> {
    node.as_str().ok_or_else(|| {
        ModelError::at(
            node,
            format!("{what} must be a string, found {}", node.kind_name()),
        )
    })
}

pub fn as_bool(node: &Node<'_>, what: &str) -> ModelResult<bool> {
    node.as_bool().ok_or_else(|| {
        ModelError::at(
            node,
            format!("{what} must be a boolean, found {}", node.kind_name()),
        )
    })
}

pub fn as_i64(node: &Node<'_>, what: &str) -> ModelResult<i64> {
    node.as_i64().ok_or_else(|| {
        ModelError::at(
            node,
            format!("{what} must be an integer, found {}", node.kind_name()),
        )
    })
}

pub fn as_i32(node: &Node<'_>, what: &str) -> ModelResult<i32> {
    let wide = as_i64(node, what)?;
    i32::try_from(wide)
        .map_err(|_| ModelError::at(node, format!("{what} {wide} is out of range for an int")))
}

/// A field id: a non-negative int, not in the range the spec reserves for metadata columns.
fn field_id(node: &Node<'_>, what: &str) -> ModelResult<FieldId> {
    let id = as_i32(node, what)?;
    if id < 0 {
        return Err(ModelError::at(node, format!("{what} {id} is negative")));
    }
    Ok(id)
}

/// Converts our spanned tree into a plain JSON value, for defaults kept verbatim.
pub fn to_plain(node: &Node<'_>) -> JsonValue {
    match &node.value {
        Value::Null => JsonValue::Null,
        Value::Bool(b) => JsonValue::Bool(*b),
        Value::Number(raw) => serde_json::from_str(raw).unwrap_or(JsonValue::Null),
        Value::String(s) => JsonValue::String(s.to_string()),
        Value::Array(items) => JsonValue::Array(items.iter().map(to_plain).collect()),
        Value::Object(members) => JsonValue::Object(
            members
                .iter()
                .map(|m| (m.key.to_string(), to_plain(&m.value)))
                .collect(),
        ),
    }
}

pub fn type_from_json(node: &Node<'_>) -> ModelResult<Type> {
    if let Some(text) = node.as_str() {
        return PrimitiveType::parse(text)
            .map(Type::Primitive)
            .map_err(|e| ModelError::at(node, e.to_string()));
    }
    as_object(node, "a type")?;
    let kind = as_str(required_member(node, "type")?, "`type`")?;
    match kind {
        "struct" => Ok(Type::Struct(StructType {
            fields: fields_from_json(required_member(node, "fields")?)?,
        })),
        "list" => Ok(Type::List(ListType {
            element_id: field_id(required_member(node, "element-id")?, "`element-id`")?,
            element_required: as_bool(
                required_member(node, "element-required")?,
                "`element-required`",
            )?,
            element: Box::new(type_from_json(required_member(node, "element")?)?),
        })),
        "map" => Ok(Type::Map(MapType {
            key_id: field_id(required_member(node, "key-id")?, "`key-id`")?,
            key: Box::new(type_from_json(required_member(node, "key")?)?),
            value_id: field_id(required_member(node, "value-id")?, "`value-id`")?,
            value_required: as_bool(required_member(node, "value-required")?, "`value-required`")?,
            value: Box::new(type_from_json(required_member(node, "value")?)?),
        })),
        other => Err(ModelError::at(
            node,
            format!("unknown nested type `{other}` (expected struct, list or map)"),
        )),
    }
}

fn fields_from_json(node: &Node<'_>) -> ModelResult<Vec<Field>> {
    as_array(node, "`fields`")?
        .iter()
        .map(field_from_json)
        .collect()
}

fn field_from_json(node: &Node<'_>) -> ModelResult<Field> {
    as_object(node, "a struct field")?;
    let doc = match node.get("doc") {
        Some(d) if !matches!(d.value, Value::Null) => Some(as_str(d, "`doc`")?.to_string()),
        _ => None,
    };
    Ok(Field {
        id: field_id(required_member(node, "id")?, "field `id`")?,
        name: as_str(required_member(node, "name")?, "field `name`")?.to_string(),
        required: as_bool(required_member(node, "required")?, "`required`")?,
        field_type: type_from_json(required_member(node, "type")?)?,
        doc,
        initial_default: node.get("initial-default").map(to_plain),
        write_default: node.get("write-default").map(to_plain),
    })
}

/// Reads a schema object. v1 metadata may omit `schema-id`; the caller supplies the default.
pub fn schema_from_json(node: &Node<'_>, default_id: i32) -> ModelResult<Schema> {
    as_object(node, "a schema")?;
    let schema_id = match node.get("schema-id") {
        Some(id) => as_i32(id, "`schema-id`")?,
        None => default_id,
    };
    let identifier_field_ids = match node.get("identifier-field-ids") {
        Some(ids) => as_array(ids, "`identifier-field-ids`")?
            .iter()
            .map(|id| field_id(id, "an identifier field id"))
            .collect::<ModelResult<_>>()?,
        None => Vec::new(),
    };
    Ok(Schema {
        schema_id,
        identifier_field_ids,
        fields: fields_from_json(required_member(node, "fields")?)?,
    })
}

/// Learns the writer's key order from an existing schema object of the document.
pub fn detect_style(schema: &Node<'_>) -> WriterStyle {
    let keys: Vec<&str> = schema
        .as_object()
        .map(|m| m.iter().map(|m| m.key.as_ref()).collect())
        .unwrap_or_default();
    let position = |k: &str| keys.iter().position(|x| *x == k);
    let schema_fields_last = match (position("fields"), position("schema-id")) {
        (Some(f), Some(s)) => f > s,
        _ => true,
    };
    let first_field = schema
        .get("fields")
        .and_then(|f| f.as_array())
        .and_then(|f| f.first());
    let field_order = match first_field.and_then(|f| f.as_object()) {
        Some(members) => {
            let order: Vec<&str> = members.iter().map(|m| m.key.as_ref()).collect();
            match (
                order.iter().position(|k| *k == "type"),
                order.iter().position(|k| *k == "required"),
            ) {
                (Some(t), Some(r)) if t < r => FieldKeyOrder::PyIceberg,
                _ => FieldKeyOrder::Java,
            }
        }
        None => FieldKeyOrder::Java,
    };
    WriterStyle {
        field_order,
        schema_fields_last,
    }
}

pub fn type_to_json(field_type: &Type, style: WriterStyle) -> JsonValue {
    match field_type {
        Type::Primitive(p) => JsonValue::String(p.to_string()),
        Type::Struct(s) => {
            let mut m = Map::new();
            m.insert("type".into(), "struct".into());
            m.insert("fields".into(), fields_to_json(&s.fields, style));
            JsonValue::Object(m)
        }
        Type::List(l) => {
            let mut m = Map::new();
            m.insert("type".into(), "list".into());
            m.insert("element-id".into(), l.element_id.into());
            m.insert("element".into(), type_to_json(&l.element, style));
            m.insert("element-required".into(), l.element_required.into());
            JsonValue::Object(m)
        }
        Type::Map(mt) => {
            let mut m = Map::new();
            m.insert("type".into(), "map".into());
            m.insert("key-id".into(), mt.key_id.into());
            m.insert("key".into(), type_to_json(&mt.key, style));
            m.insert("value-id".into(), mt.value_id.into());
            m.insert("value".into(), type_to_json(&mt.value, style));
            m.insert("value-required".into(), mt.value_required.into());
            JsonValue::Object(m)
        }
    }
}

fn fields_to_json(fields: &[Field], style: WriterStyle) -> JsonValue {
    JsonValue::Array(fields.iter().map(|f| field_to_json(f, style)).collect())
}

fn field_to_json(field: &Field, style: WriterStyle) -> JsonValue {
    let mut m = Map::new();
    m.insert("id".into(), field.id.into());
    m.insert("name".into(), field.name.clone().into());
    match style.field_order {
        FieldKeyOrder::Java => {
            m.insert("required".into(), field.required.into());
            m.insert("type".into(), type_to_json(&field.field_type, style));
        }
        FieldKeyOrder::PyIceberg => {
            m.insert("type".into(), type_to_json(&field.field_type, style));
            m.insert("required".into(), field.required.into());
        }
    }
    if let Some(doc) = &field.doc {
        m.insert("doc".into(), doc.clone().into());
    }
    if let Some(d) = &field.initial_default {
        m.insert("initial-default".into(), d.clone());
    }
    if let Some(d) = &field.write_default {
        m.insert("write-default".into(), d.clone());
    }
    JsonValue::Object(m)
}

pub fn schema_to_json(schema: &Schema, style: WriterStyle) -> JsonValue {
    let mut m = Map::new();
    m.insert("type".into(), "struct".into());
    if !style.schema_fields_last {
        m.insert("fields".into(), fields_to_json(&schema.fields, style));
    }
    m.insert("schema-id".into(), schema.schema_id.into());
    m.insert(
        "identifier-field-ids".into(),
        JsonValue::Array(
            schema
                .identifier_field_ids
                .iter()
                .map(|i| (*i).into())
                .collect(),
        ),
    );
    if style.schema_fields_last {
        m.insert("fields".into(), fields_to_json(&schema.fields, style));
    }
    JsonValue::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    const PYICEBERG_SCHEMA: &str = r#"{"type":"struct","fields":[{"id":1,"name":"id","type":"long","required":true},{"id":2,"name":"points","type":{"type":"list","element-id":3,"element":{"type":"struct","fields":[{"id":4,"name":"x","type":"double","required":false,"doc":"east"}]},"element-required":true},"required":false},{"id":5,"name":"attrs","type":{"type":"map","key-id":6,"key":"string","value-id":7,"value":"decimal(9, 2)","value-required":false},"required":false}],"schema-id":3,"identifier-field-ids":[1]}"#;

    #[test]
    fn reads_a_pyiceberg_schema() {
        let node = parse(PYICEBERG_SCHEMA).unwrap();
        let schema = schema_from_json(&node, 0).unwrap();
        assert_eq!(schema.schema_id, 3);
        assert_eq!(schema.identifier_field_ids, vec![1]);
        let paths: Vec<_> = schema.walk().into_iter().map(|f| f.path).collect();
        assert_eq!(
            paths,
            [
                "id",
                "points",
                "points.element",
                "points.element.x",
                "attrs",
                "attrs.key",
                "attrs.value"
            ]
        );
        assert_eq!(
            schema.field_by_id(4).and_then(|f| f.doc),
            Some("east".into())
        );
    }

    #[test]
    fn writes_back_in_the_writers_key_order() {
        let node = parse(PYICEBERG_SCHEMA).unwrap();
        let style = detect_style(&node);
        assert_eq!(
            style,
            WriterStyle {
                field_order: FieldKeyOrder::PyIceberg,
                schema_fields_last: false
            }
        );
        let schema = schema_from_json(&node, 0).unwrap();
        let written = serde_json::to_string(&schema_to_json(&schema, style)).unwrap();
        assert_eq!(written, PYICEBERG_SCHEMA);
    }

    #[test]
    fn malformed_schemas_are_located() {
        let text =
            r#"{"type":"struct","fields":[{"id":"one","name":"x","required":true,"type":"int"}]}"#;
        let node = parse(text).unwrap();
        let err = schema_from_json(&node, 0).unwrap_err();
        assert_eq!(&text[err.span.offset..err.span.end()], "\"one\"");
        assert!(
            err.message.contains("field `id` must be an integer"),
            "{}",
            err.message
        );

        let text =
            r#"{"type":"struct","fields":[{"id":1,"name":"x","required":true,"type":"int64"}]}"#;
        let err = schema_from_json(&parse(text).unwrap(), 0).unwrap_err();
        assert_eq!(err.message, "unknown Iceberg type `int64`");

        let text = r#"{"type":"struct","fields":[{"id":1,"name":"x","required":true,"type":"geography(OGC:CRS84, planar)"}]}"#;
        let err = schema_from_json(&parse(text).unwrap(), 0).unwrap_err();
        assert_eq!(
            &text[err.span.offset..err.span.end()],
            r#""geography(OGC:CRS84, planar)""#
        );
        assert_eq!(
            err.message,
            "invalid Iceberg type `geography(OGC:CRS84, planar)`: `planar` is not an edge algorithm: the spec defines spherical, vincenty, thomas, andoyer and karney"
        );
    }
}
