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

/// Where each line of `text` starts: 0, then the byte after every `\n` (the breaks miette and
/// sqlparser count; a lone `\r` is part of its line).
pub fn starts_of<C: FromIterator<usize>>(text: &str) -> C {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(at, _)| at + 1))
        .collect()
}

/// The 0-based line holding byte `offset`, given the line starts from [`starts_of`].
pub fn line_in(starts: &[usize], offset: usize) -> usize {
    starts
        .partition_point(|start| *start <= offset)
        .saturating_sub(1)
}
