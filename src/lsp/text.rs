//! Byte offsets (what findings carry) and LSP positions (lines and columns in the encoding the
//! client and server agreed on) converted both ways, and incremental edits applied to a buffer.
//! A position past the end of a line or of the text is clamped, never an error: clients send
//! stale positions while the user types.

use lsp_types::{Position, Range};

/// How columns are counted: UTF-16 code units (the protocol's default) or UTF-8 bytes, when the
/// client offers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// The start offset of every line of one text, for conversions that cost a binary search.
pub struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    pub fn new(text: &'t str) -> Lines<'t> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    /// The position of a byte offset (rounded down to a character boundary).
    pub fn position(&self, offset: usize, encoding: Encoding) -> Position {
        let offset = floor_boundary(self.text, offset.min(self.text.len()));
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let before = &self.text[self.starts[line]..offset];
        let character = match encoding {
            Encoding::Utf8 => before.len(),
            Encoding::Utf16 => before.encode_utf16().count(),
        };
        Position::new(saturate(line), saturate(character))
    }

    pub fn range(&self, offset: usize, len: usize, encoding: Encoding) -> Range {
        Range::new(
            self.position(offset, encoding),
            self.position(offset.saturating_add(len), encoding),
        )
    }

    /// The byte offset of a position; past a line's end is its end, past the last line the end.
    pub fn offset(&self, position: Position, encoding: Encoding) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(position.line as usize + 1)
            .map_or(self.text.len(), |next| next - 1);
        let line = &self.text[start..end];
        let wanted = position.character as usize;
        let within = match encoding {
            Encoding::Utf8 => floor_boundary(line, wanted.min(line.len())),
            Encoding::Utf16 => {
                let mut units = 0;
                line.char_indices()
                    .find(|(_, c)| {
                        units += c.len_utf16();
                        units > wanted
                    })
                    .map_or(line.len(), |(i, _)| i)
            }
        };
        start + within
    }
}

/// Replaces `range` of `text` with `new` (an incremental `didChange`).
pub fn apply_edit(text: &mut String, range: Range, new: &str, encoding: Encoding) {
    let lines = Lines::new(text);
    let start = lines.offset(range.start, encoding);
    let end = lines.offset(range.end, encoding).max(start);
    text.replace_range(start..end, new);
}

/// The identifier-like word (letters, digits, `_`, `-`, `.`) around a byte offset, with its start.
pub fn word_at(text: &str, offset: usize) -> Option<(usize, &str)> {
    let offset = floor_boundary(text, offset.min(text.len()));
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '-' || c == '.';
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(offset, |(i, _)| i);
    let end = text[offset..]
        .char_indices()
        .find(|(_, c)| !is_word(*c))
        .map_or(text.len(), |(i, _)| offset + i);
    // Punctuation at the edges (`--`, a trailing `.`) is not part of a name.
    let edge = |c: char| c == '-' || c == '.';
    let word = &text[start..end];
    let trimmed = word.trim_start_matches(edge);
    let start = start + (word.len() - trimmed.len());
    let trimmed = trimmed.trim_end_matches(edge);
    (!trimmed.is_empty()).then_some((start, trimmed))
}

fn floor_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_or_bytes() {
        let text = "ab\nqé𝄞x\n";
        let lines = Lines::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(lines.position(x, Encoding::Utf16), Position::new(1, 4));
        assert_eq!(lines.position(x, Encoding::Utf8), Position::new(1, 7));
        assert_eq!(lines.offset(Position::new(1, 4), Encoding::Utf16), x);
        assert_eq!(lines.offset(Position::new(1, 7), Encoding::Utf8), x);
    }

    #[test]
    fn positions_out_of_range_are_clamped() {
        let text = "ab\ncd";
        let lines = Lines::new(text);
        assert_eq!(lines.offset(Position::new(0, 99), Encoding::Utf16), 2);
        assert_eq!(
            lines.offset(Position::new(9, 0), Encoding::Utf16),
            text.len()
        );
        assert_eq!(lines.position(999, Encoding::Utf16), Position::new(1, 2));
        // Inside a character: rounded down, never a panic.
        let wide = "é";
        assert_eq!(
            Lines::new(wide).position(1, Encoding::Utf8),
            Position::new(0, 0)
        );
        assert_eq!(
            Lines::new(wide).offset(Position::new(0, 1), Encoding::Utf8),
            0
        );
    }

    #[test]
    fn an_edit_replaces_its_range() {
        let mut text = String::from("ALTER TABLE t\nADD COLUMNS (a INT);\n");
        let range = Range::new(Position::new(1, 13), Position::new(1, 14));
        apply_edit(&mut text, range, "b", Encoding::Utf16);
        assert_eq!(text, "ALTER TABLE t\nADD COLUMNS (b INT);\n");
        // A reversed range inserts at its start.
        let reversed = Range::new(Position::new(0, 5), Position::new(0, 0));
        apply_edit(&mut text, reversed, "!", Encoding::Utf16);
        assert!(text.starts_with("ALTER! TABLE"));
    }

    #[test]
    fn the_word_at_an_offset() {
        let text = "-- fieldgate: allow type-narrowing -- why";
        let at = text.find("narrowing").unwrap();
        assert_eq!(word_at(text, at), Some((20, "type-narrowing")));
        assert_eq!(word_at(text, 2), None);
    }
}
