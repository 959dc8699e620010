//! Getting from text to one tree: JSON converted to the YAML tree's shape, and YAML's flow
//! collections mended where a comma inside brackets split a value (see
//! [`rejoin_split_scalars`]). The reader sees one [`YamlNode`] tree either way.

use crate::json;
use crate::yaml::{self, YamlEntry, YamlNode, YamlValue};

/// The JSON tree in the YAML tree's shape, so one reader serves both formats. Numbers spelled
/// as integers become integers; any other spelling (`1.0`, `1e3`) a float, which an id rejects.
pub(super) fn from_json(node: &json::Node<'_>) -> YamlNode {
    let value = match &node.value {
        json::Value::Null => YamlValue::Null,
        json::Value::Bool(b) => YamlValue::Bool(*b),
        json::Value::Number(raw) => {
            let digits = raw.strip_prefix('-').unwrap_or(raw);
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                YamlValue::Int((*raw).to_owned())
            } else {
                YamlValue::Float((*raw).to_owned())
            }
        }
        json::Value::String(s) => YamlValue::String(s.to_string()),
        json::Value::Array(items) => YamlValue::Seq(items.iter().map(from_json).collect()),
        json::Value::Object(members) => YamlValue::Map(
            members
                .iter()
                .map(|m| YamlEntry {
                    key: m.key.to_string(),
                    key_span: m.key_span,
                    value: from_json(&m.value),
                })
                .collect(),
        ),
    };
    YamlNode {
        span: node.span,
        value,
    }
}

/// Puts back together what a YAML flow collection split at a comma inside brackets.
///
/// In `[...]` and `{...}` a comma ends an unquoted value, so YAML reads `[bucket(16, id)]` (the
/// form the schema-file design itself uses) as two items `bucket(16` and `id)`, and
/// `{type: decimal(10,2)}` as `type: decimal(10` plus a key `2)` without a value. The meaning
/// is plain to a reader, so when an unquoted scalar opens more `(` or `<` than it closes, and
/// the items (or value-less keys) after it finish the bracket, they are joined back into one
/// string, taken verbatim from the text. Anything else is left as YAML read it, and the reader
/// reports it. Other YAML tools still see the split values: quoting the value avoids it.
pub(super) fn rejoin_split_scalars(mut root: YamlNode, text: &str) -> YamlNode {
    rejoin(&mut root, text);
    root
}

fn rejoin(node: &mut YamlNode, text: &str) {
    let flow = matches!(text.as_bytes().get(node.span.start), Some(b'[' | b'{'));
    match &mut node.value {
        YamlValue::Seq(items) => {
            if flow {
                rejoin_items(items, text);
            }
            for item in items {
                rejoin(item, text);
            }
        }
        YamlValue::Map(entries) => {
            if flow {
                rejoin_entries(entries, text);
            }
            for entry in entries {
                rejoin(&mut entry.value, text);
            }
        }
        _ => {}
    }
}

fn is_plain_string(node: &YamlNode, text: &str) -> bool {
    matches!(node.value, YamlValue::String(_))
        && !matches!(text.as_bytes().get(node.span.start), Some(b'"' | b'\''))
}

/// Where the bracket that `node` leaves open closes in the text, if `node` is an unquoted
/// string that leaves one open and the bracket closes before the flow collection does.
fn open_bracket_end(node: &YamlNode, text: &str) -> Option<usize> {
    let value = node.as_str()?;
    let opens = value.bytes().filter(|b| matches!(b, b'(' | b'<')).count();
    let closes = value.bytes().filter(|b| matches!(b, b')' | b'>')).count();
    if !is_plain_string(node, text) || opens <= closes {
        return None;
    }
    let mut depth = 0usize;
    for (i, b) in text.as_bytes().iter().enumerate().skip(node.span.start) {
        match b {
            b'(' | b'<' => depth += 1,
            b')' | b'>' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'[' | b']' | b'{' | b'}' | b'#' | b'"' | b'\'' => return None,
            _ => {}
        }
    }
    None
}

fn joined(text: &str, start: usize, end: usize) -> Option<YamlNode> {
    Some(YamlNode {
        span: yaml::Span::new(start, end),
        value: YamlValue::String(text.get(start..end)?.to_owned()),
    })
}

fn rejoin_items(items: &mut Vec<YamlNode>, text: &str) {
    let mut i = 0;
    while i < items.len() {
        if let Some(end) = open_bracket_end(&items[i], text) {
            let pieces = items[i + 1..]
                .iter()
                .take_while(|n| n.span.start < end)
                .count();
            let all_plain = items[i + 1..i + 1 + pieces]
                .iter()
                .all(|n| n.span.end <= end && is_plain_string(n, text));
            if pieces > 0
                && all_plain
                && let Some(node) = joined(text, items[i].span.start, end)
            {
                items.drain(i + 1..i + 1 + pieces);
                items[i] = node;
            }
        }
        i += 1;
    }
}

fn rejoin_entries(entries: &mut Vec<YamlEntry>, text: &str) {
    let mut i = 0;
    while i < entries.len() {
        if let Some(end) = open_bracket_end(&entries[i].value, text) {
            let pieces = entries[i + 1..]
                .iter()
                .take_while(|e| e.key_span.start < end)
                .count();
            let all_value_less = entries[i + 1..i + 1 + pieces].iter().all(|e| {
                e.value.is_null()
                    && e.value.span.end <= end
                    && !matches!(text.as_bytes().get(e.key_span.start), Some(b'"' | b'\''))
            });
            if pieces > 0
                && all_value_less
                && let Some(node) = joined(text, entries[i].value.span.start, end)
            {
                entries.drain(i + 1..i + 1 + pieces);
                entries[i].value = node;
            }
        }
        i += 1;
    }
}
