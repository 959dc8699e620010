//! Ids a schema file gives to fields the table does not have yet.
//!
//! After `fieldgate apply --write` the file carries the ids `apply` assigned, while the base it
//! is diffed against in `check` (or in `lint` before the new metadata is committed) still ends
//! at its old `last-column-id`. Such an id is a new field's, and is accepted when it is exactly
//! the id `apply` gives that field: `evolve` is run on the diff's own changes, so the expected
//! ids come from the one place that numbers new fields in Iceberg's order. Any other id above
//! `last-column-id` would leave the file and the metadata disagreeing for good (`apply` never
//! rewrites an id the file states), so it is a problem that says which id to write.

use std::collections::HashMap;

use crate::change::{Change, Origin};
use crate::change::{Problem, ProblemKind};
use crate::evolve::evolve;
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::schema::FieldInfo;
use crate::iceberg::types::FieldId;

/// An id written in the file above the base's `last-column-id`.
pub(super) struct WrittenId {
    pub id: FieldId,
    /// The key it is written under: `id`, `element-id`, `key-id` or `value-id`.
    pub key: &'static str,
    /// The member's path in the file (its final names).
    pub path: Vec<String>,
    /// Where it is written, within the entry it belongs to.
    pub origin: Origin,
}

/// A problem for each written id that is not the one `apply` assigns to that member when it
/// applies `changes` to `base`. A member the changes do not add (its add failed, which `evolve`
/// reports on its own) has no expected id and gets no second finding here.
pub(super) fn unexpected_ids(
    base: &TableMetadata,
    changes: &[Change],
    written: &[WrittenId],
) -> Vec<Problem> {
    if written.is_empty() {
        return Vec::new();
    }
    let evolution = evolve(base, [changes]);
    let index = evolution.metadata.current_schema().index_by_id();
    let assigned: HashMap<Vec<String>, FieldId> = index
        .values()
        .filter(|info| info.id > base.last_column_id)
        .map(|info| (segments(&index, info), info.id))
        .collect();
    written
        .iter()
        .filter_map(|w| {
            let expected = *assigned.get(&w.path)?;
            (expected != w.id).then(|| mismatch(base, w, expected))
        })
        .collect()
}

fn mismatch(base: &TableMetadata, written: &WrittenId, expected: FieldId) -> Problem {
    let path = written.path.join(".");
    let id = written.id;
    Problem {
        kind: ProblemKind::UnknownField {
            path: path.clone(),
            suggestion: None,
        },
        message: format!(
            "`{path}` has id {id}, but the table has no field with that id, and `apply` assigns this new field id {expected} (new ids continue from last-column-id {} in Iceberg's order)",
            base.last_column_id
        ),
        help: Some(format!(
            "write `{}: {expected}`, or leave the id out: `fieldgate apply --write` writes the ids it assigns into the file",
            written.key
        )),
        origin: written.origin.clone(),
        field_id: Some(id),
        path: Some(path),
    }
}

/// A member's path as names (which may themselves contain dots), outermost first.
fn segments(index: &HashMap<FieldId, FieldInfo>, info: &FieldInfo) -> Vec<String> {
    let mut out = vec![info.name.clone()];
    let mut parent = info.parent_id.and_then(|p| index.get(&p));
    while let Some(p) = parent {
        out.push(p.name.clone());
        parent = p.parent_id.and_then(|id| index.get(&id));
    }
    out.reverse();
    out
}
