//! `fieldgate verify` end to end on files written by pyarrow and pyiceberg
//! (`tests/interop/make_fixtures.py --verify-out tests/fixtures/verify`): the rows it reads equal
//! the rows pyiceberg's own scan returned for the same file and schema (`expected.json`), pruned
//! columns are never read, incompatible and unreadable files fail loudly, and `--sample` finds the
//! table's files through its Avro manifests. No Python is needed to run these.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify")
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

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            text(&out.stdout),
            text(&out.stderr)
        )
    })
}

fn expected() -> Value {
    serde_json::from_str(&fs::read_to_string(fixtures().join("expected.json")).unwrap()).unwrap()
}

#[test]
fn reads_exactly_what_pyiceberg_reads_for_every_file_and_schema() {
    let expected = expected();
    let reads = expected["reads"].as_array().unwrap();
    assert!(reads.len() >= 17);
    for read in reads {
        let file = read["file"].as_str().unwrap();
        let metadata = read["metadata"].as_str().unwrap();
        let schema_id = read["schema_id"].to_string();
        let out = fieldgate(
            &[
                "verify",
                "--metadata",
                metadata,
                "--schema-id",
                &schema_id,
                file,
                "--rows",
                "all",
                "--format",
                "json",
            ],
            &fixtures(),
        );
        let what = format!("{file} as schema {schema_id} of {metadata}");
        let report = json(&out);
        match (&read["rows"], &read["error"]) {
            (Value::Array(rows), _) => {
                assert_eq!(out.status.code(), Some(0), "{what}: {}", text(&out.stdout));
                assert_eq!(&report["rows"], &Value::Array(rows.clone()), "{what}");
                assert_eq!(report["files"][0]["rows"], rows.len(), "{what}");
                // Rows a position delete file removes: pyiceberg's scan drops them, so do we.
                if let Some(without) = read["rows_without_deletes"].as_array() {
                    let deletes = &report["files"][0]["deletes"];
                    assert_eq!(
                        deletes["position_files"], read["position_deletes"],
                        "{what}"
                    );
                    assert_eq!(
                        deletes["rows_deleted"],
                        without.len() - rows.len(),
                        "{what}"
                    );
                    assert!(
                        without.len() > rows.len(),
                        "{what}: the delete deletes a row"
                    );
                }
            }
            (_, Value::String(error)) => {
                // pyiceberg refused the file; so must we, as a failed verification (exit 1).
                assert_eq!(out.status.code(), Some(1), "{what} (pyiceberg: {error})");
                assert_eq!(report["passed"], false, "{what}");
                assert_eq!(report["rows"], serde_json::json!([]), "{what}");
            }
            _ => panic!("bad expected entry {read}"),
        }
    }
}

#[test]
fn statuses_explain_every_resolution() {
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "people",
            "people/data/s0-pyiceberg.parquet",
            "--format",
            "json",
        ],
        &fixtures(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json(&out);
    let columns = report["files"][0]["columns"].as_array().unwrap();
    let status = |path: &str| -> &Value {
        columns
            .iter()
            .find(|c| c["path"] == path)
            .unwrap_or_else(|| panic!("no column {path}"))
    };
    assert_eq!(status("mobile")["status"], "resolved");
    assert_eq!(status("mobile")["file_column"], "phone");
    assert_eq!(status("age")["status"], "promoted");
    assert_eq!(status("age")["file_type"], "int");
    assert_eq!(status("age")["table_type"], "long");
    assert_eq!(status("score")["status"], "promoted");
    assert_eq!(status("amount")["file_type"], "decimal(9, 2)");
    assert_eq!(status("attrs.value")["status"], "promoted");
    assert_eq!(status("new_tag")["status"], "missing-null");
    assert_eq!(status("address.country")["status"], "missing-null");
    assert_eq!(status("points.element.z")["status"], "missing-null");
    assert_eq!(report["schema_id"], 2);
    assert_eq!(report["columns"][2], "new_tag");
}

#[test]
fn dropped_columns_are_pruned_and_never_read() {
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "people",
            "people/data/s0-pyiceberg.parquet",
            "--format",
            "json",
        ],
        &fixtures(),
    );
    let report = json(&out);
    let file = &report["files"][0];
    let pruned: Vec<&str> = file["pruned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["file_column"].as_str().unwrap())
        .collect();
    assert_eq!(pruned, ["legacy", "points.element.y"]);
    let never: u64 = file["pruned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["chunk_bytes"].as_u64().unwrap())
        .sum();
    let (read, size) = (
        file["bytes_read"].as_u64().unwrap(),
        file["file_bytes"].as_u64().unwrap(),
    );
    assert!(never > 0 && read > 0);
    assert!(
        read <= size - never,
        "read {read} of {size}, {never} pruned"
    );
    assert_eq!(
        size,
        fs::metadata(fixtures().join("people/data/s0-pyiceberg.parquet"))
            .unwrap()
            .len()
    );
}

#[test]
fn a_positional_reader_would_put_phone_numbers_in_new_tag() {
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "people",
            "people/data/s0-pyiceberg.parquet",
        ],
        &fixtures(),
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(
            "by position, `new_tag` (string) would read `phone` (string) values: \"13800000001\", \"13800000002\", \"13800000003\" ...; by field id it reads null"
        ),
        "{stdout}"
    );
    // A file written under the current schema has nothing to show.
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "people",
            "people/data/s2-pyiceberg.parquet",
        ],
        &fixtures(),
    );
    assert!(!text(&out.stdout).contains("by position"));
}

#[test]
fn an_incompatible_physical_type_fails_with_file_column_and_row_group() {
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "people",
            "files/age-as-string.parquet",
            "--format",
            "json",
        ],
        &fixtures(),
    );
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    let age = report["files"][0]["columns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == "age")
        .unwrap()
        .clone();
    assert_eq!(age["status"], "incompatible");
    assert_eq!(age["file_column"], "age");
    assert_eq!(age["file_type"], "string");
    assert_eq!(age["row_group"], 0);
    // An unreadable column is not a dropped one, and a by-position reader reads it where a
    // field-id reader does: neither list it.
    let file = &report["files"][0];
    assert_eq!(file["pruned"], serde_json::json!([]), "{file}");
    assert_eq!(file["positional"], serde_json::json!([]), "{file}");
    let human = fieldgate(
        &[
            "verify",
            "--metadata",
            "people",
            "files/age-as-string.parquet",
        ],
        &fixtures(),
    );
    let stdout = text(&human.stdout);
    assert!(
        stdout.contains("INCOMPATIBLE as long: the file stores string (BYTE_ARRAY (STRING))"),
        "{stdout}"
    );
    assert!(stdout.contains("failed: 1 file,"), "{stdout}");
}

#[test]
fn a_file_without_ids_in_a_table_without_a_name_mapping_fails_clearly() {
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "people/metadata/v2.metadata.json",
            "people/data/s0-imported.parquet",
        ],
        &fixtures(),
    );
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("FAILS: the file has no field ids and the table has no name mapping"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Iceberg Java reads it by position"),
        "{stdout}"
    );
}

#[test]
fn sample_finds_the_table_files_through_its_manifests() {
    let expected = expected();
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "people",
            "--sample",
            "10",
            "--format",
            "json",
            "--rows",
            "all",
        ],
        &fixtures(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json(&out);
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), expected["files"].as_object().unwrap().len());
    let location = expected["table_location"].as_str().unwrap();
    for f in files {
        // Paths come from the manifests (absolute, where pyiceberg wrote them); the files are
        // read from the table's copy here.
        assert!(f["path"].as_str().unwrap().starts_with(location), "{f}");
        assert!(
            f["read_from"].as_str().unwrap().contains("people/data/"),
            "{f}"
        );
    }
    assert_eq!(report["rows"].as_array().unwrap().len(), 12);

    // Three files: one written under each schema.
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "people",
            "--sample",
            "3",
            "--format",
            "json",
        ],
        &fixtures(),
    );
    let report = json(&out);
    let mut schemas: Vec<u64> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let path = f["path"].as_str().unwrap();
            let name = Path::new(path).file_stem().unwrap().to_str().unwrap();
            expected["files"][name]["written_under_schema"]
                .as_u64()
                .unwrap()
        })
        .collect();
    schemas.sort();
    assert_eq!(schemas, [0, 1, 2]);
}

#[test]
fn rows_limit_per_file_and_unknown_schema_id() {
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "people",
            "people/data/s0-pyiceberg.parquet",
            "people/data/s1-pyiceberg.parquet",
            "--rows",
            "1",
            "--format",
            "json",
        ],
        &fixtures(),
    );
    let report = json(&out);
    assert_eq!(report["rows"].as_array().unwrap().len(), 2);
    assert_eq!(report["files"][1]["rows_printed"], 1);
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "people",
            "--schema-id",
            "9",
            "people/data/s0-pyiceberg.parquet",
        ],
        &fixtures(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("has no schema 9 (it has 0, 1, 2)"));
}

/// Copies a real file and damages it; returns its path.
fn damaged(dir: &Path, name: &str, damage: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut bytes = fs::read(fixtures().join("people/data/s0-pyiceberg.parquet")).unwrap();
    damage(&mut bytes);
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn truncated_and_corrupt_files_are_located_errors() {
    let dir = tempfile::tempdir().unwrap();
    let metadata = fixtures().join("people");
    let metadata = metadata.to_str().unwrap();

    let truncated = damaged(dir.path(), "truncated.parquet", |b| b.truncate(b.len() / 2));
    let out = fieldgate(&["verify", "--metadata", metadata, &truncated], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("truncated.parquet`: not a readable Parquet file"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");

    // Garbage in the middle of the `name` column chunk of row group 1.
    let source = fs::File::open(fixtures().join("people/data/s0-pyiceberg.parquet")).unwrap();
    let reader = parquet::file::serialized_reader::SerializedFileReader::new(source).unwrap();
    use parquet::file::reader::FileReader;
    let chunk = reader.metadata().row_group(1).column(1);
    assert_eq!(chunk.column_path().string(), "name");
    let (start, len) = chunk.byte_range();
    let corrupt = damaged(dir.path(), "corrupt.parquet", |b| {
        let (start, len) = (start as usize, len as usize);
        for byte in &mut b[start + len / 4..start + len] {
            *byte = 0xA5;
        }
    });
    let out = fieldgate(&["verify", "--metadata", metadata, &corrupt], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("corrupt.parquet`, row group 1, column `name`: cannot read the data"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");

    // A damaged footer.
    let footer = damaged(dir.path(), "footer.parquet", |b| {
        let n = b.len();
        for byte in &mut b[n - 200..n - 8] {
            *byte = 0x17;
        }
    });
    let out = fieldgate(&["verify", "--metadata", metadata, &footer], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("footer.parquet`: not a readable Parquet file"));

    let out = fieldgate(
        &["verify", "--metadata", metadata, "missing.parquet"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot open `missing.parquet`"));
}

#[test]
fn human_report_of_the_readme_example() {
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "tests/fixtures/verify/people",
            "tests/fixtures/verify/people/data/s0-pyiceberg.parquet",
            "--rows",
            "1",
        ],
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")),
    );
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    insta::assert_snapshot!("verify_human_report", stdout);
    // The README shows this very run.
    let readme =
        fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    assert!(
        readme.contains(&stdout),
        "README.md's verify example is stale:\n{stdout}"
    );
}

fn column<'a>(report: &'a Value, file: usize, path: &str) -> &'a Value {
    report["files"][file]["columns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == path)
        .unwrap_or_else(|| panic!("no column {path} in {report}"))
}

#[test]
fn a_partition_column_missing_from_a_file_reads_its_identity_partition_value() {
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "regions",
            "regions/data/us-imported.parquet",
            "regions/data/null-imported.parquet",
            "--format",
            "json",
            "--rows",
            "all",
        ],
        &fixtures(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json(&out);
    let us = column(&report, 0, "region");
    assert_eq!(us["status"], "partition-value");
    assert_eq!(us["detail"], "identity partition `region` = \"us\"");
    let null = column(&report, 1, "region");
    assert_eq!(null["status"], "missing-null");
    assert_eq!(
        null["detail"],
        "its identity partition `region` is null in the manifest"
    );
    assert_eq!(report["rows"][0]["region"], "us");
    // A by-position reader puts `note` there; the field-id reader the partition value.
    let positional = &report["files"][0]["positional"][0];
    assert_eq!(positional["file_column"], "note");
    assert_eq!(positional["by_id_value"], "us");

    // A required partition column: pyiceberg 0.12 refuses the file before it looks at the
    // partition value (Iceberg Java would read it); so does verify, and says both.
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "required_regions",
            "required_regions/data/us-with-ids.parquet",
            "--format",
            "json",
        ],
        &fixtures(),
    );
    assert_eq!(out.status.code(), Some(1));
    let required = column(&json(&out), 0, "region").clone();
    assert_eq!(required["status"], "missing-required");
    let detail = required["detail"].as_str().unwrap();
    assert!(
        detail.contains("`region` = \"us\"") && detail.contains("pyiceberg 0.12 refuses the file"),
        "{detail}"
    );

    // The same file, but not one of the table's: its partition value is unknown, and said so.
    let dir = tempfile::tempdir().unwrap();
    let stray = dir.path().join("stray.parquet");
    fs::copy(fixtures().join("regions/data/us-imported.parquet"), &stray).unwrap();
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "regions",
            stray.to_str().unwrap(),
            "--format",
            "json",
        ],
        &fixtures(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let region = column(&json(&out), 0, "region").clone();
    assert_eq!(region["status"], "missing-null");
    assert!(
        region["detail"]
            .as_str()
            .unwrap()
            .contains("not in the current snapshot's manifests"),
        "{region}"
    );
}

#[test]
fn sample_applies_position_deletes_and_fills_partition_values() {
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "regions",
            "--sample",
            "10",
            "--rows",
            "all",
        ],
        &fixtures(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("region    (2)  not in the file: identity partition `region` = \"us\""),
        "{stdout}"
    );
    assert!(
        stdout.contains("deletes: 1 position delete file applied, 1 row deleted"),
        "{stdout}"
    );
    assert!(!stdout.contains("\"id\":2"), "row 2 is deleted: {stdout}");
    assert!(
        stdout.contains("passed: 3 files, 5 rows read as schema 0"),
        "{stdout}"
    );
}

#[test]
fn files_outside_the_local_file_system_are_a_clear_error() {
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            "people",
            "s3://bucket/db/people/data/a.parquet",
        ],
        &fixtures(),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("only local files and file: URIs are read so far, not s3:"),
        "{stderr}"
    );

    // A table whose manifests live in object storage: --sample says so, it does not guess.
    let dir = tempfile::tempdir().unwrap();
    let metadata = fs::read_to_string(fixtures().join("regions/metadata/v5.metadata.json"))
        .unwrap()
        .replace("file:///tmp/fieldgate-verify-warehouse/", "gs://lake/");
    let file = dir.path().join("v5.metadata.json");
    fs::write(&file, metadata).unwrap();
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            file.to_str().unwrap(),
            "--sample",
            "1",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("not gs:"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // A local copy of one of its files still verifies, and says what it could not know.
    let data = fixtures().join("regions/data/us-imported.parquet");
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            file.to_str().unwrap(),
            data.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("deletes: the current snapshot's manifests could not be read"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "the partition value a reader uses is in the manifests, which could not be read"
        ),
        "{stdout}"
    );
}

/// pyiceberg 0.12 cannot write format v3 (the fixture script records its refusal), so the v3
/// table here is hand-written in the spec's shape around a real pyiceberg data file.
#[test]
fn v3_types_and_nested_defaults_get_explicit_statuses() {
    let dir = tempfile::tempdir().unwrap();
    let metadata = r#"{"format-version":3,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1",
      "location":"file:///nowhere/t","last-sequence-number":0,"last-updated-ms":1,"last-column-id":40,
      "current-schema-id":0,"schemas":[{"type":"struct","schema-id":0,"fields":[
        {"id":1,"name":"id","required":true,"type":"long"},
        {"id":30,"name":"payload","required":false,"type":"variant"},
        {"id":31,"name":"shape","required":false,"type":"geometry(srid:4326)"},
        {"id":32,"name":"at","required":false,"type":"timestamp_ns",
          "initial-default":"2024-01-01T00:00:00.000000001"},
        {"id":33,"name":"meta","required":false,"initial-default":{},"type":{"type":"struct","fields":[
          {"id":34,"name":"level","required":false,"type":"int","initial-default":3}]}},
        {"id":35,"name":"u","required":false,"type":"unknown"}]}],
      "default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,
      "default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],"next-row-id":0}"#;
    let path = dir.path().join("v1.metadata.json");
    fs::write(&path, metadata).unwrap();
    let data = fixtures().join("people/data/s2-pyiceberg.parquet");
    let out = fieldgate(
        &[
            "verify",
            "--metadata",
            path.to_str().unwrap(),
            data.to_str().unwrap(),
            "--format",
            "json",
            "--rows",
            "1",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json(&out);
    let status = |path: &str| column(&report, 0, path)["status"].clone();
    assert_eq!(status("payload"), "not-read");
    assert_eq!(status("shape"), "not-read");
    assert_eq!(
        column(&report, 0, "payload")["detail"],
        "not verified: fieldgate does not read variant values"
    );
    assert_eq!(
        column(&report, 0, "shape")["detail"],
        "not verified: fieldgate does not read geometry values"
    );
    assert_eq!(status("at"), "missing-default");
    assert_eq!(status("meta"), "missing-default");
    assert_eq!(status("meta.level"), "missing-default");
    assert_eq!(status("u"), "missing-null");
    // Columns that are not read are not shown either: no value is made up for them.
    assert_eq!(
        report["columns"],
        serde_json::json!(["id", "at", "meta", "u"])
    );
    assert_eq!(
        report["rows"][0],
        serde_json::json!({"id": 12, "at": "2024-01-01T00:00:00.000000001", "meta": {"level": 3}, "u": null})
    );
    let human = fieldgate(
        &[
            "verify",
            "--metadata",
            path.to_str().unwrap(),
            data.to_str().unwrap(),
        ],
        dir.path(),
    );
    let stdout = text(&human.stdout);
    assert!(
        stdout.contains("(30)  not read: not verified: fieldgate does not read variant values"),
        "{stdout}"
    );
    assert!(
        stdout.contains("passed: 1 file, 1 row read as schema 0, 0 files a reader cannot read correctly; not verified (not read): `payload`, `shape`"),
        "{stdout}"
    );
}
