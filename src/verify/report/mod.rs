//! `verify` output, one file per format. Each is a [`Sink`](crate::verify::read::Sink): the human
//! report streams (a file's columns, then its rows as they are read, then its totals); the JSON
//! report is one document, with rows spilled to a temporary file while files are read so memory
//! stays bounded whatever `--rows` asks for.

pub mod human;
pub mod json;

use std::io;

use crate::verify::read::FileReport;

/// The error text of a write to a reader that went away (`fieldgate verify ... | head`): not a
/// failure of the verification.
pub const BROKEN_PIPE: &str = "broken pipe";

pub fn io_error(e: io::Error) -> String {
    if e.kind() == io::ErrorKind::BrokenPipe {
        BROKEN_PIPE.into()
    } else {
        e.to_string()
    }
}

/// What the whole run verified.
pub struct Summary<'a> {
    /// The metadata the table schema came from, as given.
    pub metadata: &'a str,
    pub schema_id: i32,
    pub format_version: u8,
    /// Top-level table columns, in order: the keys of every printed row.
    pub columns: Vec<String>,
    pub files: Vec<FileReport>,
}

impl Summary<'_> {
    pub fn passed(&self) -> bool {
        self.files.iter().all(FileReport::passed)
    }

    pub fn rows(&self) -> u64 {
        self.files.iter().map(|f| f.rows).sum()
    }
}

/// `1.2 KiB`, `840 B`.
pub fn bytes(n: u64) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0))
    }
}
