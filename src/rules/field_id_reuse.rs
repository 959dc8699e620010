//! `field-id-reuse`: the new metadata breaks the id contract — a retired id comes back, a new id
//! is not above the old `last-column-id`, `last-column-id` goes down, an earlier schema is
//! rewritten, or the current schema is not the newest. `evolve` never does this; a metadata file
//! written by an engine or by hand can.

use std::collections::{HashMap, HashSet};

use crate::change::Origin;
use crate::finding::{MetadataPlace, Related};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::schema::{FieldInfo, Schema, any_member_id};
use crate::iceberg::types::FieldId;
use crate::rules::{Context, Rule, Violation};

pub struct FieldIdReuse;

impl Rule for FieldIdReuse {
    fn name(&self) -> &'static str {
        "field-id-reuse"
    }

    fn check(&self, cx: &Context<'_>) -> Vec<Violation> {
        let mut out = Vec::new();
        out.extend(last_column_id_goes_down(cx));
        out.extend(rewritten_or_removed_schemas(cx));
        out.extend(ids_breaking_the_contract(cx));
        out.extend(current_is_not_the_newest(cx));
        out
    }
}

/// A violation about the table as a whole, or about one field id when `field_id` is set. A
/// metadata proposal's findings point into the proposed file; DDL never gets here.
fn violation(
    message: String,
    help: &str,
    field_id: Option<FieldId>,
    origin: Option<Origin>,
    related: Vec<Related>,
) -> Violation {
    Violation {
        field: None,
        field_id,
        message,
        help: help.to_string(),
        origin,
        severity: None,
        related,
    }
}

fn last_column_id_goes_down(cx: &Context<'_>) -> Option<Violation> {
    let (before, after) = (cx.before, cx.after);
    (after.last_column_id < before.last_column_id).then(|| {
        violation(
            format!(
                "`last-column-id` goes down from {} to {}: the next added column would get an id that old files already use",
                before.last_column_id, after.last_column_id
            ),
            "keep `last-column-id` at least at its old value; ids are never handed out twice",
            None,
            cx.anchors.last_column_id.clone(),
            Vec::new(),
        )
    })
}

fn rewritten_or_removed_schemas(cx: &Context<'_>) -> Vec<Violation> {
    let mut out = Vec::new();
    for old in &cx.before.schemas {
        match cx.after.schema(old.schema_id) {
            Some(new) if std::ptr::eq(new, &**old) || new == &**old => {}
            Some(_) => out.push(violation(
                format!(
                    "schema {} is rewritten: files written with it would be read with a different schema than the one they were written with",
                    old.schema_id
                ),
                "never edit a schema in `schemas`; append a new schema instead",
                None,
                cx.anchors.schemas.get(&old.schema_id).cloned(),
                Vec::new(),
            )),
            None => out.push(violation(
                format!(
                    "schema {} is removed from `schemas`, but snapshots and files may still refer to it",
                    old.schema_id
                ),
                "keep every schema in `schemas`",
                None,
                cx.anchors.current_schema_id.clone(),
                Vec::new(),
            )),
        }
    }
    out
}

/// Ids of the new schemas that are retired or not above the old `last-column-id`.
fn ids_breaking_the_contract(cx: &Context<'_>) -> Vec<Violation> {
    let before = cx.before;
    let mut out = Vec::new();
    // Every id the table has ever used, only when a new schema has an id above the old
    // `last-column-id` that the current schema does not (a table whose ids run past it);
    // with the path it had and the last schema it was in only when a new schema breaks the
    // contract: each walks every old schema, on every keystroke in the editor.
    let mut used: Option<HashSet<FieldId>> = None;
    let mut known: Option<HashMap<FieldId, (String, i32)>> = None;
    // Looked up once per member of every new schema: a long migration has many.
    let old_schema_ids: HashSet<i32> = before.schemas.iter().map(|s| s.schema_id).collect();
    let current_ids = member_ids([before.current_schema()]);
    for schema in cx
        .after
        .schemas
        .iter()
        .filter(|s| !old_schema_ids.contains(&s.schema_id))
    {
        // A current id is the same field; another one breaks the contract when it was used
        // (it is retired) or is not above the old `last-column-id` (it is not new). The
        // current schema is one of the old ones, so its ids are all used.
        let mut breaks_contract = |id: FieldId| {
            !current_ids.contains(&id)
                && (id <= before.last_column_id
                    || used
                        .get_or_insert_with(|| member_ids(before.schemas.iter().map(|s| &**s)))
                        .contains(&id))
        };
        if !any_member_id(&schema.fields, &mut breaks_contract) {
            continue;
        }
        let known = known.get_or_insert_with(|| paths_by_id(before));
        for field in schema.walk() {
            match known.get(&field.id) {
                // An id the current table does not have is retired: it comes back neither
                // under a new name nor under its old one (that would un-drop old values).
                // One it has is the same field, renamed or not.
                Some((old_path, last_schema)) if !current_ids.contains(&field.id) => out.push(
                    retired_id_comes_back(cx, schema.schema_id, &field, old_path, *last_schema),
                ),
                None if field.id <= before.last_column_id => out.push(violation(
                    format!(
                        "schema {} gives the new field `{}` id {}, which is not above the old `last-column-id` {}",
                        schema.schema_id, field.path, field.id, before.last_column_id
                    ),
                    "assign new ids from `last-column-id + 1` upwards",
                    Some(field.id),
                    located(cx, schema.schema_id, field.id),
                    Vec::new(),
                )),
                _ => {}
            }
        }
    }
    out
}

/// `field` of new schema `schema_id` has the id that was `old_path`, last in `last_schema`.
fn retired_id_comes_back(
    cx: &Context<'_>,
    schema_id: i32,
    field: &FieldInfo,
    old_path: &str,
    last_schema: i32,
) -> Violation {
    let consequence = if crate::iceberg::names::same_name(old_path, &field.path) {
        format!(
            "the dropped column's old values would reappear in `{}`",
            field.path
        )
    } else {
        format!(
            "old files' `{old_path}` values would be read as `{}`",
            field.path
        )
    };
    violation(
        format!(
            "schema {schema_id} gives id {} to `{}`, but that id belonged to `{old_path}`, which was dropped: {consequence}",
            field.id, field.path
        ),
        "assign new fields ids above `last-column-id`; retired ids stay retired",
        Some(field.id),
        located(cx, schema_id, field.id),
        vec![Related::in_metadata(
            MetadataPlace::SchemaField {
                schema_id: last_schema,
                field_id: field.id,
            },
            format!("id {} was `{old_path}` here", field.id),
        )],
    )
}

/// A change that adds a schema but leaves `current-schema-id` on another new one.
fn current_is_not_the_newest(cx: &Context<'_>) -> Option<Violation> {
    let (before, after) = (cx.before, cx.after);
    let newest = after.schemas.iter().map(|s| s.schema_id).max();
    let added = after.schemas.len() > before.schemas.len();
    let current_is_new = after
        .schema(after.current_schema_id)
        .is_some_and(|s| before.schema(s.schema_id).is_none());
    (added && newest != Some(after.current_schema_id) && current_is_new).then(|| {
        violation(
            format!(
                "`current-schema-id` is {}, but the newest schema is {}",
                after.current_schema_id,
                newest.unwrap_or_default()
            ),
            "point `current-schema-id` at the schema the change added",
            None,
            cx.anchors.current_schema_id.clone(),
            Vec::new(),
        )
    })
}

/// The id of every member of `schemas`.
fn member_ids<'a>(schemas: impl IntoIterator<Item = &'a Schema>) -> HashSet<FieldId> {
    let mut ids = HashSet::new();
    for schema in schemas {
        // Never satisfied, so every member is visited.
        any_member_id(&schema.fields, &mut |id| {
            ids.insert(id);
            false
        });
    }
    ids
}

/// Every id `table` ever used, with its path and the last schema it was in.
fn paths_by_id(table: &TableMetadata) -> HashMap<FieldId, (String, i32)> {
    let mut known = HashMap::new();
    for schema in &table.schemas {
        for field in schema.walk() {
            known.insert(field.id, (field.path, schema.schema_id));
        }
    }
    known
}

/// Where a field of a new schema is: in the proposed file, else at the change that made it.
fn located(cx: &Context<'_>, schema_id: i32, id: FieldId) -> Option<Origin> {
    cx.anchors
        .fields
        .get(&(schema_id, id))
        .cloned()
        .or_else(|| cx.last_change_of(id).and_then(|a| a.origin.clone()))
}

/// A rename keeps the id: the current schema still has that id, under the new path.
#[cfg(test)]
mod tests {
    use crate::rules::test_support::{fired, table_with_history};

    #[test]
    fn ddl_never_breaks_the_id_contract() {
        let base = table_with_history();
        let sql = "ALTER TABLE t ADD COLUMN a int; ALTER TABLE t DROP COLUMN a; ALTER TABLE t RENAME COLUMN note TO remark";
        assert!(!fired(&base, sql).contains(&"field-id-reuse"));
    }

    #[test]
    fn rewritten_history_and_lowered_ids_are_caught() {
        use crate::rules::test_support::findings_between;
        let before = table_with_history();
        let mut after = before.clone();
        after.last_column_id -= 1;
        std::sync::Arc::make_mut(&mut after.schemas[0]).fields.pop();
        let found = findings_between(&before, &after);
        assert_eq!(
            found.iter().filter(|r| **r == "field-id-reuse").count(),
            2,
            "{found:?}"
        );
    }
}
