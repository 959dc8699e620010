//! Schema files through the binary: as a proposal against Iceberg metadata (findings at the
//! YAML's lines, ids written back with everything else kept), as the description of a table
//! that has no Iceberg metadata, and as a new table.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fieldgate(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fieldgate"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("fieldgate runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!(
            "not a JSON report:\n{}\n{}",
            text(&output.stdout),
            text(&output.stderr)
        )
    })
}

/// A scratch copy of the pyiceberg-written `events` table (Hadoop layout).
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let metadata = dir.path().join("events/metadata");
    fs::create_dir_all(&metadata).unwrap();
    for entry in fs::read_dir(repo().join("tests/fixtures/tables/events/metadata")).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, metadata.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

#[test]
fn the_quick_start_as_a_schema_file_gets_the_ddl_ids_and_findings_at_its_lines() {
    let out = fieldgate(
        &[
            "lint",
            "tests/proposals/events.yaml",
            "--metadata",
            "tests/fixtures/tables/events",
        ],
        &repo(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    insta::assert_snapshot!("quickstart_schema_file_human_report", text(&out.stdout));

    // The same ids as tests/proposals/evolve_events.sql hands out.
    let ddl = json(&fieldgate(
        &[
            "lint",
            "tests/proposals/evolve_events.sql",
            "--metadata",
            "tests/fixtures/tables/events",
            "--format",
            "json",
        ],
        &repo(),
    ));
    let yaml = json(&fieldgate(
        &[
            "lint",
            "tests/proposals/events.yaml",
            "--metadata",
            "tests/fixtures/tables/events",
            "--format",
            "json",
        ],
        &repo(),
    ));
    let assigned = |report: &Value| report["tables"][0]["assigned"].clone();
    assert_eq!(assigned(&yaml), assigned(&ddl));
    assert_eq!(
        yaml["tables"][0]["last_column_id"],
        ddl["tables"][0]["last_column_id"]
    );
}

#[test]
fn apply_write_fills_the_ids_in_and_keeps_every_other_byte() {
    let dir = scratch();
    let original = fs::read_to_string(repo().join("tests/proposals/events.yaml")).unwrap();
    fs::write(dir.path().join("events.yaml"), &original).unwrap();
    let out = fieldgate(
        &["apply", "events.yaml", "--metadata", "events", "--write"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        dir.path()
            .join("events/metadata/v10.metadata.json")
            .is_file()
    );
    let written = fs::read_to_string(dir.path().join("events.yaml")).unwrap();
    let expected = original
        .replace(
            "  - {name: vip_level, type: int, doc: member level 1-5}     # new: no id yet",
            "  - {id: 25, name: vip_level, type: int, doc: member level 1-5}     # new: no id yet",
        )
        .replace(
            "          - {name: label, type: \"struct<text: string, lang: string>\"}   # new, in every element",
            "          - {id: 26, name: label, type: {struct: [{id: 27, name: text, type: string}, {id: 28, name: lang, type: string}]}}   # new, in every element",
        );
    assert_ne!(expected, original);
    assert_eq!(written, expected);
    // The file now says what the table is: nothing left to change.
    let again = json(&fieldgate(
        &[
            "lint",
            "events.yaml",
            "--metadata",
            "events",
            "--format",
            "json",
        ],
        dir.path(),
    ));
    assert_eq!(again["changes"], Value::Array(Vec::new()));
    assert_eq!(again["passed"], true);
}

#[test]
fn a_field_that_lost_its_id_is_explained_as_a_drop_and_a_re_add() {
    let dir = scratch();
    let original = fs::read_to_string(repo().join("tests/proposals/events.yaml")).unwrap();
    let edited = original.replace(
        "{id: 4, name: status, type: string, doc: lifecycle status}",
        "{name: status, type: string, doc: lifecycle status}",
    );
    fs::write(dir.path().join("events.yaml"), edited).unwrap();
    let out = fieldgate(
        &[
            "lint",
            "events.yaml",
            "--metadata",
            "events",
            "--format",
            "json",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let reuse = diagnostics
        .iter()
        .find(|d| d["rule"] == "name-reuse")
        .expect("re-adding `status` reuses a dropped name");
    let help = reuse["help"].as_str().unwrap();
    assert!(
        help.contains("`status` has no id in the file, so it reads as a new field")
            && help.contains("write `id: 4` on it"),
        "{help}"
    );
    assert_eq!(reuse["location"]["line"], 10);
    let drop = diagnostics
        .iter()
        .find(|d| d["rule"] == "column-drop" && d["field"] == "status")
        .expect("status is dropped");
    assert!(drop["help"].as_str().unwrap().contains("write `id: 4`"));
}

#[test]
fn bad_ids_fail_the_proposal_and_apply_writes_nothing() {
    let dir = scratch();
    // Retire id 24 first: a migration drops legacy_flag.
    fs::write(
        dir.path().join("drop.sql"),
        "ALTER TABLE db.events DROP COLUMN legacy_flag;\n",
    )
    .unwrap();
    let out = fieldgate(
        &["apply", "drop.sql", "--metadata", "events", "--write"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Then a schema file gives the retired id to a new field, and one the table never had.
    let original = fs::read_to_string(repo().join("tests/proposals/events.yaml")).unwrap();
    let edited = original
        .replace("{name: vip_level,", "{id: 24, name: vip_level,")
        .replace("{name: label,", "{id: 99, name: label,");
    fs::write(dir.path().join("events.yaml"), &edited).unwrap();
    let out = fieldgate(
        &[
            "apply",
            "events.yaml",
            "--metadata",
            "events",
            "--write",
            "--force",
            "--format",
            "json",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    let rules: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["rule"].as_str())
        .collect();
    assert!(rules.contains(&"field-id-reuse"), "{rules:?}");
    assert!(rules.contains(&"unknown-field"), "{rules:?}");
    let reuse = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "field-id-reuse")
        .unwrap();
    assert!(
        reuse["message"]
            .as_str()
            .unwrap()
            .contains("`vip_level` has id 24, which belonged to `legacy_flag`, dropped earlier"),
        "{reuse}"
    );
    assert_eq!(reuse["location"]["line"], 8);
    // --force does not write what cannot be applied: no new version, the file as it was.
    assert!(
        !dir.path()
            .join("events/metadata/v11.metadata.json")
            .exists()
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("events.yaml")).unwrap(),
        edited
    );
}

#[test]
fn a_broken_schema_file_is_a_located_error_with_exit_2() {
    let dir = scratch();
    fs::write(
        dir.path().join("events.yaml"),
        "table: db.events\nfields:\n  - {id: 1, name: id, type: lnog}\n",
    )
    .unwrap();
    let out = fieldgate(&["lint", "events.yaml", "--metadata", "events"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("events.yaml:3:"), "{stderr}");
    assert!(stderr.contains("did you mean `long`?"), "{stderr}");
}

#[test]
fn a_long_unknown_column_costs_no_more_than_a_short_one() {
    // Before the suggestion was bounded, comparing these two names took their product in memory
    // (40,000 squared cells, gigabytes) and the run was killed.
    let dir = scratch();
    let field = "a".repeat(40_000);
    let named = format!("{}b", "a".repeat(39_999));
    fs::write(
        dir.path().join("events.yaml"),
        format!("table: db.events\nfields:\n  - {{id: 1, name: {field}, type: long}}\nidentifier-fields: [{named}]\n"),
    )
    .unwrap();
    let out = fieldgate(&["lint", "events.yaml", "--metadata", "events"], dir.path());
    let stderr = text(&out.stderr);
    let head: String = stderr.chars().take(300).collect();
    assert_eq!(out.status.code(), Some(2), "{head}");
    assert!(
        stderr.contains("which is not a column of the table"),
        "{head}"
    );
    assert!(!stderr.contains("did you mean"), "{head}");
}

#[test]
fn a_proposal_of_unknown_kind_is_refused() {
    let dir = scratch();
    fs::write(dir.path().join("notes.txt"), "add a column").unwrap();
    let out = fieldgate(&["lint", "notes.txt", "--metadata", "events"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("a proposal is a `.sql` migration"));
}

const HIVE_TABLE: &str = "# A Hive table read by position: no Iceberg metadata anywhere.\ntable: lake.dim_users\nmapping: position\nfields:\n  - {id: 1, name: id, type: long, required: true}\n  - {id: 2, name: phone, type: string}\n  - {id: 3, name: amount, type: \"decimal(10,2)\"}\n";

#[test]
fn a_schema_file_describes_a_table_without_metadata_and_its_mapping_counts() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("users.yaml"), HIVE_TABLE).unwrap();
    fs::write(
        dir.path().join("add.sql"),
        "ALTER TABLE lake.dim_users ADD COLUMN tag string AFTER id;\n",
    )
    .unwrap();
    let out = fieldgate(
        &[
            "lint",
            "add.sql",
            "--metadata",
            "users.yaml",
            "--format",
            "json",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(report["diagnostics"][0]["rule"], "position-shift");

    // The same change as a new version of the description.
    let proposal = HIVE_TABLE.replace(
        "  - {id: 2, name: phone",
        "  - {name: tag, type: string}\n  - {id: 2, name: phone",
    );
    fs::write(dir.path().join("users.next.yaml"), &proposal).unwrap();
    let out = fieldgate(
        &[
            "lint",
            "users.next.yaml",
            "--metadata",
            "users.yaml",
            "--format",
            "json",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(report["diagnostics"][0]["rule"], "position-shift");
    assert_eq!(
        report["diagnostics"][0]["location"]["file"],
        "users.next.yaml"
    );

    // At the end it is fine; -o writes the table's Iceberg metadata, --write the new id.
    let at_end = format!("{HIVE_TABLE}  - {{name: tag, type: string}}\n");
    fs::write(dir.path().join("users.next.yaml"), &at_end).unwrap();
    let out = fieldgate(
        &[
            "apply",
            "users.next.yaml",
            "--metadata",
            "users.yaml",
            "-o",
            "users.metadata.json",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let metadata: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("users.metadata.json")).unwrap())
            .unwrap();
    assert_eq!(metadata["last-column-id"], 4);
    let out = fieldgate(
        &[
            "apply",
            "users.next.yaml",
            "--metadata",
            "users.yaml",
            "--write",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        fs::read_to_string(dir.path().join("users.next.yaml")).unwrap(),
        format!("{HIVE_TABLE}  - {{id: 4, name: tag, type: string}}\n")
    );
    // DDL against a description has no file to write in place.
    let out = fieldgate(
        &[
            "apply",
            "add.sql",
            "--metadata",
            "users.yaml",
            "--write",
            "--force",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("give -o OUT"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_schema_file_without_ids_is_a_new_table() {
    let dir = tempfile::tempdir().unwrap();
    let file = "table: db.created\nfields:\n  - {name: id, type: long, required: true}   # the key\n  - {name: point, type: \"struct<x: double, y: double>\"}\n  - {name: tags, type: {list: string}}\nidentifier-fields: [id]\npartition: [bucket(16, id)]\n";
    fs::write(dir.path().join("created.yaml"), file).unwrap();
    let out = fieldgate(
        &["apply", "created.yaml", "-o", "metadata/v1.metadata.json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let metadata: Value = serde_json::from_str(
        &fs::read_to_string(dir.path().join("metadata/v1.metadata.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(metadata["last-column-id"], 6);
    assert_eq!(
        metadata["schemas"][0]["identifier-field-ids"],
        serde_json::json!([1])
    );
    assert_eq!(
        metadata["partition-specs"][0]["fields"][0]["transform"],
        "bucket[16]"
    );
    // The metadata reads back as a table the same file describes, with nothing to change.
    let out = fieldgate(&["apply", "created.yaml", "--write"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let filled = fs::read_to_string(dir.path().join("created.yaml")).unwrap();
    assert_eq!(
        filled,
        "table: db.created\nfields:\n  - {id: 1, name: id, type: long, required: true}   # the key\n  - {id: 2, name: point, type: {struct: [{id: 4, name: x, type: double}, {id: 5, name: \"y\", type: double}]}}\n  - {id: 3, name: tags, type: {list: string, element-id: 6}}\nidentifier-fields: [id]\npartition: [bucket(16, id)]\n"
    );
    let out = fieldgate(
        &[
            "lint",
            "created.yaml",
            "--metadata",
            "metadata/v1.metadata.json",
            "--format",
            "json",
        ],
        dir.path(),
    );
    assert_eq!(
        json(&out)["changes"],
        Value::Array(Vec::new()),
        "{}",
        text(&out.stdout)
    );

    // Some ids and not others: neither a new table nor a description.
    fs::write(
        dir.path().join("half.yaml"),
        "table: t\nfields:\n  - {id: 1, name: a, type: int}\n  - {name: b, type: int}\n",
    )
    .unwrap();
    let out = fieldgate(&["lint", "half.yaml"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("leave out every id"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_described_table_written_as_metadata_reads_back_as_the_same_table() {
    // The design's example: history, identifier fields, a partition spec and a sort order.
    let dir = tempfile::tempdir().unwrap();
    let file = "table: lake_prod.dim_users\nformat-version: 2\nmapping: field-id\nfields:\n  - {id: 1, name: id, type: long, required: true, doc: user id}\n  - {id: 2, name: mobile_phone, type: string}\n  - id: 4\n    name: address\n    type:\n      struct:\n        - {id: 5, name: city, type: string}\n        - {id: 6, name: zip, type: string}\n  - id: 7\n    name: tags\n    type: {list: string, element-id: 8, element-required: false}\nidentifier-fields: [id]\npartition: [bucket(16, id)]\nsort-order: [id desc]\ndropped:\n  - {id: 3, name: status, type: string, doc: user review state}\n";
    fs::write(dir.path().join("dim_users.yaml"), file).unwrap();
    let out = fieldgate(
        &["apply", "dim_users.yaml", "-o", "dim_users.metadata.json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let metadata: Value = serde_json::from_str(
        &fs::read_to_string(dir.path().join("dim_users.metadata.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(metadata["default-sort-order-id"], 1);
    assert_eq!(metadata["sort-orders"][1]["fields"][0]["direction"], "desc");
    assert_eq!(metadata["last-column-id"], 8);
    // Against its own metadata the file states the same spec and order, and changes nothing.
    let out = fieldgate(
        &[
            "lint",
            "dim_users.yaml",
            "--metadata",
            "dim_users.metadata.json",
            "--format",
            "json",
        ],
        dir.path(),
    );
    let report = json(&out);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert_eq!(report["changes"], Value::Array(Vec::new()));
    assert_eq!(report["diagnostics"], Value::Array(Vec::new()));
}

#[test]
fn the_lake_example_as_a_schema_file_gets_the_migrations_ids() {
    let table = "examples/lake/warehouse/lake_prod/dim_users";
    let sql = json(&fieldgate(
        &[
            "lint",
            "examples/lake/migrations/dim_users/0001_add_vip_level.sql",
            "examples/lake/migrations/dim_users/0002_rename_phone.sql",
            "--metadata",
            table,
            "--format",
            "json",
        ],
        &repo(),
    ));
    let yaml = json(&fieldgate(
        &[
            "lint",
            "examples/lake/schemas/dim_users.yaml",
            "--metadata",
            table,
            "--format",
            "json",
        ],
        &repo(),
    ));
    assert_eq!(yaml["passed"], true, "{yaml}");
    assert_eq!(yaml["tables"][0]["assigned"], sql["tables"][0]["assigned"]);
    // (Two statements list the add first; one update lists renames before adds.)
    let kinds = |report: &Value| -> Vec<(String, String)> {
        let mut kinds: Vec<(String, String)> = report["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["kind"].to_string(), c["path"].to_string()))
            .collect();
        kinds.sort();
        kinds
    };
    assert_eq!(kinds(&yaml), kinds(&sql));
    // The same judgement: the rename is suppressed with the same reason, nothing else stands
    // but the reader-cache note.
    let rules = |report: &Value, key: &str| -> Vec<String> {
        report[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["rule"].to_string())
            .collect()
    };
    assert_eq!(rules(&yaml, "diagnostics"), rules(&sql, "diagnostics"));
    assert_eq!(rules(&yaml, "suppressed"), rules(&sql, "suppressed"));
    assert_eq!(
        yaml["suppressed"][0]["reason"],
        sql["suppressed"][0]["reason"]
    );
}
