//! `fieldgate pull` and `pull --check` against a live REST catalog (pyiceberg's SqlCatalog behind
//! tests/catalog/rest_server.py), with the catalog changed by pyiceberg as engines change it,
//! and the catalog misbehaving: every failure a clear exit 2 with no secret in any output.

mod catalog;
mod common;

use std::fs;
use std::process::Output;

use catalog::{CLIENT_ID, CLIENT_SECRET, Catalog, ENV, EVENTS, TOKEN, TOKEN_AUTH, lake_config};
use common::{fieldgate_in, text, write};

/// A repository whose fieldgate.yaml puts db.events and legacy.users in the catalog, reaching it
/// with `auth` (catalog properties).
fn repo(catalog: &Catalog, auth: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let users = "  users:\n    catalog: lake\n    identifier: legacy.users\n    metadata: tables/legacy/users.metadata.json\n";
    let tables = format!("{EVENTS}{users}");
    write(
        dir.path(),
        "fieldgate.yaml",
        &lake_config(&catalog.uri, auth, &tables),
    );
    dir
}

/// `db.events` with its pinned copy at `e.metadata.json`.
const EVENTS_AT_E: &str = "  db.events:\n    catalog: lake\n    metadata: e.metadata.json\n";

fn assert_no_secret(output: &Output) {
    let all = format!("{}{}", text(&output.stdout), text(&output.stderr));
    for secret in [TOKEN, CLIENT_SECRET, "wrong-secret-0042"] {
        assert!(!all.contains(secret), "a secret leaked: {all}");
    }
}

#[test]
fn pull_writes_the_live_table_and_pull_check_agrees() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let repo = repo(&catalog, TOKEN_AUTH);
    let pulled = fieldgate_in(repo.path(), &["pull"], ENV);
    assert_eq!(pulled.status.code(), Some(0), "{}", text(&pulled.stderr));
    let stdout = text(&pulled.stdout);
    assert!(
        stdout.contains("db.events: pinned copy written to tables/db/events.metadata.json"),
        "{stdout}"
    );
    assert!(stdout.contains("users: pinned copy written"), "{stdout}");

    // The pinned copy holds what pyiceberg's RestCatalog reads, field id for field id.
    let pinned: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(repo.path().join("tables/db/events.metadata.json")).expect("pinned"),
    )
    .expect("json");
    let shown = catalog.rest_tool("show", &["db.events"]);
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    let live: serde_json::Value = serde_json::from_slice(&shown.stdout).expect("show json");
    let current = pinned["current-schema-id"]
        .as_i64()
        .expect("current schema");
    let schema = pinned["schemas"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["schema-id"].as_i64() == Some(current)))
        .expect("current schema");
    let ids: serde_json::Map<String, serde_json::Value> = schema["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap_or_default().to_string(),
                f["id"].clone(),
            )
        })
        .collect();
    assert_eq!(serde_json::Value::Object(ids), live["fields"]);
    assert_eq!(schema["identifier-field-ids"], live["identifier-field-ids"]);
    assert_eq!(pinned["last-column-id"], live["last-column-id"]);
    assert_eq!(pinned["partition-specs"].as_array().map(Vec::len), Some(2));
    for churn in [
        "snapshots",
        "snapshot-log",
        "metadata-log",
        "refs",
        "current-snapshot-id",
    ] {
        assert!(pinned.get(churn).is_none(), "{churn} kept");
    }
    assert_eq!(pinned["format-version"], 2);
    let users =
        fs::read_to_string(repo.path().join("tables/legacy/users.metadata.json")).expect("users");
    assert!(users.contains("\"format-version\": 1"), "{users}");

    // The pinned copy is a table fieldgate judges.
    fs::write(
        repo.path().join("m.sql"),
        "ALTER TABLE db.events ADD COLUMN note string;\n",
    )
    .expect("sql");
    let linted = fieldgate_in(
        repo.path(),
        &[
            "lint",
            "--metadata",
            "tables/db/events.metadata.json",
            "m.sql",
        ],
        &[],
    );
    assert_eq!(
        linted.status.code(),
        Some(0),
        "{}{}",
        text(&linted.stdout),
        text(&linted.stderr)
    );

    let checked = fieldgate_in(repo.path(), &["pull", "--check"], ENV);
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stdout));
    assert!(text(&checked.stdout).contains("db.events: in sync with the catalog"));
    assert_no_secret(&pulled);
}

#[test]
fn an_append_is_no_drift_and_a_schema_change_outside_is() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let repo = repo(&catalog, TOKEN_AUTH);
    assert_eq!(
        fieldgate_in(repo.path(), &["pull"], ENV).status.code(),
        Some(0)
    );
    let path = repo.path().join("tables/db/events.metadata.json");
    let before = fs::read(&path).expect("pinned");

    catalog.change("append", &["db.events"]);
    let checked = fieldgate_in(repo.path(), &["pull", "--check"], ENV);
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stdout));
    let pulled = fieldgate_in(repo.path(), &["pull", "db.events"], ENV);
    assert_eq!(pulled.status.code(), Some(0));
    assert!(
        text(&pulled.stdout).contains("in sync"),
        "{}",
        text(&pulled.stdout)
    );
    assert_eq!(
        fs::read(&path).expect("pinned"),
        before,
        "an append rewrote the pinned copy"
    );

    catalog.change("add-column", &["db.events", "added_outside"]);
    let drift = fieldgate_in(repo.path(), &["pull", "--check", "--format", "json"], ENV);
    assert_eq!(drift.status.code(), Some(1), "{}", text(&drift.stderr));
    let report: serde_json::Value = serde_json::from_slice(&drift.stdout).expect("json");
    let events = &report["tables"][0];
    assert_eq!(events["table"], "db.events");
    assert_eq!(events["in-sync"], false);
    assert_eq!(events["written"], false);
    assert_eq!(
        events["changes"][0],
        "field `added_outside` (id 8) was added, string"
    );
    assert_eq!(report["tables"][1]["in-sync"], true);
    assert_eq!(fs::read(&path).expect("pinned"), before, "--check wrote");

    let human = fieldgate_in(repo.path(), &["pull", "--check"], ENV);
    assert!(text(&human.stdout).contains(
        "error[live-drift] db.events: the pinned copy (tables/db/events.metadata.json) is not the live table"
    ));
    let updated = fieldgate_in(repo.path(), &["pull"], ENV);
    assert_eq!(updated.status.code(), Some(0));
    assert!(
        text(&updated.stdout).contains("db.events: pinned copy updated"),
        "{}",
        text(&updated.stdout)
    );
    assert!(text(&updated.stdout).contains("  - field `added_outside` (id 8) was added, string"));
    assert_eq!(
        fieldgate_in(repo.path(), &["pull", "--check"], ENV)
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn the_server_is_faithful_to_pyicebergs_rest_client() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let proved = catalog.rest_tool("prove", &[]);
    assert!(
        proved.status.success(),
        "{}{}",
        text(&proved.stdout),
        text(&proved.stderr)
    );
    assert_eq!(text(&proved.stdout).trim(), "faithful");
}

#[test]
fn oauth2_client_credentials_get_a_token_and_a_new_one_when_it_expires() {
    // Tokens that live 30 s are stale at once under the 30 s margin: every request fetches one.
    let Some(catalog) = Catalog::start(&["--token-ttl", "30"]) else {
        return;
    };
    let repo = repo(
        &catalog,
        "    credential: ${LAKE_ID}:${LAKE_SECRET}\n    scope: catalog\n",
    );
    let env = [("LAKE_ID", CLIENT_ID), ("LAKE_SECRET", CLIENT_SECRET)];
    let pulled = fieldgate_in(repo.path(), &["pull"], &env);
    assert_eq!(pulled.status.code(), Some(0), "{}", text(&pulled.stderr));
    let requests = catalog.requests();
    assert_eq!(
        requests.matches("/v1/oauth/tokens").count(),
        3,
        "{requests}"
    );
    let seen: serde_json::Value = serde_json::from_str(&requests).expect("requests json");
    for request in seen.as_array().expect("requests") {
        let path = request["path"].as_str().unwrap_or_default();
        if path.starts_with("/v1/") && path != "/v1/oauth/tokens" {
            assert_eq!(request["authorized"], true, "{requests}");
            assert_eq!(request["delegation"], "vended-credentials", "{requests}");
        }
    }

    let wrong = fieldgate_in(
        repo.path(),
        &["pull"],
        &[("LAKE_ID", CLIENT_ID), ("LAKE_SECRET", "wrong-secret-0042")],
    );
    assert_eq!(wrong.status.code(), Some(2));
    let stderr = text(&wrong.stderr);
    assert!(stderr.contains("a token for catalog `lake`"), "{stderr}");
    assert!(stderr.contains("the catalog did not accept the credentials (HTTP 401): invalid_client: unknown client ***"), "{stderr}");
    assert_no_secret(&wrong);
}

#[test]
fn a_wrong_token_a_missing_variable_and_a_literal_secret_are_exit_2_without_the_secret() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let repo = repo(&catalog, TOKEN_AUTH);
    let wrong = fieldgate_in(
        repo.path(),
        &["pull"],
        &[("LAKE_TOKEN", "wrong-secret-0042")],
    );
    assert_eq!(wrong.status.code(), Some(2));
    assert!(
        text(&wrong.stderr).contains("the catalog did not accept the credentials (HTTP 401)"),
        "{}",
        text(&wrong.stderr)
    );
    assert_no_secret(&wrong);

    let missing = fieldgate_in(repo.path(), &["pull"], &[]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        text(&missing.stderr)
            .contains("catalog `lake`, `token`: the environment variable `LAKE_TOKEN` is not set")
    );

    let literal = tempfile::tempdir().expect("dir");
    let auth = format!("    token: {TOKEN}\n");
    write(
        literal.path(),
        "fieldgate.yaml",
        &lake_config(&catalog.uri, &auth, EVENTS_AT_E),
    );
    let refused = fieldgate_in(literal.path(), &["pull"], &[]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = text(&refused.stderr);
    assert!(
        stderr.contains("`token` of catalog `lake` is a secret written in the file"),
        "{stderr}"
    );
    assert!(stderr.contains("fieldgate.yaml:5:"), "{stderr}");
    assert!(!literal.path().join("e.metadata.json").exists());
}

#[test]
fn unavailable_is_retried_and_failures_are_clear() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let repo = repo(&catalog, TOKEN_AUTH);
    catalog.faults(r#"{"load": ["503", "429"]}"#);
    let retried = fieldgate_in(repo.path(), &["pull", "db.events"], ENV);
    assert_eq!(retried.status.code(), Some(0), "{}", text(&retried.stderr));

    catalog.faults(r#"{"load": ["500"]}"#);
    let failed = fieldgate_in(repo.path(), &["pull", "db.events"], ENV);
    assert_eq!(failed.status.code(), Some(2));
    assert!(text(&failed.stderr).contains(
        "table `db.events` of catalog `lake`: the catalog failed (HTTP 500): ServiceUnavailableException: injected 500"
    ), "{}", text(&failed.stderr));

    catalog.faults(r#"{"load": ["malformed"]}"#);
    let malformed = fieldgate_in(repo.path(), &["pull", "db.events"], ENV);
    assert_eq!(malformed.status.code(), Some(2));
    assert!(
        text(&malformed.stderr).contains("table `db.events` as catalog `lake` returned it"),
        "{}",
        text(&malformed.stderr)
    );

    let missing_table = tempfile::tempdir().expect("dir");
    let nope = "  db.nope:\n    catalog: lake\n    metadata: n.metadata.json\n";
    write(
        missing_table.path(),
        "fieldgate.yaml",
        &lake_config(&catalog.uri, TOKEN_AUTH, nope),
    );
    let absent = fieldgate_in(missing_table.path(), &["pull"], ENV);
    assert_eq!(absent.status.code(), Some(2));
    assert!(text(&absent.stderr).contains("table `db.nope` of catalog `lake`: the catalog has no such table or namespace (HTTP 404): NoSuchTableException"), "{}", text(&absent.stderr));
    assert_no_secret(&absent);
}

#[test]
fn an_unreachable_catalog_and_a_hanging_one_end_in_exit_2() {
    let Some(catalog) = Catalog::start(&[]) else {
        return;
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let closed = listener.local_addr().expect("addr").port();
    drop(listener);
    let dir = tempfile::tempdir().expect("dir");
    let uri = format!("http://127.0.0.1:{closed}");
    write(
        dir.path(),
        "fieldgate.yaml",
        &lake_config(&uri, TOKEN_AUTH, EVENTS_AT_E),
    );
    let unreachable = fieldgate_in(dir.path(), &["pull"], ENV);
    assert_eq!(unreachable.status.code(), Some(2));
    assert!(
        text(&unreachable.stderr).contains(&format!(
            "catalog `lake` at http://127.0.0.1:{closed} could not be reached"
        )),
        "{}",
        text(&unreachable.stderr)
    );

    let repo = repo(&catalog, &format!("{TOKEN_AUTH}    timeout-ms: 1500\n"));
    catalog.faults(r#"{"load": ["hang"]}"#);
    let started = std::time::Instant::now();
    let hung = fieldgate_in(repo.path(), &["pull", "db.events"], ENV);
    assert_eq!(hung.status.code(), Some(2));
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert!(
        text(&hung.stderr).contains("no answer before the timeout"),
        "{}",
        text(&hung.stderr)
    );
}
