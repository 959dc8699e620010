//! The tokens of a migration file: sqlparser's tokenizer under the dialect, a chunk of the text
//! at a time, resuming after each error and stopping past `limits: statements-per-file`.

use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer};

use super::budget::StatementCount;
use super::lines::{self, LineIndex};
use super::{DdlError, Dialect, lexical_error, literal, raw_string};
use crate::change::Span;

/// Tokenizes the text, up to the statement after the first `cap` (the one [`over_cap`]
/// refuses). On a tokenizer error, the tokens of the statement it interrupted are dropped, the
/// error is recorded, and tokenizing resumes after the next `;` of the raw text (for an
/// unterminated string, the likeliest end of the statement the user meant).
///
/// The text is tokenized a chunk at a time, so that a file of millions of statements holds
/// the tokens of no more than `cap` of them: a chunk's tokens are kept up to its last `;`,
/// which tokenizing a prefix of the text ends exactly where tokenizing all of it would (a
/// string, comment or quoted name cut by the chunk's end is a tokenizer error, and the chunk
/// is tried again twice as long before any error counts).
pub(super) fn tokenize(
    text: &str,
    lines: &LineIndex,
    dialect: Dialect,
    cap: u64,
) -> (Vec<TokenWithSpan>, Vec<DdlError>) {
    tokenize_in_chunks(text, lines, dialect, cap, FIRST_CHUNK)
}

pub(super) fn tokenize_in_chunks(
    text: &str,
    lines: &LineIndex,
    dialect: Dialect,
    cap: u64,
    first_chunk: usize,
) -> (Vec<TokenWithSpan>, Vec<DdlError>) {
    let mut read = Read::default();
    let mut base = 0;
    let mut chunk = first_chunk;
    // The next raw string the tokenizer would misread (Spark only): tokenizing stops before it,
    // and its literal is taken from the text (`raw_string.rs`). It is looked for again once
    // passed: after an error, tokenizing resumes at a `;` that may lie before or after it.
    let mut raw: Option<raw_string::RawString> = None;
    let mut scanned = false;
    while base <= text.len() && read.count.statements <= cap {
        let passed = raw.as_ref().is_some_and(|r| r.open < base);
        if dialect == Dialect::Spark && (!scanned || passed) {
            raw = raw_string::next_misread(text, base);
            scanned = true;
        }
        let whole_end = raw.as_ref().map_or(text.len(), |r| r.open);
        let end = text.floor_char_boundary(base.saturating_add(chunk).min(whole_end));
        let base_location = lines.location(base);
        let mut buf = Vec::new();
        // Literals stay as written: `literal.rs` unescapes them as the dialect's engine does.
        let result = Tokenizer::new(dialect.sql(), text.get(base..end).unwrap_or(""))
            .with_unescape(false)
            .tokenize_with_location_into_buf(&mut buf);
        if end < whole_end {
            match read.keep_to_last_semicolon(buf, base_location, lines) {
                Some(after) => (base, chunk) = (after.max(base + 1), first_chunk),
                None => chunk = chunk.saturating_mul(2),
            }
            continue;
        }
        read.extend(rebased(buf, base_location));
        chunk = first_chunk;
        let next = match result {
            Ok(()) => raw.take().map(|string| {
                read.extend(vec![string.token(lines)]);
                scanned = false;
                string.end
            }),
            Err(error) => {
                let at = lines
                    .offset(lines::rebase(error.location, base_location))
                    .unwrap_or(text.len())
                    .max(base);
                read.error(&error.message, at, text, dialect)
            }
        };
        match next {
            Some(next) => base = next,
            None => break,
        }
    }
    (read.tokens, read.errors)
}

/// What has been read so far, and how many statements it ends.
#[derive(Default)]
struct Read {
    tokens: Vec<TokenWithSpan>,
    errors: Vec<DdlError>,
    count: StatementCount,
}

impl Read {
    fn extend(&mut self, tokens: Vec<TokenWithSpan>) {
        self.count.add(&tokens);
        self.tokens.extend(tokens);
    }

    /// Keeps a chunk's tokens up to its last `;` (before an error too, they are what the whole
    /// text gives), and says where the text after that `;` starts; `None` without one.
    fn keep_to_last_semicolon(
        &mut self,
        mut chunk: Vec<TokenWithSpan>,
        base: Location,
        lines: &LineIndex,
    ) -> Option<usize> {
        let last = chunk.iter().rposition(|t| t.token == Token::SemiColon)?;
        chunk.truncate(last + 1);
        let kept = rebased(chunk, base);
        let after = kept
            .last()
            .and_then(|semicolon| lines.offset(semicolon.span.end))
            .unwrap_or(usize::MAX);
        self.extend(kept);
        Some(after)
    }

    /// A tokenizer error at byte `at`: the tokens of the statement it interrupted are dropped,
    /// the error is recorded, and reading resumes after the next `;`, if there is one.
    fn error(&mut self, message: &str, at: usize, text: &str, dialect: Dialect) -> Option<usize> {
        self.count.error();
        let keep = self
            .tokens
            .iter()
            .rposition(|t| t.token == Token::SemiColon)
            .map_or(0, |i| i + 1);
        self.tokens.truncate(keep);
        let (len, semicolon) = error_extent(text.get(at..).unwrap_or(""));
        self.errors
            .push(lexical_error(message, text, Span::new(at, len), dialect));
        semicolon.map(|i| at + i + 1)
    }
}

/// The bytes of text tokenized at once before a chunk's end is looked for.
const FIRST_CHUNK: usize = 1 << 20;

/// How far a tokenizer error at the start of `after` reaches (to the `;` or the end of the
/// line, whichever comes first), and where the next `;` is.
fn error_extent(after: &str) -> (usize, Option<usize>) {
    let semicolon = after.find(';');
    let line_end = after
        .find('\n')
        .map(|i| after[..i].trim_end_matches('\r').len());
    let len = match (semicolon, line_end) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) => a,
        (None, Some(b)) => b,
        (None, None) => after.len(),
    };
    (len, semicolon)
}

/// Tokens of a slice of the text that starts at `base`, located in the whole text, identifier
/// quotes undoubled.
fn rebased(tokens: Vec<TokenWithSpan>, base: Location) -> Vec<TokenWithSpan> {
    tokens
        .into_iter()
        .map(|mut t| {
            t.span.start = lines::rebase(t.span.start, base);
            t.span.end = lines::rebase(t.span.end, base);
            t.token = literal::undouble_identifier_quotes(t.token);
            t
        })
        .collect()
}
