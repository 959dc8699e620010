//! `nullability-tightening`: an optional field becomes required. Files already written may hold
//! nulls in it; readers that trust `required` then fail or return wrong results.

use crate::change::AppliedKind;
use crate::rules::{Context, Rule, Violation};

pub struct NullabilityTightening;

impl Rule for NullabilityTightening {
    fn name(&self) -> &'static str {
        "nullability-tightening"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        cx.changes(AppliedKind::SetRequired)
            .filter(|change| change.field_id.is_some_and(|id| cx.existed_before(id)))
            .filter(|change| change.before.as_ref().is_some_and(|f| !f.required))
            .map(|change| {
                Violation::at(
                    change,
                    format!(
                        "`{}` (field id {}) changes from optional to required, but files already written may hold nulls in it: readers that trust `required` fail on them (Iceberg Java and Spark refuse this change)",
                        change.path,
                        change.field_id.unwrap_or_default()
                    ),
                    "keep the field optional and enforce non-null values in the writers; or add a new required column with a default and backfill it".into(),
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{fired, table_with};

    #[test]
    fn optional_to_required_is_refused() {
        let base = table_with(
            2,
            r#"[{"id":1,"name":"a","required":false,"type":"int"},{"id":2,"name":"b","required":true,"type":"int"}]"#,
        );
        assert_eq!(
            fired(&base, "ALTER TABLE t ALTER COLUMN a SET NOT NULL"),
            ["nullability-tightening"]
        );
        assert!(fired(&base, "ALTER TABLE t ALTER COLUMN b DROP NOT NULL").is_empty());
    }
}
