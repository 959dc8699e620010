//! `partition-source-drop`: a field that any partition spec, current or historical, takes its
//! values from is dropped. Iceberg Java before 1.10 and Trino cannot even load such a table
//! ("Cannot find source column for partition field"), and PyIceberg refuses to re-add the name.

use crate::change::AppliedKind;
use crate::finding::{MetadataPlace, Related};
use crate::rules::{Context, Rule, Violation};

pub struct PartitionSourceDrop;

impl Rule for PartitionSourceDrop {
    fn name(&self) -> &'static str {
        "partition-source-drop"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let mut out = Vec::new();
        for change in cx.changes(AppliedKind::Drop) {
            let Some(dropped) = &change.before else {
                continue;
            };
            let inner = cx.before.current_schema().walk();
            let sources = inner.iter().filter(|f| {
                f.id == dropped.id || f.path.starts_with(&format!("{}.", dropped.path))
            });
            let mut uses: Vec<String> = Vec::new();
            let mut related = Vec::new();
            for source in sources {
                for u in cx
                    .history
                    .partition_sources
                    .get(&source.id)
                    .into_iter()
                    .flatten()
                {
                    let which = if u.is_default {
                        "the current spec".to_string()
                    } else {
                        format!("spec {}", u.spec_id)
                    };
                    uses.push(format!("`{}` ({}) in {which}", u.name, u.transform));
                    related.push(Related::in_metadata(
                        MetadataPlace::PartitionField {
                            spec_id: u.spec_id,
                            name: u.name.clone(),
                        },
                        format!(
                            "partition field `{}` of spec {} takes its values from `{}` ({})",
                            u.name, u.spec_id, source.path, u.transform
                        ),
                    ));
                }
            }
            if uses.is_empty() {
                continue;
            }
            let violation = Violation::at(
                change,
                format!(
                    "`{}` (field id {}) is the source of partition field {}: readers before Iceberg 1.10 and Trino fail to load the table (\"Cannot find source column for partition field\"), and PyIceberg refuses to re-add the name later",
                    dropped.path,
                    dropped.id,
                    uses.join(", ")
                ),
                "keep the column; to stop partitioning by it, evolve the partition spec (ALTER TABLE ... DROP PARTITION FIELD) and leave the source column in the schema".into(),
            );
            out.push(violation.with_related(related));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{fired, table_with_history};

    #[test]
    fn current_and_historical_partition_sources_are_protected() {
        let base = table_with_history();
        assert!(fired(&base, "ALTER TABLE t DROP COLUMN ts").contains(&"partition-source-drop"));
        assert!(
            fired(&base, "ALTER TABLE t DROP COLUMN region").contains(&"partition-source-drop")
        );
        assert!(!fired(&base, "ALTER TABLE t DROP COLUMN note").contains(&"partition-source-drop"));
    }
}
