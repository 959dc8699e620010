//! `reader-cache-refresh` (note): readers that hold cached table metadata do not see the new
//! schema until they refresh, for tables shared by several engines.

use crate::rules::{Context, Rule, Violation};

pub struct ReaderCacheRefresh;

impl Rule for ReaderCacheRefresh {
    fn name(&self) -> &'static str {
        "reader-cache-refresh"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        if cx.after.current_schema_id == cx.before.current_schema_id {
            return Vec::new();
        }
        let first = cx.applied.first();
        vec![Violation {
            field: None,
            field_id: None,
            message: format!(
                "the current schema becomes {} (was {}): engines that cache table metadata keep serving schema {} until they refresh",
                cx.after.current_schema_id, cx.before.current_schema_id, cx.before.current_schema_id
            ),
            help: "after the commit, refresh every reader: Spark `REFRESH TABLE` (or catalog `cache-enabled=false`), Trino: wait for or lower `iceberg.metadata-cache` / metastore cache TTLs, Flink and other long-running jobs: restart them so they load the new schema".into(),
            origin: first.and_then(|a| a.origin.clone()),
            severity: None,
            related: Vec::new(),
        }]
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{fired_all, table_with_history};

    #[test]
    fn any_new_schema_needs_a_refresh() {
        assert_eq!(
            fired_all(
                &table_with_history(),
                "ALTER TABLE t ALTER COLUMN comment COMMENT 'free text'"
            ),
            ["reader-cache-refresh"]
        );
    }
}
