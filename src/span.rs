//! Where in a source text something is: the one span type of diagnostics, below every layer that
//! reads text (the Iceberg model keeps its JSON spans as these).

/// A byte range in one source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub offset: usize,
    pub len: usize,
}

impl Span {
    pub fn new(offset: usize, len: usize) -> Span {
        Span { offset, len }
    }

    pub fn from_range(start: usize, end: usize) -> Span {
        Span {
            offset: start,
            len: end.saturating_sub(start),
        }
    }

    pub fn end(&self) -> usize {
        self.offset + self.len
    }
}
