//! Every fixture case written by pyiceberg (`tests/interop/make_fixtures.py`): our `apply` on the
//! same DDL must produce the same schemas, schema ids, `last-column-id` and name mapping as
//! pyiceberg's own `update_schema` commits, and must leave every other key of the file untouched.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = fs::read_dir(fixtures().join("cases"))
        .expect("tests/fixtures/cases exists")
        .map(|e| e.expect("readable entry").path())
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 20,
        "expected the full fixture set, found {} cases",
        cases.len()
    );
    cases
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).expect("readable")).expect("valid JSON")
}

/// The name mapping with entries that lost all their names removed: Java keeps such entries,
/// PyIceberg drops them, and both mean the same to a reader. This is the rule of
/// `NameMapping::same_meaning` (what `metadata-drift` compares by), applied here to the JSON as
/// serde_json reads it rather than through our own lenient reader, so the file we write is checked
/// key by key against pyiceberg's (a stray key or a misspelt one is a difference).
fn normalised_mapping(metadata: &Value) -> Option<Value> {
    fn clean(entries: &Value) -> Value {
        let kept = entries
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["names"].as_array().is_some_and(|n| !n.is_empty()))
            .map(|e| {
                let mut e = e.clone();
                if let Some(fields) = e.get("fields").cloned() {
                    e["fields"] = clean(&fields);
                }
                e
            })
            .collect();
        Value::Array(kept)
    }
    let text = metadata["properties"]["schema.name-mapping.default"].as_str()?;
    Some(clean(&serde_json::from_str(text).expect("mapping is JSON")))
}

fn run_apply(case: &Path, out: &Path) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fieldgate"));
    command
        .arg("apply")
        .arg(case.join("change.sql"))
        .arg("-o")
        .arg(out)
        .arg("--format")
        .arg("json")
        // Some cases are unsafe on purpose (a dropped name re-added): the rules fail the gate, and
        // --force still writes the metadata, which is what is compared here.
        .arg("--force");
    let base = case.join("base.metadata.json");
    if base.exists() {
        command.arg("--metadata").arg(base);
    }
    command.output().expect("fieldgate runs")
}

#[test]
fn apply_matches_pyiceberg_for_every_fixture_case() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for case in cases() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let out = dir.path().join(format!("{name}.metadata.json"));
        let output = run_apply(&case, &out);
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
            "schemas",
            "current-schema-id",
            "last-column-id",
            "format-version",
        ] {
            if ours[key] != theirs[key] {
                failures.push(format!(
                    "{name}: `{key}` differs\n ours:   {}\n theirs: {}",
                    ours[key], theirs[key]
                ));
            }
        }
        if normalised_mapping(&ours) != normalised_mapping(&theirs) {
            failures.push(format!(
                "{name}: name mapping differs\n ours:   {:?}\n theirs: {:?}",
                normalised_mapping(&ours),
                normalised_mapping(&theirs)
            ));
        }
        let base = case.join("base.metadata.json");
        if base.exists() {
            let base = read_json(&base);
            let patched = [
                "schemas",
                "schema",
                "current-schema-id",
                "last-column-id",
                "last-updated-ms",
                "properties",
            ];
            for (key, value) in base.as_object().unwrap() {
                if !patched.contains(&key.as_str()) && ours[key] != *value {
                    failures.push(format!("{name}: unrelated key `{key}` changed"));
                }
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

#[test]
fn every_fixture_metadata_file_round_trips_byte_for_byte() {
    let mut files = Vec::new();
    let mut stack = vec![fixtures()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(".metadata.json")
                // Gzip-compressed metadata (`v2.gz.metadata.json`) has bytes, not text, to keep:
                // tests/gzip_metadata.rs covers it.
                && !path.to_string_lossy().ends_with(".gz.metadata.json")
            {
                files.push(path);
            }
        }
    }
    assert!(
        files.len() >= 20,
        "found only {} metadata files",
        files.len()
    );
    for file in files {
        let text = fs::read_to_string(&file).unwrap();
        let root = fieldgate::json::parse(&text).unwrap();
        let metadata = fieldgate::iceberg::metadata::TableMetadata::from_json(&root)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let written =
            fieldgate::iceberg::metadata::patch(&text, &metadata, &metadata, 0, None).unwrap();
        assert_eq!(written, text, "{} changed on a no-op write", file.display());
    }
}
