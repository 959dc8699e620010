//! From `saphyr-parser` events to a [`YamlNode`] tree.
//!
//! The event parser does the YAML grammar; this file turns its stream of start/scalar/end events
//! into a tree with an explicit stack (no recursion, so nesting depth costs heap, not call stack),
//! converts its char-counted markers into byte offsets, and enforces what plain data needs: one
//! document, unique scalar keys, no anchors, aliases or tags, bounded depth.

use std::borrow::Cow;
use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span as CharSpan};

use super::Span;
use super::error::{YamlError, YamlErrorKind};
use super::node::{YamlEntry, YamlNode, YamlValue};
use super::scalar::resolve_plain;

/// Deepest nesting of sequences and mappings accepted, as for JSON ([`crate::json::MAX_DEPTH`]):
/// far beyond any real schema, and small enough that code walking the tree recursively is safe.
pub const MAX_DEPTH: usize = 512;

/// Flow collections (`[...]`, `{...}`) nest at most this deep: saphyr's scanner counts flow
/// levels in a `u8` and stops with an error past it, which we report as [`YamlErrorKind::TooDeep`].
pub const MAX_FLOW_DEPTH: usize = 255;

/// The message saphyr's scanner gives when flow collections nest past [`MAX_FLOW_DEPTH`].
const SCANNER_DEPTH_MESSAGE: &str = "recursion limit exceeded";

/// saphyr's message for `*name` with no `&name` before it. Since we reject every anchor, that is
/// the only way an alias reaches us: report it as the alias it is.
const SCANNER_UNKNOWN_ANCHOR: &str = "unknown anchor";

/// Parses one YAML document into a spanned tree.
///
/// A text with no document at all (empty, or only comments) is a null at offset 0, as YAML
/// defines it; whether that is acceptable is the caller's business.
pub fn parse(text: &str) -> Result<YamlNode, YamlError> {
    let offsets = Offsets::new(text);
    let mut builder = Builder {
        text,
        stack: Vec::new(),
        root: None,
        documents: 0,
    };
    let mut parser = Parser::new_from_str(text);
    while let Some(next) = parser.next_event() {
        let (event, span) = next.map_err(|e| scan_error(text, &offsets, &e))?;
        if builder.event(event, offsets.span(span))? == Step::Done {
            break;
        }
    }
    Ok(builder.root.unwrap_or(YamlNode {
        span: Span::empty(0),
        value: YamlValue::Null,
    }))
}

/// Char index to byte offset. saphyr counts chars; everything in fieldgate counts bytes.
struct Offsets {
    /// The byte offset of each char, then the text length; `None` for ASCII text, where the two
    /// counts agree and no table is needed.
    table: Option<Vec<usize>>,
    len: usize,
}

impl Offsets {
    fn new(text: &str) -> Offsets {
        let table = (!text.is_ascii()).then(|| {
            text.char_indices()
                .map(|(byte, _)| byte)
                .chain(std::iter::once(text.len()))
                .collect()
        });
        Offsets {
            table,
            len: text.len(),
        }
    }

    /// Clamped to the text, so a marker past the end (which saphyr never gives) cannot panic a
    /// later slice.
    fn byte(&self, char_index: usize) -> usize {
        match &self.table {
            None => char_index.min(self.len),
            Some(table) => table.get(char_index).copied().unwrap_or(self.len),
        }
    }

    fn span(&self, span: CharSpan) -> Span {
        Span::new(self.byte(span.start.index()), self.byte(span.end.index()))
    }
}

fn scan_error(text: &str, offsets: &Offsets, error: &ScanError) -> YamlError {
    let start = offsets.byte(error.marker().index());
    let mut end = offsets.byte(error.marker().index() + 1);
    let kind = if error.info() == SCANNER_DEPTH_MESSAGE {
        YamlErrorKind::TooDeep {
            limit: MAX_FLOW_DEPTH,
        }
    } else if error.info().ends_with(SCANNER_UNKNOWN_ANCHOR) {
        // The marker is on the `*`; cover the whole `*name`.
        let rest = text.get(start..).unwrap_or_default();
        end = start
            + rest
                .find(|c: char| c.is_whitespace() || ",]}".contains(c))
                .unwrap_or(rest.len());
        YamlErrorKind::Alias
    } else {
        YamlErrorKind::Syntax(error.info().to_owned())
    };
    YamlError {
        span: Span::new(start, end),
        kind,
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Step {
    More,
    Done,
}

struct Frame {
    /// Byte offset of the first char: the bracket of a flow collection, the first entry of a
    /// block one.
    start: usize,
    flow: bool,
    kind: FrameKind,
}

enum FrameKind {
    Seq(Vec<YamlNode>),
    Map {
        entries: Vec<YamlEntry>,
        /// Each key's span, to report a duplicate at both places.
        keys: HashMap<String, Span>,
        /// A key whose value has not come yet.
        pending: Option<(String, Span)>,
    },
}

impl Frame {
    fn last_end(&self) -> Option<usize> {
        match &self.kind {
            FrameKind::Seq(items) => items.last().map(|n| n.span.end),
            FrameKind::Map { entries, .. } => entries.last().map(|e| e.value.span.end),
        }
    }
}

struct Builder<'a> {
    text: &'a str,
    stack: Vec<Frame>,
    root: Option<YamlNode>,
    documents: usize,
}

impl Builder<'_> {
    fn event(&mut self, event: Event<'_>, span: Span) -> Result<Step, YamlError> {
        match event {
            Event::StreamStart | Event::DocumentEnd | Event::Nothing => {}
            Event::StreamEnd => return Ok(Step::Done),
            Event::DocumentStart(_) => {
                if self.documents > 0 {
                    return Err(YamlError {
                        span,
                        kind: YamlErrorKind::MultipleDocuments,
                    });
                }
                self.documents += 1;
            }
            Event::Alias(_) => {
                return Err(YamlError {
                    span,
                    kind: YamlErrorKind::Alias,
                });
            }
            Event::Scalar(value, style, anchor, tag) => {
                self.reject_properties(anchor, tag.is_some(), span)?;
                let node = self.scalar(value, style, span);
                self.attach(node)?;
            }
            Event::SequenceStart(anchor, tag) => {
                self.reject_properties(anchor, tag.is_some(), span)?;
                self.open(span, FrameKind::Seq(Vec::new()))?;
            }
            Event::MappingStart(anchor, tag) => {
                self.reject_properties(anchor, tag.is_some(), span)?;
                let kind = FrameKind::Map {
                    entries: Vec::new(),
                    keys: HashMap::new(),
                    pending: None,
                };
                self.open(span, kind)?;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let node = self.close(span)?;
                self.attach(node)?;
            }
        }
        Ok(Step::More)
    }

    /// Anchors and tags come before the value, so the event's span starts with them; the error
    /// points at the `&name` or `!tag` token itself.
    fn reject_properties(&self, anchor: usize, tagged: bool, span: Span) -> Result<(), YamlError> {
        if anchor != 0 {
            return Err(YamlError {
                span: self.property_span(span, '&'),
                kind: YamlErrorKind::Anchor,
            });
        }
        if tagged {
            let at = self.property_span(span, '!');
            let written = self.text.get(at.range()).unwrap_or("!").to_owned();
            return Err(YamlError {
                span: at,
                kind: YamlErrorKind::Tag(written),
            });
        }
        Ok(())
    }

    /// The whitespace-delimited token starting with `sigil` at the start of `span`, or `span`
    /// itself if there is none.
    fn property_span(&self, span: Span, sigil: char) -> Span {
        let Some(slice) = self.text.get(span.range()) else {
            return span;
        };
        let mut token_start = 0;
        for (i, c) in slice
            .char_indices()
            .chain(std::iter::once((slice.len(), ' ')))
        {
            if c.is_whitespace() {
                if slice[token_start..i].starts_with(sigil) {
                    return Span::new(span.start + token_start, span.start + i);
                }
                token_start = i + c.len_utf8();
            }
        }
        span
    }

    fn scalar(&self, value: Cow<'_, str>, style: ScalarStyle, span: Span) -> YamlNode {
        match style {
            ScalarStyle::Plain if value.is_empty() => {
                // saphyr puts the empty value of `key:` at the colon (and of `{a}` on the `}`);
                // an empty span just after the colon is where a value would be written.
                let at = span.start;
                let at = if self.text.as_bytes().get(at) == Some(&b':') {
                    at + 1
                } else {
                    at
                };
                YamlNode {
                    span: Span::empty(at),
                    value: YamlValue::Null,
                }
            }
            ScalarStyle::Plain => YamlNode {
                span,
                value: resolve_plain(&value),
            },
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => YamlNode {
                span,
                value: YamlValue::String(value.into_owned()),
            },
            ScalarStyle::Literal | ScalarStyle::Folded => {
                // A block scalar's span runs over the blank lines after it; stop at its text.
                let body = self.text.get(span.range()).unwrap_or_default();
                YamlNode {
                    span: Span::new(span.start, span.start + body.trim_end().len()),
                    value: YamlValue::String(value.into_owned()),
                }
            }
        }
    }

    fn open(&mut self, span: Span, kind: FrameKind) -> Result<(), YamlError> {
        if self.stack.len() >= MAX_DEPTH {
            let end = (span.start + 1).min(self.text.len());
            return Err(YamlError {
                span: Span::new(span.start, end.max(span.start)),
                kind: YamlErrorKind::TooDeep { limit: MAX_DEPTH },
            });
        }
        let flow = matches!(self.text.as_bytes().get(span.start), Some(b'[' | b'{'));
        self.stack.push(Frame {
            start: span.start,
            flow,
            kind,
        });
        Ok(())
    }

    /// A flow collection ends at its closing bracket (the end event's span); a block one at the
    /// end of its last value, since its end event sits wherever the next token is.
    fn close(&mut self, span: Span) -> Result<YamlNode, YamlError> {
        let Some(frame) = self.stack.pop() else {
            return Err(YamlError {
                span,
                kind: YamlErrorKind::Syntax("unexpected end of a collection".into()),
            });
        };
        let end = if frame.flow {
            span.end
        } else {
            frame.last_end().unwrap_or(frame.start)
        };
        let value = match frame.kind {
            FrameKind::Seq(items) => YamlValue::Seq(items),
            FrameKind::Map { entries, .. } => YamlValue::Map(entries),
        };
        Ok(YamlNode {
            span: Span::new(frame.start, end.max(frame.start)),
            value,
        })
    }

    fn attach(&mut self, node: YamlNode) -> Result<(), YamlError> {
        let Some(frame) = self.stack.last_mut() else {
            self.root = Some(node);
            return Ok(());
        };
        match &mut frame.kind {
            FrameKind::Seq(items) => items.push(node),
            FrameKind::Map {
                entries,
                keys,
                pending,
            } => match pending.take() {
                Some((key, key_span)) => entries.push(YamlEntry {
                    key,
                    key_span,
                    value: node,
                }),
                None => {
                    let key = key_text(self.text, &node)?;
                    if let Some(&first) = keys.get(&key) {
                        return Err(YamlError {
                            span: node.span,
                            kind: YamlErrorKind::DuplicateKey { key, first },
                        });
                    }
                    keys.insert(key.clone(), node.span);
                    *pending = Some((key, node.span));
                }
            },
        }
        Ok(())
    }
}

/// A key as a string: a string key decoded, any other scalar as written (`1`, `true`, `~`).
fn key_text(text: &str, node: &YamlNode) -> Result<String, YamlError> {
    match &node.value {
        YamlValue::String(s) | YamlValue::Int(s) | YamlValue::Float(s) => Ok(s.clone()),
        YamlValue::Null | YamlValue::Bool(_) => {
            Ok(text.get(node.span.range()).unwrap_or_default().to_owned())
        }
        YamlValue::Seq(_) | YamlValue::Map(_) => Err(YamlError {
            span: node.span,
            kind: YamlErrorKind::ComplexKey(node.kind_name()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A schema file in both styles, with comments, a block scalar and non-ASCII text.
    const SAMPLE: &str = "\
# the users dimension
table: lake_prod.dim_users
format-version: 2
fields:
  - {id: 1, name: id, type: long, required: true, doc: user id}
  - id: 4
    name: adresse_été   # non-ASCII name
    doc: 'Straße, \"quoted\"'
    type:
      struct:
        - {id: 5, name: city, type: string}
  - {id: 9, name: attrs, type: {map: [string, string], key-id: 10, value-id: 11}}
partition: [bucket(16, id)]
empty:
notes: |
  first line
  second line

dropped: []
";

    fn err(text: &str) -> YamlError {
        match parse(text) {
            Ok(node) => panic!("{text:?} parsed as {node:?}"),
            Err(e) => e,
        }
    }

    fn snippet(text: &str, span: Span) -> &str {
        &text[span.range()]
    }

    fn entry<'n>(node: &'n YamlNode, key: &str) -> &'n YamlEntry {
        node.as_map()
            .and_then(|m| m.iter().find(|e| e.key == key))
            .unwrap_or_else(|| panic!("no key {key}"))
    }

    #[test]
    fn block_style_spans() {
        let root = parse(SAMPLE).unwrap();
        let text = SAMPLE;
        assert!(snippet(text, root.span).starts_with("table: lake_prod"));
        assert!(snippet(text, root.span).ends_with("dropped: []"));
        let table = entry(&root, "table");
        assert_eq!(snippet(text, table.key_span), "table");
        assert_eq!(snippet(text, table.value.span), "lake_prod.dim_users");

        let fields = root.get("fields").unwrap();
        assert!(snippet(text, fields.span).starts_with("- {id: 1"));
        assert!(snippet(text, fields.span).ends_with("value-id: 11}}"));
        let second = &fields.as_seq().unwrap()[1];
        assert!(snippet(text, second.span).starts_with("id: 4\n    name: adresse_été"));
        assert!(snippet(text, second.span).ends_with("type: string}"));
        assert_eq!(
            snippet(text, second.get("name").unwrap().span),
            "adresse_été"
        );
        assert_eq!(
            snippet(text, second.get("doc").unwrap().span),
            "'Straße, \"quoted\"'"
        );
        assert_eq!(
            second.get("doc").unwrap().as_str(),
            Some("Straße, \"quoted\"")
        );
        let nested = second.get("type").and_then(|t| t.get("struct")).unwrap();
        assert_eq!(
            snippet(text, nested.span),
            "- {id: 5, name: city, type: string}"
        );

        // A block scalar stops at its text, not at the blank line after it.
        let notes = root.get("notes").unwrap();
        assert_eq!(notes.as_str(), Some("first line\nsecond line\n"));
        assert_eq!(snippet(text, notes.span), "first line\n  second line");

        // `empty:` has an empty value just after its colon.
        let empty = root.get("empty").unwrap();
        assert!(empty.is_null());
        assert!(empty.span.is_empty());
        assert_eq!(
            &text[..empty.span.start],
            &text[..text.find("empty:").unwrap() + 6]
        );
    }

    #[test]
    fn flow_style_spans() {
        let root = parse(SAMPLE).unwrap();
        let text = SAMPLE;
        let first = &root.get("fields").unwrap().as_seq().unwrap()[0];
        assert_eq!(
            snippet(text, first.span),
            "{id: 1, name: id, type: long, required: true, doc: user id}"
        );
        let doc = entry(first, "doc");
        assert_eq!(snippet(text, doc.key_span), "doc");
        assert_eq!(snippet(text, doc.value.span), "user id");
        let attrs_type = root.get("fields").unwrap().as_seq().unwrap()[2]
            .get("type")
            .unwrap();
        assert_eq!(
            snippet(text, attrs_type.span),
            "{map: [string, string], key-id: 10, value-id: 11}"
        );
        let map = attrs_type.get("map").unwrap();
        assert_eq!(snippet(text, map.span), "[string, string]");
        assert_eq!(snippet(text, map.as_seq().unwrap()[1].span), "string");
        assert_eq!(snippet(text, root.get("dropped").unwrap().span), "[]");

        // Flow collections may span lines.
        let text = "- [a,\n   \"b\"]\n- {k: v,\n   w: x}\n";
        let root = parse(text).unwrap();
        let items = root.as_seq().unwrap();
        assert_eq!(snippet(text, items[0].span), "[a,\n   \"b\"]");
        assert_eq!(snippet(text, items[0].as_seq().unwrap()[1].span), "\"b\"");
        assert_eq!(snippet(text, items[1].span), "{k: v,\n   w: x}");
        assert_eq!(
            snippet(text, root.span),
            "- [a,\n   \"b\"]\n- {k: v,\n   w: x}"
        );
    }

    #[test]
    fn offsets_are_bytes_with_non_ascii_text() {
        let text = "名前: \"値 😀\"\n説明: {é: ü, x: [ß, 1]}\n";
        let root = parse(text).unwrap();
        let name = entry(&root, "名前");
        assert_eq!(snippet(text, name.key_span), "名前");
        assert_eq!(snippet(text, name.value.span), "\"値 😀\"");
        let doc = root.get("説明").unwrap();
        assert_eq!(snippet(text, doc.span), "{é: ü, x: [ß, 1]}");
        assert_eq!(snippet(text, entry(doc, "é").key_span), "é");
        assert_eq!(snippet(text, doc.get("é").unwrap().span), "ü");
        let list = doc.get("x").unwrap().as_seq().unwrap();
        assert_eq!(snippet(text, list[0].span), "ß");
        assert_eq!(snippet(text, list[1].span), "1");

        // A BOM is allowed in YAML and counted in the offsets.
        let text = "\u{feff}a: 1\n";
        let root = parse(text).unwrap();
        assert_eq!(snippet(text, root.get("a").unwrap().span), "1");

        // CRLF line ends are two bytes, and never part of a value.
        let text = "a: 1\r\nb:\r\n  - x\r\n  - {k: \"é\"}\r\nc: |\r\n  t\r\n\r\n";
        let root = parse(text).unwrap();
        assert_eq!(
            snippet(text, root.get("b").unwrap().span),
            "- x\r\n  - {k: \"é\"}"
        );
        assert_eq!(snippet(text, root.get("c").unwrap().span), "t");

        // Errors too are in bytes.
        let text = "é: [ü\n";
        let e = err(text);
        assert_eq!(e.span.start, text.len());
    }

    #[test]
    fn scalars_resolve_by_the_core_schema_and_quotes_make_strings() {
        let text = "\
plain: [true, FALSE, null, ~, 12, -0x1F, 0x1F, 0o17, 1.5, .inf, yes, no, 2024-01-01, v1.2]
quoted: ['true', \"12\", \"null\", '']
block: |
  12
";
        let root = parse(text).unwrap();
        let kinds = |key: &str| -> Vec<&'static str> {
            root.get(key)
                .and_then(YamlNode::as_seq)
                .unwrap()
                .iter()
                .map(YamlNode::kind_name)
                .collect()
        };
        assert_eq!(
            kinds("plain"),
            [
                "boolean", "boolean", "null", "null", "integer", "string", "integer", "integer",
                "float", "float", "string", "string", "string", "string"
            ]
        );
        assert_eq!(kinds("quoted"), ["string"; 4]);
        assert_eq!(root.get("block").and_then(YamlNode::as_str), Some("12\n"));

        let plain = root.get("plain").and_then(YamlNode::as_seq).unwrap();
        assert_eq!(plain[0].as_bool(), Some(true));
        assert_eq!(plain[1].as_bool(), Some(false));
        assert_eq!(plain[4].as_i64(), Some(12));
        assert_eq!(plain[4].value, YamlValue::Int("12".into()));
        assert_eq!(plain[6].as_i64(), Some(31));
        assert_eq!(plain[7].as_i64(), Some(15));
        assert_eq!(plain[8].as_i64(), None);
        assert_eq!(plain[8].as_f64(), Some(1.5));
        assert_eq!(plain[8].value, YamlValue::Float("1.5".into()));
        assert_eq!(plain[9].as_f64(), Some(f64::INFINITY));
        assert_eq!(plain[10].as_str(), Some("yes"));
        assert_eq!(plain[13].as_str(), Some("v1.2"));
    }

    #[test]
    fn accessors_and_kind_names() {
        let root = parse("{n: null, b: true, i: -7, f: 0.5, s: x, q: [], m: {}}").unwrap();
        let kinds: Vec<_> = root
            .as_map()
            .unwrap()
            .iter()
            .map(|e| e.value.kind_name())
            .collect();
        assert_eq!(
            kinds,
            [
                "null", "boolean", "integer", "float", "string", "sequence", "mapping"
            ]
        );
        assert_eq!(root.get("i").and_then(YamlNode::as_i64), Some(-7));
        assert_eq!(root.get("s").and_then(YamlNode::as_str), Some("x"));
        assert_eq!(
            root.get("q").and_then(YamlNode::as_seq).map(<[_]>::len),
            Some(0)
        );
        assert_eq!(
            root.get("m").and_then(YamlNode::as_map).map(<[_]>::len),
            Some(0)
        );
        assert_eq!(root.get("missing"), None);
        assert_eq!(root.get("s").and_then(|s| s.get("x")), None);
        assert_eq!(root.get("b").and_then(YamlNode::as_str), None);

        // Scalar keys other than strings are kept as written.
        let root = parse("1: a\ntrue: b\n~: c\n'q': d\n").unwrap();
        let keys: Vec<_> = root
            .as_map()
            .unwrap()
            .iter()
            .map(|e| e.key.as_str())
            .collect();
        assert_eq!(keys, ["1", "true", "~", "q"]);
    }

    #[test]
    fn empty_texts_are_null() {
        for text in ["", "\n", "# only a comment\n", "---\n", "--- # c\n...\n"] {
            let root = parse(text).unwrap();
            assert!(root.is_null(), "{text:?}");
        }
    }

    #[test]
    fn each_error_kind_has_its_span_and_message() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "a: [1, 2\n",
                "",
                "while parsing a flow sequence, expected ',' or ']'",
            ),
            (
                "a: 1\n b: 2\n",
                ":",
                "mapping values are not allowed in this context",
            ),
            (
                "a: 'x\n",
                "'",
                "while scanning a quoted scalar, found unexpected end of stream",
            ),
            (
                "a:\n\t- b\n",
                "-",
                "tabs disallowed within this context (block indentation)",
            ),
            (
                "a: 1\nb: 2\na: 3\n",
                "a",
                "duplicate key \"a\" in one mapping",
            ),
            (
                "{\"x\": 1, x: 2}",
                "x",
                "duplicate key \"x\" in one mapping",
            ),
            (
                "a: &base 1\n",
                "&base",
                "YAML anchors (`&name`) are not supported",
            ),
            (
                "a:\n  &x\n  b: 1\n",
                "&x",
                "YAML anchors (`&name`) are not supported",
            ),
            (
                "a: [&x 1]\n",
                "&x",
                "YAML anchors (`&name`) are not supported",
            ),
            (
                "b: *base\n",
                "*base",
                "YAML aliases (`*name`) are not supported",
            ),
            (
                "b: [*x, 1]\n",
                "*x",
                "YAML aliases (`*name`) are not supported",
            ),
            (
                "a: !!str 1\n",
                "!!str",
                "YAML tags such as `!!str` are not supported",
            ),
            (
                "a: !local {b: 1}\n",
                "!local",
                "YAML tags such as `!local` are not supported",
            ),
            (
                "--- !!map\na: 1\n",
                "!!map",
                "YAML tags such as `!!map` are not supported",
            ),
            (
                "? [a, b]\n: 1\n",
                "[a, b]",
                "a mapping key must be a scalar, found a sequence",
            ),
            (
                "{a: 1}: x\n",
                "{a: 1}",
                "a mapping key must be a scalar, found a mapping",
            ),
            (
                "a: 1\n---\nb: 2\n",
                "---",
                "the file holds more than one YAML document",
            ),
            (
                "a: 1\n...\nb: 2\n",
                "",
                "the file holds more than one YAML document",
            ),
        ];
        for &(text, at, message) in cases {
            let e = err(text);
            assert_eq!(
                (snippet(text, e.span), e.to_string().as_str()),
                (at, message),
                "{text:?}"
            );
        }
    }

    #[test]
    fn duplicate_keys_report_both_places() {
        let text = "fields: 1\nname: x\nfields: 2\n";
        let e = err(text);
        let YamlErrorKind::DuplicateKey { key, first } = &e.kind else {
            panic!("{e:?}")
        };
        assert_eq!(key, "fields");
        assert_eq!(first.range(), 0..6);
        assert_eq!(e.span.range(), 18..24);
        let labels: Vec<_> = miette::Diagnostic::labels(&e).unwrap().collect();
        assert_eq!(labels.len(), 2);
        assert_eq!((labels[1].offset(), labels[1].len()), (0, 6));
        assert_eq!(labels[1].label(), Some("first defined here"));
        assert_eq!(e.kind.code(), "yaml::duplicate-key");
    }

    #[test]
    fn nesting_is_capped_not_a_stack_overflow() {
        // Block nesting: one `-` per level, all on one line.
        let deepest = format!("{}x", "- ".repeat(MAX_DEPTH));
        assert!(parse(&deepest).is_ok());
        let too_deep = format!("{}x", "- ".repeat(MAX_DEPTH + 1));
        let e = err(&too_deep);
        assert_eq!(e.kind, YamlErrorKind::TooDeep { limit: MAX_DEPTH });
        assert_eq!(e.span.start, 2 * MAX_DEPTH);
        assert_eq!(
            e.to_string(),
            "sequences and mappings are nested more than 512 levels deep"
        );
        let e = err(&"- ".repeat(100_000));
        assert_eq!(e.kind, YamlErrorKind::TooDeep { limit: MAX_DEPTH });

        // Flow nesting stops earlier, in the scanner.
        let flow = format!(
            "{}{}",
            "[".repeat(MAX_FLOW_DEPTH),
            "]".repeat(MAX_FLOW_DEPTH)
        );
        assert!(parse(&flow).is_ok());
        let e = err(&"[".repeat(100_000));
        assert_eq!(
            e.kind,
            YamlErrorKind::TooDeep {
                limit: MAX_FLOW_DEPTH
            }
        );
        assert_eq!(e.span.start, MAX_FLOW_DEPTH);
    }

    #[test]
    fn help_for_what_we_reject() {
        assert!(
            err("a: *x")
                .kind
                .help()
                .unwrap()
                .contains("write the value out")
        );
        assert!(
            err("a: !!int '1'")
                .kind
                .help()
                .unwrap()
                .contains("quote it")
        );
        assert_eq!(
            err("a:\n\t- b\n").kind.help(),
            Some("YAML indents with spaces, never tabs")
        );
    }

    /// Truncated files (every prefix, at every char boundary) and mutated ones never panic, and
    /// every error span lies inside the text on char boundaries.
    #[test]
    fn no_input_panics() {
        let check = |text: &str| {
            if let Err(e) = parse(text) {
                assert!(
                    e.span.start <= e.span.end && e.span.end <= text.len(),
                    "{text:?}: {e:?}"
                );
                assert!(text.get(e.span.range()).is_some(), "{text:?}: {e:?}");
            }
        };
        for text in [SAMPLE, "名前: \"値 😀\"\n説明: {é: ü, x: [ß, 1]}\n"] {
            for (cut, _) in text.char_indices() {
                check(&text[..cut]);
            }
        }
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet: Vec<char> = " \t\n\r{}[],:-?#&*!|>'\"%@`~.0a1é\u{feff}\\"
            .chars()
            .collect();
        for _ in 0..4000 {
            let mut chars: Vec<char> = SAMPLE.chars().collect();
            for _ in 0..=(next() % 4) {
                let at = (next() as usize) % chars.len();
                let c = alphabet[(next() as usize) % alphabet.len()];
                match next() % 3 {
                    0 => chars[at] = c,
                    1 => chars.insert(at, c),
                    _ => {
                        chars.remove(at);
                    }
                }
            }
            check(&chars.into_iter().collect::<String>());
        }
    }
}
