//! The `fieldgate` binary: parse arguments, run the command, map the outcome to an exit code.

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;
use fieldgate::cli::{Cli, Command};
use fieldgate::commands::{apply, catalogue, check, completions, init, lint, man, verify};
use fieldgate::failure::Failure;
use fieldgate::report::human::handler_with;

/// Exit codes of CLI.md: 0 passed, 1 the gate failed, 2 fieldgate could not run.
fn exit_code(outcome: Result<bool, Failure>) -> ExitCode {
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(failure) => {
            report_failure(&failure);
            ExitCode::from(2)
        }
    }
}

fn report_failure(failure: &Failure) {
    let mut stderr = io::stderr().lock();
    match failure {
        Failure::Message(message) => {
            let _ = writeln!(stderr, "error: {message}");
        }
        Failure::Located(errors) => {
            // These go to stderr, so its being a terminal decides the colour, not stdout's.
            let colour = io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            let handler = handler_with(colour);
            for error in errors {
                let mut text = String::new();
                if handler.render_report(&mut text, error).is_err() {
                    text = format!("error: {error}\n");
                }
                let _ = writeln!(stderr, "{text}");
            }
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut stdout = io::stdout().lock();
    let outcome = match &cli.command {
        Command::Lint(args) => lint::run(args, &mut stdout),
        Command::Apply(args) => apply::run(args, &mut stdout),
        Command::Check(args) => check::run(args, &mut stdout),
        Command::Init(args) => init::run(args, &mut stdout),
        Command::Rules(args) => catalogue::list(args, &mut stdout),
        Command::Explain(args) => catalogue::explain(args, &mut stdout),
        Command::Verify(args) => verify::run(args, &mut stdout),
        Command::Completions(args) => completions::run(args, &mut stdout),
        Command::Man(args) => man::run(args, &mut stdout),
    };
    exit_code(outcome)
}
