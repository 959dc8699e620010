//! The run's budgets as `fieldgate.yaml`'s `limits:` sets them, driven through `fieldgate check`
//! in scratch git repositories: input bytes are one budget for all tables together (three
//! tables each well under the limit cannot take more between them), the base's limits decide
//! under `--policy base` (a pull request raising its own limits is still read within the
//! base's, and the raise is a `policy-relaxation`), the Parquet and manifest budgets of sample
//! verification come from the same section, and a bad `limits:` is a located error. Every run
//! leaves the repository as it was.

use std::fs;
use std::path::Path;
use std::process::Output;

mod common;
use common::{
    assert_exit, commit_all, copy_dir, fieldgate_in, fixture_version, git, main_and_branch, root,
    sampled_people, text,
};

const TABLES: [&str; 3] = ["db.a", "db.b", "db.c"];

/// Three copies of pyiceberg's `orders` (4 KiB of metadata each) committed on `main` with
/// `limits` in the base's configuration, and a `pr` branch checked out.
fn three_tables(limits: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    let mut config = String::from("tables:\n");
    for table in TABLES {
        let name = table.trim_start_matches("db.");
        fixture_version(path, "orders", 5, &format!("warehouse/db/{name}"));
        config.push_str(&format!("  {table}:\n    metadata: warehouse/db/{name}\n"));
    }
    config.push_str("proposals:\n  - migrations/*.sql\n");
    config.push_str(limits);
    fs::write(path.join("fieldgate.yaml"), config).unwrap();
    main_and_branch(path, "tables", "pr");
    dir
}

/// A migration adding a column to each of `tables`, applied (`apply --write`, without verifying
/// samples) and committed on `pr`.
fn migrate(path: &Path, tables: &[&str]) {
    fs::create_dir_all(path.join("migrations")).unwrap();
    for table in tables {
        let name = table.trim_start_matches("db.");
        let file = format!("migrations/0001_{name}.sql");
        let sql = format!("ALTER TABLE {table} ADD COLUMN note string;\n");
        fs::write(path.join(&file), sql).unwrap();
        let metadata = format!("warehouse/db/{name}");
        let args = [
            "apply",
            "--write",
            "--no-verify",
            "--metadata",
            &metadata,
            &file,
        ];
        let out = fieldgate_in(path, &args, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    commit_all(path, "note");
}

/// `fieldgate check` in `path`, asserting that it wrote nothing and lost nothing.
fn check(path: &Path, args: &[&str]) -> Output {
    let before = git(path, &["status", "--porcelain", "--untracked-files=all"]);
    let head = git(path, &["rev-parse", "HEAD"]);
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    let out = fieldgate_in(path, &all, &[]);
    assert_eq!(
        git(path, &["status", "--porcelain", "--untracked-files=all"]),
        before
    );
    assert_eq!(git(path, &["rev-parse", "HEAD"]), head);
    out
}

const SIXTEEN_KIB: &str = "limits:\n  input-bytes: 16 KiB\n";

#[test]
fn input_bytes_are_one_budget_for_every_table_of_the_run() {
    // One table's base and head metadata fit in 16 KiB.
    let one = three_tables(SIXTEEN_KIB);
    migrate(one.path(), &TABLES[..1]);
    let out = check(one.path(), &[]);
    assert_exit(&out, 0);

    // Three tables, each as small, do not.
    let three = three_tables(SIXTEEN_KIB);
    migrate(three.path(), &TABLES);
    let out = check(three.path(), &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("more than the 16384 bytes of input one run reads"),
        "{stderr}"
    );
    assert!(stderr.contains("`limits: input-bytes`"), "{stderr}");
    assert!(stderr.contains("metadata.json`"), "{stderr}");
}

#[test]
fn a_pull_request_cannot_raise_the_limits_it_is_read_within() {
    let dir = three_tables(SIXTEEN_KIB);
    let path = dir.path();
    let config = fs::read_to_string(path.join("fieldgate.yaml")).unwrap();
    fs::write(
        path.join("fieldgate.yaml"),
        config.replace("16 KiB", "1 GiB"),
    )
    .unwrap();
    migrate(path, &TABLES);
    let out = check(path, &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("16384 bytes of input"), "{stderr}");

    // Judged by the change's own file, the run reads within its limits and says it relaxed them.
    let out = check(path, &["--policy", "head"]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("`limits: input-bytes` is raised from 16384 to 1073741824"),
        "{stdout}{}",
        text(&out.stderr)
    );
}

#[test]
fn a_migration_past_statements_per_file_is_an_error_at_the_first_statement_past_it() {
    let dir = three_tables("limits:\n  statements-per-file: 2\n");
    let path = dir.path();
    fs::create_dir_all(path.join("migrations")).unwrap();
    // Empty statements and comments are no statements.
    let sql = "ALTER TABLE db.a ADD COLUMN x string;\n;\n-- y next\nALTER TABLE db.a ADD COLUMN y string;\nALTER TABLE db.a ADD COLUMN z string;\n";
    fs::write(path.join("migrations/0001_a.sql"), sql).unwrap();
    commit_all(path, "three statements");
    let out = check(path, &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("more than 2 statements"), "{stderr}");
    assert!(stderr.contains("migrations/0001_a.sql:5:1"), "{stderr}");

    // Two statements are within it.
    let sql = "ALTER TABLE db.a ADD COLUMN x string;\nALTER TABLE db.a ADD COLUMN y string;\n";
    fs::write(path.join("migrations/0001_a.sql"), sql).unwrap();
    let out = check(path, &[]);
    assert!(
        !text(&out.stderr).contains("statements"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_bad_limits_section_is_a_located_error() {
    let dir = three_tables("limits:\n  input-byte: 1 GiB\n  parquet-rows: 0\n");
    fs::create_dir_all(dir.path().join("migrations")).unwrap();
    fs::write(
        dir.path().join("migrations/0001_a.sql"),
        "ALTER TABLE db.a ADD COLUMN note string;\n",
    )
    .unwrap();
    commit_all(dir.path(), "note");
    let out = check(dir.path(), &["--policy", "head"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unknown key `input-byte`"), "{stderr}");
    assert!(stderr.contains("did you mean `input-bytes`?"), "{stderr}");
    assert!(
        stderr.contains("`limits: parquet-rows` must be a whole number, at least 1, found `0`"),
        "{stderr}"
    );
    assert!(stderr.contains("fieldgate.yaml:"), "{stderr}");
}

/// The `people` table sampled with `limits`, and a migration on `pr`.
fn sampled(limits: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    sampled_people(repo, limits);
    main_and_branch(repo, "people", "pr");
    migrate(repo, &["db.people"]);
    dir
}

#[test]
fn sample_verification_reads_within_the_configured_parquet_and_manifest_budgets() {
    let out = check(sampled("").path(), &[]);
    assert_exit(&out, 0);

    let out = check(sampled("limits: {parquet-rows: 4}\n").path(), &[]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_ne!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains("that is more than the 4 rows one run reads"),
        "{all}"
    );

    let out = check(sampled("limits: {manifest-records: 1}\n").path(), &[]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_ne!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains("more than 1 records, the most one run reads"),
        "{all}"
    );
}

/// `fieldgate verify` in `dir` with `args`, stdout and stderr together.
fn verify(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut all = vec!["verify", "--metadata", "people", "--sample", "2"];
    all.extend_from_slice(args);
    let out = fieldgate_in(dir, &all, &[]);
    let shown = format!("{}{}", text(&out.stdout), text(&out.stderr));
    (out.status.code(), shown)
}

#[test]
fn verify_reads_within_the_limits_of_the_configuration_it_finds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    copy_dir(
        &root().join("tests/fixtures/verify/people"),
        &path.join("people"),
    );
    // Without a configuration: the defaults, and two files of three rows are read.
    let (code, shown) = verify(path, &[]);
    assert_eq!(code, Some(0), "{shown}");

    // The current directory's fieldgate.yaml sets the limits; the error names the limit.
    fs::write(path.join("fieldgate.yaml"), "limits: {parquet-rows: 4}\n").unwrap();
    let (code, shown) = verify(path, &[]);
    assert_eq!(code, Some(2), "{shown}");
    assert!(
        shown.contains("more than the 4 rows one run reads"),
        "{shown}"
    );
    assert!(shown.contains("`limits:` in fieldgate.yaml"), "{shown}");

    // Raised there, the same run reads; `--config` names another file.
    fs::write(path.join("fieldgate.yaml"), "limits: {parquet-rows: 6}\n").unwrap();
    let (code, shown) = verify(path, &[]);
    assert_eq!(code, Some(0), "{shown}");
    fs::write(path.join("tight.yaml"), "limits:\n  manifest-records: 1\n").unwrap();
    let (code, shown) = verify(path, &["--config", "tight.yaml"]);
    assert_eq!(code, Some(2), "{shown}");
    assert!(
        shown.contains("more than 1 records, the most one run reads"),
        "{shown}"
    );

    // In a git repository, from a subdirectory: the root's configuration.
    git(path, &["init", "-q", "-b", "main"]);
    fs::write(path.join("fieldgate.yaml"), "limits: {parquet-rows: 4}\n").unwrap();
    fs::create_dir_all(path.join("sub")).unwrap();
    let out = fieldgate_in(
        &path.join("sub"),
        &["verify", "--metadata", "../people", "--sample", "2"],
        &[],
    );
    let shown = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{shown}");
    assert!(
        shown.contains("more than the 4 rows one run reads"),
        "{shown}"
    );

    // A configuration that does not parse is a located error, as for every command.
    fs::write(path.join("fieldgate.yaml"), "limits: {parquet-rowz: 4}\n").unwrap();
    let (code, shown) = verify(path, &[]);
    assert_eq!(code, Some(2), "{shown}");
    assert!(shown.contains("did you mean `parquet-rows`?"), "{shown}");
}
