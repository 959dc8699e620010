//! `sort-source-drop`: a field the table's default sort order sorts by is dropped. Iceberg
//! Java checks the default sort order against the schema whenever it builds table metadata
//! ("Cannot find source column for sort field"), so the commit fails, and writers that sort by
//! the column fail. Earlier sort orders are kept unchecked for old metadata, so only the order
//! that is the default when the drop commits counts: after a `WRITE ORDERED BY` other columns
//! (or `WRITE UNORDERED`) earlier in the migration, the drop is safe.

use crate::change::{Applied, AppliedKind};
use crate::finding::{MetadataPlace, Related};
use crate::iceberg::schema::FieldInfo;
use crate::iceberg::sort::{SortField, SortOrder};
use crate::rules::{Context, Rule, Violation};

pub struct SortSourceDrop;

impl Rule for SortSourceDrop {
    fn name(&self) -> &'static str {
        "sort-source-drop"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let mut out = Vec::new();
        // The last `WRITE ...` so far, followed in one pass: looking back from each drop made a
        // migration of many drops quadratic.
        let mut last_set = None;
        for drop in cx.applied {
            if drop.kind == AppliedKind::SetWriteOrder {
                last_set = Some(drop);
            }
            let (AppliedKind::Drop, Some(dropped)) = (drop.kind, &drop.before) else {
                continue;
            };
            let (order, set_by) = default_order_at(cx, last_set);
            let Some(order) = order else {
                continue;
            };
            let Some((field, (source_id, source_path))) = sorted_source(cx, dropped, order) else {
                continue;
            };
            let message = format!(
                "`{}` (field id {}) is sorted by in the default sort order (order {}, {}): Iceberg refuses to commit metadata whose default sort order has lost a source column (\"Cannot find source column for sort field\"), and writers sorting by it fail",
                source_path, source_id, order.order_id, field.transform
            );
            let related = match set_by {
                Some(set) => Related::at(
                    set.origin.clone(),
                    format!(
                        "this statement made the order that sorts by `{source_path}` the default"
                    ),
                ),
                None => Related::in_metadata(
                    MetadataPlace::SortField {
                        order_id: order.order_id,
                        source_id,
                    },
                    format!(
                        "sort order {} sorts by `{source_path}` ({})",
                        order.order_id, field.transform
                    ),
                ),
            };
            let violation = Violation::at(
                drop,
                message,
                "change the table's sort order first (ALTER TABLE ... WRITE ORDERED BY other columns, or WRITE UNORDERED, in an earlier statement), then drop the column".into(),
            );
            out.push(violation.with_related([related]));
        }
        out
    }
}

/// The first field of `order` that sorts by the dropped field, or by a field of the committed
/// table nested in it, with that source's id and path.
fn sorted_source<'o>(
    cx: &Context<'_>,
    dropped: &FieldInfo,
    order: &'o SortOrder,
) -> Option<(&'o SortField, (i32, String))> {
    let nested = format!("{}.", dropped.path);
    let walked = cx.before.current_schema().walk();
    let source_of = |id| {
        if id == dropped.id {
            return Some((id, dropped.path.clone()));
        }
        walked
            .iter()
            .find(|f| f.id == id && f.path.starts_with(&nested))
            .map(|f| (f.id, f.path.clone()))
    };
    order.fields.iter().find_map(|field| {
        let source = field.source_ids.iter().find_map(|id| source_of(*id))?;
        Some((field, source))
    })
}

/// The default sort order when a drop commits: the one the last `WRITE ...` before it (`set`)
/// made, with that change, else the table's.
fn default_order_at<'a>(
    cx: &Context<'a>,
    set: Option<&'a Applied>,
) -> (Option<&'a SortOrder>, Option<&'a Applied>) {
    match set.and_then(|a| a.sort_order_id) {
        Some(id) => (cx.after.sort_orders.iter().find(|o| o.order_id == id), set),
        None => (
            cx.before
                .sort_orders
                .iter()
                .find(|o| o.order_id == cx.before.default_sort_order_id),
            None,
        ),
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{fired, table_with_history};

    #[test]
    fn the_default_orders_sources_are_protected() {
        let base = table_with_history();
        assert!(fired(&base, "ALTER TABLE t DROP COLUMN note").contains(&"sort-source-drop"));
        assert!(!fired(&base, "ALTER TABLE t DROP COLUMN region").contains(&"sort-source-drop"));
    }

    #[test]
    fn the_order_made_earlier_in_the_migration_decides() {
        let base = table_with_history();
        let reordered = "ALTER TABLE t WRITE ORDERED BY comment; ALTER TABLE t DROP COLUMN note";
        assert!(!fired(&base, reordered).contains(&"sort-source-drop"));
        let unordered = "ALTER TABLE t WRITE UNORDERED; ALTER TABLE t DROP COLUMN note";
        assert!(!fired(&base, unordered).contains(&"sort-source-drop"));
        let new_source =
            "ALTER TABLE t WRITE ORDERED BY comment; ALTER TABLE t DROP COLUMN comment";
        assert!(fired(&base, new_source).contains(&"sort-source-drop"));
        let after_drop = "ALTER TABLE t DROP COLUMN note; ALTER TABLE t WRITE ORDERED BY comment";
        assert!(fired(&base, after_drop).contains(&"sort-source-drop"));
    }
}
