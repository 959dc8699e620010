//! `identifier-drop`: an identifier field (row identity for upserts and equality deletes) is
//! dropped, or made optional, without the proposal changing the identifier fields first.

use crate::change::AppliedKind;
use crate::rules::{Context, Rule, Violation};

pub struct IdentifierDrop;

impl Rule for IdentifierDrop {
    fn name(&self) -> &'static str {
        "identifier-drop"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let help = "change the identifier fields first (ALTER TABLE ... SET IDENTIFIER FIELDS / DROP IDENTIFIER FIELDS) and update the writers' upsert keys, then drop the column".to_string();
        let mut out = Vec::new();
        for change in cx.applied {
            match change.kind {
                AppliedKind::Drop if !change.implicit_identifier_drops.is_empty() => {
                    let ids: Vec<String> = change
                        .implicit_identifier_drops
                        .iter()
                        .map(|id| id.to_string())
                        .collect();
                    out.push(Violation::at(
                        change,
                        format!(
                            "dropping `{}` removes identifier field {} {}: upserts and equality deletes keyed on them break, and Iceberg Java refuses the change (\"Cannot delete identifier field\")",
                            change.path,
                            if ids.len() == 1 { "id" } else { "ids" },
                            ids.join(", ")
                        ),
                        help.clone(),
                    ));
                }
                AppliedKind::SetOptional
                    if change
                        .field_id
                        .is_some_and(|id| cx.history.identifiers.contains(&id)) =>
                {
                    out.push(Violation::at(
                        change,
                        format!(
                            "`{}` (field id {}) is an identifier field and cannot be optional: row identity must never be null",
                            change.path,
                            change.field_id.unwrap_or_default()
                        ),
                        help.clone(),
                    ));
                }
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{fired, table_with_history};

    #[test]
    fn identifier_fields_cannot_be_dropped_or_made_optional() {
        let base = table_with_history();
        assert!(fired(&base, "ALTER TABLE t DROP COLUMN id").contains(&"identifier-drop"));
        assert!(
            fired(&base, "ALTER TABLE t ALTER COLUMN id DROP NOT NULL")
                .contains(&"identifier-drop")
        );
        let explicit = "ALTER TABLE t DROP IDENTIFIER FIELDS id; ALTER TABLE t DROP COLUMN id";
        assert!(!fired(&base, explicit).contains(&"identifier-drop"));
    }
}
