//! The parsed tree: every value knows its byte span in the original text.
//!
//! Strings borrow from the text unless they contain escapes, and numbers are kept as their raw
//! spelling, so reading a document costs one pass and no per-value allocation beyond the
//! containers, and nothing is lost that a lossless rewrite would need.

use std::borrow::Cow;
use std::ops::Range;

/// A byte range `start..end` into the parsed text.
///
/// For a [`Node`] it covers the value only, never surrounding whitespace, so replacing it keeps the
/// file's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// An empty span at `offset`: the place of an insertion.
    pub fn empty(offset: usize) -> Self {
        Span {
            start: offset,
            end: offset,
        }
    }

    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(span: Span) -> Self {
        (span.start, span.len()).into()
    }
}

/// A JSON value and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Node<'a> {
    pub span: Span,
    pub value: Value<'a>,
}

/// The value of a [`Node`].
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    /// The number exactly as written (`1.0`, `1e3`, `-0`, `12345678901234567890`), so rewriting a
    /// file never respells one and no precision is lost.
    Number(&'a str),
    /// Decoded; borrowed from the text when it has no escapes.
    String(Cow<'a, str>),
    Array(Vec<Node<'a>>),
    /// Members in document order; keys are unique (the parser rejects duplicates).
    Object(Vec<Member<'a>>),
}

/// One `"key": value` of an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Member<'a> {
    /// Decoded key.
    pub key: Cow<'a, str>,
    /// The key's span including its quotes, for diagnostics that point at a field name.
    pub key_span: Span,
    pub value: Node<'a>,
}

impl<'a> Node<'a> {
    /// The value of `key` if this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        self.as_object()?
            .iter()
            .find(|m| m.key == key)
            .map(|m| &m.value)
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number as an `i64` if it is spelled as an integer that fits.
    ///
    /// `1.0` and `1e3` are not integers here: Iceberg writes ids and timestamps as plain integers,
    /// and a caller should report another spelling rather than have it silently converted.
    pub fn as_i64(&self) -> Option<i64> {
        match self.value {
            Value::Number(raw) => raw.parse().ok(),
            _ => None,
        }
    }

    /// Like [`Node::as_i64`], for non-negative integers up to `u64::MAX`.
    pub fn as_u64(&self) -> Option<u64> {
        match self.value {
            Value::Number(raw) => raw.parse().ok(),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.value {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Node<'a>]> {
        match &self.value {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&[Member<'a>]> {
        match &self.value {
            Value::Object(members) => Some(members),
            _ => None,
        }
    }

    /// `"null"`, `"boolean"`, `"number"`, `"string"`, `"array"` or `"object"`, for messages such
    /// as "expected `fields` to be an array, found a string".
    pub fn kind_name(&self) -> &'static str {
        self.value.kind_name()
    }
}

impl Value<'_> {
    /// See [`Node::kind_name`].
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}
