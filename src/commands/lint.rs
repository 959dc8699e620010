//! `fieldgate lint`: judge a proposal against the table and report; never writes.

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::cli::{FailOnArg, FormatArg, LintArgs};
use crate::commands::failure::Failure;
use crate::commands::pipeline::{Judgement, judge};
use crate::finding::Severity;
use crate::report::{self, Run};

/// Findings at or above the threshold fail the run.
pub fn passes(judgement: &Judgement, fail_on: FailOnArg) -> bool {
    let threshold = match fail_on {
        FailOnArg::Error => Severity::Error,
        FailOnArg::Warning => Severity::Warning,
    };
    judgement.findings.iter().all(|f| f.severity < threshold)
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

pub fn write_report(run: &Run<'_>, format: FormatArg, out: &mut dyn Write) -> std::io::Result<()> {
    let written = match format {
        FormatArg::Human => report::human::write(run, out),
        FormatArg::Json => report::json::write(run, out),
    };
    not_broken_pipe(written)
}

/// A reader that stops early (`fieldgate check | head`) is not a failure of the run: the verdict
/// is still the exit code.
pub fn not_broken_pipe(result: std::io::Result<()>) -> std::io::Result<()> {
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Returns whether the gate passed.
pub fn run(args: &LintArgs, out: &mut dyn Write) -> Result<bool, Failure> {
    let location = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    let judgement = judge(&args.proposal, location, now_ms())?;
    let passed = passes(&judgement, args.fail_on);
    write_report(
        &Run {
            judgements: std::slice::from_ref(&judgement),
            passed,
        },
        args.format,
        out,
    )
    .map_err(|e| Failure::Message(format!("cannot write the report: {e}")))?;
    Ok(passed)
}
