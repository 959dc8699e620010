//! Changes to the fields both schemas hold, paired by id: drops, renames, type, nullability and
//! doc changes, and the reshapes no schema update can make.

use std::collections::HashMap;

use super::Diff;
use crate::change::{Applied, AppliedKind, Problem, ProblemKind};
use crate::iceberg::schema::{FieldInfo, MemberKind};
use crate::iceberg::types::{FieldId, Type};

/// What pairing the fields found, in the order a schema update applies it.
pub(super) struct FieldChanges {
    pub renames: Vec<Applied>,
    pub updates: Vec<Applied>,
    pub problems: Vec<Problem>,
    /// Members of a replaced or reshaped type: reported once, with their owner.
    pub reported: Vec<FieldId>,
}

impl Diff<'_> {
    /// Struct fields of the base the proposal no longer has, each where its parent is (a field
    /// inside a dropped struct goes with it).
    pub(super) fn drops(&self) -> Vec<Applied> {
        let mut drops = Vec::new();
        for old in self.base.current_schema().walk() {
            let kept_parent = old.parent_id.is_none_or(|p| self.after.contains_key(&p));
            if old.kind == MemberKind::StructField
                && !self.after.contains_key(&old.id)
                && kept_parent
            {
                let at = old
                    .parent_id
                    .map_or(self.schema_anchor(), |p| self.focus(p, |m| m.name));
                let from = Some(old.field_type.to_string());
                drops.push(self.record(AppliedKind::Drop, at, Some(&old), None, from, None));
            }
        }
        drops
    }

    pub(super) fn field_changes(&self) -> FieldChanges {
        let mut out = FieldChanges {
            renames: Vec::new(),
            updates: Vec::new(),
            problems: Vec::new(),
            reported: Vec::new(),
        };
        for new in &self.after_walk {
            let Some(old) = self.before.get(&new.id) else {
                continue;
            };
            if out.reported.contains(&new.id) {
                continue;
            }
            if old.kind != new.kind || old.parent_id != new.parent_id {
                out.problems.push(self.problem(
                    ProblemKind::NestedStructure,
                    self.focus(new.id, |m| m.name),
                    new,
                    format!(
                        "id {} is `{}` in the table but `{}` in the proposed metadata: Iceberg cannot move a field into another struct",
                        new.id, old.path, new.path
                    ),
                    "keep every id where it is; a field in a new place is a new field with a new id",
                ));
                continue;
            }
            if new.kind == MemberKind::StructField && new.name != old.name {
                let (from, to) = (Some(old.path.clone()), Some(new.path.clone()));
                let at = self.focus(new.id, |m| m.name);
                let mut rename =
                    self.record(AppliedKind::Rename, at, Some(old), Some(new), from, to);
                // As `evolve` records it: a rename is about the field it renames.
                rename.path = old.path.clone();
                out.renames.push(rename);
            }
            if !self.type_change(old, new, &mut out) {
                continue;
            }
            self.attribute_changes(old, new, &mut out.updates);
        }
        out
    }

    /// Records a change of `new`'s type; false when the type changed in a way that leaves
    /// nothing else about the field to compare.
    fn type_change(&self, old: &FieldInfo, new: &FieldInfo, out: &mut FieldChanges) -> bool {
        let at = self.focus(new.id, |m| m.field_type);
        match (&old.field_type, &new.field_type) {
            (Type::Primitive(a), Type::Primitive(b)) if a != b => {
                if old.kind == MemberKind::MapKey {
                    out.problems.push(self.problem(
                        ProblemKind::NestedStructure,
                        at,
                        new,
                        format!(
                            "Cannot alter map keys: `{}` changes from {a} to {b}",
                            new.path
                        ),
                        "map keys are immutable: add a new map column and backfill it",
                    ));
                } else {
                    let (from, to) = (Some(a.to_string()), Some(b.to_string()));
                    let applied = AppliedKind::UpdateType;
                    out.updates
                        .push(self.record(applied, at, Some(old), Some(new), from, to));
                }
            }
            (Type::Primitive(_), Type::Primitive(_)) | (Type::Struct(_), Type::Struct(_)) => {}
            (Type::List(a), Type::List(b)) if a.element_id != b.element_id => {
                out.reported.extend(self.subtree(b.element_id));
                out.problems.push(self.problem(
                    ProblemKind::NestedStructure,
                    at,
                    new,
                    format!(
                        "the element of `{}` is replaced (id {} -> {}): a list's element cannot be replaced",
                        new.path, a.element_id, b.element_id
                    ),
                    "keep the element's id; a new shape is a new column",
                ));
            }
            (Type::Map(a), Type::Map(b)) if a.key_id != b.key_id || a.value_id != b.value_id => {
                out.reported.extend(self.subtree(b.key_id));
                out.reported.extend(self.subtree(b.value_id));
                out.problems.push(self.problem(
                    ProblemKind::NestedStructure,
                    at,
                    new,
                    format!(
                        "the key or value of `{}` is replaced (ids {}/{} -> {}/{}): a map's key and value cannot be replaced",
                        new.path, a.key_id, a.value_id, b.key_id, b.value_id
                    ),
                    "keep the key's and value's ids; a new shape is a new column",
                ));
            }
            (Type::List(_), Type::List(_)) | (Type::Map(_), Type::Map(_)) => {}
            (a, b) => {
                out.reported.extend(self.subtree(new.id));
                out.problems.push(self.problem(
                    ProblemKind::InvalidChange,
                    at,
                    new,
                    format!(
                        "Cannot change the type of `{}` (field id {}) from {a} to {b}: only primitive types can change",
                        new.path, new.id
                    ),
                    "add a new column with the new type and backfill it",
                ));
                return false;
            }
        }
        true
    }

    /// Nullability and doc changes of a field both schemas hold.
    fn attribute_changes(&self, old: &FieldInfo, new: &FieldInfo, updates: &mut Vec<Applied>) {
        if new.required != old.required && old.kind != MemberKind::MapKey {
            let word = |r: bool| if r { "required" } else { "optional" };
            let kind = if new.required {
                AppliedKind::SetRequired
            } else {
                AppliedKind::SetOptional
            };
            let (from, to) = (
                Some(word(old.required).into()),
                Some(word(new.required).into()),
            );
            let at = self.focus(new.id, |m| m.required);
            updates.push(self.record(kind, at, Some(old), Some(new), from, to));
        }
        if new.doc != old.doc {
            let (from, to) = (old.doc.clone(), new.doc.clone());
            let at = self.focus(new.id, |m| m.doc);
            updates.push(self.record(AppliedKind::UpdateDoc, at, Some(old), Some(new), from, to));
        }
    }

    /// `id` and every member inside it, in the proposal.
    fn subtree(&self, id: FieldId) -> Vec<FieldId> {
        let parents: HashMap<FieldId, Option<FieldId>> = self
            .after_walk
            .iter()
            .map(|f| (f.id, f.parent_id))
            .collect();
        let inside = |member: FieldId| {
            let mut current = Some(member);
            while let Some(c) = current {
                if c == id {
                    return true;
                }
                current = parents.get(&c).copied().flatten();
            }
            false
        };
        self.after_walk
            .iter()
            .map(|f| f.id)
            .filter(|m| inside(*m))
            .collect()
    }
}
