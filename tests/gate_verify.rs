//! Reader verification inside the gate, through the real binary: `apply` and `check` read the
//! sample data files (fieldgate.yaml's `sample:`, or `apply --verify` / `--sample`) under the
//! schema the change produces, once the rules pass. The data files are pyarrow's and pyiceberg's:
//! `examples/lake` (`tests/interop/make_example_lake.py`) and `tests/fixtures/verify`
//! (`tests/interop/make_fixtures.py`).

use std::fs;
use std::path::Path;
use std::process::Output;

use serde_json::Value;

mod common;
use common::{
    commit_all, copy_dir, fieldgate_in, git, main_and_branch, root, sampled_people, text,
};

fn fieldgate(args: &[&str], dir: &Path) -> Output {
    fieldgate_in(dir, args, &[])
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not one JSON document ({e}): {}\nstderr: {}",
            text(&out.stdout),
            text(&out.stderr)
        )
    })
}

/// A copy of `examples/lake`, whose fieldgate.yaml names each table's data files as its sample.
fn lake() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("examples/lake"), dir.path());
    dir
}

const DIM_USERS: &str = "warehouse/lake_prod/dim_users";
const FACT_ORDERS: &str = "warehouse/lake_prod/fact_orders";

/// The lake's configuration, with rules a team lowered to warnings: the data still decides.
const LOWERED: &str = "tables:
  lake_prod.dim_users:
    metadata: warehouse/lake_prod/dim_users
    sample: [warehouse/lake_prod/dim_users/data/**/*.parquet]
  lake_prod.fact_orders:
    metadata: warehouse/lake_prod/fact_orders
    sample:
      - warehouse/lake_prod/fact_orders/data/**/*.parquet
proposals:
  - migrations/**/*.sql
rules:
  type-narrowing: warning
  required-column-add: warning
";

fn diagnostics(report: &Value) -> Vec<(String, Option<String>, String)> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["field"].as_str().map(str::to_string),
                d["location"]["file"].as_str().unwrap_or("").to_string(),
            )
        })
        .filter(|(rule, _, _)| rule == "reader-verification")
        .collect()
}

fn statuses(file: &Value) -> Vec<(String, String)> {
    file["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn versions(lake: &Path, table: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(lake.join(table).join("metadata"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.push(fs::read_to_string(lake.join(table).join("metadata/version-hint.text")).unwrap());
    names
}

#[test]
fn apply_reads_the_configured_sample_under_the_new_schema_then_writes() {
    let lake = lake();
    let out = fieldgate(
        &[
            "apply",
            "migrations/dim_users/0001_add_vip_level.sql",
            "migrations/dim_users/0002_rename_phone.sql",
            "--metadata",
            DIM_USERS,
            "--write",
        ],
        lake.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    insta::assert_snapshot!("apply_pass_human", text(&out.stdout));
    assert!(
        lake.path()
            .join(DIM_USERS)
            .join("metadata/v5.metadata.json")
            .is_file()
    );

    // The same run as JSON: one document, verify's file reports under the table.
    let lake = self::lake();
    let out = fieldgate(
        &[
            "apply",
            "migrations/dim_users/0001_add_vip_level.sql",
            "migrations/dim_users/0002_rename_phone.sql",
            "--metadata",
            DIM_USERS,
            "-o",
            "out.metadata.json",
            "--format",
            "json",
        ],
        lake.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json(&out);
    let verification = &report["tables"][0]["verification"];
    assert_eq!(verification["passed"], true);
    assert_eq!(verification["schema_id"], 3);
    assert_eq!(verification["rows"], 3);
    let files = verification["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    for file in files {
        let statuses = statuses(file);
        assert!(statuses.contains(&("mobile_phone".into(), "resolved".into())));
        assert!(statuses.contains(&("vip_level".into(), "missing-null".into())));
    }
    // The older file (two rows) still holds the dropped `status`: never read.
    let older = files.iter().find(|f| f["rows"] == 2).unwrap();
    assert_eq!(older["pruned"][0]["file_column"], "status");
    assert!(lake.path().join("out.metadata.json").is_file());
}

#[test]
fn a_failing_verification_fails_apply_in_every_format_and_writes_nothing() {
    let lake = lake();
    fs::write(lake.path().join("fieldgate.yaml"), LOWERED).unwrap();
    let before = versions(lake.path(), FACT_ORDERS);
    let apply = |extra: &[&str]| {
        let mut args = vec![
            "apply",
            "bad/fact_orders_narrow_customer_id.sql",
            "--metadata",
            FACT_ORDERS,
            "--write",
        ];
        args.extend_from_slice(extra);
        fieldgate(&args, lake.path())
    };
    for format in [
        "human", "json", "github", "sarif", "markdown", "gitlab", "junit",
    ] {
        let out = apply(&["--format", format]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{format}: {}",
            text(&out.stderr)
        );
        let stdout = text(&out.stdout);
        assert!(stdout.contains("reader-verification"), "{format}: {stdout}");
        let shown = match format {
            "sarif" => {
                let mut document: Value = serde_json::from_str(&stdout).unwrap();
                document["runs"][0]["tool"]["driver"]["rules"] = "[the catalogue]".into();
                serde_json::to_string_pretty(&document).unwrap()
            }
            _ => stdout,
        };
        insta::assert_snapshot!(format!("apply_incompatible_{format}"), shown);
        assert_eq!(versions(lake.path(), FACT_ORDERS), before, "{format} wrote");
    }

    let report = json(&apply(&["--format", "json"]));
    assert_eq!(report["passed"], false);
    assert_eq!(
        diagnostics(&report),
        vec![
            (
                "reader-verification".to_string(),
                Some("customer_id".to_string()),
                "fieldgate.yaml".to_string()
            );
            2
        ]
    );
    let files = report["tables"][0]["verification"]["files"]
        .as_array()
        .unwrap();
    for file in files {
        let customer = &file["columns"][3];
        assert_eq!(customer["path"], "customer_id");
        assert_eq!(customer["status"], "incompatible");
        assert_eq!(customer["file_type"], "long");
        assert_eq!(customer["row_group"], 0);
    }

    // --force writes anyway and still fails; --no-verify reads nothing and the lowered rule
    // lets the change through.
    let out = apply(&["--force"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        lake.path()
            .join(FACT_ORDERS)
            .join("metadata/v3.metadata.json")
            .is_file()
    );
    let lake = self::lake();
    fs::write(lake.path().join("fieldgate.yaml"), LOWERED).unwrap();
    let out = fieldgate(
        &[
            "apply",
            "bad/fact_orders_narrow_customer_id.sql",
            "--metadata",
            FACT_ORDERS,
            "--write",
            "--no-verify",
        ],
        lake.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("verified"));

    // The rule's severity is configured like any other: a warning reports and writes.
    let lake = self::lake();
    fs::write(
        lake.path().join("fieldgate.yaml"),
        format!("{LOWERED}  reader-verification: warning\n"),
    )
    .unwrap();
    let out = fieldgate(
        &[
            "apply",
            "bad/fact_orders_narrow_customer_id.sql",
            "--metadata",
            FACT_ORDERS,
            "-o",
            "out.json",
        ],
        lake.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("warning[reader-verification]"));
    assert!(lake.path().join("out.json").is_file());
}

/// The README's example: the lenient configuration of the example lake, as a user runs it.
#[test]
fn the_readme_example_is_what_apply_prints() {
    let lake = lake();
    let out = fieldgate(
        &[
            "apply",
            "bad/fact_orders_narrow_customer_id.sql",
            "--metadata",
            FACT_ORDERS,
            "--config",
            "fieldgate.lenient.yaml",
            "-o",
            "out/fact_orders.metadata.json",
        ],
        lake.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let stdout = text(&out.stdout);
    let tail: Vec<&str> = stdout.lines().rev().take(5).collect();
    for line in tail {
        assert!(readme.contains(line), "not in the README: {line}");
    }
    let first = stdout.find("error[reader-verification]").unwrap();
    let finding: Vec<&str> = stdout[first..].lines().take(13).collect();
    assert!(
        readme.contains(&finding.join("\n")),
        "{}",
        finding.join("\n")
    );
    assert!(!lake.path().join("out").exists());
}

#[test]
fn a_required_column_missing_from_old_files_fails_verification() {
    let lake = lake();
    fs::write(lake.path().join("fieldgate.yaml"), LOWERED).unwrap();
    fs::write(
        lake.path().join("tier.sql"),
        "ALTER TABLE lake_prod.dim_users ADD COLUMN tier int NOT NULL;\n",
    )
    .unwrap();
    let out = fieldgate(
        &[
            "apply",
            "tier.sql",
            "--metadata",
            DIM_USERS,
            "-o",
            "out.json",
            "--format",
            "json",
        ],
        lake.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report = json(&out);
    assert_eq!(diagnostics(&report).len(), 2);
    for file in report["tables"][0]["verification"]["files"]
        .as_array()
        .unwrap()
    {
        assert!(statuses(file).contains(&("tier".into(), "missing-required".into())));
    }
    assert!(!lake.path().join("out.json").exists());

    // Rules that fail first: the data is not read at all.
    fs::remove_file(lake.path().join("fieldgate.yaml")).unwrap();
    let out = fieldgate(
        &[
            "apply",
            "tier.sql",
            "--metadata",
            DIM_USERS,
            "-o",
            "out.json",
            "--format",
            "json",
            "--verify",
            "warehouse/lake_prod/dim_users/data/id_bucket=4/00000-0-dbd6e37f-ec11-41bb-a484-68816a1d5ddb.parquet",
        ],
        lake.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert!(
        report["tables"][0].get("verification").is_none(),
        "{report:#}"
    );
}

#[test]
fn flags_verify_without_a_configuration() {
    let lake = lake();
    fs::remove_file(lake.path().join("fieldgate.yaml")).unwrap();
    let out = fieldgate(
        &[
            "apply",
            "migrations/fact_orders/0001_widen_total_units.sql",
            "--metadata",
            FACT_ORDERS,
            "-o",
            "out.json",
            "--format",
            "json",
            "--verify",
            "warehouse/lake_prod/fact_orders/data/region=eu/00000-0-a7576568-7155-4254-8b67-ac8bdb352db3.parquet",
            "warehouse/lake_prod/fact_orders/data/region=apac/00000-1-a7576568-7155-4254-8b67-ac8bdb352db3.parquet",
        ],
        lake.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json(&out);
    let files = report["tables"][0]["verification"]["files"]
        .as_array()
        .unwrap();
    assert_eq!(files.len(), 2);
    assert!(statuses(&files[0]).contains(&("total_units".into(), "promoted".into())));

    // A file written without field ids (pyarrow, imported into pyiceberg's `people`) in a table
    // without a name mapping: no field-id reader can match its columns.
    let imported = root().join("tests/fixtures/verify/people/data/s0-imported.parquet");
    let out = fieldgate(
        &[
            "apply",
            "migrations/fact_orders/0001_widen_total_units.sql",
            "--metadata",
            FACT_ORDERS,
            "-o",
            "out-ids.json",
            "--format",
            "json",
            "--verify",
            imported.to_str().unwrap(),
        ],
        lake.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report = json(&out);
    let finding = &report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "reader-verification")
        .unwrap();
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("the file has no field ids and the table has no name mapping"),
        "{finding:#}"
    );
    assert_eq!(finding["field"], Value::Null);
    assert!(finding.get("location").is_none());
    assert_eq!(
        report["tables"][0]["verification"]["files"][0]["ids"],
        "none"
    );
    assert!(!lake.path().join("out-ids.json").exists());

    // --sample N: the table's own files through its Avro manifests (pyiceberg's table).
    let fixtures = root().join("tests/fixtures/verify");
    let work = tempfile::tempdir().unwrap();
    let sql = work.path().join("note.sql");
    fs::write(&sql, "ALTER TABLE people ADD COLUMN note string;\n").unwrap();
    let out = fieldgate(
        &[
            "apply",
            sql.to_str().unwrap(),
            "--metadata",
            "people",
            "-o",
            work.path().join("out.json").to_str().unwrap(),
            "--format",
            "json",
            "--sample",
            "3",
        ],
        &fixtures,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json(&out);
    let verification = &report["tables"][0]["verification"];
    assert_eq!(verification["files"].as_array().unwrap().len(), 3);
    assert_eq!(verification["schema_id"], 3);
    for file in verification["files"].as_array().unwrap() {
        assert!(statuses(file).contains(&("note".into(), "missing-null".into())));
        assert!(
            file["read_from"]
                .as_str()
                .unwrap()
                .starts_with("people/data/")
        );
    }

    // A new table has no manifests to sample.
    let create = work.path().join("create.sql");
    fs::write(&create, "CREATE TABLE db.t (id bigint);\n").unwrap();
    let out = fieldgate(
        &[
            "apply",
            create.to_str().unwrap(),
            "-o",
            work.path().join("t.json").to_str().unwrap(),
            "--sample",
            "2",
        ],
        work.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no Iceberg metadata yet"),
        "{}",
        text(&out.stderr)
    );
    assert!(!work.path().join("t.json").exists());
}

#[test]
fn a_corrupt_sample_is_exit_2_with_a_report_saying_why() {
    let lake = lake();
    let file = "warehouse/lake_prod/dim_users/data/id_bucket=4/00000-0-dbd6e37f-ec11-41bb-a484-68816a1d5ddb.parquet";
    let bytes = fs::read(lake.path().join(file)).unwrap();
    fs::write(lake.path().join(file), &bytes[..bytes.len() / 2]).unwrap();
    let before = versions(lake.path(), DIM_USERS);
    let out = fieldgate(
        &[
            "apply",
            "migrations/dim_users/0001_add_vip_level.sql",
            "--metadata",
            DIM_USERS,
            "--write",
            "--format",
            "json",
        ],
        lake.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("`{file}`: not a readable Parquet file")),
        "{stderr}"
    );
    let report = json(&out);
    assert_eq!(report["passed"], false);
    assert!(
        report["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("not a readable Parquet file"),
        "{report:#}"
    );
    assert_eq!(versions(lake.path(), DIM_USERS), before);
}

#[test]
fn sample_configuration_errors_are_located() {
    let lake = lake();
    let apply = |config: &str| {
        fs::write(lake.path().join("fieldgate.yaml"), config).unwrap();
        fieldgate(
            &[
                "apply",
                "migrations/dim_users/0001_add_vip_level.sql",
                "--metadata",
                DIM_USERS,
                "-o",
                "out.json",
            ],
            lake.path(),
        )
    };
    let table = "tables:\n  lake_prod.dim_users:\n    metadata: warehouse/lake_prod/dim_users\n";
    for (sample, expected) in [
        (
            "    sample: [../../outside.parquet]\n",
            "fieldgate.yaml:4:14]",
        ),
        (
            "    sample: [data/users/*.parquet]\n",
            "`data/users/*.parquet` names no file in the working tree",
        ),
        ("    sample: 0\n", "found `0`"),
        ("    sample: {n: 2}\n", "found mapping"),
    ] {
        let out = apply(&format!("{table}{sample}"));
        assert_eq!(out.status.code(), Some(2), "{sample}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(expected), "{sample}: {stderr}");
        assert!(stderr.contains("invalid configuration"), "{stderr}");
        assert!(!lake.path().join("out.json").exists());
    }
}

/// The lake in a git repository: the tables and configuration committed on `main`, the data
/// files in the working tree only (ignored, as data usually is), and a `pr` branch checked out.
fn repository(config: &str) -> tempfile::TempDir {
    let lake = lake();
    fs::write(lake.path().join("fieldgate.yaml"), config).unwrap();
    fs::write(lake.path().join(".gitignore"), "data/\n").unwrap();
    fs::remove_dir_all(lake.path().join("migrations")).unwrap();
    main_and_branch(lake.path(), "tables", "pr");
    lake
}

#[test]
fn check_verifies_the_sample_of_each_touched_table() {
    let lake =
        repository(&fs::read_to_string(root().join("examples/lake/fieldgate.yaml")).unwrap());
    copy_dir(
        &root().join("examples/lake/migrations/dim_users"),
        &lake.path().join("migrations/dim_users"),
    );
    let out = fieldgate(
        &[
            "apply",
            "--write",
            "--metadata",
            DIM_USERS,
            "migrations/dim_users/0001_add_vip_level.sql",
            "migrations/dim_users/0002_rename_phone.sql",
        ],
        lake.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    commit_all(lake.path(), "vip level, mobile phone");

    let summary = lake.path().join("summary.md");
    let out = fieldgate(
        &[
            "check",
            "--format",
            "json",
            "--summary",
            summary.to_str().unwrap(),
        ],
        lake.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json(&out);
    let tables = report["tables"].as_array().unwrap();
    assert_eq!(
        tables.len(),
        1,
        "only the touched table is loaded and verified"
    );
    let verification = &tables[0]["verification"];
    assert_eq!(verification["passed"], true);
    assert_eq!(verification["files"].as_array().unwrap().len(), 2);
    assert!(
        verification["files"][0]["path"]
            .as_str()
            .unwrap()
            .starts_with("warehouse/lake_prod/dim_users/data/")
    );
    insta::assert_snapshot!("check_pass_summary", fs::read_to_string(&summary).unwrap());
}

#[test]
fn check_fails_on_a_change_old_files_cannot_be_read_under() {
    let lake = repository(LOWERED);
    fs::create_dir_all(lake.path().join("migrations")).unwrap();
    fs::copy(
        lake.path().join("bad/fact_orders_narrow_customer_id.sql"),
        lake.path().join("migrations/0001_narrow.sql"),
    )
    .unwrap();
    // The developer skipped the verification; the gate does not.
    let out = fieldgate(
        &[
            "apply",
            "--write",
            "--no-verify",
            "--metadata",
            FACT_ORDERS,
            "migrations/0001_narrow.sql",
        ],
        lake.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    commit_all(lake.path(), "narrow customer_id");

    let reports = tempfile::tempdir().unwrap();
    let summary = reports.path().join("summary.md");
    let sarif = reports.path().join("fieldgate.sarif");
    let out = fieldgate(
        &[
            "check",
            "--format",
            "github",
            "--summary",
            summary.to_str().unwrap(),
            "--sarif",
            sarif.to_str().unwrap(),
        ],
        lake.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let annotations = text(&out.stdout);
    assert!(
        annotations.contains("::error file=fieldgate.yaml,line=8,endLine=8,col=9,endColumn=58,title=reader-verification::"),
        "{annotations}"
    );
    insta::assert_snapshot!("check_fail_summary", fs::read_to_string(&summary).unwrap());
    let document: Value = serde_json::from_slice(&fs::read(&sarif).unwrap()).unwrap();
    let results = document["runs"][0]["results"].as_array().unwrap();
    let verification: Vec<&Value> = results
        .iter()
        .filter(|r| r["ruleId"] == "reader-verification")
        .collect();
    assert_eq!(verification.len(), 2, "{document:#}");
    assert_eq!(
        verification[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "fieldgate.yaml"
    );

    // A sample file that is gone from the working tree: the gate cannot run (exit 2).
    fs::remove_dir_all(lake.path().join("warehouse/lake_prod/fact_orders/data")).unwrap();
    let out = fieldgate(&["check"], lake.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("`warehouse/lake_prod/fact_orders/data/**/*.parquet` names no file in"),
        "{stderr}"
    );
    assert!(stderr.contains("fieldgate.yaml:8:9]"), "{stderr}");
}

#[test]
fn check_samples_a_table_through_its_manifests() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    sampled_people(repo, "");
    main_and_branch(repo, "people", "pr");
    fs::create_dir_all(repo.join("migrations")).unwrap();
    fs::write(
        repo.join("migrations/0001_note.sql"),
        "ALTER TABLE db.people ADD COLUMN note string;\n",
    )
    .unwrap();
    let out = fieldgate(
        &[
            "apply",
            "--write",
            "--metadata",
            "warehouse/db/people",
            "migrations/0001_note.sql",
        ],
        repo,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("verified 2 data files as schema 3"));
    commit_all(repo, "note");

    // A table the change creates has no data files to sample yet: nothing to verify.
    let config = fs::read_to_string(repo.join("fieldgate.yaml")).unwrap();
    fs::write(
        repo.join("fieldgate.yaml"),
        format!("{config}  db.fresh:\n    metadata: warehouse/db/fresh\n    sample: 2\n")
            .replace("proposals:\n  - migrations/*.sql\n", "")
            + "proposals:\n  - migrations/*.sql\n",
    )
    .unwrap();
    fs::write(
        repo.join("migrations/0002_fresh.sql"),
        "CREATE TABLE db.fresh (id bigint);\n",
    )
    .unwrap();
    let out = fieldgate(
        &[
            "apply",
            "-o",
            "warehouse/db/fresh/metadata/v1.metadata.json",
            "migrations/0002_fresh.sql",
        ],
        repo,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("verified"));

    // From a subdirectory, too: the manifests are found under the repository root.
    fs::create_dir_all(repo.join("migrations/sub")).unwrap();
    for cwd in [repo.to_path_buf(), repo.join("migrations/sub")] {
        let out = fieldgate(&["check", "--format", "json"], &cwd);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let report = json(&out);
        let tables = report["tables"].as_array().unwrap();
        assert_eq!(tables.len(), 2, "{report:#}");
        assert!(tables[1].get("verification").is_none(), "{report:#}");
        let verification = &tables[0]["verification"];
        assert_eq!(verification["passed"], true);
        let files = verification["files"].as_array().unwrap();
        assert_eq!(files.len(), 2);
        for file in files {
            // Named as the manifest names it, read from the copy in the repository.
            assert!(
                file["path"]
                    .as_str()
                    .unwrap()
                    .starts_with("file:///tmp/fieldgate-verify-warehouse/db/people/data/")
            );
            assert!(statuses(file).contains(&("note".into(), "missing-null".into())));
        }
    }
}

#[test]
fn a_sample_from_manifests_reads_partition_values_and_applies_position_deletes() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("add.sql"),
        "ALTER TABLE db.regions ADD COLUMN extra int;\n",
    )
    .unwrap();
    let regions = root().join("tests/fixtures/verify/regions");
    let out = fieldgate(
        &[
            "apply",
            "add.sql",
            "--metadata",
            regions.to_str().unwrap(),
            "-o",
            "out.json",
            "--sample",
            "3",
            "--format",
            "json",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json(&out);
    let files = report["tables"][0]["verification"]["files"]
        .as_array()
        .unwrap();
    let named = |end: &str| {
        files
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(end))
            .unwrap_or_else(|| panic!("no {end} in {files:?}"))
    };
    let us = named("us-imported.parquet");
    assert!(statuses(us).contains(&("region".into(), "partition-value".into())));
    let eu = named("eu-pyiceberg.parquet");
    assert_eq!(eu["rows"], 2, "one of three rows is deleted: {eu}");
    assert_eq!(eu["deletes"]["rows_deleted"], 1);
}

/// Files named by path are looked up in the table's manifests, as `fieldgate verify FILES` does:
/// a file missing its identity-partition column reads the partition value, and a file with a
/// position delete file has its deleted row left out.
#[test]
fn listed_sample_files_are_looked_up_in_the_manifests() {
    let regions = root().join("tests/fixtures/verify/regions");
    let files = |out: &Output| -> Vec<Value> {
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let report = json(out);
        let files = report["tables"][0]["verification"]["files"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(files.len(), 2, "{report:#}");
        files
    };
    let as_in_the_manifests = |files: &[Value]| {
        let us = &files[0];
        assert!(
            us["path"]
                .as_str()
                .unwrap()
                .ends_with("data/us-imported.parquet")
        );
        assert!(
            statuses(us).contains(&("region".into(), "partition-value".into())),
            "{us:#}"
        );
        let eu = &files[1];
        assert_eq!(eu["rows"], 2, "one of three rows is deleted: {eu:#}");
        assert_eq!(eu["deletes"]["rows_deleted"], 1, "{eu:#}");
    };

    // `apply --verify FILE...`
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("add.sql"),
        "ALTER TABLE db.regions ADD COLUMN extra int;\n",
    )
    .unwrap();
    let us = regions.join("data/us-imported.parquet");
    let eu = regions.join("data/eu-pyiceberg.parquet");
    let out = fieldgate(
        &[
            "apply",
            "add.sql",
            "--metadata",
            regions.to_str().unwrap(),
            "-o",
            "out.json",
            "--format",
            "json",
            "--verify",
            us.to_str().unwrap(),
            eu.to_str().unwrap(),
        ],
        dir.path(),
    );
    as_in_the_manifests(&files(&out));

    // A `sample:` list, in `check` and in `apply` run from a subdirectory with `--config`.
    let repo = dir.path().join("repo");
    copy_dir(&regions, &repo.join("warehouse/db/regions"));
    fs::write(
        repo.join("fieldgate.yaml"),
        "tables:\n  db.regions:\n    metadata: warehouse/db/regions\n    sample:\n      - warehouse/db/regions/data/us-imported.parquet\n      - warehouse/db/regions/data/eu-pyiceberg.parquet\nproposals:\n  - migrations/*.sql\n",
    )
    .unwrap();
    main_and_branch(&repo, "regions", "pr");
    fs::create_dir_all(repo.join("migrations")).unwrap();
    fs::copy(
        dir.path().join("add.sql"),
        repo.join("migrations/0001_extra.sql"),
    )
    .unwrap();
    let out = fieldgate(
        &[
            "apply",
            "--config",
            "../fieldgate.yaml",
            "--metadata",
            "../warehouse/db/regions",
            "0001_extra.sql",
            "--write",
            "--format",
            "json",
        ],
        &repo.join("migrations"),
    );
    as_in_the_manifests(&files(&out));
    commit_all(&repo, "extra");
    let out = fieldgate(&["check", "--format", "json"], &repo);
    as_in_the_manifests(&files(&out));
}

/// Committed metadata is the change's to write, so in `check` its manifest list (and the manifests
/// and data files it leads to) must lie inside the repository: one pointing elsewhere on the CI
/// runner is a located error (exit 2), for `sample: N` and for listed files alike. `apply` reads
/// where the user's metadata points.
#[test]
fn check_reads_no_manifest_outside_the_repository() {
    let outside = tempfile::tempdir().unwrap();
    let table = root().join("examples/lake").join(FACT_ORDERS);
    copy_dir(&table.join("metadata"), &outside.path().join("metadata"));
    let original = fs::read_to_string(table.join("metadata/v2.metadata.json")).unwrap();
    let list = original
        .split("\"manifest-list\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap();
    let moved = outside
        .path()
        .join("metadata")
        .join(list.rsplit('/').next().unwrap());
    let pointing_outside = original.replace(list, &format!("file://{}", moved.display()));

    for sample in [
        "sample: 2",
        "sample: [warehouse/lake_prod/fact_orders/data/**/*.parquet]",
    ] {
        let lake = repository(&format!(
            "tables:\n  lake_prod.fact_orders:\n    metadata: {FACT_ORDERS}\n    {sample}\nproposals:\n  - migrations/**/*.sql\n"
        ));
        git(lake.path(), &["checkout", "-q", "main"]);
        fs::write(
            lake.path()
                .join(FACT_ORDERS)
                .join("metadata/v2.metadata.json"),
            &pointing_outside,
        )
        .unwrap();
        git(
            lake.path(),
            &["commit", "-q", "-am", "manifest list elsewhere"],
        );
        git(lake.path(), &["checkout", "-q", "-B", "pr"]);
        fs::create_dir_all(lake.path().join("migrations")).unwrap();
        fs::write(
            lake.path().join("migrations/0001_note.sql"),
            "ALTER TABLE lake_prod.fact_orders ADD COLUMN note string;\n",
        )
        .unwrap();
        let out = fieldgate(
            &[
                "apply",
                "--write",
                "--metadata",
                FACT_ORDERS,
                "--format",
                "json",
                "migrations/0001_note.sql",
            ],
            lake.path(),
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{sample}: {}",
            text(&out.stderr)
        );
        let report = json(&out);
        assert_eq!(
            report["tables"][0]["verification"]["passed"], true,
            "{sample}: apply read the manifest list where the metadata points: {report:#}"
        );
        commit_all(lake.path(), "note");

        let out = fieldgate(&["check"], lake.path());
        assert_eq!(
            out.status.code(),
            Some(2),
            "{sample}: {}",
            text(&out.stdout)
        );
        let stderr = text(&out.stderr);
        // The message is wrapped to the terminal: compare it without the wrapping.
        let unwrapped: String = stderr
            .split_whitespace()
            .filter(|word| *word != "│")
            .collect();
        assert!(
            unwrapped.contains(&format!(
                "`file://{}`isoutsidetherepository",
                moved.display()
            )),
            "{sample}: {stderr}"
        );
        assert!(
            stderr.contains(&format!("[{FACT_ORDERS}/metadata/v2.metadata.json:1:")),
            "{sample}: located at the manifest list of the committed metadata: {stderr}"
        );
    }
}
