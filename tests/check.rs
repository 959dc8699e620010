//! `fieldgate check` in real git repositories: a base branch with tables and history, a PR branch
//! with migrations, and the verdict for each scenario of the CI gate. Table metadata is copied from
//! the pyiceberg-written fixtures (`tests/fixtures/tables/*`, one commit per metadata version where
//! history matters); the PR's metadata is what `fieldgate apply --write` writes, as a developer
//! would commit it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

mod common;
use common::{fieldgate_in, root, text};

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/tables")
}

const CONFIG: &str = "tables:\n  db.orders:\n    metadata: warehouse/db/orders\n  db.events:\n    metadata: warehouse/db/events\n  db.accounts:\n    metadata: warehouse/db/accounts\nproposals:\n  - migrations/**/*.sql\n";

/// A git repository in a temporary directory, with commits dated as the test says.
struct Lake {
    dir: tempfile::TempDir,
}

impl Lake {
    fn new() -> Lake {
        let lake = Lake {
            dir: tempfile::tempdir().unwrap(),
        };
        lake.git(&["init", "-q", "-b", "main"]);
        lake
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn git_in(dir: &Path, args: &[&str], days_ago: i64, author: &str) -> Output {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        let date = format!("@{} +0000", now - days_ago * 86_400);
        let output = Command::new("git")
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", author)
            .env("GIT_AUTHOR_EMAIL", "dev@example.com")
            .env("GIT_COMMITTER_NAME", author)
            .env("GIT_COMMITTER_EMAIL", "dev@example.com")
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .env_remove("GITHUB_BASE_REF")
            .output()
            .expect("git runs");
        assert!(
            output.status.success(),
            "git {args:?}: {}",
            text(&output.stderr)
        );
        output
    }

    fn git(&self, args: &[&str]) -> String {
        text(&Lake::git_in(self.path(), args, 0, "Test").stdout)
    }

    fn write(&self, path: &str, contents: &str) {
        common::write(self.path(), path, contents);
    }

    fn read(&self, path: &str) -> String {
        fs::read_to_string(self.path().join(path)).unwrap()
    }

    /// The fixture table's metadata versions 1..=`version` (pyiceberg's files, byte for byte) in
    /// the Hadoop layout at `to`, with the version hint at `version`.
    fn table(&self, fixture: &str, to: &str, version: u64) {
        for v in 1..=version {
            let name = format!("v{v}.metadata.json");
            let from = fixtures().join(fixture).join("metadata").join(&name);
            self.write(
                &format!("{to}/metadata/{name}"),
                &fs::read_to_string(from).unwrap(),
            );
        }
        self.write(
            &format!("{to}/metadata/version-hint.text"),
            &format!("{version}\n"),
        );
    }

    /// Commits everything, `days_ago` days ago, by `author`; returns the short id.
    fn commit(&self, message: &str, days_ago: i64, author: &str) -> String {
        Lake::git_in(self.path(), &["add", "-A"], days_ago, author);
        Lake::git_in(
            self.path(),
            &["commit", "-q", "-m", message],
            days_ago,
            author,
        );
        self.git(&["rev-parse", "--short=7", "HEAD"])
            .trim()
            .to_string()
    }

    fn fieldgate(&self, args: &[&str]) -> Output {
        self.fieldgate_env(args, &[])
    }

    fn fieldgate_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        fieldgate_in(self.path(), args, env)
    }

    /// Runs fieldgate, which must refuse to judge (exit 2) with each of `expected` in its errors.
    fn refused(&self, args: &[&str], expected: &[&str]) -> Output {
        let output = self.fieldgate(args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        for part in expected {
            assert!(stderr.contains(part), "{part}: {stderr}");
        }
        output
    }

    /// `check --format json`: exit code and the report.
    fn check_json(&self) -> (Option<i32>, serde_json::Value) {
        self.check_json_with(&[])
    }

    /// [`Lake::check_json`] with more arguments.
    fn check_json_with(&self, args: &[&str]) -> (Option<i32>, serde_json::Value) {
        let mut all = vec!["check", "--format", "json"];
        all.extend_from_slice(args);
        let output = self.fieldgate(&all);
        let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
            panic!(
                "not JSON: {}\nstderr: {}",
                text(&output.stdout),
                text(&output.stderr)
            )
        });
        (output.status.code(), report)
    }

    /// Adds `vip_level` to `db.events` in `migrations/0001_vip.sql`, not applied yet.
    fn write_vip_level(&self) {
        self.write(
            "migrations/0001_vip.sql",
            "ALTER TABLE db.events ADD COLUMN vip_level int;\n",
        );
    }

    /// Narrows `db.orders.total_units` (long) to int in `migrations/0001_narrow.sql`.
    fn write_narrowing(&self) {
        self.write(
            "migrations/0001_narrow.sql",
            "ALTER TABLE db.orders ALTER COLUMN total_units TYPE int;\n",
        );
    }

    /// [`Lake::write_vip_level`], applied to the events table at `table`.
    fn add_vip_level(&self, table: &str) {
        self.write_vip_level();
        self.apply(table, &["migrations/0001_vip.sql"]);
    }

    /// `apply --write` as a developer runs it before committing; must succeed.
    fn apply(&self, table: &str, files: &[&str]) {
        let mut args = vec!["apply", "--write", "--metadata", table];
        args.extend_from_slice(files);
        common::assert_exit(&self.fieldgate(&args), 0);
    }
}

/// Main with the three tables at their latest fixture versions, and a `pr` branch checked out.
fn lake_with_tables() -> Lake {
    let lake = Lake::new();
    lake.write("fieldgate.yaml", CONFIG);
    lake.table("orders", "warehouse/db/orders", 5);
    lake.table("events", "warehouse/db/events", 9);
    lake.table("accounts", "warehouse/db/accounts", 2);
    lake.commit("tables", 10, "Ada");
    lake.git(&["checkout", "-q", "-b", "pr"]);
    lake
}

fn diagnostics(report: &serde_json::Value) -> Vec<(String, String, String)> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn rules(report: &serde_json::Value) -> Vec<String> {
    diagnostics(report).into_iter().map(|(r, _, _)| r).collect()
}

#[test]
fn a_clean_pr_with_applied_metadata_passes() {
    let lake = lake_with_tables();
    lake.write(
        "migrations/0001_vip.sql",
        "ALTER TABLE db.events ADD COLUMN vip_level int COMMENT 'loyalty tier 1-5';\n",
    );
    lake.apply("warehouse/db/events", &["migrations/0001_vip.sql"]);
    lake.commit("add vip_level", 0, "Ada");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(report["passed"], true);
    let tables: Vec<&str> = report["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["table"].as_str().unwrap())
        .collect();
    assert_eq!(tables, ["db.events"], "only the touched table is judged");
    assert_eq!(report["changes"][0]["path"], "vip_level");
    assert_eq!(report["changes"][0]["field_id"], 25);

    let human = lake.fieldgate(&["check"]);
    let out = text(&human.stdout);
    assert!(
        out.contains("1 proposal file; 1 of 3 tables touched"),
        "{out}"
    );
    assert!(out.contains("db.events: schema 3 -> 4"), "{out}");
    assert!(
        out.trim_end()
            .ends_with("passed: 0 errors, 0 warnings, 1 note"),
        "{out}"
    );
}

#[test]
fn uncommitted_and_untracked_migrations_count_too() {
    let lake = lake_with_tables();
    lake.write_narrowing();
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1));
    assert!(
        rules(&report).contains(&"type-narrowing".to_string()),
        "{report:#}"
    );
}

fn judged_tables(report: &serde_json::Value) -> Vec<String> {
    report["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["table"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_applied_change_not_yet_added_is_judged_as_if_committed() {
    let lake = lake_with_tables();
    // The migration and the metadata file `apply --write` wrote are untracked, the hint modified.
    lake.add_vip_level("warehouse/db/events");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(judged_tables(&report), ["db.events"]);
    assert_eq!(report["changes"][0]["path"], "vip_level");
    assert!(
        !rules(&report).contains(&"metadata-drift".to_string()),
        "{report:#}"
    );
}

#[test]
fn an_untracked_metadata_file_counts_where_it_is_the_newest_version_read() {
    let lake = Lake::new();
    lake.write("fieldgate.yaml", CONFIG);
    lake.table("orders", "warehouse/db/orders", 5);
    lake.table("events", "warehouse/db/events", 9);
    lake.table("accounts", "warehouse/db/accounts", 2);
    // Without a version hint, the newest `vN.metadata.json` is the table's metadata.
    fs::remove_file(
        lake.path()
            .join("warehouse/db/accounts/metadata/version-hint.text"),
    )
    .unwrap();
    lake.commit("tables", 10, "Ada");
    lake.git(&["checkout", "-q", "-b", "pr"]);
    // `accounts` rolled back to pyiceberg's v1 by hand, in a new file nobody added.
    lake.write(
        "warehouse/db/accounts/metadata/v3.metadata.json",
        &fs::read_to_string(fixtures().join("accounts/metadata/v1.metadata.json")).unwrap(),
    );
    // Where the tracked hint names the file, an untracked one changes nothing that is read.
    lake.write("warehouse/db/orders/metadata/notes.txt", "scratch\n");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(judged_tables(&report), ["db.accounts"]);
    let found = diagnostics(&report);
    assert!(
        found.iter().any(|f| f.0 == "metadata-drift"
            && f.2
                .contains("changed, but no migration in this change says so")),
        "{found:?}"
    );
}

#[test]
fn an_untracked_version_past_a_tracked_hint_is_seen_as_java_rolls_forward_to_it() {
    let lake = lake_with_tables();
    // `events`' hint (9) is tracked and unchanged; a v10 nobody added is the table's current
    // metadata to Java, which rolls forward past the hint: here pyiceberg's v9 with one more
    // column that no migration adds.
    let v9 = lake.read("warehouse/db/events/metadata/v9.metadata.json");
    let mut doc: serde_json::Value = serde_json::from_str(&v9).unwrap();
    let id = doc["last-column-id"].as_i64().unwrap() + 1;
    let mut schema = doc["schemas"].as_array().unwrap().last().unwrap().clone();
    let schema_id = schema["schema-id"].as_i64().unwrap() + 1;
    schema["schema-id"] = schema_id.into();
    schema["fields"].as_array_mut().unwrap().push(
        serde_json::json!({"id": id, "name": "unannounced", "required": false, "type": "int"}),
    );
    doc["schemas"].as_array_mut().unwrap().push(schema);
    doc["current-schema-id"] = schema_id.into();
    doc["last-column-id"] = id.into();
    lake.write(
        "warehouse/db/events/metadata/v10.gz.metadata.json.notes",
        "not a metadata file's name\n",
    );
    lake.write(
        "warehouse/db/events/metadata/v10.metadata.json",
        &doc.to_string(),
    );
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(judged_tables(&report), ["db.events"]);
    let found = diagnostics(&report);
    assert!(
        found.iter().any(|f| f.0 == "metadata-drift"
            && f.2
                .contains("changed, but no migration in this change says so")),
        "{found:?}"
    );
    // A file of another name beside it, or a version past a gap (no v10 or v11), changes
    // nothing Java reads: the table is untouched.
    let metadata = lake.path().join("warehouse/db/events/metadata");
    fs::rename(
        metadata.join("v10.metadata.json"),
        metadata.join("v12.metadata.json"),
    )
    .unwrap();
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
    assert!(judged_tables(&report).is_empty(), "{report:#}");
}

#[test]
fn a_committed_migration_deleted_again_in_the_working_tree_is_no_proposal() {
    let lake = lake_with_tables();
    lake.write_narrowing();
    lake.commit("narrow", 0, "Bob");
    fs::remove_file(lake.path().join("migrations/0001_narrow.sql")).unwrap();
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
    assert!(judged_tables(&report).is_empty(), "{report:#}");
}

#[test]
fn a_narrowing_pr_fails() {
    let lake = lake_with_tables();
    lake.write_narrowing();
    lake.commit("narrow", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1));
    let found = diagnostics(&report);
    let narrowing = found
        .iter()
        .find(|(rule, _, _)| rule == "type-narrowing")
        .unwrap_or_else(|| panic!("{found:?}"));
    assert_eq!(narrowing.1, "error");
    assert!(narrowing.2.contains("total_units"), "{}", narrowing.2);
    let location = &report["diagnostics"][0]["location"];
    assert_eq!(location["file"], "migrations/0001_narrow.sql");
    // The metadata is not regenerated either, but `apply` would refuse while the narrowing
    // stands: the drift advice says so before telling to run it.
    let drift = report["diagnostics"]
        .as_array()
        .and_then(|all| all.iter().find(|d| d["rule"] == "metadata-drift"))
        .unwrap_or_else(|| panic!("{report}"));
    let help = drift["help"].as_str().unwrap_or_default();
    assert!(
        help.starts_with("first resolve the 1 error finding above"),
        "{help}"
    );
}

/// Main's history of `orders`: v3 (with `status`), then v4 (pyiceberg dropped `status`), then two
/// unrelated commits, with `config` as main's fieldgate.yaml; returns the id of the dropping
/// commit, with a `pr` branch checked out.
fn lake_where_status_was_dropped(drop_days_ago: i64, config: &str) -> (Lake, String) {
    let lake = Lake::new();
    lake.write("fieldgate.yaml", config);
    lake.table("orders", "warehouse/db/orders", 3);
    lake.commit("orders table", drop_days_ago + 20, "Ada");
    lake.table("orders", "warehouse/db/orders", 4);
    let dropped = lake.commit("drop status", drop_days_ago, "Grace Hopper");
    lake.table("orders", "warehouse/db/orders", 5);
    lake.commit("orders: new snapshot", drop_days_ago - 1, "Ada");
    lake.table("events", "warehouse/db/events", 9);
    lake.table("accounts", "warehouse/db/accounts", 2);
    lake.commit("events and accounts tables", drop_days_ago - 2, "Ada");
    lake.git(&["checkout", "-q", "-b", "pr"]);
    (lake, dropped)
}

fn date_days_ago(days: i64) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let day = (now - days * 86_400).div_euclid(86_400);
    // Civil date from days (Hinnant), to compare with the report.
    let z = day + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[test]
fn reusing_a_name_dropped_three_commits_earlier_names_the_commit_date_and_author() {
    let (lake, dropped) = lake_where_status_was_dropped(10, CONFIG);
    lake.write(
        "migrations/0001_status.sql",
        "ALTER TABLE db.orders ADD COLUMN status string COMMENT 'shipping state';\n",
    );
    // The developer forced the write past the finding; check must still fail on it.
    let output = lake.fieldgate(&[
        "apply",
        "--write",
        "--force",
        "--metadata",
        "warehouse/db/orders",
        "migrations/0001_status.sql",
    ]);
    assert_eq!(output.status.code(), Some(1));
    lake.commit("re-add status", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    let found = diagnostics(&report);
    assert_eq!(
        found
            .iter()
            .filter(|(_, severity, _)| severity == "error")
            .map(|(rule, _, _)| rule.as_str())
            .collect::<Vec<_>>(),
        ["name-reuse"],
        "{found:?}"
    );
    let message = &found.iter().find(|f| f.0 == "name-reuse").unwrap().2;
    let expected = format!(
        "`status` (id 5, string, 'user review state') was dropped in {dropped} on {} by Grace Hopper",
        date_days_ago(10)
    );
    assert!(message.contains(&expected), "{message}\nwanted: {expected}");
}

#[test]
fn name_reuse_outside_its_window_is_a_warning() {
    let (lake, dropped) = lake_where_status_was_dropped(
        45,
        &format!("{CONFIG}rules:\n  name-reuse: {{severity: error, window-days: 30}}\n"),
    );
    lake.write(
        "migrations/0001_status.sql",
        "ALTER TABLE db.orders ADD COLUMN status string COMMENT 'shipping state';\n",
    );
    lake.apply("warehouse/db/orders", &["migrations/0001_status.sql"]);
    lake.commit("re-add status", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
    let found = diagnostics(&report);
    let reuse = found.iter().find(|f| f.0 == "name-reuse").unwrap();
    assert_eq!(reuse.1, "warning");
    assert!(reuse.2.contains(&dropped), "{}", reuse.2);
    assert!(
        reuse.2.contains("(45 days ago, outside the 30-day window)"),
        "{}",
        reuse.2
    );
}

#[test]
fn metadata_not_regenerated_is_caught_with_the_command_to_run() {
    let lake = lake_with_tables();
    lake.write_vip_level();
    lake.commit("add vip_level, forgot apply", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1));
    let drift = &report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "metadata-drift")
        .cloned()
        .unwrap_or_else(|| panic!("{report:#}"));
    let message = drift["message"].as_str().unwrap();
    assert!(
        message.contains("does not include this change"),
        "{message}"
    );
    assert!(message.contains("still at schema 3"), "{message}");
    assert_eq!(
        drift["help"],
        "run `fieldgate apply --write --metadata warehouse/db/events migrations/0001_vip.sql` and commit the metadata it writes"
    );
    // Following the help fixes it.
    lake.apply("warehouse/db/events", &["migrations/0001_vip.sql"]);
    lake.commit("apply", 0, "Bob");
    assert_eq!(lake.check_json().0, Some(0));
}

#[test]
fn stale_metadata_names_the_migrations_still_to_apply() {
    let lake = lake_with_tables();
    lake.add_vip_level("warehouse/db/events");
    lake.write(
        "migrations/0002_tier.sql",
        "ALTER TABLE db.events ADD COLUMN tier string;\n",
    );
    lake.commit("two migrations, one applied", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1));
    let drift = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "metadata-drift")
        .cloned()
        .unwrap_or_else(|| panic!("{report:#}"));
    assert!(
        drift["message"]
            .as_str()
            .unwrap()
            .contains("stale: it holds the first 1 of 2 statements"),
        "{drift:#}"
    );
    assert_eq!(
        drift["help"],
        "apply the rest: run `fieldgate apply --write --metadata warehouse/db/events migrations/0002_tier.sql` and commit the metadata it writes"
    );
}

#[test]
fn hand_edited_metadata_is_caught() {
    let lake = lake_with_tables();
    lake.add_vip_level("warehouse/db/events");
    // Someone "fixes" the type in the JSON instead of writing a migration.
    let file = "warehouse/db/events/metadata/v10.metadata.json";
    let written = lake.read(file);
    let edited = written.replacen(
        r#""name":"vip_level","type":"int""#,
        r#""name":"vip_level","type":"long""#,
        1,
    );
    assert_ne!(written, edited, "the edit applies to what apply wrote");
    lake.write(file, &edited);
    lake.commit("vip_level as long", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1));
    let found = diagnostics(&report);
    let drift = found
        .iter()
        .find(|f| f.0 == "metadata-drift")
        .unwrap_or_else(|| panic!("{found:?}"));
    assert!(
        drift
            .2
            .contains("`vip_level` (field id 25) is of type long in the metadata"),
        "{}",
        drift.2
    );
}

#[test]
fn metadata_changed_without_a_migration_is_caught() {
    let lake = lake_with_tables();
    // `accounts` rolled back to pyiceberg's v1 (v2 only added a doc) by hand, with no migration.
    lake.table("accounts", "warehouse/db/accounts", 1);
    lake.write("warehouse/db/accounts/metadata/version-hint.text", "1\n");
    lake.git(&[
        "rm",
        "-q",
        "warehouse/db/accounts/metadata/v2.metadata.json",
    ]);
    lake.commit("roll accounts back by hand", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    let found = diagnostics(&report);
    let drift = found
        .iter()
        .find(|f| f.0 == "metadata-drift")
        .unwrap_or_else(|| panic!("{found:?}"));
    assert!(
        drift
            .2
            .contains("changed, but no migration in this change says so"),
        "{}",
        drift.2
    );
}

/// A repository to clone from: `pr` adds `vip_level` with its metadata; `main` is checked out,
/// so that, as on GitHub, the remote's HEAD is its default branch.
fn origin_with_a_pr() -> Lake {
    let origin = lake_with_tables();
    origin.add_vip_level("warehouse/db/events");
    origin.commit("add vip_level", 0, "Ada");
    origin.git(&["checkout", "-q", "main"]);
    origin
}

#[test]
fn a_shallow_clone_without_the_base_says_how_to_fetch_it() {
    let origin = origin_with_a_pr();
    let clones = tempfile::tempdir().unwrap();
    let url = format!("file://{}", origin.path().display());
    Lake::git_in(
        clones.path(),
        &[
            "clone", "-q", "--depth", "1", "--branch", "pr", &url, "shallow",
        ],
        0,
        "CI",
    );
    let clone = Lake { dir: clones };
    let shallow = clone.path().join("shallow");
    for env in [&[][..], &[("GITHUB_BASE_REF", "main")][..]] {
        let output = fieldgate_in(&shallow, &["check"], env);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("shallow clone"), "{stderr}");
        assert!(stderr.contains("`fetch-depth: 0`"), "{stderr}");
        assert!(stderr.contains("`git fetch origin main`"), "{stderr}");
        assert!(text(&output.stdout).is_empty(), "no verdict without a base");
    }
}

#[test]
fn a_statement_for_a_table_not_in_the_config_is_a_located_error() {
    let lake = lake_with_tables();
    lake.write(
        "migrations/0001.sql",
        "-- a typo in the table name\nALTER TABLE db.order ADD COLUMN x int;\n",
    );
    lake.refused(
        &["check"],
        &[
            "`db.order` is not a table of fieldgate.yaml",
            "did you mean `db.orders`?",
            "migrations/0001.sql:2:13",
        ],
    );
}

#[test]
fn configuration_errors_are_located() {
    let lake = lake_with_tables();
    lake.write(
        "fieldgate.yaml",
        "tables:\n  db.orders:\n    metadata: warehouse/db/ordres\n  db.far:\n    metadata: ../elsewhere\nproposals: [migrations/*.sql]\n",
    );
    lake.commit("bad config", 0, "Bob");
    lake.refused(
        &["check"],
        &[
            "`warehouse/db/ordres` does",
            "`../elsewhere` points outside the repository",
        ],
    );
}

#[test]
fn a_drop_needs_its_deprecation_period_from_git_history() {
    let lake = Lake::new();
    lake.write(
        "fieldgate.yaml",
        "tables:\n  db.accounts:\n    metadata: warehouse/db/accounts\nproposals: [migrations/*.sql]\nrules:\n  column-drop: {require-deprecation-days: 30}\n",
    );
    // v1 as created 60 days ago; v2 (pyiceberg marked `legacy_score` deprecated) 40 days ago.
    lake.table("accounts", "warehouse/db/accounts", 1);
    lake.commit("accounts", 60, "Ada");
    lake.table("accounts", "warehouse/db/accounts", 2);
    lake.commit("deprecate legacy_score", 40, "Ada");
    lake.git(&["checkout", "-q", "-b", "pr"]);
    lake.write(
        "migrations/0001_drop.sql",
        "ALTER TABLE db.accounts DROP COLUMN legacy_score;\n",
    );
    lake.apply("warehouse/db/accounts", &["migrations/0001_drop.sql"]);
    lake.commit("drop legacy_score", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
    let drop = diagnostics(&report)
        .into_iter()
        .find(|f| f.0 == "column-drop")
        .unwrap();
    assert_eq!(drop.1, "warning");
    assert!(drop.2.contains("(40 days, 30 required)"), "{}", drop.2);

    // `segment` never carried the mark: an error.
    lake.write(
        "migrations/0002_drop.sql",
        "ALTER TABLE db.accounts DROP COLUMN segment;\n",
    );
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1));
    let errors: Vec<_> = diagnostics(&report)
        .into_iter()
        .filter(|f| f.0 == "column-drop" && f.1 == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{report:#}");
    assert!(
        errors[0].2.contains("does not carry the mark `deprecated`"),
        "{}",
        errors[0].2
    );
}

#[test]
fn a_thousand_tables_and_a_change_to_one() {
    let lake = Lake::new();
    let mut config = String::from("tables:\n");
    let source = fixtures().join("users/metadata/v5.metadata.json");
    let metadata = fs::read_to_string(source).unwrap();
    for i in 0..1000 {
        config.push_str(&format!(
            "  lake.t{i:04}:\n    metadata: warehouse/lake/t{i:04}\n"
        ));
        lake.write(
            &format!("warehouse/lake/t{i:04}/metadata/v5.metadata.json"),
            &metadata,
        );
        lake.write(
            &format!("warehouse/lake/t{i:04}/metadata/version-hint.text"),
            "5\n",
        );
    }
    config.push_str("proposals:\n  - migrations/**/*.sql\n");
    lake.write("fieldgate.yaml", &config);
    lake.commit("a thousand tables", 5, "Ada");
    lake.git(&["checkout", "-q", "-b", "pr"]);
    lake.write(
        "migrations/0001.sql",
        "ALTER TABLE lake.t0042 ADD COLUMN vip_level int COMMENT 'tier';\n",
    );
    lake.apply("warehouse/lake/t0042", &["migrations/0001.sql"]);
    lake.commit("one table changes", 0, "Bob");

    let started = Instant::now();
    let output = lake.fieldgate(&["check"]);
    let elapsed = started.elapsed();
    let out = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{out}{}",
        text(&output.stderr)
    );
    assert!(out.contains("1 of 1000 tables touched"), "{out}");
    // Generous for a debug build on a busy runner; the benchmark issue measures it properly.
    assert!(elapsed < Duration::from_secs(20), "check took {elapsed:?}");
}

#[test]
fn init_writes_a_configuration_that_check_runs_with() {
    let lake = Lake::new();
    lake.table("orders", "warehouse/db/orders", 5);
    lake.table("events", "warehouse/db.db/events", 9);
    lake.write("migrations/.keep", "");
    lake.write("migrations/0000_readme.sql", "-- migrations live here\n");
    let output = lake.fieldgate(&["init"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let out = text(&output.stdout);
    assert!(out.contains("db.orders: warehouse/db/orders"), "{out}");
    assert!(out.contains("db.events: warehouse/db.db/events"), "{out}");
    let config = lake.read("fieldgate.yaml");
    assert!(config.contains("  - migrations/**/*.sql\n"), "{config}");
    // A second run does not overwrite it.
    let again = lake.fieldgate(&["init"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again.stderr).contains("--force"));

    lake.commit("tables", 3, "Ada");
    lake.git(&["checkout", "-q", "-b", "pr"]);
    lake.write(
        "migrations/0001.sql",
        "ALTER TABLE db.events ADD COLUMN vip_level int COMMENT 'tier';\n",
    );
    lake.apply("warehouse/db.db/events", &["migrations/0001.sql"]);
    lake.commit("vip", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
}

#[test]
fn a_table_created_by_the_change_needs_its_metadata_written() {
    let lake = lake_with_tables();
    lake.write(
        "fieldgate.yaml",
        &CONFIG.replace(
            "tables:\n",
            "tables:\n  db.shipments:\n    metadata: warehouse/db/shipments\n",
        ),
    );
    lake.write(
        "migrations/0001_shipments.sql",
        "CREATE TABLE db.shipments (id bigint NOT NULL, state string COMMENT 'shipping state') USING iceberg;\n",
    );
    lake.commit("new table, metadata not written", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    let drift = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "metadata-drift")
        .cloned()
        .unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!(
        drift["help"],
        "run `fieldgate apply -o warehouse/db/shipments/metadata/v1.metadata.json migrations/0001_shipments.sql` and commit the metadata it writes"
    );
    let output = lake.fieldgate(&[
        "apply",
        "-o",
        "warehouse/db/shipments/metadata/v1.metadata.json",
        "migrations/0001_shipments.sql",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    lake.commit("write it", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
}

#[test]
fn an_explicit_base_is_used_and_a_missing_one_is_an_error() {
    let lake = lake_with_tables();
    lake.write_narrowing();
    lake.commit("narrow", 0, "Bob");
    // Judged against the PR's own tip, the change is already in the base: nothing to judge.
    let output = lake.fieldgate(&["check", "--base", "pr"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("0 proposal files; 0 of 3 tables touched"));
    let output = lake.fieldgate(&["check", "--base", "origin/release"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("tried `origin/release`"), "{stderr}");
    assert!(stderr.contains("`git fetch origin release`"), "{stderr}");
}

#[test]
fn summary_sarif_and_json_are_written_besides_the_main_report() {
    let lake = lake_with_tables();
    lake.write_narrowing();
    lake.commit("narrow", 0, "Bob");
    let reports = tempfile::tempdir().unwrap();
    let summary = reports.path().join("summary.md");
    let sarif = reports.path().join("fieldgate.sarif");
    let json = reports.path().join("report.json");
    let output = lake.fieldgate(&[
        "check",
        "--format",
        "github",
        "--summary",
        summary.to_str().unwrap(),
        "--sarif",
        sarif.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let annotations = text(&output.stdout);
    assert!(
        annotations.contains("::error file=migrations/0001_narrow.sql,line=1"),
        "{annotations}"
    );
    let markdown = fs::read_to_string(&summary).unwrap();
    assert!(markdown.contains("type-narrowing"), "{markdown}");
    assert!(markdown.contains("db.orders"), "{markdown}");
    let document: serde_json::Value = serde_json::from_slice(&fs::read(&sarif).unwrap()).unwrap();
    assert_eq!(document["version"], "2.1.0");
    let results = document["runs"][0]["results"].as_array().unwrap();
    assert!(
        results.iter().any(|r| r["ruleId"] == "type-narrowing"),
        "{document:#}"
    );
    let (code, stdout_report) = lake.check_json();
    assert_eq!(code, Some(1));
    let file_report: serde_json::Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    assert_eq!(
        file_report, stdout_report,
        "--json FILE is the --format json report"
    );

    // When check cannot run, the side reports still say why (an upload step finds a file).
    fs::remove_file(&sarif).unwrap();
    let output = lake.fieldgate(&[
        "check",
        "--base",
        "origin/nowhere",
        "--format",
        "json",
        "--sarif",
        sarif.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["passed"], false);
    assert!(sarif.is_file());
    let file_report: serde_json::Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    assert_eq!(file_report, report);
}

#[test]
fn a_schema_file_proposal_is_judged_against_the_base_table() {
    let lake = lake_with_schema_files();
    // The desired state: `risk_score` added, `segment` dropped; the metadata not regenerated.
    let schema = "table: db.accounts\nfields:\n  - {id: 1, name: account_id, type: long, required: true}\n  - {id: 2, name: email, type: string}\n  - {id: 3, name: legacy_score, type: int, doc: \"deprecated: use risk_score; risk score, old model\"}\n  - {name: risk_score, type: double, doc: risk score of the new model}\nidentifier-fields: [account_id]\n";
    lake.write("schemas/accounts.yaml", schema);
    lake.commit("accounts as the team wants it", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    let changes: Vec<(&str, &str)> = report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["kind"].as_str().unwrap(), c["path"].as_str().unwrap()))
        .collect();
    assert!(changes.contains(&("add", "risk_score")), "{changes:?}");
    assert!(changes.contains(&("drop", "segment")), "{changes:?}");
    let found = rules(&report);
    assert!(found.contains(&"column-drop".to_string()), "{found:?}");
    assert!(found.contains(&"metadata-drift".to_string()), "{found:?}");
    let drift = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "metadata-drift")
        .unwrap();
    assert_eq!(
        drift["help"],
        "run `fieldgate apply --write --metadata warehouse/db/accounts schemas/accounts.yaml` and commit the metadata it writes"
    );
}

/// `lake_with_tables`, with schema files under `schemas/` as proposals too.
fn lake_with_schema_files() -> Lake {
    let lake = lake_with_tables();
    lake.write(
        "fieldgate.yaml",
        &CONFIG.replace(
            "proposals:\n  - migrations/**/*.sql\n",
            "proposals:\n  - migrations/**/*.sql\n  - schemas/*.yaml\n",
        ),
    );
    lake
}

#[test]
fn ids_apply_wrote_into_a_schema_file_are_the_new_fields() {
    let lake = lake_with_schema_files();
    let schema = "table: db.accounts\nfields:\n  - {id: 1, name: account_id, type: long, required: true}\n  - {id: 2, name: email, type: string}\n  - {id: 3, name: legacy_score, type: int, doc: \"deprecated: use risk_score; risk score, old model\"}\n  - {id: 4, name: segment, type: string}\n  - {name: risk_score, type: double, doc: risk score of the new model}\n  - name: scores\n    type: {list: {struct: [{name: model, type: string}, {name: by_day, type: \"map<date, double>\"}]}}\nidentifier-fields: [account_id]\n";
    lake.write("schemas/accounts.yaml", schema);
    lake.apply("warehouse/db/accounts", &["schemas/accounts.yaml"]);
    let written = lake.read("schemas/accounts.yaml");
    assert!(
        written.contains("{id: 5, name: risk_score,") && written.contains("key-id: 10"),
        "{written}"
    );
    lake.commit("risk scores", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(rules(&report), ["reader-cache-refresh"], "{report:#}");
    let added: Vec<(&str, i64)> = report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["path"].as_str().unwrap(), c["field_id"].as_i64().unwrap()))
        .collect();
    assert_eq!(added, [("risk_score", 5), ("scores", 6)]);

    // `lint` agrees: against the base's metadata the file adds them with those ids; against
    // the table as apply left it, it changes nothing.
    for (metadata, expected) in [
        (
            "warehouse/db/accounts/metadata/v2.metadata.json",
            "db.accounts: schema 1 -> 2, last-column-id 4 -> 11",
        ),
        (
            "warehouse/db/accounts",
            "passed: 0 errors, 0 warnings, 0 notes",
        ),
    ] {
        let output = lake.fieldgate(&["lint", "schemas/accounts.yaml", "--metadata", metadata]);
        let out = text(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{out}{}",
            text(&output.stderr)
        );
        assert!(out.contains(expected), "{out}");
    }

    // Ids edited by hand are not what apply assigns: a finding at each, naming the right id.
    lake.write(
        "schemas/accounts.yaml",
        &written.replace("{id: 5, name: risk_score,", "{id: 12, name: risk_score,"),
    );
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    let unknown: Vec<&serde_json::Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "unknown-field")
        .collect();
    assert_eq!(unknown.len(), 1, "{report:#}");
    assert!(
        unknown[0]["message"]
            .as_str()
            .unwrap()
            .contains("`risk_score` has id 12, but the table has no field with that id, and `apply` assigns this new field id 5"),
        "{report:#}"
    );
    assert_eq!(unknown[0]["location"]["file"], "schemas/accounts.yaml");
    assert_eq!(unknown[0]["location"]["line"], 7);
    assert_eq!(
        unknown[0]["help"],
        "write `id: 5`, or leave the id out: `fieldgate apply --write` writes the ids it assigns into the file"
    );
}

#[test]
fn a_metadata_file_is_a_proposal_for_lint_and_a_table_s_own_metadata_is_none() {
    let lake = lake_with_tables();
    lake.write(
        "fieldgate.yaml",
        &CONFIG.replace(
            "proposals:\n  - migrations/**/*.sql\n",
            "proposals:\n  - migrations/**/*.sql\n  - \"**/*.json\"\n",
        ),
    );
    lake.commit("broad proposals", 0, "Ada");
    // A JSON schema file and the metadata `apply --write` writes for it: the glob matches both,
    // and the table's own metadata is compared, not judged as a proposal.
    let schema = "{\"table\": \"db.accounts\", \"fields\": [\n  {\"id\": 1, \"name\": \"account_id\", \"type\": \"long\", \"required\": true},\n  {\"id\": 2, \"name\": \"email\", \"type\": \"string\"},\n  {\"id\": 3, \"name\": \"legacy_score\", \"type\": \"int\", \"doc\": \"deprecated: use risk_score; risk score, old model\"},\n  {\"id\": 4, \"name\": \"segment\", \"type\": \"string\"},\n  {\"name\": \"tier\", \"type\": \"int\"}\n], \"identifier-fields\": [\"account_id\"]}\n";
    lake.write("schemas/accounts.json", schema);
    lake.apply("warehouse/db/accounts", &["schemas/accounts.json"]);
    lake.commit("tier", 0, "Bob");
    let output = lake.fieldgate(&["check"]);
    let out = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{out}{}",
        text(&output.stderr)
    );
    assert!(
        out.contains("1 proposal file; 1 of 3 tables touched"),
        "{out}"
    );

    // An engine-written metadata file elsewhere: `lint`'s job, and the error says how.
    let engine = fs::read_to_string(fixtures().join("events/metadata/v9.metadata.json")).unwrap();
    lake.write("proposals/events.metadata.json", &engine);
    let output = lake.fieldgate(&["check"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("proposals/events.metadata.json:1:1"),
        "{stderr}"
    );
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(2));
    assert_eq!(report["passed"], false, "{report:#}");
    let error = &report["errors"][0];
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("is Iceberg table metadata: a metadata file names no table"),
        "{report:#}"
    );
    assert!(
        error["help"]
            .as_str()
            .unwrap()
            .contains("`fieldgate lint --metadata TABLE proposals/events.metadata.json`"),
        "{report:#}"
    );
}

#[test]
fn a_shallow_clone_with_the_base_but_not_the_merge_base_says_how_to_fetch_it() {
    let origin = origin_with_a_pr();
    // Main moves on after the branch point, so its tip is not the merge base.
    origin.write("README.md", "the lake\n");
    origin.commit("readme", 0, "Ada");
    let clones = tempfile::tempdir().unwrap();
    let url = format!("file://{}", origin.path().display());
    // Both branches, one commit each: `origin/main` is there, their common history is not.
    Lake::git_in(
        clones.path(),
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            "--no-single-branch",
            "--branch",
            "pr",
            &url,
            "shallow",
        ],
        0,
        "CI",
    );
    let shallow = clones.path().join("shallow");
    let branches = Lake::git_in(&shallow, &["branch", "-r"], 0, "CI");
    assert!(text(&branches.stdout).contains("origin/main"));
    for env in [&[][..], &[("GITHUB_BASE_REF", "main")][..]] {
        let output = fieldgate_in(&shallow, &["check", "--format", "json"], env);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("share no commit in this shallow clone"),
            "{stderr}"
        );
        assert!(stderr.contains("`fetch-depth: 0`"), "{stderr}");
        assert!(
            stderr.contains("`git fetch --unshallow origin main`"),
            "{stderr}"
        );
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["passed"], false, "no verdict without a base");
        assert!(report["diagnostics"].as_array().unwrap().is_empty());
    }
}

/// A directory outside the repository with a table (the events fixture) and a migration in it:
/// what a link out of the repository would let `check` read.
#[cfg(unix)]
fn outside_the_repository() -> tempfile::TempDir {
    let outside = tempfile::tempdir().unwrap();
    let metadata = outside.path().join("events/metadata");
    fs::create_dir_all(&metadata).unwrap();
    fs::copy(
        fixtures().join("events/metadata/v9.metadata.json"),
        metadata.join("v9.metadata.json"),
    )
    .unwrap();
    fs::write(metadata.join("version-hint.text"), "9\n").unwrap();
    fs::write(
        outside.path().join("secret.sql"),
        "ALTER TABLE db.events ADD COLUMN from_outside int;\n",
    )
    .unwrap();
    outside
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) {
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[cfg(unix)]
#[test]
fn links_out_of_the_repository_are_errors_never_reads() {
    let outside = outside_the_repository();
    let exit_2 = |lake: &Lake, expected: &[&str]| {
        let output = lake.refused(&["check"], expected);
        let stderr = text(&output.stderr);
        assert!(!stderr.contains("from_outside"), "{stderr}");
        assert!(text(&output.stdout).is_empty());
    };

    // A table directory that is a link out, committed at the base.
    let lake = Lake::new();
    lake.write(
        "fieldgate.yaml",
        "tables:\n  db.events:\n    metadata: warehouse/db/events\nproposals: [migrations/*.sql]\n",
    );
    symlink(
        &outside.path().join("events"),
        &lake.path().join("warehouse/db/events"),
    );
    lake.commit("events, elsewhere", 1, "Ada");
    lake.git(&["checkout", "-q", "-b", "pr"]);
    lake.write(
        "migrations/0001.sql",
        "ALTER TABLE db.events ADD COLUMN vip int;\n",
    );
    exit_2(
        &lake,
        &[
            "the metadata of `db.events`: `warehouse/db/events` leads outside",
            "in the base commit",
            "fieldgate.yaml:3:15",
        ],
    );

    // The same through a relative link that climbs above the root.
    let lake = Lake::new();
    lake.write(
        "fieldgate.yaml",
        "tables:\n  db.events:\n    metadata: warehouse/db/events\nproposals: [migrations/*.sql]\n",
    );
    let sibling = Path::new("../../..")
        .join(outside.path().file_name().unwrap())
        .join("events");
    assert_eq!(lake.path().parent(), outside.path().parent());
    symlink(&sibling, &lake.path().join("warehouse/db/events"));
    lake.commit("events, next door", 1, "Ada");
    lake.git(&["checkout", "-q", "-b", "pr"]);
    lake.write(
        "migrations/0001.sql",
        "ALTER TABLE db.events ADD COLUMN vip int;\n",
    );
    exit_2(
        &lake,
        &["`warehouse/db/events` leads outside", "fieldgate.yaml:3:15"],
    );

    // A metadata version the branch adds as a link out, beside the real ones.
    let lake = lake_with_tables();
    symlink(
        &outside.path().join("events/metadata/v9.metadata.json"),
        &lake
            .path()
            .join("warehouse/db/events/metadata/v10.metadata.json"),
    );
    lake.write("warehouse/db/events/metadata/version-hint.text", "10\n");
    lake.commit("metadata from elsewhere", 0, "Bob");
    exit_2(
        &lake,
        &["v10.metadata.json` leads outside", "fieldgate.yaml:5:15"],
    );

    // A migration that is a link out.
    let lake = lake_with_tables();
    symlink(
        &outside.path().join("secret.sql"),
        &lake.path().join("migrations/0001.sql"),
    );
    exit_2(
        &lake,
        &["`migrations/0001.sql` leads outside the repository"],
    );

    // The configuration as a link out.
    fs::write(outside.path().join("fieldgate.yaml"), CONFIG).unwrap();
    fs::remove_file(lake.path().join("fieldgate.yaml")).unwrap();
    symlink(
        &outside.path().join("fieldgate.yaml"),
        &lake.path().join("fieldgate.yaml"),
    );
    exit_2(&lake, &["is outside the repository"]);
}

#[cfg(unix)]
#[test]
fn links_inside_the_repository_are_followed_at_the_base_and_in_the_working_tree() {
    let lake = lake_with_tables();
    lake.git(&["checkout", "-q", "main"]);
    lake.write(
        "fieldgate.yaml",
        &CONFIG.replace("metadata: warehouse/db/events", "metadata: current/events"),
    );
    symlink(
        Path::new("../warehouse/db"),
        &lake.path().join("current/db"),
    );
    symlink(Path::new("db/events"), &lake.path().join("current/events"));
    lake.commit("events through links", 1, "Ada");
    lake.git(&["checkout", "-q", "-B", "pr"]);
    lake.add_vip_level("current/events");
    lake.commit("vip", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(report["changes"][0]["field_id"], 25, "{report:#}");
}

#[test]
fn configuration_paths_out_of_the_repository_are_located_errors() {
    let lake = lake_with_tables();
    lake.write(
        "lake/fieldgate.yaml",
        "tables:\n  db.events:\n    metadata: /etc\n  db.orders:\n    metadata: ../../elsewhere\nproposals:\n  - ../migrations/*.sql\n  - ../../../x/*.sql\n  - /etc/*.sql\n",
    );
    lake.commit("a config in a subdirectory", 0, "Bob");
    lake.refused(
        &["check", "--config", "lake/fieldgate.yaml"],
        &[
            "`../../../x/*.sql` points outside the repository",
            "lake/fieldgate.yaml:8:5",
            "`/etc/*.sql` is an absolute path",
            "lake/fieldgate.yaml:9:5",
        ],
    );
    // `../migrations/*.sql` climbs out of `lake/` but stays in the repository: it is fine, and
    // with the globs fixed the table paths are the errors.
    lake.write(
        "lake/fieldgate.yaml",
        "tables:\n  db.events:\n    metadata: /etc\n  db.orders:\n    metadata: ../../elsewhere\nproposals:\n  - ../migrations/*.sql\n",
    );
    lake.refused(
        &["check", "--config", "lake/fieldgate.yaml"],
        &[
            "`/etc` is an absolute path",
            "lake/fieldgate.yaml:3:15",
            "`../../elsewhere` points outside the repository",
            "lake/fieldgate.yaml:5:15",
        ],
    );
    lake.write(
        "lake/fieldgate.yaml",
        "tables:\n  db.events:\n    metadata: ../warehouse/db/events\nproposals:\n  - ../migrations/*.sql\n",
    );
    lake.add_vip_level("warehouse/db/events");
    let output = lake.fieldgate(&["check", "--config", "lake/fieldgate.yaml"]);
    let out = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{out}{}",
        text(&output.stderr)
    );
    assert!(
        out.contains("1 proposal file; 1 of 1 table touched"),
        "{out}"
    );

    // The configuration itself outside: not read.
    let outside = tempfile::tempdir().unwrap();
    let elsewhere = outside.path().join("fieldgate.yaml");
    fs::write(&elsewhere, CONFIG).unwrap();
    lake.refused(
        &["check", "--config", elsewhere.to_str().unwrap()],
        &["is outside the repository"],
    );
}

/// The `policy-relaxation` findings of a report: (severity, message, line in fieldgate.yaml).
fn relaxations(report: &serde_json::Value) -> Vec<(String, String, u64)> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "policy-relaxation")
        .map(|d| {
            assert_eq!(d["location"]["file"], "fieldgate.yaml", "{d:#}");
            (
                d["severity"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
                d["location"]["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Under the base's policy the narrowing the change commits is still an error, and the change's
/// configuration relaxes the gate in exactly one way: that finding.
fn narrowing_judged_with_one_relaxation(lake: &Lake, relaxation: &str) -> (String, String, u64) {
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    assert!(rules(&report).contains(&"type-narrowing".to_string()));
    let mut found = relaxations(&report);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].1.contains(relaxation), "{found:#?}");
    found.remove(0)
}

#[test]
fn a_pr_cannot_relax_its_own_gate() {
    let lake = lake_with_tables();
    lake.git(&["checkout", "-q", "main"]);
    lake.write("fieldgate.yaml", &format!("{CONFIG}compatibility: full\n"));
    lake.commit("full compatibility", 5, "Ada");
    lake.git(&["checkout", "-q", "-B", "pr"]);
    lake.write(
        "fieldgate.yaml",
        &format!(
            "{CONFIG}compatibility: backward\nrules:\n  type-narrowing: off\n  policy-relaxation: off\n"
        ),
    );
    lake.write_narrowing();
    lake.apply("warehouse/db/orders", &["migrations/0001_narrow.sql"]);
    lake.commit("narrow, with the rule off", 0, "Bob");

    // By default the base's fieldgate.yaml decides: the narrowing is still an error.
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    assert!(rules(&report).contains(&"type-narrowing".to_string()));
    let found = relaxations(&report);
    let expected = [
        (
            "compatibility no longer requires forward for every table",
            10,
        ),
        (
            "`type-narrowing` is turned off (was error) for every table",
            12,
        ),
        (
            "`policy-relaxation` is turned off (was warning) for every table",
            13,
        ),
    ];
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for ((severity, message, line), (what, at)) in found.iter().zip(expected) {
        assert_eq!(severity, "warning", "{message}");
        assert_eq!(*line, at, "{message}");
        assert!(
            message.starts_with(&format!(
                "fieldgate.yaml relaxes the gate: {what}; this run keeps the base's setting"
            )),
            "{message}"
        );
    }
    let human = lake.fieldgate(&["check"]);
    let out = text(&human.stdout);
    assert!(
        out.contains("tables touched\npolicy: the base's fieldgate.yaml (the change edits it; its edits apply once merged)\n\n"),
        "{out}"
    );

    // `--policy head` trusts the change: the narrowing passes, the relaxations are still shown.
    let (code, report) = lake.check_json_with(&["--policy", "head"]);
    assert_eq!(code, Some(0), "{report:#}");
    assert!(!rules(&report).contains(&"type-narrowing".to_string()));
    let found = relaxations(&report);
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(
        found[0]
            .1
            .ends_with("this run judges by it (`--policy head`)"),
        "{found:#?}"
    );
}

#[test]
fn a_table_entry_removed_by_the_pr_stays_judged_under_the_base_policy() {
    let lake = lake_with_tables();
    lake.write(
        "fieldgate.yaml",
        "tables:\n  db.events:\n    metadata: warehouse/db/events\n  db.accounts:\n    metadata: warehouse/db/accounts\n    compatibility: full\nproposals:\n  - migrations/**/*.sql\n",
    );
    lake.write_narrowing();
    lake.commit("narrow orders, out of the gate", 0, "Bob");
    let (_, _, line) = narrowing_judged_with_one_relaxation(
        &lake,
        "the entry of `db.orders` (line 2 at the base) is removed",
    );
    assert_eq!(line, 1);

    // Judged by the change's file, `db.orders` is no table at all.
    lake.refused(
        &["check", "--policy", "head"],
        &["`db.orders` is not a table of fieldgate.yaml"],
    );
}

#[test]
fn a_stricter_configuration_is_no_relaxation_and_applies_once_merged() {
    let lake = lake_with_tables();
    lake.add_vip_level("warehouse/db/events");
    lake.write(
        "fieldgate.yaml",
        &format!("{CONFIG}compatibility: full\nrules:\n  missing-doc: error\n"),
    );
    lake.commit("vip level", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
    assert!(relaxations(&report).is_empty(), "{report:#}");
    assert!(!rules(&report).contains(&"missing-doc".to_string()));
    let (code, report) = lake.check_json_with(&["--policy", "head"]);
    assert_eq!(code, Some(1), "{report:#}");
    assert!(
        diagnostics(&report)
            .iter()
            .any(|(rule, severity, _)| rule == "missing-doc" && severity == "error"),
        "{report:#}"
    );
}

#[test]
fn a_pr_that_adds_the_configuration_is_judged_by_it() {
    let lake = Lake::new();
    lake.table("orders", "warehouse/db/orders", 5);
    lake.commit("orders, no gate yet", 10, "Ada");
    lake.git(&["checkout", "-q", "-b", "pr"]);
    lake.write(
        "fieldgate.yaml",
        "tables:\n  db.orders:\n    metadata: warehouse/db/orders\nproposals: [migrations/*.sql]\nrules:\n  type-narrowing: warning\n",
    );
    lake.write_narrowing();
    lake.apply("warehouse/db/orders", &["migrations/0001_narrow.sql"]);
    lake.commit("the gate, and a narrowing", 0, "Bob");
    let output = lake.fieldgate(&["check", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert!(relaxations(&report).is_empty());
    let narrowing = diagnostics(&report)
        .into_iter()
        .find(|f| f.0 == "type-narrowing")
        .unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!(narrowing.1, "warning");
    let human = text(&lake.fieldgate(&["check"]).stdout);
    assert!(
        human.contains("policy: the change's fieldgate.yaml (the base has none)"),
        "{human}"
    );
}

#[test]
fn metadata_pyiceberg_committed_is_no_drift_though_it_drops_nameless_mapping_entries() {
    // pyiceberg's own commit of the migration (tests/interop/make_fixtures.py): the mapping entry
    // that lost `nickname` to the new field is removed, where Java and `apply` keep it nameless.
    let case = root().join("tests/fixtures/cases/name_mapping_drop_and_readd");
    let read = |name: &str| fs::read_to_string(case.join(name)).unwrap();
    let committed: serde_json::Value =
        serde_json::from_str(&read("expected.metadata.json")).unwrap();
    let mapping = committed["properties"]["schema.name-mapping.default"]
        .as_str()
        .unwrap();
    assert!(!mapping.contains("\"field-id\":4"), "{mapping}");

    let lake = Lake::new();
    lake.write(
        "fieldgate.yaml",
        "tables:\n  db.users:\n    metadata: warehouse/db/users\nproposals: [migrations/*.sql]\nrules:\n  name-reuse: warning\n",
    );
    let table = "warehouse/db/users/metadata";
    lake.write(
        &format!("{table}/v1.metadata.json"),
        &read("base.metadata.json"),
    );
    lake.write(&format!("{table}/version-hint.text"), "1\n");
    lake.commit("users", 3, "Ada");
    lake.git(&["checkout", "-q", "-b", "pr"]);
    lake.write("migrations/0001_nickname.sql", &read("change.sql"));
    lake.write(
        &format!("{table}/v2.metadata.json"),
        &read("expected.metadata.json"),
    );
    lake.write(&format!("{table}/version-hint.text"), "2\n");
    lake.commit("nickname again, committed by pyiceberg", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
    assert!(
        !rules(&report).contains(&"metadata-drift".to_string()),
        "{report:#}"
    );

    // A mapping that sends the name to the dropped field's id is still drift.
    let moved = read("expected.metadata.json").replace(
        r#"{\"names\":[\"nickname\"],\"field-id\":5}"#,
        r#"{\"names\":[\"nickname\"],\"field-id\":4}"#,
    );
    assert_ne!(moved, read("expected.metadata.json"));
    lake.write(&format!("{table}/v2.metadata.json"), &moved);
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    let drift = diagnostics(&report)
        .into_iter()
        .find(|f| f.0 == "metadata-drift")
        .unwrap_or_else(|| panic!("{report:#}"));
    assert!(drift.2.contains("the name mapping"), "{}", drift.2);
}

#[test]
fn a_migration_hidden_from_the_proposals_globs_is_still_judged() {
    let lake = lake_with_tables();
    lake.write(
        "fieldgate.yaml",
        &CONFIG.replace("migrations/**/*.sql", "reviewed/*.sql"),
    );
    lake.write_narrowing();
    lake.commit("narrow, outside the globs", 0, "Bob");
    narrowing_judged_with_one_relaxation(
        &lake,
        "`proposals` no longer lists `migrations/**/*.sql` (line 9 at the base)",
    );

    let (code, report) = lake.check_json_with(&["--policy", "head"]);
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(rules(&report), ["policy-relaxation"]);
}

/// `check` on a change that breaks `db.orders`'s committed metadata as `breaks` says, with no
/// migration: never a pass, always a metadata-drift finding that says what happened.
fn broken_orders_metadata_fails(breaks: impl FnOnce(&Lake), expected: &str) {
    let lake = lake_with_tables();
    breaks(&lake);
    lake.commit("break orders", 0, "Mallory");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    let found = diagnostics(&report);
    assert!(
        found
            .iter()
            .any(|f| f.0 == "metadata-drift" && f.1 == "error" && f.2.contains(expected)),
        "{expected}: {found:?}"
    );
}

#[test]
fn a_table_whose_metadata_the_change_removes_or_breaks_is_never_passed() {
    let v5 = "warehouse/db/orders/metadata/v5.metadata.json";
    broken_orders_metadata_fails(
        |lake| {
            lake.git(&["rm", "-q", "-r", "warehouse/db/orders"]);
        },
        "without readable Iceberg metadata",
    );
    broken_orders_metadata_fails(
        |lake| {
            let text = lake.read(v5);
            lake.write(v5, &text[..text.len() / 2]);
        },
        "without readable Iceberg metadata",
    );
    broken_orders_metadata_fails(
        |lake| {
            // A duplicate key, which readers disagree about: last wins in some, first in others.
            let text = lake.read(v5);
            lake.write(v5, &text.replacen('{', r#"{"last-column-id":3,"#, 1));
        },
        "without readable Iceberg metadata",
    );
    broken_orders_metadata_fails(
        |lake| lake.write("warehouse/db/orders/metadata/version-hint.text", "99\n"),
        "without readable Iceberg metadata",
    );
}

#[test]
fn partition_specs_sort_orders_and_format_version_edited_by_hand_are_drift() {
    let v5 = "warehouse/db/orders/metadata/v5.metadata.json";
    broken_orders_metadata_fails(
        |lake| {
            // The spec emptied, so the next change could drop `order_ts` unseen.
            let text = lake.read(v5).replacen(
                r#"{"source-id":2,"field-id":1001,"transform":"day","name":"order_ts_day"}"#,
                "",
                1,
            );
            lake.write(v5, &text);
        },
        "partition spec 1 is `unpartitioned` in the metadata, `order_ts_day=day(order_ts) (id 1001)` from the migrations",
    );
    broken_orders_metadata_fails(
        |lake| {
            // The counter moved on, so the next partition field would get id 1006, not 1002.
            let text = lake.read(v5).replacen(
                r#""last-partition-id":1001"#,
                r#""last-partition-id":1005"#,
                1,
            );
            lake.write(v5, &text);
        },
        "`last-partition-id` is 1005 in the metadata, 1001 from the migrations",
    );
    broken_orders_metadata_fails(
        |lake| {
            // Back to the old spec: new data is written partitioned by `region` again.
            let text =
                lake.read(v5)
                    .replacen(r#""default-spec-id":1"#, r#""default-spec-id":0"#, 1);
            lake.write(v5, &text);
        },
        "`default-spec-id` is 0 in the metadata, 1 from the migrations",
    );
    broken_orders_metadata_fails(
        |lake| {
            // A second sort order, made the default by hand.
            let order = r#"{"order-id":1,"fields":[{"source-id":4,"transform":"identity","direction":"asc","null-order":"nulls-first"}]}"#;
            let added = format!(
                "{order},{}",
                order
                    .replace(r#""order-id":1"#, r#""order-id":2"#)
                    .replace("asc", "desc")
            );
            let text = lake.read(v5).replacen(order, &added, 1).replacen(
                r#""default-sort-order-id":1"#,
                r#""default-sort-order-id":2"#,
                1,
            );
            assert!(text.contains(r#""order-id":2"#));
            lake.write(v5, &text);
        },
        "`default-sort-order-id` is 2 in the metadata, 1 from the migrations",
    );
    broken_orders_metadata_fails(
        |lake| {
            let text = lake
                .read(v5)
                .replacen(r#""direction":"asc""#, r#""direction":"desc""#, 1);
            lake.write(v5, &text);
        },
        "sort order 1 is `customer_id desc nulls-first` in the metadata, `customer_id asc nulls-first` from the migrations",
    );
    // Orders are told apart by id, as Java identifies them: one re-numbered (the default
    // following it), one removed, one no migration makes.
    broken_orders_metadata_fails(
        |lake| {
            let text = lake
                .read(v5)
                .replacen(r#""order-id":1"#, r#""order-id":4"#, 1)
                .replacen(
                    r#""default-sort-order-id":1"#,
                    r#""default-sort-order-id":4"#,
                    1,
                );
            lake.write(v5, &text);
        },
        "sort order 1 (`customer_id asc nulls-first`) is sort order 4 in the metadata",
    );
    broken_orders_metadata_fails(
        |lake| {
            let text = lake.read(v5).replacen(
                r#"{"order-id":1,"fields":[{"source-id":4,"transform":"identity","direction":"asc","null-order":"nulls-first"}]}"#,
                r#"{"order-id":0,"fields":[]}"#,
                1,
            );
            lake.write(v5, &text);
        },
        "sort order 1 (`customer_id asc nulls-first`) is missing from the metadata",
    );
    broken_orders_metadata_fails(
        |lake| {
            let order = r#"{"order-id":1,"fields":[{"source-id":4,"transform":"identity","direction":"asc","null-order":"nulls-first"}]}"#;
            let bucketed = r#"{"order-id":2,"fields":[{"source-id":1,"transform":"bucket[16]","direction":"desc","null-order":"nulls-last"}]}"#;
            let text = lake
                .read(v5)
                .replacen(order, &format!("{order},{bucketed}"), 1);
            lake.write(v5, &text);
        },
        "sort order 2 (`bucket[16](order_id) desc nulls-last`) is in the metadata, but no migration makes it",
    );
    broken_orders_metadata_fails(
        |lake| {
            let text = lake.read(v5).replacen(
                r#""format-version":2"#,
                r#""format-version":3,"next-row-id":0"#,
                1,
            );
            lake.write(v5, &text);
        },
        "`format-version` is 3 in the metadata, 2 from the migrations",
    );
}

/// A pull request that moves where a table's metadata is, or swaps it for a link out of the
/// repository: the metadata reads the same, so no drift shows, yet readers lose the table.
/// Each is refused (exit 2) naming what moved, and nothing is written.
#[cfg(unix)]
#[test]
fn a_table_moved_unhinted_or_swapped_for_a_link_is_never_passed() {
    let refused = |lake: &Lake, expected: &[&str]| {
        let before = lake.git(&["status", "--porcelain", "--untracked-files=all"]);
        lake.refused(&["check"], expected);
        assert_eq!(
            lake.git(&["status", "--porcelain", "--untracked-files=all"]),
            before
        );
    };

    // The table directory renamed, and fieldgate.yaml pointed at the new place.
    let lake = lake_with_tables();
    lake.git(&["mv", "warehouse/db/orders", "warehouse/db/orders_moved"]);
    lake.write(
        "fieldgate.yaml",
        &CONFIG.replace("warehouse/db/orders", "warehouse/db/orders_moved"),
    );
    lake.commit("move orders", 0, "Mallory");
    refused(
        &lake,
        &[
            "the change moves the metadata of `db.orders`",
            "from `warehouse/db/orders` to",
            "fieldgate.yaml:3:15",
            "-- warehouse/db/orders`)",
        ],
    );

    // The version hint deleted: Java would fall back to the newest file, DuckDB would not.
    let lake = lake_with_tables();
    lake.git(&["rm", "-q", "warehouse/db/orders/metadata/version-hint.text"]);
    lake.commit("no hint", 0, "Mallory");
    refused(
        &lake,
        &[
            "the change deletes `warehouse/db/orders/metadata/version-hint.text`",
            "fieldgate.yaml:3:15",
            "no longer find the table",
        ],
    );

    // The current metadata file swapped for a link to a copy outside the repository.
    let outside = outside_the_repository();
    let lake = lake_with_tables();
    let v9 = lake
        .path()
        .join("warehouse/db/events/metadata/v9.metadata.json");
    fs::remove_file(&v9).unwrap();
    symlink(
        &outside.path().join("events/metadata/v9.metadata.json"),
        &v9,
    );
    lake.commit("events from elsewhere", 0, "Mallory");
    refused(&lake, &["v9.metadata.json` leads outside"]);
}

/// A migration applied at the base, moved to another directory by the change: it is a new
/// proposal whose statements the table already holds, never a silent pass.
#[test]
fn a_migration_moved_to_another_place_is_judged_again() {
    let lake = lake_with_tables();
    lake.git(&["checkout", "-q", "main"]);
    lake.add_vip_level("warehouse/db/events");
    lake.commit("vip", 1, "Ada");
    lake.git(&["checkout", "-q", "-B", "pr"]);
    fs::create_dir_all(lake.path().join("migrations/orders")).unwrap();
    lake.git(&[
        "mv",
        "migrations/0001_vip.sql",
        "migrations/orders/0001_vip.sql",
    ]);
    lake.commit("moved migration", 0, "Mallory");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    let found = diagnostics(&report);
    assert!(
        found.iter().any(|f| f.1 == "error"
            && f.2
                .contains("Cannot add column, name already exists: vip_level")),
        "{found:?}"
    );
}

/// The migration-edit findings: (severity, message, the text they point at).
fn edit_findings(report: &serde_json::Value, lake: &Lake) -> Vec<(String, String, String)> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "migration-edit")
        .map(|d| {
            let location = &d["location"];
            let pointed = match (location["file"].as_str(), location["offset"].as_u64()) {
                (Some(file), Some(offset)) => {
                    let text = fs::read_to_string(lake.path().join(file)).unwrap();
                    let len = location["length"].as_u64().unwrap_or(0);
                    text[offset as usize..(offset + len) as usize].to_string()
                }
                _ => "<nowhere>".to_string(),
            };
            (
                d["severity"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
                pointed,
            )
        })
        .collect()
}

/// The lake with `migrations/0001_vip.sql` merged (and applied) on main, a `pr` branch on top.
fn lake_with_merged_migration(config: &str) -> Lake {
    let lake = Lake::new();
    lake.write("fieldgate.yaml", config);
    lake.table("orders", "warehouse/db/orders", 5);
    lake.table("events", "warehouse/db/events", 9);
    lake.table("accounts", "warehouse/db/accounts", 2);
    lake.commit("tables", 10, "Ada");
    lake.add_vip_level("warehouse/db/events");
    lake.commit("vip", 5, "Ada");
    lake.git(&["checkout", "-q", "-b", "pr"]);
    lake
}

#[test]
fn a_merged_migration_edited_is_a_migration_edit_at_its_first_changed_line() {
    let lake = lake_with_merged_migration(CONFIG);
    lake.write(
        "migrations/0001_vip.sql",
        "ALTER TABLE db.events ADD COLUMN vip_tier int;\n",
    );
    lake.commit("edit the merged migration", 0, "Mallory");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    let found = edit_findings(&report, &lake);
    assert_eq!(found.len(), 1, "{report:#}");
    assert_eq!(found[0].0, "error");
    let (id, date) = merged_commit(&lake);
    assert_eq!(
        found[0].1,
        format!(
            "migrations are append-only: `migrations/0001_vip.sql` was merged in {id} on {date}, and this change edits it; add a new migration instead (every table and environment that ran it keeps what the old text did)"
        ),
    );
    assert_eq!(found[0].2, "ALTER TABLE db.events ADD COLUMN vip_tier int;");
}

/// The commit that merged `migrations/0001_vip.sql` on main, and its date (UTC), as git shows them.
fn merged_commit(lake: &Lake) -> (String, String) {
    let shown = lake.git(&["log", "-1", "--format=%h %cs", "--abbrev=7", "main"]);
    let (id, date) = shown.trim().split_once(' ').unwrap();
    (id.to_string(), date.to_string())
}

#[test]
fn a_merged_migration_deleted_is_a_migration_edit() {
    let lake = lake_with_merged_migration(CONFIG);
    lake.git(&["rm", "-q", "migrations/0001_vip.sql"]);
    lake.commit("delete the merged migration", 0, "Mallory");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    let found = edit_findings(&report, &lake);
    assert_eq!(found.len(), 1, "{report:#}");
    let (id, date) = merged_commit(&lake);
    assert!(
        found[0].1.starts_with(&format!(
            "migrations are append-only: `migrations/0001_vip.sql` was merged in {id} on {date}, and this change deletes it; add a new migration instead"
        )),
        "{found:?}"
    );
}

/// `migrations/0001_vip.sql` with a column comment added to its merged statement.
const VIP_COMMENTED: &str =
    "ALTER TABLE db.events ADD COLUMN vip_level int COMMENT 'loyalty tier 1-5';\n";

#[test]
fn a_comment_added_to_a_merged_migration_is_only_a_migration_edit() {
    let lake = lake_with_merged_migration(CONFIG);
    lake.write("migrations/0001_vip.sql", VIP_COMMENTED);
    lake.commit("document the merged migration", 0, "Ada");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(rules(&report), ["migration-edit"], "{report:#}");
    assert_eq!(edit_findings(&report, &lake)[0].2, VIP_COMMENTED.trim_end());

    // Off in the base's fieldgate.yaml, the edit is not judged as a proposal either.
    let off = format!("{CONFIG}rules:\n  migration-edit: off\n");
    let lake = lake_with_merged_migration(&off);
    lake.write("migrations/0001_vip.sql", VIP_COMMENTED);
    lake.commit("document the merged migration", 0, "Ada");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
    assert!(diagnostics(&report).is_empty(), "{report:#}");
}

#[test]
fn a_dangerous_statement_added_to_a_merged_migration_fails_and_its_effect_is_drift() {
    let lake = lake_with_merged_migration(CONFIG);
    let dropping = "ALTER TABLE db.events ADD COLUMN vip_level int;\nALTER TABLE db.events DROP COLUMN vip_level;\n";
    lake.write("migrations/0001_vip.sql", dropping);
    lake.commit("drop in the merged migration", 0, "Mallory");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(rules(&report), ["migration-edit"], "{report:#}");
    assert_eq!(
        edit_findings(&report, &lake)[0].2,
        "ALTER TABLE db.events DROP COLUMN vip_level;"
    );

    // The drop carried into the committed metadata too: no migration of the change makes it.
    lake.write(
        "scratch/drop.sql",
        "ALTER TABLE db.events DROP COLUMN vip_level;\n",
    );
    lake.apply("warehouse/db/events", &["scratch/drop.sql"]);
    fs::remove_dir_all(lake.path().join("scratch")).unwrap();
    lake.commit("and in the metadata", 0, "Mallory");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    let mut found = rules(&report);
    found.sort();
    assert_eq!(found, ["metadata-drift", "migration-edit"], "{report:#}");
    assert!(
        diagnostics(&report)
            .iter()
            .any(|d| d.0 == "metadata-drift" && d.2.contains("no migration in this change says so")),
        "{report:#}"
    );
}

#[test]
fn a_new_migration_after_an_edited_merged_one_is_judged_against_the_base_table() {
    let lake = lake_with_merged_migration(CONFIG);
    lake.write("migrations/0001_vip.sql", VIP_COMMENTED);
    lake.write(
        "migrations/0002_tier.sql",
        "ALTER TABLE db.events ADD COLUMN tier int;\n",
    );
    lake.apply("warehouse/db/events", &["migrations/0002_tier.sql"]);
    lake.commit("a comment and a new migration", 0, "Ada");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    // The new column's own note, and nothing of the edited file beside its migration-edit.
    let mut found = rules(&report);
    found.sort();
    assert_eq!(
        found,
        ["migration-edit", "reader-cache-refresh"],
        "{report:#}"
    );
    let assigned = &report["tables"][0]["assigned"];
    assert_eq!(assigned.as_array().map(Vec::len), Some(1), "{report:#}");
    assert_eq!(assigned[0]["path"], "tier", "{report:#}");

    // The base's table already has vip_level: a new migration adding it again is told so.
    let lake = lake_with_merged_migration(CONFIG);
    lake.write("migrations/0001_vip.sql", VIP_COMMENTED);
    lake.write(
        "migrations/0002_again.sql",
        "ALTER TABLE db.events ADD COLUMN vip_level int;\n",
    );
    lake.commit("a comment and a repeat", 0, "Ada");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(1), "{report:#}");
    let repeats: Vec<&serde_json::Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] != "migration-edit")
        .collect();
    assert_eq!(repeats.len(), 1, "{report:#}");
    assert!(
        repeats[0]["message"]
            .as_str()
            .unwrap()
            .contains("Cannot add column, name already exists: vip_level"),
        "{report:#}"
    );
    assert_eq!(
        repeats[0]["location"]["file"], "migrations/0002_again.sql",
        "{report:#}"
    );
}

#[test]
fn a_new_migration_beside_merged_ones_is_no_edit_and_the_base_can_turn_the_rule_off() {
    let lake = lake_with_merged_migration(CONFIG);
    lake.write(
        "migrations/0002_tier.sql",
        "ALTER TABLE db.events ADD COLUMN tier int;\n",
    );
    lake.apply("warehouse/db/events", &["migrations/0002_tier.sql"]);
    lake.commit("a new migration", 0, "Ada");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
    assert!(edit_findings(&report, &lake).is_empty(), "{report:#}");

    // Off in the base's fieldgate.yaml (the deciding one): an edit is not reported.
    let off = format!("{CONFIG}rules:\n  migration-edit: off\n");
    let lake = lake_with_merged_migration(&off);
    lake.git(&["rm", "-q", "migrations/0001_vip.sql"]);
    lake.commit("squash", 0, "Ada");
    let (_, report) = lake.check_json();
    assert!(edit_findings(&report, &lake).is_empty(), "{report:#}");
}

#[test]
fn a_merged_schema_file_edited_is_how_it_proposes_and_no_migration_edit() {
    let lake = lake_with_schema_files();
    let schema = "table: db.accounts\nfields:\n  - {id: 1, name: account_id, type: long, required: true}\n  - {id: 2, name: email, type: string}\n  - {id: 3, name: legacy_score, type: int, doc: \"deprecated: use risk_score; risk score, old model\"}\n  - {id: 4, name: segment, type: string}\nidentifier-fields: [account_id]\n";
    lake.write("schemas/accounts.yaml", schema);
    lake.commit("the accounts schema file", 3, "Ada");
    lake.git(&["branch", "-f", "main"]);
    let edited = schema.replace(
        "identifier-fields",
        "  - {name: tier, type: int}\nidentifier-fields",
    );
    lake.write("schemas/accounts.yaml", &edited);
    lake.apply("warehouse/db/accounts", &["schemas/accounts.yaml"]);
    lake.commit("a tier", 0, "Bob");
    let (code, report) = lake.check_json();
    assert_eq!(code, Some(0), "{report:#}");
    assert!(edit_findings(&report, &lake).is_empty(), "{report:#}");
}
