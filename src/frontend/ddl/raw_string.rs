//! Spark's raw strings (`r'...'`, `R"..."`) ended where Spark's lexer ends them.
//!
//! sqlparser's tokenizer reads raw strings only under its BigQuery and generic dialects, so
//! under ours `r'a\'` is the word `r` and then a literal in which `\'` escapes the quote: the
//! literal runs on to a later quote, or is unterminated. Spark's lexer (`'R\'' (~'\'')* '\''`,
//! case-insensitive) has no escapes in a raw string and ends it at the first quote of its kind,
//! so `r'a\'` is `a\` and `r'a''b'` is `r'a'` next to `'b'`. [`next_misread`] finds, in one pass
//! over the text that skips comments, strings and quoted identifiers as both lexers do, the next
//! raw string the tokenizer would end elsewhere: the body ends in an odd run of backslashes, or
//! the closing quote is doubled. The caller tokenizes up to it, puts in its literal, and goes on
//! after it, so the file is still tokenized once.

use sqlparser::tokenizer::{Span as TokenSpan, Token, TokenWithSpan};

use crate::frontend::ddl::lines::LineIndex;

/// A raw string (byte offsets into the text): its opening quote (just after the `r`), its body,
/// and the offset just after its closing quote.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct RawString {
    pub(crate) open: usize,
    body_end: usize,
    pub(crate) end: usize,
}

impl RawString {
    /// The literal token, located in `lines`' text: the body as written, which `Cursor::string`
    /// takes as the value of a raw string.
    pub(crate) fn token(&self, lines: &LineIndex) -> TokenWithSpan {
        let text = lines.text();
        let body = text.get(self.open + 1..self.body_end).unwrap_or_default();
        let token = match text.as_bytes().get(self.open) {
            Some(b'"') => Token::DoubleQuotedString(body.to_string()),
            _ => Token::SingleQuotedString(body.to_string()),
        };
        let span = TokenSpan::new(lines.location(self.open), lines.location(self.end));
        TokenWithSpan::new(token, span)
    }
}

/// The first raw string at or after byte `from` that sqlparser's tokenizer ends elsewhere than
/// Spark's lexer. `None` when there is none, including a raw string without its closing quote,
/// which the tokenizer reports as unterminated, as Spark does.
pub(crate) fn next_misread(text: &str, from: usize) -> Option<RawString> {
    let bytes = text.as_bytes();
    let mut at = from;
    // Every delimiter is ASCII, so a byte offset that stops on one is a char boundary.
    while let Some(&b) = bytes.get(at) {
        at = match b {
            b'-' if bytes.get(at + 1) == Some(&b'-') => line_end(bytes, at),
            b'/' if bytes.get(at + 1) == Some(&b'*') => comment_end(bytes, at),
            b'\'' | b'"' => quoted_end(bytes, at, true),
            b'`' => quoted_end(bytes, at, false),
            b if is_word_byte(b) => {
                let end = bytes[at..]
                    .iter()
                    .position(|&c| !is_word_byte(c))
                    .map_or(bytes.len(), |n| at + n);
                match raw_at(bytes, at, end) {
                    Some((raw, true)) => return Some(raw),
                    Some((raw, false)) => raw.end,
                    None => end,
                }
            }
            _ => at + 1,
        };
    }
    None
}

/// Whether an unterminated string whose quote is at byte `quote` is, as written, part of a raw
/// string: the quote opens one (`r'abc`), or it follows, directly or after a word, a raw string
/// that ended at a quote meant to be inside it (`r'it's'` is `r'it'`, `s`, and a quote that
/// opens a string; `r'it''` is `r'it'` and a quote).
/// The raw string's quote, `None` if the string is no part of one.
pub(crate) fn unterminated_in_raw(text: &str, quote: usize) -> Option<char> {
    let bytes = text.as_bytes();
    let kind = *bytes.get(quote)?;
    if opens_at(bytes, quote) {
        return Some(char::from(kind));
    }
    let word = bytes[..quote]
        .iter()
        .rposition(|&b| !is_word_byte(b))
        .map_or(0, |i| i + 1);
    let close = word.checked_sub(1)?;
    // A raw string's body holds no quote of its kind: the one before `close` opened it.
    let open = bytes[..close].iter().rposition(|&b| b == kind)?;
    (bytes[close] == kind && opens_at(bytes, open)).then_some(char::from(kind))
}

/// Whether the quote at byte `quote` opens a raw string: an `r` or `R` that is a word of its
/// own stands right before it.
fn opens_at(bytes: &[u8], quote: usize) -> bool {
    matches!(bytes.get(quote), Some(b'\'' | b'"'))
        && quote >= 1
        && matches!(bytes[quote - 1], b'r' | b'R')
        && (quote < 2 || !is_word_byte(bytes[quote - 2]))
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The raw string whose `r` is the word `bytes[word..word_end]`, and whether the tokenizer
/// misreads it; `None` if the word is not a raw string's `r` or the string has no end.
fn raw_at(bytes: &[u8], word: usize, word_end: usize) -> Option<(RawString, bool)> {
    if word_end != word + 1 || !matches!(bytes[word], b'r' | b'R') {
        return None;
    }
    let quote = *bytes.get(word_end).filter(|&&q| q == b'\'' || q == b'"')?;
    let open = word_end;
    let body_end = open + 1 + bytes.get(open + 1..)?.iter().position(|&c| c == quote)?;
    let backslashes = bytes[open + 1..body_end]
        .iter()
        .rev()
        .take_while(|&&c| c == b'\\')
        .count();
    let misread = backslashes % 2 == 1 || bytes.get(body_end + 1) == Some(&quote);
    let raw = RawString {
        open,
        body_end,
        end: body_end + 1,
    };
    Some((raw, misread))
}

/// After a `--` comment: past its line break, or the end.
fn line_end(bytes: &[u8], at: usize) -> usize {
    bytes[at..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(bytes.len(), |n| at + n + 1)
}

/// After a `/* ... */` comment, which nests in Spark; the end if it is unterminated.
fn comment_end(bytes: &[u8], at: usize) -> usize {
    let mut depth = 0usize;
    let mut i = at;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1)) {
            (b'/', Some(b'*')) => {
                depth += 1;
                i += 2;
            }
            (b'*', Some(b'/')) => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// After a string (`backslash`: with backslash escapes) or quoted identifier that opens at
/// `at`; a doubled quote stays inside. The end if it is unterminated.
fn quoted_end(bytes: &[u8], at: usize, backslash: bool) -> usize {
    let quote = bytes[at];
    let mut i = at + 1;
    while let Some(&c) = bytes.get(i) {
        if c == b'\\' && backslash {
            i += 2;
        } else if c == quote {
            if bytes.get(i + 1) != Some(&quote) {
                return i + 1;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body of the next misread raw string, and the text after it.
    fn next(text: &str) -> Option<(&str, &str)> {
        let raw = next_misread(text, 0)?;
        Some((&text[raw.open + 1..raw.body_end], &text[raw.end..]))
    }

    #[test]
    fn finds_the_raw_strings_the_tokenizer_misreads() {
        assert_eq!(next(r"x r'a\' 'b'"), Some((r"a\", " 'b'")));
        assert_eq!(next(r#"R"a\\\" y"#), Some((r"a\\\", " y")));
        assert_eq!(next(r"r'a''b'"), Some(("a", "'b'")));
        // Read alike by both: even backslashes, no doubled quote; then the misread one after.
        assert_eq!(next(r"r'a\\' R'b' r'c\'"), Some((r"c\", "")));
    }

    #[test]
    fn skips_what_is_not_a_raw_string() {
        for text in [
            r"fr'a\' rx'b\' 1r'c\'",
            r"'r'a\'' x",
            r#""it's r'\'" x"#,
            "`r'a\\'` x",
            "-- r'a\\'\n x",
            r"/* /* r'a\' */ r'b\' */ x",
            r"r'unterminated\",
        ] {
            assert_eq!(next(text), None, "{text}");
        }
        assert_eq!(next("-- c\nr'a\\'"), Some(("a\\", "")));
    }

    #[test]
    fn an_unterminated_string_belongs_to_a_raw_string_as_written() {
        let at = |text: &str| unterminated_in_raw(text, text.rfind(['\'', '"']).unwrap());
        for (text, quote) in [
            ("x r'abc", '\''),
            ("(R\"a", '"'),
            ("r'it's'", '\''),
            ("x R\"say \"hi\"", '"'),
            ("r'it''", '\''),
        ] {
            assert_eq!(at(text), Some(quote), "{text}");
        }
        for text in [
            "x 'abc",
            "for'abc",
            "'x' 'it's'",
            "r'a' 'it's'",
            "r\"it's'",
            "'i\\'t's'",
        ] {
            assert_eq!(at(text), None, "{text}");
        }
    }

    #[test]
    fn the_token_holds_the_body_where_the_string_stands() {
        let text = r#"x R"a\" y"#;
        let lines = LineIndex::new(text);
        let raw = next_misread(text, 0).map(|r| r.token(&lines));
        let token = raw.map(|t| {
            (
                t.token,
                lines.offset(t.span.start),
                lines.offset(t.span.end),
            )
        });
        assert_eq!(
            token,
            Some((Token::DoubleQuotedString(r"a\".into()), Some(3), Some(7)))
        );
    }
}
