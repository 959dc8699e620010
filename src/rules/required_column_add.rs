//! `required-column-add`: a required field added without an initial default. Old data files have
//! no values for it, and a required column cannot be filled with nulls.

use crate::change::AppliedKind;
use crate::rules::{Context, Rule, Violation};

pub struct RequiredColumnAdd;

impl Rule for RequiredColumnAdd {
    fn name(&self) -> &'static str {
        "required-column-add"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        cx.changes(AppliedKind::Add)
            .filter_map(|change| {
                let field = change.after.as_ref()?;
                if !field.required || field.initial_default.is_some() {
                    return None;
                }
                Some(Violation::at(
                    change,
                    format!(
                        "`{}` (field id {}) is added as required, but no data file written so far has it: every reader fails on old files with a missing required column",
                        field.path, field.id
                    ),
                    "add it as optional (without NOT NULL), backfill it, and only then consider making it required; on a v3 table, give it an initial default".into(),
                ))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{fired, table_with};

    #[test]
    fn required_adds_are_refused_and_optional_ones_pass() {
        let base = table_with(2, r#"[{"id":1,"name":"id","required":true,"type":"long"}]"#);
        assert_eq!(
            fired(&base, "ALTER TABLE t ADD COLUMN c int NOT NULL"),
            ["required-column-add"]
        );
        assert!(fired(&base, "ALTER TABLE t ADD COLUMN c int").is_empty());
    }
}
