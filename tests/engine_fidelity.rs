//! Where fieldgate must read exactly what Spark and Iceberg Java read: the current metadata
//! file of a Hadoop table (as `HadoopTableOperations` finds it), and column names resolved as
//! Spark's resolver (`String.equalsIgnoreCase`) resolves them.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn events_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tables/events")
}

fn fieldgate(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fieldgate"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_BASE_REF")
        .output()
        .expect("fieldgate runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A scratch copy of the pyiceberg-written `events` table (versions 1 to 9, hint at 9).
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

/// Lints `sql` against the `events` table directory; returns the exit code and all output.
fn lint(dir: &Path, sql: &str) -> (Option<i32>, String) {
    fs::write(dir.join("m.sql"), sql).unwrap();
    let out = fieldgate(
        &["lint", "m.sql", "--metadata", "events", "--format", "json"],
        dir,
    );
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    (out.status.code(), all)
}

/// Writes `v10` as v9 with one more column, `marker`, so which file was read shows.
fn add_v10_with_marker(dir: &Path) {
    let metadata = dir.join("events/metadata");
    let v9 = fs::read_to_string(metadata.join("v9.metadata.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&v9).unwrap();
    let schemas = doc["schemas"].as_array_mut().unwrap();
    let mut schema = schemas.last().unwrap().clone();
    let id = doc["last-column-id"].as_i64().unwrap() + 1;
    let new_id = schema["schema-id"].as_i64().unwrap() + 1;
    schema["schema-id"] = new_id.into();
    schema["fields"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"id": id, "name": "marker", "required": false, "type": "int"}));
    doc["schemas"].as_array_mut().unwrap().push(schema);
    doc["current-schema-id"] = new_id.into();
    doc["last-column-id"] = id.into();
    fs::write(metadata.join("v10.metadata.json"), doc.to_string()).unwrap();
}

#[test]
fn a_version_beyond_the_hint_is_the_current_one() {
    let dir = scratch();
    add_v10_with_marker(dir.path());
    // Java rolls forward from the hint (9) to v10: `marker` exists, so adding it collides.
    let (code, out) = lint(dir.path(), "ALTER TABLE db.events ADD COLUMN marker int;");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("name already exists"), "{out}");
}

#[test]
fn a_hint_java_cannot_parse_falls_back_to_the_newest_version() {
    for hint in [
        "9 ",
        "",
        " 9",
        "nine",
        "9.0",
        "2147483648",
        "\u{2168}",
        "\u{1D7FF}",
    ] {
        let dir = scratch();
        add_v10_with_marker(dir.path());
        fs::write(dir.path().join("events/metadata/version-hint.text"), hint).unwrap();
        let (code, out) = lint(dir.path(), "ALTER TABLE db.events ADD COLUMN marker int;");
        assert_eq!(code, Some(1), "hint {hint:?}: {out}");
        assert!(out.contains("name already exists"), "hint {hint:?}: {out}");
    }
    // What `Integer.parseInt` reads: a sign and leading zeros, a line break ending the line,
    // decimal digits of any script (Arabic-Indic, Devanagari, fullwidth).
    for hint in [
        "+9",
        "09\n",
        "9\r\n",
        "\u{669}",
        "+\u{966}\u{96F}",
        "\u{FF19}\n",
    ] {
        let dir = scratch();
        fs::write(dir.path().join("events/metadata/version-hint.text"), hint).unwrap();
        let (code, out) = lint(dir.path(), "ALTER TABLE db.events ADD COLUMN marker int;");
        assert_eq!(code, Some(0), "hint {hint:?}: {out}");
    }
}

#[test]
fn a_hint_to_a_missing_version_is_an_error() {
    let dir = scratch();
    fs::write(dir.path().join("events/metadata/version-hint.text"), "12").unwrap();
    let (code, out) = lint(dir.path(), "ALTER TABLE db.events ADD COLUMN x int;");
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("version 12"), "{out}");
    // Java reads a negative hint as a version, and looks for `v-1.metadata.json`.
    fs::write(dir.path().join("events/metadata/version-hint.text"), "-1").unwrap();
    let (code, out) = lint(dir.path(), "ALTER TABLE db.events ADD COLUMN x int;");
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("v-1.metadata.json"), "{out}");
}

#[test]
fn a_negative_version_is_read_and_written_as_java_numbers_it() {
    let dir = scratch();
    let metadata = dir.path().join("events/metadata");
    fs::rename(
        metadata.join("v9.metadata.json"),
        metadata.join("v-1.metadata.json"),
    )
    .unwrap();
    fs::write(metadata.join("version-hint.text"), "-1").unwrap();
    fs::write(
        dir.path().join("m.sql"),
        "ALTER TABLE db.events ADD COLUMN x int;",
    )
    .unwrap();
    let out = fieldgate(
        &["apply", "m.sql", "--metadata", "events", "--write"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The next version is -1 + 1, as Java's commit numbers it; its log names the replaced file.
    let written = fs::read_to_string(metadata.join("v0.metadata.json")).unwrap();
    assert!(written.contains("\"x\""), "{written}");
    assert!(
        written.contains("/metadata/v-1.metadata.json\""),
        "{written}"
    );
    assert_eq!(fs::read(metadata.join("version-hint.text")).unwrap(), b"0");
}

#[test]
fn names_collide_and_resolve_as_spark_resolves_them() {
    let dir = scratch();
    for sql in [
        // `id` exists: Spark's resolver finds `ID` there.
        "ALTER TABLE db.events ADD COLUMN ID string;",
        "ALTER TABLE db.events ADD COLUMNS (extra string, EXTRA string);",
        "ALTER TABLE db.events RENAME COLUMN data TO ID;",
        // Java's equalsIgnoreCase: `ſ` (long s) is `s`, the Kelvin sign is `k`.
        "ALTER TABLE db.events ADD COLUMN `ſtatus` string;",
    ] {
        let (code, out) = lint(dir.path(), sql);
        assert_eq!(code, Some(1), "{sql}: {out}");
        assert!(out.contains("already exists"), "{sql}: {out}");
    }
    // FIRST/AFTER targets resolve the same way.
    let (code, out) = lint(
        dir.path(),
        "ALTER TABLE db.events ADD COLUMN k int AFTER EVENT_TYPE;",
    );
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = lint(
        dir.path(),
        "ALTER TABLE db.events ALTER COLUMN \u{212A}EEP COMMENT 'x';",
    );
    assert_eq!(
        code,
        Some(2),
        "the Kelvin sign is not an ASCII letter unquoted: {out}"
    );
}
