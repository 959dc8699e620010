//! `partition-name-collision`: a partition field (of any spec) is named like a column it does
//! not take its values from. Iceberg Java binds every spec to the current schema, when a schema
//! or spec update commits and when it reads the table's specs, and refuses exactly this name
//! ("Cannot create identity partition sourced from different field in schema").

use crate::change::Applied;
use crate::iceberg::schema::FieldInfo;
use crate::rules::context::describe;
use crate::rules::spec_fields::{SpecField, all_fields, finding, spec_change_showing};
use crate::rules::{Context, Rule, Violation};

pub struct PartitionNameCollision;

/// The column a partition field's name collides with, in `table`'s current schema.
fn collision(
    table: &crate::iceberg::metadata::TableMetadata,
    field: &SpecField,
) -> Option<FieldInfo> {
    table
        .current_schema()
        .field_by_path(&field.name)
        .filter(|column| Some(column.id) != field.source_id)
}

impl Rule for PartitionNameCollision {
    fn name(&self) -> &'static str {
        "partition-name-collision"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let mut out = Vec::new();
        let mut seen: Vec<(String, i32)> = Vec::new();
        for field in all_fields(cx.after) {
            let Some(column) = collision(cx.after, &field) else {
                continue;
            };
            let already = all_fields(cx.before)
                .iter()
                .any(|b| b.name == field.name && collision(cx.before, b).is_some());
            if already || seen.contains(&(field.name.clone(), column.id)) {
                continue;
            }
            seen.push((field.name.clone(), column.id));
            let Some(change) = locate(cx, &field, &column) else {
                continue;
            };
            out.push(finding(
                change,
                column.path.clone(),
                Some(column.id),
                format!(
                    "partition field `{}` ({} in spec {}) is named like column {}, which it does not take its values from: Iceberg Java refuses the commit (\"Cannot create identity partition sourced from different field in schema: {}\"), and Java fails the same way whenever it binds the spec to read a table that a writer which does not check (pyiceberg) committed so",
                    field.name,
                    field.term(cx.after.current_schema()),
                    field.spec_id,
                    describe(&column),
                    field.name
                ),
                format!(
                    "give the column another name, or rename the partition field first (ALTER TABLE ... REPLACE PARTITION FIELD {} WITH <same term> AS <new name>)",
                    field.name
                ),
            ));
        }
        out
    }
}

/// The change that made the collision: the add or rename that gave the column its name, else
/// the spec update that named the partition field.
fn locate<'a>(cx: &Context<'a>, field: &SpecField, column: &FieldInfo) -> Option<&'a Applied> {
    cx.applied
        .iter()
        .rev()
        .find(|a| {
            a.field_id == Some(column.id) && a.after.as_ref().is_some_and(|f| f.path == column.path)
        })
        .or_else(|| spec_change_showing(cx, &field.name, &field.term(cx.after.current_schema())))
}

#[cfg(test)]
mod tests {
    use crate::rules::spec_fields::testing::{assert_fires, partitioned};

    const RULE: &str = "partition-name-collision";

    fn table() -> crate::iceberg::metadata::TableMetadata {
        partitioned(
            2,
            r#"[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"ts","required":false,"type":"timestamptz"},{"id":3,"name":"region","required":false,"type":"string"}]"#,
            r#"[{"source-id":2,"field-id":1000,"name":"ts_day","transform":"day"},{"source-id":3,"field-id":1001,"name":"region","transform":"identity"}]"#,
        )
    }

    #[test]
    fn a_column_named_like_a_partition_field_of_another_source_collides() {
        let statements = [
            "ALTER TABLE t ADD COLUMN ts_day date",
            "ALTER TABLE t RENAME COLUMN id TO ts_day",
            "ALTER TABLE t RENAME COLUMN region TO area; ALTER TABLE t ADD COLUMN region string",
            "ALTER TABLE t ADD PARTITION FIELD bucket(8, id) AS ts",
        ];
        assert_fires(&table(), RULE, &statements, true);
    }

    #[test]
    fn a_partition_field_named_like_its_own_source_does_not() {
        let statements = [
            "ALTER TABLE t ADD COLUMN day date",
            "ALTER TABLE t ADD PARTITION FIELD bucket(8, id) AS id",
            "ALTER TABLE t RENAME COLUMN region TO area",
        ];
        assert_fires(&table(), RULE, &statements, false);
    }
}
