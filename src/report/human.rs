//! The terminal report: each finding as a miette diagnostic quoting the exact text, then what the
//! change does to the table, then a one-line verdict.

use std::fmt;
use std::io::{self, IsTerminal, Write};

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode,
};

use crate::finding::{Finding, Severity};
use crate::report::{Run, count, sorted_findings};

/// Colour only for a terminal, and never when `NO_COLOR` is set (no-color.org).
pub fn handler() -> GraphicalReportHandler {
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let theme = if colour {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme).with_width(100)
}

pub fn write(run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
    let handler = handler();
    for finding in sorted_findings(&run.judgement.findings) {
        let view = FindingView::new(finding);
        let mut text = String::new();
        if handler.render_report(&mut text, &view).is_err() {
            text = format!("{}: {}\n", finding.rule, finding.message);
        }
        writeln!(out, "{text}")?;
    }
    for s in &run.judgement.suppressed {
        let place = s
            .finding
            .location()
            .map(|l| format!(" at {}:{}", l.file, l.line))
            .unwrap_or_default();
        writeln!(out, "suppressed {}{place}: {}", s.finding.rule, s.reason)?;
    }
    write_changes(run, out)?;
    let findings = &run.judgement.findings;
    let verdict = if run.passed { "passed" } else { "failed" };
    writeln!(
        out,
        "{verdict}: {} error(s), {} warning(s), {} note(s)",
        count(findings, Severity::Error),
        count(findings, Severity::Warning),
        count(findings, Severity::Note)
    )
}

fn write_changes(run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
    let judgement = run.judgement;
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
    Ok(())
}

/// A finding seen as a miette diagnostic.
struct FindingView<'a> {
    finding: &'a Finding,
    source: Option<NamedSource<String>>,
}

impl<'a> FindingView<'a> {
    fn new(finding: &'a Finding) -> FindingView<'a> {
        let source = finding
            .origin
            .as_ref()
            .map(|o| NamedSource::new(o.source.name.clone(), o.source.text.clone()));
        FindingView { finding, source }
    }
}

impl fmt::Debug for FindingView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.finding.message)
    }
}

impl fmt::Display for FindingView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.finding.message)
    }
}

impl std::error::Error for FindingView<'_> {}

impl Diagnostic for FindingView<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(self.finding.rule))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.finding
            .help
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
        let span = LabeledSpan::new(Some(label), origin.focus.offset, origin.focus.len);
        Some(Box::new(std::iter::once(span)))
    }
}
