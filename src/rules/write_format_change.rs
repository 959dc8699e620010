//! `write-format-change`: a property statement changes the file format new data (or delete)
//! files are written in. Every Iceberg reader reads Parquet; fewer read ORC or Avro data files,
//! and such a reader fails on the first new file, not at review time.

use crate::rules::{Context, Rule, Violation};

pub struct WriteFormatChange;

/// The properties that choose the format of new files, and Iceberg's default for both.
const FORMAT_KEYS: [&str; 2] = ["write.format.default", "write.delete.format.default"];
const DEFAULT_FORMAT: &str = "parquet";

impl Rule for WriteFormatChange {
    fn name(&self) -> &'static str {
        "write-format-change"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let mut out = Vec::new();
        for (applied, edit) in cx.property_edits(&FORMAT_KEYS) {
            let format = |value: &Option<String>| {
                value
                    .as_deref()
                    .unwrap_or(DEFAULT_FORMAT)
                    .trim()
                    .to_ascii_lowercase()
            };
            let (before, after) = (format(&edit.before), format(&edit.after));
            if before == after {
                continue;
            }
            let files = if edit.key == FORMAT_KEYS[0] {
                "data files"
            } else {
                "delete files"
            };
            let message = format!(
                "`{}` changes from {before} to {after}: every new {files} is written as {after}, and a reader or tool that does not read {after} {files} fails on the table from the first such file on, while the files written so far stay {before}",
                edit.key
            );
            let help = format!(
                "keep `{}` = {before} unless every engine that reads the table reads {after} {files} (and fieldgate's reader verification samples only Parquet); once they do, suppress this finding with the reason",
                edit.key
            );
            let mut violation = Violation::at(applied, message, help);
            violation.field = Some(edit.key.clone());
            out.push(violation);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::frontend::ddl::Dialect;
    use crate::rules::test_support::{fired, fired_dialect, table_with};

    fn table() -> crate::iceberg::metadata::TableMetadata {
        table_with(2, r#"[{"id":1,"name":"id","required":true,"type":"long"}]"#)
    }

    #[test]
    fn a_new_format_fires_and_the_default_restated_passes() {
        let orc = "ALTER TABLE t SET TBLPROPERTIES ('write.format.default' = 'orc')";
        assert!(fired(&table(), orc).contains(&"write-format-change"));
        let deletes = "ALTER TABLE t SET TBLPROPERTIES ('write.delete.format.default' = 'avro')";
        assert!(fired(&table(), deletes).contains(&"write-format-change"));
        let trino = "ALTER TABLE t SET PROPERTIES format = 'ORC'";
        assert!(fired_dialect(&table(), trino, Dialect::Trino).contains(&"write-format-change"));
        let same = "ALTER TABLE t SET TBLPROPERTIES ('write.format.default' = 'PARQUET')";
        assert!(!fired(&table(), same).contains(&"write-format-change"));
    }
}
