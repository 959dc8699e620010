//! What several integration tests share: running the binary as CI runs it, and git, reading
//! their output, copying a directory tree, and the one-schema table the property tests start
//! from.
//!
//! Each test file is its own crate and compiles this module whole, using only a part of it, so
//! the items one crate leaves unused are not dead: another test uses each of them.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use fieldgate::iceberg::metadata::TableMetadata;
use fieldgate::iceberg::schema::{Field, Schema};
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
/// else: no partition spec, sort order, snapshot or name mapping.
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
        partition_specs: Vec::new(),
        default_spec_id: 0,
        last_partition_id: None,
        sort_orders: Vec::new(),
        default_sort_order_id: 0,
        properties: Vec::new(),
        name_mapping: None,
        snapshots: Vec::new(),
        current_snapshot_id: None,
    }
}
