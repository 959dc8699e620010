//! Finding the member a change names in an update's working schema, and editing it in place:
//! paths resolved as Spark resolves them, map keys refused, identifier fields validated.

use crate::change::{Change, FieldPath, Position, Problem, ProblemKind};
use crate::iceberg::names::same_name;
use crate::iceberg::schema::{Field, FieldInfo, MemberKind, member_by_id};
use crate::iceberg::types::{FieldId, PrimitiveType, Type};
use crate::suggest::closest;

use super::members::{Member, join, parent_path, pick, visit_members_mut, visit_structs_mut};
use super::problems::{invalid, invalid_at, nested};
use super::update::Update;

impl Update {
    /// Map keys are immutable in Iceberg (Java: "Cannot alter map keys"): a change to a key or to
    /// anything inside one is refused, whatever the change.
    pub(super) fn refuse_map_key_changes(&self, change: &Change) -> Result<(), Box<Problem>> {
        let Some(path) = change.path() else {
            return Ok(());
        };
        if path.0.is_empty() {
            return Ok(());
        }
        let Ok(target) = self.resolve(change, path) else {
            return Ok(());
        };
        let mut current = Some(target.clone());
        while let Some(info) = current {
            if info.kind == MemberKind::MapKey {
                let place = if info.id == target.id {
                    "the key"
                } else {
                    "inside the key"
                };
                let message = format!(
                    "Cannot alter map keys: `{}` is {place} of map `{}`",
                    target.path,
                    parent_path(&info.path)
                );
                return Err(nested(change, &target, message));
            }
            current = info.parent_id.and_then(|id| member_by_id(&self.fields, id));
        }
        Ok(())
    }

    /// Java's `Schema.validateIdentifierField` rules.
    pub(super) fn check_identifier(
        &self,
        change: &Change,
        target: &FieldInfo,
    ) -> Result<(), Box<Problem>> {
        let name = &target.path;
        let reason = match &target.field_type {
            Type::Primitive(PrimitiveType::Float | PrimitiveType::Double) => {
                Some("must not be float or double field".to_string())
            }
            t if t.is_nested() => Some("not a primitive type field".to_string()),
            _ if !target.required => Some("not a required field".to_string()),
            _ => None,
        };
        let mut reason = reason;
        let index = self.schema().index_by_id();
        let mut parent = target.parent_id;
        while reason.is_none()
            && let Some(id) = parent
            && let Some(info) = index.get(&id)
        {
            if matches!(info.field_type, Type::List(_) | Type::Map(_)) {
                reason = Some(format!("must not be nested in {}", info.path));
            } else if !info.required {
                reason = Some(format!(
                    "must not be nested in an optional field {}",
                    info.path
                ));
            }
            parent = info.parent_id;
        }
        match reason {
            Some(reason) => Err(invalid(
                change,
                target,
                format!("Cannot add field {name} as an identifier field: {reason}"),
            )),
            None => Ok(()),
        }
    }

    pub(super) fn position_index(
        &self,
        change: &Change,
        siblings: &[&Field],
        name: &str,
        position: &Position,
    ) -> Result<usize, Box<Problem>> {
        let reference = match position {
            Position::First => return Ok(0),
            Position::After(r) | Position::Before(r) => r,
        };
        let word = if matches!(position, Position::After(_)) {
            "after"
        } else {
            "before"
        };
        if same_name(reference, name) {
            return Err(invalid_at(
                change,
                format!("Cannot move {name} {word} itself"),
            ));
        }
        // Exact first, then as Spark's resolver matches (`AFTER NAME` on a column `name`).
        let found = siblings
            .iter()
            .position(|f| f.name == *reference)
            .or_else(|| siblings.iter().position(|f| same_name(&f.name, reference)));
        match found {
            Some(i) if matches!(position, Position::After(_)) => Ok(i + 1),
            Some(i) => Ok(i),
            None => Err(Box::new(Problem {
                kind: ProblemKind::UnknownField {
                    path: reference.clone(),
                    suggestion: closest(reference, siblings.iter().map(|f| f.name.as_str())),
                },
                message: format!("Cannot move {name} {word} missing column: {reference}"),
                help: Some("the reference column must be a sibling in the same struct".into()),
                origin: change.origin.clone(),
                field_id: None,
                path: Some(reference.clone()),
            })),
        }
    }

    /// The struct that receives fields added "to" `target`: itself, its list element or its map value.
    pub(super) fn struct_container(
        &self,
        change: &Change,
        target: &FieldInfo,
    ) -> Result<(FieldId, String), Box<Problem>> {
        if target.kind == MemberKind::MapKey {
            return Err(nested(
                change,
                target,
                format!("Cannot add fields to map keys: {}", target.path),
            ));
        }
        match &target.field_type {
            Type::Struct(_) => Ok((target.id, target.path.clone())),
            Type::List(l) if matches!(*l.element, Type::Struct(_)) => {
                Ok((l.element_id, format!("{}.element", target.path)))
            }
            Type::Map(m) if matches!(*m.value, Type::Struct(_)) => {
                Ok((m.value_id, format!("{}.value", target.path)))
            }
            other => Err(invalid(
                change,
                target,
                format!("Cannot add to non-struct column: {}: {other}", target.path),
            )),
        }
    }

    /// The fields of the struct `parent` (the root when `None`), by reference.
    pub(super) fn siblings(&self, parent: Option<FieldId>) -> &[Field] {
        fn find(fields: &[Field], id: FieldId) -> Option<&[Field]> {
            fields.iter().find_map(|f| in_type(&f.field_type, f.id, id))
        }
        fn in_type(t: &Type, owner: FieldId, id: FieldId) -> Option<&[Field]> {
            match t {
                Type::Primitive(_) => None,
                Type::Struct(s) if owner == id => Some(&s.fields),
                Type::Struct(s) => find(&s.fields, id),
                Type::List(l) => in_type(&l.element, l.element_id, id),
                Type::Map(m) => {
                    in_type(&m.key, m.key_id, id).or_else(|| in_type(&m.value, m.value_id, id))
                }
            }
        }
        match parent {
            None => &self.fields,
            Some(id) => find(&self.fields, id).unwrap_or(&[]),
        }
    }

    pub(super) fn with_struct(&mut self, parent: Option<FieldId>, f: impl FnOnce(&mut Vec<Field>)) {
        match parent {
            None => f(&mut self.fields),
            Some(id) => {
                let mut f = Some(f);
                visit_structs_mut(&mut self.fields, None, &mut |owner, fields| {
                    if owner == Some(id)
                        && let Some(f) = f.take()
                    {
                        f(fields);
                    }
                });
            }
        }
    }

    pub(super) fn with_member(&mut self, id: FieldId, f: impl FnOnce(Member<'_>)) {
        let mut f = Some(f);
        visit_members_mut(&mut self.fields, &mut |member_id, member| {
            if member_id == id
                && let Some(f) = f.take()
            {
                f(member);
            }
        });
    }

    /// List elements and map values are not `Field`s: their type lives in the parent type.
    pub(super) fn set_member_type(&mut self, id: FieldId, new_type: &PrimitiveType) {
        fn walk(t: &mut Type, id: FieldId, new_type: &PrimitiveType) {
            match t {
                Type::Primitive(_) => {}
                Type::Struct(s) => s
                    .fields
                    .iter_mut()
                    .for_each(|f| walk(&mut f.field_type, id, new_type)),
                Type::List(l) => {
                    if l.element_id == id {
                        *l.element = Type::Primitive(new_type.clone());
                    }
                    walk(&mut l.element, id, new_type);
                }
                Type::Map(m) => {
                    if m.key_id == id {
                        *m.key = Type::Primitive(new_type.clone());
                    }
                    if m.value_id == id {
                        *m.value = Type::Primitive(new_type.clone());
                    }
                    walk(&mut m.key, id, new_type);
                    walk(&mut m.value, id, new_type);
                }
            }
        }
        for field in &mut self.fields {
            walk(&mut field.field_type, id, new_type);
        }
    }

    /// Finds the field a user path names. Exact names win; otherwise a unique case-insensitive
    /// match is taken, as Spark (case-insensitive by default) would resolve it. A list or map
    /// may be stepped through without naming `element`/`value`, as Iceberg Java allows.
    pub(super) fn resolve(
        &self,
        change: &Change,
        path: &FieldPath,
    ) -> Result<FieldInfo, Box<Problem>> {
        let mut found: Option<FieldInfo> = None;
        for segment in &path.0 {
            let mut next = pick(&self.fields, found.as_ref(), segment);
            if next.is_none()
                && let Some(current) = &found
            {
                // Iceberg Java lets a path step through a list or map to its element or value.
                let implicit = match &current.field_type {
                    Type::List(_) => pick(&self.fields, found.as_ref(), "element"),
                    Type::Map(_) => pick(&self.fields, found.as_ref(), "value"),
                    _ => None,
                };
                next = implicit.and_then(|step| pick(&self.fields, Some(&step), segment));
            }
            match next {
                Some(info) => found = Some(info),
                None => return Err(self.unknown_field(change, path, found.as_ref(), segment)),
            }
        }
        found.ok_or_else(|| invalid_at(change, "an empty column path".to_string()))
    }

    pub(super) fn unknown_field(
        &self,
        change: &Change,
        path: &FieldPath,
        so_far: Option<&FieldInfo>,
        segment: &str,
    ) -> Box<Problem> {
        let wanted = join(so_far.map(|f| f.path.as_str()).unwrap_or(""), segment);
        // Only on this error path is the whole schema walked, for a "did you mean".
        let walk = self.schema().walk();
        let suggestion = closest(&path.dotted(), walk.iter().map(|f| f.path.as_str()));
        Box::new(Problem {
            kind: ProblemKind::UnknownField {
                path: path.dotted(),
                suggestion: suggestion.clone(),
            },
            message: format!("no field `{wanted}` in the table's current schema"),
            help: suggestion.map(|s| format!("did you mean `{s}`?")),
            origin: change.origin.clone(),
            field_id: None,
            path: Some(path.dotted()),
        })
    }
}
