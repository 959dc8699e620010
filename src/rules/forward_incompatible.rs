//! `forward-incompatible`: under `forward` or `full` compatibility, a change that breaks readers
//! still holding the old schema (a Trino coordinator with cached metadata, a long-running Spark or
//! Flink job) when they read files written under the new one.

use crate::change::AppliedKind;
use crate::rules::{Context, Rule, Violation};

pub struct ForwardIncompatible;

impl Rule for ForwardIncompatible {
    fn name(&self) -> &'static str {
        "forward-incompatible"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        if !cx.compatibility.forward {
            return Vec::new();
        }
        let help = "roll the change out in two steps: refresh or restart every reader first, then start writing with the new schema".to_string();
        let mut out = Vec::new();
        for change in cx.applied {
            let Some(id) = change.field_id.filter(|id| cx.existed_before(*id)) else {
                continue;
            };
            let reason = match change.kind {
                AppliedKind::UpdateType if change.from != change.to => format!(
                    "new files store `{}` (field id {id}) as {}, which readers with the old schema decode as {} and fail on",
                    change.path,
                    change.to.as_deref().unwrap_or("?"),
                    change.from.as_deref().unwrap_or("?")
                ),
                AppliedKind::Drop if change.before.as_ref().is_some_and(|f| f.required) => format!(
                    "`{}` (field id {id}) is required in the old schema, but new files will not have it: readers with the old schema fail on them",
                    change.path
                ),
                AppliedKind::SetOptional => format!(
                    "`{}` (field id {id}) becomes optional: new files may hold nulls that readers with the old schema, which expect a required value, fail on",
                    change.path
                ),
                _ => continue,
            };
            out.push(Violation::at(change, reason, help.clone()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::Compatibility;
    use crate::rules::test_support::{fired_compat, table_with_history};

    #[test]
    fn widening_breaks_old_readers_only_under_forward() {
        let base = table_with_history();
        let sql = "ALTER TABLE t ALTER COLUMN qty TYPE bigint";
        let forward = Compatibility::parse("forward").unwrap();
        assert!(fired_compat(&base, sql, forward).contains(&"forward-incompatible"));
        assert!(
            !fired_compat(&base, sql, Compatibility::BACKWARD).contains(&"forward-incompatible")
        );
    }
}
