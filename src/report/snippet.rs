//! A source text as the terminal report quotes it: escaped for the terminal once per report
//! (not once per finding), with its line starts indexed, so quoting a snippet costs the snippet's
//! lines. miette reads a snippet by scanning the text from its first byte, and a finding's view
//! used to escape the whole file again: with thousands of findings in one long migration that
//! was quadratic (2,000 re-adds of one column took half a minute to print).

use std::collections::HashMap;
use std::sync::Arc;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use crate::change::Source;
use crate::report::terminal::{OffsetMap, escape, escape_mapped};
use crate::span::{line_in, starts_of};

/// One escaped source: its text, where each line starts in it, and the map from the original's
/// offsets into it.
pub struct Escaped {
    name: String,
    text: String,
    line_starts: Vec<usize>,
    pub offsets: OffsetMap,
}

impl Escaped {
    fn of(source: &Source) -> Escaped {
        let (text, offsets) = escape_mapped(&source.text);
        let text = text.into_owned();
        // Escaping leaves no lone `\r`, so every line break of the escaped text ends in `\n`,
        // as miette counts them.
        let line_starts = starts_of(&text);
        Escaped {
            name: escape(&source.name).into_owned(),
            text,
            line_starts,
            offsets,
        }
    }

    /// The index of the line holding byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        line_in(&self.line_starts, offset)
    }
}

/// The escaped sources of one report, each escaped and indexed the first time a finding quotes it.
#[derive(Default)]
pub struct Sources {
    escaped: HashMap<*const crate::change::SourceFile, Arc<Escaped>>,
}

impl Sources {
    pub fn get(&mut self, source: &Source) -> Arc<Escaped> {
        self.escaped
            .entry(Arc::as_ptr(source))
            .or_insert_with(|| Arc::new(Escaped::of(source)))
            .clone()
    }
}

/// miette's source code for one escaped text: a snippet is read by miette's own reader from the
/// lines around the span only, then moved back to the text's offsets and line numbers, so what
/// is quoted is exactly what reading the whole text gives.
pub struct Quoted(pub Arc<Escaped>);

impl std::fmt::Debug for Quoted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.name)
    }
}

impl SourceCode for Quoted {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let source = &self.0;
        // One line more than the context on each side: the reader then stops where it would
        // over the whole text.
        let first = source
            .line_of(span.offset())
            .saturating_sub(context_lines_before + 1);
        let last = source.line_of(span.offset() + span.len()) + context_lines_after + 2;
        let start = source.line_starts[first];
        let end = source
            .line_starts
            .get(last)
            .copied()
            .unwrap_or(source.text.len());
        let window = &source.text.as_bytes()[start..end];
        let within = SourceSpan::new((span.offset().saturating_sub(start)).into(), span.len());
        let inner = window.read_span(&within, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            source.name.clone(),
            inner.data(),
            SourceSpan::new((inner.span().offset() + start).into(), inner.span().len()),
            inner.line() + first,
            inner.column(),
            inner.line_count() + first,
        )))
    }
}
