//! A finding: one judgement about a proposal, with the text it is about and any other places it
//! concerns. Every report format is a view of these; offsets stay bytes until a reporter turns
//! them into lines and columns.

use std::fmt;

use crate::change::{Origin, Span};
use crate::iceberg::types::FieldId;

mod lines;

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
    /// Other places the finding is about (where a reused name was dropped, the partition spec a
    /// dropped column feeds), shown as secondary labels or related locations.
    pub related: Vec<Related>,
}

/// A secondary place of a finding, with what it is.
#[derive(Debug, Clone)]
pub struct Related {
    pub message: String,
    pub origin: Option<Origin>,
    /// Where the place is in the committed table metadata, when it is there. Rules see the typed
    /// table, not its text, so they name the place and the command that read the text turns it
    /// into `origin` (`rules::related::locate_in_metadata`).
    pub place: Option<MetadataPlace>,
}

impl Related {
    /// A place in the proposal, already located.
    pub fn at(origin: Option<Origin>, message: impl Into<String>) -> Related {
        Related {
            message: message.into(),
            origin,
            place: None,
        }
    }

    /// A place in the committed metadata, located once its text is at hand.
    pub fn in_metadata(place: MetadataPlace, message: impl Into<String>) -> Related {
        Related {
            message: message.into(),
            origin: None,
            place: Some(place),
        }
    }
}

/// A node of a table metadata document, named by the ids and names Iceberg gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetadataPlace {
    /// The field (at any depth) with this id, in the schema with this id.
    SchemaField { schema_id: i32, field_id: FieldId },
    /// The partition field with this name, in the spec with this id.
    PartitionField { spec_id: i32, name: String },
    /// The sort field taking its values from this field, in the sort order with this id.
    SortField { order_id: i32, source_id: FieldId },
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

/// Where a finding points, resolved for machine-readable reports. The end is exclusive: the
/// line and column of the first character after the span, as SARIF counts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub span: Span,
}

/// Resolves a span of a source text to lines and columns.
pub fn locate(origin: &Origin) -> Location {
    let (line, column) = lines::line_col_of(&origin.source, origin.focus.offset);
    let (end_line, end_column) = lines::line_col_of(&origin.source, origin.focus.end());
    Location {
        file: origin.source.name.clone(),
        line,
        column,
        end_line,
        end_column,
        span: origin.focus,
    }
}

impl Finding {
    pub fn location(&self) -> Option<Location> {
        self.origin.as_ref().map(locate)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::change::SourceFile;

    #[test]
    fn line_and_column_count_characters() {
        let text = "ab\ncä d\n";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 3), (2, 1));
        assert_eq!(line_col(text, text.find('d').unwrap()), (2, 4));
        assert_eq!(line_col(text, 999), (3, 1));
    }

    #[test]
    fn a_location_ends_after_its_last_character() {
        let source = Arc::new(SourceFile {
            name: "m.sql".into(),
            text: "a\nbcd\n".into(),
        });
        let origin = Origin {
            source,
            statement: Span::new(0, 6),
            focus: Span::new(2, 3),
        };
        let l = locate(&origin);
        assert_eq!((l.line, l.column, l.end_line, l.end_column), (2, 1, 2, 4));
    }
}
