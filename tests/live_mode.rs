//! Live mode: a catalog table with no pinned copy (`catalog:` without `metadata:`), judged by
//! `check` and routed `lint` against the live table of a real REST catalog (pyiceberg's
//! SqlCatalog behind tests/catalog/rest_server.py, over a `file:` warehouse), its history read
//! from the table's own `metadata-log`, and an unreachable or refusing catalog an exit 2 that
//! prints no secret.

mod catalog;
mod common;

use std::path::Path;
use std::process::Command;

use catalog::moto::Moto;
use catalog::{Catalog, TOKEN, TOKEN_AUTH, fieldgate, lake_config};
use common::{assert_exit, commit_all, fieldgate_in, git, text, write};

/// `db.events` with no `metadata:`, under `migrations/*.sql` proposals, then `more`.
fn live_only(uri: &str, more: &str) -> String {
    lake_config(
        uri,
        TOKEN_AUTH,
        &format!("  db.events:\n    catalog: lake\nproposals:\n  - migrations/*.sql\n{more}"),
    )
}

/// A repository whose `main` holds `config` alone, with the `feature` branch checked out and
/// holding `migration` as `migrations/001.sql`: the pull request, with nothing but the
/// migration, as a team whose engine commits to the catalog writes it.
fn pull_request(config: &str, migration: &str) -> tempfile::TempDir {
    let repo = tempfile::tempdir().expect("dir");
    let dir = repo.path();
    git(dir, &["init", "-q", "-b", "main"]);
    write(dir, "fieldgate.yaml", config);
    commit_all(dir, "live-only table");
    git(dir, &["checkout", "-q", "-b", "feature"]);
    write(dir, "migrations/001.sql", migration);
    commit_all(dir, "the migration");
    repo
}

fn check(dir: &Path, format: &str) -> std::process::Output {
    fieldgate(dir, &["check", "--base", "main", "--format", format])
}

/// Today's UTC date, as findings date a version of the table.
fn today() -> String {
    let output = Command::new("date")
        .args(["-u", "+%F"])
        .output()
        .expect("date");
    text(&output.stdout).trim().to_string()
}

#[test]
fn a_pull_requests_migration_is_judged_against_the_live_table() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let repo = pull_request(
        &live_only(&catalog.uri, ""),
        "ALTER TABLE db.events ADD COLUMN country string;\n",
    );
    let dir = repo.path();

    // The live table's last column id is 7: the new field is 8, with no metadata committed and
    // no metadata-drift asked for; plain `check` reads the catalog for a live-only table.
    let passed = check(dir, "json");
    assert_exit(&passed, 0);
    let json = text(&passed.stdout);
    assert!(json.contains("\"country\""), "{json}");
    assert!(!json.contains("metadata-drift\","), "{json}");
    let human = check(dir, "human");
    assert_exit(&human, 0);
    assert!(
        text(&human.stdout).contains("db.events"),
        "{}",
        text(&human.stdout)
    );

    // A column added outside the repository is in the live table the change is judged against:
    // the same migration now adds field 9, and one adding that column again cannot apply.
    catalog.change("add-column", &["db.events", "added_outside"]);
    let later = check(dir, "json");
    assert_exit(&later, 0);
    assert!(
        text(&later.stdout).contains("\"field_id\": 9"),
        "{}",
        text(&later.stdout)
    );
    write(
        dir,
        "migrations/002.sql",
        "ALTER TABLE db.events ADD COLUMN added_outside string;\n",
    );
    commit_all(dir, "a column the live table has");
    let exists = check(dir, "human");
    assert_exit(&exists, 1);
    let out = text(&exists.stdout);
    assert!(out.contains("added_outside"), "{out}");
    assert!(out.contains("already"), "{out}");

    // Routed `lint` judges the same way, against the live table.
    let lint = fieldgate(dir, &["lint", "migrations/001.sql"]);
    assert_exit(&lint, 0);
    let lint_both = fieldgate(dir, &["lint", "migrations/001.sql", "migrations/002.sql"]);
    assert_exit(&lint_both, 1);
    assert!(!text(&lint_both.stdout).contains(TOKEN));
}

#[test]
fn a_drop_dated_by_the_metadata_log_makes_a_later_re_add_name_reuse() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    // Spark drops `source` (field 7) through the catalog; nothing reaches the repository.
    catalog.change("drop-column", &["db.events", "source"]);
    catalog.change("add-column", &["db.events", "later"]);
    let repo = pull_request(
        &live_only(&catalog.uri, ""),
        "ALTER TABLE db.events ADD COLUMN source string;\n",
    );
    let dir = repo.path();

    let reused = check(dir, "json");
    assert_exit(&reused, 1);
    let out = text(&reused.stdout);
    assert!(out.contains("\"rule\": \"name-reuse\""), "{out}");
    // Dated by the metadata file that no longer had it, as the log records it; the catalog
    // names no author.
    let dated = format!(".metadata.json on {}.", today());
    assert!(out.contains("was dropped in 0000"), "{out}");
    assert!(out.contains(&dated), "{out}");

    // The file that dropped it gone from the warehouse: the history is cut there, with the
    // reason; the finding stands (the live table's schemas still hold the field), undated.
    let metadata_dir = catalog.warehouse().replace("file://", "") + "/db/events/metadata";
    let mut files: Vec<_> = std::fs::read_dir(&metadata_dir)
        .expect("metadata dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".metadata.json"))
        .collect();
    files.sort();
    let newest_previous = files[files.len() - 2].clone();
    let kept = std::fs::read(&newest_previous).expect("read");
    std::fs::remove_file(&newest_previous).expect("remove");
    let unreadable = check(dir, "json");
    assert_exit(&unreadable, 1);
    let (out, err) = (text(&unreadable.stdout), text(&unreadable.stderr));
    assert!(
        out.contains("\"rule\": \"name-reuse\"") && !out.contains(&dated),
        "{out}"
    );
    assert!(err.contains("cannot be read"), "{err}");
    std::fs::write(&newest_previous, kept).expect("restore");

    // Reading one previous file leaves the drop before the history: the finding stands (the
    // live table's schemas still hold the field), undated, and a note says the history was cut.
    let cut = pull_request(
        &live_only(&catalog.uri, "limits:\n  metadata-log-files: 1\n"),
        "ALTER TABLE db.events ADD COLUMN source string;\n",
    );
    let bounded = check(cut.path(), "json");
    assert_exit(&bounded, 1);
    let out = text(&bounded.stdout);
    assert!(out.contains("\"rule\": \"name-reuse\""), "{out}");
    assert!(!out.contains(&dated), "{out}");
    let err = text(&bounded.stderr);
    assert!(
        err.contains("the history of `db.events` (catalog `lake`) starts at")
            && err.contains("1 of its")
            && err.contains("`limits: metadata-log-files`"),
        "{err}"
    );
}

#[test]
fn the_metadata_log_is_read_from_s3_with_the_vended_credentials() {
    let Some(moto) = Moto::start() else {
        return;
    };
    let endpoint = moto.endpoint.as_str();
    let writer = moto.lake_bucket();
    let vended_secret = "v3nded-l0g-s3cret";
    let vend = [
        ["--vend", "s3.endpoint", endpoint],
        ["--vend", "s3.region", "us-east-1"],
        ["--vend", "s3.access-key-id", "AKIAVENDEDLOG0001"],
        ["--vend", "s3.secret-access-key", vended_secret],
    ]
    .concat();
    let Some(catalog) = Catalog::start_in(Some("s3://lake/warehouse"), &writer, &vend) else {
        return;
    };
    catalog.change("drop-column", &["db.events", "source"]);
    let repo = pull_request(
        &live_only(&catalog.uri, ""),
        "ALTER TABLE db.events ADD COLUMN source string;\n",
    );
    let reused = check(repo.path(), "json");
    assert_exit(&reused, 1);
    let out = text(&reused.stdout);
    let dated = format!(".metadata.json on {}.", today());
    assert!(
        out.contains("was dropped in 0000") && out.contains(&dated),
        "{out}"
    );

    assert!(!out.contains(vended_secret) && !text(&reused.stderr).contains(vended_secret));
}

#[test]
fn a_deprecation_mark_is_dated_by_the_metadata_log() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    catalog.change("set-doc", &["db.events", "kind", "deprecated: use source"]);
    let rules = "rules:\n  column-drop: {require-deprecation-days: 30}\n";
    let repo = pull_request(
        &live_only(&catalog.uri, rules),
        "ALTER TABLE db.events DROP COLUMN kind;\n",
    );
    let dropped = check(repo.path(), "human");
    assert_exit(&dropped, 1);
    let out = text(&dropped.stdout);
    let since = format!("marked `deprecated` only since {}", today());
    assert!(out.contains(&since), "{out}");
}

#[test]
fn an_unreachable_or_refusing_catalog_is_exit_2_and_prints_no_secret() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let migration = "ALTER TABLE db.events ADD COLUMN country string;\n";

    // Nothing listens on port 9: never a pass without the live table.
    let unreachable = pull_request(&live_only("http://127.0.0.1:9", ""), migration);
    let failed = check(unreachable.path(), "human");
    assert_exit(&failed, 2);
    let all = format!("{}{}", text(&failed.stdout), text(&failed.stderr));
    assert!(all.contains("lake"), "{all}");
    assert!(!all.contains(TOKEN), "{all}");

    // A refused token: the server's 401, named, the token not echoed.
    let refused = pull_request(&live_only(&catalog.uri, ""), migration);
    let wrong = fieldgate_in(
        refused.path(),
        &["check", "--base", "main"],
        &[("LAKE_TOKEN", "wrong-s3cret-token")],
    );
    assert_exit(&wrong, 2);
    let all = format!("{}{}", text(&wrong.stdout), text(&wrong.stderr));
    assert!(all.contains("401") || all.contains("refused"), "{all}");
    assert!(!all.contains("wrong-s3cret-token"), "{all}");

    // No credentials in the environment at all.
    let bare = fieldgate_in(refused.path(), &["check", "--base", "main"], &[]);
    assert_exit(&bare, 2);
    assert!(
        text(&bare.stderr).contains("LAKE_TOKEN"),
        "{}",
        text(&bare.stderr)
    );

    // The catalog and the table reached are the base's: a pull request pointing them elsewhere
    // changes nothing.
    let moved = pull_request(&live_only(&catalog.uri, ""), migration);
    let dir = moved.path();
    let elsewhere = "  db.events:\n    catalog: lake\n    identifier: db.elsewhere\nproposals:\n  - migrations/*.sql\n";
    write(
        dir,
        "fieldgate.yaml",
        &lake_config("http://127.0.0.1:9", TOKEN_AUTH, elsewhere),
    );
    commit_all(dir, "point the catalog elsewhere");
    assert_exit(&check(dir, "human"), 0);

    // A table with neither `metadata:` nor `catalog:` stays an error.
    let neither = pull_request(
        "tables:\n  db.events: {}\nproposals:\n  - migrations/*.sql\n",
        migration,
    );
    let error = check(neither.path(), "human");
    assert_exit(&error, 2);
    assert!(
        text(&error.stderr).contains("`db.events` has no `metadata`"),
        "{}",
        text(&error.stderr)
    );
}
