//! A schema file's table-level keys as a proposal: `properties` become the property statements
//! that make the table's properties what the file states (first in the file's one statement, so
//! its schema changes then keep the name mapping it sets current, as they keep the table's own);
//! `format-version` may only restate the table's.

use super::Differ;
use crate::change::{Change, ChangeKind, ProblemKind, Span};

impl Differ<'_> {
    /// A `SET TBLPROPERTIES` for each stated property whose value differs from the table's, an
    /// `UNSET` for each stated `null` the table has; properties not stated stay as they are.
    pub(super) fn property_changes(&mut self) -> Vec<Change> {
        let mut changes = Vec::new();
        for property in &self.file.properties {
            let table = self.base.property(&property.key);
            let kind = match &property.value {
                Some(value) if table != Some(value.as_str()) => ChangeKind::SetProperties {
                    properties: vec![(property.key.clone(), value.clone())],
                },
                None if table.is_some() => ChangeKind::UnsetProperties {
                    keys: vec![property.key.clone()],
                    if_exists: true,
                },
                _ => continue,
            };
            self.entry = Span::from_range(
                property.key_span.offset,
                property.value_span.offset + property.value_span.len,
            );
            changes.push(self.change(kind, property.value_span));
        }
        changes
    }

    pub(super) fn check_format_version(&mut self) {
        let Some(span) = self.file.stated.format_version else {
            return;
        };
        let (file, table) = (self.file.format_version, self.base.format_version);
        if file != table {
            self.problem(
                ProblemKind::InvalidChange,
                span,
                "format-version",
                None,
                format!(
                    "the file says format version {file}, but the table is format version {table}: a format upgrade is not a schema change, and fieldgate does not make it"
                ),
                &format!(
                    "write `format-version: {table}` (or leave it out), and upgrade the table with the engine"
                ),
            );
        }
    }
}
