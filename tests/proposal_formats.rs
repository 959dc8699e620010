//! The three ways to propose a change reach the same judgement and the same field ids.
//!
//! For every fixture case pyiceberg wrote (`tests/interop/make_fixtures.py`), the case's DDL, the
//! metadata file pyiceberg committed for it (`expected.metadata.json`, an engine-written
//! proposal against `base.metadata.json`), and a schema file describing that result (written
//! here from the expected metadata, without the ids of the fields the change added) are each
//! judged against the base. The schema file, applied with `--write`, must produce pyiceberg's
//! schema with pyiceberg's ids, and get those ids written into it; the metadata proposal must
//! raise no id-contract finding; and where the case is one statement (one schema update, as a
//! schema file or a metadata file always is), all three must report the same changes and the
//! same rules.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cases");
    let mut cases: Vec<PathBuf> = fs::read_dir(root)
        .expect("the fixture cases exist")
        .map(|e| e.expect("readable entry").path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 20, "expected the full fixture set");
    cases
}

fn fieldgate(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fieldgate"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("fieldgate runs")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).expect("readable")).expect("valid JSON")
}

fn current_schema(metadata: &Value) -> &Value {
    let id = &metadata["current-schema-id"];
    metadata["schemas"]
        .as_array()
        .and_then(|s| s.iter().find(|s| &s["schema-id"] == id))
        .expect("the current schema is in `schemas`")
}

/// A JSON string is also a YAML double-quoted scalar, which is safe anywhere in flow style.
fn q(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

/// A schema file (YAML, one flow mapping per field) for the table `metadata` describes; ids
/// for which `keep` is false are left out, as a proposal leaves out the ids of new fields.
fn schema_file(table: &str, metadata: &Value, keep: &dyn Fn(i64) -> bool) -> String {
    fn id(key: &str, value: &Value, keep: &dyn Fn(i64) -> bool) -> Option<String> {
        let id = value.as_i64()?;
        keep(id).then(|| format!("{key}: {id}"))
    }
    fn field(f: &Value, keep: &dyn Fn(i64) -> bool) -> String {
        let mut parts: Vec<String> = id("id", &f["id"], keep).into_iter().collect();
        parts.push(format!(
            "name: {}",
            q(f["name"].as_str().unwrap_or_default())
        ));
        parts.push(format!("type: {}", ty(&f["type"], keep)));
        if f["required"].as_bool() == Some(true) {
            parts.push("required: true".into());
        }
        if let Some(doc) = f["doc"].as_str() {
            parts.push(format!("doc: {}", q(doc)));
        }
        format!("{{{}}}", parts.join(", "))
    }
    fn ty(t: &Value, keep: &dyn Fn(i64) -> bool) -> String {
        if let Some(name) = t.as_str() {
            return q(name);
        }
        match t["type"].as_str() {
            Some("struct") => {
                let fields: Vec<String> = t["fields"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|f| field(f, keep))
                    .collect();
                format!("{{struct: [{}]}}", fields.join(", "))
            }
            Some("list") => {
                // Ids last, where the write-back puts them.
                let mut parts = vec![
                    format!("list: {}", ty(&t["element"], keep)),
                    format!("element-required: {}", t["element-required"]),
                ];
                parts.extend(id("element-id", &t["element-id"], keep));
                format!("{{{}}}", parts.join(", "))
            }
            Some("map") => {
                let mut parts = vec![format!(
                    "map: [{}, {}]",
                    ty(&t["key"], keep),
                    ty(&t["value"], keep)
                )];
                parts.push(format!("value-required: {}", t["value-required"]));
                parts.extend(id("key-id", &t["key-id"], keep));
                parts.extend(id("value-id", &t["value-id"], keep));
                format!("{{{}}}", parts.join(", "))
            }
            other => panic!("unexpected type {other:?}"),
        }
    }
    let schema = current_schema(metadata);
    let mut out = format!("# {table}, as the team keeps it.\ntable: {table}\nfields:\n");
    for f in schema["fields"].as_array().into_iter().flatten() {
        out.push_str(&format!("  - {}   # a comment to keep\n", field(f, keep)));
    }
    let ids: Vec<i64> = schema["identifier-field-ids"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
        .collect();
    let names: Vec<String> = schema["fields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["id"].as_i64().is_some_and(|id| ids.contains(&id)))
        .map(|f| q(f["name"].as_str().unwrap_or_default()))
        .collect();
    if !names.is_empty() {
        out.push_str(&format!("identifier-fields: [{}]\n", names.join(", ")));
    }
    out
}

struct Report {
    rules: BTreeSet<String>,
    changes: Vec<(String, Option<i64>, String)>,
}

fn report(output: &Output, what: &str) -> Report {
    assert_ne!(
        output.status.code(),
        Some(2),
        "{what}: fieldgate could not run:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{what}: not a JSON report ({e})"));
    let rules = json["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["rule"].as_str().map(str::to_string))
        .collect();
    let mut changes: Vec<(String, Option<i64>, String)> = json["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["kind"].as_str().unwrap_or_default().to_string(),
                c["field_id"].as_i64(),
                c["path"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    changes.sort();
    Report { rules, changes }
}

#[test]
fn ddl_schema_files_and_engine_metadata_agree_on_every_fixture_case() {
    let mut failures = Vec::new();
    for case in cases() {
        let name = case
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let info = read_json(&case.join("case.json"));
        let table = info["table"].as_str().unwrap_or("db.t").to_string();
        let one_statement = info["statements"].as_i64() == Some(1);
        let expected = read_json(&case.join("expected.metadata.json"));
        let dir = tempfile::tempdir().unwrap();
        let base_path = case.join("base.metadata.json");
        if !base_path.exists() {
            // CREATE TABLE: a schema file without ids is the new table, numbered the same.
            let file = dir.path().join("created.yaml");
            fs::write(&file, schema_file(&table, &expected, &|_| false)).unwrap();
            let out = dir.path().join("out.metadata.json");
            let run = fieldgate(
                &["apply", "created.yaml", "-o", "out.metadata.json"],
                dir.path(),
            );
            assert_eq!(run.status.code(), Some(0), "{name}: {run:?}");
            let written = read_json(&out);
            if current_schema(&written)["fields"] != current_schema(&expected)["fields"] {
                failures.push(format!("{name}: created schema differs from pyiceberg's"));
            }
            continue;
        }
        let base = read_json(&base_path);
        let last = base["last-column-id"].as_i64().unwrap_or_default();
        let base_arg = base_path.to_string_lossy().into_owned();

        let ddl = report(
            &fieldgate(
                &[
                    "lint",
                    case.join("change.sql").to_str().unwrap(),
                    "--metadata",
                    &base_arg,
                    "--format",
                    "json",
                ],
                dir.path(),
            ),
            &format!("{name} (ddl)"),
        );

        // The metadata file pyiceberg wrote, as the proposal.
        let engine = report(
            &fieldgate(
                &[
                    "lint",
                    case.join("expected.metadata.json").to_str().unwrap(),
                    "--metadata",
                    &base_arg,
                    "--format",
                    "json",
                ],
                dir.path(),
            ),
            &format!("{name} (metadata)"),
        );
        if engine.rules.contains("field-id-reuse") {
            failures.push(format!(
                "{name}: pyiceberg's own metadata breaks the id contract?"
            ));
        }

        // The schema file: pyiceberg's result, minus the ids the change handed out.
        let table_copy = dir.path().join("base.metadata.json");
        fs::copy(&base_path, &table_copy).unwrap();
        let proposal = schema_file(&table, &expected, &|id| id <= last);
        fs::write(dir.path().join("proposal.yaml"), &proposal).unwrap();
        let applied = fieldgate(
            &[
                "apply",
                "proposal.yaml",
                "--metadata",
                "base.metadata.json",
                "--write",
                "--force",
                "--format",
                "json",
            ],
            dir.path(),
        );
        let file = report(&applied, &format!("{name} (schema file)"));
        let written = read_json(&table_copy);
        for key in ["fields", "identifier-field-ids"] {
            if current_schema(&written)[key] != current_schema(&expected)[key] {
                failures.push(format!(
                    "{name}: schema-file apply gives {key}\n  {}\nbut pyiceberg wrote\n  {}",
                    current_schema(&written)[key],
                    current_schema(&expected)[key]
                ));
            }
        }
        // (An add and a drop in two statements use up an id that one update never hands out.)
        if one_statement && written["last-column-id"] != expected["last-column-id"] {
            failures.push(format!("{name}: last-column-id differs"));
        }
        // Written back, the file has every id and says nothing new to the new table...
        let filled = fs::read_to_string(dir.path().join("proposal.yaml")).unwrap();
        if filled != schema_file(&table, &expected, &|_| true) {
            failures.push(format!(
                "{name}: written back as\n{filled}\nnot\n{}",
                schema_file(&table, &expected, &|_| true)
            ));
        }
        let again = report(
            &fieldgate(
                &[
                    "lint",
                    "proposal.yaml",
                    "--metadata",
                    "base.metadata.json",
                    "--format",
                    "json",
                ],
                dir.path(),
            ),
            &format!("{name} (schema file, again)"),
        );
        if !again.changes.is_empty() {
            failures.push(format!(
                "{name}: after write-back still {:?}",
                again.changes
            ));
        }

        // ... and one schema update reads the same whichever way it was written.
        if one_statement {
            for (what, other) in [("metadata", &engine), ("schema file", &file)] {
                // Two fields swapped read as either one moving ("lat AFTER long" or "long
                // FIRST"); the order they end up in is compared above, so a move counts here
                // only as a move.
                let moves_as_one = |changes: &[(String, Option<i64>, String)]| {
                    changes
                        .iter()
                        .map(|(kind, id, path)| match kind.as_str() {
                            "move" => (kind.clone(), None, String::new()),
                            _ => (kind.clone(), *id, path.clone()),
                        })
                        .collect::<Vec<_>>()
                };
                if moves_as_one(&other.changes) != moves_as_one(&ddl.changes) {
                    failures.push(format!(
                        "{name}: {what} changes {:?}, DDL {:?}",
                        other.changes, ddl.changes
                    ));
                }
                if other.rules != ddl.rules {
                    failures.push(format!(
                        "{name}: {what} rules {:?}, DDL {:?}",
                        other.rules, ddl.rules
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
