//! Schemas and their fields, with the lookups every other layer needs: by field id, by dotted
//! path as Iceberg names it (`point.z`, `points.element.z`, `attrs.value.b`), and the walk that
//! visits every field once.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::LazyLock;

use foldhash::fast::{FoldHasher, RandomState};

use serde_json::Value;

use crate::iceberg::types::{FieldId, StructType, Type};

/// A struct field. Defaults are kept as the spec's JSON single-value form: they are written back
/// exactly, and only compared, never interpreted.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub id: FieldId,
    pub name: String,
    pub required: bool,
    pub field_type: Type,
    pub doc: Option<String>,
    pub initial_default: Option<Value>,
    pub write_default: Option<Value>,
}

impl Field {
    pub fn new(id: FieldId, name: impl Into<String>, required: bool, field_type: Type) -> Field {
        Field {
            id,
            name: name.into(),
            required,
            field_type,
            doc: None,
            initial_default: None,
            write_default: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    pub schema_id: i32,
    pub identifier_field_ids: Vec<FieldId>,
    pub fields: Vec<Field>,
}

/// Where a field sits: its dotted path and enough of its surroundings for rules and messages.
/// List elements and map keys/values appear as pseudo-fields named `element`, `key`, `value`.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldInfo {
    pub id: FieldId,
    pub path: String,
    pub name: String,
    pub required: bool,
    pub field_type: Type,
    pub doc: Option<String>,
    pub initial_default: Option<Value>,
    pub write_default: Option<Value>,
    pub parent_id: Option<FieldId>,
    /// The position among its struct siblings (0 for list/map members).
    pub position: usize,
    pub kind: MemberKind,
}

impl FieldInfo {
    /// A struct field at `position` among its siblings, under the struct at `prefix`.
    fn of_field(
        field: &Field,
        prefix: &str,
        parent: Option<FieldId>,
        position: usize,
    ) -> FieldInfo {
        FieldInfo {
            id: field.id,
            path: join(prefix, &field.name),
            name: field.name.clone(),
            required: field.required,
            field_type: field.field_type.clone(),
            doc: field.doc.clone(),
            initial_default: field.initial_default.clone(),
            write_default: field.write_default.clone(),
            parent_id: parent,
            position,
            kind: MemberKind::StructField,
        }
    }

    /// A list element or map key/value of the list or map `owner` at `path`.
    fn of_member(
        id: FieldId,
        name: &str,
        required: bool,
        ty: &Type,
        owner: FieldId,
        path: &str,
        kind: MemberKind,
    ) -> FieldInfo {
        FieldInfo {
            id,
            path: join(path, name),
            name: name.to_string(),
            required,
            field_type: ty.clone(),
            doc: None,
            initial_default: None,
            write_default: None,
            parent_id: Some(owner),
            position: 0,
            kind,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberKind {
    StructField,
    ListElement,
    MapKey,
    MapValue,
}

impl Schema {
    pub fn as_struct(&self) -> StructType {
        StructType {
            fields: self.fields.clone(),
        }
    }

    /// Every field, list element and map key/value in pre-order, with its full path.
    pub fn walk(&self) -> Vec<FieldInfo> {
        let mut out = Vec::new();
        walk_struct(&self.fields, "", None, &mut out);
        out
    }

    /// Field ids to their full information, built once per schema.
    pub fn index_by_id(&self) -> HashMap<FieldId, FieldInfo> {
        self.walk().into_iter().map(|f| (f.id, f)).collect()
    }

    pub fn highest_field_id(&self) -> FieldId {
        highest_id(&self.fields)
    }

    pub fn field_by_id(&self, id: FieldId) -> Option<FieldInfo> {
        member_by_id(&self.fields, id)
    }

    pub fn field_by_path(&self, path: &str) -> Option<FieldInfo> {
        self.walk().into_iter().find(|f| f.path == path)
    }

    /// Schema equality as Iceberg uses it to reuse a schema id: same fields and identifiers,
    /// whatever the schema id.
    pub fn same_structure(&self, other: &Schema) -> bool {
        self.fields == other.fields && self.identifier_field_ids == other.identifier_field_ids
    }

    /// A hash that schemas of the same structure share, so a schema's earlier twin is found
    /// without comparing it against every schema of the table. Defaults are left out (JSON
    /// numbers equal as values can differ as text); `same_structure` decides among candidates.
    pub fn structure_hash(&self) -> u64 {
        let mut hasher = STRUCTURE_HASH.build_hasher();
        self.identifier_field_ids.hash(&mut hasher);
        hash_fields(&self.fields, &mut hasher);
        hasher.finish()
    }
}

/// One seed for the process, so every structure hash of a run is comparable; random, so a
/// migration cannot be written to make its schemas collide. foldhash rather than SipHash: the
/// hash of each statement's new schema was a third of a long migration's work.
static STRUCTURE_HASH: LazyLock<RandomState> = LazyLock::new(RandomState::default);

fn hash_fields(fields: &[Field], hasher: &mut FoldHasher) {
    fields.len().hash(hasher);
    for field in fields {
        field.id.hash(hasher);
        field.name.hash(hasher);
        field.required.hash(hasher);
        field.doc.hash(hasher);
        hash_type(&field.field_type, hasher);
    }
}

fn hash_type(field_type: &Type, hasher: &mut FoldHasher) {
    match field_type {
        Type::Primitive(p) => p.hash(hasher),
        Type::Struct(s) => hash_fields(&s.fields, hasher),
        Type::List(l) => {
            (l.element_id, l.element_required).hash(hasher);
            hash_type(&l.element, hasher);
        }
        Type::Map(m) => {
            (m.key_id, m.value_id, m.value_required).hash(hasher);
            hash_type(&m.key, hasher);
            hash_type(&m.value, hasher);
        }
    }
}

/// Whether any member id of `fields` (nested ones included) satisfies `test`, without building
/// `FieldInfo`s: a cheap pass before a full walk.
pub fn any_member_id(fields: &[Field], test: &mut impl FnMut(FieldId) -> bool) -> bool {
    fn in_type(t: &Type, test: &mut impl FnMut(FieldId) -> bool) -> bool {
        match t {
            Type::Primitive(_) => false,
            Type::Struct(s) => any_member_id(&s.fields, test),
            Type::List(l) => test(l.element_id) || in_type(&l.element, test),
            Type::Map(m) => {
                test(m.key_id)
                    || test(m.value_id)
                    || in_type(&m.key, test)
                    || in_type(&m.value, test)
            }
        }
    }
    fields
        .iter()
        .any(|f| test(f.id) || in_type(&f.field_type, test))
}

/// Every member's id and full path (as `Schema::walk` names them), in pre-order, through one
/// reused path buffer: what a check of ids and names needs, without building `FieldInfo`s.
pub fn visit_paths(fields: &[Field], visit: &mut impl FnMut(FieldId, &str)) {
    fn member(
        path: &mut String,
        name: &str,
        id: FieldId,
        visit: &mut impl FnMut(FieldId, &str),
    ) -> usize {
        let before = path.len();
        if before > 0 {
            path.push('.');
        }
        path.push_str(name);
        visit(id, path);
        before
    }
    fn in_type(t: &Type, path: &mut String, visit: &mut impl FnMut(FieldId, &str)) {
        match t {
            Type::Primitive(_) => {}
            Type::Struct(s) => in_struct(&s.fields, path, visit),
            Type::List(l) => {
                let before = member(path, "element", l.element_id, visit);
                in_type(&l.element, path, visit);
                path.truncate(before);
            }
            Type::Map(m) => {
                let before = member(path, "key", m.key_id, visit);
                in_type(&m.key, path, visit);
                path.truncate(before);
                let before = member(path, "value", m.value_id, visit);
                in_type(&m.value, path, visit);
                path.truncate(before);
            }
        }
    }
    fn in_struct(fields: &[Field], path: &mut String, visit: &mut impl FnMut(FieldId, &str)) {
        for field in fields {
            let before = member(path, &field.name, field.id, visit);
            in_type(&field.field_type, path, visit);
            path.truncate(before);
        }
    }
    in_struct(fields, &mut String::new(), visit);
}

/// How many members (fields, list elements, map keys and values) `fields` hold, nested ones
/// included: the size of a schema as written.
pub fn member_count(fields: &[Field]) -> usize {
    fn in_type(t: &Type) -> usize {
        match t {
            Type::Primitive(_) => 0,
            Type::Struct(s) => member_count(&s.fields),
            Type::List(l) => 1 + in_type(&l.element),
            Type::Map(m) => 2 + in_type(&m.key) + in_type(&m.value),
        }
    }
    fields.iter().map(|f| 1 + in_type(&f.field_type)).sum()
}

/// The highest field id among `fields` and everything nested in them, without building a walk.
pub fn highest_id(fields: &[Field]) -> FieldId {
    fn in_type(t: &Type) -> FieldId {
        match t {
            Type::Primitive(_) => 0,
            Type::Struct(s) => highest_id(&s.fields),
            Type::List(l) => l.element_id.max(in_type(&l.element)),
            Type::Map(m) => m
                .key_id
                .max(m.value_id)
                .max(in_type(&m.key))
                .max(in_type(&m.value)),
        }
    }
    fields
        .iter()
        .map(|f| f.id.max(in_type(&f.field_type)))
        .max()
        .unwrap_or(0)
}

/// One member's full information, found by id without walking (and cloning) the whole schema:
/// only the path to it is followed and only the found member is materialised.
pub fn member_by_id(fields: &[Field], id: FieldId) -> Option<FieldInfo> {
    fn in_struct(
        fields: &[Field],
        prefix: &str,
        parent: Option<FieldId>,
        id: FieldId,
    ) -> Option<FieldInfo> {
        for (position, field) in fields.iter().enumerate() {
            if field.id == id {
                return Some(FieldInfo::of_field(field, prefix, parent, position));
            }
            // A primitive holds no members: its path is not built.
            if matches!(field.field_type, Type::Primitive(_)) {
                continue;
            }
            if let Some(found) =
                in_type(&field.field_type, &join(prefix, &field.name), field.id, id)
            {
                return Some(found);
            }
        }
        None
    }
    fn in_type(t: &Type, path: &str, owner: FieldId, id: FieldId) -> Option<FieldInfo> {
        let member = |member_id, name: &str, required, ty: &Type, kind| {
            FieldInfo::of_member(member_id, name, required, ty, owner, path, kind)
        };
        match t {
            Type::Primitive(_) => None,
            Type::Struct(s) => in_struct(&s.fields, path, Some(owner), id),
            Type::List(l) if l.element_id == id => Some(member(
                id,
                "element",
                l.element_required,
                &l.element,
                MemberKind::ListElement,
            )),
            Type::List(l) => in_type(&l.element, &join(path, "element"), l.element_id, id),
            Type::Map(m) if m.key_id == id => {
                Some(member(id, "key", true, &m.key, MemberKind::MapKey))
            }
            Type::Map(m) if m.value_id == id => Some(member(
                id,
                "value",
                m.value_required,
                &m.value,
                MemberKind::MapValue,
            )),
            Type::Map(m) => in_type(&m.key, &join(path, "key"), m.key_id, id)
                .or_else(|| in_type(&m.value, &join(path, "value"), m.value_id, id)),
        }
    }
    in_struct(fields, "", None, id)
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

fn walk_struct(fields: &[Field], prefix: &str, parent: Option<FieldId>, out: &mut Vec<FieldInfo>) {
    for (position, field) in fields.iter().enumerate() {
        let info = FieldInfo::of_field(field, prefix, parent, position);
        let path = info.path.clone();
        out.push(info);
        walk_type(&field.field_type, &path, field.id, out);
    }
}

fn walk_type(field_type: &Type, path: &str, owner: FieldId, out: &mut Vec<FieldInfo>) {
    let mut member = |id, name: &str, required, ty: &Type, kind| {
        let info = FieldInfo::of_member(id, name, required, ty, owner, path, kind);
        let member_path = info.path.clone();
        out.push(info);
        member_path
    };
    match field_type {
        Type::Primitive(_) => {}
        Type::Struct(s) => walk_struct(&s.fields, path, Some(owner), out),
        Type::List(l) => {
            let p = member(
                l.element_id,
                "element",
                l.element_required,
                &l.element,
                MemberKind::ListElement,
            );
            walk_type(&l.element, &p, l.element_id, out);
        }
        Type::Map(m) => {
            let k = member(m.key_id, "key", true, &m.key, MemberKind::MapKey);
            let v = member(
                m.value_id,
                "value",
                m.value_required,
                &m.value,
                MemberKind::MapValue,
            );
            walk_type(&m.key, &k, m.key_id, out);
            walk_type(&m.value, &v, m.value_id, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iceberg::types::{ListType, MapType, PrimitiveType as P};

    fn prim(p: P) -> Type {
        Type::Primitive(p)
    }

    pub(crate) fn sample() -> Schema {
        Schema {
            schema_id: 0,
            identifier_field_ids: vec![1],
            fields: vec![
                Field::new(1, "id", true, prim(P::Long)),
                Field::new(
                    2,
                    "points",
                    false,
                    Type::List(ListType {
                        element_id: 3,
                        element_required: true,
                        element: Box::new(Type::Struct(StructType {
                            fields: vec![Field::new(4, "x", false, prim(P::Double))],
                        })),
                    }),
                ),
                Field::new(
                    5,
                    "attrs",
                    false,
                    Type::Map(MapType {
                        key_id: 6,
                        key: Box::new(prim(P::String)),
                        value_id: 7,
                        value_required: false,
                        value: Box::new(Type::Struct(StructType {
                            fields: vec![Field::new(8, "b", false, prim(P::Int))],
                        })),
                    }),
                ),
            ],
        }
    }

    #[test]
    fn paths_name_list_and_map_members_as_iceberg_does() {
        let paths: Vec<_> = sample()
            .walk()
            .into_iter()
            .map(|f| (f.id, f.path))
            .collect();
        let expected = [
            (1, "id"),
            (2, "points"),
            (3, "points.element"),
            (4, "points.element.x"),
            (5, "attrs"),
            (6, "attrs.key"),
            (7, "attrs.value"),
            (8, "attrs.value.b"),
        ];
        let expected: Vec<_> = expected.iter().map(|(i, p)| (*i, p.to_string())).collect();
        assert_eq!(paths, expected);
    }

    #[test]
    fn lookups_by_id_and_path_agree() {
        let s = sample();
        assert_eq!(s.highest_field_id(), 8);
        assert_eq!(s.field_by_path("attrs.value.b").map(|f| f.id), Some(8));
        assert_eq!(
            s.field_by_id(4).map(|f| f.path),
            Some("points.element.x".to_string())
        );
        assert_eq!(s.index_by_id().len(), 8);
    }

    #[test]
    fn visited_paths_are_the_walk_s() {
        let s = sample();
        let mut visited = Vec::new();
        visit_paths(&s.fields, &mut |id, path| {
            visited.push((id, path.to_string()))
        });
        let walked: Vec<_> = s.walk().into_iter().map(|f| (f.id, f.path)).collect();
        assert_eq!(visited, walked);
    }
}
