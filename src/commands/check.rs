//! `fieldgate check`: the CI gate over a git repository with `fieldgate.yaml` (the session is
//! `session::gate`); the report on stdout and the side reports (`--summary`, `--sarif`,
//! `--json`), written even when nothing could be judged.

use std::io::Write;

use crate::cli::{CheckArgs, ReportFormatArg};
use crate::commands::emit::{emit, failed, side_reports, threshold};
use crate::failure::Failure;
use crate::repo::location::not_local_output;
use crate::report::{Run, TableRun};
use crate::session::gate::{Gated, gate};

/// Returns whether the gate passed.
pub fn run(args: &CheckArgs, out: &mut dyn Write) -> Result<bool, Failure> {
    let fail_on = threshold(args.fail_on);
    let outputs = [&args.summary, &args.sarif, &args.json];
    if let Some(why) = outputs
        .iter()
        .find_map(|p| p.as_deref().and_then(not_local_output))
    {
        return Err(Failure::Message(why));
    }
    let side = [
        (&args.summary, ReportFormatArg::Markdown),
        (&args.sarif, ReportFormatArg::Sarif),
        (&args.json, ReportFormatArg::Json),
    ];
    let Gated {
        judged,
        policy,
        header,
    } = match gate(args, fail_on) {
        Ok(gated) => gated,
        Err(failure) => {
            let _ = side_reports(&Run::failed(&failure, fail_on), &side);
            return Err(failed(failure, args.format, fail_on, out));
        }
    };
    let tables = judged
        .iter()
        .map(|(judgement, settings)| TableRun::new(judgement, settings))
        .collect();
    let run = Run::judged(tables, fail_on).with_policy(policy);
    emit(&run, args.format, Some(header), out)?;
    side_reports(&run, &side)?;
    Ok(run.passed)
}
