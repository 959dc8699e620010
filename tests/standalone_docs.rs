//! What a user reads stands on its own: the README, the architecture notes, the example lake's
//! README, every rule's explanation (`fieldgate explain`), every command's `--help` and the
//! action's metadata never point at files outside the repository nor assume the reader knows a
//! text that is not in it.

use std::fs;
use std::process::Command;

use clap::CommandFactory;
use fieldgate::cli::Cli;

mod common;
use common::{root, text};

/// Pointers that only make sense beside the repository, and names of texts it does not hold.
const OUTSIDE: &[&str] = &[
    "../shared",
    "/work/shared",
    "CLI.md",
    "SCHEMA_FILE.md",
    "the seed",
    "seed's",
    "seed article",
    "red line",
];

fn outside_pointers(what: &str, body: &str) -> Vec<String> {
    OUTSIDE
        .iter()
        .filter(|needle| body.to_lowercase().contains(&needle.to_lowercase()))
        .map(|needle| format!("{what} mentions `{needle}`"))
        .collect()
}

fn fieldgate(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_fieldgate"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(output.status.success(), "fieldgate {args:?} failed");
    text(&output.stdout)
}

#[test]
fn the_documents_a_user_reads_point_only_inside_the_repository() {
    let mut found = Vec::new();
    let documents = [
        "README.md",
        "ARCHITECTURE.md",
        "examples/lake/README.md",
        "action.yml",
        ".pre-commit-hooks.yaml",
        "pyproject.toml",
    ];
    for document in documents {
        let body = fs::read_to_string(root().join(document)).unwrap();
        found.extend(outside_pointers(document, &body));
    }
    for entry in fs::read_dir(root().join("rules")).unwrap() {
        let path = entry.unwrap().path();
        let body = fs::read_to_string(&path).unwrap();
        found.extend(outside_pointers(&path.display().to_string(), &body));
        let rule = path.file_stem().unwrap().to_str().unwrap();
        found.extend(outside_pointers(
            &format!("explain {rule}"),
            &fieldgate(&["explain", rule]),
        ));
    }
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn every_relative_link_of_the_readme_names_a_file_of_the_repository() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let links: Vec<&str> = readme
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .filter(|target| !target.starts_with('#') && !target.contains("://"))
        .collect();
    for link in links {
        let file = link.split('#').next().unwrap_or(link);
        assert!(root().join(file).exists(), "README links to `{link}`");
    }
}

#[test]
fn no_help_page_points_outside_the_repository() {
    let mut found = Vec::new();
    for command in Cli::command().get_subcommands() {
        let command = command.get_name();
        found.extend(outside_pointers(
            &format!("{command} --help"),
            &fieldgate(&[command, "--help"]),
        ));
    }
    found.extend(outside_pointers("--help", &fieldgate(&["--help"])));
    assert_eq!(found, Vec::<String>::new());
}
