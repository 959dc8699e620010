//! `fieldgate lsp` over its stdio, as an editor drives it: initialize, open, change, the
//! diagnostics it publishes, hovers, code actions, shutdown; and what a client must never be
//! able to do to it (malformed requests, no fieldgate.yaml, a file outside any table, a 50 MB
//! buffer). The repository is a copy of the example lake in a fresh git repository.

mod common;

use std::fs;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

use lsp_server::{Message, Notification, Request, RequestId, Response};
use lsp_types::{Diagnostic, PublishDiagnosticsParams, Url};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(30);

struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Message>,
    /// Notifications seen while waiting for something else.
    backlog: Vec<Notification>,
    next_id: i32,
    _cache: tempfile::TempDir,
}

impl Client {
    fn start() -> Client {
        let cache = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_fieldgate"))
            .arg("lsp")
            .env("XDG_CACHE_HOME", cache.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, incoming) = channel();
        thread::spawn(move || {
            while let Ok(Some(message)) = Message::read(&mut stdout) {
                if send.send(message).is_err() {
                    break;
                }
            }
        });
        let mut client = Client {
            child,
            stdin,
            incoming,
            backlog: Vec::new(),
            next_id: 0,
            _cache: cache,
        };
        let init = client.request("initialize", json!({"capabilities": {}, "processId": null}));
        assert!(init.error.is_none(), "{init:?}");
        let capabilities = &init.result.unwrap()["capabilities"];
        assert_eq!(capabilities["textDocumentSync"]["change"], 2);
        assert_eq!(capabilities["positionEncoding"], "utf-16");
        client.notify("initialized", json!({}));
        client
    }

    fn send(&mut self, message: Message) {
        message.write(&mut self.stdin).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(Notification::new(method.into(), params).into());
    }

    fn request(&mut self, method: &str, params: Value) -> Response {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.send(Request::new(id.clone(), method.into(), params).into());
        self.response(id)
    }

    fn response(&mut self, id: RequestId) -> Response {
        let deadline = Instant::now() + WAIT;
        loop {
            match self.next(deadline) {
                Message::Response(response) if response.id == id => return response,
                Message::Notification(n) => self.backlog.push(n),
                _ => {}
            }
        }
    }

    fn next(&mut self, deadline: Instant) -> Message {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.incoming.recv_timeout(left) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => panic!("no message in time; saw {:?}", self.backlog),
            Err(RecvTimeoutError::Disconnected) => panic!("the server went away"),
        }
    }

    /// The diagnostics published next for `uri` at `version` (`None`: without a version).
    fn diagnostics(&mut self, uri: &Url, version: impl Into<Option<i32>>) -> Vec<Diagnostic> {
        let version = version.into();
        let deadline = Instant::now() + WAIT;
        let is_it = |n: &Notification| -> Option<Vec<Diagnostic>> {
            if n.method != "textDocument/publishDiagnostics" {
                return None;
            }
            let p: PublishDiagnosticsParams = serde_json::from_value(n.params.clone()).unwrap();
            (p.uri == *uri && p.version == version).then_some(p.diagnostics)
        };
        if let Some(at) = self.backlog.iter().position(|n| is_it(n).is_some()) {
            let seen = self.backlog.remove(at);
            return is_it(&seen).unwrap_or_default();
        }
        loop {
            if let Message::Notification(n) = self.next(deadline) {
                if let Some(found) = is_it(&n) {
                    return found;
                }
                self.backlog.push(n);
            }
        }
    }

    fn open(&mut self, path: &Path, text: &str) -> Url {
        let uri = Url::from_file_path(path).unwrap();
        let item = json!({"uri": uri, "languageId": "sql", "version": 1, "text": text});
        self.notify("textDocument/didOpen", json!({ "textDocument": item }));
        uri
    }

    fn change(&mut self, uri: &Url, version: i32, changes: Value) {
        let document = json!({"uri": uri, "version": version});
        let params = json!({"textDocument": document, "contentChanges": changes});
        self.notify("textDocument/didChange", params);
    }

    fn shutdown(mut self) {
        let response = self.request("shutdown", Value::Null);
        assert!(response.error.is_none(), "{response:?}");
        self.notify("exit", Value::Null);
        assert_eq!(self.exit_code(), 0);
    }

    fn exit_code(&mut self) -> i32 {
        let status = self.child.wait().unwrap();
        status
            .code()
            .unwrap_or_else(|| panic!("killed: {status:?}"))
    }

    fn codes(found: &[Diagnostic]) -> Vec<String> {
        found
            .iter()
            .filter_map(|d| match &d.code {
                Some(lsp_types::NumberOrString::String(c)) => Some(c.clone()),
                _ => None,
            })
            .collect()
    }
}

/// The example lake, committed in a new git repository.
fn lake() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    common::copy_dir(&common::root().join("examples/lake"), &root);
    common::git(&root, &["init", "-q"]);
    common::git(&root, &["add", "-A"]);
    common::git(&root, &["commit", "-q", "-m", "lake"]);
    (dir, root)
}

const NARROWING: &str =
    "-- Narrowing.\nALTER TABLE lake_prod.fact_orders ALTER COLUMN customer_id TYPE INT;\n";

#[test]
fn a_migration_is_judged_as_typed_and_fixed_by_a_quick_fix() {
    let (_dir, root) = lake();
    let path = root.join("migrations/fact_orders/0003_narrow.sql");
    let mut client = Client::start();
    let uri = client.open(&path, NARROWING);
    let found = client.diagnostics(&uri, 1);
    let narrowing = found
        .iter()
        .find(|d| d.code == Some(lsp_types::NumberOrString::String("type-narrowing".into())))
        .unwrap_or_else(|| panic!("{found:#?}"));
    assert_eq!(
        narrowing.severity,
        Some(lsp_types::DiagnosticSeverity::ERROR)
    );
    assert_eq!(narrowing.range.start.line, 1);
    let page = narrowing
        .code_description
        .as_ref()
        .unwrap()
        .href
        .to_file_path()
        .unwrap();
    assert!(
        fs::read_to_string(page)
            .unwrap()
            .contains("**type-narrowing**")
    );

    // The hover on the diagnostic explains its rule.
    let at = json!({"textDocument": {"uri": uri}, "position": narrowing.range.start});
    let hover = client.request("textDocument/hover", at);
    let value = hover.result.unwrap()["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(value.starts_with("**type-narrowing**"), "{value}");

    // A hover on the column: its id and type as the table has them.
    let column = json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 50}});
    let hover = client.request("textDocument/hover", column);
    let value = hover.result.unwrap()["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        value.starts_with("**customer_id** · field id 4 · `long` · optional"),
        "{value}"
    );
    assert!(
        value.contains("schema 0: added as `customer_id`"),
        "{value}"
    );

    // The quick fix inserts a suppression whose reason is still to write.
    let context = json!({"diagnostics": [narrowing]});
    let params =
        json!({"textDocument": {"uri": uri}, "range": narrowing.range, "context": context});
    let actions = client
        .request("textDocument/codeAction", params)
        .result
        .unwrap();
    let suppress = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| {
            a["title"]
                .as_str()
                .unwrap()
                .starts_with("Suppress `type-narrowing`")
        })
        .unwrap_or_else(|| panic!("{actions:#}"));
    let instead = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Add a new column `customer_id_int` INT instead")
        .unwrap_or_else(|| panic!("{actions:#}"));
    let replacement = instead["edit"]["changes"][uri.as_str()][0]["newText"]
        .as_str()
        .unwrap();
    assert!(
        replacement.starts_with("ALTER TABLE lake_prod.fact_orders ADD COLUMNS (customer_id_int INT COMMENT 'replaces customer_id (long)"),
        "{replacement}"
    );
    let edit = &suppress["edit"]["changes"][uri.as_str()][0];
    assert_eq!(edit["range"]["start"], json!({"line": 1, "character": 0}));
    let inserted = edit["newText"].as_str().unwrap().to_string();
    assert_eq!(inserted, "-- fieldgate: allow type-narrowing -- \n");
    client.change(&uri, 2, json!([{"range": edit["range"], "text": inserted}]));
    let found = client.diagnostics(&uri, 2);
    let codes: Vec<_> = found.iter().filter_map(|d| d.code.clone()).collect();
    assert!(
        codes.contains(&lsp_types::NumberOrString::String("suppression".into())),
        "{found:#?}"
    );
    // The finding stands until the reason is written.
    assert!(codes.contains(&lsp_types::NumberOrString::String("type-narrowing".into())));

    // With the reason written the file is clean but for notes.
    let end = json!({"line": 1, "character": inserted.len() - 1});
    let change =
        json!([{"range": {"start": end, "end": end}, "text": "checked: no value exceeds INT"}]);
    client.change(&uri, 3, change);
    let found = client.diagnostics(&uri, 3);
    assert!(
        found
            .iter()
            .all(|d| d.severity == Some(lsp_types::DiagnosticSeverity::INFORMATION)),
        "{found:#?}"
    );
    client.shutdown();
}

#[test]
fn unsaved_text_is_judged_and_earlier_proposals_come_first() {
    let (_dir, root) = lake();
    // An earlier uncommitted migration of the same table drops the column the next one re-adds.
    let first = root.join("migrations/dim_users/0003_drop_phone.sql");
    fs::write(
        &first,
        "ALTER TABLE lake_prod.dim_users DROP COLUMN phone;\n",
    )
    .unwrap();
    let path = root.join("migrations/dim_users/0004_readd.sql");
    let mut client = Client::start();
    let uri = client.open(
        &path,
        "ALTER TABLE lake_prod.dim_users ADD COLUMNS (phone STRING);\n",
    );
    let found = client.diagnostics(&uri, 1);
    let codes: Vec<String> = found
        .iter()
        .filter_map(|d| match &d.code {
            Some(lsp_types::NumberOrString::String(c)) => Some(c.clone()),
            _ => None,
        })
        .collect();
    assert!(codes.contains(&"name-reuse".to_string()), "{found:#?}");
    let reuse = found
        .iter()
        .find(|d| d.code == Some(lsp_types::NumberOrString::String("name-reuse".into())))
        .unwrap();
    let related = reuse
        .related_information
        .as_ref()
        .unwrap_or_else(|| panic!("{reuse:#?}"));
    assert!(
        related
            .iter()
            .any(|r| r.location.uri == Url::from_file_path(&first).unwrap()),
        "{related:#?}"
    );

    // A name only the table's history has: the id it had and the last schema that had it.
    let status = root.join("migrations/dim_users/0005_status.sql");
    let uri = client.open(
        &status,
        "ALTER TABLE lake_prod.dim_users ADD COLUMNS (status STRING);\n",
    );
    client.diagnostics(&uri, 1);
    let at = json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 48}});
    let value = client.request("textDocument/hover", at).result.unwrap()["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(value.starts_with("**status** · dropped from `lake_prod.dim_users` · it had field id 4 (`string`); schema 0 was the last"), "{value}");
    client.shutdown();
}

#[test]
fn the_configuration_is_checked_at_its_spans() {
    let (_dir, root) = lake();
    let path = root.join("fieldgate.yaml");
    let text = fs::read_to_string(&path).unwrap().replace(
        "warehouse/lake_prod/fact_orders\n",
        "warehouse/lake_prod/no_such_table\n",
    );
    let mut client = Client::start();
    let uri = client.open(&path, &text);
    let found = client.diagnostics(&uri, 1);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].message.contains("is not there"), "{found:#?}");
    let line = text
        .lines()
        .position(|l| l.contains("no_such_table"))
        .unwrap();
    assert_eq!(found[0].range.start.line as usize, line);
    client.shutdown();
}

#[test]
fn hostile_and_odd_input_is_answered() {
    let (_dir, root) = lake();
    let mut client = Client::start();
    // Not a message at all, then parameters that do not parse, then an unknown method.
    let garbage = b"Content-Length: 9\r\n\r\n{not json";
    client.stdin.write_all(garbage).unwrap();
    let bad = client.request("textDocument/hover", json!({"textDocument": 7}));
    assert_eq!(
        bad.error.unwrap().code,
        lsp_server::ErrorCode::InvalidParams as i32
    );
    let unknown = client.request("fieldgate/nothing", json!({}));
    assert_eq!(
        unknown.error.unwrap().code,
        lsp_server::ErrorCode::MethodNotFound as i32
    );
    // A hover in a document never opened has no answer but null.
    let nowhere = json!({"textDocument": {"uri": "file:///nowhere.sql"}, "position": {"line": 0, "character": 0}});
    let answer = client.request("textDocument/hover", nowhere);
    assert!(answer.error.is_none(), "{answer:?}");
    assert_eq!(answer.result.unwrap_or(Value::Null), Value::Null);

    // No fieldgate.yaml: nothing to show, nothing broken.
    let outside = tempfile::tempdir().unwrap();
    let lone = outside.path().canonicalize().unwrap().join("x.sql");
    let uri = client.open(&lone, NARROWING);
    assert!(client.diagnostics(&uri, 1).is_empty());
    // A file no `proposals` glob matches is not judged.
    let bad = client.open(
        &root.join("bad/fact_orders_narrow_customer_id.sql"),
        NARROWING,
    );
    assert!(client.diagnostics(&bad, 1).is_empty());
    // A statement naming no configured table is an error where it names it.
    let stray = client.open(
        &root.join("migrations/x.sql"),
        "ALTER TABLE lake_prod.nope DROP COLUMN a;\n",
    );
    let found = client.diagnostics(&stray, 1);
    assert!(
        found[0]
            .message
            .contains("is not a table of fieldgate.yaml"),
        "{found:#?}"
    );

    // A 50 MB buffer: the server keeps answering while it is judged, and judges it.
    let statement = "ALTER TABLE lake_prod.fact_orders ALTER COLUMN total_units TYPE BIGINT;\n";
    let huge = statement.repeat(50_000_000 / statement.len());
    let big = client.open(&root.join("migrations/fact_orders/0009_huge.sql"), &huge);
    let started = Instant::now();
    let position = json!({"textDocument": {"uri": big}, "position": {"line": 3, "character": 0}});
    assert!(
        client
            .request("textDocument/hover", position)
            .error
            .is_none()
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    client.shutdown();
}

#[test]
fn exit_codes_follow_the_protocol() {
    // `exit` without `shutdown`: 1.
    let mut client = Client::start();
    client.notify("exit", Value::Null);
    assert_eq!(client.exit_code(), 1);

    // After `shutdown` a request is refused; closing the connection then is a clean exit.
    let mut client = Client::start();
    assert!(client.request("shutdown", Value::Null).error.is_none());
    let late =
        json!({"textDocument": {"uri": "file:///x.sql"}, "position": {"line": 0, "character": 0}});
    let refused = client.request("textDocument/hover", late);
    assert_eq!(
        refused.error.unwrap().code,
        lsp_server::ErrorCode::InvalidRequest as i32
    );
    let Client {
        mut child, stdin, ..
    } = client;
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn closing_clears_and_saving_judges_again() {
    let (_dir, root) = lake();
    let path = root.join("migrations/dim_users/0004_readd.sql");
    let mut client = Client::start();
    let uri = client.open(
        &path,
        "ALTER TABLE lake_prod.dim_users ADD COLUMNS (phone STRING);\n",
    );
    let found = client.diagnostics(&uri, 1);
    assert!(
        !Client::codes(&found).contains(&"name-reuse".into()),
        "{found:#?}"
    );

    // Another tool writes an earlier migration; saving this file judges it again with it.
    let earlier = root.join("migrations/dim_users/0003_drop_phone.sql");
    fs::write(
        &earlier,
        "ALTER TABLE lake_prod.dim_users DROP COLUMN phone;\n",
    )
    .unwrap();
    client.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    let found = client.diagnostics(&uri, 1);
    assert!(
        Client::codes(&found).contains(&"name-reuse".into()),
        "{found:#?}"
    );

    // An earlier migration that does not parse stops this one, and says where.
    let broken = client.open(&earlier, "ALTER TABLE lake_prod.dim_users DROP;\n");
    let here = client.diagnostics(&broken, 1);
    assert!(!here.is_empty());
    let found = client.diagnostics(&uri, 1);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0]
            .message
            .starts_with("not judged: `migrations/dim_users/0003_drop_phone.sql` has an error"),
        "{found:#?}"
    );
    let related = &found[0].related_information.as_ref().unwrap()[0];
    assert_eq!(related.location.uri, broken);

    // Closed: its diagnostics are cleared, and the other file reads it from disk again.
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": broken}}),
    );
    assert!(client.diagnostics(&broken, None).is_empty());
    let found = client.diagnostics(&uri, 1);
    assert!(
        Client::codes(&found).contains(&"name-reuse".into()),
        "{found:#?}"
    );
    client.shutdown();
}

#[test]
fn an_unsaved_configuration_routes_the_other_buffers() {
    let (_dir, root) = lake();
    let mut client = Client::start();
    let bad = client.open(
        &root.join("bad/fact_orders_narrow_customer_id.sql"),
        NARROWING,
    );
    assert!(client.diagnostics(&bad, 1).is_empty());

    // The configuration, edited and not saved, makes `bad/` a proposal directory.
    let config = root.join("fieldgate.yaml");
    let text = fs::read_to_string(&config).unwrap().replace(
        "  - migrations/**/*.sql\n",
        "  - migrations/**/*.sql\n  - bad/*.sql\n",
    );
    let config_uri = client.open(&config, &text);
    assert!(client.diagnostics(&config_uri, 1).is_empty());
    let found = client.diagnostics(&bad, 1);
    assert!(
        Client::codes(&found).contains(&"type-narrowing".into()),
        "{found:#?}"
    );

    // Broken and unsaved: the proposal says why it is not judged, pointing at the line.
    let broken = text.replace("dialect: spark", "dialect: [spark");
    client.change(&config_uri, 2, json!([{"text": broken}]));
    assert!(!client.diagnostics(&config_uri, 2).is_empty());
    let found = client.diagnostics(&bad, 1);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].message.contains("`fieldgate.yaml` has an error"),
        "{found:#?}"
    );
    client.shutdown();
}
