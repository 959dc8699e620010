//! Parse errors: where (a byte span into the text) and what (a typed kind whose `Display` says
//! what is wrong). As with [`crate::json::JsonError`], the text is not kept; callers that render
//! the [`miette::Diagnostic`] attach it with `with_source_code`.

use std::fmt;

use miette::{Diagnostic, LabeledSpan};

use super::Span;

/// A YAML text that could not be turned into a tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct YamlError {
    /// The offending text; empty at the end of input.
    pub span: Span,
    pub kind: YamlErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum YamlErrorKind {
    /// The text is not YAML; the message is the parser's ("mapping values are not allowed in this
    /// context").
    Syntax(String),
    /// A key seen twice in one mapping; the span is the second key, `first` the first one.
    DuplicateKey { key: String, first: Span },
    /// `&name` on a value.
    Anchor,
    /// `*name` in place of a value.
    Alias,
    /// `!!str`, `!local` or `!<uri>` on a value; the tag as written.
    Tag(String),
    /// A mapping key that is a sequence or a mapping (`? [a, b]`, `{a: 1}: x`); the kind found.
    ComplexKey(&'static str),
    /// A second `---` document.
    MultipleDocuments,
    /// Collections nested deeper than `limit`.
    TooDeep { limit: usize },
}

impl fmt::Display for YamlErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            YamlErrorKind::Syntax(message) => f.write_str(message),
            YamlErrorKind::DuplicateKey { key, .. } => {
                write!(f, "duplicate key {key:?} in one mapping")
            }
            YamlErrorKind::Anchor => f.write_str("YAML anchors (`&name`) are not supported"),
            YamlErrorKind::Alias => f.write_str("YAML aliases (`*name`) are not supported"),
            YamlErrorKind::Tag(tag) => write!(f, "YAML tags such as `{tag}` are not supported"),
            YamlErrorKind::ComplexKey(kind) => {
                write!(f, "a mapping key must be a scalar, found a {kind}")
            }
            YamlErrorKind::MultipleDocuments => {
                f.write_str("the file holds more than one YAML document")
            }
            YamlErrorKind::TooDeep { limit } => write!(
                f,
                "sequences and mappings are nested more than {limit} levels deep"
            ),
        }
    }
}

impl YamlErrorKind {
    /// Stable diagnostic code, one per kind.
    pub fn code(&self) -> &'static str {
        match self {
            YamlErrorKind::Syntax(_) => "yaml::syntax",
            YamlErrorKind::DuplicateKey { .. } => "yaml::duplicate-key",
            YamlErrorKind::Anchor => "yaml::anchor",
            YamlErrorKind::Alias => "yaml::alias",
            YamlErrorKind::Tag(_) => "yaml::tag",
            YamlErrorKind::ComplexKey(_) => "yaml::complex-key",
            YamlErrorKind::MultipleDocuments => "yaml::multiple-documents",
            YamlErrorKind::TooDeep { .. } => "yaml::too-deep",
        }
    }

    pub fn help(&self) -> Option<&'static str> {
        match self {
            YamlErrorKind::DuplicateKey { .. } => {
                Some("readers disagree on which value wins; keep one of the two")
            }
            YamlErrorKind::Anchor | YamlErrorKind::Alias => Some(
                "write the value out in full: fieldgate reads plain YAML data, and aliases can \
                 expand a small file into a huge one",
            ),
            YamlErrorKind::Tag(_) => {
                Some("remove the tag; to keep a value such as `true` or `12` a string, quote it")
            }
            YamlErrorKind::ComplexKey(_) => Some("use a plain string as the key"),
            YamlErrorKind::MultipleDocuments => {
                Some("keep one document per file; remove the second `---` and what follows it")
            }
            YamlErrorKind::Syntax(message) if message.contains("tab") => {
                Some("YAML indents with spaces, never tabs")
            }
            YamlErrorKind::Syntax(_) | YamlErrorKind::TooDeep { .. } => None,
        }
    }
}

impl Diagnostic for YamlError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.kind.code()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.kind
            .help()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let here = LabeledSpan::new_primary_with_span(Some("here".into()), self.span);
        let first = match &self.kind {
            YamlErrorKind::DuplicateKey { first, .. } => Some(LabeledSpan::new_with_span(
                Some("first defined here".into()),
                *first,
            )),
            _ => None,
        };
        Some(Box::new(std::iter::once(here).chain(first)))
    }
}
