//! The walk of the file's structs against the table's: each field paired (by id, or by name in
//! a type string), then added, moved or compared, type by type down to the primitives.

use super::{Container, Differ, Partner, Rename, dotted, with};
use crate::change::{ChangeKind, FieldPath, NewField, Position, ProblemKind, Span};
use crate::frontend::schema_file::{FileField, FileList, FileMap, FileType};
use crate::iceberg::pair::Member;
use crate::iceberg::pair::longest_increasing;
use crate::iceberg::schema::{Field, MemberKind};
use crate::iceberg::types::{FieldId, ListType, MapType, StructType, Type};

impl<'a> Differ<'a> {
    fn pair(&mut self, container: Container, field: &FileField, path: &[String]) -> Partner<'a> {
        if let Some(id) = field.id {
            if let Some(&info) = self.members.get(id)
                && info.kind == MemberKind::StructField
                && container.holds(info.parent_id)
                && !self.claimed.contains(&id)
            {
                return Partner::Existing(info);
            }
            return if self.misplaced_id(id, field.id_span, path, "id") {
                Partner::New
            } else {
                Partner::Skip
            };
        }
        // A type string has no place for ids: its fields pair by name.
        if field.in_type_string
            && let Some(&&info) = self
                .members
                .children(container.id())
                .iter()
                .find(|info| info.name == field.name && !self.claimed.contains(&info.id))
        {
            return Partner::Existing(info);
        }
        Partner::New
    }

    /// One struct of the file: pair its fields, then in file order add the new ones, move the
    /// ones out of order, and compare (and descend into) the paired ones.
    pub(super) fn walk_struct(
        &mut self,
        container: Container,
        fields: &[FileField],
        prefix: &[String],
    ) {
        let outer = self.entry;
        let pairings = self.pair_fields(container, fields, prefix);
        let positions: Vec<Option<usize>> = pairings
            .iter()
            .map(|p| match p {
                Partner::Existing(info) => Some(info.position),
                _ => None,
            })
            .collect();
        let in_place = longest_increasing(&positions);
        let mut previous: Option<&str> = None;
        for (i, (field, pairing)) in fields.iter().zip(&pairings).enumerate() {
            self.entry = field.span;
            let path = with(prefix, &field.name);
            let position = || match previous {
                Some(name) => Position::After(name.to_string()),
                None => Position::First,
            };
            match pairing {
                Partner::Skip => continue,
                Partner::New => {
                    // Appending keeps the order when nothing the table has comes after it.
                    let existing_after = pairings[i + 1..]
                        .iter()
                        .any(|p| matches!(p, Partner::Existing(_)));
                    let at = existing_after.then(position);
                    self.add_field(container, field, prefix, &path, at);
                }
                Partner::Existing(info) => {
                    self.final_ids.insert(dotted(&path), Some(info.id));
                    if !in_place[i] {
                        let kind = ChangeKind::Move {
                            path: FieldPath(path.clone()),
                            position: position(),
                        };
                        let change = self.change(kind, field.name_span);
                        self.layout.push(change);
                    }
                    self.compare_field(field, info, &path);
                }
            }
            previous = Some(&field.name);
        }
        self.entry = outer;
    }

    /// Each field of a struct of the file paired with the table's, and the pairs recorded.
    fn pair_fields(
        &mut self,
        container: Container,
        fields: &[FileField],
        prefix: &[String],
    ) -> Vec<Partner<'a>> {
        let pairings: Vec<Partner> = fields
            .iter()
            .map(|f| {
                self.entry = f.span;
                self.pair(container, f, &with(prefix, &f.name))
            })
            .collect();
        for (field, pairing) in fields.iter().zip(&pairings) {
            if let Partner::Existing(info) = pairing {
                self.entry = field.span;
                self.record(info.id, &with(prefix, &field.name), field.name_span);
            }
        }
        pairings
    }

    /// A field of the file that the table does not have, added at `position` (else appended).
    fn add_field(
        &mut self,
        container: Container,
        field: &FileField,
        prefix: &[String],
        path: &[String],
        position: Option<Position>,
    ) {
        self.final_ids.insert(dotted(path), None);
        let kind = ChangeKind::AddField {
            parent: FieldPath(prefix.to_vec()),
            field: NewField {
                name: field.name.clone(),
                field_type: placeholder_type(&field.field_type),
                required: field.required,
                doc: field.doc.clone(),
            },
            position,
        };
        let change = self.change(kind, field.name_span);
        self.layout.push(change);
        if field.id.is_none_or(|id| id > self.base.last_column_id) {
            self.added
                .push((container.id(), field.name.clone(), dotted(path), field.id));
        }
        self.check_new_ids(&field.field_type, path);
    }

    fn compare_field(&mut self, field: &FileField, info: &Member<'a>, path: &[String]) {
        if field.name != info.name {
            let origin = self.origin(field.name_span);
            self.renames.push(Rename {
                container: info.parent_id,
                old: info.name.to_string(),
                new: field.name.clone(),
                origin,
            });
        }
        if field.required != info.required {
            let kind = ChangeKind::SetRequired {
                path: FieldPath(path.to_vec()),
                required: field.required,
            };
            let change = self.change(kind, field.required_span.unwrap_or(field.name_span));
            self.updates.push(change);
        }
        if field.doc.as_deref() != info.doc() {
            let kind = ChangeKind::UpdateDoc {
                path: FieldPath(path.to_vec()),
                doc: field.doc.clone(),
            };
            let change = self.change(kind, field.doc_span.unwrap_or(field.name_span));
            self.updates.push(change);
        }
        self.compare_type(
            &field.field_type,
            info.field_type,
            info.id,
            path,
            field.type_span,
        );
    }

    /// Compares a type of the file with the table's type of member `owner` at `path`.
    fn compare_type(
        &mut self,
        file: &FileType,
        table: &Type,
        owner: FieldId,
        path: &[String],
        span: Span,
    ) {
        match (file, table) {
            (FileType::Primitive(new), Type::Primitive(old)) => {
                if new != old {
                    let kind = ChangeKind::UpdateType {
                        path: FieldPath(path.to_vec()),
                        new_type: new.clone(),
                    };
                    let change = self.change(kind, span);
                    self.updates.push(change);
                }
            }
            (FileType::Struct(fields), Type::Struct(_)) => {
                self.walk_struct(Container::Id(owner), fields, path);
            }
            (FileType::List(list), Type::List(old)) => self.compare_list(list, old, path),
            (FileType::Map(map), Type::Map(old)) => self.compare_map(map, old, path),
            _ => self.kind_change(file, table, owner, path, span),
        }
    }

    fn compare_list(&mut self, list: &FileList, old: &ListType, path: &[String]) {
        let element = with(path, "element");
        if !self.same_member(
            list.element_id,
            list.element_id_span,
            old.element_id,
            &element,
        ) {
            return;
        }
        self.record(old.element_id, &element, list.element_span);
        if list.element_required != old.element_required {
            self.set_required(&element, list.element_required, list.element_span);
        }
        self.compare_type(
            &list.element,
            &old.element,
            old.element_id,
            &element,
            list.element_span,
        );
    }

    fn compare_map(&mut self, map: &FileMap, old: &MapType, path: &[String]) {
        let key = with(path, "key");
        let value = with(path, "value");
        let key_same = self.same_member(map.key_id, map.key_id_span, old.key_id, &key);
        let value_same = self.same_member(map.value_id, map.value_id_span, old.value_id, &value);
        if key_same {
            self.record(old.key_id, &key, map.key_span);
            self.compare_type(&map.key, &old.key, old.key_id, &key, map.key_span);
        }
        if value_same {
            self.record(old.value_id, &value, map.value_span);
            if map.value_required != old.value_required {
                self.set_required(&value, map.value_required, map.value_span);
            }
            self.compare_type(&map.value, &old.value, old.value_id, &value, map.value_span);
        }
    }

    /// A struct, list or map that the file makes another kind of type.
    fn kind_change(
        &mut self,
        file: &FileType,
        table: &Type,
        owner: FieldId,
        path: &[String],
        span: Span,
    ) {
        self.claim_subtree(owner);
        let dotted_path = dotted(path);
        let new = placeholder_type(file);
        self.problem(
            ProblemKind::InvalidChange,
            span,
            &dotted_path,
            Some(owner),
            format!(
                "Cannot change the type of `{dotted_path}` (field id {owner}) from {table} to {new}: only primitive types can change, and a struct, list or map keeps its kind"
            ),
            "add a new column with the new type (leave its id out) and backfill it, then drop the old one",
        );
    }

    /// Whether a list element or map key/value id written in the file is the table's (or is
    /// not written, and so is the table's by position). A different id would replace the
    /// member, which Iceberg cannot do.
    fn same_member(
        &mut self,
        written: Option<FieldId>,
        span: Span,
        table: FieldId,
        path: &[String],
    ) -> bool {
        match written {
            Some(id) if id != table => {
                self.claim_subtree(table);
                let dotted_path = dotted(path);
                let what = path.last().map_or("member", String::as_str);
                self.problem(
                    ProblemKind::NestedStructure,
                    span,
                    &dotted_path,
                    Some(table),
                    format!(
                        "`{dotted_path}` has id {table} in the table, but the file gives it {id}: a list's element and a map's key and value cannot be replaced"
                    ),
                    &format!(
                        "write `{what}-id: {table}` (or leave it out), or add a new column with the new shape and backfill it"
                    ),
                );
                false
            }
            _ => true,
        }
    }

    fn set_required(&mut self, path: &[String], required: bool, focus: Span) {
        let kind = ChangeKind::SetRequired {
            path: FieldPath(path.to_vec()),
            required,
        };
        let change = self.change(kind, focus);
        self.updates.push(change);
    }
}

/// A file type as a model type whose ids are placeholders, for a field `evolve` will add.
pub(super) fn placeholder_type(ty: &FileType) -> Type {
    match ty {
        FileType::Primitive(p) => Type::Primitive(p.clone()),
        FileType::Struct(fields) => Type::Struct(StructType {
            fields: fields
                .iter()
                .map(|f| Field {
                    doc: f.doc.clone(),
                    ..Field::new(
                        0,
                        f.name.clone(),
                        f.required,
                        placeholder_type(&f.field_type),
                    )
                })
                .collect(),
        }),
        FileType::List(list) => Type::List(ListType {
            element_id: 0,
            element_required: list.element_required,
            element: Box::new(placeholder_type(&list.element)),
        }),
        FileType::Map(map) => Type::Map(MapType {
            key_id: 0,
            key: Box::new(placeholder_type(&map.key)),
            value_id: 0,
            value_required: map.value_required,
            value: Box::new(placeholder_type(&map.value)),
        }),
    }
}
