//! String literals as each engine reads them.
//!
//! The tokenizer runs without unescaping (sqlparser's own unescaping is MySQL's: `\a` is a bell,
//! `\u00e9` loses its backslash), so a token holds the literal's body exactly as written and this
//! module turns it into the value the engine stores:
//! - Spark (`SparkParserUtils.unescapeSQLString`): `\uXXXX`, `\UXXXXXXXX`, a three-digit octal
//!   escape whose first digit is 0 or 1, `\0 \b \n \r \t \Z`; `\%` and `\_` keep their backslash;
//!   any other escaped character stands for itself. A doubled quote is one quote. `r'...'` and
//!   `R"..."` are raw: the body is the value.
//! - Hive (`BaseSemanticAnalyzer.unescapeSQLString`): as Spark without `\U` and raw strings,
//!   and a doubled quote stands for nothing: Hive's literal is a sequence of quoted parts with
//!   nothing between them, so `'it''s'` is `it` then `s`, `its`.
//! - Trino: `''` is the only escape; a backslash is an ordinary character.

use sqlparser::tokenizer::{Token, Word};

use crate::change::Span;
use crate::frontend::ddl::dialect::Dialect;
use crate::frontend::ddl::error::{DdlError, DdlErrorKind};

/// A quoted identifier's value: the tokenizer, run without unescaping, keeps a doubled quote
/// doubled (`` `a``b` ``); every engine reads it as one.
pub(crate) fn undouble_identifier_quotes(token: Token) -> Token {
    match token {
        Token::Word(Word {
            value,
            quote_style: Some(quote),
            keyword,
        }) => {
            let doubled: String = [quote, quote].iter().collect();
            Token::Word(Word {
                value: value.replace(&doubled, &quote.to_string()),
                quote_style: Some(quote),
                keyword,
            })
        }
        token => token,
    }
}

/// The body and quote of a string literal token, (a raw string's `r` is a word token before it, see `Cursor::string`).
pub(crate) fn string_body(token: &Token) -> Option<(&str, char)> {
    match token {
        Token::SingleQuotedString(s) => Some((s, '\'')),
        Token::DoubleQuotedString(s) => Some((s, '"')),
        _ => None,
    }
}

/// The value of a quoted literal's body (`quote` is the character that delimits it).
pub(crate) fn unescape(
    body: &str,
    quote: char,
    dialect: Dialect,
    span: Span,
) -> Result<String, DdlError> {
    let doubled: String = [quote, quote].iter().collect();
    let single = quote.to_string();
    if dialect == Dialect::Trino {
        return Ok(body.replace(&doubled, &single));
    }
    let mut out = String::with_capacity(body.len());
    let mut units = Utf16Pending::default();
    let mut rest = body;
    while let Some(at) = rest.find(['\\', quote]) {
        if at > 0 {
            units.flush(span)?;
        }
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if rest[at..].starts_with(quote) {
            // Only a doubled quote can sit inside a body; the tokenizer ended the literal at any
            // other. Hive's parts are unescaped into one string, so a `\u` half may join the
            // next part's.
            if dialect == Dialect::Spark {
                units.flush(span)?;
                out.push(quote);
            }
            rest = after.strip_prefix(quote).unwrap_or(after);
            continue;
        }
        rest = escape(after, dialect, &mut out, &mut units, span)?;
    }
    units.flush(span)?;
    out.push_str(rest);
    Ok(out)
}

/// Reads one escape after its backslash, appends what it stands for, returns the text after it.
fn escape<'t>(
    after: &'t str,
    dialect: Dialect,
    out: &mut String,
    units: &mut Utf16Pending,
    span: Span,
) -> Result<&'t str, DdlError> {
    if let Some(code) = hex_digits(after, 'u', 4) {
        units.push(code as u16, out, span)?;
        return Ok(&after[5..]);
    }
    if dialect == Dialect::Spark
        && let Some(code) = hex_digits(after, 'U', 8)
    {
        let c = char::from_u32(code).ok_or_else(|| {
            DdlError::new(
                DdlErrorKind::Lexical,
                span,
                format!("`\\U{code:08X}` is not a Unicode code point"),
            )
        })?;
        units.flush(span)?;
        out.push(c);
        return Ok(&after[9..]);
    }
    units.flush(span)?;
    if let Some(c) = octal(after) {
        out.push(c);
        return Ok(&after[3..]);
    }
    let mut chars = after.chars();
    let Some(next) = chars.next() else {
        // A body cannot end in a lone backslash: it would have escaped the closing quote.
        out.push('\\');
        return Ok("");
    };
    match next {
        '0' => out.push('\0'),
        'b' => out.push('\u{8}'),
        'n' => out.push('\n'),
        'r' => out.push('\r'),
        't' => out.push('\t'),
        'Z' => out.push('\u{1a}'),
        '%' | '_' => {
            out.push('\\');
            out.push(next);
        }
        other => out.push(other),
    }
    Ok(chars.as_str())
}

/// The value of `marker` followed by exactly `n` hex digits at the start of `text`.
fn hex_digits(text: &str, marker: char, n: usize) -> Option<u32> {
    let digits = text.strip_prefix(marker)?.get(..n)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

/// `\[01][0-7][0-7]`: the char of that octal value.
fn octal(text: &str) -> Option<char> {
    let digits = text.as_bytes().get(..3)?;
    let [a, b, c] = [digits[0], digits[1], digits[2]];
    let ok = matches!(a, b'0' | b'1') && (b'0'..=b'7').contains(&b) && (b'0'..=b'7').contains(&c);
    ok.then(|| char::from(((a - b'0') << 6) | ((b - b'0') << 3) | (c - b'0')))
}

/// `\uXXXX` escapes are UTF-16 code units, as in Java: a surrogate pair written as two escapes
/// is one character, and a surrogate without its partner is refused, because metadata cannot
/// hold it.
#[derive(Default)]
struct Utf16Pending {
    high: Option<u16>,
}

impl Utf16Pending {
    fn push(&mut self, unit: u16, out: &mut String, span: Span) -> Result<(), DdlError> {
        if let Some(high) = self.high.take() {
            if (0xDC00..=0xDFFF).contains(&unit) {
                let decoded = char::decode_utf16([high, unit]).next();
                if let Some(Ok(c)) = decoded {
                    out.push(c);
                    return Ok(());
                }
            }
            return Err(lone_surrogate(high, span));
        }
        if (0xD800..=0xDBFF).contains(&unit) {
            self.high = Some(unit);
            return Ok(());
        }
        match char::from_u32(u32::from(unit)) {
            Some(c) => {
                out.push(c);
                Ok(())
            }
            None => Err(lone_surrogate(unit, span)),
        }
    }

    fn flush(&mut self, span: Span) -> Result<(), DdlError> {
        match self.high.take() {
            Some(high) => Err(lone_surrogate(high, span)),
            None => Ok(()),
        }
    }
}

fn lone_surrogate(unit: u16, span: Span) -> DdlError {
    DdlError::new(
        DdlErrorKind::Lexical,
        span,
        format!("`\\u{unit:04X}` is half of a UTF-16 surrogate pair without its other half"),
    )
    .with_help("write the character itself, or both halves of the pair (`\\uD83D\\uDE00`)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spark(body: &str) -> String {
        unescape(body, '\'', Dialect::Spark, Span::new(0, 0)).unwrap_or_else(|e| e.message)
    }

    #[test]
    fn spark_escapes() {
        assert_eq!(spark(r"\u00e9t\u00e9"), "été");
        assert_eq!(spark(r"\U0001F600!"), "😀!");
        assert_eq!(spark(r"\uD83D\uDE00"), "😀");
        assert_eq!(spark(r"\101\2"), "A2");
        // First octal digit above 1: not an octal escape, `\2` is `2`.
        assert_eq!(spark(r"\201"), "201");
        assert_eq!(spark(r"\a\f\q"), "afq");
        assert_eq!(spark(r"100\% \_x"), r"100\% \_x");
        assert_eq!(spark(r"\n\t\r\Z\0\b"), "\n\t\r\u{1a}\0\u{8}");
        assert_eq!(spark(r"it''s \'ok\' \\"), r"it's 'ok' \");
        assert_eq!(spark(r"\u00zz"), "u00zz");
        assert!(spark(r"\uD83D alone").contains("surrogate"));
        assert!(spark(r"\uDE00").contains("surrogate"));
        assert!(spark(r"\U00110000").contains("not a Unicode code point"));
    }

    #[test]
    fn hive_reads_a_doubled_quote_as_the_end_of_one_part_and_the_start_of_the_next() {
        let hive = |body| {
            unescape(body, '\'', Dialect::Hive, Span::new(0, 0)).unwrap_or_else(|e| e.message)
        };
        assert_eq!(hive("it''s"), "its");
        assert_eq!(hive(r"it\'s"), "it's");
        // One string builder takes every part: a pair's halves may sit in two of them.
        assert_eq!(hive(r"\uD83D''\uDE00"), "😀");
    }

    #[test]
    fn hive_has_no_eight_digit_escape_and_trino_no_backslash() {
        let hive = unescape(r"\U0001F600", '"', Dialect::Hive, Span::new(0, 0));
        assert_eq!(hive.ok().as_deref(), Some("U0001F600"));
        let trino = unescape(r"a\n''b", '\'', Dialect::Trino, Span::new(0, 0));
        assert_eq!(trino.ok().as_deref(), Some(r"a\n'b"));
    }
}
