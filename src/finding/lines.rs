//! Lines and columns of places in a shared source, with the source's line starts indexed once:
//! counting the line breaks before each place anew made a report of F findings in a long
//! migration cost F times the file (20,000 re-adds of one column took minutes to report).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Weak};

use crate::change::{Source, SourceFile};
use crate::span::{line_in, starts_of};

/// Below this a text is scanned directly: indexing it costs more than it saves.
const INDEXED_FROM: usize = 64 * 1024;

/// At most this many sources keep an index; past it the dropped ones are forgotten.
const KEPT: usize = 64;

type Index = (Weak<SourceFile>, Arc<[usize]>);

thread_local! {
    /// By the source's address. The `Weak` keeps the allocation alive, so an address is never
    /// another source's while its entry is kept.
    static INDEXES: RefCell<HashMap<*const SourceFile, Index>> = RefCell::new(HashMap::new());
}

/// The 1-based line and column (in characters) of byte `offset` of `source`, as
/// [`super::line_col`] counts them.
pub fn line_col_of(source: &Source, offset: usize) -> (usize, usize) {
    let text = &source.text;
    let offset = offset.min(text.len());
    if text.len() < INDEXED_FROM || !text.is_char_boundary(offset) {
        return super::line_col(text, offset);
    }
    let starts = line_starts(source);
    let line = line_in(&starts, offset);
    let line_start = starts[line];
    (line + 1, text[line_start..offset].chars().count() + 1)
}

fn line_starts(source: &Source) -> Arc<[usize]> {
    INDEXES.with(|indexes| {
        let mut indexes = indexes.borrow_mut();
        let key = Arc::as_ptr(source);
        if let Some((_, starts)) = indexes.get(&key) {
            return starts.clone();
        }
        if indexes.len() >= KEPT {
            indexes.retain(|_, (weak, _)| weak.strong_count() > 0);
        }
        let starts: Arc<[usize]> = starts_of(&source.text);
        if indexes.len() < KEPT {
            indexes.insert(key, (Arc::downgrade(source), starts.clone()));
        }
        starts
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_indexed_source_is_located_as_a_scanned_one() {
        let text = "ab\ncé\r\n\nxyz\n".repeat(INDEXED_FROM / 8);
        let source = Arc::new(SourceFile {
            name: "m.sql".into(),
            text: text.clone(),
        });
        for offset in [
            0,
            1,
            2,
            3,
            5,
            6,
            8,
            9,
            13,
            text.len() / 2,
            text.len() - 1,
            text.len(),
            text.len() + 5,
        ] {
            assert_eq!(
                line_col_of(&source, offset),
                super::super::line_col(&text, offset),
                "{offset}"
            );
        }
    }
}
