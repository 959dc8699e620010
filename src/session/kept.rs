//! Tables parsed once and kept between judgements, for the editor's server: it judges on every
//! keystroke, and parsing a large table's metadata again each time (7.9 MB for 1,000 columns
//! and 100 schemas) would cost more than the judging itself. A table is kept by what it was
//! read from: a git blob by its id (a blob's id names its content), a working-tree file by its
//! path, size and modification time; and by the name reports give it. A change there makes a
//! new key, so a stale table is never used; [`forget`] drops them all, for a file the editor
//! saw change that kept its size and time.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::SystemTime;

use crate::failure::Failure;
use crate::repo::location::TableLocation;
use crate::session::input::LoadedTable;

/// What a table was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadFrom {
    Blob(git2::Oid),
    File {
        path: PathBuf,
        len: u64,
        modified: Option<SystemTime>,
    },
}

impl ReadFrom {
    /// A working-tree file as it is now; `None` when it cannot be looked at (reading it then
    /// fails on its own).
    pub fn file(path: PathBuf) -> Option<ReadFrom> {
        let stat = std::fs::metadata(&path).ok()?;
        Some(ReadFrom::File {
            path,
            len: stat.len(),
            modified: stat.modified().ok(),
        })
    }
}

/// A kept table's key: where it was read from and the name its source is shown by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub from: ReadFrom,
    pub name: String,
}

/// How many tables are kept: those of the files an editor has open, and a few it had; each
/// costs about three times its metadata's size.
const KEPT: usize = 8;

struct Kept {
    /// Oldest first.
    tables: Vec<(Key, LoadedTable)>,
    /// Counts [`forget`]s, so a table read before one is not kept after it.
    generation: u64,
}

static KEPT_TABLES: Mutex<Kept> = Mutex::new(Kept {
    tables: Vec::new(),
    generation: 0,
});

fn kept() -> MutexGuard<'static, Kept> {
    KEPT_TABLES.lock().unwrap_or_else(|p| p.into_inner())
}

/// The table read from `key`, found at `location`: the kept one, else the one `read` reads and
/// parses, then kept. Nothing is kept of a read that fails or finds no table (it runs again).
pub fn table(
    key: Key,
    location: TableLocation,
    read: impl FnOnce(TableLocation) -> Result<Option<LoadedTable>, Failure>,
) -> Result<Option<LoadedTable>, Failure> {
    let generation = {
        let mut kept = kept();
        if let Some(at) = kept.tables.iter().position(|(k, _)| *k == key) {
            let entry = kept.tables.remove(at);
            let found = LoadedTable {
                location,
                ..entry.1.clone()
            };
            kept.tables.push(entry);
            return Ok(Some(found));
        }
        kept.generation
    };
    let Some(table) = read(location)? else {
        return Ok(None);
    };
    let mut kept = kept();
    if kept.generation == generation {
        if kept.tables.len() >= KEPT {
            kept.tables.remove(0);
        }
        kept.tables.push((key, table.clone()));
    }
    Ok(Some(table))
}

/// Every kept table dropped: the next judgement reads each again.
pub fn forget() {
    let mut kept = kept();
    kept.tables.clear();
    kept.generation += 1;
}
