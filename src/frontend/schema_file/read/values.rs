//! The values of any key: strings, booleans, field ids and sequences, each checked and located;
//! unknown and missing keys, and values of the wrong kind.

use crate::change::Span;
use crate::iceberg::types::{FieldId, MAX_USER_FIELD_ID};
use crate::yaml::{YamlEntry, YamlNode, YamlValue};

use super::Reader;
use crate::frontend::schema_file::error::{SchemaFileError, SchemaFileErrorKind as Kind};
use crate::frontend::schema_file::{node_span, span_of};
use crate::suggest::closest_key;

/// "a string", "an integer".
fn a(kind: &str) -> String {
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {kind}")
}

pub(super) fn quote_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Reader<'_> {
    pub(super) fn push(&mut self, error: SchemaFileError) {
        self.errors.push(error);
    }

    /// What a node is, for "found ..." in messages: an empty value reads as "nothing".
    pub(super) fn found(&self, node: &YamlNode) -> String {
        if node.is_null() && node.span.is_empty() {
            "nothing".to_owned()
        } else {
            a(node.kind_name())
        }
    }

    pub(super) fn wrong_kind(&mut self, node: &YamlNode, expected: &str) -> SchemaFileError {
        SchemaFileError::new(
            Kind::WrongKind,
            node_span(node),
            format!("expected {expected}, found {}", self.found(node)),
        )
    }

    pub(super) fn unknown_keys(&mut self, entries: &[YamlEntry], allowed: &[&str], what: &str) {
        for entry in entries {
            if allowed.contains(&entry.key.as_str()) {
                continue;
            }
            let help = match closest_key(&entry.key, allowed.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("{what} has the keys {}", quote_list(allowed)),
            };
            self.push(
                SchemaFileError::new(
                    Kind::UnknownKey,
                    span_of(entry.key_span),
                    format!("unknown key `{}` in {what}", entry.key),
                )
                .with_help(help),
            );
        }
    }

    pub(super) fn missing(&mut self, span: Span, key: &str, what: &str) {
        self.push(SchemaFileError::new(
            Kind::MissingKey,
            span,
            format!("{what} has no `{key}`"),
        ));
    }

    /// A string value; another scalar gets the hint to quote it.
    pub(super) fn string(&mut self, node: &YamlNode, what: &str) -> Option<String> {
        if let Some(s) = node.as_str() {
            return Some(s.to_owned());
        }
        let mut error = self.wrong_kind(node, &format!("{what} to be a string"));
        if matches!(
            node.value,
            YamlValue::Int(_) | YamlValue::Float(_) | YamlValue::Bool(_)
        ) || (node.is_null() && !node.span.is_empty())
        {
            let raw = self.text.get(node.span.range()).unwrap_or_default();
            error = error.with_help(format!("quote it to make it a string: \"{raw}\""));
        }
        self.push(error);
        None
    }

    pub(super) fn bool(&mut self, node: &YamlNode, what: &str) -> Option<bool> {
        if let Some(b) = node.as_bool() {
            return Some(b);
        }
        let error = self.wrong_kind(node, &format!("{what} to be `true` or `false`"));
        self.push(error);
        None
    }

    /// A field id: an integer from 1 to [`MAX_USER_FIELD_ID`]. An empty value (`id:`) is no id.
    pub(super) fn id(&mut self, node: &YamlNode, what: &str) -> Option<FieldId> {
        if node.is_null() {
            return None;
        }
        let Some(raw) = (match &node.value {
            YamlValue::Int(raw) => Some(raw),
            _ => None,
        }) else {
            let mut error = self.wrong_kind(node, &format!("{what} to be an integer"));
            if node
                .as_str()
                .is_some_and(|s| s.trim().parse::<i64>().is_ok())
            {
                error = error.with_help("write the id without quotes");
            }
            self.push(error);
            return None;
        };
        match node.as_i64().and_then(|id| FieldId::try_from(id).ok()) {
            Some(id) if (1..=MAX_USER_FIELD_ID).contains(&id) => Some(id),
            _ => {
                self.push(SchemaFileError::new(
                    Kind::InvalidValue,
                    node_span(node),
                    format!("field id {raw} is out of range: ids are 1 to {MAX_USER_FIELD_ID}"),
                ));
                None
            }
        }
    }

    /// A sequence (an empty value counts as an empty one).
    pub(super) fn seq<'n>(&mut self, node: &'n YamlNode, what: &str) -> &'n [YamlNode] {
        match &node.value {
            YamlValue::Seq(items) => items,
            YamlValue::Null => &[],
            _ => {
                let error = self.wrong_kind(node, &format!("{what} to be a sequence"));
                self.push(error);
                &[]
            }
        }
    }

    /// A sequence of strings, each read by `read`.
    pub(super) fn strings<T>(
        &mut self,
        node: &YamlNode,
        what: &str,
        read: impl Fn(&mut Self, &YamlNode, &str) -> Option<T>,
    ) -> Vec<T> {
        let mut out = Vec::new();
        for item in self.seq(node, what) {
            let item_what = format!("an item of {what}");
            if let Some(s) = self.string(item, &item_what)
                && let Some(value) = read(self, item, &s)
            {
                out.push(value);
            }
        }
        out
    }
}
