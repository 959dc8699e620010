//! Types: a type string (`long`, `struct<a: int>`), or a `struct`, `list` or `map` mapping with
//! the ids of its elements, keys and values.

use crate::change::Span;
use crate::iceberg::types::FieldId;
use crate::yaml::{YamlEntry, YamlNode, YamlValue};

use super::Reader;
use crate::frontend::schema_file::error::{SchemaFileError, SchemaFileErrorKind as Kind};
use crate::frontend::schema_file::type_string::{Locator, TYPE_HELP, parse_type_string};
use crate::frontend::schema_file::{FileList, FileMap, FileType, node_span, span_of};

const STRUCT_KEYS: &[&str] = &["struct"];
const LIST_KEYS: &[&str] = &["list", "element-id", "element-required"];
const MAP_KEYS: &[&str] = &["map", "key-id", "value-id", "value-required"];
const TYPE_KEYS: &[&str] = &[
    "struct",
    "list",
    "element-id",
    "element-required",
    "map",
    "key-id",
    "value-id",
    "value-required",
];

impl Reader<'_> {
    pub(super) fn file_type(&mut self, node: &YamlNode) -> Option<FileType> {
        match &node.value {
            YamlValue::String(s) => {
                let locator = Locator::new(self.text, node, s);
                match parse_type_string(s, &locator) {
                    Ok(ty) => Some(ty),
                    Err(e) => {
                        self.push(e);
                        None
                    }
                }
            }
            YamlValue::Map(entries) => self.type_mapping(node, entries),
            _ => {
                let error = self
                    .wrong_kind(
                        node,
                        "a type (a name such as `long`, or a `struct`, `list` or `map` mapping)",
                    )
                    .with_help(TYPE_HELP);
                self.push(error);
                None
            }
        }
    }

    /// `{struct: [...]}`, `{list: T, ...}` or `{map: [K, V], ...}`.
    pub(super) fn type_mapping(
        &mut self,
        node: &YamlNode,
        entries: &[YamlEntry],
    ) -> Option<FileType> {
        let form = self.type_form(node, entries)?;
        match form.key.as_str() {
            "struct" => {
                self.unknown_keys(entries, STRUCT_KEYS, "a struct type");
                Some(FileType::Struct(self.fields(&form.value, "`struct`")))
            }
            "list" => {
                self.unknown_keys(entries, LIST_KEYS, "a list type");
                self.list_type(node, entries, &form.value)
            }
            _ => {
                self.unknown_keys(entries, MAP_KEYS, "a map type");
                self.map_type(node, entries, &form.value)
            }
        }
    }

    /// The one `struct`, `list` or `map` entry a type mapping has.
    fn type_form<'e>(
        &mut self,
        node: &YamlNode,
        entries: &'e [YamlEntry],
    ) -> Option<&'e YamlEntry> {
        let mut forms = entries
            .iter()
            .filter(|e| matches!(e.key.as_str(), "struct" | "list" | "map"));
        let Some(form) = forms.next() else {
            self.unknown_keys(entries, TYPE_KEYS, "a type");
            self.push(
                SchemaFileError::new(
                    Kind::MissingKey,
                    node_span(node),
                    "a type mapping needs one of `struct`, `list` or `map`",
                )
                .with_help(TYPE_HELP),
            );
            return None;
        };
        if let Some(second) = forms.next() {
            self.push(SchemaFileError::new(
                Kind::InvalidValue,
                span_of(second.key_span),
                format!(
                    "a type is one of `struct`, `list` or `map`, not both `{}` and `{}`",
                    form.key, second.key
                ),
            ));
            return None;
        }
        Some(form)
    }

    /// The id under `key` of a list or map mapping and where it is, or, when it is left out,
    /// where it would go: after the mapping's last value.
    fn nested_id(
        &mut self,
        node: &YamlNode,
        entries: &[YamlEntry],
        key: &str,
    ) -> (Option<FieldId>, Span) {
        match node.get(key).filter(|n| !n.is_null()) {
            Some(n) => (self.id(n, &format!("`{key}`")), node_span(n)),
            None => (
                None,
                Span::new(
                    entries.last().map_or(node.span.end, |e| e.value.span.end),
                    0,
                ),
            ),
        }
    }

    fn list_type(
        &mut self,
        node: &YamlNode,
        entries: &[YamlEntry],
        element_node: &YamlNode,
    ) -> Option<FileType> {
        let element = self.file_type(element_node);
        let (element_id, element_id_span) = self.nested_id(node, entries, "element-id");
        let element_required = node
            .get("element-required")
            .and_then(|n| self.bool(n, "`element-required`"));
        Some(FileType::List(Box::new(FileList {
            element_id,
            element_id_span,
            element_required: element_required.unwrap_or(false),
            element: element?,
            element_span: node_span(element_node),
        })))
    }

    fn map_type(
        &mut self,
        node: &YamlNode,
        entries: &[YamlEntry],
        types: &YamlNode,
    ) -> Option<FileType> {
        let (key_id, key_id_span) = self.nested_id(node, entries, "key-id");
        let (value_id, value_id_span) = self.nested_id(node, entries, "value-id");
        let value_required = node
            .get("value-required")
            .and_then(|n| self.bool(n, "`value-required`"));
        let [key_node, value_node] = types.as_seq().unwrap_or_default() else {
            let error = self
                .wrong_kind(types, "`map` to be `[key type, value type]`")
                .with_help("write e.g. {map: [string, long]}");
            self.push(error);
            return None;
        };
        let key = self.file_type(key_node);
        let value = self.file_type(value_node);
        Some(FileType::Map(Box::new(FileMap {
            key_id,
            key_id_span,
            value_id,
            value_id_span,
            value_required: value_required.unwrap_or(false),
            key: key?,
            key_span: node_span(key_node),
            value: value?,
            value_span: node_span(value_node),
        })))
    }
}
