//! A finding: one judgement about a proposal, with the text it is about. Every report format is a
//! view of these.

use std::fmt;

use crate::change::{Origin, Span};
use crate::iceberg::types::FieldId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    pub table: String,
    pub field: Option<String>,
    pub field_id: Option<FieldId>,
    pub origin: Option<Origin>,
    pub help: Option<String>,
}

/// 1-based line and column (in characters) of a byte offset, as editors and GitHub count them.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// Where a finding points, resolved for machine-readable reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub span: Span,
}

impl Finding {
    pub fn location(&self) -> Option<Location> {
        let origin = self.origin.as_ref()?;
        let (line, column) = line_col(&origin.source.text, origin.focus.offset);
        Some(Location {
            file: origin.source.name.clone(),
            line,
            column,
            span: origin.focus,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_characters() {
        let text = "ab\ncä d\n";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 3), (2, 1));
        assert_eq!(line_col(text, text.find('d').unwrap()), (2, 4));
        assert_eq!(line_col(text, 999), (3, 1));
    }
}
