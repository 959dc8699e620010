//! `position-shift`: the table's readers find columns by position (Hive/Impala/Presto reading ORC
//! or Parquet by index), and the change moves columns: an add anywhere but at the end, a move, or
//! a drop of a field that is not last — the classic Hive disaster, where the phone number lands in
//! the amount column.

use crate::change::{Applied, AppliedKind};
use crate::iceberg::schema::FieldInfo;
use crate::plural::counted;
use crate::rules::{Context, Mapping, Rule, Violation};

pub struct PositionShift;

impl Rule for PositionShift {
    fn name(&self) -> &'static str {
        "position-shift"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        if cx.mapping != Mapping::Position {
            return Vec::new();
        }
        cx.applied
            .iter()
            .filter_map(|change| shift(cx, change))
            .collect()
    }
}

/// The violation of an add, a move or a drop that shifts other columns' positions.
fn shift(cx: &Context<'_>, change: &Applied) -> Option<Violation> {
    let field = match change.kind {
        AppliedKind::Add | AppliedKind::Move => change.after.as_ref()?,
        AppliedKind::Drop => change.before.as_ref()?,
        _ => return None,
    };
    let later = later_siblings(cx, change, field);
    if later.is_empty() && change.kind != AppliedKind::Move {
        return None;
    }
    let what = match change.kind {
        AppliedKind::Add => {
            format!("adding `{}` at position {}", field.path, field.position + 1)
        }
        AppliedKind::Move => {
            format!("moving `{}` to position {}", field.path, field.position + 1)
        }
        _ => format!(
            "dropping `{}` (position {})",
            field.path,
            field.position + 1
        ),
    };
    let consequence = misread_values(change.kind, field, &later);
    Some(Violation::at(
        change,
        format!(
            "the table is read by position: {what} shifts {} ({}): {consequence}",
            counted(later.len(), "column"),
            later.join(", ")
        ),
        "on a position-mapped table only add columns at the end, and never drop or reorder; better, move the table to Iceberg field ids (or read by name) first".into(),
    ))
}

/// Who reads whose values, position by position, in files written before the change.
fn misread_values(kind: AppliedKind, field: &FieldInfo, later: &[String]) -> String {
    let with_field = || std::iter::once(field.name.clone()).chain(later.iter().cloned());
    let (readers, old_columns): (Vec<String>, Vec<String>) = match kind {
        AppliedKind::Add => (with_field().collect(), later.to_vec()),
        AppliedKind::Drop => (later.to_vec(), with_field().collect()),
        _ => (Vec::new(), Vec::new()),
    };
    let pairs: Vec<String> = readers
        .iter()
        .zip(&old_columns)
        .take(3)
        .map(|(reader, old)| format!("`{reader}` would read `{old}`'s values"))
        .collect();
    if pairs.is_empty() {
        "every column between the old and the new position reads its neighbour's values in old files".to_string()
    } else {
        format!("in every old file {}", pairs.join(", "))
    }
}

/// The names of the siblings after `field`'s position in the schema the change was applied to.
fn later_siblings(cx: &Context<'_>, change: &Applied, field: &FieldInfo) -> Vec<String> {
    let schema = if change.kind == AppliedKind::Drop {
        cx.before.current_schema()
    } else {
        cx.after.current_schema()
    };
    let mut siblings: Vec<FieldInfo> = schema
        .walk()
        .into_iter()
        .filter(|f| f.parent_id == field.parent_id && f.id != field.id)
        .filter(|f| f.position >= field.position)
        .collect();
    siblings.sort_by_key(|f| f.position);
    siblings.into_iter().map(|f| f.name).collect()
}

#[cfg(test)]
mod tests {
    use crate::rules::Mapping;
    use crate::rules::test_support::{fired_with, table_with};

    #[test]
    fn only_appends_are_safe_by_position() {
        let base = table_with(
            2,
            r#"[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"phone","required":false,"type":"string"},{"id":3,"name":"amount","required":false,"type":"double"}]"#,
        );
        let fired = |sql| fired_with(&base, sql, Mapping::Position);
        assert!(
            fired("ALTER TABLE t ADD COLUMN new_tag string AFTER id").contains(&"position-shift")
        );
        assert!(fired("ALTER TABLE t DROP COLUMN phone").contains(&"position-shift"));
        assert!(fired("ALTER TABLE t ALTER COLUMN amount FIRST").contains(&"position-shift"));
        assert!(!fired("ALTER TABLE t ADD COLUMN new_tag string").contains(&"position-shift"));
        assert!(!fired("ALTER TABLE t DROP COLUMN amount").contains(&"position-shift"));
        assert!(
            !fired_with(&base, "ALTER TABLE t DROP COLUMN phone", Mapping::FieldId)
                .contains(&"position-shift")
        );
    }
}
