//! Parse errors: where (byte offset and length into the text) and what (a typed kind whose
//! `Display` says what was expected and what was found).
//!
//! Offsets stay bytes until the reporter, as everywhere in fieldgate; [`line_col`] turns one into a
//! human position, and the [`miette::Diagnostic`] impl labels the span (and, for a duplicate key,
//! the first definition) once the caller attaches the file text with `with_source_code`.

use std::fmt;

use miette::{Diagnostic, LabeledSpan};

use super::Span;

/// A JSON text that could not be parsed.
///
/// `offset..offset + len` is the offending text (`len` is 0 at the end of input). The text itself
/// is not kept, so the error stays cheap and `'static`; callers that render it attach the source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct JsonError {
    pub offset: usize,
    pub len: usize,
    pub kind: JsonErrorKind,
}

impl JsonError {
    /// The offending text as a span.
    pub fn span(&self) -> Span {
        Span {
            start: self.offset,
            end: self.offset + self.len,
        }
    }
}

/// What went wrong; each kind's `Display` is a complete sentence fragment for a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonErrorKind {
    /// The grammar needed one thing and the text has another.
    Unexpected { expected: Expected, found: Found },
    /// `[1,]` or `{"a":1,}`: RFC 8259 has no trailing commas. The span is the comma.
    TrailingComma,
    /// `//` or `/*`: JSON has no comments.
    Comment,
    /// `01`: a number may not start with a zero followed by more digits.
    LeadingZero,
    /// A backslash followed by something other than `"\/bfnrtu`.
    InvalidEscape(char),
    /// `\u` not followed by four hexadecimal digits.
    InvalidUnicodeEscape,
    /// A `\u` escape of a UTF-16 surrogate that is not half of a high/low pair.
    LoneSurrogate(u16),
    /// An unescaped control character (U+0000..U+001F) inside a string.
    ControlCharacter(char),
    /// A string whose closing quote never comes; the span is the opening quote.
    UnterminatedString,
    /// A key seen twice in one object; the span is the second key, `first` the first one.
    DuplicateKey { key: String, first: Span },
    /// Arrays and objects nested deeper than [`MAX_DEPTH`](super::MAX_DEPTH).
    TooDeep { limit: usize },
    /// Something other than whitespace after the single top-level value.
    TrailingCharacters(Found),
    /// The text starts with U+FEFF, which RFC 8259 §8.1 forbids generators to add.
    ByteOrderMark,
    /// The bytes are not UTF-8 (RFC 8259 §8.1 requires it).
    InvalidUtf8,
}

/// What the parser was looking for when it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    Value,
    /// Right after `{`.
    KeyOrObjectEnd,
    /// After a comma inside an object.
    Key,
    Colon,
    CommaOrObjectEnd,
    /// Right after `[`.
    ValueOrArrayEnd,
    CommaOrArrayEnd,
    /// Inside a number, after `-`, `.` or the exponent marker.
    Digit,
}

/// What the parser found instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    Char(char),
    /// A run of letters/digits, shown whole so `True` or `NaN` read as words, not as `'T'`.
    Word(String),
    EndOfInput,
}

impl Found {
    /// Bytes of text this covers, for the error span.
    pub(super) fn len(&self) -> usize {
        match self {
            Found::Char(c) => c.len_utf8(),
            Found::Word(w) => w.len(),
            Found::EndOfInput => 0,
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expected::Value => "a JSON value",
            Expected::KeyOrObjectEnd => "a string key or `}`",
            Expected::Key => "a string key",
            Expected::Colon => "`:`",
            Expected::CommaOrObjectEnd => "`,` or `}`",
            Expected::ValueOrArrayEnd => "a JSON value or `]`",
            Expected::CommaOrArrayEnd => "`,` or `]`",
            Expected::Digit => "a digit",
        })
    }
}

/// Words longer than this are cut in messages; the span still covers all of it.
const MAX_WORD_SHOWN: usize = 24;

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Char(c) if c.is_control() || c.is_whitespace() => {
                write!(f, "character U+{:04X}", u32::from(*c))
            }
            Found::Char(c) => write!(f, "`{c}`"),
            Found::Word(w) => match w.char_indices().nth(MAX_WORD_SHOWN) {
                Some((cut, _)) => write!(f, "`{}…`", &w[..cut]),
                None => write!(f, "`{w}`"),
            },
            Found::EndOfInput => f.write_str("end of input"),
        }
    }
}

impl fmt::Display for JsonErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonErrorKind::Unexpected { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            JsonErrorKind::TrailingComma => f.write_str("trailing comma is not allowed in JSON"),
            JsonErrorKind::Comment => f.write_str("comments are not allowed in JSON"),
            JsonErrorKind::LeadingZero => {
                f.write_str("number has a leading zero, which JSON does not allow")
            }
            JsonErrorKind::InvalidEscape(c) if c.is_control() => write!(
                f,
                "invalid escape in string: `\\` followed by character U+{:04X}",
                u32::from(*c)
            ),
            JsonErrorKind::InvalidEscape(c) => write!(f, "invalid escape `\\{c}` in string"),
            JsonErrorKind::InvalidUnicodeEscape => {
                f.write_str("invalid unicode escape: `\\u` must be followed by four hex digits")
            }
            JsonErrorKind::LoneSurrogate(unit) => write!(
                f,
                "unicode escape `\\u{unit:04X}` is half of a UTF-16 surrogate pair with no other half"
            ),
            JsonErrorKind::ControlCharacter(c) => write!(
                f,
                "control character U+{:04X} must be escaped inside a string",
                u32::from(*c)
            ),
            JsonErrorKind::UnterminatedString => f.write_str("string is never closed"),
            JsonErrorKind::DuplicateKey { key, .. } => {
                write!(f, "duplicate key {key:?} in one object")
            }
            JsonErrorKind::TooDeep { limit } => {
                write!(
                    f,
                    "arrays and objects are nested more than {limit} levels deep"
                )
            }
            JsonErrorKind::TrailingCharacters(found) => {
                write!(
                    f,
                    "expected end of input after the JSON value, found {found}"
                )
            }
            JsonErrorKind::ByteOrderMark => f.write_str(
                "file starts with a UTF-8 byte order mark (U+FEFF), which JSON does not allow",
            ),
            JsonErrorKind::InvalidUtf8 => f.write_str("invalid UTF-8 byte sequence"),
        }
    }
}

impl JsonErrorKind {
    /// Stable diagnostic code, one per kind.
    pub fn code(&self) -> &'static str {
        match self {
            JsonErrorKind::Unexpected { .. } => "json::unexpected",
            JsonErrorKind::TrailingComma => "json::trailing-comma",
            JsonErrorKind::Comment => "json::comment",
            JsonErrorKind::LeadingZero => "json::leading-zero",
            JsonErrorKind::InvalidEscape(_) => "json::invalid-escape",
            JsonErrorKind::InvalidUnicodeEscape => "json::invalid-unicode-escape",
            JsonErrorKind::LoneSurrogate(_) => "json::lone-surrogate",
            JsonErrorKind::ControlCharacter(_) => "json::control-character",
            JsonErrorKind::UnterminatedString => "json::unterminated-string",
            JsonErrorKind::DuplicateKey { .. } => "json::duplicate-key",
            JsonErrorKind::TooDeep { .. } => "json::too-deep",
            JsonErrorKind::TrailingCharacters(_) => "json::trailing-characters",
            JsonErrorKind::ByteOrderMark => "json::byte-order-mark",
            JsonErrorKind::InvalidUtf8 => "json::invalid-utf8",
        }
    }

    /// A hint for the mistakes people (and other tools) commonly make.
    pub fn help(&self) -> Option<&'static str> {
        match self {
            JsonErrorKind::Unexpected {
                found: Found::Word(w),
                ..
            } => match w.as_str() {
                "True" | "TRUE" | "False" | "FALSE" | "Null" | "NULL" | "None" => {
                    Some("JSON literals are lowercase: `true`, `false`, `null`")
                }
                "NaN" | "Infinity" => Some("JSON numbers cannot be NaN or infinite"),
                _ => None,
            },
            JsonErrorKind::Unexpected {
                found: Found::Char('\''),
                ..
            } => Some("JSON strings use double quotes"),
            JsonErrorKind::TrailingComma => Some("remove the comma"),
            JsonErrorKind::DuplicateKey { .. } => {
                Some("readers disagree on which value wins; keep one of the two")
            }
            JsonErrorKind::ByteOrderMark => Some("save the file as UTF-8 without a BOM"),
            _ => None,
        }
    }
}

impl Diagnostic for JsonError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.kind.code()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.kind
            .help()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let here = LabeledSpan::new_primary_with_span(Some("here".into()), self.span());
        let first = match &self.kind {
            JsonErrorKind::DuplicateKey { first, .. } => Some(LabeledSpan::new_with_span(
                Some("first defined here".into()),
                *first,
            )),
            _ => None,
        };
        Some(Box::new(std::iter::once(here).chain(first)))
    }
}

/// 1-based line and column of a byte offset; the column counts chars, not bytes.
///
/// An offset past the end clamps to the end, one inside a multi-byte char counts that char as
/// not yet reached, so any offset is safe to pass.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text.as_bytes()[..end];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let col = 1 + text[line_start..end].chars().count();
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_chars_and_clamps() {
        let text = "ab\ncé\nx";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 2), (1, 3));
        assert_eq!(line_col(text, 3), (2, 1));
        assert_eq!(line_col(text, 6), (2, 3)); // after 'é' (2 bytes)
        assert_eq!(line_col(text, 5), (2, 2)); // inside 'é': not yet reached
        assert_eq!(line_col(text, 99), (3, 2));
        assert_eq!(line_col("", 0), (1, 1));
    }

    #[test]
    fn long_words_are_cut_in_messages() {
        let kind = JsonErrorKind::Unexpected {
            expected: Expected::Value,
            found: Found::Word("x".repeat(100)),
        };
        assert_eq!(
            kind.to_string(),
            format!("expected a JSON value, found `{}…`", "x".repeat(24))
        );
    }
}
