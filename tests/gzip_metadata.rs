//! Gzip-compressed table metadata, as Iceberg Java names, finds and writes it: the fixtures are
//! pyiceberg's own gzip writer's output (`tests/interop/make_gzip_fixtures.py`), read by `lint`
//! and `check`, and `apply --write` commits the next version with the table's codec. pyiceberg
//! (the interop venv) loads what `apply` wrote.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{
    commit_all, copy_dir, current_field_names as names, fieldgate_in, main_and_branch, root, text,
};

const MIGRATION: &str = "ALTER TABLE db.orders DROP COLUMN legacy_discount_code;\nALTER TABLE db.orders ADD COLUMN note string;\n";

fn table(fixture: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &root().join("tests/fixtures/gzip").join(fixture),
        &dir.path().join("orders"),
    );
    fs::write(dir.path().join("m.sql"), MIGRATION).unwrap();
    let metadata = dir.path().join("orders/metadata");
    (dir, metadata)
}

fn gunzip(path: &Path) -> serde_json::Value {
    let mut text = String::new();
    flate2::read::GzDecoder::new(fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn apply_commits_the_next_gzip_version_past_the_hint() {
    let (dir, metadata) = table("orders_gz");
    let out = fieldgate_in(
        dir.path(),
        &["apply", "--write", "m.sql", "--metadata", "orders"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The hint said 1; v2.gz.metadata.json rolled it forward, and the codec property is gzip.
    assert!(
        text(&out.stdout).contains("schema 0 -> 2"),
        "{}",
        text(&out.stdout)
    );
    let written = gunzip(&metadata.join("v3.gz.metadata.json"));
    assert!(!metadata.join("v3.metadata.json").exists());
    assert_eq!(
        fs::read_to_string(metadata.join("version-hint.text")).unwrap(),
        "3"
    );
    assert_eq!(
        names(&written),
        [
            "order_id",
            "order_ts",
            "region",
            "customer_id",
            "total_units",
            "note"
        ]
    );
    let log = written["metadata-log"].as_array().unwrap();
    let last = log.last().unwrap()["metadata-file"].as_str().unwrap();
    assert!(last.ends_with("/metadata/v2.gz.metadata.json"), "{last}");
    loads_in_pyiceberg(&metadata.join("v3.gz.metadata.json"));
}

#[test]
fn the_older_gzip_name_is_listed_and_its_next_version_is_plain() {
    let (dir, metadata) = table("orders_old_gz");
    let out = fieldgate_in(
        dir.path(),
        &["apply", "--write", "m.sql", "--metadata", "orders"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let written: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(metadata.join("v2.metadata.json")).unwrap())
            .unwrap();
    assert!(names(&written).contains(&"note".to_string()));
    // -o names its own codec, as TableMetadataParser.write decides by the name.
    let out = fieldgate_in(
        dir.path(),
        &[
            "apply",
            "m.sql",
            "--metadata",
            "orders/metadata/v1.metadata.json.gz",
            "-o",
            "o.gz.metadata.json",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(names(&gunzip(&dir.path().join("o.gz.metadata.json"))).contains(&"note".to_string()));
}

#[test]
fn a_bomb_or_corrupt_gzip_is_a_clear_error() {
    let (dir, metadata) = table("orders_gz");
    // Gzip members of 1 MiB of zeros each, concatenated: 300 KB that inflate to 300 MiB.
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut encoder, &vec![0u8; 1 << 20]).unwrap();
    let member = encoder.finish().unwrap();
    fs::write(metadata.join("v3.gz.metadata.json"), member.repeat(300)).unwrap();
    let out = fieldgate_in(dir.path(), &["lint", "m.sql", "--metadata", "orders"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("v3.gz.metadata.json") && stderr.contains("more than 256 MiB"),
        "{stderr}"
    );
    fs::write(
        metadata.join("v3.gz.metadata.json"),
        &member[..member.len() / 2],
    )
    .unwrap();
    let out = fieldgate_in(dir.path(), &["lint", "m.sql", "--metadata", "orders"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("corrupt or cut short"), "{stderr}");
}

#[test]
fn check_reads_gzip_metadata_from_the_base_commit() {
    let (dir, _) = table("orders_gz");
    let repo = dir.path();
    fs::remove_file(repo.join("m.sql")).unwrap();
    fs::write(
        repo.join("fieldgate.yaml"),
        "tables:\n  db.orders:\n    metadata: orders\nproposals:\n  - migrations/*.sql\n",
    )
    .unwrap();
    main_and_branch(repo, "base", "pr");
    fs::create_dir(repo.join("migrations")).unwrap();
    fs::write(
        repo.join("migrations/1.sql"),
        "ALTER TABLE db.orders ALTER COLUMN total_units TYPE bigint;\nALTER TABLE db.orders DROP COLUMN legacy_discount_code;\n",
    )
    .unwrap();
    commit_all(repo, "pr");
    let out = fieldgate_in(repo, &["check", "--format", "json"], &[]);
    let report = text(&out.stdout);
    // The drop names field id 6 of v2.gz.metadata.json (the hint says 1, which has the same id).
    assert!(
        report.contains("column-drop") && report.contains("legacy_discount_code"),
        "{report}\n{}",
        text(&out.stderr)
    );
}

/// pyiceberg's `StaticTable` loads `file` (a `.gz.metadata.json`, which pyiceberg reads
/// compressed) and finds the new column; skipped, loudly, without the interop venv outside CI.
fn loads_in_pyiceberg(file: &Path) {
    let python = root().join("target/interop-venv/bin/python");
    if !python.exists() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("CI needs the interop venv at {}", python.display());
        }
        eprintln!(
            "SKIPPED: pyiceberg's read of {}: no venv at {}",
            file.display(),
            python.display()
        );
        return;
    }
    let script = "import sys\nfrom pyiceberg.table import StaticTable\nt = StaticTable.from_metadata(sys.argv[1])\nprint(','.join(f.name for f in t.schema().fields))\n";
    let out = Command::new(python)
        .args(["-c", script])
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).trim(),
        "order_id,order_ts,region,customer_id,total_units,note"
    );
}
