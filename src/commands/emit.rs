//! Writing a judged run, in one place for `lint`, `apply` and `check`: the human header, the
//! report in the chosen format, the side reports, and the document a machine format still gets
//! when nothing could be judged. A reader that stops early (`fieldgate check | head`) never
//! reaches here as an error: `main` hands every command its stdout as a `pipe::QuietPipe`.

use std::io::{self, Write};
use std::path::PathBuf;

use crate::cli::{FailOnArg, ReportFormatArg};
use crate::failure::Failure;
use crate::finding::Severity;
use crate::report::{self, Format, Run};

/// The lowest severity that fails the run (exit code 1).
pub fn threshold(fail_on: FailOnArg) -> Severity {
    match fail_on {
        FailOnArg::Error => Severity::Error,
        FailOnArg::Warning => Severity::Warning,
    }
}

pub fn report_format(format: ReportFormatArg) -> Format {
    match format {
        ReportFormatArg::Human => Format::Human {
            colour: report::human::colour_wanted(),
            width: report::human::report_width(report::human::Stream::Stdout),
        },
        ReportFormatArg::Json => Format::Json,
        ReportFormatArg::Github => Format::Github,
        ReportFormatArg::Sarif => Format::Sarif,
        ReportFormatArg::Markdown => Format::Markdown,
        ReportFormatArg::Gitlab => Format::Gitlab,
        ReportFormatArg::Junit => Format::Junit,
    }
}

pub fn write_report(run: &Run<'_>, format: ReportFormatArg, out: &mut dyn Write) -> io::Result<()> {
    report::reporter(report_format(format)).write(run, out)
}

/// The run's report on `out`, after `header` when the format is for people.
pub fn emit(
    run: &Run<'_>,
    format: ReportFormatArg,
    header: Option<String>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let written = match (header, report_format(format)) {
        (Some(header), Format::Human { width, .. }) => {
            writeln!(out, "{}", report::wrap::lines(&header, width))
        }
        _ => Ok(()),
    };
    written
        .and_then(|()| write_report(run, format, out))
        .map_err(|e| Failure::Message(format!("cannot write the report: {e}")))
}

/// A run that judged nothing still gives machine formats a document saying why, so a CI step
/// that parses or uploads it finds one; main prints the diagnostics on stderr and exits 2.
pub fn failed(
    failure: Failure,
    format: ReportFormatArg,
    fail_on: Severity,
    out: &mut dyn Write,
) -> Failure {
    if format != ReportFormatArg::Human {
        // The run already failed; a report that cannot be written changes nothing.
        let _ = write_report(&Run::failed(&failure, fail_on), format, out);
    }
    failure
}

/// The reports written to files besides the main one: `(path, format)` pairs.
pub fn side_reports(
    run: &Run<'_>,
    wanted: &[(&Option<PathBuf>, ReportFormatArg)],
) -> Result<(), Failure> {
    for (path, format) in wanted {
        let Some(path) = path else { continue };
        let mut text = Vec::new();
        write_report(run, *format, &mut text)
            .and_then(|()| std::fs::write(path, &text))
            .map_err(|e| Failure::Message(format!("cannot write `{}`: {e}", path.display())))?;
    }
    Ok(())
}
