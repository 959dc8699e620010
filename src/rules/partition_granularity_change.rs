//! `partition-granularity-change`: a partition field is replaced by one of the same kind on the
//! same source at another granularity (`day(ts)` -> `hour(ts)`, `bucket[16]` -> `bucket[32]`,
//! `truncate[4]` -> `truncate[8]`). Iceberg allows it, but files already written keep the old
//! layout until they are rewritten, so the table is planned in two layouts from then on.

use crate::rules::spec_fields::{SpecField, default_fields, finding, spec_change_showing};
use crate::rules::{Context, Rule, Violation};

pub struct PartitionGranularityChange;

/// The family a transform's granularity belongs to: time transforms are one family (a day and
/// an hour partition the same timeline), `bucket[N]` and `truncate[W]` one each.
fn family(transform: &str) -> Option<&'static str> {
    match transform.split('[').next().unwrap_or(transform) {
        "year" | "month" | "day" | "hour" => Some("time"),
        "bucket" => Some("bucket"),
        "truncate" => Some("truncate"),
        _ => None,
    }
}

impl Rule for PartitionGranularityChange {
    fn name(&self) -> &'static str {
        "partition-granularity-change"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let before = default_fields(cx.before);
        let after = default_fields(cx.after);
        let kept = |f: &SpecField| {
            after
                .iter()
                .any(|a| a.field_id == f.field_id && a.transform == f.transform)
        };
        let mut out = Vec::new();
        for old in before.iter().filter(|f| !kept(f)) {
            let Some(old_family) = family(&old.transform) else {
                continue;
            };
            let replacement = after.iter().find(|new| {
                new.source_id == old.source_id
                    && new.transform != old.transform
                    && family(&new.transform) == Some(old_family)
                    && !before.iter().any(|b| b.field_id == new.field_id)
            });
            let Some(new) = replacement else {
                continue;
            };
            let new_term = new.term(cx.after.current_schema());
            let Some(change) = spec_change_showing(cx, &new.name, &new_term) else {
                continue;
            };
            out.push(finding(
                change,
                old.name.clone(),
                None,
                format!(
                    "partition field `{}` ({}) is replaced by `{}` ({new_term}): files already written keep the old layout (spec {}) until they are rewritten, and Iceberg plans them through the old field, so a filter finer than the old granularity still reads their whole partitions, partition-aligned deletes and overwrites rewrite them row by row, and Spark's storage-partitioned joins need one layout and fall back to a shuffle",
                    old.name,
                    old.term(cx.before.current_schema()),
                    new.name,
                    old.spec_id
                ),
                "once the change is committed, rewrite the existing files into the new spec as a maintenance job outside the migrations (a migration may not rewrite data): CALL <catalog>.system.rewrite_data_files(table => '<db>.<table>', options => map('rewrite-all', 'true')); or keep the old granularity; suppress this finding with the reason if the mixed layout is intended".into(),
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::frontend::ddl::Dialect;
    use crate::rules::spec_fields::testing::{assert_fires, partitioned};
    use crate::rules::test_support::fired_dialect;

    const RULE: &str = "partition-granularity-change";

    fn table() -> crate::iceberg::metadata::TableMetadata {
        partitioned(
            2,
            r#"[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"ts","required":false,"type":"timestamptz"},{"id":3,"name":"name","required":false,"type":"string"}]"#,
            r#"[{"source-id":2,"field-id":1000,"name":"ts_day","transform":"day"},{"source-id":1,"field-id":1001,"name":"id_bucket_16","transform":"bucket[16]"},{"source-id":3,"field-id":1002,"name":"name_trunc_4","transform":"truncate[4]"}]"#,
        )
    }

    #[test]
    fn a_changed_granularity_of_the_same_source_is_found_however_it_is_written() {
        let statements = [
            "ALTER TABLE t REPLACE PARTITION FIELD ts_day WITH hours(ts)",
            "ALTER TABLE t REPLACE PARTITION FIELD days(ts) WITH months(ts) AS ts_month",
            "ALTER TABLE t DROP PARTITION FIELD id_bucket_16; ALTER TABLE t ADD PARTITION FIELD bucket(32, id)",
            "ALTER TABLE t REPLACE PARTITION FIELD name_trunc_4 WITH truncate(8, name)",
        ];
        assert_fires(&table(), RULE, &statements, true);
        let trino = "ALTER TABLE t SET PROPERTIES partitioning = ARRAY['hour(ts)', 'bucket(id, 16)', 'truncate(name, 4)']";
        assert!(fired_dialect(&table(), trino, Dialect::Trino).contains(&RULE));
    }

    #[test]
    fn other_sources_other_kinds_and_plain_drops_are_not_granularity_changes() {
        let statements = [
            "ALTER TABLE t DROP PARTITION FIELD ts_day",
            "ALTER TABLE t ADD PARTITION FIELD bucket(8, name)",
            "ALTER TABLE t REPLACE PARTITION FIELD id_bucket_16 WITH truncate(10, id)",
            "ALTER TABLE t REPLACE PARTITION FIELD ts_day WITH bucket(8, ts)",
            "ALTER TABLE t REPLACE PARTITION FIELD ts_day WITH days(ts) AS day",
        ];
        assert_fires(&table(), RULE, &statements, false);
    }
}
