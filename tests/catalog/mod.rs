//! A live Iceberg REST catalog for the tests: `tests/catalog/rest_server.py` (every operation
//! pyiceberg's SqlCatalog on sqlite) started on 127.0.0.1 with port 0 and killed on drop, over a
//! lake pyiceberg writes into a temporary directory (`catalog_tool.py make`). The Python is the
//! venv `.ci/run` builds from `tests/interop/requirements.txt`; without it a test fails under
//! `CI=true` and is skipped, loudly, elsewhere. Beside it, the repositories the live tests
//! start from: a `fieldgate.yaml` with the catalog as `lake`, `db.events` pulled into it, and a
//! branch whose migration is applied to the pinned copy. A test crate using this module also
//! declares `mod common`.
#![allow(dead_code)]

pub mod moto;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::{assert_exit, commit_all, fieldgate_in, git, root, text, write};

pub const TOKEN: &str = "tok-9f2c41d7e0";
pub const CLIENT_ID: &str = "fieldgate-ci";
pub const CLIENT_SECRET: &str = "cl13nt-s3cret-77aa";

/// The catalog properties that reach it with the bearer token in `LAKE_TOKEN`, and the
/// environment that sets it.
pub const TOKEN_AUTH: &str = "    token: ${LAKE_TOKEN}\n";
pub const ENV: &[(&str, &str)] = &[("LAKE_TOKEN", TOKEN)];

/// Where the repositories keep `db.events`'s pinned copy, and the table's entry pointing there.
pub const PINNED: &str = "tables/db/events.metadata.json";
pub const EVENTS: &str =
    "  db.events:\n    catalog: lake\n    metadata: tables/db/events.metadata.json\n";

/// A `fieldgate.yaml` whose catalog `lake` is at `uri`, reached with `auth` (its properties),
/// and whose `tables:` are `tables` (with anything that follows them).
pub fn lake_config(uri: &str, auth: &str, tables: &str) -> String {
    format!("catalogs:\n  lake:\n    type: rest\n    uri: {uri}\n{auth}tables:\n{tables}")
}

/// fieldgate in `dir` with [`ENV`].
pub fn fieldgate(dir: &Path, args: &[&str]) -> Output {
    fieldgate_in(dir, args, ENV)
}

/// Writes `config` as `dir`'s `fieldgate.yaml` and pulls its tables (`fieldgate pull`, which
/// must pass).
pub fn pull_into(dir: &Path, config: &str) {
    write(dir, "fieldgate.yaml", config);
    let pulled = fieldgate(dir, &["pull"]);
    assert_eq!(pulled.status.code(), Some(0), "{}", text(&pulled.stderr));
}

/// A git repository with `db.events` (its entry ending in `entry_more`, under
/// `migrations/*.sql` proposals) pulled and committed on `main`, and on the `feature` branch a
/// migration adding `country`, applied to the pinned copy (`apply --write`) and committed.
pub fn reviewed(catalog: &Catalog, entry_more: &str) -> tempfile::TempDir {
    let repo = tempfile::tempdir().expect("dir");
    let dir = repo.path();
    let tables = format!("{EVENTS}{entry_more}proposals:\n  - migrations/*.sql\n");
    git(dir, &["init", "-q", "-b", "main"]);
    pull_into(dir, &lake_config(&catalog.uri, TOKEN_AUTH, &tables));
    commit_all(dir, "pinned copy");

    git(dir, &["checkout", "-q", "-b", "feature"]);
    write(
        dir,
        "migrations/001.sql",
        "ALTER TABLE db.events ADD COLUMN country string;\n",
    );
    let apply = [
        "apply",
        "--write",
        "--metadata",
        PINNED,
        "migrations/001.sql",
    ];
    let applied = fieldgate_in(dir, &apply, &[]);
    assert_exit(&applied, 0);
    commit_all(dir, "add country");
    repo
}

/// The venv's Python, or `None` (after saying so) when it is missing outside CI.
pub fn python() -> Option<PathBuf> {
    let python = std::env::var_os("FIELDGATE_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/interop-venv/bin/python"));
    if python.exists() {
        return Some(python);
    }
    let message = format!(
        "the catalog tests need pyiceberg's venv at {} (.ci/run makes it from tests/interop/requirements.txt)",
        python.display()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{message}");
    }
    eprintln!("SKIPPED: {message}");
    None
}

pub struct Catalog {
    pub dir: tempfile::TempDir,
    pub uri: String,
    warehouse: String,
    props: Vec<(String, String)>,
    python: PathBuf,
    server: Child,
}

impl Catalog {
    /// A catalog over a fresh lake, the server started with `server_args` on top of the defaults.
    pub fn start(server_args: &[&str]) -> Option<Catalog> {
        Catalog::start_in(None, &[], server_args)
    }

    /// A catalog whose lake is written at `warehouse` (a temporary directory when `None`), with
    /// the catalog properties `props` (e.g. `s3.endpoint`) for pyiceberg's FileIO.
    pub fn start_in(
        warehouse: Option<&str>,
        props: &[(&str, &str)],
        server_args: &[&str],
    ) -> Option<Catalog> {
        let python = python()?;
        let dir = tempfile::tempdir().expect("temp dir");
        let warehouse = warehouse.map_or_else(
            || format!("file://{}", dir.path().join("warehouse").display()),
            str::to_string,
        );
        let db = dir.path().join("catalog.db");
        let mut make = vec![
            "make".to_string(),
            "--db".into(),
            db.to_string_lossy().into_owned(),
            "--warehouse-uri".into(),
            warehouse.clone(),
        ];
        for (key, value) in props {
            make.extend(["--prop".into(), key.to_string(), value.to_string()]);
        }
        let make: Vec<&str> = make.iter().map(String::as_str).collect();
        let made = run_python(&python, dir.path(), &make);
        assert!(
            made.status.success(),
            "make the lake: {}",
            String::from_utf8_lossy(&made.stderr)
        );
        let mut server = Command::new(&python)
            .arg(root().join("tests/catalog/rest_server.py"))
            .args([
                "--db",
                &db.to_string_lossy(),
                "--warehouse-uri",
                &warehouse,
                "--token",
                TOKEN,
            ])
            .args(["--client-id", CLIENT_ID, "--client-secret", CLIENT_SECRET])
            .args(props.iter().flat_map(|(k, v)| ["--prop", k, v]))
            .args(server_args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the catalog server starts");
        let stdout = server.stdout.take().expect("stdout");
        let (send, receive) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = send.send(line);
        });
        let line = receive
            .recv_timeout(Duration::from_secs(120))
            .unwrap_or_default();
        let uri = line
            .trim()
            .strip_prefix("listening on ")
            .map(str::to_string);
        let Some(uri) = uri else {
            let _ = server.kill();
            panic!("the catalog server did not start: {line:?}");
        };
        Some(Catalog {
            dir,
            uri,
            warehouse,
            props: props
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            python,
            server,
        })
    }

    pub fn db(&self) -> String {
        self.dir
            .path()
            .join("catalog.db")
            .to_string_lossy()
            .into_owned()
    }

    pub fn warehouse(&self) -> String {
        self.warehouse.clone()
    }

    /// `catalog_tool.py COMMAND --db .. --warehouse-uri .. ARGS` (a change made with pyiceberg
    /// straight into the catalog, as an engine outside the repository makes it).
    pub fn change(&self, command: &str, args: &[&str]) {
        let (db, warehouse) = (self.db(), self.warehouse());
        let mut all = vec![command, "--db", &db, "--warehouse-uri", &warehouse];
        for (key, value) in &self.props {
            all.extend(["--prop", key, value]);
        }
        all.extend_from_slice(args);
        let output = run_python(&self.python, self.dir.path(), &all);
        assert!(
            output.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// `catalog_tool.py COMMAND --uri .. --token .. ARGS` through pyiceberg's RestCatalog.
    pub fn rest_tool(&self, command: &str, args: &[&str]) -> Output {
        let mut all = vec![command, "--uri", &self.uri, "--token", TOKEN];
        all.extend_from_slice(args);
        run_python(&self.python, self.dir.path(), &all)
    }

    /// Arms faults (see rest_server.py), e.g. `{"load": ["503"]}`.
    pub fn faults(&self, json: &str) {
        let script = format!(
            "import urllib.request as r; r.urlopen(r.Request('{}/test/faults', data=b'{}', method='POST')).read()",
            self.uri, json
        );
        let output = Command::new(&self.python)
            .args(["-c", &script])
            .output()
            .expect("python");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// The requests the server saw, as JSON text.
    pub fn requests(&self) -> String {
        let script = format!(
            "import urllib.request as r; print(r.urlopen('{}/test/requests').read().decode())",
            self.uri
        );
        let output = Command::new(&self.python)
            .args(["-c", &script])
            .output()
            .expect("python");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}

impl Drop for Catalog {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// `catalog_tool.py ARGS` outside any catalog (moto's buckets); it must succeed.
pub fn tool(args: &[&str]) {
    let Some(python) = python() else {
        return;
    };
    let output = run_python(&python, &std::env::temp_dir(), args);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn run_python(python: &Path, dir: &Path, args: &[&str]) -> Output {
    Command::new(python)
        .arg(root().join("tests/catalog/catalog_tool.py"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("python runs")
}
