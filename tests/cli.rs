//! The `fieldgate` binary end to end: exit codes, located errors, reports and what is written.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn events_dir() -> PathBuf {
    repo().join("tests/fixtures/tables/events")
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

/// A scratch copy of the pyiceberg-written `events` table (Hadoop layout) and a place for files.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let metadata = dir.path().join("events/metadata");
    fs::create_dir_all(&metadata).unwrap();
    for entry in fs::read_dir(events_dir().join("metadata")).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, metadata.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

fn write(dir: &Path, name: &str, contents: &str) -> String {
    fs::write(dir.join(name), contents).unwrap();
    name.to_string()
}

#[test]
fn quick_start_applies_and_reports_assigned_ids() {
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("new.metadata.json");
    // Relative paths, so the report (which names the files) is the same in every checkout.
    let output = fieldgate(
        &[
            "apply",
            "examples/lake/migrations/dim_users/0001_add_vip_level.sql",
            "examples/lake/migrations/dim_users/0002_rename_phone.sql",
            "--metadata",
            "examples/lake/warehouse/lake_prod/dim_users",
            "-o",
            out.to_str().unwrap(),
            "--format",
            "json",
        ],
        &repo(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    insta::assert_json_snapshot!("quickstart_json_report", report);
    assert!(out.is_file());
}

#[test]
fn rejected_proposal_renders_every_problem_at_its_text() {
    let out = fieldgate(
        &[
            "lint",
            "tests/proposals/broken.sql",
            "--metadata",
            "tests/fixtures/tables/events",
        ],
        &repo(),
    );
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("broken_human_report", text(&out.stdout));
}

#[test]
fn the_example_lakes_bad_migrations_fail_with_their_rules() {
    let lake = "examples/lake/warehouse/lake_prod";
    for (sql, table, rule) in [
        ("dim_users_status_again.sql", "dim_users", "name-reuse"),
        (
            "fact_orders_narrow_customer_id.sql",
            "fact_orders",
            "type-narrowing",
        ),
        (
            "fact_orders_drop_region.sql",
            "fact_orders",
            "partition-source-drop",
        ),
    ] {
        let sql = format!("examples/lake/bad/{sql}");
        let metadata = format!("{lake}/{table}");
        let out = fieldgate(
            &["lint", &sql, "--metadata", &metadata, "--format", "json"],
            &repo(),
        );
        assert_eq!(out.status.code(), Some(1), "{sql}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let rules: Vec<&str> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["rule"].as_str().unwrap())
            .collect();
        assert!(rules.contains(&rule), "{sql}: {rules:?}");
    }
}

#[test]
fn malformed_sql_is_a_located_error_with_exit_2() {
    let dir = scratch();
    let sql = write(
        dir.path(),
        "bad.sql",
        "ALTER TABLE db.events ADD COLUMN x int;\nALTER TABLE db.events RENAME COLUMN a b;\n",
    );
    let out = fieldgate(&["lint", &sql, "--metadata", "events"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("bad.sql:2:"), "{stderr}");
    assert!(out.stdout.is_empty(), "no verdict for unreadable input");
}

#[test]
fn malformed_metadata_json_is_a_located_error_with_exit_2() {
    let dir = scratch();
    let sql = write(
        dir.path(),
        "m.sql",
        "ALTER TABLE db.events ADD COLUMN x int;",
    );
    write(
        dir.path(),
        "broken.metadata.json",
        "{\"format-version\": 2,\n \"location\": \"x\",\n \"location\": \"y\"}",
    );
    let out = fieldgate(
        &["lint", &sql, "--metadata", "broken.metadata.json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("broken.metadata.json:3:2"), "{stderr}");
    assert!(stderr.contains("duplicate"), "{stderr}");

    write(
        dir.path(),
        "not-iceberg.metadata.json",
        "{\"format-version\": 7}",
    );
    let out = fieldgate(
        &["lint", &sql, "--metadata", "not-iceberg.metadata.json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("format version 7 is not supported"),
        "{}",
        text(&out.stderr)
    );

    fs::write(
        dir.path().join("latin1.sql"),
        b"ALTER TABLE db.events ADD COLUMN caf\xe9 int;",
    )
    .unwrap();
    let out = fieldgate(&["lint", "latin1.sql", "--metadata", "events"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("invalid UTF-8 at byte 36"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn unknown_fields_are_findings_with_exit_1_and_a_json_location() {
    let dir = scratch();
    let sql = write(
        dir.path(),
        "m.sql",
        "-- typo\nALTER TABLE db.events DROP COLUMN lagacy_flag;\n",
    );
    let out = fieldgate(
        &["lint", &sql, "--metadata", "events", "--format", "json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let diagnostic = &report["diagnostics"][0];
    assert_eq!(diagnostic["rule"], "unknown-field");
    assert_eq!(diagnostic["help"], "did you mean `legacy_flag`?");
    assert_eq!(
        diagnostic["location"],
        serde_json::json!({"file": "m.sql", "line": 2, "column": 35, "offset": 42, "length": 11})
    );
    assert_eq!(report["passed"], false);
}

#[test]
fn a_statement_for_another_table_is_refused() {
    let dir = scratch();
    let sql = write(
        dir.path(),
        "m.sql",
        "ALTER TABLE db.events ADD COLUMN x int;\nALTER TABLE db.orders ADD COLUMN y int;\n",
    );
    let out = fieldgate(&["lint", &sql, "--metadata", "events"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("this statement is for `db.orders`"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn write_to_a_table_directory_adds_the_next_version_and_moves_the_hint() {
    let dir = scratch();
    let sql = write(
        dir.path(),
        "m.sql",
        "ALTER TABLE db.events ADD COLUMN vip_level int;",
    );
    let before = fs::read(dir.path().join("events/metadata/v9.metadata.json")).unwrap();
    let out = fieldgate(
        &["apply", &sql, "--metadata", "events", "--write"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        fs::read(dir.path().join("events/metadata/v9.metadata.json")).unwrap(),
        before
    );
    // The bare number, as Java's HadoopTableOperations writes it: readers parse it whole.
    assert_eq!(
        fs::read_to_string(dir.path().join("events/metadata/version-hint.text")).unwrap(),
        "10"
    );
    let new = fs::read_to_string(dir.path().join("events/metadata/v10.metadata.json")).unwrap();
    assert!(
        new.contains(r#"{"id":25,"name":"vip_level","type":"int","required":false}"#),
        "{new}"
    );
    // The replaced file is logged, with the time it was written, under the table's location.
    let old: serde_json::Value = serde_json::from_slice(&before).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&new).unwrap();
    let log = doc["metadata-log"].as_array().unwrap();
    let last = log.last().unwrap();
    assert_eq!(last["timestamp-ms"], old["last-updated-ms"]);
    let location = old["location"].as_str().unwrap().trim_end_matches('/');
    assert_eq!(
        last["metadata-file"],
        format!("{location}/metadata/v9.metadata.json")
    );
    assert_eq!(
        log.len(),
        old["metadata-log"].as_array().map_or(0, Vec::len) + 1
    );
    let leftovers: Vec<_> = fs::read_dir(dir.path().join("events/metadata"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

/// The last `metadata-log` entry of the metadata file at `path`, and how many there are.
fn last_logged(path: &Path) -> (serde_json::Value, usize) {
    let doc: serde_json::Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    let log = doc["metadata-log"].as_array().cloned().unwrap_or_default();
    (log.last().cloned().unwrap_or_default(), log.len())
}

#[test]
fn a_new_file_logs_the_file_it_was_made_from_where_its_place_is_known() {
    let dir = scratch();
    let sql = write(
        dir.path(),
        "m.sql",
        "ALTER TABLE db.events ADD COLUMN x int;",
    );
    // The table's `location` is the scratch copy, so v9 is the file the table keeps there.
    let v9_path = dir.path().join("events/metadata/v9.metadata.json");
    let mut v9: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&v9_path).unwrap()).unwrap();
    let location = format!("file://{}/events", dir.path().display());
    v9["location"] = location.clone().into();
    fs::write(&v9_path, v9.to_string()).unwrap();
    let logged_before = v9["metadata-log"].as_array().map_or(0, Vec::len);
    let v9_entry = serde_json::json!({
        "timestamp-ms": v9["last-updated-ms"],
        "metadata-file": format!("{location}/metadata/v9.metadata.json"),
    });
    let apply = |metadata: &str, target: &[&str]| {
        let mut args = vec!["apply", &sql, "--metadata", metadata];
        args.extend(target);
        let out = fieldgate(&args, dir.path());
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    };
    // `-o` from the table directory, and from its current file where the table keeps it: as a
    // Java commit logs the file its base was read from.
    apply("events", &["-o", "a.metadata.json"]);
    assert_eq!(
        last_logged(&dir.path().join("a.metadata.json")),
        (v9_entry.clone(), logged_before + 1)
    );
    apply(
        "events/metadata/v9.metadata.json",
        &["-o", "b.metadata.json"],
    );
    assert_eq!(
        last_logged(&dir.path().join("b.metadata.json")),
        (v9_entry, logged_before + 1)
    );
    // A copy kept elsewhere stands for a place nobody knows: nothing is logged; nor is the file
    // an in-place write replaces.
    fs::copy(&v9_path, dir.path().join("copy.metadata.json")).unwrap();
    apply("copy.metadata.json", &["-o", "c.metadata.json"]);
    assert_eq!(
        last_logged(&dir.path().join("c.metadata.json")).1,
        logged_before
    );
    apply("copy.metadata.json", &["--write"]);
    assert_eq!(
        last_logged(&dir.path().join("copy.metadata.json")).1,
        logged_before
    );
    // A saved LoadTableResult says where the catalog keeps the metadata it holds.
    let saved = serde_json::json!({
        "metadata-location": "s3://bucket/events/metadata/00009-a.metadata.json",
        "metadata": v9,
        "config": {},
    });
    fs::write(dir.path().join("loaded.json"), saved.to_string()).unwrap();
    apply("loaded.json", &["-o", "d.metadata.json"]);
    let (last, count) = last_logged(&dir.path().join("d.metadata.json"));
    assert_eq!(count, logged_before + 1);
    assert_eq!(
        last["metadata-file"],
        "s3://bucket/events/metadata/00009-a.metadata.json"
    );
    assert_eq!(last["timestamp-ms"], v9["last-updated-ms"]);
}

#[test]
fn apply_writes_nothing_java_would_refuse_to_read() {
    // `s.b` added beside a struct `s` holding `b`: two fields of one full name, which Iceberg
    // Java's schema index refuses. The built metadata is checked before any write.
    let dir = scratch();
    let sql = write(
        dir.path(),
        "m.sql",
        "ALTER TABLE db.events ADD COLUMN s STRUCT<b: INT>;\nALTER TABLE db.events ADD COLUMN `s.b` INT;",
    );
    let out = fieldgate(
        &["apply", &sql, "--metadata", "events", "--write", "--force"],
        dir.path(),
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("not valid Iceberg metadata (Invalid schema: multiple fields for name s.b"),
        "{stderr}"
    );
    assert!(
        !dir.path()
            .join("events/metadata/v10.metadata.json")
            .exists()
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("events/metadata/version-hint.text")).unwrap(),
        fs::read_to_string(events_dir().join("metadata/version-hint.text")).unwrap()
    );
}

#[test]
fn write_in_place_replaces_the_file_only_when_the_gate_passes() {
    let dir = scratch();
    let file = dir.path().join("events/metadata/v9.metadata.json");
    let before = fs::read(&file).unwrap();
    let bad = write(
        dir.path(),
        "bad.sql",
        "ALTER TABLE db.events ADD COLUMN id int;",
    );
    let out = fieldgate(
        &[
            "apply",
            &bad,
            "--metadata",
            "events/metadata/v9.metadata.json",
            "--write",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        fs::read(&file).unwrap(),
        before,
        "a failing gate writes nothing"
    );

    let good = write(
        dir.path(),
        "good.sql",
        "ALTER TABLE db.events RENAME COLUMN data TO payload;",
    );
    let out = fieldgate(
        &[
            "apply",
            &good,
            "--metadata",
            "events/metadata/v9.metadata.json",
            "--write",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        fs::read_to_string(&file)
            .unwrap()
            .contains(r#""name":"payload""#)
    );
}

#[test]
fn a_change_that_changes_nothing_rewrites_the_file_byte_for_byte() {
    let dir = scratch();
    let sql = write(
        dir.path(),
        "noop.sql",
        "ALTER TABLE db.events ALTER COLUMN cnt TYPE int;",
    );
    let out = fieldgate(
        &["apply", &sql, "--metadata", "events", "-o", "same.json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        fs::read(dir.path().join("same.json")).unwrap(),
        fs::read(dir.path().join("events/metadata/v9.metadata.json")).unwrap()
    );
}

#[test]
fn create_table_without_metadata_numbers_fields_from_one() {
    let dir = tempfile::tempdir().unwrap();
    let sql = write(
        dir.path(),
        "create.sql",
        "CREATE TABLE lake_prod.dim_users (id bigint NOT NULL, phone string, amount decimal(10, 2)) USING iceberg PARTITIONED BY (bucket(16, id));\n\
         ALTER TABLE lake_prod.dim_users ADD COLUMN vip_level int COMMENT '1-5';",
    );
    let out = fieldgate(
        &["apply", &sql, "-o", "t/metadata/v1.metadata.json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let written = fs::read_to_string(dir.path().join("t/metadata/v1.metadata.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&written).unwrap();
    assert_eq!(doc["last-column-id"], 4);
    assert_eq!(doc["current-schema-id"], 1);
    assert_eq!(doc["schemas"][1]["fields"][3]["name"], "vip_level");
    assert_eq!(doc["schemas"][1]["fields"][3]["id"], 4);
    assert_eq!(
        doc["partition-specs"][0]["fields"][0],
        serde_json::json!({"name": "id_bucket", "transform": "bucket[16]", "source-id": 1, "field-id": 1000})
    );
    // A URI, as every Iceberg writer records a location.
    let location = doc["location"].as_str().unwrap();
    assert!(
        location.starts_with("file:///") && location.ends_with("/t"),
        "{location}"
    );
    // The document we wrote is one we can read back.
    let out = fieldgate(&["lint", &sql, "--metadata", "t"], dir.path());
    assert_eq!(
        out.status.code(),
        Some(2),
        "CREATE TABLE for an existing table is refused"
    );
}

#[test]
fn apply_needs_a_destination() {
    let dir = scratch();
    let sql = write(
        dir.path(),
        "m.sql",
        "ALTER TABLE db.events ADD COLUMN x int;",
    );
    let out = fieldgate(&["apply", &sql, "--metadata", "events"], dir.path());
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn rules_lists_the_catalogue_and_explain_documents_one_rule() {
    let out = fieldgate(&["rules", "--format", "json"], &repo());
    assert_eq!(out.status.code(), Some(0));
    let catalogue: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = catalogue["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"type-narrowing") && names.contains(&"name-reuse"),
        "{names:?}"
    );
    assert_eq!(catalogue["rules"][0]["severity"], "warning");

    let out = fieldgate(&["explain", "type-narrowing"], &repo());
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!("explain_type_narrowing", text(&out.stdout));

    let out = fieldgate(&["explain", "type-narowing"], &repo());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("did you mean `type-narrowing`?"));
}

#[test]
fn suppressions_silence_with_a_reason_and_the_reason_is_reported() {
    let dir = scratch();
    let sql = write(
        dir.path(),
        "m.sql",
        "-- fieldgate: allow column-drop -- retired in the Q3 review\nALTER TABLE db.events DROP COLUMN legacy_flag;\n",
    );
    let out = fieldgate(
        &["lint", &sql, "--metadata", "events", "--format", "json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["suppressed"][0]["rule"], "column-drop");
    assert_eq!(
        report["suppressed"][0]["reason"],
        "retired in the Q3 review"
    );
    let rules: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["reader-cache-refresh"]);
}

#[test]
fn configuration_sets_severities_and_mapping_and_rejects_unknown_keys() {
    let dir = scratch();
    let sql = write(
        dir.path(),
        "m.sql",
        "ALTER TABLE db.events ADD COLUMN new_tag string AFTER id;\n",
    );
    write(
        dir.path(),
        "fieldgate.yaml",
        "tables:\n  db.events:\n    mapping: position\nrules:\n  reader-cache-refresh: off\n",
    );
    let out = fieldgate(
        &["lint", &sql, "--metadata", "events", "--format", "json"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["position-shift"]);

    write(
        dir.path(),
        "fieldgate.yaml",
        "rules:\n  colum-drop: error\n",
    );
    let out = fieldgate(&["lint", &sql, "--metadata", "events"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("unknown rule `colum-drop`")
            && stderr.contains("did you mean `column-drop`?"),
        "{stderr}"
    );
}

#[test]
fn a_reader_that_closes_the_pipe_early_does_not_turn_the_verdict_into_an_error() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fieldgate"))
        .args([
            "lint",
            "tests/proposals/broken.sql",
            "--metadata",
            "tests/fixtures/tables/events",
        ])
        .current_dir(repo())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Close the read end before fieldgate writes, as `fieldgate lint ... | head -0` would.
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(!text(&output.stderr).contains("Broken pipe"));
}

/// The `suppression` findings of a JSON report: (message, help).
fn suppression_problems(report: &serde_json::Value) -> Vec<(String, String)> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "suppression")
        .map(|d| {
            let field = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (field("message"), field("help"))
        })
        .collect()
}

#[test]
fn a_mistyped_rule_in_a_suppression_is_reported_as_the_typo_alone() {
    let dir = scratch();
    let dim_users = repo().join("examples/lake/warehouse/lake_prod/dim_users");
    let dim_users = dim_users.to_str().unwrap();
    let lint = |sql: &str| {
        let file = write(dir.path(), "m.sql", sql);
        let out = fieldgate(
            &["lint", &file, "--metadata", dim_users, "--format", "json"],
            dir.path(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        suppression_problems(&serde_json::from_slice(&out.stdout).unwrap())
    };
    let rename = "ALTER TABLE lake_prod.dim_users RENAME COLUMN phone TO mobile;\n";
    let typo = lint(&format!(
        "-- fieldgate: allow colum-rename -- the views moved\n{rename}"
    ));
    assert_eq!(
        typo,
        [(
            "lake_prod.dim_users: the suppression names an unknown rule `colum-rename`".to_string(),
            "did you mean `column-rename`?".to_string()
        )]
    );
    // Beside a known rule that silences nothing, only that one is said to silence nothing.
    let both = lint(&format!(
        "-- fieldgate: allow colum-rename, column-drop -- the views moved\n{rename}"
    ));
    let messages: Vec<&str> = both.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(
        messages,
        [
            "lake_prod.dim_users: the suppression names an unknown rule `colum-rename`",
            "lake_prod.dim_users: the suppression of column-drop silences nothing"
        ]
    );
}
