//! GitLab Code Quality JSON (a subset of the Code Climate issue format): an array of issues with
//! `description`, `check_name`, `fingerprint`, `severity` and `location.path` / `location.lines`,
//! the fields GitLab reads to show findings in merge requests.
//!
//! GitLab compares reports of the source and target branch by `fingerprint`, so it must not change
//! when unrelated lines move: it hashes the rule, table, field, file and message (not the line),
//! plus a counter for identical findings. Every issue needs a file: a finding with no place in
//! the proposal is reported at line 1 of its table's metadata file, and the description says so.

use std::collections::HashMap;
use std::io::{self, Write};

use serde_json::{Value, json};

use crate::finding::{Finding, Severity};
use crate::report::{INPUT_ERROR, Reporter, Run};

pub struct Gitlab;

impl Reporter for Gitlab {
    fn write(&self, run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
        let mut issues = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut fingerprint = |parts: &[&str]| {
            let key = parts.join("\u{0}");
            let n = seen.entry(key.clone()).or_insert(0);
            *n += 1;
            hash_hex(&format!("{key}\u{0}{n}"))
        };
        for f in run.findings() {
            let (path, begin, end, description) = place(run, f);
            let field = f.field.clone().unwrap_or_default();
            issues.push(json!({
                "description": description,
                "check_name": f.rule,
                "fingerprint": fingerprint(&[f.rule, &f.table, &field, &path, &f.message]),
                "severity": severity(f.severity),
                "location": {"path": path, "lines": {"begin": begin, "end": end}},
            }));
        }
        for e in run.errors() {
            // An input error with no file (an unreadable path) has nowhere to be shown; GitLab
            // rejects issues without a path, so it is left to the log (stderr).
            let Some(l) = e.location() else {
                continue;
            };
            issues.push(json!({
                "description": e.message,
                "check_name": INPUT_ERROR,
                "fingerprint": fingerprint(&[INPUT_ERROR, &l.file, &e.message]),
                "severity": "blocker",
                "location": {"path": l.file, "lines": {"begin": l.line, "end": l.end_line}},
            }));
        }
        serde_json::to_writer_pretty(&mut *out, &Value::Array(issues))?;
        writeln!(out)
    }
}

/// The file, first and last line, and description of a finding's issue.
fn place(run: &Run<'_>, f: &Finding) -> (String, usize, usize, String) {
    if let Some(l) = f.location() {
        return (l.file, l.line, l.end_line, f.message.clone());
    }
    let path = run
        .fallback_origin(f)
        .map(|o| o.source.name.clone())
        .unwrap_or_default();
    let description = format!("{} (about the table as a whole)", f.message);
    (path, 1, 1, description)
}

/// Code Quality severities: `info`, `minor`, `major`, `critical`, `blocker`. A failing finding
/// is major; blocker is kept for a run that could not judge at all.
fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Note => "info",
    }
}

/// 128 bits of FNV-1a (two 64-bit passes with different offsets) as hex: stable across runs,
/// platforms and Rust versions, unlike `std`'s hasher, and no extra dependency.
fn hash_hex(text: &str) -> String {
    let fnv = |offset: u64| {
        text.bytes().fold(offset, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    format!(
        "{:016x}{:016x}",
        fnv(0xcbf2_9ce4_8422_2325),
        fnv(0x6c62_272e_07bb_0142)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_stable_fnv() {
        // FNV-1a 64 of "a" is af63dc4c8601ec8c.
        assert!(hash_hex("a").starts_with("af63dc4c8601ec8c"));
        assert_eq!(hash_hex("x").len(), 32);
        assert_ne!(hash_hex("x"), hash_hex("y"));
    }
}
