//! A Markdown report for `$GITHUB_STEP_SUMMARY` or a pull request comment: the verdict, the
//! migrations left out as applied at HEAD (one line), the findings as a table, suppressed findings with their reasons, and per changed table its fields
//! before and after (id, path, type, required) with each change marked, then the changes about
//! no one field (partition spec, sort order, properties, no-op statements), which is what a
//! reviewer needs to see without reading the DDL, and how its sample data files read under the
//! new schema.
//!
//! Everything from the input (messages, names, types) is escaped for GitHub-flavoured Markdown:
//! `|` would end a table cell, `<` would start HTML (`struct<a: int>` would vanish), and line
//! breaks would end the row.

use std::collections::BTreeSet;
use std::io::{self, Write};

use crate::finding::{Severity, locate};
use crate::iceberg::schema::FieldInfo;
use crate::iceberg::types::{FieldId, Type};
use crate::plural::counted;
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
        write_applied(run, out)?;
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

/// How many applied files a summary names before it only counts the rest.
const APPLIED_NAMED: usize = 10;

/// One line naming the migrations left out because HEAD has them applied.
fn write_applied(run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
    let files = run.applied_files();
    if files.is_empty() {
        return Ok(());
    }
    let mut named: Vec<String> = files
        .iter()
        .take(APPLIED_NAMED)
        .map(|(file, tables)| {
            let tables: Vec<String> = tables.iter().map(|t| code(t)).collect();
            format!("{} ({})", code(file), tables.join(", "))
        })
        .collect();
    if files.len() > APPLIED_NAMED {
        named.push(format!("and {} more", files.len() - APPLIED_NAMED));
    }
    writeln!(out)?;
    writeln!(
        out,
        "{} already applied at HEAD, left out: {}",
        counted(files.len(), "migration"),
        named.join(", ")
    )
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
    let field_changes = judgement
        .evolution
        .applied
        .iter()
        .any(|a| a.field_id.is_some());
    match before {
        Some(b) if b.current_schema_id == after.current_schema_id && !field_changes => {
            writeln!(out, "### {}: no schema change", code(&judgement.table))?;
            return write_table_changes(judgement, out);
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
    write_table_changes(judgement, out)
}

/// The changes that are about no one field (partition spec, sort order, properties, branches
/// and tags, session statements), one item each, in order.
fn write_table_changes(judgement: &Judgement, out: &mut dyn Write) -> io::Result<()> {
    let changes: Vec<_> = judgement
        .evolution
        .applied
        .iter()
        .filter(|a| a.field_id.is_none())
        .collect();
    if changes.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "Table changes:")?;
    writeln!(out)?;
    for change in changes {
        let detail = match (&change.from, &change.to) {
            (Some(from), Some(to)) => format!(": {} → {}", code(from), code(to)),
            (None, Some(to)) => format!(": {}", code(to)),
            (Some(from), None) => format!(": was {}", code(from)),
            (None, None) => String::new(),
        };
        writeln!(
            out,
            "- **{}** {}{detail}",
            change.kind.as_str(),
            code(&change.path)
        )?;
    }
    Ok(())
}

/// The sample data files read under the new schema, one row each.
fn write_verification(v: &Verification, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "Reader verification: {} read as schema {}, {}.",
        counted(v.files.len(), "data file"),
        v.schema_id,
        counted(v.rows(), "row")
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

/// Inline code: `|` escaped for the table, fenced by a backtick run longer than any inside, so
/// no backtick in a name can close the span early and leave the rest as live Markdown.
pub fn code(text: &str) -> String {
    let text = one_line(text).replace('|', "\\|");
    let longest = longest_backtick_run(&text);
    if longest == 0 {
        return format!("`{text}`");
    }
    // The spaces keep a backtick at either end from joining the fence; CommonMark strips one.
    let fence = "`".repeat(longest + 1);
    format!("{fence} {text} {fence}")
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Prose from the input, with the code spans it quotes names in (`` `name` ``) kept as code.
/// A span is what CommonMark reads as one: a backtick run closed by the next run of the same
/// length. Each span is re-fenced by [`code`] and everything else is escaped, backticks
/// included, so whatever a name holds (backticks, HTML, link syntax) nothing turns live.
pub fn text(input: &str) -> String {
    let input = one_line(input);
    let mut out = String::with_capacity(input.len() + 8);
    let mut rest = input.as_str();
    while let Some(open) = rest.find('`') {
        out.push_str(&prose(&rest[..open]));
        let run = rest[open..].len() - rest[open..].trim_start_matches('`').len();
        let after = &rest[open + run..];
        match closing_run(after, run) {
            Some(close) => {
                out.push_str(&code(span_content(&after[..close])));
                rest = &after[close + run..];
            }
            None => {
                out.push_str(&"\\`".repeat(run));
                rest = after;
            }
        }
    }
    out.push_str(&prose(rest));
    out
}

/// Where the first backtick run of exactly `run` backticks starts in `text`.
fn closing_run(text: &str, run: usize) -> Option<usize> {
    let mut at = 0;
    while let Some(found) = text[at..].find('`') {
        let start = at + found;
        let len = text[start..].len() - text[start..].trim_start_matches('`').len();
        if len == run {
            return Some(start);
        }
        at = start + len;
    }
    None
}

/// A code span's content as CommonMark reads it: one space stripped from each end when both
/// have one.
fn span_content(content: &str) -> &str {
    match content.strip_prefix(' ').and_then(|c| c.strip_suffix(' ')) {
        Some(inner) if !inner.trim().is_empty() => inner,
        _ => content,
    }
}

/// Text outside code spans: every character Markdown or HTML could read as syntax is escaped,
/// and what GitHub would turn into a link or a mention (`https://`, `www.`, `@name`) is broken.
fn prose(input: &str) -> String {
    let chars: Vec<char> = input.chars().collect();
    let mut out = String::with_capacity(input.len());
    for (i, &c) in chars.iter().enumerate() {
        let at = |j: usize| chars.get(j).copied();
        // GFM never reads an underscore inside a word (`lake_prod`) as emphasis; only one at a
        // word's edge needs escaping.
        let inside_word = i > 0
            && at(i - 1).is_some_and(char::is_alphanumeric)
            && at(i + 1).is_some_and(char::is_alphanumeric);
        match c {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '_' if inside_word => out.push(c),
            // An autolink needs the `:` of `scheme://` in the source; an entity is no `:`.
            ':' if at(i + 1) == Some('/') && at(i + 2) == Some('/') => out.push_str("&#58;"),
            '.' if i >= 3 && chars[i - 3..i].iter().all(|w| w.eq_ignore_ascii_case(&'w')) => {
                out.push_str("&#46;")
            }
            // A word joiner after `@` keeps GitHub from mentioning (and notifying) anyone.
            '@' => out.push_str("@\u{2060}"),
            // `(`, `!` and line-start markers are inert without a `[` or a line of their own.
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// One line, with control characters (an escape sequence in a name) shown, not kept raw.
fn one_line(text: &str) -> String {
    crate::report::terminal::escape(&crate::report::one_line(text)).into_owned()
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
        assert_eq!(code("a``b"), "``` a``b ```");
    }

    #[test]
    fn backticks_in_names_cannot_open_live_markup() {
        // A message quotes a name holding backticks and HTML: the quoted span stays one span.
        let name = "x` <img src=y onerror=z> `";
        let rendered = text(&format!("column `{name}` dropped"));
        assert!(!rendered.contains("<img"), "{rendered}");
        // A reason with a lone backtick: no span is opened, the rest stays escaped prose.
        let reason = text("ok` [click](https://evil.example) <b>x</b>");
        assert_eq!(
            reason,
            "ok\\` \\[click\\](https&#58;//evil.example) &lt;b&gt;x&lt;/b&gt;"
        );
        assert_eq!(text("see www.x.io @team"), "see www&#46;x.io @\u{2060}team");
        assert_eq!(text("`a` and ``b`c``"), "`a` and `` b`c ``");
    }
}
