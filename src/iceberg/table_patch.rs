//! The text edits for what a statement changes beside the schema: new partition specs (appended
//! to `partition-specs` in the key order of the file's own partition fields), `default-spec-id`,
//! `last-partition-id`, v1's deprecated `partition-spec` (the default spec's fields, as Java's
//! v1 writer keeps it), new sort orders and `default-sort-order-id`, `format-version`, and `properties`, rewritten as one object in its
//! original order when a property is set or removed.

use std::collections::HashSet;

use serde_json::{Map, Value as JsonValue};

use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::name_mapping::NAME_MAPPING_PROPERTY;
use crate::iceberg::partition::{PartitionField, PartitionSpec};
use crate::iceberg::sort::{SortField, SortOrder};
use crate::json::{self, Edits, Node, Style};

/// Whether anything these edits cover differs.
pub(crate) fn table_keys_changed(base: &TableMetadata, updated: &TableMetadata) -> bool {
    base.partition_specs != updated.partition_specs
        || base.default_spec_id != updated.default_spec_id
        || base.last_partition_id != updated.last_partition_id
        || base.sort_orders != updated.sort_orders
        || base.default_sort_order_id != updated.default_sort_order_id
        || base.format_version != updated.format_version
        || base.properties != updated.properties
}

/// Whether `properties` is rewritten whole (then the name mapping goes in with it).
pub(crate) fn properties_rewritten(base: &TableMetadata, updated: &TableMetadata) -> bool {
    base.properties != updated.properties
}

pub(crate) fn patch_table_keys(
    original: &str,
    root: &Node<'_>,
    base: &TableMetadata,
    updated: &TableMetadata,
    style: &Style,
    edits: &mut Edits,
) -> Result<(), String> {
    patch_specs(original, root, base, updated, style, edits)?;
    patch_sort_orders(original, root, base, updated, style, edits)?;
    if updated.format_version != base.format_version {
        let version = updated.format_version.into();
        set_number(original, root, "format-version", version, style, edits)?;
        upgrade_keys(original, root, updated.format_version, style, edits)?;
    }
    if properties_rewritten(base, updated) {
        patch_properties(original, root, updated, style, edits)?;
    }
    Ok(())
}

fn patch_specs(
    original: &str,
    root: &Node<'_>,
    base: &TableMetadata,
    updated: &TableMetadata,
    style: &Style,
    edits: &mut Edits,
) -> Result<(), String> {
    let order = field_key_order(root);
    let old_ids: HashSet<i32> = base.partition_specs.iter().map(|s| s.spec_id).collect();
    let added: Vec<JsonValue> = updated
        .partition_specs
        .iter()
        .filter(|s| !old_ids.contains(&s.spec_id))
        .map(|s| spec_to_json(s, &order))
        .collect();
    if !added.is_empty() {
        match root.get("partition-specs") {
            Some(specs) => edits.push(
                json::append_elements(original, specs, added, style).map_err(|e| e.to_string())?,
            ),
            None => {
                let all = updated.partition_specs.iter();
                let all = JsonValue::Array(all.map(|s| spec_to_json(s, &order)).collect());
                insert(original, root, "partition-specs", all, style, edits)?;
            }
        }
    }
    if updated.default_spec_id != base.default_spec_id {
        let id = updated.default_spec_id.into();
        set_number(original, root, "default-spec-id", id, style, edits)?;
        v1_partition_spec(original, root, updated, &order, style, edits);
    }
    if updated.last_partition_id != base.last_partition_id
        && let Some(last) = updated.last_partition_id
    {
        let last = last.into();
        set_number(original, root, "last-partition-id", last, style, edits)?;
    }
    Ok(())
}

fn patch_properties(
    original: &str,
    root: &Node<'_>,
    updated: &TableMetadata,
    style: &Style,
    edits: &mut Edits,
) -> Result<(), String> {
    let mut map = Map::new();
    for (key, value) in &updated.properties {
        let value = match (&updated.name_mapping, key.as_str()) {
            (Some(mapping), NAME_MAPPING_PROPERTY) => mapping.to_json_string(),
            _ => value.clone(),
        };
        map.insert(key.clone(), JsonValue::String(value));
    }
    match root.get("properties") {
        Some(node) => edits.push(json::replace_with_value(
            original,
            node,
            &JsonValue::Object(map),
            style,
        )),
        None => insert(
            original,
            root,
            "properties",
            JsonValue::Object(map),
            style,
            edits,
        )?,
    }
    Ok(())
}

/// v1's deprecated `partition-spec`: the default spec's fields, as Java's v1 writer keeps it.
fn v1_partition_spec(
    original: &str,
    root: &Node<'_>,
    updated: &TableMetadata,
    order: &[String],
    style: &Style,
    edits: &mut Edits,
) {
    if let Some(node) = root.get("partition-spec")
        && let Some(spec) = updated
            .partition_specs
            .iter()
            .find(|s| s.spec_id == updated.default_spec_id)
    {
        let fields = spec
            .fields
            .iter()
            .map(|f| field_to_json(f, order))
            .collect();
        let value = JsonValue::Array(fields);
        edits.push(json::replace_with_value(original, node, &value, style));
    }
}

/// Keys a newer format version requires that an older file lacks, with the values Java gives
/// a table upgraded in place.
fn upgrade_keys(
    original: &str,
    root: &Node<'_>,
    version: u8,
    style: &Style,
    edits: &mut Edits,
) -> Result<(), String> {
    if version >= 2 && root.get("last-sequence-number").is_none() {
        insert(
            original,
            root,
            "last-sequence-number",
            0.into(),
            style,
            edits,
        )?;
    }
    if version >= 3 && root.get("next-row-id").is_none() {
        insert(original, root, "next-row-id", 0.into(), style, edits)?;
    }
    Ok(())
}

fn insert(
    original: &str,
    root: &Node<'_>,
    key: &str,
    value: JsonValue,
    style: &Style,
    edits: &mut Edits,
) -> Result<(), String> {
    let edit =
        json::insert_member(original, root, key, &value, style).map_err(|e| e.to_string())?;
    edits.push(edit);
    Ok(())
}

fn set_number(
    original: &str,
    root: &Node<'_>,
    key: &str,
    value: JsonValue,
    style: &Style,
    edits: &mut Edits,
) -> Result<(), String> {
    match root.get(key) {
        Some(node) => {
            edits.replace(node.span, value.to_string());
            Ok(())
        }
        None => insert(original, root, key, value, style, edits),
    }
}

/// The key order of the file's first partition field (Java: name, transform, source-id,
/// field-id; PyIceberg: source-id, field-id, transform, name).
fn field_key_order(root: &Node<'_>) -> Vec<String> {
    let first = root
        .get("partition-specs")
        .and_then(|s| s.as_array())
        .into_iter()
        .flatten()
        .chain(root.get("partition-spec"))
        .flat_map(|spec| match spec.get("fields") {
            Some(fields) => fields.as_array().unwrap_or_default().to_vec(),
            None => spec.as_array().unwrap_or_default().to_vec(),
        })
        .next();
    let known = ["name", "transform", "source-id", "field-id"];
    let mut order: Vec<String> = first
        .and_then(|f| {
            f.as_object()
                .map(|m| m.iter().map(|m| m.key.to_string()).collect::<Vec<_>>())
        })
        .unwrap_or_default()
        .into_iter()
        .map(|k| {
            if k == "source-ids" {
                "source-id".into()
            } else {
                k
            }
        })
        .filter(|k| known.contains(&k.as_str()))
        .collect();
    for key in known {
        if !order.iter().any(|k| k == key) {
            order.push(key.to_string());
        }
    }
    order
}

fn field_to_json(field: &PartitionField, order: &[String]) -> JsonValue {
    let mut m = Map::new();
    for key in order {
        let value: JsonValue = match key.as_str() {
            "name" => field.name.clone().into(),
            "transform" => field.transform.clone().into(),
            "source-id" => field.source_ids.first().copied().unwrap_or(0).into(),
            _ => field.field_id.unwrap_or(0).into(),
        };
        m.insert(key.clone(), value);
    }
    JsonValue::Object(m)
}

fn spec_to_json(spec: &PartitionSpec, order: &[String]) -> JsonValue {
    let mut m = Map::new();
    m.insert("spec-id".into(), spec.spec_id.into());
    m.insert(
        "fields".into(),
        JsonValue::Array(
            spec.fields
                .iter()
                .map(|f| field_to_json(f, order))
                .collect(),
        ),
    );
    JsonValue::Object(m)
}

fn patch_sort_orders(
    original: &str,
    root: &Node<'_>,
    base: &TableMetadata,
    updated: &TableMetadata,
    style: &Style,
    edits: &mut Edits,
) -> Result<(), String> {
    let order = sort_key_order(root);
    let old_ids: HashSet<i32> = base.sort_orders.iter().map(|o| o.order_id).collect();
    let added: Vec<JsonValue> = updated
        .sort_orders
        .iter()
        .filter(|o| !old_ids.contains(&o.order_id))
        .map(|o| sort_order_to_json(o, &order))
        .collect();
    if !added.is_empty() {
        match root.get("sort-orders") {
            Some(orders) => edits.push(
                json::append_elements(original, orders, added, style).map_err(|e| e.to_string())?,
            ),
            None => {
                let all = updated
                    .sort_orders
                    .iter()
                    .map(|o| sort_order_to_json(o, &order))
                    .collect();
                insert(
                    original,
                    root,
                    "sort-orders",
                    JsonValue::Array(all),
                    style,
                    edits,
                )?;
            }
        }
    }
    if updated.default_sort_order_id != base.default_sort_order_id {
        let id = updated.default_sort_order_id.into();
        set_number(original, root, "default-sort-order-id", id, style, edits)?;
    }
    Ok(())
}

/// The key order of the file's first sort field (Java: transform, source-id, direction,
/// null-order; PyIceberg: source-id, transform, direction, null-order).
fn sort_key_order(root: &Node<'_>) -> Vec<String> {
    let known = ["transform", "source-id", "direction", "null-order"];
    let first = root
        .get("sort-orders")
        .and_then(|s| s.as_array())
        .into_iter()
        .flatten()
        .filter_map(|o| o.get("fields").and_then(|f| f.as_array()))
        .flatten()
        .next();
    let mut order: Vec<String> = first
        .and_then(|f| {
            f.as_object()
                .map(|m| m.iter().map(|m| m.key.to_string()).collect::<Vec<_>>())
        })
        .unwrap_or_default()
        .into_iter()
        .map(|k| {
            if k == "source-ids" {
                "source-id".into()
            } else {
                k
            }
        })
        .filter(|k| known.contains(&k.as_str()))
        .collect();
    for key in known {
        if !order.iter().any(|k| k == key) {
            order.push(key.to_string());
        }
    }
    order
}

fn sort_field_to_json(field: &SortField, order: &[String]) -> JsonValue {
    let mut m = Map::new();
    for key in order {
        let value: JsonValue = match key.as_str() {
            "transform" => field.transform.clone().into(),
            "source-id" => field.source_ids.first().copied().unwrap_or(0).into(),
            "direction" => field.direction.clone().into(),
            _ => field.null_order.clone().into(),
        };
        m.insert(key.clone(), value);
    }
    JsonValue::Object(m)
}

fn sort_order_to_json(sort_order: &SortOrder, order: &[String]) -> JsonValue {
    let mut m = Map::new();
    m.insert("order-id".into(), sort_order.order_id.into());
    m.insert(
        "fields".into(),
        JsonValue::Array(
            sort_order
                .fields
                .iter()
                .map(|f| sort_field_to_json(f, order))
                .collect(),
        ),
    );
    JsonValue::Object(m)
}
