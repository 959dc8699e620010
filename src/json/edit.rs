//! Text edits against the original file: replace a span or insert at an offset, then apply them
//! all at once.
//!
//! Every edit addresses the original text, so edits built from one parse never invalidate each
//! other's offsets; `apply` sorts them and copies the untouched text between them verbatim. That
//! is what makes a rewrite lossless: bytes nobody edited are the bytes that were read.

use super::node::Span;

/// Replace `span` of the original text with `text` (an empty span inserts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub span: Span,
    pub text: String,
}

/// Why a set of edits cannot be applied; each one is a bug in the caller, reported, not a panic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("edit span {}..{} is reversed", .0.start, .0.end)]
    Reversed(Span),
    #[error("edit span {}..{} is outside the text of {len} bytes", .span.start, .span.end)]
    OutOfBounds { span: Span, len: usize },
    #[error("edit offset {0} is inside a UTF-8 character")]
    NotCharBoundary(usize),
    #[error("edits {}..{} and {}..{} overlap", .first.start, .first.end, .second.start, .second.end)]
    Overlap { first: Span, second: Span },
}

/// A set of edits to one text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Edits {
    edits: Vec<Edit>,
}

impl Edits {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, edit: Edit) {
        self.edits.push(edit);
    }

    pub fn replace(&mut self, span: Span, text: impl Into<String>) {
        self.push(Edit {
            span,
            text: text.into(),
        });
    }

    pub fn insert(&mut self, offset: usize, text: impl Into<String>) {
        self.replace(Span::empty(offset), text);
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// The original text with every edit applied.
    ///
    /// Edits apply in offset order. Insertions at the same offset keep the order they were added
    /// in, and come before a replacement starting there; an insertion at a replacement's end comes
    /// after it. Two edits that both change a byte, or an insertion strictly inside a replaced
    /// span, overlap and are an error.
    pub fn apply(&self, original: &str) -> Result<String, EditError> {
        let mut sorted: Vec<&Edit> = self.edits.iter().collect();
        sorted.sort_by_key(|e| (e.span.start, e.span.end));
        let extra: usize = sorted.iter().map(|e| e.text.len()).sum();
        let mut out = String::with_capacity(original.len() + extra);
        let mut copied = 0;
        let mut previous: Option<Span> = None;
        for edit in sorted {
            let span = edit.span;
            if span.start > span.end {
                return Err(EditError::Reversed(span));
            }
            if span.end > original.len() {
                return Err(EditError::OutOfBounds {
                    span,
                    len: original.len(),
                });
            }
            for offset in [span.start, span.end] {
                if !original.is_char_boundary(offset) {
                    return Err(EditError::NotCharBoundary(offset));
                }
            }
            if let Some(prev) = previous
                && span.start < prev.end
            {
                return Err(EditError::Overlap {
                    first: prev,
                    second: span,
                });
            }
            out.push_str(&original[copied..span.start]);
            out.push_str(&edit.text);
            copied = span.end;
            previous = Some(span);
        }
        out.push_str(&original[copied..]);
        Ok(out)
    }
}

impl Extend<Edit> for Edits {
    fn extend<I: IntoIterator<Item = Edit>>(&mut self, iter: I) {
        self.edits.extend(iter);
    }
}

impl FromIterator<Edit> for Edits {
    fn from_iter<I: IntoIterator<Item = Edit>>(iter: I) -> Self {
        Edits {
            edits: iter.into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_in_offset_order_whatever_the_push_order() {
        let mut edits = Edits::new();
        edits.replace(Span::new(6, 11), "there");
        edits.insert(0, ">> ");
        edits.insert(11, "!");
        assert_eq!(edits.apply("hello world").as_deref(), Ok(">> hello there!"));
    }

    #[test]
    fn no_edits_is_identity() {
        let text = "{ \"a\" : 1 }\r\n";
        assert_eq!(Edits::new().apply(text).as_deref(), Ok(text));
    }

    #[test]
    fn inserts_at_one_offset_keep_their_order_and_precede_a_replacement() {
        let mut edits = Edits::new();
        edits.replace(Span::new(1, 2), "B");
        edits.insert(1, "x");
        edits.insert(1, "y");
        edits.insert(2, "z");
        assert_eq!(edits.apply("abc").as_deref(), Ok("axyBzc"));
    }

    #[test]
    fn bad_edits_are_errors() {
        let apply = |text: &str, edits: &[(usize, usize)]| {
            edits
                .iter()
                .map(|&(s, e)| Edit {
                    span: Span::new(s, e),
                    text: "-".into(),
                })
                .collect::<Edits>()
                .apply(text)
        };
        assert_eq!(
            apply("abcd", &[(1, 3), (0, 2)]),
            Err(EditError::Overlap {
                first: Span::new(0, 2),
                second: Span::new(1, 3)
            })
        );
        assert_eq!(
            apply("abcd", &[(0, 3), (1, 1)]),
            Err(EditError::Overlap {
                first: Span::new(0, 3),
                second: Span::new(1, 1)
            })
        );
        assert_eq!(apply("abé", &[(3, 3)]), Err(EditError::NotCharBoundary(3)));
        assert_eq!(
            apply("abcd", &[(1, 9)]),
            Err(EditError::OutOfBounds {
                span: Span::new(1, 9),
                len: 4
            })
        );
        assert_eq!(
            apply("abcd", &[(2, 1)]),
            Err(EditError::Reversed(Span::new(2, 1)))
        );
        assert_eq!(apply("abé", &[(0, 2), (2, 4)]).as_deref(), Ok("--"));
    }
}
