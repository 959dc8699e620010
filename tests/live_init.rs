//! `fieldgate init --catalog` against a live REST catalog (pyiceberg's SqlCatalog behind
//! tests/catalog/rest_server.py, listing one name per page): the catalog's tables, nested
//! namespaces included, added to an existing fieldgate.yaml that keeps every line it had, then
//! pulled.

mod catalog;
mod common;

use std::fs;

use catalog::{Catalog, ENV, EVENTS, TOKEN_AUTH, lake_config};
use common::{assert_exit, fieldgate_in, text, write};

/// A catalog of db.events, legacy.users (the lake) and two tables two namespace levels down,
/// listing one name per page.
fn catalog() -> Option<Catalog> {
    let catalog = Catalog::start(&["--page-size", "1"])?;
    for table in ["sales.eu.orders", "sales.us.orders"] {
        catalog.change("create", &[table]);
    }
    Some(catalog)
}

/// A repository whose fieldgate.yaml already has db.events, a comment, and proposals after
/// `tables:`.
fn repo(catalog: &Catalog) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let tables =
        format!("{EVENTS}# migrations live beside the tables\nproposals:\n  - migrations/*.sql\n");
    let config = lake_config(&catalog.uri, TOKEN_AUTH, &tables);
    write(dir.path(), "fieldgate.yaml", &config);
    (dir, config)
}

#[test]
fn init_adds_every_table_of_the_catalog_and_pull_writes_them() {
    let Some(catalog) = catalog() else {
        return;
    };
    let (repo, before) = repo(&catalog);
    let init = fieldgate_in(repo.path(), &["init", "--catalog", "lake"], ENV);
    assert_exit(&init, 0);
    let stdout = text(&init.stdout);
    for line in [
        "catalog `lake`: 4 tables listed, 3 added to fieldgate.yaml",
        "kept     db.events (already in fieldgate.yaml)",
        "added    legacy.users: tables/legacy/users.metadata.json",
        "added    sales.eu.orders: tables/sales/eu/orders.metadata.json",
        "added    sales.us.orders: tables/sales/us/orders.metadata.json",
        "run `fieldgate pull`",
    ] {
        assert!(stdout.contains(line), "{line}: {stdout}");
    }
    // The new entries end `tables:`; every line the file had is kept, in place.
    let after = fs::read_to_string(repo.path().join("fieldgate.yaml")).expect("config");
    let entry = |name: &str, path: &str| {
        format!("  {name}:\n    catalog: lake\n    metadata: tables/{path}.metadata.json\n")
    };
    let added = [
        entry("legacy.users", "legacy/users"),
        entry("sales.eu.orders", "sales/eu/orders"),
        entry("sales.us.orders", "sales/us/orders"),
    ]
    .concat();
    assert_eq!(
        after,
        before.replacen(EVENTS, &format!("{EVENTS}{added}"), 1)
    );

    // The listing went page by page, and into the nested namespaces.
    let requests = catalog.requests();
    assert!(requests.contains("pageToken=1"), "{requests}");
    assert!(
        requests.contains("parent=sales%1Feu") || requests.contains("parent=sales"),
        "{requests}"
    );

    let pulled = fieldgate_in(repo.path(), &["pull"], ENV);
    assert_exit(&pulled, 0);
    assert!(
        repo.path()
            .join("tables/sales/us/orders.metadata.json")
            .is_file()
    );

    // Once more: nothing to add, and the file is left as it is.
    let again = fieldgate_in(repo.path(), &["init", "--catalog", "lake"], ENV);
    assert_exit(&again, 0);
    assert!(
        text(&again.stdout).contains("4 tables listed, 0 added"),
        "{}",
        text(&again.stdout)
    );
    let unchanged = fs::read_to_string(repo.path().join("fieldgate.yaml")).expect("config");
    assert_eq!(unchanged, after);
}

#[test]
fn init_takes_one_namespace_and_says_what_is_wrong() {
    let Some(catalog) = catalog() else {
        return;
    };
    let (repo, _) = repo(&catalog);
    let args = [
        "init",
        "--catalog",
        "lake",
        "--namespace",
        "sales",
        "--pinned-dir",
        "pinned/",
    ];
    let init = fieldgate_in(repo.path(), &args, ENV);
    assert_exit(&init, 0);
    let stdout = text(&init.stdout);
    assert!(stdout.contains("2 tables listed, 2 added"), "{stdout}");
    assert!(
        stdout.contains("sales.eu.orders: pinned/sales/eu/orders.metadata.json"),
        "{stdout}"
    );
    assert!(!stdout.contains("legacy.users"), "{stdout}");

    let unknown = fieldgate_in(repo.path(), &["init", "--catalog", "lakes"], ENV);
    assert_exit(&unknown, 2);
    assert!(
        text(&unknown.stderr).contains("there is no catalog `lakes`"),
        "{}",
        text(&unknown.stderr)
    );
    assert!(
        text(&unknown.stderr).contains("did you mean `lake`?"),
        "{}",
        text(&unknown.stderr)
    );

    let missing = fieldgate_in(
        repo.path(),
        &["init", "--catalog", "lake", "--namespace", "nowhere"],
        ENV,
    );
    assert_exit(&missing, 2);
    assert!(
        text(&missing.stderr).contains("nowhere"),
        "{}",
        text(&missing.stderr)
    );

    let empty = tempfile::tempdir().expect("dir");
    let none = fieldgate_in(empty.path(), &["init", "--catalog", "lake"], ENV);
    assert_exit(&none, 2);
    assert!(
        text(&none.stderr).contains("there is no fieldgate.yaml here"),
        "{}",
        text(&none.stderr)
    );
}
