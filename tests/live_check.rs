//! `check --live` against a live REST catalog: the pull-request flow (the pinned copy pulled and
//! committed on main, a branch's migration applied to it with `apply --write`), passing while the
//! catalog is as pulled, and a `live-drift` finding once the table is changed outside the
//! repository, which plain `check` (no credentials) does not look for.

mod catalog;
mod common;

use std::fs;

use catalog::{Catalog, TOKEN};
use common::{fieldgate_in, git, text};

const ENV: &[(&str, &str)] = &[("LAKE_TOKEN", TOKEN)];

#[test]
fn check_live_passes_in_sync_and_finds_a_change_made_outside() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let repo = tempfile::tempdir().expect("dir");
    let dir = repo.path();
    fs::write(
        dir.join("fieldgate.yaml"),
        format!(
            "catalogs:\n  lake:\n    type: rest\n    uri: {}\n    token: ${{LAKE_TOKEN}}\ntables:\n  db.events:\n    catalog: lake\n    metadata: tables/db/events.metadata.json\nproposals:\n  - migrations/*.sql\n",
            catalog.uri
        ),
    )
    .expect("config");
    git(dir, &["init", "-q", "-b", "main"]);
    let pulled = fieldgate_in(dir, &["pull"], ENV);
    assert_eq!(pulled.status.code(), Some(0), "{}", text(&pulled.stderr));
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "pinned copy"]);

    git(dir, &["checkout", "-q", "-b", "feature"]);
    fs::create_dir_all(dir.join("migrations")).expect("dir");
    fs::write(
        dir.join("migrations/001.sql"),
        "ALTER TABLE db.events ADD COLUMN country string;\n",
    )
    .expect("sql");
    let applied = fieldgate_in(
        dir,
        &[
            "apply",
            "--write",
            "--metadata",
            "tables/db/events.metadata.json",
            "migrations/001.sql",
        ],
        &[],
    );
    assert_eq!(
        applied.status.code(),
        Some(0),
        "{}{}",
        text(&applied.stdout),
        text(&applied.stderr)
    );
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "add country"]);

    let live = fieldgate_in(
        dir,
        &["check", "--live", "--base", "main", "--format", "json"],
        ENV,
    );
    assert_eq!(
        live.status.code(),
        Some(0),
        "{}{}",
        text(&live.stdout),
        text(&live.stderr)
    );

    // The change's fieldgate.yaml cannot send the credentials elsewhere: the base's catalog
    // entry is the one reached.
    let config = fs::read_to_string(dir.join("fieldgate.yaml")).expect("config");
    fs::write(
        dir.join("fieldgate.yaml"),
        config.replace(&catalog.uri, "http://127.0.0.1:9"),
    )
    .expect("write");
    let elsewhere = fieldgate_in(
        dir,
        &["check", "--live", "--base", "main", "--format", "json"],
        ENV,
    );
    assert_eq!(
        elsewhere.status.code(),
        Some(0),
        "{}{}",
        text(&elsewhere.stdout),
        text(&elsewhere.stderr)
    );
    fs::write(dir.join("fieldgate.yaml"), &config).expect("restore");

    catalog.change("add-column", &["db.events", "added_outside"]);
    let drift = fieldgate_in(
        dir,
        &["check", "--live", "--base", "main", "--format", "json"],
        ENV,
    );
    assert_eq!(
        drift.status.code(),
        Some(1),
        "{}{}",
        text(&drift.stdout),
        text(&drift.stderr)
    );
    let stdout = text(&drift.stdout);
    assert!(stdout.contains("live-drift"), "{stdout}");
    assert!(
        stdout.contains("db.events: the table was changed outside the repository since it was pulled: field `added_outside` (id 8) was added, string"),
        "{stdout}"
    );
    assert!(stdout.contains("fieldgate pull db.events"), "{stdout}");
    assert!(!stdout.contains(TOKEN) && !text(&drift.stderr).contains(TOKEN));

    let github = fieldgate_in(
        dir,
        &["check", "--live", "--base", "main", "--format", "github"],
        ENV,
    );
    assert!(
        text(&github.stdout).contains("file=fieldgate.yaml,line=8"),
        "{}",
        text(&github.stdout)
    );

    let offline = fieldgate_in(dir, &["check", "--base", "main"], &[]);
    assert_eq!(
        offline.status.code(),
        Some(0),
        "{}{}",
        text(&offline.stdout),
        text(&offline.stderr)
    );
}
