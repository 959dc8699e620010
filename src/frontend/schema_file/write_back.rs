//! Writing the ids `apply` assigned back into the schema file, like a lock file, without
//! re-serialising it: each missing id becomes one insertion at a known position, so comments,
//! key order, quoting, blank lines and line endings stay byte for byte everywhere else.
//!
//! The file is parsed again into its spanned tree and walked next to the schema the table has
//! after `apply` (the file's names are that schema's names, so paths pair them). For each field
//! without `id` the id goes first in its mapping (`{id: 25, name: ...}`, or `id: 25` on a line
//! of its own in a block mapping, at the same indentation); a list's `element-id` and a map's
//! `key-id` / `value-id` go last in their type mapping, as the design writes them. A nested type
//! written as a type string (`array<struct<x: double>>`) has no place for ids: that one value is
//! replaced by the same type in the mapping form, with its ids, on one line. An `id` that is
//! already written is never touched.

use std::collections::HashMap;

use crate::iceberg::schema::{FieldInfo, Schema};
use crate::iceberg::types::{FieldId, Type};
use crate::json::{EditError, Edits};
use crate::yaml::{YamlNode, YamlValue, flow_scalar};

use super::{Format, tree};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteBackError {
    /// The file no longer parses (it changed since it was read).
    #[error("the schema file no longer parses: {0}")]
    Syntax(String),
    /// A field of the file that the table's schema does not have: the file is not the one the
    /// schema was made from.
    #[error("`{0}` is in the schema file but not in the table's new schema")]
    NotInSchema(String),
    #[error("cannot edit the schema file: {0}")]
    Edit(#[from] EditError),
}

/// `text` with every id that `schema` knows and the file leaves out written in.
pub fn fill_ids(text: &str, format: Format, schema: &Schema) -> Result<String, WriteBackError> {
    let root = match format {
        Format::Yaml => crate::yaml::parse(text)
            .map(|root| tree::rejoin_split_scalars(root, text))
            .map_err(|e| WriteBackError::Syntax(e.to_string()))?,
        Format::Json => crate::json::parse(text)
            .map(|root| tree::from_json(&root))
            .map_err(|e| WriteBackError::Syntax(e.to_string()))?,
    };
    let mut writer = Writer {
        text,
        json: format == Format::Json,
        newline: if text.contains("\r\n") { "\r\n" } else { "\n" },
        index: schema
            .walk()
            .into_iter()
            .map(|f| (f.path.clone(), f))
            .collect(),
        edits: Edits::new(),
    };
    if let Some(fields) = root.get("fields") {
        writer.fields(fields, "")?;
    }
    Ok(writer.edits.apply(text)?)
}

struct Writer<'t> {
    text: &'t str,
    json: bool,
    newline: &'static str,
    index: HashMap<String, FieldInfo>,
    edits: Edits,
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

impl Writer<'_> {
    fn fields(&mut self, node: &YamlNode, prefix: &str) -> Result<(), WriteBackError> {
        for item in node.as_seq().unwrap_or_default() {
            self.field(item, prefix)?;
        }
        Ok(())
    }

    fn field(&mut self, node: &YamlNode, prefix: &str) -> Result<(), WriteBackError> {
        let Some(name) = node.get("name").and_then(YamlNode::as_str) else {
            return Ok(());
        };
        let path = join(prefix, name);
        let Some(info) = self.index.get(&path).cloned() else {
            return Err(WriteBackError::NotInSchema(path));
        };
        self.ensure_id(node, "id", info.id, Place::First);
        if let Some(ty) = node.get("type") {
            self.type_node(ty, &path, &info.field_type)?;
        }
        Ok(())
    }

    fn type_node(&mut self, node: &YamlNode, path: &str, ty: &Type) -> Result<(), WriteBackError> {
        match (&node.value, ty) {
            (_, Type::Primitive(_)) => {}
            (YamlValue::String(_), nested) => {
                let rendered = self.render_type(nested);
                self.edits.replace(node.span, rendered);
            }
            (YamlValue::Map(_), Type::Struct(_)) => {
                if let Some(fields) = node.get("struct") {
                    self.fields(fields, path)?;
                }
            }
            (YamlValue::Map(_), Type::List(list)) => {
                self.ensure_id(node, "element-id", list.element_id, Place::Last);
                if let Some(element) = node.get("list") {
                    self.type_node(element, &join(path, "element"), &list.element)?;
                }
            }
            (YamlValue::Map(_), Type::Map(map)) => {
                self.ensure_id(node, "key-id", map.key_id, Place::Last);
                self.ensure_id(node, "value-id", map.value_id, Place::Last);
                if let Some([key, value]) = node.get("map").and_then(YamlNode::as_seq) {
                    self.type_node(key, &join(path, "key"), &map.key)?;
                    self.type_node(value, &join(path, "value"), &map.value)?;
                }
            }
            _ => return Err(WriteBackError::NotInSchema(path.to_string())),
        }
        Ok(())
    }

    fn key(&self, key: &str) -> String {
        if self.json {
            format!("\"{key}\"")
        } else {
            key.to_string()
        }
    }

    fn scalar(&self, text: &str) -> String {
        if self.json {
            serde_json::Value::String(text.to_string()).to_string()
        } else {
            flow_scalar(text)
        }
    }

    /// `key: id` in `mapping`, unless it has a value there already.
    fn ensure_id(&mut self, mapping: &YamlNode, key: &str, id: FieldId, place: Place) {
        match mapping.get(key) {
            Some(value) if !value.is_null() => {}
            // `id:` with nothing after it: an empty span right after the colon.
            Some(value) if value.span.is_empty() => {
                self.edits.insert(value.span.start, format!(" {id}"));
            }
            Some(value) => self.edits.replace(value.span, id.to_string()),
            None => self.insert_entry(mapping, &format!("{}: {id}", self.key(key)), place),
        }
    }

    /// Inserts `entry` (`key: value`) as the first or last entry of a mapping, in its style.
    fn insert_entry(&mut self, mapping: &YamlNode, entry: &str, place: Place) {
        let Some(entries) = mapping.as_map() else {
            return;
        };
        let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
            return;
        };
        let text = self.text;
        let nl = self.newline;
        let flow = text.as_bytes().get(mapping.span.start) == Some(&b'{');
        match (place, flow) {
            (Place::First, true) => {
                let at = first.key_span.start;
                let between = text.get(mapping.span.start + 1..at).unwrap_or_default();
                let insertion = if between.contains('\n') {
                    format!("{entry},{nl}{}", line_indent(text, at))
                } else {
                    format!("{entry}, ")
                };
                self.edits.insert(at, insertion);
            }
            (Place::First, false) => {
                let at = first.key_span.start;
                let indent = " ".repeat(column(text, at));
                self.edits.insert(at, format!("{entry}{nl}{indent}"));
            }
            (Place::Last, true) => {
                let at = last.value.span.end;
                let before_last = text.get(mapping.span.start..last.key_span.start);
                let insertion = if before_last.is_some_and(|t| t.contains('\n')) {
                    format!(",{nl}{}{entry}", line_indent(text, last.key_span.start))
                } else {
                    format!(", {entry}")
                };
                self.edits.insert(at, insertion);
            }
            (Place::Last, false) => {
                // After the last value's line, so a comment at its end stays on that line.
                let end = last.value.span.end;
                let at = text
                    .get(end..)
                    .and_then(|rest| rest.find('\n'))
                    .map_or(text.len(), |i| end + i);
                let at = if at > 0 && text.as_bytes().get(at - 1) == Some(&b'\r') {
                    at - 1
                } else {
                    at
                };
                let indent = " ".repeat(column(text, first.key_span.start));
                self.edits.insert(at, format!("{nl}{indent}{entry}"));
            }
        }
    }

    /// A nested type in the mapping form, with its ids, as one flow value.
    fn render_type(&self, ty: &Type) -> String {
        match ty {
            Type::Primitive(p) => self.scalar(&p.to_string()),
            Type::Struct(s) => {
                let fields: Vec<String> = s
                    .fields
                    .iter()
                    .map(|f| {
                        let mut parts = vec![
                            format!("{}: {}", self.key("id"), f.id),
                            format!("{}: {}", self.key("name"), self.scalar(&f.name)),
                            format!("{}: {}", self.key("type"), self.render_type(&f.field_type)),
                        ];
                        if f.required {
                            parts.push(format!("{}: true", self.key("required")));
                        }
                        if let Some(doc) = &f.doc {
                            parts.push(format!("{}: {}", self.key("doc"), self.scalar(doc)));
                        }
                        format!("{{{}}}", parts.join(", "))
                    })
                    .collect();
                format!("{{{}: [{}]}}", self.key("struct"), fields.join(", "))
            }
            Type::List(l) => {
                let mut parts = vec![
                    format!("{}: {}", self.key("list"), self.render_type(&l.element)),
                    format!("{}: {}", self.key("element-id"), l.element_id),
                ];
                if l.element_required {
                    parts.push(format!("{}: true", self.key("element-required")));
                }
                format!("{{{}}}", parts.join(", "))
            }
            Type::Map(m) => {
                let mut parts = vec![
                    format!(
                        "{}: [{}, {}]",
                        self.key("map"),
                        self.render_type(&m.key),
                        self.render_type(&m.value)
                    ),
                    format!("{}: {}", self.key("key-id"), m.key_id),
                    format!("{}: {}", self.key("value-id"), m.value_id),
                ];
                if m.value_required {
                    parts.push(format!("{}: true", self.key("value-required")));
                }
                format!("{{{}}}", parts.join(", "))
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    First,
    Last,
}

fn line_start(text: &str, at: usize) -> usize {
    text.get(..at)
        .and_then(|before| before.rfind('\n'))
        .map_or(0, |i| i + 1)
}

/// The whitespace that starts the line `at` is on.
fn line_indent(text: &str, at: usize) -> &str {
    let start = line_start(text, at);
    let line = text.get(start..at).unwrap_or_default();
    &line[..line.len() - line.trim_start().len()]
}

/// The column of `at` in characters: the indentation a block entry at `at` has (a `- ` before
/// the first entry of a sequence item counts as indentation).
fn column(text: &str, at: usize) -> usize {
    let start = line_start(text, at);
    text.get(start..at).map_or(0, |s| s.chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::schema_file::SchemaFile;
    use crate::iceberg::schema::Field;
    use crate::iceberg::types::{ListType, MapType, PrimitiveType as P, StructType};

    fn prim(p: P) -> Type {
        Type::Primitive(p)
    }

    /// The table after apply: what the files below describe, with every id.
    fn schema() -> Schema {
        let mut label = Field::new(
            26,
            "label",
            false,
            Type::Struct(StructType {
                fields: vec![
                    Field::new(27, "text", true, prim(P::String)),
                    Field::new(28, "lang", false, prim(P::String)),
                ],
            }),
        );
        label.doc = Some("a, \"quoted\" doc".into());
        Schema {
            schema_id: 1,
            identifier_field_ids: vec![1],
            fields: vec![
                Field::new(1, "id", true, prim(P::Long)),
                Field::new(25, "vip_level", false, prim(P::Int)),
                Field::new(
                    16,
                    "points",
                    false,
                    Type::List(ListType {
                        element_id: 17,
                        element_required: false,
                        element: Box::new(Type::Struct(StructType {
                            fields: vec![Field::new(18, "x", false, prim(P::Double)), label],
                        })),
                    }),
                ),
                Field::new(
                    20,
                    "attrs",
                    false,
                    Type::Map(MapType {
                        key_id: 21,
                        key: Box::new(prim(P::String)),
                        value_id: 22,
                        value_required: false,
                        value: Box::new(Type::List(ListType {
                            element_id: 29,
                            element_required: false,
                            element: Box::new(prim(P::Decimal {
                                precision: 10,
                                scale: 2,
                            })),
                        })),
                    }),
                ),
                Field::new(30, "note", false, prim(P::String)),
            ],
        }
    }

    /// Every edit of a write-back is an insertion, except a nested type string replaced by its
    /// mapping form: removing `inserted` from the output gives the input back, byte for byte.
    fn only_inserted(before: &str, after: &str, inserted: &[&str]) {
        let mut rest = after.to_string();
        for piece in inserted {
            let at = rest
                .find(piece)
                .unwrap_or_else(|| panic!("{piece:?} not in\n{after}"));
            rest.replace_range(at..at + piece.len(), "");
        }
        assert_eq!(rest, before);
    }

    const YAML: &str = "# Users, kept by the data team.\ntable: db.users   # the table\nfields:\n  - {id: 1, name: id, type: long, required: true}\n  # the new level\n  - {name: vip_level, type: int}    # no id yet\n  - id: 16\n    name: points\n    type:\n      list:\n        struct:\n          - {id: 18, name: x, type: double}\n          - name: label    # new\n            type: 'struct<text: string not null, lang: string>'\n            doc: 'a, \"quoted\" doc'\n      element-required: false   # engines make optional elements\n  - name: attrs\n    type: {map: [string, {list: \"decimal(10,2)\"}]}\n  - name: note\n    id:\n    type: string\n";

    #[test]
    fn yaml_ids_go_where_they_belong_and_nothing_else_moves() {
        let out = fill_ids(YAML, Format::Yaml, &schema()).unwrap();
        let expected = "# Users, kept by the data team.\ntable: db.users   # the table\nfields:\n  - {id: 1, name: id, type: long, required: true}\n  # the new level\n  - {id: 25, name: vip_level, type: int}    # no id yet\n  - id: 16\n    name: points\n    type:\n      list:\n        struct:\n          - {id: 18, name: x, type: double}\n          - id: 26\n            name: label    # new\n            type: {struct: [{id: 27, name: text, type: string, required: true}, {id: 28, name: lang, type: string}]}\n            doc: 'a, \"quoted\" doc'\n      element-required: false   # engines make optional elements\n      element-id: 17\n  - id: 20\n    name: attrs\n    type: {map: [string, {list: \"decimal(10,2)\", element-id: 29}], key-id: 21, value-id: 22}\n  - name: note\n    id: 30\n    type: string\n";
        assert_eq!(out, expected);
        only_inserted(
            &YAML.replace("'struct<text: string not null, lang: string>'", ""),
            &out,
            &[
                "id: 25, ",
                "id: 26\n            ",
                "{struct: [{id: 27, name: text, type: string, required: true}, {id: 28, name: lang, type: string}]}",
                "\n      element-id: 17",
                "id: 20\n    ",
                ", element-id: 29",
                ", key-id: 21, value-id: 22",
                " 30",
            ],
        );
        // Written back, the file reads as the table: every id there, nothing left to add.
        let file = SchemaFile::parse_yaml(&out).unwrap();
        let described = file.to_table_metadata().unwrap();
        assert_eq!(described.metadata.current_schema().fields, schema().fields);
        // A second write-back has nothing to do.
        assert_eq!(fill_ids(&out, Format::Yaml, &schema()).unwrap(), out);
    }

    #[test]
    fn crlf_files_keep_their_line_endings() {
        let crlf = YAML.replace('\n', "\r\n");
        let out = fill_ids(&crlf, Format::Yaml, &schema()).unwrap();
        let expected = fill_ids(YAML, Format::Yaml, &schema())
            .unwrap()
            .replace('\n', "\r\n");
        assert_eq!(out, expected);
    }

    #[test]
    fn json_files_get_json_in_their_layout() {
        let pretty = r#"{
  "table": "db.users",
  "fields": [
    {"id": 1, "name": "id", "type": "long", "required": true},
    {
      "name": "vip_level",
      "type": "int"
    },
    {"id": 16, "name": "points", "type": {
      "list": {"struct": [
        {"id": 18, "name": "x", "type": "double"},
        {"name": "label", "type": "struct<text: string not null, lang: string>", "doc": "a, \"quoted\" doc"}
      ]}
    }},
    {"name": "attrs", "type": {"map": ["string", {"list": "decimal(10,2)"}]}},
    {"name": "note", "type": "string", "id": null}
  ]
}
"#;
        let out = fill_ids(pretty, Format::Json, &schema()).unwrap();
        let expected = r#"{
  "table": "db.users",
  "fields": [
    {"id": 1, "name": "id", "type": "long", "required": true},
    {
      "id": 25,
      "name": "vip_level",
      "type": "int"
    },
    {"id": 16, "name": "points", "type": {
      "list": {"struct": [
        {"id": 18, "name": "x", "type": "double"},
        {"id": 26, "name": "label", "type": {"struct": [{"id": 27, "name": "text", "type": "string", "required": true}, {"id": 28, "name": "lang", "type": "string"}]}, "doc": "a, \"quoted\" doc"}
      ]},
      "element-id": 17
    }},
    {"id": 20, "name": "attrs", "type": {"map": ["string", {"list": "decimal(10,2)", "element-id": 29}], "key-id": 21, "value-id": 22}},
    {"name": "note", "type": "string", "id": 30}
  ]
}
"#;
        assert_eq!(out, expected);
        let file = SchemaFile::parse_json(&out).unwrap();
        assert_eq!(
            file.to_table_metadata()
                .unwrap()
                .metadata
                .current_schema()
                .fields,
            schema().fields
        );
    }

    #[test]
    fn a_field_the_schema_does_not_have_is_an_error_not_a_guess() {
        let text = "table: t\nfields:\n  - {name: other, type: int}\n";
        assert_eq!(
            fill_ids(text, Format::Yaml, &schema()),
            Err(WriteBackError::NotInSchema("other".into()))
        );
    }
}
