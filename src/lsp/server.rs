//! The main loop: initialize, then edits, hovers and code actions answered in order, judging
//! handed to the worker. Every request gets an answer: unknown methods `MethodNotFound`,
//! parameters that do not parse `InvalidParams`, a document the server does not hold an empty
//! result.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crossbeam_channel::Sender;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, Exit, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, Completion, HoverRequest, RegisterCapability, Request as _, Shutdown,
};
use lsp_types::{
    CodeActionParams, CodeActionProviderCapability, CompletionOptions, CompletionParams,
    Diagnostic, DidChangeTextDocumentParams, DidChangeWatchedFilesParams,
    DidChangeWatchedFilesRegistrationOptions, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, FileSystemWatcher, GlobPattern, HoverParams,
    HoverProviderCapability, InitializeParams, PositionEncodingKind, PublishDiagnosticsParams,
    Registration, RegistrationParams, SaveOptions, ServerCapabilities, ServerInfo,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, Url,
};
use serde::de::DeserializeOwned;

use crate::repo::config::CONFIG_FILE;

use super::links::{CataloguePages, cache_dir};
use super::text::{Encoding, apply_edit};
use super::transport::{self, log};
use super::worker::{Doc, Shared, Worker};
use super::{Judge, actions, complete, hover};

/// How long a document must be left alone before it is judged: a burst of keystrokes is judged
/// once, and a judgement of a 1,000-column table still lands well within 150 ms of the last.
const DEBOUNCE: Duration = Duration::from_millis(40);

/// Where a client asks for completion unprompted: after `DROP COLUMN `, `s.`, `struct<`,
/// `decimal(`, a list's `,`, a struct field's `:`.
const TRIGGERS: &[char] = &[' ', '.', '<', '(', ',', ':'];

/// Serves one client on stdio until it exits: `Ok(true)` when it asked for `shutdown` first
/// (exit code 0), `Ok(false)` when it exited or went away without (exit code 1, as the protocol
/// asks). `Err` only when the connection itself failed.
pub fn serve(judge: Arc<dyn Judge>) -> Result<bool, String> {
    let io = transport::stdio().map_err(|e| format!("cannot start the server: {e}"))?;
    let connection = Connection {
        sender: io.sender.clone(),
        receiver: io.receiver.clone(),
    };
    let (id, params) = connection
        .initialize_start()
        .map_err(|e| format!("the client did not initialize: {e}"))?;
    // A client's capabilities that do not parse are treated as none, not refused.
    let params: InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let encoding = encoding_of(&params);
    let result = serde_json::json!({
        "capabilities": capabilities(encoding),
        "serverInfo": ServerInfo { name: "fieldgate".into(), version: Some(env!("CARGO_PKG_VERSION").into()) },
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| format!("the client did not finish initializing: {e}"))?;
    if watches_dynamically(&params) {
        let _ = connection.sender.send(watch_registration().into());
    }

    let shared = Shared::new(DEBOUNCE);
    let worker = Worker {
        shared: Arc::clone(&shared),
        judge: Arc::clone(&judge),
        links: Box::new(CataloguePages::write_under(&cache_dir())),
        encoding,
        client: connection.sender.clone(),
    };
    thread::Builder::new()
        .name("lsp-judge".into())
        .spawn(move || worker.run())
        .map_err(|e| format!("cannot start judging: {e}"))?;
    // Neither the worker nor the writer is waited for at exit: a judgement of a large file may
    // still be running, and the client already has every answer it asked for (the shutdown
    // reply was written before it sent `exit`).
    let shut_down = main_loop(&connection, &shared, &*judge, encoding);
    shared.stop();
    Ok(shut_down)
}

/// Answers until `exit` or the end of input; whether `shutdown` came first. After `shutdown`,
/// requests are refused (`InvalidRequest`) and notifications ignored, as the protocol asks; a
/// client that closes the connection instead of sending `exit` has still shut the server down.
fn main_loop(
    connection: &Connection,
    shared: &Shared,
    judge: &dyn Judge,
    encoding: Encoding,
) -> bool {
    let mut shut_down = false;
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                let response = if request.method == Shutdown::METHOD {
                    shut_down = true;
                    Response::new_ok(request.id, ())
                } else if shut_down {
                    let message = "the server is shut down: only `exit` is accepted".to_string();
                    Response::new_err(request.id, ErrorCode::InvalidRequest as i32, message)
                } else {
                    answer(request, shared, judge, encoding)
                };
                let _ = connection.sender.send(response.into());
            }
            Message::Notification(notification) if notification.method == Exit::METHOD => {
                return shut_down;
            }
            Message::Notification(_) if shut_down => {}
            Message::Notification(notification) => {
                let sender = &connection.sender;
                if let Err(message) = notified(notification, shared, judge, encoding, sender) {
                    log(sender, message);
                }
            }
            Message::Response(_) => {}
        }
    }
    shut_down
}

fn capabilities(encoding: Encoding) -> ServerCapabilities {
    let sync = TextDocumentSyncOptions {
        open_close: Some(true),
        change: Some(TextDocumentSyncKind::INCREMENTAL),
        save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
            include_text: Some(false),
        })),
        ..TextDocumentSyncOptions::default()
    };
    ServerCapabilities {
        position_encoding: Some(match encoding {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(sync)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(TRIGGERS.iter().map(|c| c.to_string()).collect()),
            ..CompletionOptions::default()
        }),
        ..ServerCapabilities::default()
    }
}

/// UTF-8 when the client offers it (offsets are bytes already), else the default UTF-16.
fn encoding_of(params: &InitializeParams) -> Encoding {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
        _ => Encoding::Utf16,
    }
}

fn params<P: DeserializeOwned>(value: serde_json::Value) -> Result<P, String> {
    serde_json::from_value(value).map_err(|e| format!("invalid parameters: {e}"))
}

fn answer(request: Request, shared: &Shared, judge: &dyn Judge, encoding: Encoding) -> Response {
    let id = request.id.clone();
    let result = match request.method.as_str() {
        HoverRequest::METHOD => params::<HoverParams>(request.params).map(|p| {
            let at = p.text_document_position_params;
            let uri = &at.text_document.uri;
            let docs = shared.docs();
            let published = docs.published.get(uri).map_or(&[][..], Vec::as_slice);
            let tables = docs.known.get(uri).map_or(&[][..], |k| k.tables.as_slice());
            let hover = docs
                .open
                .get(uri)
                .and_then(|doc| hover::at(&doc.text, at.position, encoding, published, tables));
            serde_json::to_value(hover).unwrap_or_default()
        }),
        Completion::METHOD => params::<CompletionParams>(request.params).map(|p| {
            let at = p.text_document_position;
            let uri = &at.text_document.uri;
            let docs = shared.docs();
            let items = docs.open.get(uri).and_then(|doc| {
                let tables = || judge.tables(&doc.path, &docs.buffers());
                let around = complete::Around {
                    known: docs.known.get(uri).map(|k| &**k),
                    tables: &tables,
                    comment: comment_of(&doc.path),
                };
                complete::at(&doc.text, at.position, encoding, &around)
            });
            serde_json::to_value(items).unwrap_or_default()
        }),
        CodeActionRequest::METHOD => params::<CodeActionParams>(request.params).map(|p| {
            let uri = p.text_document.uri;
            let docs = shared.docs();
            let published = docs.published.get(&uri).map_or(&[][..], Vec::as_slice);
            let diagnostics = with_data(&p.context.diagnostics, published);
            serde_json::to_value(actions::quick_fixes(&uri, &diagnostics)).unwrap_or_default()
        }),
        other => {
            let message = format!("fieldgate's server does not handle `{other}`");
            return Response::new_err(id, ErrorCode::MethodNotFound as i32, message);
        }
    };
    match result {
        Ok(value) => Response::new_ok(id, value),
        Err(message) => Response::new_err(id, ErrorCode::InvalidParams as i32, message),
    }
}

/// The client's diagnostics with the `data` the server published them with, for clients that
/// do not send it back.
fn with_data(given: &[Diagnostic], published: &[Diagnostic]) -> Vec<Diagnostic> {
    given
        .iter()
        .map(|d| match &d.data {
            Some(_) => d.clone(),
            None => published
                .iter()
                .find(|p| p.range == d.range && p.code == d.code && p.message == d.message)
                .unwrap_or(d)
                .clone(),
        })
        .collect()
}

/// A closed file's findings are no longer the editor's to show (a judgement still running for
/// it is dropped: the document is gone). The others now read it from disk.
fn close(uri: Url, shared: &Shared, client: &Sender<Message>) {
    let closed = {
        let mut docs = shared.docs();
        docs.published.remove(&uri);
        docs.known.remove(&uri);
        docs.open.remove(&uri)
    };
    let cleared = PublishDiagnosticsParams::new(uri, Vec::new(), None);
    let notification = Notification::new(PublishDiagnostics::METHOD.into(), cleared);
    let _ = client.send(notification.into());
    if closed.is_some() {
        shared.schedule_all();
    }
}

fn notified(
    notification: Notification,
    shared: &Shared,
    judge: &dyn Judge,
    encoding: Encoding,
    client: &Sender<Message>,
) -> Result<(), String> {
    match notification.method.as_str() {
        DidOpenTextDocument::METHOD => opened(params(notification.params)?, shared)?,
        DidChangeTextDocument::METHOD => changed(params(notification.params)?, shared, encoding)?,
        DidCloseTextDocument::METHOD => {
            let p: DidCloseTextDocumentParams = params(notification.params)?;
            close(p.text_document.uri, shared, client);
        }
        // A saved file is what the other open documents read when it is not open.
        DidSaveTextDocument::METHOD => shared.schedule_all(),
        // Judging reads the configuration, the version hints and `HEAD` from disk each time and
        // keeps a table only while its file or blob is unchanged: forgetting the tables (a tool
        // may have rewritten one keeping its size and time) and judging the open documents
        // again is reloading them.
        DidChangeWatchedFiles::METHOD => {
            let p: DidChangeWatchedFilesParams = params(notification.params)?;
            if p.changes.iter().any(|change| affects_judging(&change.uri)) {
                judge.forget();
                shared.schedule_all();
            }
        }
        _ => {}
    }
    Ok(())
}

fn opened(p: DidOpenTextDocumentParams, shared: &Shared) -> Result<(), String> {
    let doc = p.text_document;
    let path = local_path(&doc.uri)?;
    let text = Arc::new(doc.text);
    let open = Doc {
        path,
        text,
        version: doc.version,
    };
    let routes = is_config(&open.path);
    shared.docs().open.insert(doc.uri.clone(), open);
    reschedule(shared, doc.uri, routes);
    Ok(())
}

/// Applies the edits to the open document, then judges it (and what it routes) again.
fn changed(
    p: DidChangeTextDocumentParams,
    shared: &Shared,
    encoding: Encoding,
) -> Result<(), String> {
    let uri = p.text_document.uri;
    let routes = {
        let mut docs = shared.docs();
        let Some(doc) = docs.open.get_mut(&uri) else {
            return Err(format!("`{uri}` changed but was never opened"));
        };
        let text = Arc::make_mut(&mut doc.text);
        for change in p.content_changes {
            match change.range {
                Some(range) => apply_edit(text, range, &change.text, encoding),
                None => *text = change.text,
            }
        }
        doc.version = p.text_document.version;
        is_config(&doc.path)
    };
    reschedule(shared, uri, routes);
    Ok(())
}

/// Files whose change on disk changes what open documents are judged against. The tables are
/// judged as `HEAD` holds them, and what is not committed yet comes before the open file: a
/// branch switch rewrites `.git/HEAD`, a commit moves the current branch's ref (a loose file
/// under `.git/refs/heads`, or a line of `.git/packed-refs`) without touching `.git/HEAD`.
const WATCHED: &[&str] = &[
    "**/fieldgate.yaml",
    "**/*.metadata.json",
    "**/*.metadata.json.gz",
    "**/version-hint.text",
    "**/.git/HEAD",
    "**/.git/packed-refs",
    "**/.git/refs/heads/**",
];

/// Whether the client can be asked to watch files (`client/registerCapability`).
fn watches_dynamically(params: &InitializeParams) -> bool {
    let workspace = params.capabilities.workspace.as_ref();
    let watched = workspace.and_then(|w| w.did_change_watched_files.as_ref());
    watched.and_then(|w| w.dynamic_registration) == Some(true)
}

/// The request that has the client report changes to the [`WATCHED`] files.
fn watch_registration() -> Request {
    let watchers = WATCHED
        .iter()
        .map(|glob| FileSystemWatcher {
            glob_pattern: GlobPattern::String(glob.to_string()),
            kind: None,
        })
        .collect();
    let options = DidChangeWatchedFilesRegistrationOptions { watchers };
    let registration = Registration {
        id: "fieldgate-watched-files".into(),
        method: DidChangeWatchedFiles::METHOD.into(),
        register_options: serde_json::to_value(options).ok(),
    };
    let params = RegistrationParams {
        registrations: vec![registration],
    };
    Request::new(
        RequestId::from("fieldgate-watch".to_string()),
        RegisterCapability::METHOD.into(),
        params,
    )
}

/// Whether a changed file is one [`WATCHED`] names (a client that watches statically may
/// report any file).
fn affects_judging(uri: &Url) -> bool {
    let Some(segments) = uri.path_segments() else {
        return false;
    };
    let segments: Vec<&str> = segments.collect();
    let Some((&name, folders)) = segments.split_last() else {
        return false;
    };
    let in_git = folders.last() == Some(&".git");
    name == CONFIG_FILE
        || name == "version-hint.text"
        || name.ends_with(".metadata.json")
        || name.ends_with(".metadata.json.gz")
        || (in_git && (name == "HEAD" || name == "packed-refs"))
        || folders.windows(3).any(|w| w == [".git", "refs", "heads"])
}

/// How a line comment starts in the file: `--` in SQL, `#` in a YAML schema file.
fn comment_of(path: &Path) -> &'static str {
    match path.extension().and_then(OsStr::to_str) {
        Some(ext) if ext.eq_ignore_ascii_case("sql") => "--",
        _ => "#",
    }
}

/// Whether a file is a `fieldgate.yaml`, whose text routes every other open file.
fn is_config(path: &Path) -> bool {
    path.file_name() == Some(OsStr::new(CONFIG_FILE))
}

/// The changed document judged again, then every other open one (its text may be what they
/// start from); all at once when it was a configuration.
fn reschedule(shared: &Shared, uri: Url, routes: bool) {
    match routes {
        true => shared.schedule_all(),
        false => shared.schedule_first(uri),
    }
}

/// The file a URI names, absolute and with links resolved as far as it exists, so it compares
/// with the paths judging reports.
fn local_path(uri: &Url) -> Result<PathBuf, String> {
    let path = uri
        .to_file_path()
        .map_err(|()| format!("`{uri}` is not a local file"))?;
    Ok(canonical(&path))
}

fn canonical(path: &Path) -> PathBuf {
    if let Ok(real) = path.canonicalize() {
        return real;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => canonical(parent).join(name),
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn affects(path: &str) -> bool {
        affects_judging(&Url::parse(&format!("file:///repo/{path}")).unwrap())
    }

    #[test]
    fn a_commit_or_a_switch_is_a_change_that_affects_judging() {
        for path in [
            ".git/HEAD",
            ".git/packed-refs",
            ".git/refs/heads/main",
            ".git/refs/heads/feature/x",
            "fieldgate.yaml",
            "warehouse/t/metadata/v2.metadata.json",
            "warehouse/t/metadata/version-hint.text",
        ] {
            assert!(affects(path), "{path}");
        }
        for path in [
            "HEAD",
            ".git/refs/tags/v1",
            ".git/refs/remotes/origin/main",
            ".git/index",
            "refs/heads/main",
            "migrations/0001.sql",
        ] {
            assert!(!affects(path), "{path}");
        }
    }
}
