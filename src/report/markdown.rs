//! A Markdown report for `$GITHUB_STEP_SUMMARY` or a pull request comment: the verdict, the
//! findings as a table, suppressed findings with their reasons, and per changed table its fields
//! before and after (id, path, type, required) with each change marked, which is what a reviewer
//! needs to see without reading the DDL, and how its sample data files read under the new schema.
//!
//! Everything from the input (messages, names, types) is escaped for GitHub-flavoured Markdown:
//! `|` would end a table cell, `<` would start HTML (`struct<a: int>` would vanish), and line
//! breaks would end the row.

use std::collections::BTreeSet;
use std::io::{self, Write};

use crate::finding::{Severity, locate};
use crate::iceberg::schema::FieldInfo;
use crate::iceberg::types::{FieldId, Type};
use crate::report::{Reporter, Run};
use crate::session::table::Judgement;
use crate::verify::gate::Verification;
use crate::verify::report::{bytes, column_notes};

/// Tables with more fields than this show only their changed fields.
const FULL_TABLE_LIMIT: usize = 40;

pub struct Markdown;

impl Reporter for Markdown {
    fn write(&self, run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
        let mark = if run.passed { "✅" } else { "❌" };
        writeln!(out, "## {mark} fieldgate {}", run.verdict())?;
        let errors = run.errors();
        if !errors.is_empty() {
            writeln!(out)?;
            writeln!(out, "The proposal could not be judged:")?;
            writeln!(out)?;
            for e in &errors {
                let place = e
                    .location()
                    .map(|l| format!("{} ", code(&format!("{}:{}:{}", l.file, l.line, l.column))))
                    .unwrap_or_default();
                let help = e
                    .help
                    .as_ref()
                    .map(|h| format!(" (help: {})", text(h)))
                    .unwrap_or_default();
                writeln!(out, "- {place}{}{help}", text(&e.message))?;
            }
        }
        let findings = run.findings();
        if !findings.is_empty() {
            writeln!(out)?;
            writeln!(out, "### Findings")?;
            writeln!(out)?;
            writeln!(out, "| severity | rule | where | finding |")?;
            writeln!(out, "| --- | --- | --- | --- |")?;
            for f in findings {
                let place = f
                    .location()
                    .map(|l| code(&format!("{}:{}:{}", l.file, l.line, l.column)))
                    .unwrap_or_else(|| format!("table {}", code(&f.table)));
                let mut body = text(&f.message);
                if let Some(help) = &f.help {
                    body.push_str(&format!("<br>**help:** {}", text(help)));
                }
                for r in &f.related {
                    let at = r
                        .origin
                        .as_ref()
                        .map(|o| {
                            let l = locate(o);
                            format!(
                                " ({})",
                                code(&format!("{}:{}:{}", l.file, l.line, l.column))
                            )
                        })
                        .unwrap_or_default();
                    body.push_str(&format!("<br>**note:** {}{at}", text(&r.message)));
                }
                writeln!(
                    out,
                    "| {} | {} | {place} | {body} |",
                    severity(f.severity),
                    code(f.rule)
                )?;
            }
        }
        let suppressed = run.suppressed();
        if !suppressed.is_empty() {
            writeln!(out)?;
            writeln!(out, "### Suppressed")?;
            writeln!(out)?;
            writeln!(out, "| rule | where | reason | until |")?;
            writeln!(out, "| --- | --- | --- | --- |")?;
            for s in suppressed {
                let place = s
                    .finding
                    .location()
                    .map(|l| code(&format!("{}:{}", l.file, l.line)))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "| {} | {place} | {} | {} |",
                    code(s.finding.rule),
                    text(&s.reason),
                    s.until.as_deref().map(text).unwrap_or_default()
                )?;
            }
        }
        for table in &run.tables {
            write_table(table.judgement, out)?;
            if let Some(verification) = &table.judgement.verification {
                write_verification(verification, out)?;
            }
        }
        Ok(())
    }
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "**error**",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// One row of the field table: the field before and after (either may be missing).
struct Row {
    id: FieldId,
    before: Option<FieldInfo>,
    after: Option<FieldInfo>,
    changes: Vec<&'static str>,
}

fn write_table(judgement: &Judgement, out: &mut dyn Write) -> io::Result<()> {
    let after = &judgement.evolution.metadata;
    let before = judgement.before();
    writeln!(out)?;
    match before {
        Some(b)
            if b.current_schema_id == after.current_schema_id
                && judgement.evolution.applied.is_empty() =>
        {
            writeln!(out, "### {}: no schema change", code(&judgement.table))?;
            return Ok(());
        }
        Some(b) => writeln!(
            out,
            "### {}: schema {} → {}, last-column-id {} → {}",
            code(&judgement.table),
            b.current_schema_id,
            after.current_schema_id,
            b.last_column_id,
            after.last_column_id
        )?,
        None => writeln!(
            out,
            "### {}: new table, schema {}, last-column-id {}",
            code(&judgement.table),
            after.current_schema_id,
            after.last_column_id
        )?,
    }
    let rows = rows(judgement);
    let changed = rows.iter().filter(|r| !r.changes.is_empty()).count();
    let show_all = rows.len() <= FULL_TABLE_LIMIT;
    writeln!(out)?;
    writeln!(out, "| id | path | type | required | change |")?;
    writeln!(out, "| ---: | --- | --- | --- | --- |")?;
    for row in rows.iter().filter(|r| show_all || !r.changes.is_empty()) {
        let path = pair(
            row.before.as_ref().map(|f| code(&f.path)),
            row.after.as_ref().map(|f| code(&f.path)),
        );
        let path = if row.after.is_none() {
            format!("~~{path}~~")
        } else {
            path
        };
        let field_type = pair(
            row.before.as_ref().map(|f| code(&type_name(&f.field_type))),
            row.after.as_ref().map(|f| code(&type_name(&f.field_type))),
        );
        let yes_no = |f: &FieldInfo| if f.required { "yes" } else { "no" }.to_string();
        let required = pair(
            row.before.as_ref().map(yes_no),
            row.after.as_ref().map(yes_no),
        );
        let change = row
            .changes
            .iter()
            .map(|c| format!("**{c}**"))
            .collect::<Vec<_>>()
            .join(", ");
        writeln!(
            out,
            "| {} | {path} | {field_type} | {required} | {change} |",
            row.id
        )?;
    }
    if !show_all {
        writeln!(out)?;
        writeln!(
            out,
            "{} unchanged fields of {} are not shown.",
            rows.len() - changed,
            rows.len()
        )?;
    }
    Ok(())
}

/// The sample data files read under the new schema, one row each.
fn write_verification(v: &Verification, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "Reader verification: {} data file(s) read as schema {}, {} row(s).",
        v.files.len(),
        v.schema_id,
        v.rows()
    )?;
    writeln!(out)?;
    writeln!(out, "| file | rows | bytes read | reads | how |")?;
    writeln!(out, "| --- | ---: | ---: | --- | --- |")?;
    for f in &v.files {
        let how = match &f.problem {
            Some(problem) => text(problem),
            None => text(&column_notes(f).join(", ")),
        };
        writeln!(
            out,
            "| {} | {} | {} of {} | {} | {how} |",
            code(&f.path),
            f.rows,
            bytes(f.bytes_read),
            bytes(f.file_bytes),
            if f.passed() { "✅" } else { "❌" }
        )?;
    }
    Ok(())
}

/// `old → **new**` when a value changed, the value alone when not.
fn pair(before: Option<String>, after: Option<String>) -> String {
    match (before, after) {
        (Some(b), Some(a)) if b == a => a,
        (Some(b), Some(a)) => format!("{b} → **{a}**"),
        (None, Some(a)) => format!("**{a}**"),
        (Some(b), None) => b,
        (None, None) => String::new(),
    }
}

/// Nested types are shown by kind: their members have rows of their own.
fn type_name(t: &Type) -> String {
    match t {
        Type::Primitive(p) => p.to_string(),
        Type::Struct(_) => "struct".into(),
        Type::List(_) => "list".into(),
        Type::Map(_) => "map".into(),
    }
}

/// Every field of the new schema in order, with each dropped field at the place it had.
fn rows(judgement: &Judgement) -> Vec<Row> {
    let after_fields = judgement.evolution.metadata.current_schema().walk();
    let before_fields = judgement
        .before()
        .map(|b| b.current_schema().walk())
        .unwrap_or_default();
    let changes_of = |id: FieldId| -> Vec<&'static str> {
        let kinds: BTreeSet<(usize, &'static str)> = judgement
            .evolution
            .applied
            .iter()
            .enumerate()
            .filter(|(_, a)| a.field_id == Some(id))
            .map(|(i, a)| (i, a.kind.as_str()))
            .collect();
        let mut seen = Vec::new();
        for (_, k) in kinds {
            if !seen.contains(&k) {
                seen.push(k);
            }
        }
        seen
    };
    let is_new_table = judgement.before().is_none();
    let find_before = |id: FieldId| before_fields.iter().find(|f| f.id == id).cloned();
    let find_after = |id: FieldId| after_fields.iter().any(|f| f.id == id);

    // Dropped fields hang after the last field before them that is still there (None: first).
    let mut dropped: Vec<(Option<FieldId>, FieldInfo)> = Vec::new();
    let mut anchor = None;
    for f in &before_fields {
        if find_after(f.id) {
            anchor = Some(f.id);
        } else {
            dropped.push((anchor, f.clone()));
        }
    }
    let dropped_row = |f: &FieldInfo| Row {
        id: f.id,
        before: Some(f.clone()),
        after: None,
        changes: {
            let c = changes_of(f.id);
            if c.is_empty() { vec!["drop"] } else { c }
        },
    };
    let mut rows: Vec<Row> = dropped
        .iter()
        .filter(|(a, _)| a.is_none())
        .map(|(_, f)| dropped_row(f))
        .collect();
    for f in &after_fields {
        let mut changes = changes_of(f.id);
        let before = find_before(f.id);
        if changes.is_empty() && before.is_none() {
            // Members of an added struct, list or map have no change of their own.
            changes.push(if is_new_table { "create" } else { "add" });
        }
        rows.push(Row {
            id: f.id,
            before,
            after: Some(f.clone()),
            changes,
        });
        rows.extend(
            dropped
                .iter()
                .filter(|(a, _)| *a == Some(f.id))
                .map(|(_, d)| dropped_row(d)),
        );
    }
    rows
}

/// Inline code, with `|` escaped for the table and backticks in the text fenced by longer runs.
pub fn code(text: &str) -> String {
    let text = one_line(text).replace('|', "\\|");
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

/// Prose from the input: Markdown and HTML syntax outside code spans is escaped; code spans
/// (`` `name` ``, as messages quote names) are kept, with only `|` escaped inside.
pub fn text(input: &str) -> String {
    let input = one_line(input);
    let chars: Vec<char> = input.chars().collect();
    let mut out = String::with_capacity(input.len());
    let mut in_code = false;
    for (i, &c) in chars.iter().enumerate() {
        // GFM never reads an underscore inside a word (`lake_prod`) as emphasis; only one at a
        // word's edge needs escaping.
        let inside_word = |i: usize| {
            let alnum = |j: Option<usize>| {
                j.and_then(|j| chars.get(j))
                    .is_some_and(|c| c.is_alphanumeric())
            };
            alnum(i.checked_sub(1)) && alnum(Some(i + 1))
        };
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '|' => out.push_str("\\|"),
            _ if in_code => out.push(c),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '_' if inside_word(i) => out.push(c),
            '\\' | '*' | '_' | '[' | ']' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

fn one_line(text: &str) -> String {
    crate::report::one_line(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_text_cannot_break_the_table_or_become_html() {
        assert_eq!(
            text("`a|b` is struct<x: int> | *bold*\nnext"),
            "`a\\|b` is struct&lt;x: int&gt; \\| \\*bold\\* next"
        );
        assert_eq!(code("map<string, long>"), "`map<string, long>`");
        assert_eq!(text("lake_prod _x_"), "lake_prod \\_x\\_");
        assert_eq!(code("a`b|c"), "`` a`b\\|c ``");
    }
}
