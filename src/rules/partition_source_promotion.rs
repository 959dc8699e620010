//! `partition-source-promotion`: a promotion of a partition source that changes what the
//! partition transform produces. The spec names date -> timestamp: `bucket` hashes a date's day
//! count but a timestamp's microseconds, and `identity` changes the partition value's type, so
//! old and new files of the same day land in different partitions and filters prune wrongly.

use crate::change::AppliedKind;
use crate::iceberg::types::{PrimitiveType, Type};
use crate::rules::{Context, Rule, Violation};

pub struct PartitionSourcePromotion;

impl Rule for PartitionSourcePromotion {
    fn name(&self) -> &'static str {
        "partition-source-promotion"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let mut out = Vec::new();
        for change in cx.changes(AppliedKind::UpdateType) {
            let (Some(before), Some(after), Some(id)) =
                (&change.before, &change.after, change.field_id)
            else {
                continue;
            };
            let (Type::Primitive(from), Type::Primitive(to)) =
                (&before.field_type, &after.field_type)
            else {
                continue;
            };
            if !changes_transform_values(from, to) {
                continue;
            }
            let affected: Vec<String> = cx
                .history
                .partition_sources
                .get(&id)
                .into_iter()
                .flatten()
                .filter(|u| u.transform == "identity" || u.transform.starts_with("bucket"))
                .map(|u| format!("`{}` ({}) in spec {}", u.name, u.transform, u.spec_id))
                .collect();
            if affected.is_empty() {
                continue;
            }
            out.push(Violation::at(
                change,
                format!(
                    "`{}` (field id {id}) is the source of partition field {}: promoting it from {from} to {to} changes the values that transform produces, so files of the same rows fall into different partitions and partition filters skip data",
                    after.path,
                    affected.join(", ")
                ),
                "keep the type; or partition by a transform that gives the same value for both types (year, month or day), or add a new timestamp column".into(),
            ));
        }
        out
    }
}

/// Promotions whose identity and bucket values differ (spec "Schema Evolution": date to
/// timestamp or timestamp_ns). int -> long hashes the same, and decimals keep their unscaled value.
fn changes_transform_values(from: &PrimitiveType, to: &PrimitiveType) -> bool {
    matches!(
        (from, to),
        (
            PrimitiveType::Date,
            PrimitiveType::Timestamp | PrimitiveType::TimestampNs
        )
    )
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{fired, metadata};

    #[test]
    fn date_sources_of_bucket_partitions_cannot_be_promoted() {
        let base = metadata(
            3,
            r#"[{"id":1,"name":"day","required":false,"type":"date"},{"id":2,"name":"n","required":false,"type":"int"}]"#,
            r#"[{"spec-id":0,"fields":[{"source-id":1,"field-id":1000,"name":"day_bucket","transform":"bucket[8]"},{"source-id":2,"field-id":1001,"name":"n_bucket","transform":"bucket[8]"}]}]"#,
            "[]",
        );
        assert_eq!(
            fired(&base, "ALTER TABLE t ALTER COLUMN day TYPE timestamp_ntz"),
            ["partition-source-promotion"]
        );
        assert!(fired(&base, "ALTER TABLE t ALTER COLUMN n TYPE bigint").is_empty());
    }
}
