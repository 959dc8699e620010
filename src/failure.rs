//! Why a command could not run at all (exit code 2): unreadable or malformed input, with the
//! place in the text when there is one.

use std::fmt;

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceCode};

use crate::change::{Source, Span};
use crate::evolve::TooLarge;

#[derive(Debug)]
pub enum Failure {
    /// Problems located in input text, all of them, not just the first.
    Located(Vec<LocatedError>),
    Message(String),
}

impl From<Box<TooLarge>> for Failure {
    fn from(too_large: Box<TooLarge>) -> Failure {
        let origin = &too_large.origin;
        Failure::Located(vec![LocatedError::new(
            &origin.source,
            origin.statement,
            too_large.message(),
            Some(too_large.help()),
        )])
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Message(message)
    }
}

#[derive(Debug)]
pub struct LocatedError {
    pub source: Source,
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
    named: NamedSource<String>,
}

impl LocatedError {
    pub fn new(
        source: &Source,
        span: Span,
        message: impl Into<String>,
        help: Option<String>,
    ) -> LocatedError {
        // Clamp so a span past the end (a truncated file) still renders.
        let len = source.text.len();
        let offset = span.offset.min(len);
        let span = Span::new(offset, span.len.min(len - offset));
        LocatedError {
            source: source.clone(),
            span,
            message: message.into(),
            help,
            named: NamedSource::new(source.name.clone(), source.text.clone()),
        }
    }
}

impl fmt::Display for LocatedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LocatedError {}

impl Diagnostic for LocatedError {
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.named)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let label = LabeledSpan::new(Some("here".into()), self.span.offset, self.span.len);
        Some(Box::new(std::iter::once(label)))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
}
