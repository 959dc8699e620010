//! Fields: a mapping with `name`, `type`, and optionally `id`, `required` and `doc`.

use crate::change::Span;
use crate::iceberg::types::PrimitiveType;
use crate::yaml::YamlNode;

use super::Reader;
use crate::frontend::schema_file::error::{SchemaFileError, SchemaFileErrorKind as Kind};
use crate::frontend::schema_file::{FileField, FileType, node_span};

const FIELD_KEYS: &[&str] = &["id", "name", "type", "required", "doc"];

impl Reader<'_> {
    pub(super) fn fields(&mut self, node: &YamlNode, what: &str) -> Vec<FileField> {
        self.seq(node, what)
            .iter()
            .filter_map(|item| self.field(item))
            .collect()
    }

    pub(super) fn field(&mut self, node: &YamlNode) -> Option<FileField> {
        let Some(entries) = node.as_map() else {
            let mut error = self.wrong_kind(node, "a field (a mapping with `name` and `type`)");
            if let Some(s) = node.as_str() {
                error = error.with_help(format!("write the field as {{name: {s}, type: string}}"));
            }
            self.push(error);
            return None;
        };
        self.unknown_keys(entries, FIELD_KEYS, "a field");
        let name_node = node.get("name");
        let name = self.field_name(node, name_node);
        let type_node = node.get("type");
        let field_type = match type_node {
            Some(t) => self.file_type(t),
            None => {
                self.missing(node_span(node), "type", "this field");
                None
            }
        };
        let id_node = node.get("id");
        let id = id_node.and_then(|n| self.id(n, "`id`"));
        let required_node = node.get("required");
        let required = required_node.and_then(|n| self.bool(n, "`required`"));
        let doc_node = node.get("doc").filter(|n| !n.is_null());
        let doc = doc_node.and_then(|n| self.string(n, "`doc`"));

        let first_key = entries
            .first()
            .map_or(node.span.start, |e| e.key_span.start);
        Some(FileField {
            id,
            name: name?,
            // A field whose type could not be read still takes part in the cross-checks; the
            // error is recorded, so this placeholder never leaves the reader.
            field_type: field_type.unwrap_or(FileType::Primitive(PrimitiveType::Unknown)),
            required: required.unwrap_or(false),
            doc,
            span: node_span(node),
            name_span: name_node.map(node_span).unwrap_or_default(),
            type_span: type_node.map_or_else(|| node_span(node), node_span),
            id_span: match id_node.filter(|n| !n.is_null()) {
                Some(n) => node_span(n),
                None => Span::new(first_key, 0),
            },
            required_span: required_node.map(node_span),
            doc_span: doc_node.map(node_span),
            in_type_string: false,
        })
    }

    /// A field's `name`, a string; an empty one is reported and still returned.
    fn field_name(&mut self, node: &YamlNode, name_node: Option<&YamlNode>) -> Option<String> {
        let name = match name_node {
            Some(n) => self.string(n, "a field's `name`"),
            None => {
                self.missing(node_span(node), "name", "this field");
                None
            }
        };
        if let (Some(n), Some("")) = (name_node, name.as_deref()) {
            self.push(SchemaFileError::new(
                Kind::InvalidValue,
                node_span(n),
                "a field name cannot be empty",
            ));
        }
        name
    }
}
