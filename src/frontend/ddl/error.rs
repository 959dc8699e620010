//! Errors of the DDL front-end: each points at the exact text it is about, and a file's errors
//! are reported together (one per statement that failed), never only the first.

use std::fmt;

use miette::{
    Diagnostic, LabeledSpan, MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use crate::change::{Source, Span};

/// What went wrong, which also selects the diagnostic code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DdlErrorKind {
    /// Text that is not valid SQL for the dialect (a missing keyword, a stray token).
    Syntax,
    /// Text the tokenizer could not split into tokens (an unterminated string or comment).
    Lexical,
    /// Valid SQL that fieldgate does not model (`INSERT`, `ADD PARTITION FIELD`, ...).
    Unsupported,
    /// A type name the dialect does not have, or one with no Iceberg equivalent.
    UnknownType,
    /// A known type with invalid parameters (`decimal(40,2)`).
    InvalidType,
    /// Well-formed but meaningless (`AFTER` naming a field of another struct, an unknown
    /// partition transform).
    Invalid,
    /// More statements than `limits: statements-per-file` allows.
    Limit,
}

impl DdlErrorKind {
    pub fn code(self) -> &'static str {
        match self {
            DdlErrorKind::Syntax => "fieldgate::ddl::syntax",
            DdlErrorKind::Lexical => "fieldgate::ddl::lexical",
            DdlErrorKind::Unsupported => "fieldgate::ddl::unsupported",
            DdlErrorKind::UnknownType => "fieldgate::ddl::unknown-type",
            DdlErrorKind::InvalidType => "fieldgate::ddl::invalid-type",
            DdlErrorKind::Invalid => "fieldgate::ddl::invalid",
            DdlErrorKind::Limit => "fieldgate::ddl::limit",
        }
    }
}

/// One located problem in a DDL file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DdlError {
    pub kind: DdlErrorKind,
    /// Byte range in the source text (may be empty, e.g. at the end of a statement).
    pub span: Span,
    pub message: String,
    /// Text for the label under `span`, when it adds to the message.
    pub label: Option<String>,
    pub help: Option<String>,
}

impl DdlError {
    pub(crate) fn new(kind: DdlErrorKind, span: Span, message: impl Into<String>) -> DdlError {
        DdlError {
            kind,
            span,
            message: message.into(),
            label: None,
            help: None,
        }
    }

    pub(crate) fn syntax(span: Span, message: impl Into<String>) -> DdlError {
        DdlError::new(DdlErrorKind::Syntax, span, message)
    }

    pub(crate) fn with_help(mut self, help: impl Into<String>) -> DdlError {
        self.help = Some(help.into());
        self
    }

    pub(crate) fn with_label(mut self, label: impl Into<String>) -> DdlError {
        self.label = Some(label.into());
        self
    }
}

fn source_span(span: Span) -> SourceSpan {
    SourceSpan::new(span.offset.into(), span.len)
}

impl Diagnostic for DdlError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.kind.code()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(
            LabeledSpan::new_primary_with_span(self.label.clone(), source_span(self.span)),
        )))
    }
}

/// All the errors of one DDL file, in file order, with the file to quote them against.
#[derive(Debug, thiserror::Error)]
#[error("{} in {}", count(.errors.len()), .file.0.name)]
pub struct DdlErrors {
    pub errors: Vec<DdlError>,
    file: SourceText,
}

fn count(n: usize) -> String {
    if n == 1 {
        "1 DDL error".to_string()
    } else {
        format!("{n} DDL errors")
    }
}

impl DdlErrors {
    pub fn new(source: Source, errors: Vec<DdlError>) -> DdlErrors {
        DdlErrors {
            errors,
            file: SourceText(source),
        }
    }

    pub fn source(&self) -> &Source {
        &self.file.0
    }
}

impl Diagnostic for DdlErrors {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new("fieldgate::ddl"))
    }

    /// The errors carry no source of their own: miette renders related diagnostics against
    /// their parent's source, so the file is stored once, here.
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.file)
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        Some(Box::new(self.errors.iter().map(|e| e as &dyn Diagnostic)))
    }
}

/// The shared source file as miette source code, named after the file, without copying it.
#[derive(Debug)]
struct SourceText(Source);

impl SourceCode for SourceText {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self
            .0
            .text
            .read_span(span, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.0.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line(),
            inner.column(),
            inner.line_count(),
        )))
    }
}
