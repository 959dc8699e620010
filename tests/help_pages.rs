//! Every command's `--help` ends with examples and its exit codes, and every example parses: an
//! example that names a flag or value the command does not take fails here.

use std::process::Command;

use clap::{CommandFactory, Parser};
use fieldgate::cli::Cli;

fn help_of(command: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_fieldgate"))
        .args([command, "--help"])
        .output()
        .expect("fieldgate runs");
    assert!(output.status.success(), "{command} --help failed");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The command lines of a help page's examples, without their comments and redirections.
fn examples(help: &str) -> Vec<Vec<String>> {
    let section = help.split("Examples:").nth(1).unwrap_or_default();
    let section = section.split("Exit codes:").next().unwrap_or_default();
    section
        .lines()
        .map(str::trim)
        .filter(|line| line.starts_with("fieldgate "))
        .map(|line| {
            let line = line.split(" #").next().unwrap_or(line);
            let line = line.split(" > ").next().unwrap_or(line);
            line.split_whitespace().map(str::to_string).collect()
        })
        .collect()
}

fn commands() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|name| name != "help")
        .collect()
}

#[test]
fn every_command_has_examples_and_exit_codes() {
    for command in commands() {
        let help = help_of(&command);
        assert!(help.contains("\nExamples:\n"), "{command} --help:\n{help}");
        assert!(
            help.contains("\nExit codes:\n"),
            "{command} --help:\n{help}"
        );
        for code in ["  0  ", "  2  "] {
            assert!(
                help.contains(code),
                "{command} --help lacks exit code{code}:\n{help}"
            );
        }
        assert!(
            !examples(&help).is_empty(),
            "{command} --help has no example"
        );
    }
}

#[test]
fn every_example_parses() {
    for command in commands() {
        for example in examples(&help_of(&command)) {
            assert_eq!(example[1], command, "an example of {command}: {example:?}");
            if let Err(e) = Cli::try_parse_from(&example) {
                panic!("{command} --help example {example:?} does not parse: {e}");
            }
        }
    }
}

#[test]
fn the_judging_commands_say_what_1_means() {
    for command in ["lint", "apply", "check", "pull", "push", "verify"] {
        let help = help_of(command);
        assert!(
            help.contains("  1  "),
            "{command} --help lacks exit code 1:\n{help}"
        );
    }
}

#[test]
fn verify_usage_shows_sample() {
    let help = help_of("verify");
    assert!(
        help.contains("fieldgate verify --metadata <PATH> [OPTIONS] --sample <N>"),
        "{help}"
    );
}

#[test]
fn apply_help_says_what_it_does() {
    // clap wraps the text to the terminal: compare it with the line breaks undone.
    let help = help_of("apply")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(help.contains("writes the new metadata"), "{help}");
    assert!(help.contains("nothing when the gate fails"), "{help}");
}
