//! `fieldgate push` against a live REST catalog: the approved change (a migration applied to
//! the pinned copy with `apply --write`) committed with Java SchemaUpdate's requirements, read
//! back by pyiceberg with the same field ids and its old files still scanning; `--dry-run`; a
//! concurrent change refused (by pyiceberg's own requirement checks) with nothing changed; a
//! commit whose outcome is unknown.

mod catalog;
mod common;

use std::fs;

use catalog::{Catalog, EVENTS, PINNED, TOKEN_AUTH, fieldgate, lake_config, pull_into};
use common::{assert_exit, text, write};

/// A repository with db.events pulled and `migration` applied to its pinned copy.
fn approved(catalog: &Catalog, migration: &str) -> tempfile::TempDir {
    let repo = tempfile::tempdir().expect("dir");
    let dir = repo.path();
    pull_into(dir, &lake_config(&catalog.uri, TOKEN_AUTH, EVENTS));
    write(dir, "m.sql", migration);
    let applied = fieldgate(dir, &["apply", "--write", "--metadata", PINNED, "m.sql"]);
    assert_exit(&applied, 0);
    repo
}

fn shown(catalog: &Catalog) -> serde_json::Value {
    let output = catalog.rest_tool("show", &["db.events"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("json")
}

#[test]
fn push_commits_what_was_approved_and_pyiceberg_reads_it() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let repo = approved(
        &catalog,
        "ALTER TABLE db.events ADD COLUMN country string;\n",
    );
    let before = shown(&catalog);

    let dry = fieldgate(repo.path(), &["push", "--dry-run", "--format", "json"]);
    assert_exit(&dry, 0);
    let report: serde_json::Value = serde_json::from_slice(&dry.stdout).expect("json");
    let request = &report["tables"][0]["detail"];
    assert_eq!(report["tables"][0]["status"], "dry-run");
    assert_eq!(request["requirements"][0]["type"], "assert-table-uuid");
    assert_eq!(
        request["requirements"][1],
        serde_json::json!({"type": "assert-current-schema-id", "current-schema-id": before["schema-id"]})
    );
    assert_eq!(
        request["requirements"][2],
        serde_json::json!({"type": "assert-last-assigned-field-id", "last-assigned-field-id": before["last-column-id"]})
    );
    assert_eq!(request["updates"][0]["action"], "add-schema");
    assert_eq!(
        request["updates"][1],
        serde_json::json!({"action": "set-current-schema", "schema-id": -1})
    );
    assert_eq!(shown(&catalog), before, "a dry run changed the table");

    let pushed = fieldgate(repo.path(), &["push"]);
    assert_exit(&pushed, 0);
    assert!(
        text(&pushed.stdout).contains("db.events: committed"),
        "{}",
        text(&pushed.stdout)
    );
    let after = shown(&catalog);
    assert_eq!(after["fields"]["country"], 8);
    for (name, id) in before["fields"].as_object().expect("fields") {
        assert_eq!(&after["fields"][name], id, "{name} changed id");
    }
    assert_eq!(
        after["rows"], before["rows"],
        "the old files no longer scan"
    );
    assert_eq!(
        fieldgate(repo.path(), &["pull", "--check"]).status.code(),
        Some(0)
    );
    let again = fieldgate(repo.path(), &["push"]);
    assert!(
        text(&again.stdout).contains("nothing to push"),
        "{}",
        text(&again.stdout)
    );
}

/// What the rules refuse is not pushed; with `--format json` their report is the `detail` of
/// the one document the command prints, so a script reads it whole.
#[test]
fn a_change_the_rules_refuse_is_not_pushed_and_json_stays_one_document() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let repo = approved(&catalog, "ALTER TABLE db.events DROP COLUMN source;\n");
    let dir = repo.path();
    let config = fs::read_to_string(dir.join("fieldgate.yaml")).expect("config");
    write(
        dir,
        "fieldgate.yaml",
        &format!("{config}rules:\n  column-drop: error\n"),
    );
    let before = shown(&catalog);

    let rejected = fieldgate(dir, &["push", "--format", "json"]);
    assert_exit(&rejected, 1);
    let report: serde_json::Value = serde_json::from_slice(&rejected.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", text(&rejected.stdout)));
    assert_eq!(
        report["tables"][0]["status"], "rejected-by-rules",
        "{report}"
    );
    let rules = &report["tables"][0]["detail"];
    assert_eq!(rules["passed"], false, "{report}");
    assert_eq!(rules["diagnostics"][0]["rule"], "column-drop", "{report}");
    assert_eq!(shown(&catalog), before);

    let human = fieldgate(dir, &["push"]);
    assert_exit(&human, 1);
    let stdout = text(&human.stdout);
    assert!(stdout.contains("error[column-drop]"), "{stdout}");
    assert!(stdout.contains("the rules refuse the change"), "{stdout}");
}

#[test]
fn a_table_changed_since_the_pull_is_refused_and_nothing_changes() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let repo = approved(
        &catalog,
        "ALTER TABLE db.events ADD COLUMN country string;\n",
    );
    let pinned = fs::read(repo.path().join(PINNED)).expect("pinned");

    // A change made between the pull and the push, seen by push's own LoadTable.
    catalog.change("add-column", &["db.events", "outside"]);
    let refused = fieldgate(repo.path(), &["push"]);
    assert_exit(&refused, 1);
    assert!(
        text(&refused.stdout).contains("is not the live table plus new schemas"),
        "{}",
        text(&refused.stdout)
    );
    let live = shown(&catalog);
    assert!(live["fields"].get("country").is_none());
    assert_eq!(fs::read(repo.path().join(PINNED)).expect("pinned"), pinned);

    // A change landing between push's LoadTable and its commit: pyiceberg's requirement checks
    // refuse the commit (409).
    let repo = approved(
        &catalog,
        "ALTER TABLE db.events ADD COLUMN region string;\n",
    );
    let pinned = fs::read(repo.path().join(PINNED)).expect("pinned");
    catalog.faults(r#"{"commit": ["concurrent"]}"#);
    let conflict = fieldgate(repo.path(), &["push"]);
    assert_exit(&conflict, 1);
    let stdout = text(&conflict.stdout);
    assert!(
        stdout.contains("the table changed since it was read (HTTP 409)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("pull, re-apply the migrations, re-review"),
        "{stdout}"
    );
    let live = shown(&catalog);
    assert!(live["fields"].get("region").is_none());
    assert!(live["fields"].get("concurrent_change").is_some());
    assert_eq!(fs::read(repo.path().join(PINNED)).expect("pinned"), pinned);
}

#[test]
fn a_commit_whose_outcome_is_unknown_is_exit_2_and_not_retried() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let repo = approved(
        &catalog,
        "ALTER TABLE db.events ADD COLUMN country string;\n",
    );
    catalog.faults(r#"{"commit": ["500-after-commit"]}"#);
    let unknown = fieldgate(repo.path(), &["push"]);
    assert_exit(&unknown, 2);
    assert!(
        text(&unknown.stderr).contains("whether the commit happened is unknown"),
        "{}",
        text(&unknown.stderr)
    );
    let commits = catalog
        .requests()
        .matches("\"POST\", \"path\": \"/v1/main/namespaces/db/tables/events\"")
        .count();
    assert_eq!(commits, 1, "the commit was retried");

    let repo = approved(&catalog, "ALTER TABLE db.events ADD COLUMN later string;\n");
    catalog.faults(r#"{"commit": ["drop-after-commit"]}"#);
    let dropped = fieldgate(repo.path(), &["push"]);
    assert_exit(&dropped, 2);
    assert!(
        text(&dropped.stderr).contains("the commit may or may not have happened"),
        "{}",
        text(&dropped.stderr)
    );
}
