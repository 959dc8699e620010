//! The rules on tables pyiceberg wrote (`tests/fixtures/tables/`, from make_fixtures.py): the
//! classic unsafe changes are caught with precise messages, and the safe changes pass.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn lint(table: &str, sql: &str) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("proposal.sql");
    std::fs::write(&file, sql).unwrap();
    let metadata = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tables")
        .join(table);
    let output = Command::new(env!("CARGO_BIN_EXE_fieldgate"))
        .args(["lint", "--format", "json", "--metadata"])
        .arg(metadata)
        .arg(&file)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!(
            "no JSON report: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code().unwrap_or(-1), report)
}

/// The (rule, message) pairs of a report's findings.
fn findings(report: &Value) -> Vec<(String, String)> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn message_of(report: &Value, rule: &str) -> String {
    findings(report)
        .into_iter()
        .find(|(r, _)| r == rule)
        .map(|(_, m)| m)
        .unwrap_or_else(|| panic!("{rule} not raised: {:?}", findings(report)))
}

#[test]
fn re_adding_a_name_dropped_in_an_earlier_schema_is_name_reuse() {
    let (code, report) = lint(
        "orders",
        "ALTER TABLE db.orders ADD COLUMN status string COMMENT 'shipping state';",
    );
    assert_eq!(code, 1);
    let message = message_of(&report, "name-reuse");
    assert!(
        message.contains("`status` (id 5, string, 'user review state') was last seen in schema 0"),
        "{message}"
    );
}

#[test]
fn dropping_the_source_of_an_old_partition_spec_is_caught() {
    let (code, report) = lint("orders", "ALTER TABLE db.orders DROP COLUMN region;");
    assert_eq!(code, 1);
    let message = message_of(&report, "partition-source-drop");
    assert!(
        message.contains("`region` (identity) in spec 0"),
        "{message}"
    );
}

#[test]
fn narrowing_inside_a_map_value_struct_is_caught() {
    let (code, report) = lint(
        "orders",
        "ALTER TABLE db.orders ALTER COLUMN prices.value.units TYPE int;",
    );
    assert_eq!(code, 1);
    let message = message_of(&report, "type-narrowing");
    assert!(
        message.contains("`prices.value.units` (field id"),
        "{message}"
    );
    assert!(message.contains("long -> int"), "{message}");
}

#[test]
fn sort_and_identifier_sources_are_protected() {
    let (_, report) = lint("orders", "ALTER TABLE db.orders DROP COLUMN customer_id;");
    assert!(message_of(&report, "sort-source-drop").contains("the default sort order"));
    let (_, report) = lint("orders", "ALTER TABLE db.orders DROP COLUMN order_id;");
    assert!(message_of(&report, "identifier-drop").contains("identifier field id 1"));
}

#[test]
fn the_seeds_safe_changes_pass() {
    let sql = "ALTER TABLE db.events ADD COLUMN vip_level int COMMENT '1-5';\n\
               ALTER TABLE db.events RENAME COLUMN data TO payload;\n\
               ALTER TABLE db.events ALTER COLUMN cnt TYPE bigint;\n\
               ALTER TABLE db.events ALTER COLUMN ratio TYPE double;\n\
               ALTER TABLE db.events ALTER COLUMN amount TYPE decimal(18, 2);\n\
               ALTER TABLE db.events DROP COLUMN legacy_flag;\n";
    let (code, report) = lint("events", sql);
    assert_eq!(code, 0, "{:?}", findings(&report));
    let rules: Vec<String> = findings(&report).into_iter().map(|(r, _)| r).collect();
    // In text order: the cache note points at the first statement.
    assert_eq!(
        rules,
        ["reader-cache-refresh", "column-rename", "column-drop"]
    );
}
