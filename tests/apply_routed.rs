//! `fieldgate apply` without `--metadata` in a repository with `fieldgate.yaml`: each statement
//! goes to the table it names, as `lint` routes it; each touched table is read from the working
//! tree and, with `--write`, written back where `fieldgate.yaml` keeps it, every one of them or
//! none, each file named on stderr. Tables are the pyiceberg-written fixtures.

use std::fs;
use std::path::Path;
use std::process::Output;

mod common;
use common::{
    assert_exit, current_field_names as field_names, fieldgate_in, fixture_tables, root, text,
    write,
};

const CONFIG: &str = "tables:\n  db.orders:\n    metadata: warehouse/db/orders\n  db.accounts:\n    metadata: warehouse/db/accounts\nproposals:\n  - migrations/**/*.sql\n";

/// A git repository with `fieldgate.yaml` and the orders (v5) and accounts (v2) fixture tables.
fn lake() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "fieldgate.yaml", CONFIG);
    fixture_tables(
        dir.path(),
        &[("orders", "db/orders"), ("accounts", "db/accounts")],
    );
    common::git(dir.path(), &["init", "-q"]);
    dir
}

fn apply(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["apply"];
    all.extend_from_slice(args);
    fieldgate_in(dir, &all, &[])
}

/// [`apply`], which must pass (exit 0).
fn applied(dir: &Path, args: &[&str]) -> Output {
    let output = apply(dir, args);
    assert_exit(&output, 0);
    output
}

/// [`apply`], which must refuse to run (exit 2); returns its stderr.
fn refused(dir: &Path, args: &[&str]) -> String {
    let output = apply(dir, args);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    stderr
}

fn metadata(dir: &Path, path: &str) -> serde_json::Value {
    let text = fs::read_to_string(dir.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn hint(dir: &Path, table: &str) -> String {
    fs::read_to_string(dir.join(format!("warehouse/db/{table}/metadata/version-hint.text")))
        .unwrap()
}

/// Whether `table`'s metadata version `version` exists.
fn has_version(dir: &Path, table: &str, version: u32) -> bool {
    dir.join(format!(
        "warehouse/db/{table}/metadata/v{version}.metadata.json"
    ))
    .exists()
}

#[test]
fn each_statement_goes_to_its_table_and_write_writes_each_touched_table() {
    let lake = lake();
    write(
        lake.path(),
        "migrations/0001_two_tables.sql",
        "ALTER TABLE db.accounts ADD COLUMN tier int;\nALTER TABLE orders ADD COLUMN note string;\n",
    );
    let output = applied(lake.path(), &["migrations/0001_two_tables.sql", "--write"]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(
        stdout.starts_with("1 proposal file of 1 given; 2 of 2 tables of `fieldgate.yaml` touched"),
        "{stdout}"
    );
    let accounts = metadata(
        lake.path(),
        "warehouse/db/accounts/metadata/v3.metadata.json",
    );
    assert_eq!(accounts["last-column-id"], 5);
    assert!(field_names(&accounts).contains(&"tier".to_string()));
    let orders = metadata(lake.path(), "warehouse/db/orders/metadata/v6.metadata.json");
    assert_eq!(orders["last-column-id"], 12);
    assert!(field_names(&orders).contains(&"note".to_string()));
    assert_eq!(
        (hint(lake.path(), "accounts"), hint(lake.path(), "orders")),
        ("3".into(), "6".into())
    );
    for line in [
        "fieldgate: wrote the new metadata of `db.orders` to `warehouse/db/orders/metadata/v6.metadata.json`",
        "fieldgate: moved `warehouse/db/orders/metadata/version-hint.text` to version 6",
        "fieldgate: wrote the new metadata of `db.accounts` to `warehouse/db/accounts/metadata/v3.metadata.json`",
        "fieldgate: moved `warehouse/db/accounts/metadata/version-hint.text` to version 3",
    ] {
        assert!(stderr.lines().any(|l| l == line), "{line} not in {stderr}");
    }

    // The working tree is the start: the next migration builds on what was just written.
    write(
        lake.path(),
        "migrations/0002_accounts.sql",
        "ALTER TABLE db.accounts ADD COLUMN region string;\n",
    );
    applied(lake.path(), &["migrations/0002_accounts.sql", "--write"]);
    let accounts = metadata(
        lake.path(),
        "warehouse/db/accounts/metadata/v4.metadata.json",
    );
    assert_eq!(accounts["last-column-id"], 6);
    let names = field_names(&accounts);
    assert!(
        names.contains(&"tier".into()) && names.contains(&"region".into()),
        "{names:?}"
    );
    assert_eq!(hint(lake.path(), "accounts"), "4");
    assert_eq!(
        hint(lake.path(), "orders"),
        "6",
        "a table no statement names is left alone"
    );
}

#[test]
fn when_one_table_fails_no_table_is_written() {
    let lake = lake();
    write(
        lake.path(),
        "migrations/0001.sql",
        "ALTER TABLE db.accounts ADD COLUMN tier int;\nALTER TABLE db.orders ALTER COLUMN customer_id TYPE int;\n",
    );
    let output = apply(lake.path(), &["migrations/0001.sql", "--write"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("type-narrowing"));
    assert!(!has_version(lake.path(), "accounts", 3));
    assert!(!has_version(lake.path(), "orders", 6));
    assert_eq!(
        (hint(lake.path(), "accounts"), hint(lake.path(), "orders")),
        ("2".into(), "5".into())
    );
    assert!(
        !text(&output.stderr).contains("wrote"),
        "{}",
        text(&output.stderr)
    );
}

/// The migrations `apply` left out as applied, from its notes on stderr.
fn left_out(output: &Output) -> Vec<String> {
    text(&output.stderr)
        .lines()
        .filter(|l| l.contains("is not judged for") && l.contains("it is applied"))
        .map(|l| l.split('`').nth(1).unwrap_or_default().to_string())
        .collect()
}

#[test]
fn migrations_head_has_applied_are_not_applied_again() {
    let lake = lake();
    common::commit_all(lake.path(), "tables");
    write(
        lake.path(),
        "migrations/0001_tier.sql",
        "ALTER TABLE db.accounts ADD COLUMN tier int;\n",
    );
    applied(lake.path(), &["migrations/0001_tier.sql", "--write"]);
    common::commit_all(lake.path(), "tier, applied");

    // Applying it again writes nothing: the table already holds it, and
    // applying it a second time would be "Cannot add column, name already exists".
    let output = applied(lake.path(), &["migrations/0001_tier.sql", "--write"]);
    assert_eq!(left_out(&output), ["migrations/0001_tier.sql"]);
    assert!(
        text(&output.stdout).starts_with(
            "1 proposal file of 1 given, 1 already applied at HEAD and left out; 0 of 2 tables"
        ),
        "{}",
        text(&output.stdout)
    );
    assert!(!has_version(lake.path(), "accounts", 4));
    assert_eq!(hint(lake.path(), "accounts"), "3");

    // A new migration beside it is applied onto the table the applied one left.
    write(
        lake.path(),
        "migrations/0002_note.sql",
        "ALTER TABLE db.accounts ADD COLUMN note string;\n",
    );
    let output = applied(
        lake.path(),
        &[
            "migrations/0001_tier.sql",
            "migrations/0002_note.sql",
            "--write",
        ],
    );
    assert_eq!(left_out(&output), ["migrations/0001_tier.sql"]);
    let written = metadata(
        lake.path(),
        "warehouse/db/accounts/metadata/v4.metadata.json",
    );
    let names = field_names(&written);
    assert_eq!(
        names.iter().filter(|n| *n == "tier").count(),
        1,
        "{names:?}"
    );
    assert_eq!(names.last().map(String::as_str), Some("note"), "{names:?}");
}

#[test]
fn one_output_file_takes_one_table() {
    let lake = lake();
    write(
        lake.path(),
        "migrations/0001.sql",
        "ALTER TABLE db.accounts ADD COLUMN tier int;\nALTER TABLE db.orders ADD COLUMN note string;\n",
    );
    let stderr = refused(
        lake.path(),
        &["migrations/0001.sql", "-o", "out.metadata.json"],
    );
    assert!(
        stderr.contains("-o OUT writes one table's metadata, and the files touch 2 tables (`db.orders`, `db.accounts`)"),
        "{stderr}"
    );
    assert!(!lake.path().join("out.metadata.json").exists());

    // One table touched: -o writes it there, and the table itself is left as it was.
    write(
        lake.path(),
        "migrations/0002.sql",
        "ALTER TABLE db.accounts ADD COLUMN tier int;\n",
    );
    applied(
        lake.path(),
        &["migrations/0002.sql", "-o", "out.metadata.json"],
    );
    assert_eq!(
        metadata(lake.path(), "out.metadata.json")["last-column-id"],
        5
    );
    assert_eq!(hint(lake.path(), "accounts"), "2");
}

#[test]
fn write_creates_a_new_table_where_the_configuration_keeps_it() {
    let lake = lake();
    let config = fs::read_to_string(lake.path().join("fieldgate.yaml")).unwrap();
    let config = config.replace(
        "proposals:",
        "  db.visits:\n    metadata: warehouse/db/visits\nproposals:",
    );
    write(lake.path(), "fieldgate.yaml", &config);
    write(
        lake.path(),
        "migrations/visits/0001_create.sql",
        "CREATE TABLE db.visits (visit_id bigint NOT NULL, page string) USING iceberg;\n",
    );
    let output = applied(
        lake.path(),
        &["migrations/visits/0001_create.sql", "--write"],
    );
    let visits = metadata(lake.path(), "warehouse/db/visits/metadata/v1.metadata.json");
    assert_eq!(field_names(&visits), ["visit_id", "page"]);
    let real = fs::canonicalize(lake.path()).unwrap();
    assert_eq!(
        visits["location"],
        format!("file://{}", real.join("warehouse/db/visits").display())
    );
    assert_eq!(hint(lake.path(), "visits"), "1");
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(
            "fieldgate: moved `warehouse/db/visits/metadata/version-hint.text` to version 1"
        ),
        "{stderr}"
    );

    // What it wrote is a table fieldgate reads, routed as the hook would.
    write(
        lake.path(),
        "migrations/visits/0002_add.sql",
        "ALTER TABLE db.visits ADD COLUMN referrer string;\n",
    );
    let output = fieldgate_in(
        lake.path(),
        &["lint", "migrations/visits/0002_add.sql", "--format", "json"],
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["tables"][0]["last_column_id"], 3, "{report}");
}

#[test]
fn help_says_what_apply_does_without_metadata() {
    let lake = lake();
    let output = apply(lake.path(), &["--help"]);
    // clap wraps the text to the terminal: compared word by word.
    let help = text(&output.stdout);
    let words = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(
            "in a repository with a fieldgate.yaml, each statement goes to the table it names"
        ),
        "{help}"
    );
    assert!(
        help.contains("fieldgate apply migrations/*.sql --write"),
        "{help}"
    );
}

/// The JUnit test case of `rule` for `table` in `xml`, up to its end.
fn junit_case<'a>(xml: &'a str, rule: &str, table: &str) -> &'a str {
    let start = format!("<testcase name=\"{rule}\" classname=\"{table}\"");
    let at = xml
        .find(&start)
        .unwrap_or_else(|| panic!("no case {rule} in {xml}"));
    let case = &xml[at..];
    let end = case
        .find("/>\n")
        .filter(|e| !case[..*e].contains('>'))
        .map(|e| e + 2)
        .or_else(|| case.find("</testcase>").map(|e| e + "</testcase>".len()))
        .unwrap();
    &case[..end]
}

#[test]
fn what_routed_apply_writes_is_what_check_expects_and_junit_says_what_ran() {
    // The example lake as the base branch, without its migrations.
    let lake = tempfile::tempdir().unwrap();
    common::copy_dir(&root().join("examples/lake"), lake.path());
    fs::remove_dir_all(lake.path().join("migrations")).unwrap();
    common::main_and_branch(lake.path(), "the lake", "change");
    let migration = "migrations/dim_users/0001_add_vip_level.sql";
    write(
        lake.path(),
        migration,
        &fs::read_to_string(root().join("examples/lake").join(migration)).unwrap(),
    );

    // apply reads the table's `sample:` from fieldgate.yaml before it writes.
    let stdout = text(&applied(lake.path(), &[migration, "--write"]).stdout);
    assert!(stdout.contains("  verified "), "{stdout}");
    common::commit_all(lake.path(), "add vip_level");

    let check = |format: &str| {
        fieldgate_in(
            lake.path(),
            &["check", "--base", "main", "--format", format],
            &[],
        )
    };
    let output = check("human");
    assert_exit(&output, 0);

    // check judged metadata-drift and reader-verification: passed cases; live-drift needs
    // --live: skipped, saying who judges it.
    let xml = text(&check("junit").stdout);
    let table = "lake_prod.dim_users";
    for rule in ["metadata-drift", "reader-verification", "type-narrowing"] {
        let case = junit_case(&xml, rule, table);
        assert!(case.ends_with("/>"), "{rule} should pass: {case}");
    }
    let live = junit_case(&xml, "live-drift", table);
    assert!(
        live.contains(
            "<skipped message=\"not judged in this run: `fieldgate check --live` judges it"
        ),
        "{live}"
    );

    // lint judges neither drift nor, without a sample, the data files.
    let output = fieldgate_in(
        lake.path(),
        &[
            "lint",
            migration,
            "--metadata",
            "warehouse/lake_prod/dim_users",
            "--format",
            "junit",
        ],
        &[],
    );
    let xml = text(&output.stdout);
    for (rule, who) in [
        ("metadata-drift", "`fieldgate check` judges it"),
        (
            "reader-verification",
            "judged when sample data files are read",
        ),
    ] {
        let case = junit_case(&xml, rule, table);
        assert!(
            case.contains(&format!("<skipped message=\"not judged in this run: {who}")),
            "{case}"
        );
    }
    assert!(junit_case(&xml, "type-narrowing", table).ends_with("/>"));
    assert!(xml.contains("skipped=\"3\""), "{xml}");
}

#[test]
fn a_configuration_named_with_config_routes_and_none_found_says_so() {
    let lake = lake();
    fs::rename(
        lake.path().join("fieldgate.yaml"),
        lake.path().join("lake.yaml"),
    )
    .unwrap();
    write(
        lake.path(),
        "migrations/0001.sql",
        "ALTER TABLE db.accounts ADD COLUMN tier int;\n",
    );
    let output = applied(
        lake.path(),
        &["migrations/0001.sql", "--config", "lake.yaml", "--write"],
    );
    assert!(
        text(&output.stdout).contains("of `lake.yaml` touched"),
        "{}",
        text(&output.stdout)
    );
    assert_eq!(hint(lake.path(), "accounts"), "3");

    // A --config that is not there is named; without one, no fieldgate.yaml is found.
    let stderr = refused(
        lake.path(),
        &["migrations/0001.sql", "--config", "missing.yaml", "--write"],
    );
    assert!(stderr.contains("no fieldgate.yaml at `"), "{stderr}");
    assert!(stderr.contains("missing.yaml"), "{stderr}");
    let stderr = refused(lake.path(), &["migrations/0001.sql", "--write"]);
    assert!(
        stderr.contains(
            "no --metadata given, no fieldgate.yaml found (here or at the repository root)"
        ),
        "{stderr}"
    );
}
