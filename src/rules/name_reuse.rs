//! `name-reuse`: a field is added, or renamed, to a name that a dropped field had: a dropped
//! name stays retired, like its id. Field ids keep the data apart, but names are what BI reports, views, lineage and
//! analysts use; and under a name mapping, old files' values of the dropped column resurface in
//! the new one.

use std::collections::HashMap;

use crate::change::{Applied, AppliedKind};
use crate::finding::{MetadataPlace, Related, Severity};
use crate::iceberg::names::{folded, same_name};
use crate::iceberg::types::Type;
use crate::rules::context::DroppedField;
use crate::rules::{CommitInfo, CommittedDrop, Context, Rule, Violation};

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
    /// The commit that dropped it, when the metadata file's history is known.
    commit: Option<CommitInfo>,
}

impl Retired {
    fn committed(commit: &CommitInfo) -> String {
        // A catalog's metadata log dates a version but names no author.
        let by = match commit.author.as_str() {
            "" => String::new(),
            author => format!(" by {author}"),
        };
        format!("dropped in {} on {}{by}", commit.id, commit.date)
    }
}

impl Rule for NameReuse {
    fn name(&self) -> &'static str {
        "name-reuse"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let mut retired = RetiredNames::new(retired_before(cx));
        let mut out = Vec::new();
        for change in cx.applied {
            match change.kind {
                AppliedKind::Drop => {
                    if let Some(field) = &change.before {
                        retired.push(dropped_here(change, field));
                    }
                }
                AppliedKind::Add | AppliedKind::Rename => {
                    if let Some(violation) = reuse(cx, change, &retired) {
                        out.push(violation);
                    }
                    // A rename frees the old name as a drop does: another field taking it next
                    // (`phone` renamed away and a new `phone` added, or renames that swap two
                    // names) gives the name to another id, the same harm to readers by name.
                    if let (AppliedKind::Rename, Some(field)) = (change.kind, &change.before) {
                        retired.push(renamed_away(change, field));
                    }
                }
                _ => {}
            }
        }
        out
    }
}

/// The fields the table dropped before this proposal: those its metadata remembers, after the
/// ones only the metadata file's commits remember.
fn retired_before(cx: &Context<'_>) -> Vec<Retired> {
    let file = cx.history.file.as_ref();
    let commit_of = |id: i32| {
        file.and_then(|f| f.drops.iter().rev().find(|d| d.id == id))
            .map(|d| d.commit.clone())
    };
    let mut retired: Vec<Retired> = cx
        .history
        .dropped
        .iter()
        .map(|d| dropped_from_metadata(d, commit_of(d.id)))
        .collect();
    // Schemas can be expired from metadata; the file's history still knows their fields.
    for drop in file.iter().flat_map(|f| &f.drops) {
        if !retired.iter().any(|r| r.id == drop.id) {
            retired.insert(0, dropped_in_commit(drop));
        }
    }
    retired
}

/// A field an older schema of the metadata has and the current one does not.
fn dropped_from_metadata(d: &DroppedField, commit: Option<CommitInfo>) -> Retired {
    Retired {
        id: d.id,
        path: d.path.clone(),
        field_type: d.field_type.clone(),
        doc: d.doc.clone(),
        when: commit.as_ref().map_or_else(
            || format!("last seen in schema {}", d.last_schema_id),
            Retired::committed,
        ),
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
        commit,
    }
}

/// A field only the metadata file's history knows was dropped.
fn dropped_in_commit(drop: &CommittedDrop) -> Retired {
    Retired {
        id: drop.id,
        path: drop.path.clone(),
        field_type: drop.field_type.clone(),
        doc: drop.doc.clone(),
        when: Retired::committed(&drop.commit),
        // No schema of the metadata holds it any more: the commit is the place.
        place: Related::at(
            None,
            format!(
                "`{}` (field id {}) was dropped in commit {}",
                drop.path, drop.id, drop.commit.id
            ),
        ),
        commit: Some(drop.commit.clone()),
    }
}

/// A field this proposal drops.
fn dropped_here(change: &Applied, field: &crate::iceberg::schema::FieldInfo) -> Retired {
    Retired {
        id: field.id,
        path: field.path.clone(),
        field_type: field.field_type.clone(),
        doc: field.doc.clone(),
        when: "dropped earlier in this proposal".into(),
        place: Related::at(
            change.origin.clone(),
            format!("`{}` (field id {}) is dropped here", field.path, field.id),
        ),
        commit: None,
    }
}

/// The retired fields by name (folded as Spark's resolver compares names), so a migration
/// of N statements that add and drop the same name is N lookups, not N²/2 comparisons.
struct RetiredNames {
    fields: Vec<Retired>,
    by_name: HashMap<String, Vec<usize>>,
}

impl RetiredNames {
    fn new(fields: Vec<Retired>) -> RetiredNames {
        let mut names = RetiredNames {
            fields: Vec::with_capacity(fields.len()),
            by_name: HashMap::new(),
        };
        for field in fields {
            names.push(field);
        }
        names
    }

    fn push(&mut self, field: Retired) {
        self.by_name
            .entry(folded(&field.path))
            .or_default()
            .push(self.fields.len());
        self.fields.push(field);
    }

    /// The latest field retired under `path` that is not field `id` itself.
    fn other_than(&self, id: i32, path: &str) -> Option<&Retired> {
        let positions = self.by_name.get(&folded(path))?;
        positions
            .iter()
            .rev()
            .map(|&p| &self.fields[p])
            .find(|r| r.id != id && same_name(&r.path, path))
    }
}

/// The name a rename leaves behind, retired as a drop retires it.
fn renamed_away(change: &Applied, field: &crate::iceberg::schema::FieldInfo) -> Retired {
    Retired {
        id: field.id,
        path: field.path.clone(),
        field_type: field.field_type.clone(),
        doc: field.doc.clone(),
        when: "renamed away earlier in this proposal".into(),
        place: Related::at(
            change.origin.clone(),
            format!(
                "`{}` (field id {}) is renamed away here",
                field.path, field.id
            ),
        ),
        commit: None,
    }
}

fn reuse(cx: &Context<'_>, change: &Applied, retired: &RetiredNames) -> Option<Violation> {
    let field = change.after.as_ref()?;
    let old = retired.other_than(field.id, &field.path)?;
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
    // With a window, a name dropped long enough ago is a warning: its old readers are gone.
    let (age, severity) = match (&old.commit, cx.options.name_reuse_window_days) {
        (Some(commit), Some(window)) => {
            let days = cx.today - commit.day;
            let outside = days > i64::from(window);
            let age = format!(
                " ({} ago, {} the {window}-day window)",
                crate::plural::counted(days, "day"),
                if outside { "outside" } else { "within" }
            );
            (age, outside.then_some(Severity::Warning))
        }
        _ => (String::new(), None),
    };
    let mut violation = Violation::at(
        change,
        format!(
            "`{}` (field id {}) {verb} with the name of a dropped field: `{}` (id {}, {}{doc}) was {}{age}. Ids keep the data apart, but reports, views and lineage that use the name silently switch meaning, and readers resolving old files by name (a name mapping, Hive) read the dropped column's values as the new one",
            field.path, field.id, old.path, old.id, old.field_type, old.when
        ),
        format!(
            "give the new field a name of its own (for example `{}_v2`, or one that says what it holds); a dropped name stays retired like its id",
            field.name
        ),
    );
    violation.severity = severity;
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
    fn a_name_freed_by_a_rename_is_reused_too() {
        let base = table_with_history();
        let sql = "ALTER TABLE t RENAME COLUMN id TO order_id; ALTER TABLE t ADD COLUMN id bigint";
        assert!(fired(&base, sql).contains(&"name-reuse"));
        // Three renames that swap two names: each name now belongs to the other id.
        let swap = "ALTER TABLE t RENAME COLUMN id TO tmp; ALTER TABLE t RENAME COLUMN region TO id; ALTER TABLE t RENAME COLUMN tmp TO region";
        let fired_swap = fired(&base, swap);
        assert_eq!(
            fired_swap.iter().filter(|r| **r == "name-reuse").count(),
            2,
            "{fired_swap:?}"
        );
        // Renaming a field back to its own old name gives the name to no other id.
        let back = "ALTER TABLE t RENAME COLUMN id TO tmp; ALTER TABLE t RENAME COLUMN tmp TO id";
        assert!(!fired(&base, back).contains(&"name-reuse"));
    }

    #[test]
    fn a_drop_and_re_add_in_one_proposal_is_caught() {
        let base = table_with_history();
        let sql = "ALTER TABLE t DROP COLUMN id; ALTER TABLE t ADD COLUMN id bigint";
        assert!(fired(&base, sql).contains(&"name-reuse"));
    }

    #[test]
    fn the_commit_that_dropped_the_name_is_named_and_the_window_decides_the_severity() {
        use crate::finding::Severity;
        use crate::iceberg::types::{PrimitiveType, Type};
        use crate::rules::test_support::{commit, judged_in_history};
        use crate::rules::{CommittedDrop, FileHistory, RuleOptions};

        let base = table_with_history();
        let file = FileHistory {
            drops: vec![CommittedDrop {
                id: 4,
                path: "status".into(),
                field_type: Type::Primitive(PrimitiveType::String),
                doc: Some("user review state".into()),
                commit: commit("3f2a1c9", "2026-10-02", "Ada"),
            }],
            deprecated_since: Vec::new(),
        };
        let sql = "ALTER TABLE t ADD COLUMN status string";
        let reuse = |options: RuleOptions, today: &str| {
            judged_in_history(&base, sql, options, Some(file.clone()), today)
                .into_iter()
                .find(|(rule, _, _)| *rule == "name-reuse")
                .map(|(_, severity, message)| (severity, message))
        };
        let (severity, message) = reuse(RuleOptions::default(), "2027-06-01").unwrap();
        assert_eq!(severity, Severity::Error);
        assert!(
            message.contains(
                "`status` (id 4, string, 'user review state') was dropped in 3f2a1c9 on 2026-10-02 by Ada"
            ),
            "{message}"
        );
        let windowed = RuleOptions {
            name_reuse_window_days: Some(30),
            ..RuleOptions::default()
        };
        let (severity, message) = reuse(windowed.clone(), "2026-10-20").unwrap();
        assert_eq!(severity, Severity::Error);
        assert!(
            message.contains("(18 days ago, within the 30-day window)"),
            "{message}"
        );
        let (severity, _) = reuse(windowed, "2026-12-01").unwrap();
        assert_eq!(severity, Severity::Warning);
    }

    #[test]
    fn names_from_expired_schemas_are_known_from_the_file_history() {
        use crate::iceberg::types::{PrimitiveType, Type};
        use crate::rules::test_support::{commit, judged_in_history, table_with};
        use crate::rules::{CommittedDrop, FileHistory, RuleOptions};

        let base = table_with(2, r#"[{"id":1,"name":"id","required":true,"type":"long"}]"#);
        let file = FileHistory {
            drops: vec![CommittedDrop {
                id: 9,
                path: "status".into(),
                field_type: Type::Primitive(PrimitiveType::Int),
                doc: None,
                commit: commit("abc1234", "2026-01-05", "Grace"),
            }],
            deprecated_since: Vec::new(),
        };
        let findings = judged_in_history(
            &base,
            "ALTER TABLE t ADD COLUMN status string",
            RuleOptions::default(),
            Some(file),
            "2026-02-01",
        );
        assert!(
            findings
                .iter()
                .any(|(rule, _, m)| *rule == "name-reuse" && m.contains("abc1234")),
            "{findings:?}"
        );
    }
}
