//! A change of the default partition spec or the default sort order, as the one statement that
//! would have made it (`SET PARTITIONING`, `WRITE ORDERED BY`), described as `evolve` describes
//! its own, so the partition and sort rules judge and locate an engine-written file's layout
//! change as they do a statement's.

use super::Diff;
use crate::change::{Applied, AppliedKind, Span};
use crate::evolve::{describe_sort_order, describe_spec};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::partition::PARTITION_DATA_ID_START;
use crate::iceberg::schema::Schema;
use crate::iceberg::sort::SortField;
use crate::iceberg::types::FieldId;

impl Diff<'_> {
    pub(super) fn spec_and_order_changes(&self) -> Vec<Applied> {
        let mut out = Vec::new();
        if spec_terms(self.base) != spec_terms(self.proposed) {
            let spec = self.layout_change(describe_spec, AppliedKind::SetPartitioning);
            let keys = ["default-spec-id", "partition-specs", "partition-spec"];
            out.push(self.located(spec, &keys));
        }
        if order_terms(self.base) != order_terms(self.proposed) {
            let mut order = self.layout_change(describe_sort_order, AppliedKind::SetWriteOrder);
            order.sort_order_id = Some(self.proposed.default_sort_order_id);
            out.push(self.located(order, &["default-sort-order-id", "sort-orders"]));
        }
        out
    }

    fn layout_change(
        &self,
        describe: fn(&TableMetadata, &Schema) -> String,
        kind: AppliedKind,
    ) -> Applied {
        let before = describe(self.base, self.base.current_schema());
        let after = describe(self.proposed, self.proposed.current_schema());
        Applied::new(kind, None, after.clone(), Some(before), Some(after))
    }

    /// `applied` at the first of `keys` the file has.
    fn located(&self, mut applied: Applied, keys: &[&str]) -> Applied {
        let at = keys
            .iter()
            .find_map(|key| self.top_level.get(*key).copied())
            .unwrap_or(Span::new(0, 0));
        applied.origin = Some(self.origin(at));
        applied
    }
}

/// The default spec's fields by id, source and transform (a rename of a source column changes
/// no term), a v1 field's id implied by its position.
fn spec_terms(table: &TableMetadata) -> Vec<(i32, &[FieldId], &str, &str)> {
    let spec = table
        .partition_specs
        .iter()
        .find(|s| s.spec_id == table.default_spec_id);
    let fields = spec.map_or(&[][..], |s| s.fields.as_slice());
    fields
        .iter()
        .enumerate()
        .map(|(position, f)| {
            let implied = PARTITION_DATA_ID_START + i32::try_from(position).unwrap_or(i32::MAX);
            let id = f.field_id.unwrap_or(implied);
            (
                id,
                f.source_ids.as_slice(),
                f.transform.as_str(),
                f.name.as_str(),
            )
        })
        .collect()
}

/// The default sort order's fields.
fn order_terms(table: &TableMetadata) -> &[SortField] {
    table
        .sort_orders
        .iter()
        .find(|o| o.order_id == table.default_sort_order_id)
        .map_or(&[], |o| o.fields.as_slice())
}
