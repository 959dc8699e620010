//! A strict RFC 8259 parser that records spans.
//!
//! It is a recursive-descent scanner over bytes: whitespace, string bodies and digits are skipped
//! with byte loops, strings without escapes are borrowed, and only containers allocate. Nesting is
//! capped by [`MAX_DEPTH`] so hostile input fails with an error instead of overflowing the stack.
//! Anything RFC 8259 forbids is rejected (trailing commas, comments, leading zeros, lone
//! surrogates, raw control characters, a BOM, text after the value), and so are duplicate keys,
//! which the RFC allows but on which readers disagree: a metadata file we would rewrite must mean
//! one thing.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};

use super::error::{Expected, Found, JsonError, JsonErrorKind};
use super::node::{Member, Node, Span, Value};

/// Deepest nesting of arrays and objects accepted.
///
/// Why 512: Iceberg metadata nests about a dozen levels plus two per level of nested struct
/// columns, so real files stay far below it; and 512 recursive frames fit easily in the 2 MiB stack
/// of a spawned thread (test threads included), so hostile input such as 100,000 `[` is an error,
/// never a stack overflow. (serde_json stops at 128, which a deeply nested schema could approach.)
pub const MAX_DEPTH: usize = 512;

/// Up to this many members, duplicate keys are found by comparing with each earlier key; beyond
/// it a hash index keeps a huge object linear instead of quadratic.
const LINEAR_KEY_SCAN: usize = 16;

const BOM: &str = "\u{feff}";

/// Parses a whole JSON text into a spanned tree.
pub fn parse(text: &str) -> Result<Node<'_>, JsonError> {
    if text.starts_with(BOM) {
        return Err(JsonError {
            offset: 0,
            len: BOM.len(),
            kind: JsonErrorKind::ByteOrderMark,
        });
    }
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        depth: 0,
    };
    let root = parser.value(Expected::Value)?;
    parser.skip_ws();
    if parser.pos < text.len() {
        return Err(parser.unexpected_at(parser.pos, None));
    }
    Ok(root)
}

/// Like [`parse`] for raw file contents: invalid UTF-8 is an error at the first bad byte.
pub fn parse_bytes(bytes: &[u8]) -> Result<Node<'_>, JsonError> {
    if bytes.starts_with(BOM.as_bytes()) {
        return Err(JsonError {
            offset: 0,
            len: BOM.len(),
            kind: JsonErrorKind::ByteOrderMark,
        });
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(e) => {
            let offset = e.valid_up_to();
            let len = e.error_len().unwrap_or(bytes.len() - offset);
            Err(JsonError {
                offset,
                len,
                kind: JsonErrorKind::InvalidUtf8,
            })
        }
    }
}

/// Bytes that end the fast scan of a string body: the closing quote, an escape, or a control
/// character (which must be rejected).
static STRING_STOP: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = true;
        i += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    /// One value after optional whitespace; `expected` names what the caller was looking for, for
    /// the message when there is no value here.
    fn value(&mut self, expected: Expected) -> Result<Node<'a>, JsonError> {
        self.skip_ws();
        let start = self.pos;
        let value = match self.peek() {
            Some(b'{') => return self.object(),
            Some(b'[') => return self.array(),
            Some(b'"') => Value::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => Value::Number(self.number()?),
            Some(b't' | b'f' | b'n') => self.literal(expected)?,
            _ => return Err(self.unexpected_at(start, Some(expected))),
        };
        Ok(Node {
            span: Span::new(start, self.pos),
            value,
        })
    }

    /// The error for whatever is at `pos`; `None` means "end of input" was expected.
    fn unexpected_at(&self, pos: usize, expected: Option<Expected>) -> JsonError {
        if self.bytes.get(pos) == Some(&b'/')
            && matches!(self.bytes.get(pos + 1), Some(b'/' | b'*'))
        {
            return JsonError {
                offset: pos,
                len: 2,
                kind: JsonErrorKind::Comment,
            };
        }
        let found = self.found_at(pos);
        let len = found.len();
        let kind = match expected {
            Some(expected) => JsonErrorKind::Unexpected { expected, found },
            None => JsonErrorKind::TrailingCharacters(found),
        };
        JsonError {
            offset: pos,
            len,
            kind,
        }
    }

    fn found_at(&self, pos: usize) -> Found {
        let Some(rest) = self.text.get(pos..) else {
            return Found::EndOfInput;
        };
        let word = rest
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        if word > 0 {
            return Found::Word(rest[..word].to_owned());
        }
        rest.chars().next().map_or(Found::EndOfInput, Found::Char)
    }

    fn enter(&mut self) -> Result<(), JsonError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(JsonError {
                offset: self.pos,
                len: 1,
                kind: JsonErrorKind::TooDeep { limit: MAX_DEPTH },
            });
        }
        Ok(())
    }

    fn literal(&mut self, expected: Expected) -> Result<Value<'a>, JsonError> {
        let rest = &self.bytes[self.pos..];
        let (value, len) = if rest.starts_with(b"true") {
            (Value::Bool(true), 4)
        } else if rest.starts_with(b"false") {
            (Value::Bool(false), 5)
        } else if rest.starts_with(b"null") {
            (Value::Null, 4)
        } else {
            return Err(self.unexpected_at(self.pos, Some(expected)));
        };
        // `truex` is one bad word, not `true` followed by garbage.
        if rest
            .get(len)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            return Err(self.unexpected_at(self.pos, Some(expected)));
        }
        self.pos += len;
        Ok(value)
    }

    fn digits_end(&self, mut i: usize) -> usize {
        while let Some(b'0'..=b'9') = self.bytes.get(i) {
            i += 1;
        }
        i
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, returned as written.
    fn number(&mut self) -> Result<&'a str, JsonError> {
        let start = self.pos;
        let mut i = start;
        if self.bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        match self.bytes.get(i) {
            Some(b'0') => {
                if let Some(b'0'..=b'9') = self.bytes.get(i + 1) {
                    let end = self.digits_end(i + 1);
                    return Err(JsonError {
                        offset: start,
                        len: end - start,
                        kind: JsonErrorKind::LeadingZero,
                    });
                }
                i += 1;
            }
            Some(b'1'..=b'9') => i = self.digits_end(i + 1),
            _ => return Err(self.unexpected_at(i, Some(Expected::Digit))),
        }
        if self.bytes.get(i) == Some(&b'.') {
            i = self.required_digits(i + 1)?;
        }
        if let Some(b'e' | b'E') = self.bytes.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = self.bytes.get(i) {
                i += 1;
            }
            i = self.required_digits(i)?;
        }
        self.pos = i;
        Ok(&self.text[start..i])
    }

    fn required_digits(&self, i: usize) -> Result<usize, JsonError> {
        match self.bytes.get(i) {
            Some(b'0'..=b'9') => Ok(self.digits_end(i + 1)),
            _ => Err(self.unexpected_at(i, Some(Expected::Digit))),
        }
    }

    /// A string starting at the opening quote at `self.pos`.
    fn string(&mut self) -> Result<Cow<'a, str>, JsonError> {
        let open = self.pos;
        let mut i = open + 1;
        // Fast path: no escapes, borrow the body.
        loop {
            match self.bytes.get(i) {
                Some(&b) if !STRING_STOP[usize::from(b)] => i += 1,
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(Cow::Borrowed(&self.text[open + 1..i]));
                }
                Some(b'\\') => break,
                Some(_) => return Err(self.control_character(i)),
                None => return Err(unterminated(open)),
            }
        }
        let mut out = String::with_capacity(i - open + 16);
        let mut segment = open + 1;
        loop {
            match self.bytes.get(i) {
                Some(&b) if !STRING_STOP[usize::from(b)] => i += 1,
                Some(b'"') => {
                    out.push_str(&self.text[segment..i]);
                    self.pos = i + 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    out.push_str(&self.text[segment..i]);
                    i = self.escape(open, i, &mut out)?;
                    segment = i;
                }
                Some(_) => return Err(self.control_character(i)),
                None => return Err(unterminated(open)),
            }
        }
    }

    fn control_character(&self, at: usize) -> JsonError {
        let c = char::from(self.bytes.get(at).copied().unwrap_or(0));
        JsonError {
            offset: at,
            len: 1,
            kind: JsonErrorKind::ControlCharacter(c),
        }
    }

    /// Decodes the escape whose backslash is at `at`; returns the offset after it.
    fn escape(&self, open: usize, at: usize, out: &mut String) -> Result<usize, JsonError> {
        let decoded = match self.bytes.get(at + 1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => return self.unicode_escape(at, out),
            Some(_) => {
                let c = self
                    .text
                    .get(at + 1..)
                    .and_then(|s| s.chars().next())
                    .unwrap_or('\0');
                return Err(JsonError {
                    offset: at,
                    len: 1 + c.len_utf8(),
                    kind: JsonErrorKind::InvalidEscape(c),
                });
            }
            None => return Err(unterminated(open)),
        };
        out.push(decoded);
        Ok(at + 2)
    }

    fn hex4(&self, at: usize) -> Option<u16> {
        let digits = self.bytes.get(at..at + 4)?;
        digits.iter().try_fold(0u16, |acc, &b| {
            let d = char::from(b).to_digit(16)?;
            Some((acc << 4) | d as u16)
        })
    }

    /// `\uXXXX`, or a `\uD8xx\uDCxx` surrogate pair, at `at`.
    fn unicode_escape(&self, at: usize, out: &mut String) -> Result<usize, JsonError> {
        let Some(unit) = self.hex4(at + 2) else {
            return Err(self.invalid_unicode_escape(at));
        };
        let lone = |unit| JsonError {
            offset: at,
            len: 6,
            kind: JsonErrorKind::LoneSurrogate(unit),
        };
        let (code_point, next) = match unit {
            0xD800..=0xDBFF => {
                if self.bytes.get(at + 6..at + 8) != Some(b"\\u".as_slice()) {
                    return Err(lone(unit));
                }
                match self.hex4(at + 8) {
                    Some(low @ 0xDC00..=0xDFFF) => {
                        let high = u32::from(unit - 0xD800);
                        (0x10000 + (high << 10) + u32::from(low - 0xDC00), at + 12)
                    }
                    Some(_) => return Err(lone(unit)),
                    None => return Err(self.invalid_unicode_escape(at + 6)),
                }
            }
            0xDC00..=0xDFFF => return Err(lone(unit)),
            _ => (u32::from(unit), at + 6),
        };
        match char::from_u32(code_point) {
            Some(c) => {
                out.push(c);
                Ok(next)
            }
            None => Err(lone(unit)),
        }
    }

    fn invalid_unicode_escape(&self, at: usize) -> JsonError {
        let hex = self
            .bytes
            .iter()
            .skip(at + 2)
            .take(4)
            .take_while(|b| b.is_ascii_hexdigit());
        JsonError {
            offset: at,
            len: 2 + hex.count(),
            kind: JsonErrorKind::InvalidUnicodeEscape,
        }
    }

    fn array(&mut self) -> Result<Node<'a>, JsonError> {
        let start = self.pos;
        self.enter()?;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
        } else {
            let mut expected = Expected::ValueOrArrayEnd;
            loop {
                items.push(self.value(expected)?);
                self.skip_ws();
                match self.peek() {
                    Some(b',') => {
                        self.after_comma(b']')?;
                        expected = Expected::Value;
                    }
                    Some(b']') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(self.unexpected_at(self.pos, Some(Expected::CommaOrArrayEnd))),
                }
            }
        }
        self.depth -= 1;
        Ok(Node {
            span: Span::new(start, self.pos),
            value: Value::Array(items),
        })
    }

    /// Consumes the comma at `self.pos` and the whitespace after it; a `close` next is an error.
    fn after_comma(&mut self, close: u8) -> Result<(), JsonError> {
        let comma = self.pos;
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(close) {
            return Err(JsonError {
                offset: comma,
                len: 1,
                kind: JsonErrorKind::TrailingComma,
            });
        }
        Ok(())
    }

    fn object(&mut self) -> Result<Node<'a>, JsonError> {
        let start = self.pos;
        self.enter()?;
        self.pos += 1;
        let mut members: Vec<Member<'a>> = Vec::new();
        let mut keys = KeyIndex::default();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            let mut expected = Expected::KeyOrObjectEnd;
            loop {
                let member = self.member(&members, &mut keys, expected)?;
                members.push(member);
                self.skip_ws();
                match self.peek() {
                    Some(b',') => {
                        self.after_comma(b'}')?;
                        expected = Expected::Key;
                    }
                    Some(b'}') => {
                        self.pos += 1;
                        break;
                    }
                    _ => {
                        return Err(self.unexpected_at(self.pos, Some(Expected::CommaOrObjectEnd)));
                    }
                }
            }
        }
        self.depth -= 1;
        Ok(Node {
            span: Span::new(start, self.pos),
            value: Value::Object(members),
        })
    }

    /// One `"key": value` member of an object, refusing a key an earlier member has.
    fn member(
        &mut self,
        members: &[Member<'a>],
        keys: &mut KeyIndex,
        expected: Expected,
    ) -> Result<Member<'a>, JsonError> {
        self.skip_ws();
        if self.peek() != Some(b'"') {
            return Err(self.unexpected_at(self.pos, Some(expected)));
        }
        let key_start = self.pos;
        let key = self.string()?;
        let key_span = Span::new(key_start, self.pos);
        if let Some(first) = keys.find_or_add(members, &key) {
            return Err(JsonError {
                offset: key_span.start,
                len: key_span.len(),
                kind: JsonErrorKind::DuplicateKey {
                    key: key.into_owned(),
                    first,
                },
            });
        }
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.unexpected_at(self.pos, Some(Expected::Colon)));
        }
        self.pos += 1;
        let value = self.value(Expected::Value)?;
        Ok(Member {
            key,
            key_span,
            value,
        })
    }
}

fn unterminated(open: usize) -> JsonError {
    JsonError {
        offset: open,
        len: 1,
        kind: JsonErrorKind::UnterminatedString,
    }
}

/// Finds duplicate keys in one object: a linear scan while the object is small (the usual case),
/// then a hash of each key to the index of the first member with that hash.
#[derive(Default)]
struct KeyIndex {
    hashed: Option<(RandomState, HashMap<u64, usize>)>,
}

impl KeyIndex {
    /// The key span of an earlier member named `key`, or `None` after recording `key` as the next
    /// member (which the caller pushes at index `members.len()`).
    fn find_or_add(&mut self, members: &[Member<'_>], key: &str) -> Option<Span> {
        let linear =
            |members: &[Member<'_>]| members.iter().find(|m| m.key == key).map(|m| m.key_span);
        if members.len() < LINEAR_KEY_SCAN {
            return linear(members);
        }
        let (state, map) = self.hashed.get_or_insert_with(|| {
            let state = RandomState::new();
            let mut map = HashMap::with_capacity(members.len() * 2);
            for (i, m) in members.iter().enumerate() {
                map.entry(state.hash_one(&*m.key)).or_insert(i);
            }
            (state, map)
        });
        match map.entry(state.hash_one(key)) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(members.len());
                None
            }
            std::collections::hash_map::Entry::Occupied(slot) => {
                match members.get(*slot.get()) {
                    Some(m) if m.key == key => Some(m.key_span),
                    // A hash collision between different keys: rare, so fall back to the scan.
                    _ => linear(members),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::samples::{COMPACT, INDENTED, JACKSON};
    use crate::json::{Edits, line_col};

    /// Our tree as a serde_json value, to compare with serde_json's reading of the same text.
    fn to_serde(node: &Node<'_>) -> serde_json::Value {
        use serde_json::Value as J;
        match &node.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Number(raw) => J::Number(raw.parse().expect("number accepted by both")),
            Value::String(s) => J::String(s.to_string()),
            Value::Array(items) => J::Array(items.iter().map(to_serde).collect()),
            Value::Object(members) => J::Object(
                members
                    .iter()
                    .map(|m| (m.key.to_string(), to_serde(&m.value)))
                    .collect(),
            ),
        }
    }

    /// Every node's span, read alone, means the node; keys' spans are their quoted keys.
    fn check_spans(text: &str, node: &Node<'_>) {
        let alone: serde_json::Value = serde_json::from_str(&text[node.span.range()]).unwrap();
        assert_eq!(alone, to_serde(node));
        match &node.value {
            Value::Array(items) => items.iter().for_each(|n| check_spans(text, n)),
            Value::Object(members) => {
                for m in members {
                    let key: String = serde_json::from_str(&text[m.key_span.range()]).unwrap();
                    assert_eq!(key, m.key);
                    check_spans(text, &m.value);
                }
            }
            _ => {}
        }
    }

    fn err(text: &str) -> JsonError {
        parse(text).expect_err(text)
    }

    #[test]
    fn samples_parse_to_what_serde_json_reads_with_exact_spans() {
        for text in [JACKSON, INDENTED, COMPACT] {
            let root = parse(text).unwrap();
            assert_eq!(root.span, Span::new(0, text.len()));
            assert_eq!(
                to_serde(&root),
                serde_json::from_str::<serde_json::Value>(text).unwrap()
            );
            check_spans(text, &root);
        }
    }

    #[test]
    fn zero_edits_round_trip_byte_for_byte() {
        for text in [JACKSON, INDENTED, COMPACT, " \r\n[ 1 ,2 ]\t\n"] {
            parse(text).unwrap();
            assert_eq!(Edits::new().apply(text).as_deref(), Ok(text));
        }
    }

    #[test]
    fn spans_exclude_surrounding_whitespace() {
        let text = " \n{ \"a\" :\t[ 1 , \"x\" ] } \n";
        let root = parse(text).unwrap();
        assert_eq!(&text[root.span.range()], "{ \"a\" :\t[ 1 , \"x\" ] }");
        let members = root.as_object().unwrap();
        assert_eq!(&text[members[0].key_span.range()], "\"a\"");
        let items = root.get("a").and_then(Node::as_array).unwrap();
        assert_eq!(&text[items[0].span.range()], "1");
        assert_eq!(&text[items[1].span.range()], "\"x\"");
    }

    #[test]
    fn strings_borrow_unless_escaped() {
        let root =
            parse(r#"["plain €", "esc\"aped", "\u00e9\ud83d\ude00\/\b\f\n\r\t\\"]"#).unwrap();
        let items = root.as_array().unwrap();
        assert!(matches!(
            &items[0].value,
            Value::String(Cow::Borrowed("plain €"))
        ));
        assert!(matches!(&items[1].value, Value::String(Cow::Owned(s)) if s == "esc\"aped"));
        assert_eq!(items[2].as_str(), Some("é😀/\u{8}\u{c}\n\r\t\\"));
    }

    #[test]
    fn numbers_are_kept_verbatim() {
        let text = "[1.0, 1e3, -0, 12345678901234567890, 1E+2, -0.5e-7, 0]";
        let root = parse(text).unwrap();
        let raw: Vec<_> = root
            .as_array()
            .unwrap()
            .iter()
            .map(|n| match n.value {
                Value::Number(raw) => raw,
                _ => panic!("not a number"),
            })
            .collect();
        assert_eq!(
            raw,
            [
                "1.0",
                "1e3",
                "-0",
                "12345678901234567890",
                "1E+2",
                "-0.5e-7",
                "0"
            ]
        );
        let items = root.as_array().unwrap();
        assert_eq!(items[0].as_i64(), None);
        assert_eq!(items[1].as_i64(), None);
        assert_eq!(items[2].as_i64(), Some(0));
        assert_eq!(items[3].as_i64(), None);
        assert_eq!(items[3].as_u64(), Some(12_345_678_901_234_567_890));
        assert_eq!(items[2].as_u64(), None);
    }

    #[test]
    fn accessors_and_kind_names() {
        let root = parse(r#"{"n":null,"b":true,"i":-7,"s":"x","a":[],"o":{}}"#).unwrap();
        let kinds: Vec<_> = root
            .as_object()
            .unwrap()
            .iter()
            .map(|m| m.value.kind_name())
            .collect();
        assert_eq!(
            kinds,
            ["null", "boolean", "number", "string", "array", "object"]
        );
        assert_eq!(root.get("b").and_then(Node::as_bool), Some(true));
        assert_eq!(root.get("i").and_then(Node::as_i64), Some(-7));
        assert_eq!(root.get("s").and_then(Node::as_str), Some("x"));
        assert_eq!(
            root.get("a").and_then(Node::as_array).map(<[_]>::len),
            Some(0)
        );
        assert_eq!(
            root.get("o").and_then(Node::as_object).map(<[_]>::len),
            Some(0)
        );
        assert_eq!(root.get("missing"), None);
        assert_eq!(root.get("s").and_then(|s| s.get("x")), None);
        assert_eq!(root.get("s").and_then(Node::as_i64), None);
    }

    #[test]
    fn each_error_kind_has_its_offset_and_message() {
        let cases: &[(&str, usize, usize, &str)] = &[
            ("", 0, 0, "expected a JSON value, found end of input"),
            ("  ", 2, 0, "expected a JSON value, found end of input"),
            ("[1,]", 2, 1, "trailing comma is not allowed in JSON"),
            (
                "{\"a\":1 ,\n}",
                7,
                1,
                "trailing comma is not allowed in JSON",
            ),
            ("[1 // one\n]", 3, 2, "comments are not allowed in JSON"),
            ("/* x */ 1", 0, 2, "comments are not allowed in JSON"),
            (
                "[01]",
                1,
                2,
                "number has a leading zero, which JSON does not allow",
            ),
            (
                "-007",
                0,
                4,
                "number has a leading zero, which JSON does not allow",
            ),
            ("[-]", 2, 1, "expected a digit, found `]`"),
            ("1.", 2, 0, "expected a digit, found end of input"),
            ("1.e5", 2, 2, "expected a digit, found `e5`"),
            ("1e+", 3, 0, "expected a digit, found end of input"),
            ("-Infinity", 1, 8, "expected a digit, found `Infinity`"),
            (".5", 0, 1, "expected a JSON value, found `.`"),
            ("[True]", 1, 4, "expected a JSON value or `]`, found `True`"),
            ("[1, nul]", 4, 3, "expected a JSON value, found `nul`"),
            ("truex", 0, 5, "expected a JSON value, found `truex`"),
            ("{'a':1}", 1, 1, "expected a string key or `}`, found `'`"),
            ("{\"a\":1, 2}", 8, 1, "expected a string key, found `2`"),
            ("{\"a\" 1}", 5, 1, "expected `:`, found `1`"),
            ("{\"a\":1 \"b\":2}", 7, 1, "expected `,` or `}`, found `\"`"),
            ("[1 2]", 3, 1, "expected `,` or `]`, found `2`"),
            ("[1", 2, 0, "expected `,` or `]`, found end of input"),
            (
                "{\"a\":\n",
                6,
                0,
                "expected a JSON value, found end of input",
            ),
            ("[\"a\\x\"]", 3, 2, "invalid escape `\\x` in string"),
            ("\"\\é\"", 1, 3, "invalid escape `\\é` in string"),
            (
                "\"\\\n\"",
                1,
                2,
                "invalid escape in string: `\\` followed by character U+000A",
            ),
            (
                "\"\\u12G4\"",
                1,
                4,
                "invalid unicode escape: `\\u` must be followed by four hex digits",
            ),
            (
                "\"\\u12",
                1,
                4,
                "invalid unicode escape: `\\u` must be followed by four hex digits",
            ),
            (
                "\"\\ud83d\"",
                1,
                6,
                "unicode escape `\\uD83D` is half of a UTF-16 surrogate pair with no other half",
            ),
            (
                "\"x\\ud83d\\u0041\"",
                2,
                6,
                "unicode escape `\\uD83D` is half of a UTF-16 surrogate pair with no other half",
            ),
            (
                "\"\\ude00\"",
                1,
                6,
                "unicode escape `\\uDE00` is half of a UTF-16 surrogate pair with no other half",
            ),
            (
                "\"\\ud83d\\uZZ\"",
                7,
                2,
                "invalid unicode escape: `\\u` must be followed by four hex digits",
            ),
            (
                "\"a\tb\"",
                2,
                1,
                "control character U+0009 must be escaped inside a string",
            ),
            (
                "[\"a\\\"\nb\"]",
                5,
                1,
                "control character U+000A must be escaped inside a string",
            ),
            ("[\"abc", 1, 1, "string is never closed"),
            ("\"abc\\", 0, 1, "string is never closed"),
            (
                "{\"a\":1,\"a\":2}",
                7,
                3,
                "duplicate key \"a\" in one object",
            ),
            (
                "{} {}",
                3,
                1,
                "expected end of input after the JSON value, found `{`",
            ),
            (
                "1 2",
                2,
                1,
                "expected end of input after the JSON value, found `2`",
            ),
            (
                "{}\u{0}",
                2,
                1,
                "expected end of input after the JSON value, found character U+0000",
            ),
            (
                "\u{feff}{}",
                0,
                3,
                "file starts with a UTF-8 byte order mark (U+FEFF), which JSON does not allow",
            ),
        ];
        for &(text, offset, len, message) in cases {
            let e = err(text);
            assert_eq!(
                (e.offset, e.len, e.to_string().as_str()),
                (offset, len, message),
                "{text:?}"
            );
        }
    }

    #[test]
    fn duplicate_keys_report_both_places() {
        let text = "{\n  \"id\" : 1,\n  \"i\\u0064\" : 2\n}";
        let e = err(text);
        assert_eq!(
            e.kind,
            JsonErrorKind::DuplicateKey {
                key: "id".into(),
                first: Span::new(4, 8)
            }
        );
        assert_eq!(&text[e.span().range()], "\"i\\u0064\"");
        assert_eq!(line_col(text, e.offset), (3, 3));
        let labels: Vec<_> = miette::Diagnostic::labels(&e).unwrap().collect();
        assert_eq!(labels.len(), 2);
        assert_eq!((labels[1].offset(), labels[1].len()), (4, 4));
        assert_eq!(labels[1].label(), Some("first defined here"));
    }

    #[test]
    fn duplicate_keys_in_large_objects_are_found() {
        let mut text = String::from("{");
        for i in 0..1000 {
            text.push_str(&format!("\"k{i}\":{i},"));
        }
        assert!(parse(&format!("{}\"end\":0}}", text)).is_ok());
        let e = err(&format!("{text}\"k\\u0037\":0}}"));
        assert!(
            matches!(&e.kind, JsonErrorKind::DuplicateKey { key, .. } if key == "k7"),
            "{e:?}"
        );
        let JsonErrorKind::DuplicateKey { first, .. } = e.kind else {
            unreachable!()
        };
        assert_eq!(&text[first.range()], "\"k7\"");
    }

    #[test]
    fn nesting_is_capped_not_a_stack_overflow() {
        let e = err(&"[".repeat(100_000));
        assert_eq!((e.offset, e.len), (MAX_DEPTH, 1));
        assert_eq!(e.kind, JsonErrorKind::TooDeep { limit: 512 });
        assert_eq!(
            e.to_string(),
            "arrays and objects are nested more than 512 levels deep"
        );

        let deepest = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&deepest).is_ok());
        let objects = format!("{}1{}", "{\"a\":".repeat(MAX_DEPTH), "}".repeat(MAX_DEPTH));
        assert!(parse(&objects).is_ok());
        let too_deep = format!("{}1{}", "{\"a\":[".repeat(300), "]}".repeat(300));
        assert_eq!(err(&too_deep).kind, JsonErrorKind::TooDeep { limit: 512 });
    }

    #[test]
    fn bytes_must_be_utf8_without_bom() {
        let e = parse_bytes(b"[\"ab\xff\"]").unwrap_err();
        assert_eq!(
            (e.offset, e.len, e.kind),
            (4, 1, JsonErrorKind::InvalidUtf8)
        );
        let e = parse_bytes(b"\"\xe2\x82").unwrap_err();
        assert_eq!(
            (e.offset, e.len, e.kind),
            (1, 2, JsonErrorKind::InvalidUtf8)
        );
        let e = parse_bytes(b"\xef\xbb\xbf{}").unwrap_err();
        assert_eq!(
            (e.offset, e.len, e.kind),
            (0, 3, JsonErrorKind::ByteOrderMark)
        );
        assert!(parse_bytes(JACKSON.as_bytes()).is_ok());
    }

    #[test]
    fn help_for_common_mistakes() {
        let help = |text: &str| err(text).kind.help();
        assert_eq!(
            help("[None]"),
            Some("JSON literals are lowercase: `true`, `false`, `null`")
        );
        assert_eq!(help("NaN"), Some("JSON numbers cannot be NaN or infinite"));
        assert_eq!(help("['a']"), Some("JSON strings use double quotes"));
        assert_eq!(help("[1]x"), None);
    }

    /// Truncated files (every prefix, cut at every byte) and garbage never panic, and a proper
    /// prefix of a document is never mistaken for a whole one.
    #[test]
    fn no_input_panics() {
        for text in [JACKSON, INDENTED, COMPACT] {
            let bytes = text.as_bytes();
            let full = text.trim_end().len();
            for cut in 0..bytes.len() {
                let result = parse_bytes(&bytes[..cut]);
                if cut < full {
                    assert!(result.is_err(), "prefix of {cut} bytes parsed");
                }
                if let Some(prefix) = text.get(..cut) {
                    let _ = parse(prefix);
                }
            }
        }
        let garbage: &[&[u8]] = &[
            b"",
            b" ",
            b"\0",
            b"\"",
            b"\\",
            b"[",
            b"]",
            b"{",
            b"}",
            b":",
            b",",
            b"-",
            b"--1",
            b"0x1F",
            b"1e",
            b"1e-",
            b"+1",
            b"[,]",
            b"[,1]",
            b"{,}",
            b"{\"a\"}",
            b"{\"a\":}",
            b"{:1}",
            b"{1:1}",
            b"\"\\u\"",
            b"\"\\ud800\\\"",
            b"\"\\ud800\\u\"",
            b"\"\\",
            b"\"\\u00",
            b"[[[[]]]",
            b"]]]",
            b"\xff",
            b"\xc3",
            b"\"\xc3\"",
            b"\xef\xbb",
            b"tru",
            b"fals",
            b"nul",
            b"\"\x7f\"",
            b"/",
            b"/*",
            b"[1]//",
            b"\t\r\n",
            b"\"\\/\"",
            b"[\"\xe2\x82\xac\xe2\"]",
            b"{\"\xf0\x9f\x98\x80\":1,\"\xf0\x9f\x98\x80\":2}",
        ];
        for input in garbage {
            let _ = parse_bytes(input);
        }
    }

    /// Random byte changes to a real document: we accept exactly what serde_json accepts, except
    /// the duplicate keys that only we reject.
    #[test]
    fn mutations_agree_with_serde_json() {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet = b" \t\n\r{}[],:\"\\/-+.0123456789eEtrufalsn\x00\x1f\xc3\xa9\xff";
        for text in [JACKSON, INDENTED, COMPACT] {
            for _ in 0..3000 {
                let mut bytes = text.as_bytes().to_vec();
                for _ in 0..=(next() % 3) {
                    let at = (next() as usize) % bytes.len();
                    let b = alphabet[(next() as usize) % alphabet.len()];
                    match next() % 3 {
                        0 => bytes[at] = b,
                        1 => bytes.insert(at, b),
                        _ => {
                            bytes.remove(at);
                        }
                    }
                }
                let ours = parse_bytes(&bytes);
                let theirs = serde_json::from_slice::<serde_json::Value>(&bytes);
                match (&ours, &theirs) {
                    (Err(e), Ok(_)) if matches!(e.kind, JsonErrorKind::DuplicateKey { .. }) => {}
                    // RFC 8259 numbers have no range; serde_json refuses what overflows an f64.
                    (Ok(_), Err(e)) if e.to_string().starts_with("number out of range") => {}
                    (Ok(root), Ok(value)) => assert_eq!(&to_serde(root), value),
                    (Err(_), Err(_)) => {}
                    _ => assert_eq!(
                        ours.as_ref().err(),
                        None,
                        "{:?}, which serde_json reads as {:?}",
                        String::from_utf8_lossy(&bytes),
                        theirs.map(|_| ()),
                    ),
                }
            }
        }
    }
}
