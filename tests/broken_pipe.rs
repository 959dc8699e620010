//! A reader that goes away (`fieldgate rules | head -1`) ends every command quietly: nothing on
//! stderr, no panic, and the exit code is the verdict the command would have given anyway.
//!
//! The pipe's read end is closed before the binary starts, so every write it makes meets a broken
//! pipe, whatever the timing.

mod common;

use std::io;
use std::process::{Command, Stdio};

use common::{root, text};

const DIM_USERS: &str = "examples/lake/warehouse/lake_prod/dim_users";

/// Runs fieldgate in the package root with stdout a pipe nobody reads; (exit code, stderr).
fn into_closed_pipe(args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = io::pipe().expect("a pipe");
    drop(reader);
    let output = Command::new(env!("CARGO_BIN_EXE_fieldgate"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_BASE_REF")
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("fieldgate runs");
    (output.status.code(), text(&output.stderr))
}

fn assert_quiet(args: &[&str], code: i32) {
    let (got, stderr) = into_closed_pipe(args);
    assert_eq!(got, Some(code), "fieldgate {args:?}: stderr {stderr}");
    assert!(
        !stderr.contains("error") && !stderr.contains("panicked") && !stderr.contains("pipe"),
        "fieldgate {args:?} printed {stderr}"
    );
}

#[test]
fn the_catalogue_commands_end_quietly() {
    assert_quiet(&["rules"], 0);
    assert_quiet(&["rules", "--format", "json"], 0);
    assert_quiet(&["explain", "column-rename"], 0);
    assert_quiet(&["man"], 0);
    assert_quiet(&["completions", "bash"], 0);
    assert_quiet(&["--help"], 0);
    assert_quiet(&["lint", "--help"], 0);
}

#[test]
fn a_report_keeps_its_verdict() {
    let bad = "examples/lake/bad/dim_users_status_again.sql";
    for format in [
        "human", "json", "sarif", "junit", "markdown", "github", "gitlab",
    ] {
        assert_quiet(
            &["lint", bad, "--metadata", DIM_USERS, "--format", format],
            1,
        );
    }
    let good = "examples/lake/migrations/dim_users/0001_add_vip_level.sql";
    assert_quiet(&["lint", good, "--metadata", DIM_USERS], 0);
}

#[test]
fn apply_and_verify_end_quietly() {
    let out = tempfile::tempdir().expect("a temporary directory");
    let written = out.path().join("dim_users.metadata.json");
    let written = written.to_str().expect("a UTF-8 path");
    let migration = "examples/lake/migrations/dim_users/0001_add_vip_level.sql";
    assert_quiet(
        &["apply", migration, "--metadata", DIM_USERS, "-o", written],
        0,
    );
    for format in ["human", "json"] {
        assert_quiet(
            &[
                "verify",
                "--metadata",
                DIM_USERS,
                "--sample",
                "2",
                "--format",
                format,
            ],
            0,
        );
    }
}
