//! `partition-drop-v1`: a partition field of a format-version 1 table is dropped. v1 keeps
//! partition field ids positional, so Iceberg cannot remove the field: it stays in the spec as a
//! `void` transform, always null, for as long as the table is v1.

use crate::rules::spec_fields::{default_fields, finding, spec_change_showing};
use crate::rules::{Context, Rule, Violation};

pub struct PartitionDropV1;

impl Rule for PartitionDropV1 {
    fn name(&self) -> &'static str {
        "partition-drop-v1"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let before = default_fields(cx.before);
        let after_schema = cx.after.current_schema();
        let mut out = Vec::new();
        for voided in default_fields(cx.after).iter().filter(|f| f.is_void()) {
            let Some(was) = before
                .iter()
                .find(|f| f.field_id == voided.field_id && !f.is_void())
            else {
                continue;
            };
            let Some(change) = spec_change_showing(cx, &voided.name, &voided.term(after_schema))
            else {
                continue;
            };
            out.push(finding(
                change,
                was.name.clone(),
                None,
                format!(
                    "partition field `{}` ({}, partition field id {}) is dropped from a format-version 1 table: v1 keeps partition field ids by position, so it stays in spec {} as a `void` transform, null in every new file's partition tuple and in the `partitions` and `files` metadata tables, and its name stays taken (a later field of that name renames it to `{}_{}`)",
                    was.name,
                    was.term(cx.before.current_schema()),
                    was.field_id,
                    voided.spec_id,
                    was.name,
                    was.field_id
                ),
                "if every reader and writer of the table supports format version 2, upgrade first (ALTER TABLE ... SET TBLPROPERTIES ('format-version' = '2') in an earlier statement), so the field is removed; otherwise keep the void field and suppress this finding with the reason".into(),
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::spec_fields::testing::{assert_fires, partitioned};

    const RULE: &str = "partition-drop-v1";

    fn table(version: u8) -> crate::iceberg::metadata::TableMetadata {
        partitioned(
            version,
            r#"[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"ts","required":false,"type":"timestamptz"}]"#,
            r#"[{"source-id":2,"field-id":1000,"name":"ts_day","transform":"day"},{"source-id":1,"field-id":1001,"name":"id_bucket_4","transform":"bucket[4]"}]"#,
        )
    }

    #[test]
    fn a_v1_drop_is_voided_in_place_and_said_so() {
        let statements = [
            "ALTER TABLE t DROP PARTITION FIELD ts_day",
            "ALTER TABLE t DROP PARTITION FIELD days(ts)",
            "ALTER TABLE t REPLACE PARTITION FIELD ts_day WITH hours(ts)",
        ];
        assert_fires(&table(1), RULE, &statements, true);
    }

    #[test]
    fn v2_removes_the_field_and_an_upgrade_first_does_too() {
        let sql = "ALTER TABLE t DROP PARTITION FIELD ts_day";
        assert_fires(&table(2), RULE, &[sql], false);
        let upgraded = "ALTER TABLE t SET TBLPROPERTIES ('format-version' = '2');
                        ALTER TABLE t DROP PARTITION FIELD ts_day";
        let added = "ALTER TABLE t ADD PARTITION FIELD truncate(4, id)";
        assert_fires(&table(1), RULE, &[upgraded, added], false);
    }
}
