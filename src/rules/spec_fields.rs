//! What the partition rules compare: the default spec's fields before and after a proposal, with
//! their ids (v1 specs leave them implied by position), and the statement that made a spec change,
//! for locating a finding; the finding itself, about the field it names; and, for the rules'
//! tests, their one-spec tables and fired-or-not tables of statements.

use crate::change::{Applied, AppliedKind};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::partition::PARTITION_DATA_ID_START;
use crate::iceberg::schema::Schema;
use crate::iceberg::types::FieldId;
use crate::rules::{Context, Violation};

/// One field of a partition spec, with its id resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecField {
    pub spec_id: i32,
    pub field_id: i32,
    pub source_id: Option<FieldId>,
    pub name: String,
    pub transform: String,
}

impl SpecField {
    /// As reports and engines write a term: `day(ts)`, `bucket[16](id)`, `ts` for identity.
    pub fn term(&self, schema: &Schema) -> String {
        let source = self
            .source_id
            .and_then(|id| schema.field_by_id(id))
            .map_or_else(|| "?".to_string(), |f| f.path);
        if self.transform == "identity" {
            source
        } else {
            format!("{}({source})", self.transform)
        }
    }

    pub fn is_void(&self) -> bool {
        self.transform == "void"
    }
}

/// Every field of every spec of the table, oldest spec first.
pub fn all_fields(table: &TableMetadata) -> Vec<SpecField> {
    table
        .partition_specs
        .iter()
        .flat_map(|spec| {
            spec.fields
                .iter()
                .enumerate()
                .map(move |(position, f)| SpecField {
                    spec_id: spec.spec_id,
                    field_id: f
                        .field_id
                        .unwrap_or(PARTITION_DATA_ID_START + position as i32),
                    source_id: f.source_ids.first().copied(),
                    name: f.name.clone(),
                    transform: f.transform.clone(),
                })
        })
        .collect()
}

/// The fields of the table's default spec (none for an unpartitioned table).
pub fn default_fields(table: &TableMetadata) -> Vec<SpecField> {
    all_fields(table)
        .into_iter()
        .filter(|f| f.spec_id == table.default_spec_id)
        .collect()
}

fn is_spec_change(kind: AppliedKind) -> bool {
    matches!(
        kind,
        AppliedKind::AddPartitionField
            | AppliedKind::DropPartitionField
            | AppliedKind::ReplacePartitionField
            | AppliedKind::SetPartitioning
    )
}

/// The spec update that first made the default spec show `name=term` (as `evolve` describes
/// specs before and after each update), else the last spec update of the proposal.
pub fn spec_change_showing<'a>(cx: &Context<'a>, name: &str, term: &str) -> Option<&'a Applied> {
    let element = format!("{name}={term}");
    let shows = |description: &Option<String>| {
        description
            .as_deref()
            .is_some_and(|d| d.split(", ").any(|e| e == element))
    };
    let mut updates = cx.applied.iter().filter(|a| is_spec_change(a.kind));
    updates
        .clone()
        .find(|a| shows(&a.to) && !shows(&a.from))
        .or_else(|| updates.next_back())
}

/// A partition rule's finding at `change`, about `field`: a column's path with its `field_id`,
/// or a partition field's name, which has none in the schema.
pub fn finding(
    change: &Applied,
    field: String,
    field_id: Option<FieldId>,
    message: String,
    help: String,
) -> Violation {
    Violation {
        field: Some(field),
        field_id,
        ..Violation::at(change, message, help)
    }
}

/// What the partition rules' tests share: a table with one spec, and a check over statements.
#[cfg(test)]
pub mod testing {
    use crate::iceberg::metadata::TableMetadata;
    use crate::rules::test_support::{fired, metadata};

    /// A table of format `version` with the schema `fields` and one spec (id 0) of
    /// `spec_fields`, both as JSON arrays, and no sort order.
    pub fn partitioned(version: u8, fields: &str, spec_fields: &str) -> TableMetadata {
        let specs = format!(r#"[{{"spec-id":0,"fields":{spec_fields}}}]"#);
        metadata(version, fields, &specs, "[]")
    }

    /// Asserts that `rule` fires on `table` for each of `statements` when `fires`, and for
    /// none of them otherwise.
    pub fn assert_fires(table: &TableMetadata, rule: &str, statements: &[&str], fires: bool) {
        for sql in statements {
            assert_eq!(fired(table, sql).contains(&rule), fires, "{rule}: {sql}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::metadata;

    #[test]
    fn v1_fields_take_their_ids_from_their_position() {
        let table = metadata(
            1,
            r#"[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"ts","required":false,"type":"timestamptz"}]"#,
            r#"[{"spec-id":0,"fields":[{"source-id":2,"name":"ts_day","transform":"day"},{"source-id":1,"name":"id_bucket_4","transform":"bucket[4]"}]}]"#,
            "[]",
        );
        let fields = default_fields(&table);
        let ids: Vec<i32> = fields.iter().map(|f| f.field_id).collect();
        assert_eq!(ids, vec![1000, 1001]);
        let schema = table.current_schema();
        assert_eq!(fields[0].term(schema), "day(ts)");
        assert_eq!(fields[1].term(schema), "bucket[4](id)");
    }
}
