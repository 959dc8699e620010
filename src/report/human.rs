//! The terminal report: each finding as a miette diagnostic quoting the exact text, headed by its
//! severity and rule (`error[type-narrowing]`) so it reads the same without colour; related
//! places in the same file as secondary labels, in other files as `note:` lines with their
//! position (metadata files are often one long line, which is no snippet to quote); then what
//! the change does to each table (and how its sample data files read under the new schema), and
//! a one-line verdict with counts per severity.

use std::fmt;
use std::io::{self, IsTerminal, Write};

use std::sync::Arc;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};

use crate::finding::{Finding, Severity, locate};
use crate::plural::counted;
use crate::report::snippet::{Escaped, Quoted, Sources};
use crate::report::terminal::escape;
use crate::report::wrap;
use crate::report::{Reporter, Run};
use crate::verify::gate::Verification;
use crate::verify::report::{bytes, column_notes};

/// The width when neither `COLUMNS` nor a terminal says: wide enough for a DDL line and its
/// labels, and fixed, so a report piped to a file is the same on every machine.
const DEFAULT_WIDTH: usize = 100;
/// Below this, miette's snippet gutter and labels leave no room for text.
const NARROWEST: usize = 40;

/// Colour only for a terminal, and never when `NO_COLOR` is set (no-color.org).
pub fn colour_wanted() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Where the report goes, for its width: a terminal's own width counts only for the stream
/// the report is written to.
#[derive(Clone, Copy)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// The width to wrap to: `COLUMNS` when it is a number (as `ls` and clap read it), else the
/// terminal's when the report goes to one, else [`DEFAULT_WIDTH`].
pub fn report_width(stream: Stream) -> usize {
    let columns = std::env::var("COLUMNS").ok();
    let terminal = || {
        let size = match stream {
            Stream::Stdout => terminal_size::terminal_size_of(std::io::stdout()),
            Stream::Stderr => terminal_size::terminal_size_of(std::io::stderr()),
        };
        size.map(|(terminal_size::Width(w), _)| usize::from(w))
    };
    width_from(columns.as_deref(), terminal)
}

fn width_from(columns: Option<&str>, terminal: impl FnOnce() -> Option<usize>) -> usize {
    columns
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|w| *w > 0)
        .or_else(terminal)
        .unwrap_or(DEFAULT_WIDTH)
        .max(NARROWEST)
}

/// miette's handler at `width`, wrapping as `report::wrap` does: at spaces outside code spans
/// only, so a command, path or URL in a message is never split and can be copied whole at any
/// width (a word longer than the line overflows it instead).
pub fn handler_with(colour: bool, width: usize) -> GraphicalReportHandler {
    let theme = if colour {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme)
        .with_width(width)
        .with_break_words(false)
        .with_word_separator(wrap::separator())
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
}

pub struct Human {
    pub colour: bool,
    pub width: usize,
}

impl Reporter for Human {
    fn write(&self, run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
        let handler = handler_with(self.colour, self.width);
        let (cache_notes, mut findings): (Vec<&Finding>, Vec<&Finding>) =
            run.findings().into_iter().partition(|f| is_cache_note(f));
        // Errors first, then warnings, then notes; in text order within each (a stable sort).
        findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
        let mut sources = Sources::default();
        for finding in findings {
            let view = FindingView::new(finding, &mut sources);
            write!(out, "{}", render(&handler, self.width, &view))?;
            writeln!(out)?;
        }
        // What miette does not write is wrapped here, to the same width and in the same way.
        let mut plain = String::new();
        for error in run.errors() {
            let place = error
                .location()
                .map(|l| format!("{}:{}:{}: ", l.file, l.line, l.column))
                .unwrap_or_default();
            plain.push_str(&format!("error: {place}{}\n", error.message));
        }
        for s in run.suppressed() {
            let place = s
                .finding
                .location()
                .map(|l| format!(" at {}:{}", l.file, l.line))
                .unwrap_or_default();
            plain.push_str(&format!(
                "suppressed {}{place}: {}\n",
                s.finding.rule, s.reason
            ));
        }
        for table in &run.tables {
            let mut changes = Vec::new();
            write_changes(table.judgement, &mut changes)?;
            plain.push_str(&String::from_utf8_lossy(&changes));
        }
        // Table, column and file names and reasons are the input's: all of it is escaped.
        out.write_all(wrap::lines(&escape(&plain), self.width).as_bytes())?;
        if !cache_notes.is_empty() {
            out.write_all(cache_refresh(&cache_notes, self.width).as_bytes())?;
        }
        writeln!(out, "{}", run.verdict())
    }
}

const CACHE_RULE: &str = "reader-cache-refresh";

/// `reader-cache-refresh` at its own severity, a note: the same advice for every table whose
/// schema changes, so the report says it once, short, at the end, not as a diagnostic per
/// table before the errors. Raised to a warning or error by configuration, it is a diagnostic.
fn is_cache_note(finding: &Finding) -> bool {
    finding.rule == CACHE_RULE && finding.severity == Severity::Note
}

/// The closing `note[reader-cache-refresh]` paragraph: the tables, then the advice once.
fn cache_refresh(notes: &[&Finding], width: usize) -> String {
    let mut tables: Vec<&str> = Vec::new();
    for note in notes {
        if !tables.contains(&note.table.as_str()) {
            tables.push(&note.table);
        }
    }
    let what = format!(
        "note[{CACHE_RULE}]: the current schema of {} changes; readers that cache table metadata keep the old one until they refresh",
        tables.join(", ")
    );
    let mut text = String::from("\n");
    text.push_str(&textwrap::fill(
        &escape(&what),
        wrap::at_spaces(width, "", "  "),
    ));
    text.push('\n');
    if let Some(help) = notes.iter().find_map(|f| f.help.as_deref()) {
        let options = wrap::at_spaces(width, "  help: ", NOTE_INDENT);
        text.push_str(&textwrap::fill(&escape(help), options));
        text.push('\n');
    }
    text
}

/// One finding as text: the miette report, then a `note:` per related place it could not label.
fn render(handler: &GraphicalReportHandler, width: usize, view: &FindingView<'_>) -> String {
    let finding = view.finding;
    let mut text = String::new();
    if handler.render_report(&mut text, view).is_err() {
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
        text.push_str(&note_lines(&escape(&related.message), width));
        if let Some(origin) = &related.origin {
            // A place is one path: it overflows a narrow line rather than being split.
            let l = locate(origin);
            let place = format!("{}:{}:{}", l.file, l.line, l.column);
            text.push_str(&format!("{NOTE_INDENT}at {}\n", escape(&place)));
        }
    }
    text
}

const NOTE_INDENT: &str = "        ";

/// A `note:` wrapped to `width` as miette wraps its own lines: between words only.
fn note_lines(message: &str, width: usize) -> String {
    let options = wrap::at_spaces(width, "  note: ", NOTE_INDENT);
    let mut lines = textwrap::fill(message, options);
    lines.push('\n');
    lines
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
        n => format!("{} a reader cannot read correctly", counted(n, "file")),
    };
    writeln!(
        out,
        "  verified {} as schema {}: {} read, {verdict}",
        counted(v.files.len(), "data file"),
        v.schema_id,
        counted(v.rows(), "row")
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
                    "{}, read {} of {}; {notes}",
                    counted(f.rows, "row"),
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
    /// The finding's source, escaped once for every finding of the report that quotes it.
    source: Option<Quoted>,
}

impl<'a> FindingView<'a> {
    fn new(finding: &'a Finding, sources: &mut Sources) -> FindingView<'a> {
        FindingView {
            finding,
            message: escape(&finding.message).into_owned(),
            help: finding.help.as_deref().map(|h| escape(h).into_owned()),
            source: finding
                .origin
                .as_ref()
                .map(|o| Quoted(sources.get(&o.source))),
        }
    }

    fn escaped(&self) -> Option<&Arc<Escaped>> {
        self.source.as_ref().map(|q| &q.0)
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
        let offsets = &self.escaped()?.offsets;
        let label = match (&self.finding.field, self.finding.field_id) {
            (Some(field), Some(id)) => format!("{field} (field id {id})"),
            (Some(field), None) => field.clone(),
            _ => "here".to_string(),
        };
        let primary = LabeledSpan::new_primary_with_span(
            Some(escape(&label).into_owned()),
            offsets.span(origin.focus.offset, origin.focus.len),
        );
        // Related places in the same text are labelled in the same snippet.
        let secondary = self.finding.related.iter().filter_map(move |r| {
            let o = r.origin.as_ref()?;
            (o.source.name == origin.source.name).then(|| {
                let (offset, len) = offsets.span(o.focus.offset, o.focus.len);
                LabeledSpan::new(Some(escape(&r.message).into_owned()), offset, len)
            })
        });
        Some(Box::new(std::iter::once(primary).chain(secondary)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_wins_then_the_terminal_then_the_default() {
        assert_eq!(width_from(Some("72"), || Some(200)), 72);
        assert_eq!(width_from(Some(" 130 "), || None), 130);
        assert_eq!(width_from(None, || Some(200)), 200);
        assert_eq!(width_from(Some("wide"), || Some(90)), 90);
        assert_eq!(width_from(Some("0"), || None), DEFAULT_WIDTH);
        assert_eq!(width_from(None, || None), DEFAULT_WIDTH);
        assert_eq!(width_from(Some("12"), || None), NARROWEST);
    }
}
