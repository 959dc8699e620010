//! The CommitTableRequest for an approved schema change, as Iceberg Java's `SchemaUpdate` sends
//! it: an `add-schema` for each new schema in order, `set-current-schema` (`-1`, the schema added
//! last, when that is the current one), `set-properties` for a changed name mapping; and the
//! requirements `assert-table-uuid`, `assert-current-schema-id` and
//! `assert-last-assigned-field-id` at the live table's values, so a table that changed since it
//! was pulled refuses the commit (409) instead of taking it.

use serde_json::{Map, Value, json};

use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::name_mapping::NAME_MAPPING_PROPERTY;

/// What a schema change writes; everything else must be the same in the pinned copy and live.
const SCHEMA_MEMBERS: &[&str] = &[
    "schemas",
    "schema",
    "current-schema-id",
    "last-column-id",
    "last-updated-ms",
    "last-sequence-number",
    "next-row-id",
    "properties",
];

/// The request that makes `live` into `pinned` (both pinned copies: members and typed view);
/// `Ok(None)` when they already agree; `Err` saying why the pinned copy is not the live table
/// plus new schemas.
pub fn schema_update(
    live: (&TableMetadata, &Map<String, Value>),
    pinned: (&TableMetadata, &Map<String, Value>),
) -> Result<Option<Value>, String> {
    let (live_typed, live_members) = live;
    let (pinned_typed, pinned_members) = pinned;
    only_schema_changes(live, pinned)?;
    let known = live_typed.schemas.len();
    let new_schemas: Vec<&Value> = pinned_members
        .get("schemas")
        .and_then(Value::as_array)
        .map(|all| all.iter().skip(known).collect())
        .unwrap_or_default();
    let mapping = |m: &TableMetadata| m.property(NAME_MAPPING_PROPERTY).map(str::to_string);
    let mapping_changed = mapping(pinned_typed) != mapping(live_typed);
    if new_schemas.is_empty()
        && pinned_typed.current_schema_id == live_typed.current_schema_id
        && !mapping_changed
    {
        return Ok(None);
    }
    let mut updates: Vec<Value> = new_schemas
        .iter()
        .map(|schema| json!({"action": "add-schema", "schema": schema, "last-column-id": pinned_typed.last_column_id}))
        .collect();
    if pinned_typed.current_schema_id != live_typed.current_schema_id {
        let last_added = pinned_typed.schemas.last().map(|s| s.schema_id);
        let id = if !new_schemas.is_empty() && last_added == Some(pinned_typed.current_schema_id) {
            -1
        } else {
            pinned_typed.current_schema_id
        };
        updates.push(json!({"action": "set-current-schema", "schema-id": id}));
    }
    if mapping_changed {
        match mapping(pinned_typed) {
            Some(text) => updates.push(
                json!({"action": "set-properties", "updates": {NAME_MAPPING_PROPERTY: text}}),
            ),
            None => updates
                .push(json!({"action": "remove-properties", "removals": [NAME_MAPPING_PROPERTY]})),
        }
    }
    let uuid = live_members
        .get("table-uuid")
        .cloned()
        .unwrap_or(Value::Null);
    Ok(Some(json!({
        "requirements": [
            {"type": "assert-table-uuid", "uuid": uuid},
            {"type": "assert-current-schema-id", "current-schema-id": live_typed.current_schema_id},
            {"type": "assert-last-assigned-field-id", "last-assigned-field-id": live_typed.last_column_id},
        ],
        "updates": updates,
    })))
}

/// The pinned metadata differs from the live table's only in its schemas, the current schema and
/// the name mapping, and keeps every live schema: what a push may commit.
fn only_schema_changes(
    live: (&TableMetadata, &Map<String, Value>),
    pinned: (&TableMetadata, &Map<String, Value>),
) -> Result<(), String> {
    let (live_typed, live_members) = live;
    let (pinned_typed, pinned_members) = pinned;
    let known = live_typed.schemas.len();
    if !pinned_typed.schemas.starts_with(&live_typed.schemas) {
        return Err(format!(
            "its schemas do not start with the live table's {known}: the table changed since it was pulled (pull, re-apply the migrations, re-review)"
        ));
    }
    for (key, value) in pinned_members
        .iter()
        .filter(|(k, _)| !SCHEMA_MEMBERS.contains(&k.as_str()))
    {
        if live_members.get(key) != Some(value) {
            return Err(format!(
                "its `{key}` is not the live table's: push commits schema changes only"
            ));
        }
    }
    let other_properties = |m: &Map<String, Value>| -> Map<String, Value> {
        m.get("properties")
            .and_then(Value::as_object)
            .map(|p| {
                p.iter()
                    .filter(|(k, _)| *k != NAME_MAPPING_PROPERTY)
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default()
    };
    if other_properties(pinned_members) != other_properties(live_members) {
        return Err("its properties other than the name mapping are not the live table's: push commits schema changes only".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn table(
        schemas: &str,
        current: i32,
        last: i32,
        extra: &str,
    ) -> (TableMetadata, Map<String, Value>) {
        let text = format!(
            r#"{{"format-version":2,"table-uuid":"u-1","location":"l","last-sequence-number":0,"last-updated-ms":1,"last-column-id":{last},"current-schema-id":{current},"schemas":[{schemas}],"default-spec-id":0,"partition-specs":[{{"spec-id":0,"fields":[]}}],"last-partition-id":999,"default-sort-order-id":0,"sort-orders":[{{"order-id":0,"fields":[]}}]{extra}}}"#
        );
        let typed = TableMetadata::from_json(&json::parse(&text).expect("json")).expect("metadata");
        let members = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default();
        (typed, members)
    }

    const S0: &str = r#"{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"a","required":false,"type":"long"}]}"#;
    const S1: &str = r#"{"type":"struct","schema-id":1,"fields":[{"id":1,"name":"a","required":false,"type":"long"},{"id":2,"name":"b","required":false,"type":"string"}]}"#;

    #[test]
    fn new_schemas_become_java_schema_update_requests() {
        let live = table(S0, 0, 1, "");
        let pinned = table(&format!("{S0},{S1}"), 1, 2, "");
        let request = schema_update((&live.0, &live.1), (&pinned.0, &pinned.1))
            .expect("ok")
            .expect("some");
        assert_eq!(
            request["requirements"],
            json!([
                {"type": "assert-table-uuid", "uuid": "u-1"},
                {"type": "assert-current-schema-id", "current-schema-id": 0},
                {"type": "assert-last-assigned-field-id", "last-assigned-field-id": 1}
            ])
        );
        assert_eq!(request["updates"][0]["action"], "add-schema");
        assert_eq!(request["updates"][0]["schema"]["schema-id"], 1);
        assert_eq!(request["updates"][0]["last-column-id"], 2);
        assert_eq!(
            request["updates"][1],
            json!({"action": "set-current-schema", "schema-id": -1})
        );
        assert_eq!(request["updates"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn the_same_table_is_nothing_and_another_is_refused() {
        let live = table(S0, 0, 1, "");
        assert_eq!(
            schema_update((&live.0, &live.1), (&live.0, &live.1)),
            Ok(None)
        );
        let moved_on = table(&format!("{S0},{S1}"), 1, 2, "");
        let stale = table(S0, 0, 1, "");
        assert!(schema_update((&moved_on.0, &moved_on.1), (&stale.0, &stale.1)).is_err());
        let other_spec = table(&format!("{S0},{S1}"), 1, 2, r#","last-partition-id-x":1"#);
        let why =
            schema_update((&live.0, &live.1), (&other_spec.0, &other_spec.1)).expect_err("refused");
        assert!(why.contains("`last-partition-id-x`"), "{why}");
    }

    #[test]
    fn a_changed_name_mapping_is_set_as_a_property() {
        let live = table(S0, 0, 1, "");
        let mapped = table(
            S0,
            0,
            1,
            r#","properties":{"schema.name-mapping.default":"[{\"field-id\":1,\"names\":[\"a\"]}]"}"#,
        );
        let request = schema_update((&live.0, &live.1), (&mapped.0, &mapped.1))
            .expect("ok")
            .expect("some");
        assert_eq!(request["updates"][0]["action"], "set-properties");
        assert!(request["updates"][0]["updates"]["schema.name-mapping.default"].is_string());
    }
}
