//! `missing-doc` (off by default): a new field has no comment.

use crate::change::AppliedKind;
use crate::rules::{Context, Rule, Violation};

pub struct MissingDoc;

impl Rule for MissingDoc {
    fn name(&self) -> &'static str {
        "missing-doc"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        cx.changes(AppliedKind::Add)
            .filter_map(|change| {
                let field = change.after.as_ref()?;
                field.doc.is_none().then(|| {
                    Violation::at(
                        change,
                        format!("`{}` (field id {}) has no comment: the next reader of the schema has to guess what it holds", field.path, field.id),
                        "add COMMENT '...' saying what the field holds and in which unit".into(),
                    )
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{fired_all, table_with_history};

    #[test]
    fn new_fields_need_a_comment() {
        let base = table_with_history();
        assert!(fired_all(&base, "ALTER TABLE t ADD COLUMN tier int").contains(&"missing-doc"));
        assert!(
            !fired_all(
                &base,
                "ALTER TABLE t ADD COLUMN tier int COMMENT 'customer tier 1-3'"
            )
            .contains(&"missing-doc")
        );
    }
}
