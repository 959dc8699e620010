//! Judging off the main loop. A change schedules its document after a short quiet time
//! (debounce), so a burst of keystrokes costs one judgement; the worker judges a snapshot of the
//! open buffers and publishes only if the document has not changed meanwhile (a stale result is
//! dropped, the newer version is already scheduled). The main loop never waits for a judgement,
//! so hovers and edits are answered while a large file is judged.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;
use lsp_server::{Message, Notification};
use lsp_types::notification::{Notification as _, PublishDiagnostics};
use lsp_types::{Diagnostic, PublishDiagnosticsParams, Url};

use super::diagnostics::{RuleLinks, of_file};
use super::text::Encoding;
use super::transport::log;
use super::{Buffers, Judge, TableState, Verdict};
use crate::frontend::ddl::Dialect;

/// One open document.
#[derive(Clone)]
pub struct Doc {
    pub path: PathBuf,
    pub text: Arc<String>,
    pub version: i32,
}

/// The tables a judgement of a document touched, with the text it judged (the spans of its
/// statements are in that text) and the document's dialect. A judgement that stopped at an
/// error (the statement being typed does not parse yet) leaves the last one in place.
pub struct Known {
    pub text: Arc<String>,
    pub dialect: Dialect,
    pub tables: Vec<TableState>,
}

#[derive(Default)]
pub struct Docs {
    pub open: HashMap<Url, Doc>,
    /// The diagnostics last published, for hovers on them.
    pub published: HashMap<Url, Vec<Diagnostic>>,
    /// What each document's last judgement that reached its tables knew, for hovers on columns
    /// and completion.
    pub known: HashMap<Url, Arc<Known>>,
    pending: HashMap<Url, Instant>,
    stopped: bool,
}

impl Docs {
    /// The open documents' texts by path, as judging reads them.
    pub fn buffers(&self) -> Buffers {
        let texts = self.open.values();
        texts
            .map(|d| (d.path.clone(), Arc::clone(&d.text)))
            .collect()
    }
}

/// What the main loop and the worker share.
pub struct Shared {
    docs: Mutex<Docs>,
    wake: Condvar,
    debounce: Duration,
}

impl Shared {
    pub fn new(debounce: Duration) -> Arc<Shared> {
        Arc::new(Shared {
            docs: Mutex::new(Docs::default()),
            wake: Condvar::new(),
            debounce,
        })
    }

    /// The documents; a worker that panicked while holding them left them usable.
    pub fn docs(&self) -> MutexGuard<'_, Docs> {
        self.docs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `uri` judged once the debounce has passed, and then the open documents after it in
    /// path order: an earlier migration's text is what the later ones of its table start from.
    pub fn schedule_first(&self, uri: Url) {
        let mut docs = self.docs();
        let first = Instant::now() + self.debounce;
        let others = first + self.debounce;
        let Some(path) = docs.open.get(&uri).map(|d| d.path.clone()) else {
            return;
        };
        let later = docs.open.iter().filter(|(_, d)| d.path > path);
        let uris: Vec<Url> = later.map(|(u, _)| u.clone()).collect();
        docs.pending.extend(uris.into_iter().map(|u| (u, others)));
        docs.pending.insert(uri, first);
        self.wake.notify_one();
    }

    /// Every open document judged again (a saved file or configuration changes the others).
    pub fn schedule_all(&self) {
        let mut docs = self.docs();
        let at = Instant::now() + self.debounce;
        let uris: Vec<Url> = docs.open.keys().cloned().collect();
        docs.pending.extend(uris.into_iter().map(|uri| (uri, at)));
        self.wake.notify_one();
    }

    pub fn stop(&self) {
        self.docs().stopped = true;
        self.wake.notify_all();
    }

    /// The next document due, waiting for it; `None` once stopped.
    fn next_due(&self) -> Option<(Url, Doc, Buffers)> {
        let mut docs = self.docs();
        loop {
            if docs.stopped {
                return None;
            }
            let now = Instant::now();
            let due = docs
                .pending
                .iter()
                .min_by_key(|(_, at)| **at)
                .map(|(u, at)| (u.clone(), *at));
            docs = match due {
                None => self.wake.wait(docs).unwrap_or_else(|p| p.into_inner()),
                Some((_, at)) if at > now => {
                    let waited = self.wake.wait_timeout(docs, at - now);
                    waited.map_or_else(|p| p.into_inner().0, |(docs, _)| docs)
                }
                Some((uri, _)) => {
                    docs.pending.remove(&uri);
                    let Some(doc) = docs.open.get(&uri).cloned() else {
                        continue;
                    };
                    let buffers = docs.buffers();
                    return Some((uri, doc, buffers));
                }
            };
        }
    }
}

/// What the worker needs besides the shared documents.
pub struct Worker {
    pub shared: Arc<Shared>,
    pub judge: Arc<dyn Judge>,
    pub links: Box<dyn RuleLinks + Send>,
    pub encoding: Encoding,
    pub client: Sender<Message>,
}

impl Worker {
    pub fn run(self) {
        while let Some((uri, doc, buffers)) = self.shared.next_due() {
            let judged = catch_unwind(AssertUnwindSafe(|| self.judge.judge(&doc.path, &buffers)));
            let Ok(verdict) = judged else {
                log(
                    &self.client,
                    format!("judging `{}` failed unexpectedly", doc.path.display()),
                );
                continue;
            };
            if let Some(reason) = &verdict.skipped {
                log(
                    &self.client,
                    format!("`{}` is not judged: {reason}", doc.path.display()),
                );
            }
            let diagnostics = of_file(&verdict, &doc.path, &doc.text, self.encoding, &*self.links);
            let mut docs = self.shared.docs();
            let current = docs.open.get(&uri).map(|d| d.version);
            if current != Some(doc.version) || docs.pending.contains_key(&uri) {
                continue;
            }
            docs.published.insert(uri.clone(), diagnostics.clone());
            remember(&mut docs, &uri, &doc, verdict);
            let params = PublishDiagnosticsParams::new(uri, diagnostics, Some(doc.version));
            let notification = Notification::new(PublishDiagnostics::METHOD.into(), params);
            let _ = self.client.send(notification.into());
        }
    }
}

/// What a judgement knew of the document's tables, kept unless it stopped before reaching them.
fn remember(docs: &mut Docs, uri: &Url, doc: &Doc, verdict: Verdict) {
    let stopped = !verdict.errors.is_empty() && verdict.tables.is_empty();
    if verdict.skipped.is_some() {
        docs.known.remove(uri);
    } else if !stopped {
        let known = Known {
            text: Arc::clone(&doc.text),
            dialect: verdict.dialect.unwrap_or_default(),
            tables: verdict.tables,
        };
        docs.known.insert(uri.clone(), Arc::new(known));
    }
}
