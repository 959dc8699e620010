//! Locating the metadata places rules name (a field of an old schema, a partition field, a sort
//! field) in the metadata text, so reports can point at them. Rules judge the typed table and
//! never see text; the command that read the metadata calls [`locate_in_metadata`] once, before
//! reporting. It re-parses the text with the same strict parser that read it, and walks to the
//! node by the ids Iceberg gives it: a place that cannot be found stays unlocated (its message is
//! still reported) rather than pointing at a guess.

use crate::change::{Origin, Source, Span};
use crate::finding::{Finding, MetadataPlace, Related};
use crate::json::{self, Node};

/// Fills the origin of every related place of `findings` that names a node of `metadata`.
pub fn locate_in_metadata<'f>(
    findings: impl IntoIterator<Item = &'f mut Finding>,
    metadata: &Source,
) {
    let pending: Vec<&mut Related> = findings
        .into_iter()
        .flat_map(|f| f.related.iter_mut())
        .filter(|r| r.origin.is_none() && r.place.is_some())
        .collect();
    // Parsing a large table's metadata again costs as much as loading it: only when needed.
    if pending.is_empty() {
        return;
    }
    // The text parsed when the table was loaded, so this cannot fail; if it ever does, the
    // places simply stay unlocated.
    let Ok(root) = json::parse(&metadata.text) else {
        return;
    };
    for related in pending {
        let Some((around, focus)) = related.place.as_ref().and_then(|p| find(&root, p)) else {
            continue;
        };
        related.origin = Some(Origin {
            source: metadata.clone(),
            statement: span(around),
            focus: span(focus),
        });
    }
}

fn span(s: json::Span) -> Span {
    Span::from_range(s.start, s.end)
}

/// The node that holds the place, and the part of it a label should underline.
fn find(root: &Node<'_>, place: &MetadataPlace) -> Option<(json::Span, json::Span)> {
    match place {
        MetadataPlace::SchemaField {
            schema_id,
            field_id,
        } => {
            let schema = with_id(
                list_or_single(root, "schemas", "schema"),
                "schema-id",
                *schema_id,
            )?;
            field_in(schema.get("fields")?, i64::from(*field_id))
        }
        MetadataPlace::PartitionField { spec_id, name } => {
            // v1 tables may only have the bare `partition-spec` array, which is spec 0.
            let fields = match with_id(list(root, "partition-specs"), "spec-id", *spec_id) {
                Some(spec) => spec.get("fields")?,
                None if *spec_id == 0 && root.get("partition-specs").is_none() => {
                    root.get("partition-spec")?
                }
                None => return None,
            };
            let field = fields
                .as_array()?
                .iter()
                .find(|f| f.get("name").and_then(Node::as_str) == Some(name.as_str()))?;
            Some((field.span, field.get("name").map_or(field.span, |n| n.span)))
        }
        MetadataPlace::SortField {
            order_id,
            source_id,
        } => {
            let order = with_id(list(root, "sort-orders"), "order-id", *order_id)?;
            let source = i64::from(*source_id);
            let field = order.get("fields")?.as_array()?.iter().find(|f| {
                f.get("source-id").and_then(Node::as_i64) == Some(source)
                    || f.get("source-ids")
                        .and_then(Node::as_array)
                        .is_some_and(|ids| ids.iter().any(|i| i.as_i64() == Some(source)))
            })?;
            Some((field.span, field.span))
        }
    }
}

fn list<'n, 'a>(root: &'n Node<'a>, key: &str) -> Vec<&'n Node<'a>> {
    root.get(key)
        .and_then(Node::as_array)
        .map(|items| items.iter().collect())
        .unwrap_or_default()
}

/// `schemas`, or v1's single `schema` when there is no list.
fn list_or_single<'n, 'a>(root: &'n Node<'a>, key: &str, single: &str) -> Vec<&'n Node<'a>> {
    match root.get(key) {
        Some(_) => list(root, key),
        None => root.get(single).into_iter().collect(),
    }
}

/// The object whose `key` is `id`; an object without the key counts as id 0, as the model reads
/// a v1 schema or spec.
fn with_id<'n, 'a>(items: Vec<&'n Node<'a>>, key: &str, id: i32) -> Option<&'n Node<'a>> {
    items
        .into_iter()
        .find(|item| item.get(key).map_or(Some(0), Node::as_i64) == Some(i64::from(id)))
}

/// The struct field, list element, map key or map value with `id` under a `fields` array.
fn field_in(fields: &Node<'_>, id: i64) -> Option<(json::Span, json::Span)> {
    for field in fields.as_array()? {
        if field.get("id").and_then(Node::as_i64) == Some(id) {
            return Some((field.span, field.get("name").map_or(field.span, |n| n.span)));
        }
        if let Some(found) = field.get("type").and_then(|t| in_type(t, id)) {
            return Some(found);
        }
    }
    None
}

fn in_type(node: &Node<'_>, id: i64) -> Option<(json::Span, json::Span)> {
    // Primitive types are strings; only structs, lists and maps hold ids.
    node.as_object()?;
    if let Some(fields) = node.get("fields") {
        return field_in(fields, id);
    }
    for (id_key, type_key) in [
        ("element-id", "element"),
        ("key-id", "key"),
        ("value-id", "value"),
    ] {
        if let Some(id_node) = node.get(id_key).filter(|n| n.as_i64() == Some(id)) {
            return Some((node.span, id_node.span));
        }
        if let Some(found) = node.get(type_key).and_then(|t| in_type(t, id)) {
            return Some(found);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::change::SourceFile;
    use crate::finding::{Related, Severity};

    const METADATA: &str = r#"{"format-version":2,"table-uuid":"00000000-0000-4000-8000-000000000000","last-sequence-number":0,"default-spec-id":0,"last-partition-id":1000,"default-sort-order-id":1,
"schemas":[{"schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":true},{"id":2,"name":"status","type":"string","required":false}]},
{"schema-id":1,"fields":[{"id":1,"name":"id","type":"long","required":true},{"id":3,"name":"tags","required":false,"type":{"type":"list","element-id":4,"element":{"type":"struct","fields":[{"id":5,"name":"label","type":"string","required":false}]},"element-required":false}}]}],
"partition-specs":[{"spec-id":0,"fields":[{"source-id":2,"field-id":1000,"name":"status","transform":"identity"}]}],
"sort-orders":[{"order-id":1,"fields":[{"source-id":1,"transform":"identity","direction":"asc","null-order":"nulls-first"}]}]}"#;

    fn located(place: MetadataPlace) -> Option<String> {
        let source = Arc::new(SourceFile {
            name: "t.metadata.json".into(),
            text: METADATA.into(),
        });
        let mut finding = Finding {
            rule: "name-reuse",
            severity: Severity::Error,
            message: String::new(),
            table: "t".into(),
            field: None,
            field_id: None,
            origin: None,
            help: None,
            related: vec![Related::in_metadata(place, "here")],
        };
        locate_in_metadata([&mut finding], &source);
        let origin = finding.related[0].origin.clone()?;
        Some(METADATA[origin.focus.offset..origin.focus.end()].to_string())
    }

    #[test]
    fn fields_are_found_by_schema_and_id_at_any_depth() {
        let field = |schema_id, field_id| MetadataPlace::SchemaField {
            schema_id,
            field_id,
        };
        assert_eq!(located(field(0, 2)).as_deref(), Some(r#""status""#));
        assert_eq!(located(field(1, 5)).as_deref(), Some(r#""label""#));
        assert_eq!(located(field(1, 4)).as_deref(), Some("4"));
        assert_eq!(located(field(1, 2)), None, "schema 1 has no field 2");
        assert_eq!(located(field(7, 1)), None, "there is no schema 7");
    }

    #[test]
    fn partition_and_sort_fields_are_found_by_their_spec_and_order() {
        let partition = located(MetadataPlace::PartitionField {
            spec_id: 0,
            name: "status".into(),
        });
        assert_eq!(partition.as_deref(), Some(r#""status""#));
        let sort = located(MetadataPlace::SortField {
            order_id: 1,
            source_id: 1,
        });
        assert!(sort.is_some_and(|s| s.starts_with(r#"{"source-id":1"#)));
    }
}
