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

#[test]
fn check_and_init_end_quietly() {
    let lake = tempfile::tempdir().expect("a temporary directory");
    common::copy_dir(&root().join("examples/lake"), lake.path());
    common::git(lake.path(), &["init", "-q"]);
    common::git(lake.path(), &["add", "."]);
    common::git(lake.path(), &["commit", "-q", "-m", "lake"]);
    let fieldgate = env!("CARGO_BIN_EXE_fieldgate");
    let status = |args: &[&str]| {
        let (reader, writer) = io::pipe().expect("a pipe");
        drop(reader);
        let output = Command::new(fieldgate)
            .args(args)
            .current_dir(lake.path())
            .env("NO_COLOR", "1")
            .env_remove("GITHUB_BASE_REF")
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .expect("fieldgate runs");
        (output.status.code(), text(&output.stderr))
    };
    for format in ["human", "json", "junit"] {
        let (code, stderr) = status(&["check", "--base", "HEAD", "--format", format]);
        assert_eq!(code, Some(0), "check --format {format}: {stderr}");
        assert!(stderr.is_empty(), "check --format {format}: {stderr}");
    }
    std::fs::remove_file(lake.path().join("fieldgate.yaml")).expect("fieldgate.yaml");
    let (code, stderr) = status(&["init"]);
    assert_eq!(code, Some(0), "init: {stderr}");
    assert!(stderr.is_empty(), "init: {stderr}");
}

#[test]
fn a_shell_pipeline_into_head_ends_with_the_verdict() {
    let script = format!(
        "set -o pipefail; '{}' rules | head -1",
        env!("CARGO_BIN_EXE_fieldgate")
    );
    let output = Command::new("bash")
        .args(["-c", &script])
        .current_dir(root())
        .output()
        .expect("bash runs");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout).lines().count(), 1);
    assert_eq!(text(&output.stderr), "");
}

#[test]
fn a_note_for_a_closed_stderr_is_dropped_not_a_crash() {
    // Both streams closed, as `fieldgate lint ... 2>&1 | head -0` leaves them: the note that
    // `fieldgate.yaml` is not judged has nowhere to go, and the run still ends with its verdict.
    let (reader, writer) = io::pipe().expect("a pipe");
    drop(reader);
    let output = Command::new(env!("CARGO_BIN_EXE_fieldgate"))
        .args([
            "lint",
            "fieldgate.yaml",
            "migrations/dim_users/0001_add_vip_level.sql",
        ])
        .current_dir(root().join("examples/lake"))
        .env("NO_COLOR", "1")
        .stdout(writer.try_clone().expect("a second handle"))
        .stderr(writer)
        .status()
        .expect("fieldgate runs");
    assert_eq!(output.code(), Some(0));
}
