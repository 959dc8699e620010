//! Partition evolution and table properties against pyiceberg's own commits
//! (`tests/interop/make_partition_fixtures.py`): `apply` on the same Spark statements must give
//! the same spec ids, partition field ids, names and transforms, `default-spec-id`,
//! `last-partition-id`, sort order ids and fields, `default-sort-order-id` and properties, and leave the schemas and every other key untouched.
//! One case is the example lake's `fact_orders` with its partition-and-properties migration.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/partition_cases");
    let mut cases: Vec<PathBuf> = fs::read_dir(dir)
        .expect("tests/fixtures/partition_cases exists")
        .map(|e| e.expect("readable entry").path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 8, "found only {} cases", cases.len());
    cases
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).expect("readable")).expect("valid JSON")
}

fn apply(case: &Path, out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fieldgate"))
        .arg("apply")
        .arg(case.join("change.sql"))
        .arg("--metadata")
        .arg(case.join("base.metadata.json"))
        .arg("-o")
        .arg(out)
        .arg("--format")
        .arg("json")
        .arg("--force")
        .output()
        .expect("fieldgate runs")
}

#[test]
fn partition_specs_and_properties_match_pyiceberg() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for case in cases() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let out = dir.path().join(format!("{name}.metadata.json"));
        let output = apply(&case, &out);
        if !matches!(output.status.code(), Some(0 | 1)) || !out.exists() {
            failures.push(format!(
                "{name}: exit {:?}\n{}{}",
                output.status.code(),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
            continue;
        }
        let ours = read_json(&out);
        let theirs = read_json(&case.join("expected.metadata.json"));
        for key in [
            "partition-specs",
            "default-spec-id",
            "last-partition-id",
            "properties",
            "sort-orders",
            "default-sort-order-id",
            "schemas",
            "current-schema-id",
            "format-version",
        ] {
            if ours[key] != theirs[key] {
                failures.push(format!(
                    "{name}: `{key}` differs\n ours:   {}\n theirs: {}",
                    ours[key], theirs[key]
                ));
            }
        }
        // v1's deprecated `partition-spec` holds the default spec's fields, as Java's v1 writer
        // keeps it; pyiceberg 0.12 leaves it as it was, so it is checked against our own spec.
        if ours.get("partition-spec").is_some() {
            let default = ours["partition-specs"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|s| s["spec-id"] == ours["default-spec-id"])
                .map(|s| s["fields"].clone());
            if default.as_ref() != Some(&ours["partition-spec"]) {
                failures.push(format!("{name}: `partition-spec` is not the default spec"));
            }
        }
        let base = read_json(&case.join("base.metadata.json"));
        let patched = [
            "partition-spec",
            "partition-specs",
            "default-spec-id",
            "last-partition-id",
            "properties",
            "sort-orders",
            "default-sort-order-id",
            "last-updated-ms",
        ];
        for (key, value) in base.as_object().unwrap() {
            if !patched.contains(&key.as_str()) && ours[key] != *value {
                failures.push(format!("{name}: unrelated key `{key}` changed"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) differ from pyiceberg:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The example lake's partition-and-properties migration is the case pyiceberg ran on the
/// example's `fact_orders` (`example_lake_fact_orders`), statement for statement, so what the
/// example shows `apply` doing is what pyiceberg's commits do.
#[test]
fn the_example_lakes_partition_migration_is_the_case_pyiceberg_ran() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = fs::read_to_string(
        root.join("examples/lake/migrations/fact_orders/0003_partition_by_order_day.sql"),
    )
    .unwrap();
    let statements: String = example
        .lines()
        .filter(|line| !line.starts_with("--"))
        .map(|line| format!("{line}\n"))
        .collect();
    let case = root.join("tests/fixtures/partition_cases/example_lake_fact_orders");
    assert_eq!(
        statements,
        fs::read_to_string(case.join("change.sql")).unwrap()
    );
    let hint = fs::read_to_string(
        root.join("examples/lake/warehouse/lake_prod/fact_orders/metadata/version-hint.text"),
    )
    .unwrap();
    let committed = root.join(format!(
        "examples/lake/warehouse/lake_prod/fact_orders/metadata/v{}.metadata.json",
        hint.trim()
    ));
    assert_eq!(
        fs::read(committed).unwrap(),
        fs::read(case.join("base.metadata.json")).unwrap(),
        "the case starts from the example's committed fact_orders"
    );
}
