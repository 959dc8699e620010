//! Fields of two schemas paired by id: the one place that says which fields a change kept,
//! dropped or added, for every diff, rule and drift check.
//!
//! [`Members`] indexes one side once: every struct field, list element and map key and value in
//! the order [`Schema::walk`] lists them, borrowed from the schema (a path is built only when
//! asked for), each with its parent and position. [`Pairing`] puts two sides together; every
//! query is linear in the members it lists and comes out in a fixed order, so reports do not
//! depend on hashing.

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::iceberg::schema::{Field, FieldInfo, MemberKind, Schema};
use crate::iceberg::types::{FieldId, Type};

/// One member of a schema, borrowed from it.
#[derive(Debug, Clone, Copy)]
pub struct Member<'s> {
    pub id: FieldId,
    /// The field's name, or `element`, `key`, `value`.
    pub name: &'s str,
    pub required: bool,
    pub field_type: &'s Type,
    pub kind: MemberKind,
    /// The struct field itself; `None` for a list element or a map key or value.
    pub field: Option<&'s Field>,
    pub parent_id: Option<FieldId>,
    /// The position among its struct siblings (0 for list and map members).
    pub position: usize,
    /// The parent's index in [`Members`]: always lower than the member's own.
    parent: Option<usize>,
    /// One past the last index of this member's descendants.
    end: usize,
}

impl<'s> Member<'s> {
    pub fn doc(&self) -> Option<&'s str> {
        self.field.and_then(|f| f.doc.as_deref())
    }

    pub fn initial_default(&self) -> Option<&'s Value> {
        self.field.and_then(|f| f.initial_default.as_ref())
    }

    pub fn write_default(&self) -> Option<&'s Value> {
        self.field.and_then(|f| f.write_default.as_ref())
    }

    pub fn is_struct_field(&self) -> bool {
        self.kind == MemberKind::StructField
    }
}

/// One side's members, indexed once by id (when first looked up: a side that is only walked,
/// as each old schema against the current one, never builds the index).
#[derive(Debug, Clone, Default)]
pub struct Members<'s> {
    list: Vec<Member<'s>>,
    by_id: OnceCell<HashMap<FieldId, usize>>,
}

impl<'s> Members<'s> {
    pub fn of(schema: &'s Schema) -> Members<'s> {
        Members::of_fields(&schema.fields)
    }

    /// The members of `fields`, as a struct at the top of a schema. An id listed twice (which
    /// no valid schema has) is found at its first place.
    pub fn of_fields(fields: &'s [Field]) -> Members<'s> {
        let mut members = Members::default();
        members.walk_struct(fields, None);
        members
    }

    fn index(&self) -> &HashMap<FieldId, usize> {
        self.by_id.get_or_init(|| {
            let mut by_id = HashMap::with_capacity(self.list.len());
            for (index, member) in self.list.iter().enumerate() {
                by_id.entry(member.id).or_insert(index);
            }
            by_id
        })
    }

    fn push(&mut self, member: Member<'s>) -> usize {
        self.list.push(member);
        self.list.len() - 1
    }

    fn walk_struct(&mut self, fields: &'s [Field], parent: Option<usize>) {
        let parent_id = parent.map(|p| self.list[p].id);
        for (position, field) in fields.iter().enumerate() {
            let at = self.push(Member {
                id: field.id,
                name: &field.name,
                required: field.required,
                field_type: &field.field_type,
                kind: MemberKind::StructField,
                field: Some(field),
                parent_id,
                position,
                parent,
                end: 0,
            });
            self.walk_type(&field.field_type, at);
            self.list[at].end = self.list.len();
        }
    }

    /// The members inside `owner`'s type, as `Schema::walk` lists them: a map's key and value
    /// come before what is inside either.
    fn walk_type(&mut self, field_type: &'s Type, owner: usize) {
        let member = |id, name, required, field_type, kind| Member {
            id,
            name,
            required,
            field_type,
            kind,
            field: None,
            parent_id: Some(self.list[owner].id),
            position: 0,
            parent: Some(owner),
            end: 0,
        };
        match field_type {
            Type::Primitive(_) => {}
            Type::Struct(s) => self.walk_struct(&s.fields, Some(owner)),
            Type::List(l) => {
                let element = member(
                    l.element_id,
                    "element",
                    l.element_required,
                    &*l.element,
                    MemberKind::ListElement,
                );
                let at = self.push(element);
                self.walk_type(&l.element, at);
                self.list[at].end = self.list.len();
            }
            Type::Map(m) => {
                let key = member(m.key_id, "key", true, &*m.key, MemberKind::MapKey);
                let value = member(
                    m.value_id,
                    "value",
                    m.value_required,
                    &*m.value,
                    MemberKind::MapValue,
                );
                let key_at = self.push(key);
                let value_at = self.push(value);
                self.walk_type(&m.key, key_at);
                self.list[key_at].end = self.list.len();
                self.walk_type(&m.value, value_at);
                self.list[value_at].end = self.list.len();
            }
        }
    }

    /// Every member, in the order `Schema::walk` lists them.
    pub fn iter(&self) -> std::slice::Iter<'_, Member<'s>> {
        self.list.iter()
    }

    pub fn get(&self, id: FieldId) -> Option<&Member<'s>> {
        self.index().get(&id).map(|&i| &self.list[i])
    }

    pub fn contains(&self, id: FieldId) -> bool {
        self.index().contains_key(&id)
    }

    /// The names from the top down to `member` (names may hold dots, so these are not split
    /// from the path).
    pub fn segments(&self, member: &Member<'s>) -> Vec<&'s str> {
        let mut segments = vec![member.name];
        let mut parent = member.parent;
        while let Some(p) = parent {
            segments.push(self.list[p].name);
            parent = self.list[p].parent;
        }
        segments.reverse();
        segments
    }

    /// The dotted path, as Iceberg names it (`points.element.z`).
    pub fn path(&self, member: &Member<'s>) -> String {
        self.segments(member).join(".")
    }

    /// The member as `Schema::walk` describes it.
    pub fn info(&self, member: &Member<'s>) -> FieldInfo {
        FieldInfo {
            id: member.id,
            path: self.path(member),
            name: member.name.to_string(),
            required: member.required,
            field_type: member.field_type.clone(),
            doc: member.doc().map(str::to_string),
            initial_default: member.initial_default().cloned(),
            write_default: member.write_default().cloned(),
            parent_id: member.parent_id,
            position: member.position,
            kind: member.kind,
        }
    }

    /// `id` and every member inside it, in walk order; nothing when `id` is not here.
    pub fn subtree(&self, id: FieldId) -> Vec<&Member<'s>> {
        let Some(&top) = self.index().get(&id) else {
            return Vec::new();
        };
        let inside = |mut index: usize| loop {
            if index == top {
                return true;
            }
            match self.list[index].parent {
                Some(p) if p >= top => index = p,
                _ => return false,
            }
        };
        (top..self.list[top].end)
            .filter(|&i| inside(i))
            .map(|i| &self.list[i])
            .collect()
    }

    /// Whether `id` is `ancestor` or inside it.
    pub fn within(&self, id: FieldId, ancestor: FieldId) -> bool {
        if id == ancestor {
            return true;
        }
        let (Some(&at), Some(&top)) = (self.index().get(&id), self.index().get(&ancestor)) else {
            return false;
        };
        let mut parent = self.list[at].parent;
        while let Some(p) = parent {
            if p == top {
                return true;
            }
            parent = self.list[p].parent;
        }
        false
    }

    /// The struct fields directly in `container` (the top level for `None`), in order.
    pub fn children(&self, container: Option<FieldId>) -> Vec<&Member<'s>> {
        let range = match container {
            None => 0..self.list.len(),
            Some(id) => match self.index().get(&id) {
                Some(&at) => at + 1..self.list[at].end,
                None => 0..0,
            },
        };
        let parent = container.and_then(|id| self.index().get(&id).copied());
        self.list[range]
            .iter()
            .filter(|m| m.is_struct_field() && m.parent == parent)
            .collect()
    }
}

/// One struct of the after side with its fields in order: each with its place in the same
/// struct before, and whether it kept its place relative to the others.
#[derive(Debug)]
pub struct StructOrder<'p, 's> {
    /// The struct's owner (the struct field, list element or map value), `None` at the top.
    pub container: Option<FieldId>,
    pub fields: Vec<&'p Member<'s>>,
    /// Each field's position before, when it was a field of this same struct.
    pub before: Vec<Option<usize>>,
    /// Whether each field is in the longest run that kept its relative order: the others moved.
    pub in_place: Vec<bool>,
}

/// The fields of two schemas paired by id.
#[derive(Debug, Clone, Copy)]
pub struct Pairing<'p, 's> {
    pub before: &'p Members<'s>,
    pub after: &'p Members<'s>,
}

impl<'p, 's> Pairing<'p, 's> {
    pub fn of(before: &'p Members<'s>, after: &'p Members<'s>) -> Pairing<'p, 's> {
        Pairing { before, after }
    }

    /// Every member before, with the member of the same id after if there is one, in the
    /// before side's order.
    pub fn by_before(
        &self,
    ) -> impl Iterator<Item = (&'p Member<'s>, Option<&'p Member<'s>>)> + use<'p, 's> {
        let after = self.after;
        self.before.iter().map(move |old| (old, after.get(old.id)))
    }

    /// Every member after, with the member of the same id before if there is one, in the after
    /// side's order.
    pub fn by_after(
        &self,
    ) -> impl Iterator<Item = (&'p Member<'s>, Option<&'p Member<'s>>)> + use<'p, 's> {
        let before = self.before;
        self.after.iter().map(move |new| (new, before.get(new.id)))
    }

    /// Members both sides hold, (before, after), in the after side's order.
    pub fn kept(&self) -> impl Iterator<Item = (&'p Member<'s>, &'p Member<'s>)> + use<'p, 's> {
        self.by_after()
            .filter_map(|(new, old)| old.map(|old| (old, new)))
    }

    /// Members only the before side holds, in its order.
    pub fn dropped(&self) -> impl Iterator<Item = &'p Member<'s>> + use<'p, 's> {
        self.by_before()
            .filter_map(|(old, new)| new.is_none().then_some(old))
    }

    /// Members only the after side holds, in its order.
    pub fn added(&self) -> impl Iterator<Item = &'p Member<'s>> + use<'p, 's> {
        self.by_after()
            .filter_map(|(new, old)| old.is_none().then_some(new))
    }

    /// The after side's structs that have struct fields, in the order their first field comes.
    pub fn structs(&self) -> Vec<StructOrder<'p, 's>> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for member in self.after.iter().filter(|m| m.is_struct_field()) {
            if !seen.insert(member.parent_id) {
                continue;
            }
            let container = member.parent_id;
            let fields = self.after.children(container);
            let before: Vec<Option<usize>> = fields
                .iter()
                .map(|f| {
                    self.before
                        .get(f.id)
                        .filter(|old| old.parent_id == container && old.kind == f.kind)
                        .map(|old| old.position)
                })
                .collect();
            let in_place = longest_increasing(&before);
            out.push(StructOrder {
                container,
                fields,
                before,
                in_place,
            });
        }
        out
    }
}

/// For each entry that has a position (its index among its siblings before the change), whether
/// it belongs to one longest strictly increasing run of positions: those fields are in order
/// already and stay where they are; the others are the fewest that move. Every diff derives
/// moves this way, so a reorder reads the same from a schema file and from metadata.
pub fn longest_increasing(positions: &[Option<usize>]) -> Vec<bool> {
    let items: Vec<(usize, usize)> = positions
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|p| (i, p)))
        .collect();
    // Patience sorting: `tops[k]` is the latest item ending an increasing run of length k + 1,
    // which is also the one with the smallest position among those runs. Linking each item to
    // the top of the pile below it when it is placed therefore picks, among runs of one length,
    // the one whose fields come latest, so a field moved to the front reads as that move
    // (`y FIRST`), as a migration would write it, rather than as everything else moving after it.
    let mut tops: Vec<usize> = Vec::new();
    let mut previous: Vec<Option<usize>> = vec![None; items.len()];
    for (j, &(_, position)) in items.iter().enumerate() {
        let pile = tops.partition_point(|&top| items[top].1 < position);
        previous[j] = pile.checked_sub(1).map(|below| tops[below]);
        if pile == tops.len() {
            tops.push(j);
        } else {
            tops[pile] = j;
        }
    }
    let mut keep = vec![false; positions.len()];
    let mut at = tops.last().copied();
    while let Some(j) = at {
        keep[items[j].0] = true;
        at = previous[j];
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iceberg::codec::schema_from_json;
    use proptest::prelude::*;

    fn schema(fields: &str) -> Schema {
        let text = format!(r#"{{"type":"struct","schema-id":0,"fields":{fields}}}"#);
        let root = crate::json::parse(&text).unwrap();
        schema_from_json(&root, 0).unwrap()
    }

    /// A struct, a list of structs and a map whose key and value are structs: every kind of
    /// member, nested.
    fn nested() -> Schema {
        schema(
            r#"[{"id":1,"name":"id","required":true,"type":"long","doc":"the key","initial-default":7,"write-default":7},
            {"id":2,"name":"point","required":false,"type":{"type":"struct","fields":[{"id":3,"name":"x","required":true,"type":"double"},{"id":4,"name":"y","required":false,"type":"double"}]}},
            {"id":5,"name":"tags","required":false,"type":{"type":"list","element-id":6,"element-required":true,"element":{"type":"struct","fields":[{"id":7,"name":"k","required":false,"type":"string"}]}}},
            {"id":8,"name":"attrs","required":false,"type":{"type":"map","key-id":9,"key":{"type":"struct","fields":[{"id":11,"name":"a","required":true,"type":"int"}]},"value-id":10,"value-required":false,"value":{"type":"struct","fields":[{"id":12,"name":"b","required":false,"type":"int"},{"id":13,"name":"c","required":false,"type":"int"}]}}}]"#,
        )
    }

    fn ids<'a>(members: impl IntoIterator<Item = &'a Member<'a>>) -> Vec<FieldId> {
        members.into_iter().map(|m| m.id).collect()
    }

    #[test]
    fn members_describe_a_schema_as_its_walk_does() {
        let schema = nested();
        let members = Members::of(&schema);
        let infos: Vec<FieldInfo> = members.iter().map(|m| members.info(m)).collect();
        assert_eq!(infos, schema.walk());
        assert_eq!(members.iter().count(), 13);
        let b = members.get(12).unwrap();
        assert_eq!(members.path(b), "attrs.value.b");
        assert_eq!(members.segments(b), ["attrs", "value", "b"]);
        assert_eq!(b.parent_id, Some(10));
        assert_eq!(members.get(1).and_then(|m| m.doc()), Some("the key"));
        assert!(members.get(99).is_none() && !members.contains(99));
    }

    #[test]
    fn a_subtree_holds_only_what_is_inside_even_across_a_map() {
        let schema = nested();
        let members = Members::of(&schema);
        // The walk lists a map's key and value before what is inside either.
        assert_eq!(ids(members.subtree(9)), [9, 11]);
        assert_eq!(ids(members.subtree(10)), [10, 12, 13]);
        assert_eq!(ids(members.subtree(8)), [8, 9, 10, 11, 12, 13]);
        assert_eq!(ids(members.subtree(3)), [3]);
        assert!(members.within(11, 8) && members.within(11, 9) && members.within(8, 8));
        assert!(!members.within(11, 10) && !members.within(8, 11) && !members.within(99, 8));
        assert!(members.subtree(99).is_empty());
        assert_eq!(ids(members.children(None)), [1, 2, 5, 8]);
        assert_eq!(ids(members.children(Some(6))), [7]);
        assert_eq!(ids(members.children(Some(10))), [12, 13]);
        assert!(members.children(Some(1)).is_empty());
        assert!(members.children(Some(99)).is_empty());
    }

    #[test]
    fn an_id_listed_twice_is_found_at_its_first_place() {
        let schema = schema(
            r#"[{"id":1,"name":"a","required":false,"type":{"type":"struct","fields":[{"id":1,"name":"b","required":false,"type":"int"}]}}]"#,
        );
        let members = Members::of(&schema);
        assert_eq!(members.get(1).map(|m| m.name), Some("a"));
        assert_eq!(members.path(&members.iter().as_slice()[1]), "a.b");
        assert_eq!(ids(members.subtree(1)), [1, 1]);
    }

    #[test]
    fn pairing_tells_kept_dropped_and_added_in_a_fixed_order() {
        let before = nested();
        // `id` dropped, `y` moved into `tags`' element, `z` added, `point` reordered, `note`
        // added at the top, the map value's fields swapped.
        let after = schema(
            r#"[{"id":20,"name":"note","required":false,"type":"string"},
            {"id":2,"name":"point","required":false,"type":{"type":"struct","fields":[{"id":21,"name":"z","required":false,"type":"double"},{"id":3,"name":"x","required":true,"type":"double"}]}},
            {"id":5,"name":"tags","required":false,"type":{"type":"list","element-id":6,"element-required":true,"element":{"type":"struct","fields":[{"id":7,"name":"k","required":false,"type":"string"},{"id":4,"name":"y","required":false,"type":"double"}]}}},
            {"id":8,"name":"attrs","required":false,"type":{"type":"map","key-id":9,"key":{"type":"struct","fields":[{"id":11,"name":"a","required":true,"type":"int"}]},"value-id":10,"value-required":false,"value":{"type":"struct","fields":[{"id":13,"name":"c","required":false,"type":"int"},{"id":12,"name":"b","required":false,"type":"int"}]}}}]"#,
        );
        let (old, new) = (Members::of(&before), Members::of(&after));
        let pairing = Pairing::of(&old, &new);
        assert_eq!(ids(pairing.dropped()), [1]);
        assert_eq!(ids(pairing.added()), [20, 21]);
        let kept: Vec<FieldId> = pairing.kept().map(|(_, n)| n.id).collect();
        assert_eq!(kept, [2, 3, 5, 6, 7, 4, 8, 9, 10, 11, 13, 12]);
        let reshaped: Vec<_> = pairing
            .kept()
            .filter(|(o, n)| o.parent_id != n.parent_id)
            .map(|(o, n)| (o.id, o.parent_id, n.parent_id))
            .collect();
        assert_eq!(reshaped, [(4, Some(2), Some(6))]);
        let by_before: Vec<(FieldId, bool)> = pairing
            .by_before()
            .map(|(o, n)| (o.id, n.is_some()))
            .collect();
        assert_eq!(by_before[..3], [(1, false), (2, true), (3, true)]);

        let structs = pairing.structs();
        let containers: Vec<Option<FieldId>> = structs.iter().map(|s| s.container).collect();
        assert_eq!(containers, [None, Some(2), Some(6), Some(9), Some(10)]);
        let top = &structs[0];
        assert_eq!(ids(top.fields.iter().copied()), [20, 2, 5, 8]);
        assert_eq!(top.before, [None, Some(1), Some(2), Some(3)]);
        assert_eq!(top.in_place, [false, true, true, true]);
        // `y` came from another struct: no place before in this one.
        assert_eq!(structs[2].before, [Some(0), None]);
        // `c` and `b` swapped: the later one stays, `c` moved.
        assert_eq!(structs[4].before, [Some(1), Some(0)]);
        assert_eq!(structs[4].in_place, [false, true]);
    }

    #[test]
    fn the_fields_already_in_order_stay() {
        // c a b -> a and b stay, c moves.
        assert_eq!(
            longest_increasing(&[Some(2), Some(0), Some(1)]),
            [false, true, true]
        );
        // New fields (no position) neither stay nor move.
        assert_eq!(
            longest_increasing(&[None, Some(0), None, Some(1)]),
            [false, true, false, true]
        );
        // y x (x was first): y moved to the front, x stays.
        assert_eq!(longest_increasing(&[Some(1), Some(0)]), [false, true]);
        // b a c: b moved to the front; a and c stay.
        assert_eq!(
            longest_increasing(&[Some(1), Some(0), Some(2)]),
            [false, true, true]
        );
        assert!(longest_increasing(&[]).is_empty());
    }

    /// The quadratic search this replaced, kept as the reference for the tie-break.
    fn longest_increasing_quadratic(positions: &[Option<usize>]) -> Vec<bool> {
        let items: Vec<(usize, usize)> = positions
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.map(|p| (i, p)))
            .collect();
        let mut length = vec![1usize; items.len()];
        let mut previous: Vec<Option<usize>> = vec![None; items.len()];
        for j in 0..items.len() {
            for i in 0..j {
                if items[i].1 < items[j].1 && length[i] + 1 >= length[j] {
                    length[j] = length[i] + 1;
                    previous[j] = Some(i);
                }
            }
        }
        let mut keep = vec![false; positions.len()];
        let mut at = (0..items.len()).max_by_key(|&j| (length[j], j));
        while let Some(j) = at {
            keep[items[j].0] = true;
            at = previous[j];
        }
        keep
    }

    proptest! {
        #[test]
        fn patience_sorting_keeps_the_fields_the_quadratic_search_kept(
            positions in proptest::collection::vec(proptest::option::weighted(0.8, 0usize..24), 0..40)
        ) {
            prop_assert_eq!(
                longest_increasing(&positions),
                longest_increasing_quadratic(&positions)
            );
        }

        #[test]
        fn a_permutation_keeps_what_the_quadratic_search_kept(
            positions in (0usize..40).prop_flat_map(|n| Just((0..n).collect::<Vec<_>>()).prop_shuffle())
        ) {
            let positions: Vec<Option<usize>> = positions.into_iter().map(Some).collect();
            prop_assert_eq!(
                longest_increasing(&positions),
                longest_increasing_quadratic(&positions)
            );
        }
    }
}
