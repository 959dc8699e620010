//! `default-change`: an existing field's `initial-default` changes. The spec forbids it: the
//! initial default is the value every file written before the field existed reads as.

use crate::iceberg::pair::{Members, Pairing};
use crate::rules::{Context, Rule, Violation};

pub struct DefaultChange;

impl Rule for DefaultChange {
    fn name(&self) -> &'static str {
        "default-change"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let before = Members::of(cx.before.current_schema());
        let after = Members::of(cx.after.current_schema());
        Pairing::of(&before, &after)
            .by_before()
            .filter_map(|(old, new)| {
                let new = new?;
                if new.initial_default() == old.initial_default() {
                    return None;
                }
                let show = |v: Option<&serde_json::Value>| v.map_or("none".to_string(), |v| v.to_string());
                let origin = cx.last_change_of(old.id).and_then(|a| a.origin.clone());
                let path = after.path(new);
                Some(Violation {
                    message: format!(
                        "`{path}` (field id {}) changes its initial-default from {} to {}: rows in files written before the field existed would silently read a different value",
                        new.id, show(old.initial_default()), show(new.initial_default())
                    ),
                    field: Some(path),
                    field_id: Some(new.id),
                    help: "leave initial-default as it is; change write-default to affect future writes only".into(),
                    origin,
                    severity: None,
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
