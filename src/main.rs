//! The `fieldgate` binary: parse arguments, run the command, map the outcome to an exit code.

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;
use fieldgate::cli::{Cli, Command};
use fieldgate::commands::{
    apply, catalogue, check, completions, init, lint, lsp, man, pull, push, verify,
};
use fieldgate::failure::Failure;
use fieldgate::pipe::QuietPipe;
use fieldgate::report::human::{Stream, handler_with, report_width};

/// The exit codes: 0 passed, 1 the gate failed, 2 fieldgate could not run.
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
            let handler = handler_with(colour, report_width(Stream::Stderr));
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
    let outcome = match &cli.command {
        // The server's writer thread owns stdout: holding its lock here would block every reply.
        Command::Lsp => lsp::run(),
        command => run(command, &mut QuietPipe::new(io::stdout().lock())),
    };
    exit_code(outcome)
}

fn run(command: &Command, stdout: &mut dyn Write) -> Result<bool, Failure> {
    match command {
        Command::Lint(args) => lint::run(args, stdout),
        Command::Apply(args) => apply::run(args, stdout),
        Command::Check(args) => check::run(args, stdout),
        Command::Init(args) => init::run(args, stdout),
        Command::Pull(args) => pull::run(args, stdout),
        Command::Push(args) => push::run(args, stdout),
        Command::Rules(args) => catalogue::list(args, stdout),
        Command::Explain(args) => catalogue::explain(args, stdout),
        Command::Verify(args) => verify::run(args, stdout),
        Command::Completions(args) => completions::run(args, stdout),
        Command::Man(args) => man::run(args, stdout),
        Command::Lsp => lsp::run(),
    }
}
