//! Errors of a schema file: each points at the text it is about (and, for a duplicate, at the
//! first occurrence too); a file's errors come back together, in file order.

use std::fmt;

use miette::{Diagnostic, LabeledSpan, SourceSpan};

use crate::change::Span;
use crate::json::JsonError;
use crate::yaml::YamlError;

/// What went wrong, which also selects the diagnostic code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaFileErrorKind {
    /// Not YAML (or not JSON) at all.
    Syntax,
    /// A key the format does not have (`nmae`, `format_version`).
    UnknownKey,
    /// A key the format needs (`table`, `fields`, a field's `name` or `type`).
    MissingKey,
    /// A value of the wrong kind (a string where a sequence belongs, `id: "1"`).
    WrongKind,
    /// The right kind with a wrong value (`format-version: 7`, `mapping: rows`, `id: -1`).
    InvalidValue,
    /// A type name Iceberg and the accepted SQL spellings do not have, or a malformed type string.
    UnknownType,
    /// Two fields of one struct with the same name.
    DuplicateName,
    /// One field id used twice among the fields (nested members included).
    DuplicateId,
    /// A current field with the id of a dropped one: ids are retired forever.
    RetiredId,
    /// `identifier-fields`, `partition` or `sort-order` names a column the table does not have.
    UnknownColumn,
    /// A table description (see `to_table_metadata`) with a field, element, key or value
    /// without an id.
    MissingId,
}

impl SchemaFileErrorKind {
    pub fn code(self) -> &'static str {
        match self {
            SchemaFileErrorKind::Syntax => "fieldgate::schema-file::syntax",
            SchemaFileErrorKind::UnknownKey => "fieldgate::schema-file::unknown-key",
            SchemaFileErrorKind::MissingKey => "fieldgate::schema-file::missing-key",
            SchemaFileErrorKind::WrongKind => "fieldgate::schema-file::wrong-kind",
            SchemaFileErrorKind::InvalidValue => "fieldgate::schema-file::invalid-value",
            SchemaFileErrorKind::UnknownType => "fieldgate::schema-file::unknown-type",
            SchemaFileErrorKind::DuplicateName => "fieldgate::schema-file::duplicate-name",
            SchemaFileErrorKind::DuplicateId => "fieldgate::schema-file::duplicate-id",
            SchemaFileErrorKind::RetiredId => "fieldgate::schema-file::retired-id",
            SchemaFileErrorKind::UnknownColumn => "fieldgate::schema-file::unknown-column",
            SchemaFileErrorKind::MissingId => "fieldgate::schema-file::missing-id",
        }
    }
}

/// A second place an error is about: the first definition of a duplicate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub span: Span,
    pub label: String,
}

/// One located problem in a schema file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SchemaFileError {
    pub kind: SchemaFileErrorKind,
    /// Byte range in the file (empty where something is missing).
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
    pub related: Option<Related>,
}

impl SchemaFileError {
    pub(crate) fn new(
        kind: SchemaFileErrorKind,
        span: Span,
        message: impl Into<String>,
    ) -> SchemaFileError {
        SchemaFileError {
            kind,
            span,
            message: message.into(),
            help: None,
            related: None,
        }
    }

    pub(crate) fn with_help(mut self, help: impl Into<String>) -> SchemaFileError {
        self.help = Some(help.into());
        self
    }

    pub(crate) fn with_help_opt(mut self, help: Option<String>) -> SchemaFileError {
        self.help = help;
        self
    }

    pub(crate) fn with_related(mut self, span: Span, label: impl Into<String>) -> SchemaFileError {
        self.related = Some(Related {
            span,
            label: label.into(),
        });
        self
    }

    pub(crate) fn from_yaml(e: &YamlError) -> SchemaFileError {
        let error = SchemaFileError::new(
            SchemaFileErrorKind::Syntax,
            Span::from_range(e.span.start, e.span.end),
            format!("malformed YAML: {}", e.kind),
        )
        .with_help_opt(e.kind.help().map(str::to_owned));
        match &e.kind {
            crate::yaml::YamlErrorKind::DuplicateKey { first, .. } => error.with_related(
                Span::from_range(first.start, first.end),
                "first defined here",
            ),
            _ => error,
        }
    }

    pub(crate) fn from_json(e: &JsonError) -> SchemaFileError {
        let error = SchemaFileError::new(
            SchemaFileErrorKind::Syntax,
            Span::new(e.offset, e.len),
            format!("malformed JSON: {}", e.kind),
        )
        .with_help_opt(e.kind.help().map(str::to_owned));
        match &e.kind {
            crate::json::JsonErrorKind::DuplicateKey { first, .. } => error.with_related(
                Span::from_range(first.start, first.end),
                "first defined here",
            ),
            _ => error,
        }
    }
}

fn source_span(span: Span) -> SourceSpan {
    SourceSpan::new(span.offset.into(), span.len)
}

impl Diagnostic for SchemaFileError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.kind.code()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let here = LabeledSpan::new_primary_with_span(Some("here".into()), source_span(self.span));
        let related = self
            .related
            .as_ref()
            .map(|r| LabeledSpan::new_with_span(Some(r.label.clone()), source_span(r.span)));
        Some(Box::new(std::iter::once(here).chain(related)))
    }
}

/// All the errors of one schema file, in file order.
///
/// The text is not kept: render with `miette::Report::new(errors).with_source_code(..)`, or turn
/// each error into the caller's own located error; related diagnostics render against the
/// parent's source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", count(.errors.len()))]
pub struct SchemaFileErrors {
    pub errors: Vec<SchemaFileError>,
}

fn count(n: usize) -> String {
    format!("{} in the schema file", crate::plural::counted(n, "error"))
}

impl SchemaFileErrors {
    pub(crate) fn one(error: SchemaFileError) -> SchemaFileErrors {
        SchemaFileErrors {
            errors: vec![error],
        }
    }
}

impl Diagnostic for SchemaFileErrors {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new("fieldgate::schema-file"))
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        Some(Box::new(self.errors.iter().map(|e| e as &dyn Diagnostic)))
    }
}
