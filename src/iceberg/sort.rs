//! Sort orders: which fields a table's writers sort by, so dropping one can be caught.

use crate::iceberg::codec::{ModelResult, as_array, as_i32, as_object, as_str, required_member};
use crate::iceberg::partition::source_ids;
use crate::iceberg::types::FieldId;
use crate::json::Node;

#[derive(Debug, Clone, PartialEq)]
pub struct SortOrder {
    pub order_id: i32,
    pub fields: Vec<SortField>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SortField {
    pub source_ids: Vec<FieldId>,
    pub transform: String,
    pub direction: String,
    pub null_order: String,
}

impl SortOrder {
    pub fn from_json(node: &Node<'_>) -> ModelResult<SortOrder> {
        as_object(node, "a sort order")?;
        let fields = as_array(required_member(node, "fields")?, "`fields`")?
            .iter()
            .map(|field| {
                as_object(field, "a sort field")?;
                Ok(SortField {
                    source_ids: source_ids(field)?,
                    transform: as_str(required_member(field, "transform")?, "`transform`")?
                        .to_string(),
                    direction: as_str(required_member(field, "direction")?, "`direction`")?
                        .to_string(),
                    null_order: as_str(required_member(field, "null-order")?, "`null-order`")?
                        .to_string(),
                })
            })
            .collect::<ModelResult<_>>()?;
        Ok(SortOrder {
            order_id: as_i32(required_member(node, "order-id")?, "`order-id`")?,
            fields,
        })
    }
}
