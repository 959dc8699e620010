//! `legacy-type-change`: the table is read by position or by name, with no field-id reader to
//! widen values while decoding, so even a widening such as INT -> BIGINT breaks readers of old
//! files (Spark and Trino fail decoding old INT32 pages as BIGINT).

use crate::change::AppliedKind;
use crate::rules::{Context, Mapping, Rule, Violation};

pub struct LegacyTypeChange;

impl Rule for LegacyTypeChange {
    fn name(&self) -> &'static str {
        "legacy-type-change"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        if cx.mapping == Mapping::FieldId {
            return Vec::new();
        }
        cx.changes(AppliedKind::UpdateType)
            .filter(|change| change.from != change.to)
            .map(|change| {
                Violation::at(
                    change,
                    format!(
                        "the table is read by {}: changing `{}` (field id {}) from {} to {} makes readers decode old files' {} pages as {}; Hive-style readers (Spark, Trino, Presto on Hive tables) fail or misread them, even for a widening",
                        cx.mapping.as_str(),
                        change.path,
                        change.field_id.unwrap_or_default(),
                        change.from.as_deref().unwrap_or("?"),
                        change.to.as_deref().unwrap_or("?"),
                        change.from.as_deref().unwrap_or("?"),
                        change.to.as_deref().unwrap_or("?"),
                    ),
                    "add a new column with the new type and backfill it, or migrate the table to Iceberg (field ids) where spec promotions are metadata-only".into(),
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::Mapping;
    use crate::rules::test_support::{fired_with, table_with};

    #[test]
    fn even_widening_breaks_legacy_readers() {
        let base = table_with(
            2,
            r#"[{"id":1,"name":"user_id","required":false,"type":"int"}]"#,
        );
        let sql = "ALTER TABLE t ALTER COLUMN user_id TYPE bigint";
        assert!(fired_with(&base, sql, Mapping::Position).contains(&"legacy-type-change"));
        assert!(fired_with(&base, sql, Mapping::Name).contains(&"legacy-type-change"));
        assert!(fired_with(&base, sql, Mapping::FieldId).is_empty());
    }
}
