//! The report formats through the real binary: `--format` for every format, exit codes, the
//! in-band report of a run that could not judge, GitHub escaping of awkward names, and plain text
//! when stdout is not a terminal, wrapped to `COLUMNS` without splitting a word.

use std::fs;

mod common;
use common::{fieldgate_in, root, text};

const DROPS: [&str; 4] = [
    "lint",
    "tests/fixtures/reports/drops.sql",
    "--metadata",
    "tests/fixtures/tables/orders",
];

#[test]
fn every_format_reports_a_failing_proposal_with_exit_1() {
    for format in [
        "human", "json", "github", "sarif", "markdown", "gitlab", "junit",
    ] {
        let mut args = DROPS.to_vec();
        args.extend(["--format", format]);
        let out = fieldgate_in(&root(), &args, &[]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{format}: {}",
            text(&out.stderr)
        );
        let stdout = text(&out.stdout);
        match format {
            "json" | "sarif" | "gitlab" => {
                let _: serde_json::Value = serde_json::from_str(&stdout)
                    .unwrap_or_else(|e| panic!("{format} is not JSON ({e}): {stdout}"));
            }
            "junit" => assert!(stdout.starts_with("<?xml"), "{stdout}"),
            _ => {}
        }
        assert!(
            stdout.contains("partition-source-drop"),
            "{format}: {stdout}"
        );
        assert!(
            !stdout.contains('\u{1b}'),
            "{format}: no colour codes off a terminal"
        );
    }
}

#[test]
fn a_passing_proposal_exits_0_in_every_format() {
    for format in ["github", "sarif", "markdown", "gitlab", "junit"] {
        let out = fieldgate_in(
            &root(),
            &[
                "lint",
                "examples/lake/migrations/dim_users/0001_add_vip_level.sql",
                "examples/lake/migrations/dim_users/0002_rename_phone.sql",
                "--metadata",
                "examples/lake/warehouse/lake_prod/dim_users",
                "--format",
                format,
            ],
            &[],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{format}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_run_that_cannot_judge_still_gives_machine_formats_a_document() {
    let files = [
        "lint",
        "tests/fixtures/reports/parse_error_1.sql",
        "tests/fixtures/reports/parse_error_2.sql",
        "--metadata",
        "tests/fixtures/tables/events",
    ];
    let mut json = files.to_vec();
    json.extend(["--format", "json"]);
    let out = fieldgate_in(&root(), &json, &[]);
    assert_eq!(out.status.code(), Some(2));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(report["passed"], false);
    assert_eq!(
        report["errors"][1]["location"]["file"],
        "tests/fixtures/reports/parse_error_2.sql"
    );
    // The located diagnostics still go to stderr, for the person reading the log.
    assert!(text(&out.stderr).contains("parse_error_1.sql:2:39"));

    let mut sarif = files.to_vec();
    sarif.extend(["--format", "sarif"]);
    let out = fieldgate_in(&root(), &sarif, &[]);
    assert_eq!(out.status.code(), Some(2));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("SARIF on stdout");
    let invocation = &report["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    assert_eq!(
        invocation["toolExecutionNotifications"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );

    // The human format leaves stdout empty: the diagnostics are on stderr.
    let out = fieldgate_in(&root(), &files, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn github_annotations_escape_percent_newlines_colons_and_commas() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let metadata = dir.path().join("events/metadata");
    fs::create_dir_all(&metadata).expect("mkdir");
    for entry in
        fs::read_dir(root().join("tests/fixtures/tables/events/metadata")).expect("fixture")
    {
        let path = entry.expect("entry").path();
        if let Some(name) = path.file_name() {
            fs::copy(&path, metadata.join(name)).expect("copy");
        }
    }
    // A file name and a column name with every character the format must escape.
    let sql = "ALTER TABLE db.events ADD COLUMN `50%, a:b\nc` int;\nALTER TABLE db.events ADD COLUMN `50%, a:b\nc` string;\n";
    fs::write(dir.path().join("50%, a:b.sql"), sql).expect("write");
    let out = fieldgate_in(
        dir.path(),
        &[
            "lint",
            "50%, a:b.sql",
            "--metadata",
            "events",
            "--format",
            "github",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let annotation = stdout
        .lines()
        .find(|l| l.starts_with("::error "))
        .unwrap_or_else(|| panic!("no error annotation: {stdout}"));
    assert_eq!(
        annotation,
        "::error file=50%25%2C a%3Ab.sql,line=3,endLine=4,title=duplicate-name::db.events: Cannot add column, name already exists: 50%25, a:b%0Ac (field id 25)%0Ahelp: choose another name, or drop the existing field first if it is really meant to go"
    );
    // Every line of output is one command or one plain log line: nothing leaked a raw newline.
    for line in stdout.lines() {
        assert!(
            line.starts_with("::") || line.starts_with("fieldgate "),
            "{line}"
        );
    }
    insta::assert_snapshot!("github_escaping", stdout);
}

/// The environment setting the width to `columns`, or (none) leaving the default width.
fn width(columns: Option<&str>) -> Vec<(&str, &str)> {
    columns.map(|c| ("COLUMNS", c)).into_iter().collect()
}

#[test]
fn the_human_report_wraps_to_columns_and_never_splits_a_command() {
    let lake = [
        "lint",
        "examples/lake/bad/fact_orders_drop_region.sql",
        "--metadata",
        "examples/lake/warehouse/lake_prod/fact_orders",
    ];
    let widest = |columns: Option<&str>| {
        let out = fieldgate_in(&root(), &lake, &width(columns));
        assert_eq!(out.status.code(), Some(1));
        let report = text(&out.stdout);
        // A help line names Spark's catalog setting: at no width is it cut at its hyphen.
        assert!(report.contains("`cache-enabled=false`"), "{report}");
        // Quoted source lines are the file's own text, shown whole; a path overflows whole.
        let quoted = |l: &&str| l.contains(" │ ") || l.contains("╭─[") || l.contains(" · ");
        let prose = report.lines().take_while(|l| !l.starts_with("lake_prod."));
        let wrapped = prose.filter(|l| !quoted(l) && !l.trim_start().starts_with("at "));
        wrapped.map(|l| l.chars().count()).max().unwrap_or(0)
    };
    assert!(widest(Some("60")) <= 60);
    let default = widest(None);
    assert!((90..=100).contains(&default), "{default}");
    assert!(widest(Some("200")) > 100);
}

/// Whether `line` holds a space a wrapper may break at: one outside every code span.
fn breakable(line: &str) -> bool {
    let mut in_code = false;
    line.trim().chars().any(|c| {
        in_code ^= c == '`';
        c == ' ' && !in_code
    })
}

#[test]
fn every_line_fieldgate_writes_itself_wraps_too() {
    let out_dir = tempfile::tempdir().unwrap();
    let written = out_dir.path().join("dim_users.metadata.json");
    let apply = [
        "apply",
        "examples/lake/migrations/dim_users/0001_add_vip_level.sql",
        "examples/lake/migrations/dim_users/0002_rename_phone.sql",
        "--metadata",
        "examples/lake/warehouse/lake_prod/dim_users",
        "--sample",
        "2",
        "-o",
        written.to_str().unwrap(),
    ];
    let out = fieldgate_in(&root(), &apply, &width(Some("44")));
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{report}{}", text(&out.stderr));
    // The suppression line, the changes, the verification and the cache paragraph are all
    // fieldgate's own lines: none is wider than 44 unless it is one word that cannot break.
    assert!(
        report.contains("  verified 2 data files as schema 3"),
        "{report}"
    );
    // Quoted source lines are the file's own text, shown whole; a place (`at FILE:L:C`) is one
    // path, never split.
    let quoted = |l: &str| l.contains(" │ ") || l.contains("╭─[") || l.contains(" · ");
    let own = report
        .lines()
        .filter(|l| !quoted(l) && !l.trim_start().starts_with("at "));
    for line in own {
        assert!(
            line.chars().count() <= 44 || !breakable(line),
            "a line wider than 44 columns that could have wrapped: {line:?} in\n{report}"
        );
        assert_eq!(
            line.matches('`').count() % 2,
            0,
            "a code span split across lines: {line:?} in\n{report}"
        );
    }
    assert!(report.contains("`REFRESH TABLE`"), "{report}");
}
