//! What several integration tests share: running the binary as CI runs it, and git (a base
//! branch and a branch under review), reading their output, writing and copying files (the
//! fixture tables among them), the current schema's names of a metadata file, and the
//! one-schema table the property tests start from.
//!
//! Each test file is its own crate and compiles this module whole, using only a part of it, so
//! the items one crate leaves unused are not dead: another test uses each of them.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use fieldgate::iceberg::metadata::TableMetadata;
use fieldgate::iceberg::partition::PartitionSpec;
use fieldgate::iceberg::schema::{Field, Schema};
use fieldgate::iceberg::sort::SortOrder;
use fieldgate::iceberg::types::{FieldId, PrimitiveType, Type};

/// The package root, where the fixtures and examples are.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs fieldgate in `dir` without colour, at the default width and outside any pull request
/// (no `COLUMNS` or `GITHUB_BASE_REF` from the environment the tests run in), with `env` set on
/// top.
pub fn fieldgate_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fieldgate"));
    command
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS")
        .env_remove("GITHUB_BASE_REF");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("fieldgate runs")
}

/// Asserts that `output` exited with `code`, showing its stdout and stderr when it did not.
pub fn assert_exit(output: &Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
}

/// Runs git in `dir` as `Test <test@example.com>`, unsigned; it must succeed. Returns its output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// Commits everything in `dir` (`git add -A`) as `message`.
pub fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

/// Makes `dir` a repository whose `main` holds everything in it now, committed as `message`,
/// with the new branch `branch` checked out (the pull request's side).
pub fn main_and_branch(dir: &Path, message: &str, branch: &str) {
    git(dir, &["init", "-q", "-b", "main"]);
    commit_all(dir, message);
    git(dir, &["checkout", "-q", "-b", branch]);
}

/// Writes `contents` to `path` under `dir`, making the directories on the way.
pub fn write(dir: &Path, path: &str, contents: &str) {
    let file = dir.join(path);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(file, contents).unwrap();
}

/// Copies each fixture table's `metadata` directory (`tests/fixtures/tables/FIXTURE`) whole
/// to `warehouse/TO/metadata` under `dir`: `(FIXTURE, TO)` pairs.
pub fn fixture_tables(dir: &Path, tables: &[(&str, &str)]) {
    for (fixture, to) in tables {
        copy_dir(
            &root()
                .join("tests/fixtures/tables")
                .join(fixture)
                .join("metadata"),
            &dir.join(format!("warehouse/{to}/metadata")),
        );
    }
}

/// The fixture table's metadata version `version` alone (pyiceberg's file, byte for byte) in
/// the Hadoop layout at `to` under `dir`, with the version hint at it.
pub fn fixture_version(dir: &Path, fixture: &str, version: u32, to: &str) {
    let name = format!("v{version}.metadata.json");
    let from = root()
        .join("tests/fixtures/tables")
        .join(fixture)
        .join("metadata");
    let metadata = dir.join(to).join("metadata");
    fs::create_dir_all(&metadata).unwrap();
    fs::copy(from.join(&name), metadata.join(&name)).unwrap();
    fs::write(metadata.join("version-hint.text"), format!("{version}\n")).unwrap();
}

/// The `people` table of `tests/fixtures/verify` (two data files of three rows, reached
/// through its manifests) at `warehouse/db/people` under `dir`, and a `fieldgate.yaml` that
/// samples two of its data files, with `more` after its `proposals`.
pub fn sampled_people(dir: &Path, more: &str) {
    copy_dir(
        &root().join("tests/fixtures/verify/people"),
        &dir.join("warehouse/db/people"),
    );
    let config = "tables:\n  db.people:\n    metadata: warehouse/db/people\n    sample: 2\nproposals:\n  - migrations/*.sql\n";
    fs::write(dir.join("fieldgate.yaml"), format!("{config}{more}")).unwrap();
}

/// The top-level field names of a metadata file's current schema, in order.
pub fn current_field_names(metadata: &serde_json::Value) -> Vec<String> {
    let current = &metadata["current-schema-id"];
    let schema = metadata["schemas"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| &s["schema-id"] == current)
        .unwrap();
    schema["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect()
}

/// Copies the tree at `from` to `to`, files byte for byte.
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

pub fn prim(p: PrimitiveType) -> Type {
    Type::Primitive(p)
}

/// A format v2 table with one schema (id 0) of `fields`, field 1 its identifier, and nothing
/// else: unpartitioned, unsorted, no snapshot or name mapping.
pub fn one_schema_table(fields: Vec<Field>, last_column_id: FieldId) -> TableMetadata {
    TableMetadata {
        format_version: 2,
        location: "/t".into(),
        last_column_id,
        last_updated_ms: 0,
        current_schema_id: 0,
        schemas: vec![Arc::new(Schema {
            schema_id: 0,
            identifier_field_ids: vec![1],
            fields,
        })],
        partition_specs: vec![PartitionSpec {
            spec_id: 0,
            fields: Vec::new(),
        }],
        default_spec_id: 0,
        last_partition_id: None,
        sort_orders: vec![SortOrder {
            order_id: 0,
            fields: Vec::new(),
        }],
        default_sort_order_id: 0,
        properties: Vec::new(),
        name_mapping: None,
        snapshots: Vec::new(),
        current_snapshot_id: None,
    }
}
