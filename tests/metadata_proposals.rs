//! A new `*.metadata.json` as the proposal: the state an engine (or a script, or a person) wrote.
//! The good ones are pyiceberg's own commits (`tests/proposal_formats.rs` runs them all); the bad
//! ones here are derived from those real files by editing them in the test, each edit saying
//! what an engine got wrong, and each must be caught at its place in the proposed file.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cases")
        .join(name)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).expect("readable")).expect("valid JSON")
}

fn fieldgate(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fieldgate"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("fieldgate runs")
}

fn schema_mut(metadata: &mut Value, id: i64) -> &mut Value {
    metadata["schemas"]
        .as_array_mut()
        .and_then(|s| s.iter_mut().find(|s| s["schema-id"] == id))
        .expect("the schema exists")
}

fn current_id(metadata: &Value) -> i64 {
    metadata["current-schema-id"]
        .as_i64()
        .expect("a current schema id")
}

/// A copy of the current schema as a new schema, edited, made current.
fn with_new_schema(metadata: &mut Value, edit: impl FnOnce(&mut Value)) -> i64 {
    let newest = metadata["schemas"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["schema-id"].as_i64())
        .max()
        .unwrap_or(0);
    let mut schema = schema_mut(metadata, current_id(metadata)).clone();
    schema["schema-id"] = json!(newest + 1);
    edit(&mut schema);
    if let Some(schemas) = metadata["schemas"].as_array_mut() {
        schemas.push(schema);
    }
    metadata["current-schema-id"] = json!(newest + 1);
    newest + 1
}

struct Judged {
    code: Option<i32>,
    report: Value,
    text: String,
}

impl Judged {
    fn rules(&self) -> Vec<String> {
        self.report["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d["rule"].as_str().map(str::to_string))
            .collect()
    }

    /// The findings of `rule`, each with the text its location points at.
    fn at(&self, rule: &str) -> Vec<(String, String)> {
        self.report["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["rule"] == rule)
            .map(|d| {
                let location = &d["location"];
                let text = match (location["offset"].as_u64(), location["length"].as_u64()) {
                    (Some(offset), Some(length)) => self
                        .text
                        .get(offset as usize..(offset + length) as usize)
                        .unwrap_or_default()
                        .to_string(),
                    _ => "<no location>".to_string(),
                };
                (d["message"].as_str().unwrap_or_default().to_string(), text)
            })
            .collect()
    }
}

/// Lints `proposal` (written pretty, so findings have lines) against the case's base.
fn judge(case_name: &str, base: Option<&Value>, proposal: &Value) -> Judged {
    let dir = tempfile::tempdir().unwrap();
    let base_path = dir.path().join("base.metadata.json");
    match base {
        Some(base) => fs::write(&base_path, base.to_string()).unwrap(),
        None => {
            fs::copy(case(case_name).join("base.metadata.json"), &base_path).unwrap();
        }
    }
    let text = serde_json::to_string_pretty(proposal).unwrap();
    fs::write(dir.path().join("v2.metadata.json"), &text).unwrap();
    let out = fieldgate(
        &[
            "lint",
            "v2.metadata.json",
            "--metadata",
            "base.metadata.json",
            "--format",
            "json",
        ],
        dir.path(),
    );
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "not a report; stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    Judged {
        code: out.status.code(),
        report,
        text,
    }
}

#[test]
fn pyicebergs_own_commit_passes_and_points_into_the_file() {
    let proposal = read_json(&case("add_column").join("expected.metadata.json"));
    let judged = judge("add_column", None, &proposal);
    assert_eq!(judged.code, Some(0), "{}", judged.report);
    assert!(!judged.rules().contains(&"field-id-reuse".to_string()));
    let changes = &judged.report["changes"];
    assert_eq!(changes[0]["kind"], "add");
    assert_eq!(changes[0]["path"], "priority");
    assert_eq!(changes[0]["field_id"], 25);
    assert_eq!(judged.report["tables"][0]["assigned"][0]["field_id"], 25);
}

#[test]
fn a_retired_id_given_to_a_new_field_is_caught_at_the_field() {
    // drop_column's result retires `data` (id 5). Edited: the engine then adds `priority` under
    // id 5 instead of 25.
    let base = read_json(&case("drop_column").join("expected.metadata.json"));
    let mut proposal = base.clone();
    with_new_schema(&mut proposal, |schema| {
        if let Some(fields) = schema["fields"].as_array_mut() {
            fields.push(json!({"id": 5, "name": "priority", "type": "int", "required": false}));
        }
    });
    let judged = judge("drop_column", Some(&base), &proposal);
    assert_eq!(judged.code, Some(1));
    let found = judged.at("field-id-reuse");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]
            .0
            .contains("gives id 5 to `priority`, but that id belonged to `data`"),
        "{found:?}"
    );
    assert_eq!(found[0].1, "\"priority\"");
}

#[test]
fn a_dropped_field_brought_back_under_its_old_id_is_caught() {
    // Edited: `data` (id 5, retired) comes back under its old id, which un-drops its old values.
    let base = read_json(&case("drop_column").join("expected.metadata.json"));
    let mut proposal = base.clone();
    with_new_schema(&mut proposal, |schema| {
        if let Some(fields) = schema["fields"].as_array_mut() {
            fields.push(json!({"id": 5, "name": "data", "type": "string", "required": false}));
        }
    });
    let judged = judge("drop_column", Some(&base), &proposal);
    let found = judged.at("field-id-reuse");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].0.contains("old values would reappear"),
        "{found:?}"
    );
}

#[test]
fn a_new_id_not_above_last_column_id_is_caught() {
    // Edited: the base had handed out ids up to 30 (last-column-id 30); pyiceberg's new field 25
    // is then an id the table may already have used in files.
    let mut base = read_json(&case("add_column").join("base.metadata.json"));
    base["last-column-id"] = json!(30);
    let mut proposal = read_json(&case("add_column").join("expected.metadata.json"));
    proposal["last-column-id"] = json!(30);
    let judged = judge("add_column", Some(&base), &proposal);
    let found = judged.at("field-id-reuse");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]
            .0
            .contains("id 25, which is not above the old `last-column-id` 30"),
        "{found:?}"
    );
    assert_eq!(found[0].1, "\"priority\"");
}

#[test]
fn a_lowered_last_column_id_is_caught_at_the_key() {
    // Edited: the engine wrote last-column-id 20 while its schemas hold ids up to 25. Iceberg
    // Java refuses such a file, so it is invalid metadata (exit 2), located at the key.
    let mut proposal = read_json(&case("add_column").join("expected.metadata.json"));
    proposal["last-column-id"] = json!(20);
    let dir = tempfile::tempdir().unwrap();
    fs::copy(
        case("add_column").join("base.metadata.json"),
        dir.path().join("base.metadata.json"),
    )
    .unwrap();
    let text = serde_json::to_string_pretty(&proposal).unwrap();
    fs::write(dir.path().join("v2.metadata.json"), &text).unwrap();
    let out = fieldgate(
        &[
            "lint",
            "v2.metadata.json",
            "--metadata",
            "base.metadata.json",
        ],
        dir.path(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`last-column-id` 20 is below field id 25"),
        "{stderr}"
    );
}

#[test]
fn rewritten_history_is_caught_at_the_schema() {
    // Edited: schema 0, which old files were written with, gets `data` renamed in place.
    let mut proposal = read_json(&case("add_column").join("expected.metadata.json"));
    schema_mut(&mut proposal, 0)["fields"][4]["name"] = json!("payload");
    let judged = judge("add_column", None, &proposal);
    let found = judged.at("field-id-reuse");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].0.contains("schema 0 is rewritten"), "{found:?}");
    assert_eq!(found[0].1, "0");

    // Edited: schema 0 is gone altogether.
    let mut proposal = read_json(&case("add_column").join("expected.metadata.json"));
    if let Some(schemas) = proposal["schemas"].as_array_mut() {
        schemas.retain(|s| s["schema-id"] != 0);
    }
    let judged = judge("add_column", None, &proposal);
    assert!(
        judged
            .at("field-id-reuse")
            .iter()
            .any(|(m, _)| m.contains("schema 0 is removed")),
        "{}",
        judged.report
    );
}

#[test]
fn a_current_schema_that_is_not_the_newest_is_caught() {
    // Edited: the engine appended two schemas and left current-schema-id on the first.
    let mut proposal = read_json(&case("add_column").join("expected.metadata.json"));
    let first = current_id(&proposal);
    with_new_schema(&mut proposal, |schema| {
        if let Some(fields) = schema["fields"].as_array_mut() {
            fields.push(json!({"id": 26, "name": "later", "type": "int", "required": false}));
        }
    });
    proposal["current-schema-id"] = json!(first);
    proposal["last-column-id"] = json!(26);
    let judged = judge("add_column", None, &proposal);
    let found = judged.at("field-id-reuse");
    assert!(
        found
            .iter()
            .any(|(m, at)| m.contains("`current-schema-id` is") && at == &first.to_string()),
        "{found:?}"
    );
}

#[test]
fn reshaped_nested_types_are_refused() {
    // Edited: the element of `points` (id 17) replaced by a new element id 25.
    let base = read_json(&case("add_to_list_element").join("base.metadata.json"));
    let mut proposal = base.clone();
    with_new_schema(&mut proposal, |schema| {
        if let Some(fields) = schema["fields"].as_array_mut() {
            for field in fields.iter_mut().filter(|f| f["name"] == "points") {
                field["type"]["element-id"] = json!(25);
            }
        }
    });
    proposal["last-column-id"] = json!(25);
    let judged = judge("add_to_list_element", Some(&base), &proposal);
    assert!(
        judged
            .at("nested-structure-change")
            .iter()
            .any(|(m, _)| m.contains("the element of `points` is replaced (id 17 -> 25)")),
        "{}",
        judged.report
    );
}

#[test]
fn a_type_change_in_a_metadata_file_is_judged_like_ddl() {
    // widen_int_to_long is pyiceberg's; edited the other way round it narrows cnt long -> int.
    let widened = read_json(&case("widen_int_to_long").join("expected.metadata.json"));
    let mut narrowed = widened.clone();
    with_new_schema(&mut narrowed, |schema| {
        if let Some(fields) = schema["fields"].as_array_mut() {
            for field in fields.iter_mut().filter(|f| f["name"] == "cnt") {
                field["type"] = json!("int");
            }
        }
    });
    let judged = judge("widen_int_to_long", Some(&widened), &narrowed);
    assert_eq!(judged.code, Some(1));
    let found = judged.at("type-narrowing");
    assert_eq!(found.len(), 1, "{}", judged.report);
    assert_eq!(found[0].1, "\"int\"");
}

#[test]
fn apply_writes_the_proposed_file_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("events/metadata");
    fs::create_dir_all(&table).unwrap();
    fs::copy(
        case("add_column").join("base.metadata.json"),
        table.join("v1.metadata.json"),
    )
    .unwrap();
    fs::write(table.join("version-hint.text"), "1\n").unwrap();
    let proposal = case("add_column").join("expected.metadata.json");
    let out = fieldgate(
        &[
            "apply",
            proposal.to_str().unwrap(),
            "--metadata",
            "events",
            "--write",
        ],
        dir.path(),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        fs::read(table.join("v2.metadata.json")).unwrap(),
        fs::read(&proposal).unwrap()
    );
    assert_eq!(
        fs::read_to_string(table.join("version-hint.text")).unwrap(),
        "2"
    );
}

#[test]
fn a_metadata_proposal_needs_the_table_it_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let proposal = case("add_column").join("expected.metadata.json");
    let out = fieldgate(&["lint", proposal.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--metadata"));
}

fn partition_case(name: &str, file: &str) -> Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/partition_cases");
    read_json(&dir.join(name).join(file))
}

#[test]
fn pyicebergs_property_commit_is_read_as_property_changes_at_their_keys() {
    // pyiceberg's set_properties + remove_properties: one property set, `owner` removed.
    let base = partition_case("v2_properties", "base.metadata.json");
    let proposal = partition_case("v2_properties", "expected.metadata.json");
    let judged = judge("v2_properties", Some(&base), &proposal);
    assert_eq!(judged.code, Some(0), "{}", judged.report);
    let changes: Vec<(&str, &str)> = judged.report["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| (c["kind"].as_str().unwrap(), c["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        changes,
        [
            ("set-properties", "write.target-file-size-bytes"),
            ("unset-properties", "owner"),
        ],
        "{}",
        judged.report
    );
}

#[test]
fn a_write_format_change_in_a_metadata_file_is_judged_at_the_property() {
    let base = partition_case("v2_properties", "expected.metadata.json");
    let mut proposal = base.clone();
    proposal["properties"]["write.format.default"] = json!("orc");
    let judged = judge("v2_properties", Some(&base), &proposal);
    let found = judged.at("write-format-change");
    assert_eq!(found.len(), 1, "{}", judged.report);
    assert_eq!(found[0].1, "\"write.format.default\": \"orc\"");
}

#[test]
fn a_name_mapping_removed_by_a_metadata_file_is_caught_at_properties() {
    // The table imported files without field ids (add_files), read through its name mapping.
    let base = read_json(&case("name_mapping_rename_and_add").join("base.metadata.json"));
    let mut proposal = base.clone();
    if let Some(properties) = proposal["properties"].as_object_mut() {
        properties.remove("schema.name-mapping.default");
    }
    let judged = judge("name_mapping_rename_and_add", Some(&base), &proposal);
    assert_eq!(judged.code, Some(1), "{}", judged.report);
    let found = judged.at("name-mapping-change");
    assert_eq!(found.len(), 1, "{}", judged.report);
    assert!(found[0].0.contains("is removed"), "{found:?}");
    assert_eq!(found[0].1, "\"properties\"");
}

#[test]
fn a_name_mapping_rewritten_by_a_metadata_file_is_caught_at_the_property() {
    let base = read_json(&case("name_mapping_rename_and_add").join("base.metadata.json"));
    let mapping: Value = serde_json::from_str(
        base["properties"]["schema.name-mapping.default"]
            .as_str()
            .expect("the base has a name mapping"),
    )
    .expect("the mapping is JSON");
    let first = mapping[0]["names"][0].as_str().expect("a mapped name");
    let mut rewritten = mapping.clone();
    rewritten[0]["field-id"] = json!(9999);
    let mut proposal = base.clone();
    proposal["properties"]["schema.name-mapping.default"] = json!(rewritten.to_string());
    let judged = judge("name_mapping_rename_and_add", Some(&base), &proposal);
    let found = judged.at("name-mapping-change");
    assert_eq!(found.len(), 1, "{}", judged.report);
    assert!(found[0].0.contains(&format!("`{first}`")), "{found:?}");
    assert!(
        found[0].1.starts_with("\"schema.name-mapping.default\": "),
        "{found:?}"
    );
}

/// The rules `lint` raises on `file` (in `dir`) against the case's base, sorted.
fn rules_raised(dir: &Path, file: &str) -> Vec<String> {
    let out = fieldgate(
        &[
            "lint",
            file,
            "--metadata",
            "base.metadata.json",
            "--format",
            "json",
        ],
        dir,
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "{file}: not a report: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let mut rules: Vec<String> = report["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["rule"].as_str().map(str::to_string))
        .collect();
    rules.sort();
    rules.dedup();
    rules
}

#[test]
fn pyicebergs_partition_sort_and_property_commits_raise_what_their_statements_raise() {
    // Each case is a Spark migration and the metadata pyiceberg committed for it: judged as a
    // metadata proposal, the file must raise exactly the rules its statements raise.
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/partition_cases");
    let mut raised_any = false;
    for entry in fs::read_dir(&cases).unwrap() {
        let case = entry.unwrap().path();
        let dir = tempfile::tempdir().unwrap();
        for file in ["base.metadata.json", "change.sql"] {
            fs::copy(case.join(file), dir.path().join(file)).unwrap();
        }
        let written = read_json(&case.join("expected.metadata.json"));
        let text = serde_json::to_string_pretty(&written).unwrap();
        fs::write(dir.path().join("v2.metadata.json"), text).unwrap();
        let by_statements = rules_raised(dir.path(), "change.sql");
        let by_file = rules_raised(dir.path(), "v2.metadata.json");
        assert_eq!(by_file, by_statements, "{}", case.display());
        raised_any |= !by_file.is_empty();
    }
    assert!(
        raised_any,
        "no case raises a rule: the comparison shows nothing"
    );
}

#[test]
fn a_v1_partition_field_voided_by_a_metadata_file_is_caught_at_the_default_spec() {
    let base = partition_case("v1_drop_becomes_void", "base.metadata.json");
    let proposal = partition_case("v1_drop_becomes_void", "expected.metadata.json");
    let judged = judge("v1_drop_becomes_void", Some(&base), &proposal);
    let found = judged.at("partition-drop-v1");
    assert_eq!(found.len(), 1, "{}", judged.report);
    let spec_id = proposal["default-spec-id"].to_string();
    assert_eq!(found[0].1, spec_id, "{found:?}");
}
