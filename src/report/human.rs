//! The terminal report: each finding as a miette diagnostic quoting the exact text, headed by its
//! severity and rule (`error[type-narrowing]`) so it reads the same without colour; related
//! places in the same file as secondary labels, in other files as `note:` lines with their
//! position (metadata files are often one long line, which is no snippet to quote); then what
//! the change does to each table (and how its sample data files read under the new schema), and
//! a one-line verdict with counts per severity.

use std::fmt;
use std::io::{self, IsTerminal, Write};

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode,
};

use crate::finding::{Finding, Severity, locate};
use crate::report::terminal::{OffsetMap, escape, escape_mapped};
use crate::report::{Reporter, Run};
use crate::verify::gate::Verification;
use crate::verify::report::{bytes, column_notes};

/// The report width: wide enough for a DDL line and its labels, fixed so output is reproducible.
const WIDTH: usize = 100;

/// Colour only for a terminal, and never when `NO_COLOR` is set (no-color.org).
pub fn colour_wanted() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

pub fn handler_with(colour: bool) -> GraphicalReportHandler {
    let theme = if colour {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme).with_width(WIDTH)
}

pub struct Human {
    pub colour: bool,
}

impl Reporter for Human {
    fn write(&self, run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
        let handler = handler_with(self.colour);
        for finding in run.findings() {
            write!(out, "{}", render(&handler, finding))?;
            writeln!(out)?;
        }
        for error in run.errors() {
            let place = error
                .location()
                .map(|l| format!("{}:{}:{}: ", l.file, l.line, l.column))
                .unwrap_or_default();
            writeln!(
                out,
                "error: {}",
                escape(&format!("{place}{}", error.message))
            )?;
        }
        for s in run.suppressed() {
            let place = s
                .finding
                .location()
                .map(|l| format!(" at {}:{}", l.file, l.line))
                .unwrap_or_default();
            let line = format!("suppressed {}{place}: {}", s.finding.rule, s.reason);
            writeln!(out, "{}", escape(&line))?;
        }
        for table in &run.tables {
            // Table, column and file names are the input's: the whole section is escaped.
            let mut changes = Vec::new();
            write_changes(table.judgement, &mut changes)?;
            out.write_all(escape(&String::from_utf8_lossy(&changes)).as_bytes())?;
        }
        writeln!(out, "{}", run.verdict())
    }
}

/// One finding as text: the miette report, then a `note:` per related place it could not label.
fn render(handler: &GraphicalReportHandler, finding: &Finding) -> String {
    let view = FindingView::new(finding);
    let mut text = String::new();
    if handler.render_report(&mut text, &view).is_err() {
        // Rendering into a String fails only on a formatter error; fall back to one plain line.
        text = format!(
            "{}[{}]: {}\n",
            finding.severity,
            finding.rule,
            escape(&finding.message)
        );
    }
    let primary = finding.origin.as_ref().map(|o| &o.source);
    for related in &finding.related {
        let same_file =
            matches!((primary, &related.origin), (Some(p), Some(o)) if p.name == o.source.name);
        if same_file {
            continue;
        }
        let place = related
            .origin
            .as_ref()
            .map(|o| {
                let l = locate(o);
                format!("\n        at {}:{}:{}", l.file, l.line, l.column)
            })
            .unwrap_or_default();
        let note = format!("{}{place}", related.message);
        text.push_str(&format!("  note: {}\n", escape(&note)));
    }
    text
}

fn write_changes(
    judgement: &crate::session::table::Judgement,
    out: &mut dyn Write,
) -> io::Result<()> {
    let after = &judgement.evolution.metadata;
    match judgement.before() {
        Some(before) => writeln!(
            out,
            "{}: schema {} -> {}, last-column-id {} -> {}",
            judgement.table,
            before.current_schema_id,
            after.current_schema_id,
            before.last_column_id,
            after.last_column_id
        )?,
        None => writeln!(
            out,
            "{}: new table, schema {}, last-column-id {}",
            judgement.table, after.current_schema_id, after.last_column_id
        )?,
    }
    for change in &judgement.evolution.applied {
        let id = change
            .field_id
            .map(|id| format!(" (id {id})"))
            .unwrap_or_default();
        let detail = match (&change.from, &change.to) {
            (Some(from), Some(to)) => format!(": {from} -> {to}"),
            (None, Some(to)) => format!(": {to}"),
            (Some(from), None) => format!(": was {from}"),
            (None, None) => String::new(),
        };
        writeln!(
            out,
            "  {} {}{id}{detail}",
            change.kind.as_str(),
            change.path
        )?;
    }
    let nested: Vec<String> = judgement
        .evolution
        .assigned
        .iter()
        .map(|a| format!("{}={}", a.path, a.field_id))
        .collect();
    if !nested.is_empty() {
        writeln!(out, "  field ids assigned: {}", nested.join(", "))?;
    }
    if let Some(verification) = &judgement.verification {
        write_verification(verification, out)?;
    }
    Ok(())
}

/// The sample read under the new schema: a line for the whole, then one per file.
fn write_verification(v: &Verification, out: &mut dyn Write) -> io::Result<()> {
    let failed = v.files.iter().filter(|f| !f.passed()).count();
    let verdict = match failed {
        0 => "every file reads correctly".to_string(),
        n => format!("{n} file(s) a reader cannot read correctly"),
    };
    writeln!(
        out,
        "  verified {} data file(s) as schema {}: {} row(s) read, {verdict}",
        v.files.len(),
        v.schema_id,
        v.rows()
    )?;
    for f in &v.files {
        let what = match &f.problem {
            Some(_) => "FAILS: no field ids and no name mapping".to_string(),
            None => {
                let notes = column_notes(f);
                let notes = match notes.is_empty() {
                    true => "every column as written".to_string(),
                    false => notes.join(", "),
                };
                format!(
                    "{} row(s), read {} of {}; {notes}",
                    f.rows,
                    bytes(f.bytes_read),
                    bytes(f.file_bytes)
                )
            }
        };
        writeln!(out, "    {}: {what}", f.path)?;
    }
    Ok(())
}

/// A finding seen as a miette diagnostic, with every text from the input escaped for the
/// terminal (the quoted source too, its spans moved to match).
struct FindingView<'a> {
    finding: &'a Finding,
    message: String,
    help: Option<String>,
    source: Option<NamedSource<String>>,
    offsets: OffsetMap,
}

impl<'a> FindingView<'a> {
    fn new(finding: &'a Finding) -> FindingView<'a> {
        let (source, offsets) = match &finding.origin {
            Some(o) => {
                let (text, offsets) = escape_mapped(&o.source.text);
                let name = escape(&o.source.name).into_owned();
                (Some(NamedSource::new(name, text.into_owned())), offsets)
            }
            None => (None, escape_mapped("").1),
        };
        FindingView {
            finding,
            message: escape(&finding.message).into_owned(),
            help: finding.help.as_deref().map(|h| escape(h).into_owned()),
            source,
            offsets,
        }
    }
}

impl fmt::Debug for FindingView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for FindingView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FindingView<'_> {}

impl Diagnostic for FindingView<'_> {
    /// `error[type-narrowing]`: the severity in words, since without colour miette's markers
    /// alone do not say it, and the rule name for `fieldgate explain`.
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(format!(
            "{}[{}]",
            self.finding.severity, self.finding.rule
        )))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let origin = self.finding.origin.as_ref()?;
        let label = match (&self.finding.field, self.finding.field_id) {
            (Some(field), Some(id)) => format!("{field} (field id {id})"),
            (Some(field), None) => field.clone(),
            _ => "here".to_string(),
        };
        let primary = LabeledSpan::new_primary_with_span(
            Some(escape(&label).into_owned()),
            self.offsets.span(origin.focus.offset, origin.focus.len),
        );
        // Related places in the same text are labelled in the same snippet.
        let secondary = self.finding.related.iter().filter_map(move |r| {
            let o = r.origin.as_ref()?;
            (o.source.name == origin.source.name).then(|| {
                let (offset, len) = self.offsets.span(o.focus.offset, o.focus.len);
                LabeledSpan::new(Some(escape(&r.message).into_owned()), offset, len)
            })
        });
        Some(Box::new(std::iter::once(primary).chain(secondary)))
    }
}
