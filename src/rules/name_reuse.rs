//! `name-reuse`: a field is added, or renamed, to a name that a dropped field had — the seed's red
//! line 2. Field ids keep the data apart, but names are what BI reports, views, lineage and
//! analysts use; and under a name mapping, old files' values of the dropped column resurface in
//! the new one.

use crate::evolve::{Applied, AppliedKind};
use crate::finding::{MetadataPlace, Related};
use crate::iceberg::types::Type;
use crate::rules::{Context, Rule, Violation};

pub struct NameReuse;

/// A field whose name is free again: dropped earlier in the table's history, or by this proposal.
struct Retired {
    id: i32,
    path: String,
    field_type: Type,
    doc: Option<String>,
    when: String,
    /// Where it was defined or dropped, for a secondary label.
    place: Related,
}

impl Rule for NameReuse {
    fn name(&self) -> &'static str {
        "name-reuse"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let mut retired: Vec<Retired> = cx
            .history
            .dropped
            .iter()
            .map(|d| Retired {
                id: d.id,
                path: d.path.clone(),
                field_type: d.field_type.clone(),
                doc: d.doc.clone(),
                when: format!("last seen in schema {}", d.last_schema_id),
                place: Related::in_metadata(
                    MetadataPlace::SchemaField {
                        schema_id: d.last_schema_id,
                        field_id: d.id,
                    },
                    format!(
                        "the dropped `{}` (field id {}), as schema {} last defined it",
                        d.path, d.id, d.last_schema_id
                    ),
                ),
            })
            .collect();
        let mut out = Vec::new();
        for change in cx.applied {
            match change.kind {
                AppliedKind::Drop => {
                    if let Some(field) = &change.before {
                        retired.push(Retired {
                            id: field.id,
                            path: field.path.clone(),
                            field_type: field.field_type.clone(),
                            doc: field.doc.clone(),
                            when: "dropped earlier in this proposal".into(),
                            place: Related::at(
                                change.origin.clone(),
                                format!("`{}` (field id {}) is dropped here", field.path, field.id),
                            ),
                        });
                    }
                }
                AppliedKind::Add | AppliedKind::Rename => {
                    if let Some(violation) = reuse(change, &retired) {
                        out.push(violation);
                    }
                }
                _ => {}
            }
        }
        out
    }
}

fn reuse(change: &Applied, retired: &[Retired]) -> Option<Violation> {
    let field = change.after.as_ref()?;
    let old = retired
        .iter()
        .rev()
        .find(|r| r.id != field.id && r.path.eq_ignore_ascii_case(&field.path))?;
    let doc = old
        .doc
        .as_ref()
        .map(|d| format!(", '{d}'"))
        .unwrap_or_default();
    let verb = if change.kind == AppliedKind::Add {
        "is added"
    } else {
        "is renamed"
    };
    let violation = Violation::at(
        change,
        format!(
            "`{}` (field id {}) {verb} with the name of a dropped field: `{}` (id {}, {}{doc}), {}. Ids keep the data apart, but reports, views and lineage that use the name silently switch meaning, and readers resolving old files by name (a name mapping, Hive) read the dropped column's values as the new one",
            field.path, field.id, old.path, old.id, old.field_type, old.when
        ),
        format!(
            "give the new field a name of its own (for example `{}_v2`, or one that says what it holds); a dropped name stays retired like its id",
            field.name
        ),
    );
    Some(violation.with_related([old.place.clone()]))
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{fired, table_with_history};

    #[test]
    fn re_adding_a_dropped_name_is_caught_with_its_history() {
        let base = table_with_history();
        assert_eq!(
            fired(&base, "ALTER TABLE t ADD COLUMN STATUS string"),
            ["name-reuse"]
        );
        assert_eq!(
            fired(&base, "ALTER TABLE t RENAME COLUMN id TO status"),
            ["name-reuse"]
        );
        assert!(fired(&base, "ALTER TABLE t ADD COLUMN shipping_status string").is_empty());
    }

    #[test]
    fn a_drop_and_re_add_in_one_proposal_is_caught() {
        let base = table_with_history();
        let sql = "ALTER TABLE t DROP COLUMN id; ALTER TABLE t ADD COLUMN id bigint";
        assert!(fired(&base, sql).contains(&"name-reuse"));
    }
}
