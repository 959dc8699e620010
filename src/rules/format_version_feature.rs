//! `format-version-feature`: the change needs a newer format version than the table has: a v3
//! type (`timestamp_ns`, `unknown`, `variant`, geospatial) or a non-null default in a v1/v2 table.
//! Iceberg Java refuses these at commit ("Invalid schema for v2"); PyIceberg writes them anyway,
//! and older readers then fail on the table.

use crate::change::AppliedKind;
use crate::rules::{Context, Rule, Violation};

pub struct FormatVersionFeature;

impl Rule for FormatVersionFeature {
    fn name(&self) -> &'static str {
        "format-version-feature"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let version = cx.format_version();
        let mut out = Vec::new();
        for change in cx
            .applied
            .iter()
            .filter(|a| matches!(a.kind, AppliedKind::Add | AppliedKind::UpdateType))
        {
            let Some(field) = &change.after else {
                continue;
            };
            let needed = field.field_type.min_format_version();
            if needed > version {
                out.push(Violation::at(
                    change,
                    format!(
                        "`{}` (field id {}) has type {}, which needs format v{needed}; this table is v{version}: Iceberg Java refuses the commit and readers of v{version} tables cannot read it",
                        field.path, field.id, field.field_type
                    ),
                    format!("use a type of format v{version}, or upgrade the table to v{needed} first (and every reader with it)"),
                ));
            }
            let non_null = |d: &Option<serde_json::Value>| d.as_ref().is_some_and(|v| !v.is_null());
            if version < 3 && (non_null(&field.initial_default) || non_null(&field.write_default)) {
                out.push(Violation::at(
                    change,
                    format!("`{}` (field id {}) has a non-null default, which needs format v3; this table is v{version}", field.path, field.id),
                    "drop the default, or upgrade the table to v3 first".into(),
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{fired, table_with};

    #[test]
    fn v3_types_need_a_v3_table() {
        let fields = r#"[{"id":1,"name":"id","required":true,"type":"long"}]"#;
        let sql = "ALTER TABLE t ADD COLUMN ts timestamp(9)";
        let trino = |version| {
            crate::rules::test_support::fired_dialect(
                &table_with(version, fields),
                sql,
                crate::frontend::ddl::Dialect::Trino,
            )
        };
        assert_eq!(trino(2), ["format-version-feature"]);
        assert!(trino(3).is_empty());
        assert!(
            fired(&table_with(2, fields), "ALTER TABLE t ADD COLUMN v variant")
                .contains(&"format-version-feature")
        );
    }
}
