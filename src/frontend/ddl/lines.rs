//! Converts sqlparser's token locations (1-based line and column, the column counted in chars)
//! into the byte offsets every other layer speaks, and back.
//!
//! The table of line starts is built once per file. Lines that are pure ASCII (almost all SQL)
//! convert in constant time; others walk their chars.

use sqlparser::tokenizer::Location;

use crate::span::{line_in, starts_of};

pub(crate) struct LineIndex<'t> {
    text: &'t str,
    /// Byte offset of the first byte of each line. sqlparser only counts `\n` as a line break
    /// (a `\r` is an ordinary column), so this table does the same.
    starts: Vec<usize>,
    ascii: Vec<bool>,
}

impl<'t> LineIndex<'t> {
    pub(crate) fn new(text: &'t str) -> LineIndex<'t> {
        let starts: Vec<usize> = starts_of(text);
        let ascii = starts
            .iter()
            .enumerate()
            .map(|(line, &start)| {
                let end = starts.get(line + 1).copied().unwrap_or(text.len());
                text.as_bytes()
                    .get(start..end)
                    .is_none_or(|bytes| bytes.is_ascii())
            })
            .collect();
        LineIndex {
            text,
            starts,
            ascii,
        }
    }

    pub(crate) fn text(&self) -> &'t str {
        self.text
    }

    /// The byte offset of a location, clamped to the text and always on a char boundary. `None`
    /// for sqlparser's empty location (line 0), which it gives the synthetic end-of-input token.
    pub(crate) fn offset(&self, location: Location) -> Option<usize> {
        let line = usize::try_from(location.line).ok()?.checked_sub(1)?;
        let column = usize::try_from(location.column).ok()?.checked_sub(1)?;
        let Some(&start) = self.starts.get(line) else {
            return Some(self.text.len());
        };
        if self.ascii.get(line).copied().unwrap_or(false) {
            return Some(start.saturating_add(column).min(self.text.len()));
        }
        let rest = self.text.get(start..).unwrap_or("");
        Some(
            rest.char_indices()
                .nth(column)
                .map_or(self.text.len(), |(i, _)| start + i),
        )
    }

    /// The location of a byte offset (which must be a char boundary; others are rounded down).
    pub(crate) fn location(&self, offset: usize) -> Location {
        let offset = offset.min(self.text.len());
        let line = line_in(&self.starts, offset);
        let start = self.starts.get(line).copied().unwrap_or(0);
        // Constant time on an ASCII line: the tokenizer is restarted after each misread Spark
        // raw string, so a long line may be located thousands of times.
        let ascii = self.ascii.get(line).copied().unwrap_or(false);
        let column = match self.text.get(start..offset) {
            Some(s) if !ascii => s.chars().count(),
            _ => offset - start,
        };
        Location::new(line as u64 + 1, column as u64 + 1)
    }
}

/// Moves a location measured from the start of a slice of the text to the whole text, given
/// where the slice starts. Used when tokenizing resumes in the middle of a file.
pub(crate) fn rebase(location: Location, base: Location) -> Location {
    match location.line {
        0 => location,
        1 => Location::new(base.line, (base.column + location.column).saturating_sub(1)),
        line => Location::new(base.line + line - 1, location.column),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_and_unicode_lines_convert_both_ways() {
        let text = "ab\ncé d\r\nx";
        let lines = LineIndex::new(text);
        assert_eq!(lines.offset(Location::new(1, 1)), Some(0));
        assert_eq!(lines.offset(Location::new(2, 1)), Some(3));
        // `é` is two bytes: column 4 (`d`) is byte 7.
        assert_eq!(lines.offset(Location::new(2, 4)), Some(7));
        assert_eq!(lines.offset(Location::new(3, 1)), Some(10));
        assert_eq!(lines.offset(Location::new(3, 2)), Some(11));
        assert_eq!(lines.offset(Location::new(0, 0)), None);
        // Past the end clamps rather than panicking.
        assert_eq!(lines.offset(Location::new(9, 9)), Some(text.len()));
        assert_eq!(lines.offset(Location::new(2, 99)), Some(text.len()));
        for offset in [0, 1, 3, 4, 6, 7, 10, 11] {
            assert_eq!(
                lines.offset(lines.location(offset)),
                Some(offset),
                "{offset}"
            );
        }
    }

    #[test]
    fn rebase_shifts_first_line_columns_only() {
        let base = Location::new(3, 5);
        assert_eq!(rebase(Location::new(1, 1), base), Location::new(3, 5));
        assert_eq!(rebase(Location::new(1, 3), base), Location::new(3, 7));
        assert_eq!(rebase(Location::new(2, 3), base), Location::new(4, 3));
        assert_eq!(rebase(Location::new(0, 0), base), Location::new(0, 0));
    }
}
