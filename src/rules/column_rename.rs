//! `column-rename` (warning): a rename. Field-id readers keep finding the data, but SQL, views,
//! dashboards and downstream jobs that use the old name break.

use crate::change::AppliedKind;
use crate::rules::{Context, Rule, Violation};

pub struct ColumnRename;

impl Rule for ColumnRename {
    fn name(&self) -> &'static str {
        "column-rename"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        cx.changes(AppliedKind::Rename)
            .filter_map(|change| {
                let (old, new) = (change.before.as_ref()?, change.after.as_ref()?);
                Some(Violation::at(
                    change,
                    format!(
                        "`{}` is renamed to `{}` (field id {} kept): the data stays readable, but queries, views and dashboards that say `{}` break",
                        old.path, new.path, new.id, old.name
                    ),
                    "update the views and jobs that use the old name in the same release, or keep the old name".into(),
                ))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{fired_all, table_with_history};

    #[test]
    fn renames_are_reported() {
        assert!(
            fired_all(
                &table_with_history(),
                "ALTER TABLE t RENAME COLUMN comment TO remark"
            )
            .contains(&"column-rename")
        );
    }
}
