//! SARIF 2.1.0 for code scanning upload: one run, `tool.driver.rules` from the rule catalogue
//! (the same text as `fieldgate explain`), a result per finding with its physical location, the
//! quoted text as the region's snippet and the whole statement as its context region, related
//! places as `relatedLocations`. A run that could not judge reports `executionSuccessful: false`
//! with the located problems as tool execution notifications; a migration a routed run left out
//! as applied at HEAD is a `note` notification on its file.
//!
//! Columns count Unicode code points (`columnKind`), as `finding::line_col` does. Artifact URIs
//! are the paths as given on the command line, made URI references (relative paths stay
//! relative, so code scanning resolves them against the repository root; absolute ones become
//! `file://` URIs). `.ci/run` validates this output with Microsoft's SARIF Multitool.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::change::Origin;
use crate::finding::{Finding, Severity, line_col, locate};
use crate::report::{INPUT_ERROR, Reporter, Run};
use crate::rules::catalogue::{RuleDoc, catalogue};

pub const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

pub struct Sarif;

impl Reporter for Sarif {
    fn write(&self, run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
        let docs = catalogue().map_err(io::Error::other)?;
        serde_json::to_writer_pretty(&mut *out, &document(run, docs))?;
        writeln!(out)
    }
}

fn document(run: &Run<'_>, docs: &[RuleDoc]) -> Value {
    let rules: Vec<Value> = docs.iter().map(rule).collect();
    let results: Vec<Value> = run
        .findings()
        .into_iter()
        .map(|f| result(run, f, docs))
        .collect();
    let mut notifications: Vec<Value> = run
        .errors()
        .iter()
        .map(|e| {
            let mut n = Map::new();
            n.insert("descriptor".into(), json!({"id": INPUT_ERROR}));
            n.insert("level".into(), "error".into());
            n.insert("message".into(), message(&e.message, e.help.as_deref()));
            if let Some(origin) = &e.origin {
                n.insert("locations".into(), json!([location(origin, None)]));
            }
            Value::Object(n)
        })
        .collect();
    notifications.extend(
        run.applied_files()
            .iter()
            .map(|(file, tables)| applied(file, tables)),
    );
    let mut invocation = Map::new();
    invocation.insert("executionSuccessful".into(), run.failure.is_none().into());
    if !notifications.is_empty() {
        invocation.insert("toolExecutionNotifications".into(), notifications.into());
    }
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "fieldgate",
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "invocations": [Value::Object(invocation)],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

/// A migration left out because HEAD has it applied: a note on the file, which was not analysed.
fn applied(file: &str, tables: &[&str]) -> Value {
    let tables: Vec<String> = tables.iter().map(|t| format!("`{t}`")).collect();
    json!({
        "descriptor": {"id": APPLIED},
        "level": "note",
        "message": {"text": format!(
            "Not judged: already applied at HEAD (HEAD holds it unchanged, and the committed metadata of {} holds its changes).",
            tables.join(", ")
        )},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri_reference(file)}}}],
    })
}

/// The notification id of a migration left out as applied.
const APPLIED: &str = "applied-migration";

/// A catalogue entry as a `reportingDescriptor`.
fn rule(doc: &RuleDoc) -> Value {
    let configuration = match doc.severity {
        Some(severity) => json!({"level": level(severity)}),
        None => json!({"enabled": false}),
    };
    let why = sentence(&unwrap_paragraphs(&doc.why));
    let fix = sentence(&unwrap_paragraphs(&doc.fix));
    let mut r = Map::new();
    r.insert("id".into(), doc.name.clone().into());
    // SARIF wants a friendly name that differs from the id, and none when it would only
    // differ in case (`suppression` / `Suppression`).
    let name = pascal_case(&doc.name);
    if !name.eq_ignore_ascii_case(&doc.name) {
        r.insert("name".into(), name.into());
    }
    r.insert(
        "shortDescription".into(),
        json!({"text": sentence(&doc.summary)}),
    );
    r.insert("fullDescription".into(), json!({"text": why}));
    r.insert(
        "help".into(),
        json!({"text": fix, "markdown": format!("{fix}\n\n**Why:** {why}")}),
    );
    r.insert("defaultConfiguration".into(), configuration);
    Value::Object(r)
}

fn result(run: &Run<'_>, f: &Finding, docs: &[RuleDoc]) -> Value {
    let mut r = Map::new();
    r.insert("ruleId".into(), f.rule.into());
    if let Some(index) = docs.iter().position(|d| d.name == f.rule) {
        r.insert("ruleIndex".into(), index.into());
    }
    r.insert("level".into(), level(f.severity).into());
    r.insert("message".into(), message(&f.message, f.help.as_deref()));
    // Code scanning needs a file for every result: a finding about the table as a whole is
    // reported at the start of the table's metadata file, and says so.
    let place = match &f.origin {
        Some(origin) => Some(location(origin, None)),
        None => run
            .fallback_origin(f)
            .map(|o| file_location(&o.source.name, &o.source.text)),
    };
    if let Some(place) = place {
        r.insert("locations".into(), json!([place]));
    }
    let related: Vec<Value> = f
        .related
        .iter()
        .enumerate()
        .filter_map(|(i, rel)| {
            let origin = rel.origin.as_ref()?;
            let mut l = location(origin, Some(&rel.message));
            if let Value::Object(m) = &mut l {
                m.insert("id".into(), (i + 1).into());
            }
            Some(l)
        })
        .collect();
    if !related.is_empty() {
        r.insert("relatedLocations".into(), related.into());
    }
    let mut properties = Map::new();
    properties.insert("table".into(), f.table.clone().into());
    if let Some(field) = &f.field {
        properties.insert("field".into(), field.clone().into());
    }
    if let Some(id) = f.field_id {
        properties.insert("fieldId".into(), id.into());
    }
    r.insert("properties".into(), Value::Object(properties));
    Value::Object(r)
}

/// A whole file, for a finding about the table as a whole: code scanning requires a region
/// with a start line, SARIF's whole-artifact form is all its lines, and the location's message
/// says there is no more precise place.
fn file_location(file: &str, text: &str) -> Value {
    let lines = text.trim_end_matches('\n').split('\n').count().max(1);
    json!({
        "physicalLocation": {
            "artifactLocation": {"uri": uri_reference(file)},
            "region": {"startLine": 1, "endLine": lines},
        },
        "message": {"text": "The table's metadata: the finding is about the table as a whole, not a place in the proposal."},
    })
}

/// A `location` with a physical location: the focus as the region, quoting it, and the whole
/// statement (or metadata node) around it as the context region.
fn location(origin: &Origin, text: Option<&str>) -> Value {
    let l = locate(origin);
    let source_text = &origin.source.text;
    let mut physical = Map::new();
    physical.insert(
        "artifactLocation".into(),
        json!({"uri": uri_reference(&l.file)}),
    );
    let mut region = json!({
        "startLine": l.line,
        "startColumn": l.column,
        "endLine": l.end_line,
        "endColumn": l.end_column,
    });
    if let (Value::Object(m), Some(snippet)) =
        (&mut region, source_text.get(l.span.offset..l.span.end()))
        && !snippet.is_empty()
    {
        m.insert("snippet".into(), json!({"text": snippet}));
    }
    physical.insert("region".into(), region);
    // The context is the whole lines of the statement and the focus (a suppression comment sits
    // above its statement), so a reader sees the statement, not a fragment. SARIF requires it
    // to be a proper superset of the region, so it is left out when it adds nothing.
    let start = origin.statement.offset.min(origin.focus.offset);
    let end = origin.statement.end().max(origin.focus.end());
    if let Some((context_start, lines)) = whole_lines(source_text, start, end)
        && (context_start < origin.focus.offset || context_start + lines.len() > origin.focus.end())
        && lines.len() <= 4096
    {
        let (start_line, _) = line_col(source_text, context_start);
        let (end_line, _) = line_col(source_text, context_start + lines.len());
        physical.insert(
            "contextRegion".into(),
            json!({"startLine": start_line, "endLine": end_line, "snippet": {"text": lines}}),
        );
    }
    let mut location = Map::new();
    location.insert("physicalLocation".into(), Value::Object(physical));
    if let Some(text) = text {
        location.insert("message".into(), json!({"text": sentence(text)}));
    }
    Value::Object(location)
}

/// The lines `start..end` touch, without the final line break, and where they start.
fn whole_lines(text: &str, start: usize, end: usize) -> Option<(usize, &str)> {
    let start = text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
    let end = text.get(end..)?.find('\n').map_or(text.len(), |i| end + i);
    let lines = text.get(start..end)?.trim_end_matches('\r');
    Some((start, lines))
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// The message and its help as sentences (SARIF asks for complete sentences ending in a period).
fn message(text: &str, help: Option<&str>) -> Value {
    let mut out = sentence(&escape_links(text));
    if let Some(help) = help {
        out.push_str(&format!(" Help: {}", sentence(&escape_links(help))));
    }
    json!({"text": out})
}

/// `text` ending in a period, unless it already ends a sentence.
fn sentence(text: &str) -> String {
    let text = text.trim_end();
    if text.ends_with(['.', '!', '?']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

/// SARIF reads `[text](target)` in a message as an embedded link; a literal `](` is escaped.
fn escape_links(text: &str) -> String {
    text.replace("](", "\\](")
}

/// Catalogue text is wrapped at 100 columns; SARIF viewers wrap themselves, so lines within a
/// paragraph are joined and paragraphs kept apart.
fn unwrap_paragraphs(text: &str) -> String {
    text.split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// `type-narrowing` -> `TypeNarrowing`, the friendly rule name SARIF asks for.
fn pascal_case(name: &str) -> String {
    name.split('-')
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// A file path as a URI reference: relative paths stay relative with `/` separators, absolute
/// ones become `file://` URIs; everything but unreserved characters and `/` is percent-encoded
/// (a `:` in a relative path would otherwise read as a scheme).
pub fn uri_reference(path: &str) -> String {
    let bytes = path.as_bytes();
    let windows_drive = bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes[2], b'\\' | b'/');
    // Backslashes separate directories only on Windows; elsewhere they are part of a name.
    let unified = if windows_drive || cfg!(windows) {
        path.replace('\\', "/")
    } else {
        path.to_string()
    };
    let encode = |text: &str| -> String {
        let mut out = String::new();
        for byte in text.bytes() {
            if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
                out.push(char::from(byte));
            } else {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
        out
    };
    if windows_drive {
        // Keep the drive's colon: `file:///C:/dir/x.sql`.
        format!("file:///{}:{}", &unified[..1], encode(&unified[2..]))
    } else if unified.starts_with('/') {
        format!("file://{}", encode(&unified))
    } else {
        encode(unified.trim_start_matches("./"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(
            uri_reference("migrations/0001 add.sql"),
            "migrations/0001%20add.sql"
        );
        assert_eq!(uri_reference("./a:b#c.sql"), "a%3Ab%23c.sql");
        assert_eq!(uri_reference("/tmp/t/ä.sql"), "file:///tmp/t/%C3%A4.sql");
        assert_eq!(uri_reference("C:\\dir\\x.sql"), "file:///C:/dir/x.sql");
    }

    #[test]
    fn names_and_sentences() {
        assert_eq!(pascal_case("type-narrowing"), "TypeNarrowing");
        assert_eq!(sentence("a thing"), "a thing.");
        assert_eq!(sentence("done."), "done.");
        assert_eq!(unwrap_paragraphs("a\nb\n\nc\n"), "a b\n\nc");
        assert_eq!(escape_links("x[1](y)"), "x[1\\](y)");
    }
}
