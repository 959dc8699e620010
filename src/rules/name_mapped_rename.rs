//! `name-mapped-rename`: the table's files are resolved by name (no field ids, and no name
//! mapping that keeps the old name as an alias), so a rename orphans every old file's data.

use crate::change::AppliedKind;
use crate::rules::{Context, Mapping, Rule, Violation};

pub struct NameMappedRename;

impl Rule for NameMappedRename {
    fn name(&self) -> &'static str {
        "name-mapped-rename"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        if cx.mapping != Mapping::Name {
            return Vec::new();
        }
        cx.changes(AppliedKind::Rename)
            .filter_map(|change| {
                let (old, new) = (change.before.as_ref()?, change.after.as_ref()?);
                Some(Violation::at(
                    change,
                    format!(
                        "the table is read by column name: after renaming `{}` to `{}` (field id {}), readers look for `{}` in old files, find nothing and return NULL for every row written so far",
                        old.path, new.name, new.id, new.name
                    ),
                    "keep the old name; or add the new column, backfill it from the old one, and drop the old one later; on Iceberg, a name mapping that lists both names keeps old files readable".into(),
                ))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::Mapping;
    use crate::rules::test_support::{fired_with, table_with};

    #[test]
    fn renames_orphan_data_only_when_read_by_name() {
        let base = table_with(
            2,
            r#"[{"id":1,"name":"phone","required":false,"type":"string"}]"#,
        );
        let sql = "ALTER TABLE t RENAME COLUMN phone TO mobile_phone";
        assert!(fired_with(&base, sql, Mapping::Name).contains(&"name-mapped-rename"));
        assert!(!fired_with(&base, sql, Mapping::FieldId).contains(&"name-mapped-rename"));
    }
}
