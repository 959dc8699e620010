//! The partition spec and sort order, which a schema file may restate but not change.

use super::{Differ, dotted};
use crate::change::ProblemKind;
use crate::iceberg::types::FieldId;

/// A sort term: its source column's id, transform, direction and null order.
type SortTerm = (Option<FieldId>, String, String, String);

impl Differ<'_> {
    /// The partition spec is not a schema: a proposal may restate the table's, not change it.
    pub(super) fn check_partition(&mut self) {
        let Some(span) = self.file.stated.partition else {
            return;
        };
        let written: Vec<(Option<FieldId>, String)> = self
            .file
            .partition
            .iter()
            .map(|t| (self.column_id(&t.column.name), t.transform.to_string()))
            .collect();
        let spec = self
            .base
            .partition_specs
            .iter()
            .find(|s| s.spec_id == self.base.default_spec_id);
        let table: Vec<(Option<FieldId>, String)> = spec
            .map(|s| {
                s.fields
                    .iter()
                    .filter(|f| f.transform != "void")
                    .map(|f| (f.source_ids.first().copied(), f.transform.clone()))
                    .collect()
            })
            .unwrap_or_default();
        if written != table {
            let terms: Vec<String> = table
                .iter()
                .map(|(id, transform)| self.partition_term(*id, transform))
                .collect();
            self.problem(
                ProblemKind::InvalidChange,
                span,
                "partition",
                None,
                format!(
                    "the file's `partition` differs from the table's partition spec [{}]: fieldgate judges schema changes, and partition evolution is not one",
                    terms.join(", ")
                ),
                "change partitioning with the engine (ALTER TABLE ... ADD/DROP PARTITION FIELD); here, restate the table's spec or leave `partition` out",
            );
        }
    }

    fn column_name(&self, id: Option<FieldId>) -> String {
        id.and_then(|id| self.final_segments.get(&id).map(|s| dotted(s)))
            .or_else(|| id.and_then(|id| self.members.get(id).map(|m| self.members.path(m))))
            .unwrap_or_else(|| "?".to_string())
    }

    /// A partition field in the schema file's spelling: `region`, `bucket(16, id)`, `day(ts)`.
    fn partition_term(&self, id: Option<FieldId>, transform: &str) -> String {
        let column = self.column_name(id);
        if transform == "identity" {
            return column;
        }
        match transform.split_once('[') {
            Some((name, rest)) => format!("{name}({}, {column})", rest.trim_end_matches(']')),
            None => format!("{transform}({column})"),
        }
    }

    /// Like the partition spec, the sort order is restated, not changed, by a proposal.
    pub(super) fn check_sort_order(&mut self) {
        let Some(span) = self.file.stated.sort_order else {
            return;
        };
        let written: Vec<SortTerm> = self
            .file
            .sort_order
            .iter()
            .map(|t| {
                (
                    self.column_id(&t.column.name),
                    "identity".to_string(),
                    t.direction.as_str().to_string(),
                    t.null_order.as_str().to_string(),
                )
            })
            .collect();
        let table = self.table_sort_order();
        if written != table {
            let terms: Vec<String> = table
                .iter()
                .map(|(id, transform, direction, nulls)| {
                    let column = self.column_name(*id);
                    let column = if transform == "identity" {
                        column
                    } else {
                        format!("{transform}({column})")
                    };
                    format!("{column} {direction} {nulls}")
                })
                .collect();
            self.problem(
                ProblemKind::InvalidChange,
                span,
                "sort-order",
                None,
                format!(
                    "the file's `sort-order` differs from the table's sort order [{}]: fieldgate judges schema changes, and a new sort order is not one",
                    terms.join(", ")
                ),
                "change the sort order with the engine (ALTER TABLE ... WRITE ORDERED BY); here, restate the table's order or leave `sort-order` out",
            );
        }
    }

    /// The terms of the table's default sort order.
    fn table_sort_order(&self) -> Vec<SortTerm> {
        let order = self
            .base
            .sort_orders
            .iter()
            .find(|o| o.order_id == self.base.default_sort_order_id);
        order
            .map(|o| {
                o.fields
                    .iter()
                    .map(|f| {
                        (
                            f.source_ids.first().copied(),
                            f.transform.clone(),
                            f.direction.clone(),
                            f.null_order.clone(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}
