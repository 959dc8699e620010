//! `fieldgate lsp`: a Language Server Protocol 3.17 server over stdio. It holds the open
//! buffers, has them judged off the main loop (debounced, stale results dropped) by a [`Judge`]
//! the command layer supplies, and turns findings into diagnostics, hovers and code actions.
//! The protocol types are lsp-types'; the messages lsp-server's.

mod actions;
mod columns;
mod complete;
mod diagnostics;
mod hover;
mod links;
mod server;
mod text;
mod transport;
mod worker;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::change::{Source, Span};
use crate::finding::Finding;
use crate::frontend::ddl::Dialect;

pub use columns::TableState;
pub use server::serve;

/// The open buffers by absolute path: what is judged in place of the files on disk.
pub type Buffers = HashMap<PathBuf, Arc<String>>;

/// What judges one open file as `lint` would, with `buffers` in place of the files.
pub trait Judge: Send + Sync {
    fn judge(&self, path: &Path, buffers: &Buffers) -> Verdict;

    /// Files judging reads changed on disk: whatever was kept of them is read again.
    fn forget(&self);

    /// The tables the configuration that routes `path` lists (by `buffers`' text where open).
    fn tables(&self, path: &Path, buffers: &Buffers) -> Vec<String>;
}

/// One file's judgement: findings of every table it touched, errors that stopped judging (with
/// their place when they have one), and the root that source names are relative to.
#[derive(Default)]
pub struct Verdict {
    pub root: PathBuf,
    pub findings: Vec<Finding>,
    pub errors: Vec<Located>,
    /// Safer statements to offer in place of a finding's statement (a narrowing's new column).
    pub alternatives: Vec<Alternative>,
    /// The tables the file touches, for hovers on its columns and completion.
    pub tables: Vec<TableState>,
    /// The file's SQL dialect, when it was judged as a proposal.
    pub dialect: Option<Dialect>,
    /// Why the file was not judged (no `fieldgate.yaml`, not a proposal): logged, not shown as
    /// a diagnostic.
    pub skipped: Option<String>,
}

/// An error that stopped judging: located in a source, or (`source: None`) about the run.
pub struct Located {
    pub source: Option<Source>,
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
}

/// A statement to put in place of the one a finding is about.
pub struct Alternative {
    pub rule: &'static str,
    /// The statement's span in the judged file.
    pub statement: Span,
    pub title: String,
    pub text: String,
}
