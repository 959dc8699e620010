//! Members of a schema (struct fields, list elements, map keys and values) looked up by name
//! without cloning, and visited in place for editing.

use crate::iceberg::names::same_name;
use crate::iceberg::schema::{Field, FieldInfo, MemberKind};
use crate::iceberg::types::{FieldId, StructType, Type};

/// A member seen through a reference, so looking one name up among many siblings clones
/// nothing; only the member picked becomes a [`FieldInfo`].
pub(super) struct MemberRef<'a> {
    id: FieldId,
    name: &'a str,
    required: bool,
    field_type: &'a Type,
    field: Option<&'a Field>,
    position: usize,
    kind: MemberKind,
}

impl MemberRef<'_> {
    fn info(&self, parent: Option<&FieldInfo>) -> FieldInfo {
        FieldInfo {
            id: self.id,
            path: join(parent.map(|p| p.path.as_str()).unwrap_or(""), self.name),
            name: self.name.to_string(),
            required: self.required,
            field_type: self.field_type.clone(),
            doc: self.field.and_then(|f| f.doc.clone()),
            initial_default: self.field.and_then(|f| f.initial_default.clone()),
            write_default: self.field.and_then(|f| f.write_default.clone()),
            parent_id: parent.map(|p| p.id),
            position: self.position,
            kind: self.kind,
        }
    }
}

/// The members directly under `parent` (the root when `None`): a struct's fields, a list's
/// element, a map's key and value.
pub(super) fn child_members<'a>(
    root: &'a [Field],
    parent: Option<&'a FieldInfo>,
) -> Vec<MemberRef<'a>> {
    let fields = |fields: &'a [Field]| {
        fields
            .iter()
            .enumerate()
            .map(|(position, f)| MemberRef {
                id: f.id,
                name: &f.name,
                required: f.required,
                field_type: &f.field_type,
                field: Some(f),
                position,
                kind: MemberKind::StructField,
            })
            .collect()
    };
    let member = |id, name, required, field_type, kind| MemberRef {
        id,
        name,
        required,
        field_type,
        field: None,
        position: 0,
        kind,
    };
    match parent.map(|p| &p.field_type) {
        None => fields(root),
        Some(Type::Primitive(_)) => Vec::new(),
        Some(Type::Struct(s)) => fields(&s.fields),
        Some(Type::List(l)) => vec![member(
            l.element_id,
            "element",
            l.element_required,
            &l.element,
            MemberKind::ListElement,
        )],
        Some(Type::Map(m)) => vec![
            member(m.key_id, "key", true, &m.key, MemberKind::MapKey),
            member(
                m.value_id,
                "value",
                m.value_required,
                &m.value,
                MemberKind::MapValue,
            ),
        ],
    }
}

/// Exact names win; otherwise a unique match under Spark's resolver (`equalsIgnoreCase`, see
/// [`crate::iceberg::names`]) is taken, as Spark (case-insensitive by default) would resolve it.
pub(super) fn pick(root: &[Field], parent: Option<&FieldInfo>, name: &str) -> Option<FieldInfo> {
    let members = child_members(root, parent);
    if let Some(exact) = members.iter().find(|m| m.name == name) {
        return Some(exact.info(parent));
    }
    let mut matches = members.iter().filter(|m| same_name(m.name, name));
    match (matches.next(), matches.next()) {
        (Some(one), None) => Some(one.info(parent)),
        _ => None,
    }
}

pub(super) enum Member<'a> {
    Field(&'a mut Field),
    Element(&'a mut bool),
    Value(&'a mut bool),
}

pub(super) fn visit_structs_mut(
    fields: &mut Vec<Field>,
    owner: Option<FieldId>,
    f: &mut impl FnMut(Option<FieldId>, &mut Vec<Field>),
) {
    fn inner(t: &mut Type, owner: FieldId, f: &mut impl FnMut(Option<FieldId>, &mut Vec<Field>)) {
        match t {
            Type::Primitive(_) => {}
            Type::Struct(StructType { fields }) => visit_structs_mut(fields, Some(owner), f),
            Type::List(l) => inner(&mut l.element, l.element_id, f),
            Type::Map(m) => {
                inner(&mut m.key, m.key_id, f);
                inner(&mut m.value, m.value_id, f);
            }
        }
    }
    f(owner, fields);
    for field in fields.iter_mut() {
        inner(&mut field.field_type, field.id, f);
    }
}

pub(super) fn visit_members_mut(fields: &mut [Field], f: &mut impl FnMut(FieldId, Member<'_>)) {
    fn inner(t: &mut Type, f: &mut impl FnMut(FieldId, Member<'_>)) {
        match t {
            Type::Primitive(_) => {}
            Type::Struct(s) => visit_members_mut(&mut s.fields, f),
            Type::List(l) => {
                f(l.element_id, Member::Element(&mut l.element_required));
                inner(&mut l.element, f);
            }
            Type::Map(m) => {
                f(m.value_id, Member::Value(&mut m.value_required));
                inner(&mut m.key, f);
                inner(&mut m.value, f);
            }
        }
    }
    for field in fields.iter_mut() {
        let id = field.id;
        f(id, Member::Field(field));
        inner(&mut field.field_type, f);
    }
}

pub(super) fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

pub(super) fn parent_path(path: &str) -> String {
    path.rsplit_once('.')
        .map(|(p, _)| p.to_string())
        .unwrap_or_default()
}
