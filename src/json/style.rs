//! The formatting style of a JSON file, and rendering new values in it.
//!
//! A patched metadata file must look as if its writer had produced it, so the reviewer's diff
//! shows only the schema change. Three writers matter: pyiceberg (pydantic's compact output),
//! Iceberg Java (Jackson's `DefaultPrettyPrinter`) and `json.dumps(indent=N)` / serde_json pretty
//! for hand-made and tool-made files. [`Style::detect`] recognises them from the parsed text;
//! [`write_value`] renders a `serde_json::Value` the way that writer would at a given indentation.

use std::fmt::Write as _;

use super::node::{Node, Value};

/// How a JSON file is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// One line. `spaced: false` is pyiceberg / pydantic / serde_json (`{"a":1,"b":[1,2]}`);
    /// `spaced: true` is Python's `json.dumps` default (`{"a": 1, "b": [1, 2]}`).
    Compact { spaced: bool },
    /// Jackson's `DefaultPrettyPrinter`, as Iceberg Java writes metadata: `"key" : value`, one
    /// member per line, arrays inline (`[ 1, 2 ]`, `[ {` … `}, {` … `} ]`), empty `[ ]` and `{ }`.
    /// Only objects indent, so an object inside an array sits at the array's line indentation.
    Jackson { indent: Indent, newline: Newline },
    /// One member or element per line, `"key": value`, empty `[]` and `{}`: Python
    /// `json.dumps(indent=N)`, serde_json `to_string_pretty`, JavaScript `JSON.stringify(v, null, N)`.
    Indented { indent: Indent, newline: Newline },
}

/// One level of indentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Indent {
    Spaces(usize),
    Tabs(usize),
}

/// The line ending (Jackson uses the platform's, so files written on Windows have CRLF).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Newline {
    Lf,
    CrLf,
}

impl Indent {
    fn push_to(self, out: &mut String) {
        let (c, n) = match self {
            Indent::Spaces(n) => (' ', n),
            Indent::Tabs(n) => ('\t', n),
        };
        out.extend(std::iter::repeat_n(c, n));
    }
}

impl Newline {
    fn as_str(self) -> &'static str {
        match self {
            Newline::Lf => "\n",
            Newline::CrLf => "\r\n",
        }
    }
}

impl Style {
    /// Recognises the style of `text`, whose parsed root is `root`.
    ///
    /// Rules, in order:
    /// 1. no line break inside the root value: [`Style::Compact`], spaced if the first member's
    ///    colon (or else the first array comma) is followed by a space;
    /// 2. otherwise the indentation unit is the whitespace that starts the first line break inside
    ///    the root, less the root line's own indentation; the line ending is that break's;
    /// 3. [`Style::Jackson`] if the first member has whitespace before its colon (`"k" : v`), or,
    ///    in a document without members, the first non-empty array keeps its first element on the
    ///    line of its `[`; else [`Style::Indented`].
    pub fn detect(text: &str, root: &Node<'_>) -> Style {
        let body = text.get(root.span.range()).unwrap_or("");
        let member = first_member_gap(text, root);
        let Some(break_at) = body.find('\n') else {
            let gap = member.or_else(|| first_array_gap(text, root, GapKind::Between));
            return Style::Compact {
                spaced: gap.is_some_and(|g| g.ends_with(' ')),
            };
        };
        let newline = if body[..break_at].ends_with('\r') {
            Newline::CrLf
        } else {
            Newline::Lf
        };
        let base = line_indent(text, root.span.start);
        let next_line = &body[break_at + 1..];
        let ws = &next_line[..next_line.len() - next_line.trim_start_matches([' ', '\t']).len()];
        let unit = ws.strip_prefix(base).unwrap_or(ws);
        let indent = if !unit.is_empty() && unit.bytes().all(|b| b == b'\t') {
            Indent::Tabs(unit.len())
        } else {
            Indent::Spaces(unit.len())
        };
        let jackson = match member {
            Some(gap) => gap.starts_with([' ', '\t', '\r', '\n']),
            None => {
                first_array_gap(text, root, GapKind::Opening).is_some_and(|g| !g.contains('\n'))
            }
        };
        if jackson {
            Style::Jackson { indent, newline }
        } else {
            Style::Indented { indent, newline }
        }
    }

    /// The separator between two members or elements written on one line.
    pub(super) fn inline_comma(&self) -> &'static str {
        match self {
            Style::Compact { spaced: false } => ",",
            _ => ", ",
        }
    }

    /// The separator between a key and its value.
    pub(super) fn colon(&self) -> &'static str {
        match self {
            Style::Compact { spaced: false } => ":",
            Style::Compact { spaced: true } | Style::Indented { .. } => ": ",
            Style::Jackson { .. } => " : ",
        }
    }
}

/// The leading spaces and tabs of the line that contains `offset`.
pub(super) fn line_indent(text: &str, offset: usize) -> &str {
    let bytes = text.as_bytes();
    let end = offset.min(bytes.len());
    let start = memchr::memrchr(b'\n', &bytes[..end]).map_or(0, |i| i + 1);
    let len = bytes[start..end]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    &text[start..start + len]
}

/// Text between the key and the value of the first member in document order.
fn first_member_gap<'t>(text: &'t str, root: &Node<'_>) -> Option<&'t str> {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match &node.value {
            Value::Object(members) => {
                if let Some(m) = members.first() {
                    return text.get(m.key_span.end..m.value.span.start);
                }
            }
            Value::Array(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    None
}

#[derive(Clone, Copy)]
enum GapKind {
    /// Between `[` and the first element.
    Opening,
    /// Between the first and the second element.
    Between,
}

/// A gap in the first array (in document order) that has enough elements for `kind`.
fn first_array_gap<'t>(text: &'t str, root: &Node<'_>, kind: GapKind) -> Option<&'t str> {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match &node.value {
            Value::Array(items) => {
                let gap = match (kind, items.as_slice()) {
                    (GapKind::Opening, [first, ..]) => {
                        Some((node.span.start + 1, first.span.start))
                    }
                    (GapKind::Between, [first, second, ..]) => {
                        Some((first.span.end, second.span.start))
                    }
                    _ => None,
                };
                if let Some((start, end)) = gap {
                    return text.get(start..end);
                }
                stack.extend(items.iter().rev());
            }
            Value::Object(members) => stack.extend(members.iter().rev().map(|m| &m.value)),
            _ => {}
        }
    }
    None
}

/// Renders `value` in `style` as it would appear starting on a line indented `depth` levels:
/// a multi-line object's members go one level deeper and its closing brace at `depth`.
///
/// Object keys keep the order of the `serde_json::Value` (fieldgate enables `preserve_order`).
/// Strings escape only what JSON requires (quote, backslash, control characters); other
/// characters, non-ASCII included, are written as they are.
pub fn write_value(value: &serde_json::Value, style: &Style, depth: usize) -> String {
    let mut base = String::new();
    if let Style::Jackson { indent, .. } | Style::Indented { indent, .. } = style {
        for _ in 0..depth {
            indent.push_to(&mut base);
        }
    }
    let mut out = String::new();
    write_at(&mut out, value, style, &base);
    out
}

/// Like [`write_value`], with the indentation of the current line given as text: patches copy it
/// from the file, so a new value lines up with its siblings even if the file is irregular.
pub(super) fn write_at(out: &mut String, value: &serde_json::Value, style: &Style, base: &str) {
    use serde_json::Value as J;
    match value {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Number(n) => {
            let _ = write!(out, "{n}");
        }
        J::String(s) => write_string(out, s, style),
        J::Array(items) => write_array(out, items, style, base),
        J::Object(members) => write_object(out, members, style, base),
    }
}

fn write_array(out: &mut String, items: &[serde_json::Value], style: &Style, base: &str) {
    match style {
        Style::Compact { .. } => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(style.inline_comma());
                }
                write_at(out, item, style, base);
            }
            out.push(']');
        }
        Style::Jackson { .. } => {
            if items.is_empty() {
                out.push_str("[ ]");
                return;
            }
            out.push_str("[ ");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_at(out, item, style, base);
            }
            out.push_str(" ]");
        }
        Style::Indented { indent, newline } => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            let mut inner = base.to_owned();
            indent.push_to(&mut inner);
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(newline.as_str());
                out.push_str(&inner);
                write_at(out, item, style, &inner);
            }
            out.push_str(newline.as_str());
            out.push_str(base);
            out.push(']');
        }
    }
}

fn write_object(
    out: &mut String,
    members: &serde_json::Map<String, serde_json::Value>,
    style: &Style,
    base: &str,
) {
    let (indent, newline) = match style {
        Style::Compact { .. } => {
            out.push('{');
            for (i, (key, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(style.inline_comma());
                }
                write_string(out, key, style);
                out.push_str(style.colon());
                write_at(out, value, style, base);
            }
            out.push('}');
            return;
        }
        Style::Jackson { indent, newline } | Style::Indented { indent, newline } => {
            (indent, newline)
        }
    };
    if members.is_empty() {
        out.push_str(if matches!(style, Style::Jackson { .. }) {
            "{ }"
        } else {
            "{}"
        });
        return;
    }
    let mut inner = base.to_owned();
    indent.push_to(&mut inner);
    out.push('{');
    for (i, (key, value)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(newline.as_str());
        out.push_str(&inner);
        write_string(out, key, style);
        out.push_str(style.colon());
        write_at(out, value, style, &inner);
    }
    out.push_str(newline.as_str());
    out.push_str(base);
    out.push('}');
}

/// A JSON string literal. Control characters without a short escape become `\u00XX`, in
/// uppercase hex for Jackson (as it writes them) and lowercase otherwise (serde_json, Python).
pub(super) fn write_string(out: &mut String, s: &str, style: &Style) {
    out.push('"');
    let mut segment = 0;
    for (i, b) in s.bytes().enumerate() {
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..0x20 => "",
            _ => continue,
        };
        out.push_str(&s[segment..i]);
        segment = i + 1;
        if short.is_empty() {
            let _ = if matches!(style, Style::Jackson { .. }) {
                write!(out, "\\u{b:04X}")
            } else {
                write!(out, "\\u{b:04x}")
            };
        } else {
            out.push_str(short);
        }
    }
    out.push_str(&s[segment..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use crate::json::samples::{COMPACT, INDENTED, JACKSON};

    fn detect(text: &str) -> Style {
        Style::detect(text, &parse(text).unwrap())
    }

    fn serde(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    const JACKSON_2: Style = Style::Jackson {
        indent: Indent::Spaces(2),
        newline: Newline::Lf,
    };
    const INDENTED_2: Style = Style::Indented {
        indent: Indent::Spaces(2),
        newline: Newline::Lf,
    };

    #[test]
    fn detects_each_writer() {
        assert_eq!(detect(JACKSON), JACKSON_2);
        assert_eq!(detect(INDENTED), INDENTED_2);
        assert_eq!(detect(COMPACT), Style::Compact { spaced: false });
        assert_eq!(
            detect(r#"{"a": 1, "b": [1, 2]}"#),
            Style::Compact { spaced: true }
        );
        assert_eq!(detect("[1, [2]]"), Style::Compact { spaced: true });
        assert_eq!(detect("[[],{}]"), Style::Compact { spaced: false });
        assert_eq!(detect("{}"), Style::Compact { spaced: false });
        assert_eq!(detect("  7 "), Style::Compact { spaced: false });
    }

    #[test]
    fn detects_indent_unit_and_line_ending() {
        let jackson4 = "{\r\n    \"a\" : [ {\r\n        \"b\" : 1\r\n    } ]\r\n}";
        assert_eq!(
            detect(jackson4),
            Style::Jackson {
                indent: Indent::Spaces(4),
                newline: Newline::CrLf
            }
        );
        let tabs = "{\n\t\"a\": [\n\t\t1\n\t]\n}";
        assert_eq!(
            detect(tabs),
            Style::Indented {
                indent: Indent::Tabs(1),
                newline: Newline::Lf
            }
        );
        // json.dumps(indent=0): line breaks, no indentation.
        assert_eq!(
            detect("{\n\"a\": 1\n}"),
            Style::Indented {
                indent: Indent::Spaces(0),
                newline: Newline::Lf
            }
        );
        // Without members, arrays decide: Jackson keeps the first element on the `[` line.
        assert_eq!(
            detect("[ [ 1 ], [\n] ]"),
            Style::Jackson {
                indent: Indent::Spaces(0),
                newline: Newline::Lf
            }
        );
        assert_eq!(detect("[\n  [\n    1\n  ]\n]"), INDENTED_2);
        // A root that does not start a line: its line's indentation is not part of the unit.
        assert_eq!(detect("  {\n    \"a\" : 1\n  }"), JACKSON_2);
    }

    #[test]
    fn rendering_a_whole_sample_reproduces_it() {
        assert_eq!(write_value(&serde(JACKSON), &JACKSON_2, 0), JACKSON);
        assert_eq!(write_value(&serde(INDENTED), &INDENTED_2, 0), INDENTED);
        assert_eq!(
            write_value(&serde(COMPACT), &Style::Compact { spaced: false }, 0),
            COMPACT
        );
    }

    #[test]
    fn matches_serde_json_and_python_writers() {
        let value = serde(JACKSON);
        assert_eq!(
            write_value(&value, &INDENTED_2, 0),
            serde_json::to_string_pretty(&value).unwrap()
        );
        assert_eq!(
            write_value(&value, &Style::Compact { spaced: false }, 0),
            serde_json::to_string(&value).unwrap()
        );
        let python_default = r#"{"a": [1, {"b": null}], "c": {}, "d": []}"#;
        assert_eq!(
            write_value(&serde(python_default), &Style::Compact { spaced: true }, 0),
            python_default
        );
    }

    #[test]
    fn depth_sets_the_indentation_of_the_first_line() {
        let value = serde(r#"{"a":[{"b":[]}],"c":{}}"#);
        assert_eq!(
            write_value(&value, &JACKSON_2, 1),
            "{\n    \"a\" : [ {\n      \"b\" : [ ]\n    } ],\n    \"c\" : { }\n  }"
        );
        assert_eq!(
            write_value(&value, &INDENTED_2, 1),
            "{\n    \"a\": [\n      {\n        \"b\": []\n      }\n    ],\n    \"c\": {}\n  }"
        );
        let tabs = Style::Indented {
            indent: Indent::Tabs(1),
            newline: Newline::CrLf,
        };
        assert_eq!(
            write_value(&serde("[1]"), &tabs, 2),
            "[\r\n\t\t\t1\r\n\t\t]"
        );
        assert_eq!(
            write_value(&serde("[1]"), &Style::Compact { spaced: false }, 3),
            "[1]"
        );
    }

    #[test]
    fn strings_escape_only_what_json_requires() {
        let value = serde_json::json!({"k\"\\": "é😀 /\u{1}\u{1f}\u{7f}\n\r\t\u{8}\u{c}"});
        assert_eq!(
            write_value(&value, &Style::Compact { spaced: false }, 0),
            "{\"k\\\"\\\\\":\"é😀 /\\u0001\\u001f\u{7f}\\n\\r\\t\\b\\f\"}"
        );
        assert_eq!(
            write_value(&value, &JACKSON_2, 0),
            "{\n  \"k\\\"\\\\\" : \"é😀 /\\u0001\\u001F\u{7f}\\n\\r\\t\\b\\f\"\n}"
        );
        // What we write, serde_json reads back unchanged.
        let written = write_value(&value, &INDENTED_2, 0);
        assert_eq!(serde(&written), value);
    }

    #[test]
    fn numbers_use_serde_json_spelling() {
        let value = serde("[0, -1, 1.5, 1e300, 18446744073709551615, -9223372036854775808]");
        assert_eq!(
            write_value(&value, &Style::Compact { spaced: false }, 0),
            "[0,-1,1.5,1e+300,18446744073709551615,-9223372036854775808]"
        );
    }
}
