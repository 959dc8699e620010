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
    /// Requests from the server seen while waiting for something else.
    asked: Vec<Request>,
    next_id: i32,
    _cache: tempfile::TempDir,
}

impl Client {
    fn start() -> Client {
        Client::start_with(json!({}))
    }

    fn start_with(capabilities: Value) -> Client {
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
            asked: Vec::new(),
            next_id: 0,
            _cache: cache,
        };
        let params = json!({"capabilities": capabilities, "processId": null});
        let init = client.answer("initialize", params);
        let capabilities = &init["capabilities"];
        assert_eq!(capabilities["textDocumentSync"]["change"], 2);
        assert_eq!(capabilities["positionEncoding"], "utf-16");
        let triggers = &capabilities["completionProvider"]["triggerCharacters"];
        assert!(
            triggers.as_array().unwrap().contains(&json!(".")),
            "{triggers}"
        );
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

    /// The result of a request the server must answer without an error.
    fn answer(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(response.error.is_none(), "{method}: {response:?}");
        response.result.unwrap_or(Value::Null)
    }

    /// The Markdown of the hover at `position` (`{"line": .., "character": ..}`) in `uri`.
    fn hover(&mut self, uri: &Url, position: Value) -> String {
        let at = json!({"textDocument": {"uri": uri}, "position": position});
        let hover = self.answer("textDocument/hover", at);
        hover["contents"]["value"].as_str().unwrap().to_string()
    }

    fn response(&mut self, id: RequestId) -> Response {
        let deadline = Instant::now() + WAIT;
        loop {
            match self.next(deadline) {
                Message::Response(response) if response.id == id => return response,
                Message::Notification(n) => self.backlog.push(n),
                Message::Request(r) => self.asked.push(r),
                Message::Response(_) => {}
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
        self.diagnostics_by(uri, version.into(), Instant::now() + WAIT)
    }

    fn diagnostics_by(
        &mut self,
        uri: &Url,
        version: Option<i32>,
        deadline: Instant,
    ) -> Vec<Diagnostic> {
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
            match self.next(deadline) {
                Message::Notification(n) => match is_it(&n) {
                    Some(found) => return found,
                    None => self.backlog.push(n),
                },
                Message::Request(r) => self.asked.push(r),
                Message::Response(_) => {}
            }
        }
    }

    /// The next request the server sends the client for `method`.
    fn asked(&mut self, method: &str) -> Request {
        if let Some(at) = self.asked.iter().position(|r| r.method == method) {
            return self.asked.remove(at);
        }
        let deadline = Instant::now() + WAIT;
        loop {
            match self.next(deadline) {
                Message::Request(r) if r.method == method => return r,
                Message::Request(r) => self.asked.push(r),
                Message::Notification(n) => self.backlog.push(n),
                Message::Response(_) => {}
            }
        }
    }

    /// The labels of the completions at `line`, `character`, and the range the first replaces.
    fn completions(&mut self, uri: &Url, line: u32, character: u32) -> (Vec<String>, Value) {
        let at = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
        let items = self.answer("textDocument/completion", at);
        let items = items.as_array().cloned().unwrap_or_default();
        let labels = items
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect();
        let range = items
            .first()
            .map_or(Value::Null, |i| i["textEdit"]["range"].clone());
        (labels, range)
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
        self.answer("shutdown", Value::Null);
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
    common::commit_all(&root, "lake");
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
    let value = client.hover(&uri, json!(narrowing.range.start));
    assert!(value.starts_with("**type-narrowing**"), "{value}");

    // A hover on the column: its id and type as the table has them.
    let value = client.hover(&uri, json!({"line": 1, "character": 50}));
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
    let actions = client.answer("textDocument/codeAction", params);
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
    let value = client.hover(&uri, json!({"line": 0, "character": 48}));
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
    assert_eq!(client.answer("textDocument/hover", nowhere), Value::Null);

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
    client.answer("textDocument/hover", position);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // Its statements past `limits: statements-per-file` are not read: one error where they
    // start, in time and memory bounded by the limit.
    // A debug build on a loaded machine reads the 100,000 statements in about 15 s.
    let found = client.diagnostics_by(&big, Some(1), Instant::now() + 4 * WAIT);
    let past: Vec<_> = found
        .iter()
        .filter(|d| d.message.contains("more than 100000 statements"))
        .map(|d| d.range.start.line)
        .collect();
    assert_eq!(past, [100_000], "{:#?}", &found[..found.len().min(3)]);
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
    client.answer("shutdown", Value::Null);
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

#[test]
fn columns_and_types_are_completed_as_the_statements_before_leave_the_table() {
    let (_dir, root) = lake();
    let path = root.join("migrations/dim_users/0003_more.sql");
    let mut client = Client::start();
    let first = "ALTER TABLE lake_prod.dim_users RENAME COLUMN phone TO mobile;\n\
        ALTER TABLE lake_prod.dim_users ADD COLUMNS (address STRUCT<city: STRING, zip: STRING>);\n";
    let uri = client.open(&path, first);
    client.diagnostics(&uri, 1);

    // A statement being written after them: the columns as they leave the table.
    let end = json!({"line": 2, "character": 0});
    let typing = "ALTER TABLE lake_prod.dim_users DROP COLUMN ";
    client.change(
        &uri,
        2,
        json!([{"range": {"start": end, "end": end}, "text": typing}]),
    );
    client.diagnostics(&uri, 2);
    let (labels, range) = client.completions(&uri, 2, 44);
    assert_eq!(labels, ["id", "mobile", "amount", "address"], "{labels:?}");
    let at = json!({"line": 2, "character": 44});
    assert_eq!(range, json!({"start": at, "end": at}));

    // The part of the name already typed is what the completion replaces.
    client.change(
        &uri,
        3,
        json!([{"range": {"start": at, "end": at}, "text": "mo"}]),
    );
    let (labels, range) = client.completions(&uri, 2, 46);
    assert!(labels.contains(&"mobile".to_string()), "{labels:?}");
    assert_eq!(range["start"], at);
    assert_eq!(range["end"], json!({"line": 2, "character": 46}));

    // A struct's fields after its name and a dot.
    let word = json!({"start": at, "end": {"line": 2, "character": 46}});
    client.change(&uri, 4, json!([{"range": word, "text": "address."}]));
    let (labels, _) = client.completions(&uri, 2, 52);
    assert_eq!(labels, ["city", "zip"], "{labels:?}");

    // Inside the first statement, the table is as it was before the file.
    let (labels, _) = client.completions(&uri, 0, 47);
    assert_eq!(labels, ["id", "phone", "amount"], "{labels:?}");

    // Types where a type goes, each with the Iceberg type it is.
    let line = json!({"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 52}});
    let add = "ALTER TABLE lake_prod.dim_users ADD COLUMNS (nickname ";
    client.change(&uri, 5, json!([{"range": line, "text": add}]));
    let at = json!({"textDocument": {"uri": uri}, "position": {"line": 2, "character": 54}});
    let items = client.answer("textDocument/completion", at);
    let detail = |label: &str| {
        let item = items
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["label"] == label);
        item.unwrap_or_else(|| panic!("{label}: {items:#}"))["detail"].clone()
    };
    assert_eq!(detail("bigint"), "Iceberg long");
    assert_eq!(detail("timestamp"), "Iceberg timestamptz");
    assert_eq!(detail("decimal(10,0)"), "Iceberg decimal(10, 0)");

    // Where a new name goes, nothing; in a document never opened, nothing.
    let (labels, _) = client.completions(&uri, 2, 45);
    assert!(labels.is_empty(), "{labels:?}");
    let nowhere = Url::from_file_path(root.join("migrations/none.sql")).unwrap();
    let (labels, _) = client.completions(&nowhere, 0, 0);
    assert!(labels.is_empty());
    let bad = client.request("textDocument/completion", json!({"position": 3}));
    assert_eq!(
        bad.error.unwrap().code,
        lsp_server::ErrorCode::InvalidParams as i32
    );
    client.shutdown();
}

#[test]
fn files_changed_on_disk_are_read_again_where_the_client_watches_them() {
    let (_dir, root) = lake();
    let watching = json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    let mut client = Client::start_with(watching);
    let registration = client.asked("client/registerCapability");
    let registered = &registration.params["registrations"][0];
    assert_eq!(registered["method"], "workspace/didChangeWatchedFiles");
    let globs: Vec<&str> = registered["registerOptions"]["watchers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["globPattern"].as_str().unwrap())
        .collect();
    for glob in [
        "**/fieldgate.yaml",
        "**/*.metadata.json",
        "**/version-hint.text",
    ] {
        assert!(globs.contains(&glob), "{globs:?}");
    }
    client.send(Response::new_ok(registration.id, Value::Null).into());

    let path = root.join("migrations/fact_orders/0003_narrow.sql");
    let uri = client.open(&path, NARROWING);
    let found = client.diagnostics(&uri, 1);
    assert!(
        Client::codes(&found).contains(&"type-narrowing".into()),
        "{found:#?}"
    );

    // Another tool turns the rule off in fieldgate.yaml: the open migration is judged again.
    let config = root.join("fieldgate.yaml");
    let text = fs::read_to_string(&config).unwrap();
    fs::write(
        &config,
        text.replace("rules:\n", "rules:\n  type-narrowing: off\n"),
    )
    .unwrap();
    let changed = json!({"changes": [{"uri": Url::from_file_path(&config).unwrap(), "type": 2}]});
    client.notify("workspace/didChangeWatchedFiles", changed);
    let found = client.diagnostics(&uri, 1);
    assert!(
        !Client::codes(&found).contains(&"type-narrowing".into()),
        "{found:#?}"
    );

    // A table only the working tree has, moved back to a version whose current schema still has
    // `status` (its hint rewritten): adding `status` is no longer a reuse but a clash.
    let copy = root.join("warehouse/lake_prod/dim_users_copy");
    common::copy_dir(&root.join("warehouse/lake_prod/dim_users"), &copy);
    let text = fs::read_to_string(&config).unwrap().replace(
        "tables:\n",
        "tables:\n  lake_prod.dim_users_copy:\n    metadata: warehouse/lake_prod/dim_users_copy\n",
    );
    fs::write(&config, text).unwrap();
    let changed = json!({"changes": [{"uri": Url::from_file_path(&config).unwrap(), "type": 2}]});
    client.notify("workspace/didChangeWatchedFiles", changed);
    client.diagnostics(&uri, 1);
    let status = root.join("migrations/dim_users_copy/0001_status.sql");
    let sql = "ALTER TABLE lake_prod.dim_users_copy ADD COLUMN status string COMMENT 'x';\n";
    let status = client.open(&status, sql);
    let found = client.diagnostics(&status, 1);
    assert!(
        Client::codes(&found).contains(&"name-reuse".into()),
        "{found:#?}"
    );
    // As Java's Hadoop tables do, a newer version beside the hint is read: they go too.
    fs::remove_file(copy.join("metadata/v3.metadata.json")).unwrap();
    fs::remove_file(copy.join("metadata/v4.metadata.json")).unwrap();
    let hint = copy.join("metadata/version-hint.text");
    fs::write(&hint, "2").unwrap();
    let hinted = json!({"changes": [{"uri": Url::from_file_path(&hint).unwrap(), "type": 2}]});
    client.notify("workspace/didChangeWatchedFiles", hinted);
    let found = client.diagnostics(&status, 1);
    let codes = Client::codes(&found);
    assert!(!codes.contains(&"name-reuse".into()), "{found:#?}");
    assert!(
        found
            .iter()
            .any(|d| d.severity == Some(lsp_types::DiagnosticSeverity::ERROR)),
        "{found:#?}"
    );
    client.shutdown();
}

#[test]
fn a_dropped_name_is_hovered_with_the_commit_that_dropped_it() {
    let (_dir, root) = lake();
    // The drop of `legacy_discount_code` applied to the table and committed.
    let migrations = [
        "migrations/fact_orders/0001_widen_total_units.sql",
        "migrations/fact_orders/0002_drop_legacy_discount_code.sql",
    ];
    let mut args = vec!["apply"];
    args.extend(migrations);
    args.extend(["--metadata", "warehouse/lake_prod/fact_orders", "--write"]);
    let applied = common::fieldgate_in(&root, &args, &[]);
    assert!(applied.status.success(), "{applied:?}");
    common::commit_all(&root, "drop legacy_discount_code");
    let commit = common::git(&root, &["rev-parse", "HEAD"]);

    let path = root.join("migrations/fact_orders/0003_readd.sql");
    let mut client = Client::start();
    let text = "ALTER TABLE lake_prod.fact_orders ADD COLUMNS (legacy_discount_code STRING);\n";
    let uri = client.open(&path, text);
    client.diagnostics(&uri, 1);
    let value = client.hover(&uri, json!({"line": 0, "character": 52}));
    assert!(
        value.starts_with("**legacy_discount_code** · dropped from `lake_prod.fact_orders` · it had field id 6 (`string`)"),
        "{value}"
    );
    let by = format!("Dropped by commit {} (", &commit.trim()[..7]);
    assert!(value.contains(&by) && value.contains(", Test)."), "{value}");
    client.shutdown();
}

#[test]
fn a_migration_head_has_applied_is_left_out_as_lint_leaves_it_out() {
    let (_dir, root) = lake();
    // `vip_level` applied to the table and committed: the migration is history now.
    let migration = "migrations/dim_users/0001_add_vip_level.sql";
    let applied = common::fieldgate_in(&root, &["apply", migration, "--write"], &[]);
    assert!(applied.status.success(), "{applied:?}");
    common::commit_all(&root, "vip_level applied");

    let path = root.join(migration);
    let committed = fs::read_to_string(&path).unwrap();
    let mut client = Client::start();
    let uri = client.open(&path, &committed);
    let found = client.diagnostics(&uri, 1);
    assert!(found.is_empty(), "{found:#?}");
    let said = client.backlog.iter().any(|n| {
        n.method == "window/logMessage"
            && n.params["message"]
                .as_str()
                .is_some_and(|m| m.contains("is not judged: it is applied"))
    });
    assert!(said, "{:#?}", client.backlog);

    // Edited, it is no longer the text HEAD applied: judged against the table that holds it.
    let edited = committed.replace("vip_level INT", "vip_level BIGINT");
    assert_ne!(edited, committed);
    client.change(&uri, 2, json!([{"text": edited}]));
    let found = client.diagnostics(&uri, 2);
    assert!(
        errors(&found).iter().any(|e| e.contains("already exists")),
        "{found:#?}"
    );
    client.shutdown();
}

/// The example lake with a second table, `lake_prod.dim_users_copy`, that only the working tree
/// holds (so it is read from its file, not from `HEAD`): its current metadata file.
fn lake_with_uncommitted_table() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let (dir, root) = lake();
    let copy = root.join("warehouse/lake_prod/dim_users_copy");
    common::copy_dir(&root.join("warehouse/lake_prod/dim_users"), &copy);
    let config = root.join("fieldgate.yaml");
    let text = fs::read_to_string(&config).unwrap().replace(
        "tables:\n",
        "tables:\n  lake_prod.dim_users_copy:\n    metadata: warehouse/lake_prod/dim_users_copy\n",
    );
    fs::write(&config, text).unwrap();
    (dir, root, copy.join("metadata/v4.metadata.json"))
}

fn errors(found: &[Diagnostic]) -> Vec<&str> {
    found
        .iter()
        .filter(|d| d.severity == Some(lsp_types::DiagnosticSeverity::ERROR))
        .map(|d| d.message.as_str())
        .collect()
}

#[test]
fn a_table_is_parsed_once_and_read_again_when_its_file_changes() {
    let (_dir, root, metadata) = lake_with_uncommitted_table();
    let mut client = Client::start();
    let path = root.join("migrations/dim_users_copy/0001_pager.sql");
    let sql = "ALTER TABLE lake_prod.dim_users_copy ADD COLUMN pager string COMMENT 'x';\n";
    let uri = client.open(&path, sql);
    let found = client.diagnostics(&uri, 1);
    assert!(errors(&found).is_empty(), "{found:#?}");

    // Another tool renames `phone` to `pager` in the table's metadata, keeping the file's size
    // and modification time: the table kept from that file is what the next keystroke is
    // judged against (it was not read again).
    let original = fs::read_to_string(&metadata).unwrap();
    let modified = fs::metadata(&metadata).unwrap().modified().unwrap();
    let renamed = original.replace("\"phone\"", "\"pager\"");
    assert_ne!(renamed, original);
    let rewrite = |text: &str, time| {
        fs::write(&metadata, text).unwrap();
        let file = fs::File::options().write(true).open(&metadata).unwrap();
        file.set_modified(time).unwrap();
    };
    rewrite(&renamed, modified);
    let typed = json!([{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}, "text": "-- x\n"}]);
    client.change(&uri, 2, typed);
    let found = client.diagnostics(&uri, 2);
    assert!(errors(&found).is_empty(), "{found:#?}");

    // The editor reports the change: the table is read again, and `pager` now exists.
    let changed = json!({"changes": [{"uri": Url::from_file_path(&metadata).unwrap(), "type": 2}]});
    client.notify("workspace/didChangeWatchedFiles", changed);
    let found = client.diagnostics(&uri, 2);
    assert!(
        errors(&found).iter().any(|e| e.contains("pager")),
        "{found:#?}"
    );

    // A rewrite that moves the file's modification time is seen at the next keystroke, told
    // or not.
    rewrite(&original, modified + Duration::from_secs(1));
    let typed = json!([{"range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}}, "text": "-- y\n"}]);
    client.change(&uri, 3, typed);
    let found = client.diagnostics(&uri, 3);
    assert!(errors(&found).is_empty(), "{found:#?}");
    client.shutdown();
}

#[test]
fn a_branch_switch_judges_the_open_files_against_the_other_branch() {
    let (_dir, root) = lake();
    // Another branch where `phone` is named `pager` in the committed table.
    let metadata = root.join("warehouse/lake_prod/dim_users/metadata/v4.metadata.json");
    let original = fs::read_to_string(&metadata).unwrap();
    common::git(&root, &["checkout", "-q", "-b", "pager"]);
    fs::write(&metadata, original.replace("\"phone\"", "\"pager\"")).unwrap();
    common::git(&root, &["commit", "-q", "-am", "pager"]);
    common::git(&root, &["checkout", "-q", "-"]);

    let watching = json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    let mut client = Client::start_with(watching);
    let registration = client.asked("client/registerCapability");
    let watchers = &registration.params["registrations"][0]["registerOptions"]["watchers"];
    assert!(
        watchers
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["globPattern"] == "**/.git/HEAD"),
        "{watchers}"
    );
    client.send(Response::new_ok(registration.id, Value::Null).into());
    let path = root.join("migrations/dim_users/0003_pager.sql");
    let sql = "ALTER TABLE lake_prod.dim_users ADD COLUMN pager string COMMENT 'x';\n";
    let uri = client.open(&path, sql);
    let found = client.diagnostics(&uri, 1);
    assert!(errors(&found).is_empty(), "{found:#?}");

    // The switch rewrites `.git/HEAD`: the open file is judged against the branch's table
    // without a keystroke.
    common::git(&root, &["checkout", "-q", "pager"]);
    let head = root.join(".git/HEAD");
    let changed = json!({"changes": [{"uri": Url::from_file_path(&head).unwrap(), "type": 2}]});
    client.notify("workspace/didChangeWatchedFiles", changed);
    let found = client.diagnostics(&uri, 1);
    assert!(
        errors(&found).iter().any(|e| e.contains("pager")),
        "{found:#?}"
    );
    client.shutdown();
}

#[test]
fn a_commit_on_the_current_branch_judges_the_open_files_again() {
    let (_dir, root) = lake();
    let watching = json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    let mut client = Client::start_with(watching);
    let registration = client.asked("client/registerCapability");
    let watchers = &registration.params["registrations"][0]["registerOptions"]["watchers"];
    let globs: Vec<&str> = watchers
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["globPattern"].as_str().unwrap())
        .collect();
    for glob in ["**/.git/refs/heads/**", "**/.git/packed-refs"] {
        assert!(globs.contains(&glob), "{globs:?}");
    }
    client.send(Response::new_ok(registration.id, Value::Null).into());
    let path = root.join("migrations/dim_users/0003_pager.sql");
    let sql = "ALTER TABLE lake_prod.dim_users ADD COLUMN pager string COMMENT 'x';\n";
    let uri = client.open(&path, sql);
    let found = client.diagnostics(&uri, 1);
    assert!(errors(&found).is_empty(), "{found:#?}");

    // A commit renames `phone` to `pager` in the table: it moves the branch's ref and leaves
    // `.git/HEAD` as it was. The open file is judged against the new commit without a keystroke.
    let head = root.join(".git/HEAD");
    let head_before = fs::read_to_string(&head).unwrap();
    let metadata = root.join("warehouse/lake_prod/dim_users/metadata/v4.metadata.json");
    let original = fs::read_to_string(&metadata).unwrap();
    fs::write(&metadata, original.replace("\"phone\"", "\"pager\"")).unwrap();
    common::git(&root, &["commit", "-q", "-am", "pager"]);
    assert_eq!(fs::read_to_string(&head).unwrap(), head_before);
    let branch = common::git(&root, &["symbolic-ref", "HEAD"]);
    let moved = root.join(".git").join(branch.trim());
    assert!(moved.is_file(), "{}", moved.display());
    let changed = json!({"changes": [{"uri": Url::from_file_path(&moved).unwrap(), "type": 2}]});
    client.notify("workspace/didChangeWatchedFiles", changed);
    let found = client.diagnostics(&uri, 1);
    assert!(
        errors(&found).iter().any(|e| e.contains("pager")),
        "{found:#?}"
    );
    client.shutdown();
}

#[test]
fn an_unknown_column_is_fixed_by_the_name_it_was_meant_to_be() {
    let (_dir, root) = lake();
    let mut client = Client::start();
    let path = root.join("migrations/dim_users/0003_drop.sql");
    let sql = "ALTER TABLE lake_prod.dim_users DROP COLUMN phne;\n";
    let uri = client.open(&path, sql);
    let found = client.diagnostics(&uri, 1);
    let unknown = found
        .iter()
        .find(|d| d.message.contains("did you mean `phone`"))
        .unwrap_or_else(|| panic!("{found:#?}"));
    let context = json!({"diagnostics": [unknown]});
    let params = json!({"textDocument": {"uri": uri}, "range": unknown.range, "context": context});
    let actions = client.answer("textDocument/codeAction", params);
    let replace = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Replace with `phone`")
        .unwrap_or_else(|| panic!("{actions:#}"));
    assert_eq!(replace["isPreferred"], true);
    let edit = &replace["edit"]["changes"][uri.as_str()][0];
    assert_eq!(edit["newText"], "phone");
    // The edit replaces the misspelt name, nothing around it.
    let range = &edit["range"];
    assert_eq!(range["start"], json!({"line": 0, "character": 44}));
    assert_eq!(range["end"], json!({"line": 0, "character": 48}));

    // Applied, the statement is judged as the drop it was meant to be.
    let fixed = json!([{"range": range, "text": "phone"}]);
    client.change(&uri, 2, fixed);
    let found = client.diagnostics(&uri, 2);
    assert!(
        Client::codes(&found).contains(&"column-drop".into()),
        "{found:#?}"
    );
    client.shutdown();
}

#[test]
fn table_names_and_rule_names_are_completed() {
    let (_dir, root) = lake();
    let path = root.join("migrations/dim_users/0003_next.sql");
    let text = "-- fieldgate: allow column-drop, type-\nALTER TABLE lake_prod.\n";
    let mut client = Client::start();
    let uri = client.open(&path, text);
    client.diagnostics(&uri, 1);

    // The tables of fieldgate.yaml under the namespace written, each replacing what follows it.
    let (labels, range) = client.completions(&uri, 1, 22);
    assert_eq!(labels, ["lake_prod.dim_users", "lake_prod.fact_orders"]);
    assert_eq!(range["start"], json!({"line": 1, "character": 22}));
    let at = json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 22}});
    let items = client
        .request("textDocument/completion", at)
        .result
        .unwrap();
    assert_eq!(items[0]["textEdit"]["newText"], "dim_users");
    let (labels, range) = client.completions(&uri, 1, 12);
    assert_eq!(labels.len(), 2, "{labels:?}");
    assert_eq!(range["end"], json!({"line": 1, "character": 12}));

    // An unsaved fieldgate.yaml lists the tables offered.
    let config = root.join("fieldgate.yaml");
    let configured = fs::read_to_string(&config).unwrap().replace(
        "tables:\n",
        "tables:\n  lake_prod.dim_users_v2:\n    metadata: warehouse/lake_prod/dim_users\n",
    );
    let config_uri = client.open(&config, &configured);
    client.diagnostics(&config_uri, 1);
    let (labels, _) = client.completions(&uri, 1, 22);
    assert!(
        labels.contains(&"lake_prod.dim_users_v2".into()),
        "{labels:?}"
    );

    // Rule names in the suppression's list, replacing the name being typed.
    let (labels, range) = client.completions(&uri, 0, 38);
    assert!(labels.contains(&"type-narrowing".into()), "{labels:?}");
    assert!(labels.contains(&"column-drop".into()), "{labels:?}");
    assert_eq!(range["start"], json!({"line": 0, "character": 33}));
    // Nowhere else in the comment.
    let (labels, _) = client.completions(&uri, 0, 10);
    assert!(labels.is_empty(), "{labels:?}");
    client.shutdown();
}
