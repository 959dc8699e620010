//! Hostile and broken input: each gives a clear located error (exit 2) or a correct verdict,
//! never a panic, a hang or a stack overflow.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn events() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tables/events/metadata/v9.metadata.json")
}

fn run(dir: &Path, args: &[&str]) -> Output {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_fieldgate"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{args:?} took {:?}",
        started.elapsed()
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("overflow"),
        "{args:?} crashed: {stderr}"
    );
    output
}

fn lint_sql(sql: &[u8]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("m.sql"), sql).unwrap();
    run(
        dir.path(),
        &["lint", "m.sql", "--metadata", events().to_str().unwrap()],
    )
}

fn lint_metadata(metadata: &[u8]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("m.sql"),
        "ALTER TABLE db.events ADD COLUMN x int;",
    )
    .unwrap();
    fs::write(dir.path().join("t.metadata.json"), metadata).unwrap();
    run(
        dir.path(),
        &["lint", "m.sql", "--metadata", "t.metadata.json"],
    )
}

/// `lint --format json` of `sql` against the events table, which must refuse it (exit 2): the
/// report.
fn refused_as_json(sql: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("m.sql"), sql).unwrap();
    let metadata = events();
    let args = [
        "lint",
        "m.sql",
        "--metadata",
        metadata.to_str().unwrap(),
        "--format",
        "json",
    ];
    let output = run(dir.path(), &args);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn ten_thousand_levels_of_nested_sql_types_are_a_located_error() {
    let depth = 10_000;
    let sql = format!(
        "ALTER TABLE db.events ADD COLUMN deep {}int{};",
        "array<".repeat(depth),
        ">".repeat(depth)
    );
    let output = lint_sql(sql.as_bytes());
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("m.sql:1:"), "{}", stderr(&output));
}

#[test]
fn ten_thousand_levels_of_nested_json_are_a_located_error() {
    let depth = 10_000;
    let text = format!(
        "{{\"format-version\": 2, \"x\": {}1{}}}",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let output = lint_metadata(text.as_bytes());
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("t.metadata.json:1:"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_megabyte_identifier_gets_a_verdict() {
    let name = "x".repeat(1 << 20);
    let output = lint_sql(format!("ALTER TABLE db.events DROP COLUMN {name};").as_bytes());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
}

#[test]
fn nul_bytes_are_a_located_error() {
    let output = lint_sql(b"ALTER TABLE db.events ADD COLUMN a\0b int;");
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(stderr(&output).contains("m.sql:1:"), "{}", stderr(&output));
}

#[test]
fn truncated_metadata_is_a_located_error_at_every_length() {
    let text = fs::read(events()).unwrap();
    for cut in [0, 1, 100, text.len() / 2, text.len() - 1] {
        let output = lint_metadata(&text[..cut]);
        assert_eq!(output.status.code(), Some(2), "cut at {cut}");
        assert!(
            stderr(&output).contains("t.metadata.json"),
            "cut at {cut}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn field_ids_out_of_range_are_refused() {
    let text = fs::read_to_string(events()).unwrap();
    for bad in ["\"id\":2147483648,", "\"id\":-3,", "\"id\":1e3,"] {
        let broken = text.replacen("\"id\":1,", bad, 1);
        let output = lint_metadata(broken.as_bytes());
        assert_eq!(output.status.code(), Some(2), "{bad}");
    }
}

#[test]
fn duplicate_json_keys_are_refused() {
    let text = fs::read_to_string(events()).unwrap();
    let broken = text.replacen("{\"location\":", "{\"location\":\"a\",\"location\":", 1);
    let output = lint_metadata(broken.as_bytes());
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("duplicate"), "{}", stderr(&output));
}

/// Iceberg Java indexes partition specs and sort orders by id and refuses a file that lists an id
/// twice; so does fieldgate, at the repeated id's line.
#[test]
fn repeated_spec_and_order_ids_are_refused_where_they_repeat() {
    let text = fs::read_to_string(events()).unwrap();
    for (from, to, says) in [
        (
            "{\"spec-id\":1,",
            "{\"spec-id\":0,",
            "partition spec id 0 is listed twice in `partition-specs`",
        ),
        (
            "\"sort-orders\":[{\"order-id\":1,",
            "\"sort-orders\":[{\"order-id\":1,\"fields\":[]},{\"order-id\":1,",
            "sort order id 1 is listed twice in `sort-orders`",
        ),
    ] {
        assert!(text.contains(from), "{from}");
        let broken = text.replacen(from, to, 1);
        let output = lint_metadata(broken.as_bytes());
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        // The file is one line; the repeated id is the digit before `to`'s final comma.
        let column = broken.rfind(to).unwrap() + to.len() - 1;
        let located = format!("[t.metadata.json:1:{column}]");
        assert!(
            stderr(&output).contains(&located) && stderr(&output).contains(says),
            "{located}: {}",
            stderr(&output)
        );
    }
}

/// Partition field ids, spec ids and sort order ids are Java `int`s: at the largest one, a
/// statement that needs one more is an `invalid-change` finding (never a wrap-around or a
/// panic), and one that reuses an earlier id still passes.
#[test]
fn ids_at_their_largest_refuse_what_would_need_one_more() {
    let text = fs::read_to_string(events()).unwrap();
    let largest = i32::MAX.to_string();
    let max_spec = text
        .replacen(r#"{"spec-id":1,"#, &format!(r#"{{"spec-id":{largest},"#), 1)
        .replacen(
            r#""default-spec-id":1"#,
            &format!(r#""default-spec-id":{largest}"#),
            1,
        );
    let max_order = text
        .replacen(
            r#""sort-orders":[{"order-id":1,"#,
            &format!(r#""sort-orders":[{{"order-id":{largest},"#),
            1,
        )
        .replacen(
            r#""default-sort-order-id":1"#,
            &format!(r#""default-sort-order-id":{largest}"#),
            1,
        );
    let max_partition_field = text.replacen(
        r#""last-partition-id":1002"#,
        &format!(r#""last-partition-id":{largest}"#),
        1,
    );
    for (metadata, sql, says) in [
        (
            &max_partition_field,
            "ALTER TABLE db.events ADD PARTITION FIELD bucket(16, event_type);",
            "`last-partition-id` is 2147483647, the largest id there is",
        ),
        (
            &max_spec,
            "ALTER TABLE db.events ADD PARTITION FIELD bucket(16, event_type);",
            "spec id 2147483647 is the largest id there is",
        ),
        (
            &max_order,
            "ALTER TABLE db.events WRITE ORDERED BY event_type;",
            "order id 2147483647 is the largest id there is",
        ),
    ] {
        assert_ne!(metadata, &text, "{says}");
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("m.sql"), sql).unwrap();
        fs::write(dir.path().join("t.metadata.json"), metadata).unwrap();
        let lint = ["lint", "m.sql", "--metadata", "t.metadata.json"];
        let output = run(dir.path(), &lint);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{says}: {stdout}{}",
            stderr(&output)
        );
        // The message as one line, whatever the report's wrapping.
        let words: Vec<&str> = stdout.split_whitespace().filter(|w| *w != "│").collect();
        assert!(
            stdout.contains("error[invalid-change]") && words.join(" ").contains(says),
            "{says}: {stdout}"
        );
        // Nothing is written for a refused change.
        let apply = ["apply", "m.sql", "--metadata", "t.metadata.json", "--write"];
        let output = run(dir.path(), &apply);
        assert_ne!(output.status.code(), Some(0), "{says}");
        let after = fs::read_to_string(dir.path().join("t.metadata.json")).unwrap();
        assert_eq!(&after, metadata, "{says}");
    }
    // Going back to an earlier spec or order reuses its id: nothing new is needed.
    for (metadata, sql, dialect) in [
        (
            &max_spec,
            "ALTER TABLE db.events SET PROPERTIES partitioning = ARRAY['month(ts)'];",
            "trino",
        ),
        (
            &max_order,
            "ALTER TABLE db.events WRITE ORDERED BY id;",
            "spark",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("m.sql"), sql).unwrap();
        fs::write(dir.path().join("t.metadata.json"), metadata).unwrap();
        let lint = ["lint", "m.sql", "--metadata", "t.metadata.json"];
        let output = run(dir.path(), &[&lint[..], &["--dialect", dialect]].concat());
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{sql}: {stdout}");
        assert!(stdout.contains("passed: 0 errors"), "{sql}: {stdout}");
    }
}

/// A pyiceberg-written v2 file with a key Java requires taken out, or its history made
/// inconsistent, is one no engine loads: exit 2 with Java's reason, never judged with a default.
#[test]
fn what_java_requires_of_v2_metadata_is_required() {
    let text = fs::read_to_string(events()).unwrap();
    let uuid = r#""table-uuid":"84a945a6-a7d0-4034-99a9-2625e75c5788","#;
    let main = r#"{"main":{"snapshot-id":4572329166836704010"#;
    for (from, to, says) in [
        (uuid, "", "UUID is required in format v2"),
        (r#","last-sequence-number":4"#, "", "`last-sequence-number`"),
        (
            r#""last-partition-id":"#,
            r#""last-partition-idx":"#,
            "`last-partition-id` must exist in format v2",
        ),
        (
            r#""default-sort-order-id":"#,
            r#""default-sort-order-idx":"#,
            "missing required key `default-sort-order-id`",
        ),
        (
            r#","last-sequence-number":4"#,
            r#","last-sequence-number":3"#,
            "Invalid snapshot with sequence number 4",
        ),
        (
            main,
            r#"{"main":{"snapshot-id":8242440160066908475"#,
            "does not match main branch",
        ),
    ] {
        assert!(text.contains(from), "{from}");
        let output = lint_metadata(text.replacen(from, to, 1).as_bytes());
        assert_eq!(output.status.code(), Some(2), "{to}: {}", stderr(&output));
        assert!(
            stderr(&output).contains(says) && stderr(&output).contains("t.metadata.json:1:"),
            "{says}: {}",
            stderr(&output)
        );
    }
    assert_eq!(lint_metadata(text.as_bytes()).status.code(), Some(0));
}

#[test]
fn a_migration_of_many_statements_gets_a_verdict() {
    let sql: String = (0..2_000)
        .map(|i| format!("ALTER TABLE db.events ADD COLUMN c{i} int COMMENT 'n';\n"))
        .collect();
    let output = lint_sql(sql.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

/// Each statement is one schema update that writes the whole schema again, so 100,000 adds
/// would write about 5 billion fields: refused, at the statement that crosses the limit, after
/// work bounded by the limit rather than by the migration.
#[test]
fn a_migration_of_100_000_adds_is_a_located_error_at_the_size_limit() {
    let sql: String = (0..100_000)
        .map(|i| format!("ALTER TABLE db.events ADD COLUMN c{i} int COMMENT 'n';\n"))
        .collect();
    let report = refused_as_json(&sql);
    let error = &report["errors"][0];
    let message = error["message"].as_str().unwrap_or_default();
    let line = error["location"]["line"].as_u64().unwrap_or_default();
    assert_eq!(error["location"]["file"], "m.sql", "{report}");
    assert!(
        line > 1
            && message.contains(&format!(
                "by statement {line} of 100000, the new schemas hold"
            )),
        "the error points at the statement that crosses the limit: {report}"
    );
    assert!(
        error["help"]
            .as_str()
            .unwrap_or_default()
            .contains("ADD COLUMNS"),
        "{report}"
    );
}

/// A file's statements are held and judged together, so a file of more than
/// `limits: statements-per-file` (100,000 by default) is refused at the first statement past the
/// limit, and what follows it is not read: a 50 MB file of 700,000 statements costs what
/// 100,000 do.
#[test]
fn a_migration_past_the_statement_limit_is_a_located_error_at_the_first_statement_past_it() {
    let statement = "ALTER TABLE db.events ALTER COLUMN event_type COMMENT 'n';\n";
    let sql = statement.repeat(50_000_000 / statement.len());
    let report = refused_as_json(&sql);
    let errors = report["errors"].as_array().cloned().unwrap_or_default();
    assert_eq!(errors.len(), 1, "{report}");
    assert_eq!(errors[0]["location"]["line"], 100_001, "{report}");
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("more than 100000 statements"),
        "{report}"
    );
    assert!(
        errors[0]["help"]
            .as_str()
            .unwrap_or_default()
            .contains("`limits: statements-per-file`"),
        "{report}"
    );
}

/// 100,000 statements that move between two schemas write two: the run is linear in the
/// statements, with no quadratic search through the schemas they make.
#[test]
fn a_migration_of_100_000_statements_within_the_limit_gets_a_verdict() {
    let sql: String = (0..100_000)
        .map(|i| {
            let doc = if i % 2 == 0 { "even" } else { "odd" };
            format!("ALTER TABLE db.events ALTER COLUMN event_type COMMENT '{doc}';\n")
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("m.sql"), sql).unwrap();
    let metadata = events();
    let output = run(
        dir.path(),
        &[
            "apply",
            "m.sql",
            "--metadata",
            metadata.to_str().unwrap(),
            "-o",
            "out.metadata.json",
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let before: serde_json::Value = serde_json::from_slice(&fs::read(&metadata).unwrap()).unwrap();
    let after: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.path().join("out.metadata.json")).unwrap()).unwrap();
    let schemas = |v: &serde_json::Value| v["schemas"].as_array().map_or(0, Vec::len);
    assert_eq!(schemas(&after), schemas(&before) + 2);
}

/// One column added and dropped again, 20,000 times: every add gets a new id, so each pair writes
/// one new schema, each drop finds the base's schema again among all those written, and every
/// re-add is a `name-reuse` finding quoting the statement before it. Judged and reported in time
/// linear in the statements (about 7 s in a debug build; when each drop looked back over every
/// statement before it, and each finding escaped and scanned the whole file to quote it, 2,000
/// pairs took 33 s), so the run's one-minute cap holds it.
#[test]
fn a_column_added_and_dropped_again_and_again_is_judged_in_linear_time() {
    let pairs = 20_000;
    let sql: String = (0..pairs)
        .map(|_| "ALTER TABLE db.events ADD COLUMN c int COMMENT 'n';\nALTER TABLE db.events DROP COLUMN c;\n")
        .collect();
    let output = lint_sql(sql.as_bytes());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        report.matches("error[name-reuse]").count(),
        pairs - 1,
        "{}",
        stderr(&output)
    );
}

/// Found by the `parquet` fuzz target: a corrupt dictionary page on which the parquet crate
/// divides by zero. The panic is contained: a located error, exit 2, no panic message.
#[test]
fn a_parquet_page_that_panics_the_decoder_is_a_located_error() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let output = run(
        &root,
        &[
            "verify",
            "--metadata",
            "tests/fixtures/verify/people",
            "tests/regressions/parquet-dictionary-divide-by-zero.parquet",
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = stderr(&output);
    assert!(
        stderr.contains("row group 0, column `attrs`: cannot read the data"),
        "{stderr}"
    );
}

/// Found by the `parquet` fuzz target: a footer whose column chunk has a negative offset, on
/// which the parquet crate's `byte_range` asserts.
#[test]
fn a_parquet_footer_with_a_negative_chunk_offset_is_a_located_error() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let output = run(
        &root,
        &[
            "verify",
            "--metadata",
            "tests/fixtures/verify/people",
            "tests/regressions/parquet-negative-chunk-offset.parquet",
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("the footer gives a negative offset"),
        "{}",
        stderr(&output)
    );
}
