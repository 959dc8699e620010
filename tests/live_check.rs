//! `check --live` against a live REST catalog: the pull-request flow (the pinned copy pulled and
//! committed on main, a branch's migration applied to it with `apply --write`), passing while the
//! catalog is as pulled, and a `live-drift` finding once the table is changed outside the
//! repository, which plain `check` (no credentials) does not look for.

mod catalog;
mod common;

use std::fs;

use catalog::{Catalog, TOKEN, fieldgate, reviewed};
use common::{assert_exit, fieldgate_in, text};

/// `check --live` against `main`, in JSON.
const LIVE: [&str; 6] = ["check", "--live", "--base", "main", "--format", "json"];

#[test]
fn check_live_passes_in_sync_and_finds_a_change_made_outside() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let repo = reviewed(&catalog, "");
    let dir = repo.path();

    let live = fieldgate(dir, &LIVE);
    assert_exit(&live, 0);

    // The change's fieldgate.yaml cannot send the credentials elsewhere: the base's catalog
    // entry is the one reached.
    let config = fs::read_to_string(dir.join("fieldgate.yaml")).expect("config");
    fs::write(
        dir.join("fieldgate.yaml"),
        config.replace(&catalog.uri, "http://127.0.0.1:9"),
    )
    .expect("write");
    let elsewhere = fieldgate(dir, &LIVE);
    assert_exit(&elsewhere, 0);
    fs::write(dir.join("fieldgate.yaml"), &config).expect("restore");

    catalog.change("add-column", &["db.events", "added_outside"]);
    let drift = fieldgate(dir, &LIVE);
    assert_exit(&drift, 1);
    let stdout = text(&drift.stdout);
    assert!(stdout.contains("live-drift"), "{stdout}");
    assert!(
        stdout.contains("db.events: the table was changed outside the repository since it was pulled: field `added_outside` (id 8) was added, string"),
        "{stdout}"
    );
    assert!(stdout.contains("fieldgate pull db.events"), "{stdout}");
    assert!(!stdout.contains(TOKEN) && !text(&drift.stderr).contains(TOKEN));

    // Nor can it point the gate at another table of the catalog: the base's entry names the
    // table the pinned copy is compared with.
    let elsewhere = config.replace(
        "    catalog: lake\n",
        "    catalog: lake\n    identifier: legacy.users\n",
    );
    fs::write(dir.join("fieldgate.yaml"), elsewhere).expect("write");
    let pointed = fieldgate(dir, &LIVE);
    let pointed_out = text(&pointed.stdout);
    assert!(
        pointed_out.contains("field `added_outside` (id 8) was added"),
        "{pointed_out}"
    );
    assert!(!pointed_out.contains("user_id"), "{pointed_out}");
    fs::write(dir.join("fieldgate.yaml"), &config).expect("restore");

    let github = fieldgate(
        dir,
        &["check", "--live", "--base", "main", "--format", "github"],
    );
    assert!(
        text(&github.stdout).contains("file=fieldgate.yaml,line=8"),
        "{}",
        text(&github.stdout)
    );

    let offline = fieldgate_in(dir, &["check", "--base", "main"], &[]);
    assert_exit(&offline, 0);
}
