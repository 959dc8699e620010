//! Structural edits: append to an array, add a key to an object, replace a value, each as one
//! [`Edit`] of the original text.
//!
//! A non-empty container already shows how its children are separated, so the separator (`,`,
//! `, `, `,\n    `, `}, {` …) and the key/value colon are copied from the existing siblings, and
//! the new value is rendered at the indentation of the line its sibling starts on. Only an empty
//! container, which shows nothing, is rewritten whole in the detected [`Style`]. Callers never
//! compute a nesting depth: Jackson indents objects but not arrays, so the right depth depends on
//! the writer, and the text already knows it.

use super::edit::Edit;
use super::node::{Node, Span};
use super::style::{Style, line_indent, write_at, write_string};

/// A structural edit asked of the wrong node.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    #[error("expected {}, found {}", a(expected), a(found))]
    WrongKind {
        expected: &'static str,
        found: &'static str,
        span: Span,
    },
    #[error("the object already has a key {key:?}")]
    KeyExists { key: String, span: Span },
}

/// Appends `value` as the last element of `array`, a node parsed from `text`.
pub fn append_element(
    text: &str,
    array: &Node<'_>,
    value: &serde_json::Value,
    style: &Style,
) -> Result<Edit, PatchError> {
    append_elements(text, array, [value.clone()], style)
}

/// Appends `values`, in order, after the last element of `array`, as one edit. The separator
/// and indentation are read from the text once: on a one-line (compact) file, finding the
/// line's indent scans back to its start, which per element would make a long migration's
/// many schemas quadratic in the file size. Each value is written and dropped in turn, so only
/// the text is ever held whole.
pub fn append_elements(
    text: &str,
    array: &Node<'_>,
    values: impl IntoIterator<Item = serde_json::Value>,
    style: &Style,
) -> Result<Edit, PatchError> {
    let items = array.as_array().ok_or_else(|| wrong_kind("array", array))?;
    let Some(last) = items.last() else {
        let whole = serde_json::Value::Array(values.into_iter().collect());
        // Nothing to copy from: write the container anew, with its children, in `style`.
        return Ok(replace_with_value(text, array, &whole, style));
    };
    let separator = match items.len() {
        1 => first_separator(text, array.span.start, last.span.start, style),
        n => gap(text, items[n - 2].span.end, last.span.start).to_owned(),
    };
    let indent = line_indent(text, last.span.start);
    let mut out = String::new();
    for value in values {
        out.push_str(&separator);
        write_at(&mut out, &value, style, indent);
    }
    Ok(Edit {
        span: Span::empty(last.span.end),
        text: out,
    })
}

/// Adds `"key": value` as the last member of `object`, a node parsed from `text`.
///
/// A key the object already has is an error: the result would not parse.
pub fn insert_member(
    text: &str,
    object: &Node<'_>,
    key: &str,
    value: &serde_json::Value,
    style: &Style,
) -> Result<Edit, PatchError> {
    let members = object
        .as_object()
        .ok_or_else(|| wrong_kind("object", object))?;
    if let Some(existing) = members.iter().find(|m| m.key == key) {
        return Err(PatchError::KeyExists {
            key: key.to_owned(),
            span: existing.key_span,
        });
    }
    let Some(last) = members.last() else {
        let mut map = serde_json::Map::new();
        map.insert(key.to_owned(), value.clone());
        return Ok(replace_with_value(
            text,
            object,
            &serde_json::Value::Object(map),
            style,
        ));
    };
    let mut out = match members.len() {
        1 => first_separator(text, object.span.start, last.key_span.start, style),
        n => gap(text, members[n - 2].value.span.end, last.key_span.start).to_owned(),
    };
    write_string(&mut out, key, style);
    out.push_str(gap(text, last.key_span.end, last.value.span.start));
    write_at(
        &mut out,
        value,
        style,
        line_indent(text, last.key_span.start),
    );
    Ok(Edit {
        span: Span::empty(last.value.span.end),
        text: out,
    })
}

/// Replaces `node` with `new_text`, taken as is.
pub fn replace_value(node: &Node<'_>, new_text: impl Into<String>) -> Edit {
    Edit {
        span: node.span,
        text: new_text.into(),
    }
}

/// Replaces `node`, parsed from `text`, with `value` rendered in `style` at the node's place.
pub fn replace_with_value(
    text: &str,
    node: &Node<'_>,
    value: &serde_json::Value,
    style: &Style,
) -> Edit {
    let mut out = String::new();
    write_at(&mut out, value, style, line_indent(text, node.span.start));
    replace_value(node, out)
}

/// `"array"` -> `"an array"`, for kind names in messages.
fn a(kind: &str) -> String {
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {kind}")
}

fn wrong_kind(expected: &'static str, node: &Node<'_>) -> PatchError {
    PatchError::WrongKind {
        expected,
        found: node.kind_name(),
        span: node.span,
    }
}

fn gap(text: &str, start: usize, end: usize) -> &str {
    text.get(start..end).unwrap_or_default()
}

/// The separator to put after the only child of a container: the whitespace that precedes that
/// child if it starts a new line (so the new child gets a line of its own, indented the same),
/// else the style's one-line comma.
fn first_separator(text: &str, open: usize, child: usize, style: &Style) -> String {
    let before = gap(text, open + 1, child);
    if before.contains('\n') {
        format!(",{before}")
    } else {
        style.inline_comma().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::json::samples::{
        COMPACT, INDENTED, JACKSON, PATCHED_COMPACT, PATCHED_INDENTED, PATCHED_JACKSON,
    };
    use crate::json::{Edits, parse, write_value};

    /// The schema change the `PATCHED_*` samples show, made with one edit per change.
    fn change_schema(text: &str) -> String {
        let root = parse(text).unwrap();
        let style = Style::detect(text, &root);
        fn get<'n, 'a>(node: &'n Node<'a>, key: &str) -> &'n Node<'a> {
            node.get(key).unwrap()
        }
        fn first<'n, 'a>(node: &'n Node<'a>) -> &'n Node<'a> {
            &node.as_array().unwrap()[0]
        }
        let schemas = get(&root, "schemas");
        let schema = first(schemas);
        let fields = get(schema, "fields");
        let spec_fields = get(first(get(&root, "partition-specs")), "fields");
        let mapping = r#"[{"field-id":1,"names":["order_id"]}]"#;

        let mut edits = Edits::new();
        let note = json!({"id": 7, "name": "note", "required": false, "type": "string"});
        edits.push(append_element(text, fields, &note, &style).unwrap());
        let doc = json!("Bestell-Nr.");
        edits.push(insert_member(text, first(fields), "doc", &doc, &style).unwrap());
        let ids = get(schema, "identifier-field-ids");
        edits.push(append_element(text, ids, &json!(2), &style).unwrap());
        let new_schema = json!({"type": "struct", "schema-id": 1, "fields": [
            {"id": 1, "name": "order_id", "required": true, "type": "long"}
        ]});
        edits.push(append_element(text, schemas, &new_schema, &style).unwrap());
        let bucket = json!({"name": "id_bucket", "transform": "bucket[16]", "source-id": 1, "field-id": 1000});
        edits.push(append_element(text, spec_fields, &bucket, &style).unwrap());
        let properties = get(&root, "properties");
        let key = "schema.name-mapping.default";
        edits.push(insert_member(text, properties, key, &json!(mapping), &style).unwrap());
        edits.push(insert_member(text, &root, "next-row-id", &json!(0), &style).unwrap());
        edits.push(replace_value(get(&root, "current-schema-id"), "1"));
        edits.push(replace_value(get(&root, "last-column-id"), "7"));
        edits.apply(text).unwrap()
    }

    /// The patched text is exactly what the writer prints, parses, keeps the style, and equals a
    /// full rewrite of the changed document in that style.
    fn check(original: &str, expected: &str) {
        let patched = change_schema(original);
        assert_eq!(patched, expected);
        let root = parse(&patched).unwrap();
        let style = Style::detect(original, &parse(original).unwrap());
        assert_eq!(Style::detect(&patched, &root), style);
        let value: serde_json::Value = serde_json::from_str(&patched).unwrap();
        assert_eq!(write_value(&value, &style, 0), patched);
    }

    #[test]
    fn patches_jackson_as_iceberg_java_writes() {
        check(JACKSON, PATCHED_JACKSON);
    }

    #[test]
    fn patches_indented_as_json_dumps_writes() {
        check(INDENTED, PATCHED_INDENTED);
    }

    #[test]
    fn patches_compact_as_pyiceberg_writes() {
        check(COMPACT, PATCHED_COMPACT);
    }

    /// Other indent units and line endings: the same patch on a re-indented sample gives the
    /// re-indented expectation.
    #[test]
    fn patches_keep_indent_unit_and_line_ending() {
        let reindent = |text: &str, unit: &str, newline: &str| {
            text.lines()
                .map(|line| {
                    let body = line.trim_start_matches(' ');
                    unit.repeat((line.len() - body.len()) / 2) + body
                })
                .collect::<Vec<_>>()
                .join(newline)
        };
        check(
            &reindent(JACKSON, "    ", "\r\n"),
            &reindent(PATCHED_JACKSON, "    ", "\r\n"),
        );
        check(
            &reindent(INDENTED, "\t", "\n"),
            &reindent(PATCHED_INDENTED, "\t", "\n"),
        );
        check(
            &reindent(INDENTED, "    ", "\r\n"),
            &reindent(PATCHED_INDENTED, "    ", "\r\n"),
        );
    }

    #[test]
    fn spaced_compact_copies_its_separators() {
        let text = r#"{"a": [1], "b": {}, "c": [], "d": {"x": 1}}"#;
        let root = parse(text).unwrap();
        let style = Style::detect(text, &root);
        let mut edits = Edits::new();
        let node = |key| root.get(key).unwrap();
        edits.push(append_element(text, node("a"), &json!(2), &style).unwrap());
        edits.push(insert_member(text, node("b"), "k", &json!([true]), &style).unwrap());
        edits.push(append_element(text, node("c"), &json!({"y": null}), &style).unwrap());
        edits.push(insert_member(text, node("d"), "z", &json!("é"), &style).unwrap());
        assert_eq!(
            edits.apply(text).unwrap(),
            r#"{"a": [1, 2], "b": {"k": [true]}, "c": [{"y": null}], "d": {"x": 1, "z": "é"}}"#
        );
    }

    #[test]
    fn several_elements_append_in_order_with_the_siblings_separator() {
        let text = "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"c\": []\n}";
        let root = parse(text).unwrap();
        let style = Style::detect(text, &root);
        let values = || [json!(3), json!({"x": 4})];
        let a = append_elements(text, root.get("a").unwrap(), values(), &style).unwrap();
        let c = append_elements(text, root.get("c").unwrap(), values(), &style).unwrap();
        assert_eq!(
            [a, c].into_iter().collect::<Edits>().apply(text).unwrap(),
            "{\n  \"a\": [\n    1,\n    2,\n    3,\n    {\n      \"x\": 4\n    }\n  ],\n  \"c\": [\n    3,\n    {\n      \"x\": 4\n    }\n  ]\n}"
        );
    }

    /// Siblings decide the separator, even where they differ from the detected style.
    #[test]
    fn irregular_siblings_are_copied() {
        let text = "{\n  \"a\" :  [ 1 ,\n         2 ],\n  \"b\":{\"x\":1,  \"y\" :2}\n}";
        let root = parse(text).unwrap();
        let style = Style::detect(text, &root);
        let a = append_element(text, root.get("a").unwrap(), &json!(3), &style).unwrap();
        let b = insert_member(text, root.get("b").unwrap(), "z", &json!(3), &style).unwrap();
        assert_eq!(
            [a, b].into_iter().collect::<Edits>().apply(text).unwrap(),
            "{\n  \"a\" :  [ 1 ,\n         2 ,\n         3 ],\n  \"b\":{\"x\":1,  \"y\" :2,  \"z\" :3}\n}"
        );
    }

    #[test]
    fn replace_with_value_renders_at_the_node() {
        let root = parse(JACKSON).unwrap();
        let style = Style::detect(JACKSON, &root);
        let refs = root.get("refs").unwrap();
        let main = json!({"main": {"snapshot-id": 1, "type": "branch"}});
        let edit = replace_with_value(JACKSON, refs, &main, &style);
        assert_eq!(
            edit.text,
            "{\n    \"main\" : {\n      \"snapshot-id\" : 1,\n      \"type\" : \"branch\"\n    }\n  }"
        );
        assert_eq!(edit.span, refs.span);
    }

    #[test]
    fn wrong_nodes_are_errors() {
        let text = r#"{"a": 1, "b": [], "c": {}}"#;
        let root = parse(text).unwrap();
        let style = Style::detect(text, &root);
        let a = root.get("a").unwrap();
        assert_eq!(
            append_element(text, a, &json!(1), &style),
            Err(PatchError::WrongKind {
                expected: "array",
                found: "number",
                span: a.span
            })
        );
        let b = root.get("b").unwrap();
        assert_eq!(
            insert_member(text, b, "k", &json!(1), &style)
                .unwrap_err()
                .to_string(),
            "expected an object, found an array"
        );
        assert_eq!(
            insert_member(text, &root, "c", &json!(1), &style),
            Err(PatchError::KeyExists {
                key: "c".into(),
                span: Span::new(18, 21)
            })
        );
    }
}
