//! `sort-source-drop`: a field a sort order sorts by is dropped. Iceberg refuses to commit a
//! default sort order whose source is gone, and writers that sort by it fail.

use crate::change::AppliedKind;
use crate::finding::{MetadataPlace, Related};
use crate::rules::{Context, Rule, Violation};

pub struct SortSourceDrop;

impl Rule for SortSourceDrop {
    fn name(&self) -> &'static str {
        "sort-source-drop"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        cx.changes(AppliedKind::Drop)
            .filter_map(|change| {
                let dropped = change.before.as_ref()?;
                let uses = cx.history.sort_sources.get(&dropped.id)?;
                let orders: Vec<String> = uses
                    .iter()
                    .map(|u| {
                        let which = if u.is_default { "the default sort order".to_string() } else { format!("sort order {}", u.order_id) };
                        format!("{which} ({})", u.transform)
                    })
                    .collect();
                let related = uses.iter().map(|u| {
                    Related::in_metadata(
                        MetadataPlace::SortField {
                            order_id: u.order_id,
                            source_id: dropped.id,
                        },
                        format!("sort order {} sorts by `{}` ({})", u.order_id, dropped.path, u.transform),
                    )
                });
                let violation = Violation::at(
                    change,
                    format!(
                        "`{}` (field id {}) is sorted by in {}: Iceberg rejects a default sort order whose source column is gone (\"Cannot find source column for sort field\"), and writers sorting by it fail",
                        dropped.path,
                        dropped.id,
                        orders.join(", ")
                    ),
                    "change the table's sort order first (ALTER TABLE ... WRITE ORDERED BY other columns, or WRITE UNORDERED), then drop the column".into(),
                );
                Some(violation.with_related(related))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{fired, table_with_history};

    #[test]
    fn sort_sources_are_protected() {
        let base = table_with_history();
        assert!(fired(&base, "ALTER TABLE t DROP COLUMN note").contains(&"sort-source-drop"));
        assert!(!fired(&base, "ALTER TABLE t DROP COLUMN region").contains(&"sort-source-drop"));
    }
}
