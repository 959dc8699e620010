//! A migration mixing every statement fieldgate reads beside column changes (partition and sort
//! evolution, table properties, branches and tags, maintenance procedures, `REFRESH TABLE`,
//! `USE`, `SET`, `RESET`), on the example lake's `fact_orders` as pyiceberg wrote it: read, judged and applied
//! in one run, every statement listed in the report, and the metadata `apply` writes holding
//! what each did.

use std::fs;
use std::path::Path;

use serde_json::Value;

mod common;
use common::{fieldgate_in, root, text, write};

const TABLE: &str = "examples/lake/warehouse/lake_prod/fact_orders";

const SPARK: &str = "USE lake_prod;
SET spark.sql.ansi.enabled = true;
ALTER TABLE fact_orders ADD COLUMNS (channel string COMMENT 'sales channel');
ALTER TABLE fact_orders ALTER COLUMN total_units TYPE bigint;
ALTER TABLE fact_orders ADD PARTITION FIELD bucket(16, customer_id);
ALTER TABLE fact_orders ADD PARTITION FIELD truncate(4, channel) AS channel_prefix;
ALTER TABLE fact_orders ADD PARTITION FIELD days(order_ts);
ALTER TABLE fact_orders DROP PARTITION FIELD channel_prefix;
ALTER TABLE fact_orders WRITE ORDERED BY order_ts DESC NULLS LAST, order_id;
ALTER TABLE fact_orders WRITE LOCALLY ORDERED BY region;
ALTER TABLE fact_orders WRITE DISTRIBUTED BY PARTITION LOCALLY ORDERED BY customer_id;
ALTER TABLE fact_orders SET TBLPROPERTIES ('format-version' = '3', 'write.target-file-size-bytes' = '268435456');
ALTER TABLE fact_orders UNSET TBLPROPERTIES IF EXISTS ('owner', 'no.such.key');
ALTER TABLE fact_orders CREATE BRANCH audit RETAIN 7 DAYS;
ALTER TABLE fact_orders CREATE OR REPLACE TAG release_1;
ALTER TABLE fact_orders REPLACE BRANCH audit;
ALTER TABLE fact_orders DROP TAG IF EXISTS release_1;
ALTER TABLE fact_orders DROP BRANCH audit;
CALL system.expire_snapshots(table => 'lake_prod.fact_orders', retain_last => 5);
CALL system.rewrite_manifests('lake_prod.fact_orders');
CALL system.remove_orphan_files(table => 'lake_prod.fact_orders');
REFRESH TABLE fact_orders;
RESET;
";

/// Trino's form of partition evolution, which a Spark file cannot hold.
const TRINO: &str = "ALTER TABLE lake_prod.fact_orders SET PROPERTIES partitioning = ARRAY['region', 'day(order_ts)', 'bucket(customer_id, 8)'];
";

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    fieldgate_in(dir, args, &[])
}

fn apply(dir: &Path, file: &str, dialect: &str, format: &str) -> (std::process::Output, Value) {
    let table = root().join(TABLE);
    let out = dir.join(format!("{file}.{format}.metadata.json"));
    let output = run(
        dir,
        &[
            "apply",
            file,
            "--metadata",
            table.to_str().unwrap(),
            "--dialect",
            dialect,
            "--no-verify",
            "--format",
            format,
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    let written = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
    (output, written)
}

#[test]
fn every_statement_is_read_judged_applied_and_listed() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "every.sql", SPARK);
    let (output, metadata) = apply(dir.path(), "every.sql", "spark", "human");
    insta::assert_snapshot!("every_statement_human", text(&output.stdout));

    // The columns, the spec (the truncate field dropped again), the last sort order, the
    // properties and the format version, as the statements leave them.
    let current = &metadata["current-schema-id"];
    let schema = metadata["schemas"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| &s["schema-id"] == current)
        .unwrap();
    let channel = schema["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "channel")
        .unwrap();
    assert_eq!(channel["id"], 7);
    assert_eq!(metadata["format-version"], 3);
    let spec = metadata["partition-specs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["spec-id"] == metadata["default-spec-id"])
        .unwrap();
    let names: Vec<&str> = spec["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["region", "customer_id_bucket_16", "order_ts_day"]);
    assert_eq!(metadata["last-partition-id"], 1003);
    let properties = &metadata["properties"];
    assert_eq!(properties["write.distribution-mode"], "hash");
    assert_eq!(properties["write.target-file-size-bytes"], "268435456");
    assert!(properties.get("owner").is_none(), "{properties}");
    let order = metadata["sort-orders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["order-id"] == metadata["default-sort-order-id"])
        .unwrap();
    assert_eq!(order["fields"][0]["source-id"], 4, "{order}");

    // The machine and the summary formats list every statement too.
    let (output, _) = apply(dir.path(), "every.sql", "spark", "json");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let changes: Vec<String> = report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c["kind"].as_str().unwrap(),
                c["path"].as_str().unwrap()
            )
        })
        .collect();
    insta::assert_debug_snapshot!("every_statement_json_changes", changes);
    let (output, _) = apply(dir.path(), "every.sql", "spark", "markdown");
    insta::assert_snapshot!("every_statement_markdown", text(&output.stdout));
}

#[test]
fn trinos_partitioning_property_is_read_judged_and_applied() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "trino.sql", TRINO);
    let (output, metadata) = apply(dir.path(), "trino.sql", "trino", "human");
    let stdout = text(&output.stdout);
    assert!(stdout.contains("set-partitioning"), "{stdout}");
    let spec = metadata["partition-specs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["spec-id"] == metadata["default-spec-id"])
        .unwrap();
    let fields: Vec<(i64, &str)> = spec["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["field-id"].as_i64().unwrap(),
                f["transform"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        fields,
        [(1000, "identity"), (1001, "day"), (1002, "bucket[8]")]
    );
}

/// `(table, kind path)` of every change of a JSON report.
fn changes(output: &std::process::Output) -> Vec<(String, String)> {
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}{}", text(&output.stdout), text(&output.stderr)));
    report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let kind = c["kind"].as_str().unwrap();
            let path = c["path"].as_str().unwrap();
            (
                c["table"].as_str().unwrap().into(),
                format!("{kind} {path}"),
            )
        })
        .collect()
}

#[test]
fn a_file_of_session_statements_only_passes_and_lists_them_for_the_table_given() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "session.sql",
        "USE lake_prod;\nSET spark.sql.ansi.enabled = true;\nCALL system.expire_snapshots();\n",
    );
    let table = root().join(TABLE);
    let table = table.to_str().unwrap();
    let lint = |extra: &[&str]| {
        let mut args = vec![
            "lint",
            "session.sql",
            "--metadata",
            table,
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        let output = run(dir.path(), &args);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        output
    };
    let listed = |table: &str| {
        [
            "no-schema-effect USE lake_prod",
            "no-schema-effect SET spark.sql.ansi.enabled = true",
            "no-schema-effect CALL system.expire_snapshots",
        ]
        .map(|change| (table.to_string(), change.to_string()))
    };
    // A metadata file names no table: its location's last segment does.
    assert_eq!(changes(&lint(&[])), listed("fact_orders"));
    let named = lint(&["--table", "lake_prod.fact_orders"]);
    assert_eq!(changes(&named), listed("lake_prod.fact_orders"));

    // The terminal report lists them under the table too.
    let output = run(dir.path(), &["lint", "session.sql", "--metadata", table]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("fact_orders: schema 0 -> 0, last-column-id 6 -> 6\n")
            && stdout.contains("  no-schema-effect USE lake_prod\n"),
        "{stdout}"
    );
}

#[test]
fn session_statements_beside_a_create_table_are_listed_with_the_new_table() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "create.sql",
        "SET spark.sql.ansi.enabled = true;\nCREATE TABLE db.fresh (id bigint, name string);\nUSE db;\n",
    );
    let output = run(dir.path(), &["lint", "create.sql", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let listed: Vec<(String, String)> = changes(&output)
        .into_iter()
        .filter(|(_, change)| change.starts_with("no-schema-effect"))
        .collect();
    assert_eq!(
        listed,
        [
            (
                "db.fresh",
                "no-schema-effect SET spark.sql.ansi.enabled = true"
            ),
            ("db.fresh", "no-schema-effect USE db"),
        ]
        .map(|(t, c)| (t.to_string(), c.to_string()))
    );
}
