//! `column-drop` (warning): any field is dropped. Its data becomes unreachable to readers and its
//! id is retired forever; the change cannot be taken back once new snapshots exist.
//!
//! With the option `require-deprecation-days: N`, a drop is an error unless the field's doc
//! carried the deprecation mark in the base for at least N days, as the metadata file's history
//! shows: readers get an announced period to move off the column, instead of banning drops.

use crate::change::AppliedKind;
use crate::finding::Severity;
use crate::iceberg::schema::FieldInfo;
use crate::plural::counted;
use crate::rules::{Context, Rule, Violation};

pub struct ColumnDrop;

impl Rule for ColumnDrop {
    fn name(&self) -> &'static str {
        "column-drop"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        cx.changes(AppliedKind::Drop)
            .filter_map(|change| {
                let field = change.before.as_ref()?;
                let mut violation = Violation::at(
                    change,
                    format!(
                        "`{}` (field id {}, {}) is dropped: queries, views and jobs that select it fail, its data in existing files becomes unreachable, and id {} is retired forever",
                        field.path, field.id, field.field_type, field.id
                    ),
                    "make sure no reader still uses it (mark it deprecated in its comment first); if the drop is intended, suppress this finding with a reason".into(),
                );
                if let Some(days) = cx.options.require_deprecation_days
                    && cx.existed_before(field.id)
                {
                    deprecation_window(cx, field, days, &mut violation);
                }
                Some(violation)
            })
            .collect()
    }
}

/// Turns the drop into an error unless the field was marked deprecated for `days` days.
fn deprecation_window(cx: &Context<'_>, field: &FieldInfo, days: u32, violation: &mut Violation) {
    let mark = &cx.options.deprecation_mark;
    let base_doc = cx
        .before
        .current_schema()
        .field_by_id(field.id)
        .and_then(|f| f.doc);
    let since = cx
        .history
        .file
        .as_ref()
        .and_then(|file| file.deprecated_since(field.id));
    let problem = match (cx.options.is_deprecated(base_doc.as_deref()), since) {
        (true, Some(commit)) => {
            let age = cx.today - commit.day;
            if age >= i64::from(days) {
                violation.message.push_str(&format!(
                    "; it has been marked `{mark}` since {} ({}, {days} required)",
                    commit.date,
                    counted(age, "day")
                ));
                return;
            }
            format!(
                "it has been marked `{mark}` only since {} in {} ({age} of {})",
                commit.date,
                commit.id,
                counted(days, "day")
            )
        }
        (true, None) => format!(
            "its doc is marked `{mark}`, but without the metadata file's git history its age is unknown (`fieldgate check` reads it)"
        ),
        (false, _) => format!("its doc in the base does not carry the mark `{mark}`"),
    };
    violation.message = format!(
        "`{}` (field id {}, {}) is dropped without its {days}-day deprecation period: {problem}",
        field.path, field.id, field.field_type
    );
    violation.help = format!(
        "first mark it (`ALTER TABLE ... ALTER COLUMN {} COMMENT '{mark}: <why, and what to use instead>'`) in a change of its own, and drop it once the mark is {} old",
        field.path,
        counted(days, "day")
    );
    violation.severity = Some(Severity::Error);
}

#[cfg(test)]
mod tests {
    use crate::finding::Severity;
    use crate::rules::test_support::{
        commit, fired_all, judged_in_history, table_with, table_with_history,
    };
    use crate::rules::{FileHistory, RuleOptions};

    #[test]
    fn every_drop_is_reported() {
        assert!(
            fired_all(&table_with_history(), "ALTER TABLE t DROP COLUMN comment")
                .contains(&"column-drop")
        );
    }

    #[test]
    fn a_deprecation_window_makes_early_or_unmarked_drops_errors() {
        let base = table_with(
            2,
            r#"[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"old","required":false,"type":"string","doc":"DEPRECATED: use id"},{"id":3,"name":"plain","required":false,"type":"string"}]"#,
        );
        let options = RuleOptions {
            require_deprecation_days: Some(30),
            ..RuleOptions::default()
        };
        let file = FileHistory {
            drops: Vec::new(),
            deprecated_since: vec![(2, commit("1111111", "2026-09-01", "Ada"))],
        };
        let drop = |sql: &str, file: Option<FileHistory>, today: &str| {
            judged_in_history(&base, sql, options.clone(), file, today)
                .into_iter()
                .find(|(rule, _, _)| *rule == "column-drop")
                .map(|(_, severity, message)| (severity, message))
                .unwrap()
        };
        let old = "ALTER TABLE t DROP COLUMN old";
        let (severity, message) = drop(old, Some(file.clone()), "2026-10-15");
        assert_eq!(severity, Severity::Warning, "{message}");
        assert!(
            message.contains("since 2026-09-01 (44 days, 30 required)"),
            "{message}"
        );
        let (severity, message) = drop(old, Some(file.clone()), "2026-09-20");
        assert_eq!(severity, Severity::Error);
        assert!(message.contains("(19 of 30 days)"), "{message}");
        let (severity, message) = drop("ALTER TABLE t DROP COLUMN plain", Some(file), "2027-01-01");
        assert_eq!(severity, Severity::Error);
        assert!(
            message.contains("does not carry the mark `deprecated`"),
            "{message}"
        );
        let (severity, message) = drop(old, None, "2027-01-01");
        assert_eq!(severity, Severity::Error);
        assert!(message.contains("age is unknown"), "{message}");
    }
}
