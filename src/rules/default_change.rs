//! `default-change`: an existing field's `initial-default` changes. The spec forbids it: the
//! initial default is the value every file written before the field existed reads as.

use crate::rules::{Context, Rule, Violation};

pub struct DefaultChange;

impl Rule for DefaultChange {
    fn name(&self) -> &'static str {
        "default-change"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let after = cx.after.current_schema().index_by_id();
        cx.before
            .current_schema()
            .walk()
            .into_iter()
            .filter_map(|old| {
                let new = after.get(&old.id)?;
                if new.initial_default == old.initial_default {
                    return None;
                }
                let show = |v: &Option<serde_json::Value>| v.as_ref().map_or("none".to_string(), |v| v.to_string());
                let origin = cx.last_change_of(old.id).and_then(|a| a.origin.clone());
                Some(Violation {
                    field: Some(new.path.clone()),
                    field_id: Some(new.id),
                    message: format!(
                        "`{}` (field id {}) changes its initial-default from {} to {}: rows in files written before the field existed would silently read a different value",
                        new.path, new.id, show(&old.initial_default), show(&new.initial_default)
                    ),
                    help: "leave initial-default as it is; change write-default to affect future writes only".into(),
                    origin,
                    related: Vec::new(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{findings_between, table_with, with_new_schema};

    #[test]
    fn changing_an_initial_default_is_refused() {
        let before = table_with(
            3,
            r#"[{"id":1,"name":"a","required":false,"type":"int","initial-default":1}]"#,
        );
        let after = with_new_schema(&before, |f| f.initial_default = Some(serde_json::json!(2)));
        assert_eq!(findings_between(&before, &after), ["default-change"]);
        let write_only = with_new_schema(&before, |f| f.write_default = Some(serde_json::json!(2)));
        assert!(findings_between(&before, &write_only).is_empty());
    }
}
