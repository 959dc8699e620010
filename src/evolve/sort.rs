//! Sort order replacement (`WRITE ... ORDERED BY`), with the order ids Iceberg Java's table
//! metadata builder gives: the unsorted order is always id 0; an order with the same fields as
//! an earlier one takes its id; a new one takes the highest id + 1 (at least 1). The write
//! distribution the statement implies is the `write.distribution-mode` property.

use crate::change::{PartitionTerm, SortTerm};
use crate::evolve::partition::{Numbered, earlier_or_next, transform_applies};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::schema::Schema;
use crate::iceberg::sort::{SortField, SortOrder};
use crate::iceberg::types::Type;
use crate::suggest::closest;

pub(super) const DISTRIBUTION_MODE: &str = "write.distribution-mode";

/// Binds `terms` to the current schema and makes them the default sort order.
pub(super) fn replace_sort_order(
    metadata: &mut TableMetadata,
    schema: &Schema,
    terms: &[SortTerm],
) -> Result<(), String> {
    let mut fields = Vec::with_capacity(terms.len());
    for term in terms {
        fields.push(bind(schema, term)?);
    }
    let order_id = if fields.is_empty() {
        0
    } else {
        let same = |o: &SortOrder| o.fields == fields;
        match earlier_or_next(&metadata.sort_orders, |o| o.order_id, same, 1) {
            Numbered::Earlier(id) => id,
            Numbered::Next(id) => id.max(1),
            Numbered::NoneLeft(highest) => {
                return Err(format!(
                    "Cannot add sort order: order id {highest} is the largest id there is, so no id is left for a new sort order"
                ));
            }
        }
    };
    if !metadata.sort_orders.iter().any(|o| o.order_id == order_id) {
        metadata.sort_orders.push(SortOrder { order_id, fields });
    }
    metadata.default_sort_order_id = order_id;
    Ok(())
}

fn bind(schema: &Schema, sort: &SortTerm) -> Result<SortField, String> {
    let term = &sort.term;
    let Some(source) = schema.field_by_path(&term.column) else {
        let paths: Vec<String> = schema.walk().into_iter().map(|f| f.path).collect();
        let hint = closest(&term.column, paths.iter().map(String::as_str))
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        return Err(format!(
            "Cannot find field '{}' in struct{hint}",
            term.column
        ));
    };
    let Type::Primitive(primitive) = &source.field_type else {
        return Err(format!(
            "Cannot sort by non-primitive source field: {}",
            source.path
        ));
    };
    if !transform_applies(&term.transform, primitive) {
        return Err(format!(
            "Invalid source type {primitive} for transform: {}",
            term.transform
        ));
    }
    Ok(SortField {
        source_ids: vec![source.id],
        transform: term.transform.clone(),
        direction: if sort.descending { "desc" } else { "asc" }.into(),
        null_order: if sort.nulls_first {
            "nulls-first"
        } else {
            "nulls-last"
        }
        .into(),
    })
}

/// The default order as reports show it: `id ASC NULLS FIRST, bucket[4](x) DESC NULLS LAST`.
pub(crate) fn describe(metadata: &TableMetadata, schema: &Schema) -> String {
    let Some(order) = metadata
        .sort_orders
        .iter()
        .find(|o| o.order_id == metadata.default_sort_order_id)
        .filter(|o| !o.fields.is_empty())
    else {
        return "unsorted".into();
    };
    order
        .fields
        .iter()
        .map(|f| {
            let column = f
                .source_ids
                .first()
                .and_then(|id| schema.field_by_id(*id))
                .map_or_else(|| "?".to_string(), |s| s.path);
            let term = PartitionTerm {
                transform: f.transform.clone(),
                column,
            };
            format!(
                "{} {} {}",
                term.written(),
                f.direction.to_ascii_uppercase(),
                f.null_order.replace('-', " ").to_ascii_uppercase()
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}
