//! `column-drop` (warning): any field is dropped. Its data becomes unreachable to readers and its
//! id is retired forever; the change cannot be taken back once new snapshots exist.

use crate::evolve::AppliedKind;
use crate::rules::{Context, Rule, Violation};

pub struct ColumnDrop;

impl Rule for ColumnDrop {
    fn name(&self) -> &'static str {
        "column-drop"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        cx.changes(AppliedKind::Drop)
            .filter_map(|change| {
                let field = change.before.as_ref()?;
                Some(Violation::at(
                    change,
                    format!(
                        "`{}` (field id {}, {}) is dropped: queries, views and jobs that select it fail, its data in existing files becomes unreachable, and id {} is retired forever",
                        field.path, field.id, field.field_type, field.id
                    ),
                    "make sure no reader still uses it (mark it deprecated in its comment first); if the drop is intended, suppress this finding with a reason".into(),
                ))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{fired_all, table_with_history};

    #[test]
    fn every_drop_is_reported() {
        assert!(
            fired_all(&table_with_history(), "ALTER TABLE t DROP COLUMN comment")
                .contains(&"column-drop")
        );
    }
}
