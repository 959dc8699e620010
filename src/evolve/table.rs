//! The changes of a statement that are not schema updates: partition spec evolution (one spec
//! update per statement), table properties (with the few that change how the table is read
//! judged), and statements with no effect on the table's metadata, which are recorded so the
//! report can list them.

use crate::change::{Applied, AppliedKind, Problem, ProblemKind, PropertyEdit};
use crate::change::{Change, ChangeKind, PartitionTerm};
use crate::evolve::partition::{SpecUpdate, commit_spec, describe};
use crate::evolve::sort;
use crate::iceberg::metadata::{MAX_FORMAT_VERSION, RESERVED_PROPERTIES, TableMetadata};
use crate::iceberg::name_mapping::{MappedField, NAME_MAPPING_PROPERTY, NameMapping};
use crate::iceberg::schema::Schema;

/// Applies one table change to `metadata`, whose current schema is `schema`.
pub(super) fn apply_table_change(
    metadata: &mut TableMetadata,
    schema: &Schema,
    change: &Change,
) -> Result<Applied, Box<Problem>> {
    let refuse = |message: String| Box::new(problem(change, message));
    match &change.kind {
        ChangeKind::AddPartitionField { .. }
        | ChangeKind::DropPartitionField { .. }
        | ChangeKind::ReplacePartitionField { .. }
        | ChangeKind::SetPartitioning { .. } => {
            evolve_spec(metadata, schema, change).map_err(refuse)
        }
        ChangeKind::SetWriteOrder {
            order,
            distribution,
        } => {
            let before = sort::describe(metadata, schema);
            sort::replace_sort_order(metadata, schema, order).map_err(refuse)?;
            set_property(metadata, schema, sort::DISTRIBUTION_MODE, distribution)
                .map_err(refuse)?;
            let after = sort::describe(metadata, schema);
            let mut applied = Applied::new(
                AppliedKind::SetWriteOrder,
                None,
                format!("{after} ({} distribution)", distribution),
                Some(before),
                Some(after),
            );
            applied.sort_order_id = Some(metadata.default_sort_order_id);
            Ok(applied)
        }
        ChangeKind::SetProperties { .. } | ChangeKind::UnsetProperties { .. } => {
            properties_change(metadata, schema, change).map_err(refuse)
        }
        ChangeKind::NoSchemaEffect { statement } => Ok(Applied::new(
            AppliedKind::NoSchemaEffect,
            None,
            statement.clone(),
            None,
            None,
        )),
        _ => Err(refuse("not a table change".into())),
    }
}

/// `SET TBLPROPERTIES` / `UNSET TBLPROPERTIES`, one property at a time, each recorded with its
/// value before and after for the rules that judge properties.
fn properties_change(
    metadata: &mut TableMetadata,
    schema: &Schema,
    change: &Change,
) -> Result<Applied, String> {
    let mut edits = Vec::new();
    let (kind, written) = match &change.kind {
        ChangeKind::SetProperties { properties } => {
            let mut written = Vec::new();
            for (key, value) in properties {
                let before = property_value(metadata, key);
                set_property(metadata, schema, key, value)?;
                edits.push(edit(metadata, key, before));
                written.push(format!("{key}={value}"));
            }
            (AppliedKind::SetProperties, written)
        }
        ChangeKind::UnsetProperties { keys, if_exists } => {
            for key in keys {
                let before = property_value(metadata, key);
                unset_property(metadata, key, *if_exists)?;
                edits.push(edit(metadata, key, before));
            }
            (AppliedKind::UnsetProperties, keys.clone())
        }
        _ => return Err("not a property change".into()),
    };
    let mut applied = Applied::new(kind, None, written.join(", "), None, None);
    applied.properties = edits;
    Ok(applied)
}

/// A property's value as readers see it; `format-version` lives outside `properties`.
fn property_value(metadata: &TableMetadata, key: &str) -> Option<String> {
    match key {
        "format-version" => Some(metadata.format_version.to_string()),
        _ => metadata.property(key).map(str::to_string),
    }
}

fn edit(metadata: &TableMetadata, key: &str, before: Option<String>) -> PropertyEdit {
    PropertyEdit {
        key: key.to_string(),
        before,
        after: property_value(metadata, key),
    }
}

fn problem(change: &Change, message: String) -> Problem {
    Problem {
        kind: ProblemKind::InvalidChange,
        message,
        help: None,
        origin: change.origin.clone(),
        field_id: None,
        path: None,
    }
}

/// One partition spec update, as Iceberg's Spark extensions drive `UpdatePartitionSpec`.
fn evolve_spec(
    metadata: &mut TableMetadata,
    schema: &Schema,
    change: &Change,
) -> Result<Applied, String> {
    let before = describe(metadata, schema);
    let mut update = SpecUpdate::new(metadata, schema)?;
    let remove = |update: &mut SpecUpdate, term: &PartitionTerm| {
        if update.names_partition_field(term) {
            update.remove_by_name(&term.column)
        } else {
            update.remove_by_term(term)
        }
    };
    let (kind, path) = match &change.kind {
        ChangeKind::AddPartitionField { term, name } => {
            update.add(name.as_deref(), term)?;
            (AppliedKind::AddPartitionField, term.written())
        }
        ChangeKind::DropPartitionField { term } => {
            remove(&mut update, term)?;
            (AppliedKind::DropPartitionField, term.written())
        }
        ChangeKind::ReplacePartitionField { from, to, name } => {
            remove(&mut update, from)?;
            update.add(name.as_deref(), to)?;
            (AppliedKind::ReplacePartitionField, from.written())
        }
        ChangeKind::SetPartitioning { terms } => {
            update.set_partitioning(terms)?;
            let written: Vec<String> = terms.iter().map(PartitionTerm::written).collect();
            (AppliedKind::SetPartitioning, written.join(", "))
        }
        _ => return Err("not a partition change".into()),
    };
    let (fields, last) = update.apply()?;
    commit_spec(metadata, fields, last)?;
    let after = describe(metadata, schema);
    Ok(Applied::new(kind, None, path, Some(before), Some(after)))
}

fn set_property(
    metadata: &mut TableMetadata,
    schema: &Schema,
    key: &str,
    value: &str,
) -> Result<(), String> {
    match key {
        "format-version" => return upgrade_format_version(metadata, value),
        NAME_MAPPING_PROPERTY => metadata.name_mapping = Some(mapping_for(schema, value)?),
        _ if RESERVED_PROPERTIES.contains(&key) => {
            return Err(format!(
                "Table properties should not contain reserved property {key}"
            ));
        }
        _ => {}
    }
    match metadata.properties.iter_mut().find(|(k, _)| k == key) {
        Some((_, existing)) => *existing = value.to_string(),
        None => metadata
            .properties
            .push((key.to_string(), value.to_string())),
    }
    Ok(())
}

fn unset_property(metadata: &mut TableMetadata, key: &str, if_exists: bool) -> Result<(), String> {
    if RESERVED_PROPERTIES.contains(&key) {
        return Err(format!("Cannot remove reserved property: {key}"));
    }
    let Some(position) = metadata.properties.iter().position(|(k, _)| k == key) else {
        if if_exists {
            return Ok(());
        }
        return Err(format!(
            "Attempted to unset non-existent property '{key}' (write UNSET TBLPROPERTIES IF EXISTS to allow it)"
        ));
    };
    metadata.properties.remove(position);
    if key == NAME_MAPPING_PROPERTY {
        metadata.name_mapping = None;
    }
    Ok(())
}

/// `format-version` upgrades the table (Java's `upgradeFormatVersion`); it never goes down.
fn upgrade_format_version(metadata: &mut TableMetadata, value: &str) -> Result<(), String> {
    let Ok(version) = value.trim().parse::<u8>() else {
        return Err(format!("Invalid format version: {value}"));
    };
    if version < metadata.format_version {
        return Err(format!(
            "Cannot downgrade v{} table to v{version}",
            metadata.format_version
        ));
    }
    if version > MAX_FORMAT_VERSION {
        return Err(format!(
            "Cannot upgrade table to unsupported format version: v{version} (supported: v{MAX_FORMAT_VERSION})"
        ));
    }
    metadata.format_version = version;
    Ok(())
}

/// A new `schema.name-mapping.default`: it must parse, and map every field of the current
/// schema, or files written without field ids lose the columns it does not map.
fn mapping_for(schema: &Schema, value: &str) -> Result<NameMapping, String> {
    let mapping = NameMapping::parse_value(value)?;
    let mut mapped = std::collections::HashSet::new();
    collect_ids(&mapping.fields, &mut mapped);
    let unmapped: Vec<String> = schema
        .walk()
        .into_iter()
        .filter(|f| !mapped.contains(&f.id))
        .map(|f| format!("`{}` (field id {})", f.path, f.id))
        .collect();
    if !unmapped.is_empty() {
        return Err(format!(
            "`{NAME_MAPPING_PROPERTY}` does not resolve {}: files written without field ids would read them as null",
            unmapped.join(", ")
        ));
    }
    Ok(mapping)
}

fn collect_ids(fields: &[MappedField], out: &mut std::collections::HashSet<i32>) {
    for field in fields {
        if let Some(id) = field.field_id
            && !field.names.is_empty()
        {
            out.insert(id);
        }
        collect_ids(&field.fields, out);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::change::{SourceFile, StatementKind};
    use crate::evolve::{Evolution, evolve};
    use crate::frontend::ddl::{Dialect, parse_sql};
    use crate::iceberg::metadata::TableMetadata;

    const V2: &str = r#"{"format-version":2,"table-uuid":"00000000-0000-4000-8000-000000000000","last-sequence-number":0,"sort-orders":[{"order-id":0,"fields":[]}],"default-sort-order-id":0,"location":"/t","last-updated-ms":1,"last-column-id":4,"current-schema-id":0,"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"ts","required":false,"type":"timestamptz"},{"id":3,"name":"tags","required":false,"type":{"type":"list","element-id":4,"element":"string","element-required":false}}]}],"default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[{"name":"ts_month","transform":"month","source-id":2,"field-id":1000}]}],"last-partition-id":1000,"properties":{"owner":"a"}}"#;

    fn run(base: &str, sql: &str, dialect: Dialect) -> Evolution {
        let table = TableMetadata::from_json(&crate::json::parse(base).unwrap()).unwrap();
        let source = Arc::new(SourceFile {
            name: "m.sql".into(),
            text: sql.into(),
        });
        let statements = parse_sql(source, dialect).unwrap();
        evolve(
            &table,
            statements.iter().map(|s| match &s.kind {
                StatementKind::Alter(changes) => changes.as_slice(),
                StatementKind::CreateTable(_) => &[],
            }),
        )
    }

    fn problems(sql: &str) -> Vec<String> {
        run(V2, sql, Dialect::Spark)
            .problems
            .into_iter()
            .map(|p| p.message)
            .collect()
    }

    #[test]
    fn iceberg_refusals_come_with_javas_reason() {
        for (sql, reason) in [
            (
                "ALTER TABLE t ADD PARTITION FIELD months(ts)",
                "Cannot add duplicate partition field null=month(ts), conflicts with ts_month",
            ),
            (
                "ALTER TABLE t ADD PARTITION FIELD bucket(4, idd)",
                "Cannot find field 'idd' in struct (did you mean `id`?)",
            ),
            (
                "ALTER TABLE t ADD PARTITION FIELD tags",
                "Cannot partition by non-primitive source field: tags",
            ),
            (
                "ALTER TABLE t ADD PARTITION FIELD hours(id)",
                "Invalid source type long for transform: hour",
            ),
            (
                "ALTER TABLE t DROP PARTITION FIELD ts_day",
                "Cannot find partition field to remove: ts_day (the spec has ts_month)",
            ),
            (
                "ALTER TABLE t ADD PARTITION FIELD id AS ts_month",
                "Cannot add duplicate partition field name: ts_month",
            ),
        ] {
            assert_eq!(problems(sql), vec![reason.to_string()], "{sql}");
        }
    }

    #[test]
    fn trino_partitioning_keeps_what_stays_and_refuses_redundant_time_fields() {
        let evolution = run(
            V2,
            "ALTER TABLE t SET PROPERTIES partitioning = ARRAY['month(ts)', 'bucket(id, 4)']",
            Dialect::Trino,
        );
        assert!(evolution.problems.is_empty(), "{:?}", evolution.problems);
        let spec = evolution.metadata.partition_specs.last().unwrap();
        let fields: Vec<(Option<i32>, &str)> = spec
            .fields
            .iter()
            .map(|f| (f.field_id, f.name.as_str()))
            .collect();
        assert_eq!(
            fields,
            vec![(Some(1000), "ts_month"), (Some(1001), "id_bucket_4")]
        );
        assert_eq!(evolution.metadata.default_spec_id, 1);
        let refused = run(
            V2,
            "ALTER TABLE t SET PROPERTIES partitioning = ARRAY['day(ts)', 'hour(ts)']",
            Dialect::Trino,
        );
        assert_eq!(
            refused.problems[0].message,
            "Cannot add redundant partition field: ts_day conflicts with ts_hour"
        );
    }

    #[test]
    fn sort_orders_reuse_ids_and_unsorted_is_zero() {
        let evolution = run(
            V2,
            "ALTER TABLE t WRITE ORDERED BY id;
             ALTER TABLE t WRITE ORDERED BY ts DESC;
             ALTER TABLE t WRITE ORDERED BY id;
             ALTER TABLE t WRITE UNORDERED",
            Dialect::Spark,
        );
        assert!(evolution.problems.is_empty(), "{:?}", evolution.problems);
        let ids: Vec<i32> = evolution
            .metadata
            .sort_orders
            .iter()
            .map(|o| o.order_id)
            .collect();
        assert_eq!(ids, vec![0, 1, 2]);
        assert_eq!(evolution.metadata.default_sort_order_id, 0);
        let defaults: Vec<String> = evolution
            .applied
            .iter()
            .filter_map(|a| a.to.clone())
            .collect();
        assert_eq!(
            defaults,
            vec![
                "id ASC NULLS FIRST",
                "ts DESC NULLS LAST",
                "id ASC NULLS FIRST",
                "unsorted"
            ]
        );
        assert_eq!(
            evolution.metadata.property("write.distribution-mode"),
            Some("none")
        );
        assert_eq!(
            problems("ALTER TABLE t WRITE ORDERED BY tags")[0],
            "Cannot sort by non-primitive source field: tags"
        );
    }

    #[test]
    fn properties_follow_the_rules_of_reserved_keys_and_versions() {
        let evolution = run(
            V2,
            "ALTER TABLE t SET TBLPROPERTIES ('format-version' = '3', 'k' = 'v');
             ALTER TABLE t UNSET TBLPROPERTIES ('owner')",
            Dialect::Spark,
        );
        assert!(evolution.problems.is_empty(), "{:?}", evolution.problems);
        assert_eq!(evolution.metadata.format_version, 3);
        assert_eq!(
            evolution.metadata.properties,
            vec![("k".into(), "v".into())]
        );
        assert_eq!(
            problems("ALTER TABLE t SET TBLPROPERTIES ('format-version' = '1')"),
            vec!["Cannot downgrade v2 table to v1".to_string()]
        );
        assert!(
            problems("ALTER TABLE t UNSET TBLPROPERTIES ('nope')")[0]
                .starts_with("Attempted to unset non-existent property 'nope'")
        );
        let mapping = r#"[{"field-id":1,"names":["id"]},{"field-id":2,"names":["ts"]}]"#;
        let message = &problems(&format!(
            "ALTER TABLE t SET TBLPROPERTIES ('schema.name-mapping.default' = '{mapping}')"
        ))[0];
        assert!(
            message.contains("does not resolve `tags` (field id 3), `tags.element` (field id 4)"),
            "{message}"
        );
    }
}
