//! `verify` output, one file per format. Each is a [`Sink`](crate::verify::read::Sink): the human
//! report streams (a file's columns, then its rows as they are read, then its totals); the JSON
//! report is one document, with rows spilled to a temporary file while files are read so memory
//! stays bounded whatever `--rows` asks for.

pub mod human;
pub mod json;

use std::io;

use crate::verify::read::FileReport;
use crate::verify::resolve::Status;

/// A failed write as the report's error text (a reader that went away is no error: `main`'s
/// `QuietPipe` absorbs it).
pub fn io_error(e: io::Error) -> String {
    e.to_string()
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

/// What a reader does differently from reading each column as written, one short note per
/// column (`` `mobile` from `phone` ``, `` `age` int -> long ``, `` `vip` null ``, pruned
/// columns): the gate reports' one-line account of a file.
pub fn column_notes(f: &FileReport) -> Vec<String> {
    let mut notes: Vec<String> = f
        .columns
        .iter()
        .filter_map(|c| {
            let file = c.file_column.as_deref().unwrap_or("?");
            Some(match c.status {
                Status::Resolved if file == c.path => return None,
                Status::Resolved => format!("`{}` from `{file}`", c.path),
                Status::Promoted => format!(
                    "`{}` {} -> {}",
                    c.path,
                    c.file_type.as_deref().unwrap_or("?"),
                    c.table_type
                ),
                Status::MissingNull => format!("`{}` null", c.path),
                Status::MissingDefault => format!(
                    "`{}` {}",
                    c.path,
                    c.detail.as_deref().unwrap_or("initial-default")
                ),
                Status::PartitionValue => format!(
                    "`{}` {}",
                    c.path,
                    c.detail.as_deref().unwrap_or("identity-partition value")
                ),
                Status::NotRead => format!("`{}` not read", c.path),
                Status::Incompatible => format!("`{}` INCOMPATIBLE", c.path),
                Status::MissingRequired => format!("`{}` MISSING (required)", c.path),
            })
        })
        .collect();
    notes.extend(
        f.pruned
            .iter()
            .map(|p| format!("`{}` pruned", p.file_column)),
    );
    notes
}
