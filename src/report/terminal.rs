//! Text from the input as a terminal may show it: control characters and the escape sequences
//! they start (cursor movement, colour, an OSC 52 clipboard write, a title change) and the
//! bidirectional overrides that reorder what a reader sees are written as visible `\u{..}`
//! escapes, never sent raw. Line breaks and tabs are kept (a quoted snippet has lines), and so
//! is the CR of a CRLF line end; a lone CR, which would let a line overwrite itself, is not.

use std::borrow::Cow;

/// Whether `c` at `next` (the character after it) must be shown escaped.
fn dangerous(c: char, next: Option<char>) -> bool {
    match c {
        '\n' | '\t' => false,
        '\r' => next != Some('\n'),
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' => true,
        '\u{061C}' => true,
        _ => c.is_control(),
    }
}

fn visible(c: char) -> String {
    match c {
        '\r' => "\\r".to_string(),
        _ => format!("\\u{{{:x}}}", c as u32),
    }
}

/// `text` with every dangerous character escaped (borrowed when there is none).
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_mapped(text).0
}

/// `text` escaped, and the byte offsets of the original mapped into the escaped text, so
/// spans found in the original still point at the same characters.
pub fn escape_mapped(text: &str) -> (Cow<'_, str>, OffsetMap) {
    let mut chars = text.char_indices().peekable();
    let mut out: Option<String> = None;
    let mut shifts = Vec::new();
    let mut copied = 0;
    while let Some((at, c)) = chars.next() {
        if !dangerous(c, chars.peek().map(|(_, n)| *n)) {
            continue;
        }
        let buffer = out.get_or_insert_with(|| String::with_capacity(text.len() + 16));
        buffer.push_str(&text[copied..at]);
        let shown = visible(c);
        buffer.push_str(&shown);
        copied = at + c.len_utf8();
        let before = shifts.last().map_or(0, |(_, s)| *s);
        shifts.push((copied, before + shown.len() - c.len_utf8()));
    }
    let escaped = match out {
        None => Cow::Borrowed(text),
        Some(mut buffer) => {
            buffer.push_str(&text[copied..]);
            Cow::Owned(buffer)
        }
    };
    (escaped, OffsetMap { shifts })
}

/// Byte offsets of an original text in its escaped form.
pub struct OffsetMap {
    /// (offset in the original just past an escaped character, total growth up to there).
    shifts: Vec<(usize, usize)>,
}

impl OffsetMap {
    pub fn offset(&self, original: usize) -> usize {
        let passed = self.shifts.partition_point(|(end, _)| *end <= original);
        original + passed.checked_sub(1).map_or(0, |i| self.shifts[i].1)
    }

    /// A span (offset, length) of the original in the escaped text.
    pub fn span(&self, offset: usize, len: usize) -> (usize, usize) {
        let start = self.offset(offset);
        (start, self.offset(offset + len) - start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_overrides_are_shown_not_sent() {
        assert_eq!(escape("plain\nline\tx\r\n"), "plain\nline\tx\r\n");
        assert_eq!(
            escape("a\u{1b}]52;c;ZXZpbA==\u{7}b\rc\u{202e}d"),
            "a\\u{1b}]52;c;ZXZpbA==\\u{7}b\\rc\\u{202e}d"
        );
        assert_eq!(escape("\u{9b}2J"), "\\u{9b}2J");
    }

    #[test]
    fn spans_keep_pointing_at_their_text() {
        let original = "x\u{1b}[2Jdrop col\u{7};";
        let (escaped, map) = escape_mapped(original);
        let at = original.find("col").unwrap();
        let (start, len) = map.span(at, 3);
        assert_eq!(&escaped[start..start + len], "col");
        assert_eq!(map.offset(0), 0);
        let (start, len) = map.span(original.find(';').unwrap(), 1);
        assert_eq!(&escaped[start..start + len], ";");
    }
}
