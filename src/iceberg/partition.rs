//! Partition specs: which fields partition sources come from, so drops and promotions of those
//! sources can be judged against every spec the table has ever had.

use crate::iceberg::codec::{ModelResult, as_array, as_i32, as_object, as_str, required_member};
use crate::iceberg::types::FieldId;
use crate::json::Node;

#[derive(Debug, Clone, PartialEq)]
pub struct PartitionSpec {
    pub spec_id: i32,
    pub fields: Vec<PartitionField>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PartitionField {
    /// One id for single-argument transforms (`source-id`), several for v3 multi-argument ones.
    pub source_ids: Vec<FieldId>,
    /// Absent in v1 specs, where ids were implied (1000, 1001, ...).
    pub field_id: Option<i32>,
    pub name: String,
    pub transform: String,
}

/// Partition field ids start here when a table has none (Java `PARTITION_DATA_ID_START`).
pub const PARTITION_DATA_ID_START: i32 = 1000;

impl PartitionSpec {
    pub fn from_json(node: &Node<'_>, default_id: i32) -> ModelResult<PartitionSpec> {
        // v1's deprecated `partition-spec` is a bare array of fields.
        if let Some(fields) = node.as_array() {
            return Ok(PartitionSpec {
                spec_id: default_id,
                fields: fields_from_json(fields)?,
            });
        }
        as_object(node, "a partition spec")?;
        let spec_id = match node.get("spec-id") {
            Some(id) => as_i32(id, "`spec-id`")?,
            None => default_id,
        };
        let fields = as_array(required_member(node, "fields")?, "`fields`")?;
        Ok(PartitionSpec {
            spec_id,
            fields: fields_from_json(fields)?,
        })
    }

    pub fn is_unpartitioned(&self) -> bool {
        self.fields.iter().all(|f| f.transform == "void")
    }
}

fn fields_from_json(fields: &[Node<'_>]) -> ModelResult<Vec<PartitionField>> {
    fields
        .iter()
        .map(|field| {
            as_object(field, "a partition field")?;
            Ok(PartitionField {
                source_ids: source_ids(field)?,
                field_id: field
                    .get("field-id")
                    .map(|id| as_i32(id, "`field-id`"))
                    .transpose()?,
                name: as_str(required_member(field, "name")?, "`name`")?.to_string(),
                transform: as_str(required_member(field, "transform")?, "`transform`")?.to_string(),
            })
        })
        .collect()
}

/// `source-id` or, for v3 multi-argument transforms, `source-ids`; shared with sort fields.
pub fn source_ids(field: &Node<'_>) -> ModelResult<Vec<FieldId>> {
    if let Some(ids) = field.get("source-ids") {
        return as_array(ids, "`source-ids`")?
            .iter()
            .map(|id| as_i32(id, "a source id"))
            .collect();
    }
    Ok(vec![as_i32(
        required_member(field, "source-id")?,
        "`source-id`",
    )?])
}
