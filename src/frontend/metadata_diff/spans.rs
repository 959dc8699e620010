//! Where the parts of the proposed file are: each schema's id and identifier list, each member
//! (field, list element, map key or value) and its name, type, required flag and doc, and each
//! table property, so every change points at its own place in the file.

use std::collections::HashMap;

use crate::change::Span;
use crate::iceberg::types::FieldId;
use crate::json::{self, Node};

pub(super) fn span(s: json::Span) -> Span {
    Span::from_range(s.start, s.end)
}

/// Where one schema's parts are in the proposed file.
pub(super) struct SchemaSpans {
    /// The `schema-id` value (the schema object's start when it has none, as v1's `schema`).
    pub schema_id: Span,
    pub identifiers: Option<Span>,
    pub members: HashMap<FieldId, MemberSpans>,
}

/// Where one field (or list element, map key or value) is: the object that holds it, and its
/// parts when it has them.
#[derive(Debug, Clone, Copy)]
pub(super) struct MemberSpans {
    pub entry: Span,
    pub name: Option<Span>,
    pub field_type: Option<Span>,
    pub required: Option<Span>,
    pub doc: Option<Span>,
}

pub(super) fn document_spans(root: &Node<'_>) -> HashMap<i32, SchemaSpans> {
    let mut out = HashMap::new();
    let schemas: Vec<&Node<'_>> = match root.get("schemas").and_then(Node::as_array) {
        Some(list) => list.iter().collect(),
        None => root.get("schema").into_iter().collect(),
    };
    for schema in schemas {
        let id_node = schema.get("schema-id");
        let schema_id = id_node
            .and_then(Node::as_i64)
            .and_then(|id| i32::try_from(id).ok())
            .unwrap_or(0);
        let mut members = HashMap::new();
        if let Some(fields) = schema.get("fields") {
            struct_spans(fields, &mut members);
        }
        out.insert(
            schema_id,
            SchemaSpans {
                schema_id: id_node.map_or(Span::new(schema.span.start, 1), |n| span(n.span)),
                identifiers: schema.get("identifier-field-ids").map(|n| span(n.span)),
                members,
            },
        );
    }
    out
}

fn struct_spans(fields: &Node<'_>, out: &mut HashMap<FieldId, MemberSpans>) {
    for field in fields.as_array().unwrap_or_default() {
        let Some(id) = member_id(field.get("id")) else {
            continue;
        };
        out.insert(
            id,
            MemberSpans {
                entry: span(field.span),
                name: field.get("name").map(|n| span(n.span)),
                field_type: field.get("type").map(|n| span(n.span)),
                required: field.get("required").map(|n| span(n.span)),
                doc: field.get("doc").map(|n| span(n.span)),
            },
        );
        if let Some(ty) = field.get("type") {
            type_spans(ty, out);
        }
    }
}

fn type_spans(ty: &Node<'_>, out: &mut HashMap<FieldId, MemberSpans>) {
    match ty.get("type").and_then(Node::as_str) {
        Some("struct") => {
            if let Some(fields) = ty.get("fields") {
                struct_spans(fields, out);
            }
        }
        Some("list") => member_spans(ty, "element-id", "element", "element-required", out),
        Some("map") => {
            member_spans(ty, "key-id", "key", "", out);
            member_spans(ty, "value-id", "value", "value-required", out);
        }
        _ => {}
    }
}

fn member_spans(
    ty: &Node<'_>,
    id_key: &str,
    type_key: &str,
    required_key: &str,
    out: &mut HashMap<FieldId, MemberSpans>,
) {
    let Some(id) = member_id(ty.get(id_key)) else {
        return;
    };
    let member_type = ty.get(type_key);
    out.insert(
        id,
        MemberSpans {
            entry: span(ty.span),
            name: ty.get(id_key).map(|n| span(n.span)),
            field_type: member_type.map(|n| span(n.span)),
            required: ty.get(required_key).map(|n| span(n.span)),
            doc: None,
        },
    );
    if let Some(member_type) = member_type {
        type_spans(member_type, out);
    }
}

fn member_id(node: Option<&Node<'_>>) -> Option<FieldId> {
    node.and_then(Node::as_i64)
        .and_then(|id| FieldId::try_from(id).ok())
}

/// Where the proposed file's `properties` are: the object's key, and each property from its key
/// to the end of its value.
#[derive(Default)]
pub(super) struct PropertySpans {
    pub object: Option<Span>,
    pub members: HashMap<String, Span>,
}

pub(super) fn property_spans(root: &Node<'_>) -> PropertySpans {
    let members = root.as_object().unwrap_or_default();
    let Some(properties) = members.iter().find(|m| m.key == "properties") else {
        return PropertySpans::default();
    };
    PropertySpans {
        object: Some(span(properties.key_span)),
        members: properties
            .value
            .as_object()
            .unwrap_or_default()
            .iter()
            .map(|m| {
                let at = Span::from_range(m.key_span.start, m.value.span.end);
                (m.key.to_string(), at)
            })
            .collect(),
    }
}

/// Each top-level key of the file, with its value's place.
pub(super) fn top_level_spans(root: &Node<'_>) -> HashMap<String, Span> {
    root.as_object()
        .unwrap_or_default()
        .iter()
        .map(|m| (m.key.to_string(), span(m.value.span)))
        .collect()
}
