//! `fieldgate lint` without `--metadata`: each statement and schema file goes to the table of
//! `fieldgate.yaml` it names, each touched table is read from the working tree, and one report
//! holds them all. Tables are the pyiceberg-written fixtures (`tests/fixtures/tables/*`).

use std::fs;
use std::path::Path;
use std::process::Output;

mod common;
use common::{commit_all, fieldgate_in, fixture_tables, text, write};

const CONFIG: &str = "tables:\n  db.orders:\n    metadata: warehouse/db/orders\n  db.accounts:\n    metadata: warehouse/db/accounts\nproposals:\n  - migrations/**/*.sql\n  - schemas/*.yaml\n";

/// A repository (a git one when `git`) with `fieldgate.yaml` and two fixture tables, copied whole.
fn lake(git: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "fieldgate.yaml", CONFIG);
    fixture_tables(
        dir.path(),
        &[("orders", "db/orders"), ("accounts", "db/accounts")],
    );
    if git {
        common::git(dir.path(), &["init", "-q"]);
    }
    dir
}

fn lint(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["lint"];
    all.extend_from_slice(args);
    fieldgate_in(dir, &all, &[])
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("not JSON: {}{}", text(&output.stdout), text(&output.stderr)))
}

/// (table, rule) of every diagnostic.
fn findings(report: &serde_json::Value) -> Vec<(String, String)> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["table"].as_str().unwrap_or_default().to_string(),
                d["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn tables(report: &serde_json::Value) -> Vec<String> {
    report["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["table"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn statements_go_to_the_tables_they_name_and_each_is_judged() {
    let lake = lake(false);
    // One migration touching two tables, and a second one for the first table.
    write(
        lake.path(),
        "migrations/0001_two_tables.sql",
        "ALTER TABLE db.orders ALTER COLUMN customer_id TYPE int;\nALTER TABLE accounts ADD COLUMN tier int;\n",
    );
    write(
        lake.path(),
        "migrations/0002_orders.sql",
        "ALTER TABLE catalog.db.orders DROP COLUMN region;\n",
    );
    let output = lint(
        lake.path(),
        &[
            "migrations/0001_two_tables.sql",
            "migrations/0002_orders.sql",
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let report = json(&output);
    assert_eq!(tables(&report), ["db.orders", "db.accounts"]);
    let found = findings(&report);
    for expected in [
        ("db.orders", "type-narrowing"),
        ("db.orders", "partition-source-drop"),
        ("db.accounts", "reader-cache-refresh"),
    ] {
        assert!(
            found.contains(&(expected.0.into(), expected.1.into())),
            "{expected:?} not in {found:?}"
        );
    }
    // The accounts table got the new field with the id Iceberg assigns after its last-column-id.
    let accounts = &report["tables"][1];
    assert_eq!(accounts["last_column_id"], 5, "{accounts}");
}

#[test]
fn the_human_report_names_the_configuration_and_the_touched_tables() {
    let lake = lake(false);
    write(
        lake.path(),
        "migrations/0001_tier.sql",
        "ALTER TABLE db.accounts ADD COLUMN tier int COMMENT 'loyalty tier';\n",
    );
    let output = lint(lake.path(), &["migrations/0001_tier.sql"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    insta::assert_snapshot!(text(&output.stdout));
}

#[test]
fn quoted_and_use_qualified_names_go_to_the_table_their_parts_name() {
    let lake = lake(false);
    write(
        lake.path(),
        "migrations/0001_quoted.sql",
        "USE `db`;\nALTER TABLE `orders` ALTER COLUMN customer_id TYPE int;\nALTER TABLE `db`.`accounts` ADD COLUMN tier int;\n",
    );
    let output = lint(
        lake.path(),
        &["migrations/0001_quoted.sql", "--format", "json"],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let report = json(&output);
    assert_eq!(tables(&report), ["db.orders", "db.accounts"]);
    assert!(
        findings(&report).contains(&("db.orders".into(), "type-narrowing".into())),
        "{report}"
    );
}

#[test]
fn a_quoted_name_holding_a_dot_is_one_part_and_not_the_table() {
    let lake = lake(false);
    // Spark reads `db.orders` as one identifier: a table of that name in the current namespace.
    write(
        lake.path(),
        "migrations/0001.sql",
        "ALTER TABLE `db.orders` ADD COLUMN a int;\n",
    );
    let output = lint(lake.path(), &["migrations/0001.sql"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("is not a table of fieldgate.yaml"),
        "{stderr}"
    );
}

#[test]
fn a_schema_file_is_routed_by_its_table_key() {
    let lake = lake(false);
    write(
        lake.path(),
        "schemas/accounts.yaml",
        "table: db.accounts\nfields:\n  - {id: 1, name: account_id, type: long, required: true}\n  - {id: 2, name: email, type: string}\n  - {id: 3, name: legacy_score, type: long}\n  - {id: 4, name: segment, type: string}\n",
    );
    let output = lint(lake.path(), &["schemas/accounts.yaml", "--format", "json"]);
    let report = json(&output);
    assert_eq!(tables(&report), ["db.accounts"], "{}", text(&output.stderr));
    assert!(
        report["changes"].to_string().contains("legacy_score"),
        "{report}"
    );
}

#[test]
fn a_table_not_in_the_configuration_is_a_located_error_naming_the_known_ones() {
    let lake = lake(false);
    write(
        lake.path(),
        "migrations/0001.sql",
        "ALTER TABLE db.order ADD COLUMN a int;\nALTER TABLE sales.invoices ADD COLUMN b int;\n",
    );
    let output = lint(lake.path(), &["migrations/0001.sql"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("`db.order` is not a table of fieldgate.yaml"),
        "{stderr}"
    );
    assert!(stderr.contains("did you mean `db.orders`?"), "{stderr}");
    assert!(stderr.contains("migrations/0001.sql:2:13"), "{stderr}");
    assert!(
        stderr.contains("fieldgate.yaml lists `db.orders`, `db.accounts`"),
        "{stderr}"
    );
}

#[test]
fn files_that_are_not_proposals_are_named_and_left_out() {
    let lake = lake(false);
    write(
        lake.path(),
        ".github/workflows/ci.yml",
        "on: push\njobs: {}\n",
    );
    let output = lint(
        lake.path(),
        &[
            "fieldgate.yaml",
            ".github/workflows/ci.yml",
            "warehouse/db/orders/metadata/v5.metadata.json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("`fieldgate.yaml` is not judged: it is the configuration"),
        "{stderr}"
    );
    assert!(
        stderr.contains("`.github/workflows/ci.yml` is not judged: no `proposals` glob"),
        "{stderr}"
    );
    assert!(
        stderr.contains("is not judged: it is the metadata of `db.orders`"),
        "{stderr}"
    );
    assert!(
        text(&output.stdout).starts_with("0 proposal files of 3 given; 0 of 2 tables"),
        "{}",
        text(&output.stdout)
    );
}

#[test]
fn the_configuration_at_the_repository_root_is_found_from_a_subdirectory() {
    let lake = lake(true);
    write(
        lake.path(),
        "migrations/orders/0001.sql",
        "ALTER TABLE db.orders ALTER COLUMN customer_id TYPE int;\n",
    );
    let output = lint(
        &lake.path().join("migrations"),
        &["orders/0001.sql", "--format", "github"],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("::error file=orders/0001.sql,line=1")
            && stdout.contains("title=type-narrowing"),
        "{stdout}"
    );
}

#[test]
fn a_configured_table_without_metadata_yet_is_created_by_its_first_migration() {
    let lake = lake(false);
    let config = CONFIG.replace(
        "proposals:",
        "  db.fresh:\n    metadata: warehouse/db/fresh\nproposals:",
    );
    write(lake.path(), "fieldgate.yaml", &config);
    write(
        lake.path(),
        "migrations/0001_fresh.sql",
        "CREATE TABLE db.fresh (id bigint, name string);\nALTER TABLE db.fresh ADD COLUMN tag string;\n",
    );
    let output = lint(
        lake.path(),
        &["migrations/0001_fresh.sql", "--format", "json"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let report = json(&output);
    assert_eq!(tables(&report), ["db.fresh"]);
    assert_eq!(report["tables"][0]["last_column_id"], 3);
}

/// `(table, kind path)` of the `no-schema-effect` changes of the report.
fn no_ops(report: &serde_json::Value) -> Vec<(String, String)> {
    report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "no-schema-effect")
        .map(|c| {
            (
                c["table"].as_str().unwrap().to_string(),
                c["path"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn session_statements_without_an_alter_go_with_the_files_table_or_touch_none() {
    let lake = lake(false);
    let config = CONFIG.replace(
        "proposals:",
        "  db.fresh:\n    metadata: warehouse/db/fresh\nproposals:",
    );
    write(lake.path(), "fieldgate.yaml", &config);
    // Beside a CREATE TABLE, the session statements go where the CREATE goes.
    write(
        lake.path(),
        "migrations/0001_fresh.sql",
        "SET spark.sql.ansi.enabled = true;\nCREATE TABLE db.fresh (id bigint);\nUSE db;\n",
    );
    // A file of session statements alone names no table.
    write(
        lake.path(),
        "migrations/0002_session.sql",
        "USE db;\nSET spark.sql.shuffle.partitions = 8;\n",
    );
    let output = lint(
        lake.path(),
        &[
            "migrations/0001_fresh.sql",
            "migrations/0002_session.sql",
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let report = json(&output);
    assert_eq!(tables(&report), ["db.fresh"], "{report}");
    let fresh = |change: &str| ("db.fresh".to_string(), change.to_string());
    assert_eq!(
        no_ops(&report),
        [fresh("SET spark.sql.ansi.enabled = true"), fresh("USE db")]
    );
    assert!(
        text(&output.stderr).contains("note: `migrations/0002_session.sql` touches no table: it holds only statements about the session"),
        "{}",
        text(&output.stderr)
    );

    // With --table, the table named takes them.
    write(lake.path(), "fieldgate.yaml", CONFIG);
    let output = lint(
        lake.path(),
        &[
            "migrations/0002_session.sql",
            "--table",
            "db.accounts",
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let report = json(&output);
    assert_eq!(tables(&report), ["db.accounts"], "{report}");
    let accounts = |change: &str| ("db.accounts".to_string(), change.to_string());
    assert_eq!(
        no_ops(&report),
        [
            accounts("USE db"),
            accounts("SET spark.sql.shuffle.partitions = 8")
        ]
    );
}

#[test]
fn without_a_configuration_or_metadata_lint_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "m.sql",
        "ALTER TABLE db.orders ADD COLUMN a int;\n",
    );
    let output = lint(dir.path(), &["m.sql"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("--metadata PATH") && stderr.contains("`fieldgate init`"),
        "{stderr}"
    );
}

#[test]
fn metadata_given_wins_over_the_configuration() {
    let lake = lake(false);
    write(
        lake.path(),
        "elsewhere/tier.sql",
        "ALTER TABLE accounts ADD COLUMN tier int;\n",
    );
    let output = lint(
        lake.path(),
        &[
            "elsewhere/tier.sql",
            "--metadata",
            "warehouse/db/accounts",
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    // The metadata is fieldgate.yaml's `db.accounts`: the run judges it under that name.
    assert_eq!(tables(&json(&output)), ["db.accounts"]);
}

#[test]
fn a_statement_for_another_table_than_the_configured_metadata_is_refused() {
    let lake = lake(false);
    write(
        lake.path(),
        "elsewhere/tier.sql",
        "ALTER TABLE db.orders ADD COLUMN tier int;\n",
    );
    // warehouse/db/accounts is fieldgate.yaml's db.accounts, whatever the statement names.
    for metadata in [
        "warehouse/db/accounts",
        "./warehouse/db/../db/accounts/",
        "warehouse/db/accounts/metadata/v1.metadata.json",
    ] {
        let output = lint(lake.path(), &["elsewhere/tier.sql", "--metadata", metadata]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{metadata}: {}",
            text(&output.stderr)
        );
        let stderr = text(&output.stderr);
        assert!(
            stderr.contains("this statement is for `db.orders`, but this run judges `db.accounts`"),
            "{metadata}: {stderr}"
        );
    }
    // A quoted name is shown once, as its parts name it, never in doubled backticks.
    write(
        lake.path(),
        "elsewhere/quoted.sql",
        "ALTER TABLE `db`.`orders` ADD COLUMN tier int;\nALTER TABLE `db.orders` ADD COLUMN b int;\n",
    );
    let output = lint(
        lake.path(),
        &[
            "elsewhere/quoted.sql",
            "--metadata",
            "warehouse/db/accounts",
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("this statement is for `db.orders`, but this run judges `db.accounts`")
            && stderr.contains("this statement is for `` `db.orders` ``, but")
            && !stderr.contains("``db"),
        "{stderr}"
    );
}

#[test]
fn in_git_a_migration_is_judged_against_the_committed_table_not_its_applied_metadata() {
    let lake = lake(true);
    commit_all(lake.path(), "tables");
    write(
        lake.path(),
        "migrations/0001_tier.sql",
        "ALTER TABLE db.accounts ADD COLUMN tier int;\n",
    );
    let applied = fieldgate_in(
        lake.path(),
        &[
            "apply",
            "--write",
            "--metadata",
            "warehouse/db/accounts",
            "migrations/0001_tier.sql",
        ],
        &[],
    );
    assert_eq!(applied.status.code(), Some(0), "{}", text(&applied.stderr));
    // What a hook passes: the migration and the metadata apply wrote, both staged.
    let output = lint(
        lake.path(),
        &[
            "warehouse/db/accounts/metadata/v3.metadata.json",
            "warehouse/db/accounts/metadata/version-hint.text",
            "migrations/0001_tier.sql",
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    let report = json(&output);
    assert_eq!(report["tables"][0]["last_column_id"], 5, "{report}");
    assert_eq!(
        findings(&report),
        [(
            "db.accounts".to_string(),
            "reader-cache-refresh".to_string()
        )]
    );
}

#[test]
fn files_are_judged_in_path_order_whatever_order_they_are_given_in() {
    let lake = lake(false);
    write(
        lake.path(),
        "migrations/0001_add.sql",
        "ALTER TABLE db.accounts ADD COLUMN tier int;\n",
    );
    write(
        lake.path(),
        "migrations/0002_rename.sql",
        "ALTER TABLE db.accounts RENAME COLUMN tier TO loyalty_tier;\n",
    );
    let output = lint(
        lake.path(),
        &[
            "migrations/0002_rename.sql",
            "migrations/0001_add.sql",
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    let changes = json(&output)["changes"].to_string();
    assert!(changes.contains("loyalty_tier"), "{changes}");
}

#[test]
fn a_metadata_file_among_the_proposals_names_no_table_and_needs_metadata() {
    let lake = lake(false);
    write(
        lake.path(),
        "fieldgate.yaml",
        &CONFIG.replace("  - schemas/*.yaml\n", "  - proposals/*\n"),
    );
    let next = fs::read_to_string(
        lake.path()
            .join("warehouse/db/accounts/metadata/v2.metadata.json"),
    )
    .unwrap();
    write(lake.path(), "proposals/next.metadata.json", &next);
    let output = lint(lake.path(), &["proposals/next.metadata.json"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("a metadata file names no table")
            && stderr.contains("--metadata TABLE proposals/next.metadata.json"),
        "{stderr}"
    );
}

/// A copy of the `accounts` fixture's metadata outside any repository.
#[cfg(unix)]
fn accounts_elsewhere() -> tempfile::TempDir {
    let outside = tempfile::tempdir().unwrap();
    common::copy_dir(
        &common::root().join("tests/fixtures/tables/accounts/metadata"),
        &outside.path().join("accounts/metadata"),
    );
    outside
}

#[cfg(unix)]
#[test]
fn a_configured_table_that_links_out_of_the_repository_is_a_located_error() {
    let refused = |lake: &tempfile::TempDir, expected: &str| {
        let output = lint(lake.path(), &["migrations/tier.sql", "--format", "json"]);
        assert_eq!(output.status.code(), Some(2), "{}", text(&output.stdout));
        let stderr = text(&output.stderr);
        assert!(
            stderr.contains(expected) && stderr.contains("fieldgate.yaml:5:15"),
            "{stderr}"
        );
    };
    let outside = accounts_elsewhere();
    let tier = "ALTER TABLE db.accounts ADD COLUMN tier int;\n";

    // The table directory is a link out.
    let lake = lake(false);
    fs::remove_dir_all(lake.path().join("warehouse/db/accounts")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("accounts"),
        lake.path().join("warehouse/db/accounts"),
    )
    .unwrap();
    write(lake.path(), "migrations/tier.sql", tier);
    refused(
        &lake,
        "the metadata of `db.accounts`: `warehouse/db/accounts` leads outside the repository",
    );

    // The version the hint names is a link out, beside the real ones.
    let lake = self::lake(false);
    std::os::unix::fs::symlink(
        outside.path().join("accounts/metadata/v2.metadata.json"),
        lake.path()
            .join("warehouse/db/accounts/metadata/v3.metadata.json"),
    )
    .unwrap();
    write(
        lake.path(),
        "warehouse/db/accounts/metadata/version-hint.text",
        "3\n",
    );
    write(lake.path(), "migrations/tier.sql", tier);
    refused(&lake, "v3.metadata.json` leads outside");

    // A link that stays inside is followed.
    let lake = self::lake(false);
    fs::rename(
        lake.path().join("warehouse/db/accounts"),
        lake.path().join("warehouse/db/accounts_v1"),
    )
    .unwrap();
    std::os::unix::fs::symlink("accounts_v1", lake.path().join("warehouse/db/accounts")).unwrap();
    write(lake.path(), "migrations/tier.sql", tier);
    let output = lint(lake.path(), &["migrations/tier.sql", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(tables(&json(&output)), ["db.accounts"]);
}

#[cfg(unix)]
#[test]
fn metadata_given_explicitly_may_be_read_from_anywhere() {
    let outside = accounts_elsewhere();
    let lake = lake(false);
    write(
        lake.path(),
        "migrations/tier.sql",
        "ALTER TABLE db.accounts ADD COLUMN tier int;\n",
    );
    let table = outside.path().join("accounts");
    let output = lint(
        lake.path(),
        &[
            "migrations/tier.sql",
            "--metadata",
            table.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
}

/// A git lake whose history applied each migration with `apply --write` and committed it with
/// the metadata it made: `db.fresh` is created by its first migration, `db.accounts` gets
/// `tier` and then renames it, `db.orders` gets a note. Returns the lake and the migrations, in
/// path order.
fn applied_history() -> (tempfile::TempDir, Vec<&'static str>) {
    let lake = lake(true);
    let config = CONFIG.replace(
        "proposals:",
        "  db.fresh:\n    metadata: warehouse/db/fresh\nproposals:",
    );
    write(lake.path(), "fieldgate.yaml", &config);
    commit_all(lake.path(), "tables");
    // The table the configuration names but nothing has made yet comes first.
    let steps = [
        (
            "migrations/fresh/0001_create.sql",
            "CREATE TABLE db.fresh (id bigint, name string);\nALTER TABLE db.fresh ADD COLUMN tag string;\n",
        ),
        (
            "migrations/accounts/0001_tier.sql",
            "ALTER TABLE db.accounts ADD COLUMN tier int COMMENT 'loyalty tier';\n",
        ),
        (
            "migrations/accounts/0002_rename.sql",
            "ALTER TABLE db.accounts RENAME COLUMN tier TO loyalty_tier;\n",
        ),
        (
            "migrations/orders/0001_note.sql",
            "ALTER TABLE db.orders ADD COLUMN note string COMMENT 'free text';\n",
        ),
    ];
    for (path, sql) in steps {
        write(lake.path(), path, sql);
        let applied = fieldgate_in(lake.path(), &["apply", path, "--write"], &[]);
        assert_eq!(applied.status.code(), Some(0), "{}", text(&applied.stderr));
        commit_all(lake.path(), path);
    }
    let mut migrations: Vec<&str> = steps.iter().map(|(path, _)| *path).collect();
    migrations.sort();
    (lake, migrations)
}

/// The notes on stderr naming migrations left out as applied.
fn left_out(output: &Output) -> Vec<String> {
    text(&output.stderr)
        .lines()
        .filter(|l| l.contains("is not judged for") && l.contains("it is applied"))
        .map(|l| l.split('`').nth(1).unwrap_or_default().to_string())
        .collect()
}

#[test]
fn linting_a_fully_applied_history_passes_and_names_what_it_left_out() {
    let (lake, migrations) = applied_history();
    let mut args = migrations.clone();
    args.reverse();
    let output = lint(lake.path(), &args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    assert_eq!(left_out(&output), migrations, "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(
        stdout.starts_with(
            "4 proposal files of 4 given, 4 already applied at HEAD and left out; 0 of 3 tables"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("passed: 0 errors, 0 warnings, 0 notes"),
        "{stdout}"
    );

    // A machine reader gets the list too: each file with the table it was left out for.
    let mut args = migrations.clone();
    args.extend(["--format", "json"]);
    let report = json(&lint(lake.path(), &args));
    let listed: Vec<(&str, &str)> = report["applied_migrations"]
        .as_array()
        .unwrap_or_else(|| panic!("{report}"))
        .iter()
        .map(|a| (a["file"].as_str().unwrap(), a["table"].as_str().unwrap()))
        .collect();
    assert_eq!(
        listed,
        [
            ("migrations/accounts/0001_tier.sql", "db.accounts"),
            ("migrations/accounts/0002_rename.sql", "db.accounts"),
            ("migrations/fresh/0001_create.sql", "db.fresh"),
            ("migrations/orders/0001_note.sql", "db.orders"),
        ]
    );
    let mut args = migrations.clone();
    args.extend(["--format", "markdown"]);
    let summary = text(&lint(lake.path(), &args).stdout);
    assert!(
        summary.contains("4 migrations already applied at HEAD, left out: `migrations/accounts/0001_tier.sql` (`db.accounts`), "),
        "{summary}"
    );
}

#[test]
fn migrations_committed_with_the_tables_first_metadata_are_applied() {
    // An engine-written table imported together with the migrations that made it: one commit
    // holds the table directory (every version) and the migrations, and nothing before it.
    let lake = lake(true);
    let steps = [
        (
            "migrations/accounts/0001_tier.sql",
            "ALTER TABLE db.accounts ADD COLUMN tier int COMMENT 'loyalty tier';\n",
        ),
        (
            "migrations/accounts/0002_rename.sql",
            "ALTER TABLE db.accounts RENAME COLUMN tier TO loyalty_tier;\n",
        ),
    ];
    for (path, sql) in steps {
        write(lake.path(), path, sql);
        let applied = fieldgate_in(lake.path(), &["apply", path, "--write"], &[]);
        assert_eq!(applied.status.code(), Some(0), "{}", text(&applied.stderr));
    }
    // Committed with the rest but not applied: judged.
    write(
        lake.path(),
        "migrations/accounts/0003_segment.sql",
        "ALTER TABLE db.accounts ADD COLUMN segment_v2 string COMMENT 'the new segmentation';\n",
    );
    commit_all(lake.path(), "the accounts table and its migrations");
    let migrations = [
        "migrations/accounts/0001_tier.sql",
        "migrations/accounts/0002_rename.sql",
        "migrations/accounts/0003_segment.sql",
    ];
    let mut args = migrations.to_vec();
    args.extend(["--format", "json"]);
    let output = lint(lake.path(), &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        left_out(&output),
        migrations[..2],
        "{}",
        text(&output.stderr)
    );
    assert_eq!(
        changed(&json(&output)),
        [("add".into(), "segment_v2".into())]
    );

    // Where the directory lacks the version they started from, nothing is taken as applied.
    let metadata = lake.path().join("warehouse/db/accounts/metadata");
    let current: u32 = fs::read_to_string(metadata.join("version-hint.text"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    for version in 1..current {
        fs::remove_file(metadata.join(format!("v{version}.metadata.json"))).unwrap();
    }
    commit_all(lake.path(), "only the current version kept");
    let output = lint(lake.path(), &migrations[..2]);
    assert!(left_out(&output).is_empty(), "{}", text(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stdout));
}

#[test]
fn an_applied_migration_edited_in_the_working_tree_is_judged() {
    let (lake, migrations) = applied_history();
    write(
        lake.path(),
        "migrations/accounts/0001_tier.sql",
        "ALTER TABLE db.accounts ADD COLUMN tier bigint COMMENT 'loyalty tier';\n",
    );
    let mut args = migrations.clone();
    args.extend(["--format", "json"]);
    let output = lint(lake.path(), &args);
    // The edit is judged against the table HEAD holds, where `tier` is `loyalty_tier` now; the
    // other applied migrations of the table, and of the other tables, are still left out.
    assert_eq!(
        left_out(&output),
        migrations[1..],
        "{}",
        text(&output.stderr)
    );
    let report = json(&output);
    assert_eq!(tables(&report), ["db.accounts"], "{report}");
    assert_eq!(
        changed(&report),
        [("add".into(), "tier".into())],
        "{report}"
    );
    // With the rename edited too (and staged), both are judged, in order.
    write(
        lake.path(),
        "migrations/accounts/0002_rename.sql",
        "ALTER TABLE db.accounts RENAME COLUMN tier TO tier_level;\n",
    );
    common::git(lake.path(), &["add", "-A"]);
    let mut args = migrations.clone();
    args.extend(["--format", "json"]);
    let output = lint(lake.path(), &args);
    assert_eq!(
        left_out(&output),
        migrations[2..],
        "{}",
        text(&output.stderr)
    );
    assert_eq!(
        changed(&json(&output)),
        [
            ("add".into(), "tier".into()),
            ("rename".into(), "tier".into())
        ]
    );
}

/// (kind, path) of every change of the report.
fn changed(report: &serde_json::Value) -> Vec<(String, String)> {
    report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().unwrap().to_string(),
                c["path"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_migration_not_applied_yet_is_judged_after_the_applied_ones() {
    let (lake, mut migrations) = applied_history();
    // Committed without the metadata it makes, and one not committed at all.
    write(
        lake.path(),
        "migrations/accounts/0003_segment.sql",
        "ALTER TABLE db.accounts ADD COLUMN segment_v2 string COMMENT 'the new segmentation';\n",
    );
    commit_all(lake.path(), "a migration, not applied");
    write(
        lake.path(),
        "migrations/accounts/0004_narrow.sql",
        "ALTER TABLE db.accounts ALTER COLUMN account_id TYPE int;\n",
    );
    migrations.extend([
        "migrations/accounts/0003_segment.sql",
        "migrations/accounts/0004_narrow.sql",
    ]);
    let mut args = migrations.clone();
    args.extend(["--format", "json"]);
    let output = lint(lake.path(), &args);
    assert_eq!(
        left_out(&output),
        migrations[..4],
        "{}",
        text(&output.stderr)
    );
    let report = json(&output);
    assert_eq!(tables(&report), ["db.accounts"], "{report}");
    // Judged against the committed table: `segment_v2` gets the id after `loyalty_tier`'s.
    assert_eq!(report["tables"][0]["last_column_id"], 6, "{report}");
    assert_eq!(
        changed(&report),
        [
            ("add".into(), "segment_v2".into()),
            ("update-type".into(), "account_id".into())
        ]
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        findings(&report).contains(&("db.accounts".into(), "type-narrowing".into())),
        "{report}"
    );
}
