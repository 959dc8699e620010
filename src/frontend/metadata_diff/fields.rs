//! Changes to the fields both schemas hold, paired by id: drops, renames, type, nullability and
//! doc changes, and the reshapes no schema update can make.

use std::collections::HashSet;

use super::Diff;
use crate::change::{Applied, AppliedKind, Problem, ProblemKind};
use crate::iceberg::pair::Member;
use crate::iceberg::schema::MemberKind;
use crate::iceberg::types::{FieldId, ListType, MapType, PrimitiveType, Type};

/// What pairing the fields found, in the order a schema update applies it.
pub(super) struct FieldChanges {
    pub renames: Vec<Applied>,
    pub updates: Vec<Applied>,
    pub problems: Vec<Problem>,
    /// Members of a replaced or reshaped type: reported once, with their owner.
    pub reported: HashSet<FieldId>,
}

impl<'d> Diff<'d> {
    /// Struct fields of the base the proposal no longer has, each where its parent is (a field
    /// inside a dropped struct goes with it).
    pub(super) fn drops(&self) -> Vec<Applied> {
        let mut drops = Vec::new();
        for old in self.pairing().dropped() {
            let kept_parent = old.parent_id.is_none_or(|p| self.after.contains(p));
            if old.is_struct_field() && kept_parent {
                let at = old
                    .parent_id
                    .map_or(self.schema_anchor(), |p| self.focus(p, |m| m.name));
                let from = Some(old.field_type.to_string());
                drops.push(self.record(AppliedKind::Drop, at, Some(old), None, from, None));
            }
        }
        drops
    }

    pub(super) fn field_changes(&self) -> FieldChanges {
        let mut out = FieldChanges {
            renames: Vec::new(),
            updates: Vec::new(),
            problems: Vec::new(),
            reported: HashSet::new(),
        };
        for (old, new) in self.pairing().kept() {
            if out.reported.contains(&new.id) {
                continue;
            }
            if old.kind != new.kind || old.parent_id != new.parent_id {
                let (old_path, new_path) = (self.before.path(old), self.after.path(new));
                out.problems.push(self.problem(
                    ProblemKind::NestedStructure,
                    self.focus(new.id, |m| m.name),
                    new,
                    format!(
                        "id {} is `{}` in the table but `{}` in the proposed metadata: Iceberg cannot move a field into another struct",
                        new.id, old_path, new_path
                    ),
                    "keep every id where it is; a field in a new place is a new field with a new id",
                ));
                continue;
            }
            if new.kind == MemberKind::StructField && new.name != old.name {
                let old_path = self.before.path(old);
                let (from, to) = (Some(old_path.clone()), Some(self.after.path(new)));
                let at = self.focus(new.id, |m| m.name);
                let mut rename =
                    self.record(AppliedKind::Rename, at, Some(old), Some(new), from, to);
                // As `evolve` records it: a rename is about the field it renames.
                rename.path = old_path;
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
    fn type_change(&self, old: &Member<'d>, new: &Member<'d>, out: &mut FieldChanges) -> bool {
        match (old.field_type, new.field_type) {
            (Type::Primitive(a), Type::Primitive(b)) if a != b => {
                self.primitive_change(old, new, a, b, out);
            }
            (Type::Primitive(_), Type::Primitive(_)) | (Type::Struct(_), Type::Struct(_)) => {}
            (Type::List(a), Type::List(b)) if a.element_id != b.element_id => {
                self.replaced_element(new, a, b, out);
            }
            (Type::Map(a), Type::Map(b)) if a.key_id != b.key_id || a.value_id != b.value_id => {
                self.replaced_key_or_value(new, a, b, out);
            }
            (Type::List(_), Type::List(_)) | (Type::Map(_), Type::Map(_)) => {}
            (a, b) => {
                self.kind_change(new, a, b, out);
                return false;
            }
        }
        true
    }

    /// A primitive promoted to another: an update, except on a map key, which is immutable.
    fn primitive_change(
        &self,
        old: &Member<'d>,
        new: &Member<'d>,
        a: &PrimitiveType,
        b: &PrimitiveType,
        out: &mut FieldChanges,
    ) {
        let at = self.focus(new.id, |m| m.field_type);
        if old.kind == MemberKind::MapKey {
            let path = self.after.path(new);
            out.problems.push(self.problem(
                ProblemKind::NestedStructure,
                at,
                new,
                format!("Cannot alter map keys: `{path}` changes from {a} to {b}"),
                "map keys are immutable: add a new map column and backfill it",
            ));
        } else {
            let (from, to) = (Some(a.to_string()), Some(b.to_string()));
            let applied = AppliedKind::UpdateType;
            out.updates
                .push(self.record(applied, at, Some(old), Some(new), from, to));
        }
    }

    fn replaced_element(
        &self,
        new: &Member<'d>,
        a: &ListType,
        b: &ListType,
        out: &mut FieldChanges,
    ) {
        let path = self.after.path(new);
        out.reported.extend(self.subtree(b.element_id));
        out.problems.push(self.problem(
            ProblemKind::NestedStructure,
            self.focus(new.id, |m| m.field_type),
            new,
            format!(
                "the element of `{path}` is replaced (id {} -> {}): a list's element cannot be replaced",
                a.element_id, b.element_id
            ),
            "keep the element's id; a new shape is a new column",
        ));
    }

    fn replaced_key_or_value(
        &self,
        new: &Member<'d>,
        a: &MapType,
        b: &MapType,
        out: &mut FieldChanges,
    ) {
        let path = self.after.path(new);
        out.reported.extend(self.subtree(b.key_id));
        out.reported.extend(self.subtree(b.value_id));
        out.problems.push(self.problem(
            ProblemKind::NestedStructure,
            self.focus(new.id, |m| m.field_type),
            new,
            format!(
                "the key or value of `{path}` is replaced (ids {}/{} -> {}/{}): a map's key and value cannot be replaced",
                a.key_id, a.value_id, b.key_id, b.value_id
            ),
            "keep the key's and value's ids; a new shape is a new column",
        ));
    }

    /// A type that becomes another kind of type (a primitive a struct, a list a map, ...).
    fn kind_change(&self, new: &Member<'d>, a: &Type, b: &Type, out: &mut FieldChanges) {
        let path = self.after.path(new);
        out.reported.extend(self.subtree(new.id));
        out.problems.push(self.problem(
            ProblemKind::InvalidChange,
            self.focus(new.id, |m| m.field_type),
            new,
            format!(
                "Cannot change the type of `{path}` (field id {}) from {a} to {b}: only primitive types can change",
                new.id
            ),
            "add a new column with the new type and backfill it",
        ));
    }

    /// Nullability and doc changes of a field both schemas hold.
    fn attribute_changes(&self, old: &Member<'d>, new: &Member<'d>, updates: &mut Vec<Applied>) {
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
        if new.doc() != old.doc() {
            let (from, to) = (old.doc().map(str::to_string), new.doc().map(str::to_string));
            let at = self.focus(new.id, |m| m.doc);
            updates.push(self.record(AppliedKind::UpdateDoc, at, Some(old), Some(new), from, to));
        }
    }

    /// `id` and every member inside it, in the proposal.
    fn subtree(&self, id: FieldId) -> impl Iterator<Item = FieldId> {
        self.after.subtree(id).into_iter().map(|m| m.id)
    }
}
