//! `name-mapping-change`: a property statement removes `schema.name-mapping.default`, or
//! replaces it with a mapping that resolves a name it resolved before to another field id or to
//! none. Data files written without field ids (imported with `add_files`, migrated from Hive,
//! written by engines that write no ids) are read through the mapping alone, so such a change
//! silently changes what every reader reads from them.

use crate::iceberg::name_mapping::{LostName, NAME_MAPPING_PROPERTY, NameMapping};
use crate::rules::{Context, Rule, Violation};

pub struct NameMappingChange;

/// Names listed in one message; the rest are counted.
const LISTED: usize = 8;

impl Rule for NameMappingChange {
    fn name(&self) -> &'static str {
        "name-mapping-change"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let mut out = Vec::new();
        for (applied, edit) in cx.property_edits(&[NAME_MAPPING_PROPERTY]) {
            let Some(before) = edit.before.as_deref() else {
                continue;
            };
            // A mapping that does not parse was refused when it was set, or is the committed
            // metadata's own problem, reported where it is read.
            let Ok(before) = NameMapping::parse_value(before) else {
                continue;
            };
            let message = match edit.after.as_deref().map(NameMapping::parse_value) {
                None => removed(&before),
                Some(Ok(after)) => match before.lost_in(&after) {
                    lost if lost.is_empty() => continue,
                    lost => replaced(&lost),
                },
                Some(Err(_)) => continue,
            };
            let mut violation = Violation::at(applied, message, HELP.into());
            violation.field = Some(NAME_MAPPING_PROPERTY.to_string());
            out.push(violation);
        }
        out
    }
}

const HELP: &str = "keep every name the mapping has: extend it with new names (aliases) and new entries, as Iceberg does itself on every schema change, and never remove it from a table that may hold files without field ids";

fn removed(before: &NameMapping) -> String {
    let names = before.fields.iter().filter(|f| !f.names.is_empty()).count();
    format!(
        "`{NAME_MAPPING_PROPERTY}` is removed: the {} it maps lose their field ids in every data file written without ids, which Iceberg Java then reads by column position and PyIceberg refuses to read",
        crate::plural::counted(names, "top-level column")
    )
}

fn replaced(lost: &[LostName]) -> String {
    let mut listed: Vec<String> = lost
        .iter()
        .take(LISTED)
        .map(|name| match name.now {
            Some(now) => format!("`{}` (field id {} -> {now})", name.path, name.was),
            None => format!("`{}` (field id {} -> none)", name.path, name.was),
        })
        .collect();
    if lost.len() > LISTED {
        listed.push(format!("and {} more", lost.len() - LISTED));
    }
    format!(
        "the new `{NAME_MAPPING_PROPERTY}` resolves {} differently: {}; files written without field ids read those columns as another column or as null",
        crate::plural::counted(lost.len(), "name"),
        listed.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use crate::iceberg::name_mapping::NAME_MAPPING_PROPERTY;
    use crate::rules::test_support::{fired, table_with};

    const MAPPING: &str = r#"[{"field-id":1,"names":["id"]},{"field-id":2,"names":["phone","tel"]},{"field-id":3,"names":["addr"],"fields":[{"field-id":4,"names":["city"]}]}]"#;

    fn table() -> crate::iceberg::metadata::TableMetadata {
        let mut table = table_with(
            2,
            r#"[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"phone","required":false,"type":"string"},{"id":3,"name":"addr","required":false,"type":{"type":"struct","fields":[{"id":4,"name":"city","required":false,"type":"string"}]}}]"#,
        );
        table
            .properties
            .push((NAME_MAPPING_PROPERTY.into(), MAPPING.into()));
        table.name_mapping =
            Some(crate::iceberg::name_mapping::NameMapping::parse_value(MAPPING).unwrap());
        table
    }

    fn set(mapping: &str) -> String {
        format!(
            "ALTER TABLE t SET TBLPROPERTIES ('{NAME_MAPPING_PROPERTY}' = '{}')",
            mapping.replace('\'', "''")
        )
    }

    #[test]
    fn removing_the_mapping_or_losing_a_name_fires() {
        let unset = format!("ALTER TABLE t UNSET TBLPROPERTIES ('{NAME_MAPPING_PROPERTY}')");
        assert!(fired(&table(), &unset).contains(&"name-mapping-change"));
        let no_alias = r#"[{"field-id":1,"names":["id"]},{"field-id":2,"names":["phone"]},{"field-id":3,"names":["addr"],"fields":[{"field-id":4,"names":["city"]}]}]"#;
        assert!(fired(&table(), &set(no_alias)).contains(&"name-mapping-change"));
        let nested_moved = r#"[{"field-id":1,"names":["id"]},{"field-id":2,"names":["phone","tel"]},{"field-id":3,"names":["addr"],"fields":[{"field-id":4,"names":["town"]}]},{"field-id":5,"names":["city"]}]"#;
        assert!(fired(&table(), &set(nested_moved)).contains(&"name-mapping-change"));
    }

    #[test]
    fn an_extended_mapping_passes() {
        let extended = r#"[{"field-id":1,"names":["id","user_id"]},{"field-id":2,"names":["phone","tel"]},{"field-id":3,"names":["addr"],"fields":[{"field-id":4,"names":["city"]}]},{"names":["legacy"]}]"#;
        assert!(!fired(&table(), &set(extended)).contains(&"name-mapping-change"));
        let other = "ALTER TABLE t SET TBLPROPERTIES ('write.target-file-size-bytes' = '1')";
        assert!(!fired(&table(), other).contains(&"name-mapping-change"));
    }
}
