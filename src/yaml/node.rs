//! The parsed tree: every value knows its byte span in the original text.
//!
//! Unlike [`crate::json::Node`] the tree owns its strings: YAML folds and unescapes most scalars,
//! so few could borrow, and an owned tree is simpler to hand around. Numbers keep the text they
//! were written as, so nothing is lost and a caller can report a spelling it does not accept.

use super::Span;
use super::scalar;

/// A YAML value and where it is.
///
/// The span covers the value only: a quoted scalar with its quotes, a flow collection from its
/// opening to its closing bracket, a block collection from its first entry to the end of its last
/// value. An empty value (`key:` with nothing after it) is an empty span just after the colon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlNode {
    pub span: Span,
    pub value: YamlValue,
}

/// The value of a [`YamlNode`], resolved by the YAML 1.2 core schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum YamlValue {
    /// `null`, `Null`, `NULL`, `~` or nothing at all.
    Null,
    Bool(bool),
    /// An integer as written: `12`, `-3`, `+7`, `0o17`, `0x1F`. YAML integers have no range, so
    /// the text is kept and [`YamlNode::as_i64`] says whether it fits.
    Int(String),
    /// A float as written: `1.5`, `-2e3`, `.5`, `.inf`, `-.Inf`, `.nan`.
    Float(String),
    /// Any quoted or block scalar, and every plain scalar that is not one of the above.
    String(String),
    Seq(Vec<YamlNode>),
    /// Entries in document order; keys are unique (the parser rejects duplicates).
    Map(Vec<YamlEntry>),
}

/// One `key: value` of a mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlEntry {
    /// The key's text: a string key as decoded, any other scalar key as written (`1`, `true`).
    pub key: String,
    /// The key's span, including quotes if it was quoted.
    pub key_span: Span,
    pub value: YamlNode,
}

impl YamlNode {
    /// The value of `key` if this is a mapping that has it.
    pub fn get(&self, key: &str) -> Option<&YamlNode> {
        self.as_map()?
            .iter()
            .find(|e| e.key == key)
            .map(|e| &e.value)
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            YamlValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The integer if it fits an `i64`. Floats are not integers here, even `1.0`: a caller
    /// should report that spelling rather than have it silently converted.
    pub fn as_i64(&self) -> Option<i64> {
        match &self.value {
            YamlValue::Int(raw) => scalar::int_value(raw),
            _ => None,
        }
    }

    /// The number as an `f64`, for integers and floats alike.
    pub fn as_f64(&self) -> Option<f64> {
        match &self.value {
            YamlValue::Int(raw) => scalar::int_value(raw).map(|i| i as f64),
            YamlValue::Float(raw) => scalar::float_value(raw),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.value {
            YamlValue::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[YamlNode]> {
        match &self.value {
            YamlValue::Seq(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[YamlEntry]> {
        match &self.value {
            YamlValue::Map(entries) => Some(entries),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.value, YamlValue::Null)
    }

    /// `"null"`, `"boolean"`, `"integer"`, `"float"`, `"string"`, `"sequence"` or `"mapping"`,
    /// for messages such as "expected `fields` to be a sequence, found a string".
    pub fn kind_name(&self) -> &'static str {
        self.value.kind_name()
    }
}

impl YamlValue {
    /// See [`YamlNode::kind_name`].
    pub fn kind_name(&self) -> &'static str {
        match self {
            YamlValue::Null => "null",
            YamlValue::Bool(_) => "boolean",
            YamlValue::Int(_) => "integer",
            YamlValue::Float(_) => "float",
            YamlValue::String(_) => "string",
            YamlValue::Seq(_) => "sequence",
            YamlValue::Map(_) => "mapping",
        }
    }
}
