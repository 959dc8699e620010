//! One schema update: the working copy of the current schema a statement's column changes are
//! applied to, one change at a time, each checked as Java's `SchemaUpdate` checks it.

use crate::change::{
    Applied, AppliedKind, Assigned, Change, ChangeKind, FieldPath, NewField, Position, Problem,
    ProblemKind,
};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::names::same_name;
use crate::iceberg::schema::{Field, FieldInfo, MemberKind, Schema, member_by_id};
use crate::iceberg::types::{FieldId, MAX_USER_FIELD_ID, PrimitiveType, Type};

use super::ids::{assign_fresh_ids, field_from_new};
use super::members::{Member, join, parent_path};
use super::problems::{invalid, invalid_at, nested};
use super::schemas::SchemaLog;

/// One schema update in progress: a working copy of the current schema.
pub(super) struct Update {
    pub(super) fields: Vec<Field>,
    pub(super) identifiers: Vec<FieldId>,
    pub(super) last_column_id: FieldId,
    pub(super) mapping: Option<crate::iceberg::name_mapping::NameMapping>,
    pub(super) assigned: Vec<Assigned>,
}

pub(super) type Outcome = Result<Applied, Box<Problem>>;

fn record(
    kind: AppliedKind,
    target: &FieldInfo,
    from: Option<String>,
    to: Option<String>,
) -> Applied {
    // `target` was resolved before the change was made: it is the field as it was.
    let mut applied = Applied::new(kind, Some(target.id), target.path.clone(), from, to);
    applied.before = Some(target.clone());
    applied
}

impl Update {
    pub(super) fn new(metadata: &TableMetadata, current: &Schema) -> Update {
        Update {
            fields: current.fields.clone(),
            identifiers: current.identifier_field_ids.clone(),
            last_column_id: metadata.last_column_id,
            mapping: metadata.name_mapping.clone(),
            assigned: Vec::new(),
        }
    }

    pub(super) fn schema(&self) -> Schema {
        Schema {
            schema_id: -1,
            identifier_field_ids: self.identifiers.clone(),
            fields: self.fields.clone(),
        }
    }

    pub(super) fn commit(self, metadata: &mut TableMetadata, log: &mut SchemaLog) {
        let mut schema = Schema {
            schema_id: -1,
            identifier_field_ids: self.identifiers,
            fields: self.fields,
        };
        let fields = &schema.fields;
        schema
            .identifier_field_ids
            .retain(|id| member_by_id(fields, *id).is_some());
        metadata.last_column_id = metadata
            .last_column_id
            .max(self.last_column_id)
            .max(schema.highest_field_id());
        metadata.name_mapping = self.mapping;
        log.commit(metadata, schema);
    }

    pub(super) fn apply(&mut self, change: &Change) -> Outcome {
        self.refuse_map_key_changes(change)?;
        match &change.kind {
            ChangeKind::AddField {
                parent,
                field,
                position,
            } => self.add(change, parent, field, position.as_ref()),
            ChangeKind::Rename { path, new_name } => self.rename(change, path, new_name),
            ChangeKind::UpdateType { path, new_type } => self.update_type(change, path, new_type),
            ChangeKind::SetRequired { path, required } => {
                self.set_required(change, path, *required)
            }
            ChangeKind::UpdateDoc { path, doc } => self.update_doc(change, path, doc),
            ChangeKind::Move { path, position } => self.move_field(change, path, position),
            ChangeKind::Drop { path, if_exists } => self.drop_field(change, path, *if_exists),
            ChangeKind::SetIdentifierFields { paths } => self.set_identifiers(change, paths),
            ChangeKind::DropIdentifierFields { paths } => self.drop_identifiers(change, paths),
            // `evolve` hands table-level kinds (`ChangeKind::is_table_level`) to
            // `table::apply_table_change`.
            _ => Err(invalid_at(
                change,
                "a table change is not a schema change".into(),
            )),
        }
    }

    fn set_required(&mut self, change: &Change, path: &FieldPath, required: bool) -> Outcome {
        let target = self.resolve(change, path)?;
        self.with_member(target.id, |m| match m {
            Member::Field(f) => f.required = required,
            Member::Element(required_flag) | Member::Value(required_flag) => {
                *required_flag = required
            }
        });
        let word = |r: bool| if r { "required" } else { "optional" };
        let kind = if required {
            AppliedKind::SetRequired
        } else {
            AppliedKind::SetOptional
        };
        Ok(record(
            kind,
            &target,
            Some(word(target.required).into()),
            Some(word(required).into()),
        ))
    }

    fn update_doc(&mut self, change: &Change, path: &FieldPath, doc: &Option<String>) -> Outcome {
        let target = self.resolve(change, path)?;
        if target.kind != MemberKind::StructField {
            return Err(invalid(
                change,
                &target,
                format!(
                    "Cannot set a comment on `{}`: only struct fields have docs",
                    target.path
                ),
            ));
        }
        self.with_member(target.id, |m| {
            if let Member::Field(f) = m {
                f.doc = doc.clone();
            }
        });
        Ok(record(
            AppliedKind::UpdateDoc,
            &target,
            target.doc.clone(),
            doc.clone(),
        ))
    }

    fn set_identifiers(&mut self, change: &Change, paths: &[FieldPath]) -> Outcome {
        let mut ids = Vec::new();
        for path in paths {
            let target = self.resolve(change, path)?;
            self.check_identifier(change, &target)?;
            ids.push(target.id);
        }
        let names = paths
            .iter()
            .map(FieldPath::dotted)
            .collect::<Vec<_>>()
            .join(", ");
        self.identifiers = ids;
        Ok(Applied::new(
            AppliedKind::SetIdentifierFields,
            None,
            names.clone(),
            None,
            Some(names),
        ))
    }

    fn drop_identifiers(&mut self, change: &Change, paths: &[FieldPath]) -> Outcome {
        for path in paths {
            let target = self.resolve(change, path)?;
            if !self.identifiers.contains(&target.id) {
                return Err(invalid(
                    change,
                    &target,
                    format!("`{}` is not an identifier field", target.path),
                ));
            }
            self.identifiers.retain(|id| *id != target.id);
        }
        let names = paths
            .iter()
            .map(FieldPath::dotted)
            .collect::<Vec<_>>()
            .join(", ");
        Ok(Applied::new(
            AppliedKind::DropIdentifierFields,
            None,
            names.clone(),
            Some(names),
            None,
        ))
    }

    fn next_id(&mut self, change: &Change) -> Result<FieldId, Box<Problem>> {
        if self.last_column_id >= MAX_USER_FIELD_ID {
            return Err(Box::new(Problem {
                kind: ProblemKind::InvalidChange,
                message: format!(
                    "no field id left: ids above {MAX_USER_FIELD_ID} are reserved for metadata columns"
                ),
                help: None,
                origin: change.origin.clone(),
                field_id: None,
                path: None,
            }));
        }
        self.last_column_id += 1;
        Ok(self.last_column_id)
    }

    fn add(
        &mut self,
        change: &Change,
        parent: &FieldPath,
        new: &NewField,
        position: Option<&Position>,
    ) -> Outcome {
        let (parent_id, parent_path) = self.add_target(change, parent)?;
        let siblings = self.siblings(parent_id);
        let full_path = join(&parent_path, &new.name);
        if let Some(existing) = siblings.iter().find(|f| same_name(&f.name, &new.name)) {
            return Err(Box::new(Problem {
                kind: ProblemKind::DuplicateName { path: full_path.clone(), existing_id: existing.id },
                message: format!("Cannot add column, name already exists: {full_path} (field id {})", existing.id),
                help: Some("choose another name, or drop the existing field first if it is really meant to go".into()),
                origin: change.origin.clone(),
                field_id: Some(existing.id),
                path: Some(full_path),
            }));
        }
        let index = match position {
            None => siblings.len(),
            Some(position) => {
                let others: Vec<&Field> = siblings.iter().collect();
                self.position_index(change, &others, &new.name, position)?
            }
        };
        let mut field = field_from_new(new);
        self.assign_ids(change, &mut field, &full_path)?;
        self.record_assigned(&parent_path, &field);
        if let Some(mapping) = &mut self.mapping {
            mapping.add(parent_id, &field);
        }
        let to = Some(field.field_type.to_string());
        let id = field.id;
        self.with_struct(parent_id, |fields| {
            fields.insert(index.min(fields.len()), field)
        });
        Ok(Applied::new(
            AppliedKind::Add,
            Some(id),
            full_path,
            None,
            to,
        ))
    }

    /// The struct a field is added to and its path: like Java, adding to a list or map means
    /// adding to its element or value struct.
    fn add_target(
        &self,
        change: &Change,
        parent: &FieldPath,
    ) -> Result<(Option<FieldId>, String), Box<Problem>> {
        if parent.0.is_empty() {
            return Ok((None, String::new()));
        }
        let target = self.resolve(change, parent)?;
        let container = self.struct_container(change, &target)?;
        Ok((Some(container.0), container.1))
    }

    /// Fresh ids for an added field and every member inside it, refused when they run out.
    fn assign_ids(
        &mut self,
        change: &Change,
        field: &mut Field,
        full_path: &str,
    ) -> Result<(), Box<Problem>> {
        field.id = self.next_id(change)?;
        let mut overflow = false;
        let mut last = self.last_column_id;
        assign_fresh_ids(&mut field.field_type, &mut || {
            if last >= MAX_USER_FIELD_ID {
                overflow = true;
            }
            last += 1;
            last
        });
        if overflow {
            return Err(invalid_at(
                change,
                format!("no field id left for the members of `{full_path}`"),
            ));
        }
        self.last_column_id = last;
        Ok(())
    }

    /// Records the id given to the added field and to each member inside it.
    fn record_assigned(&mut self, parent_path: &str, field: &Field) {
        let added = Schema {
            schema_id: 0,
            identifier_field_ids: Vec::new(),
            fields: vec![field.clone()],
        };
        for info in added.walk() {
            self.assigned.push(Assigned {
                path: join(parent_path, &info.path),
                field_id: info.id,
            });
        }
    }

    fn rename(&mut self, change: &Change, path: &FieldPath, new_name: &str) -> Outcome {
        let target = self.resolve(change, path)?;
        if target.kind != MemberKind::StructField {
            return Err(invalid(
                change,
                &target,
                format!(
                    "Cannot rename `{}`: list elements and map keys/values have fixed names",
                    target.path
                ),
            ));
        }
        if let Some(existing) = self
            .siblings(target.parent_id)
            .iter()
            .find(|f| same_name(&f.name, new_name) && f.id != target.id)
        {
            let new_path = join(&parent_path(&target.path), new_name);
            return Err(Box::new(Problem {
                kind: ProblemKind::DuplicateName {
                    path: new_path.clone(),
                    existing_id: existing.id,
                },
                message: format!(
                    "Cannot rename `{}` (field id {}) to `{new_name}`: `{new_path}` already exists (field id {})",
                    target.path, target.id, existing.id
                ),
                help: Some("pick a name no sibling uses".into()),
                origin: change.origin.clone(),
                field_id: Some(target.id),
                path: Some(target.path.clone()),
            }));
        }
        self.with_member(target.id, |m| {
            if let Member::Field(f) = m {
                f.name = new_name.to_string();
            }
        });
        if let Some(mapping) = &mut self.mapping {
            mapping.rename(target.id, new_name);
        }
        let new_path = join(&parent_path(&target.path), new_name);
        Ok(record(
            AppliedKind::Rename,
            &target,
            Some(target.path.clone()),
            Some(new_path),
        ))
    }

    fn update_type(
        &mut self,
        change: &Change,
        path: &FieldPath,
        new_type: &PrimitiveType,
    ) -> Outcome {
        let target = self.resolve(change, path)?;
        if target.field_type.is_nested() {
            return Err(invalid(
                change,
                &target,
                format!(
                    "Cannot change the type of `{}` to {new_type}: it is a {}, and only primitive types can change",
                    target.path, target.field_type
                ),
            ));
        }
        let new = Type::Primitive(new_type.clone());
        self.with_member(target.id, |m| match m {
            Member::Field(f) => f.field_type = new,
            Member::Element(_) | Member::Value(_) => {}
        });
        self.set_member_type(target.id, new_type);
        Ok(record(
            AppliedKind::UpdateType,
            &target,
            Some(target.field_type.to_string()),
            Some(new_type.to_string()),
        ))
    }

    fn move_field(&mut self, change: &Change, path: &FieldPath, position: &Position) -> Outcome {
        let target = self.resolve(change, path)?;
        if target.kind != MemberKind::StructField {
            return Err(invalid(
                change,
                &target,
                format!("Cannot move fields in non-struct type: {}", target.path),
            ));
        }
        let siblings: Vec<&Field> = self
            .siblings(target.parent_id)
            .iter()
            .filter(|f| f.id != target.id)
            .collect();
        let index = self.position_index(change, &siblings, &target.name, position)?;
        self.with_struct(target.parent_id, |fields| {
            if let Some(from) = fields.iter().position(|f| f.id == target.id) {
                let field = fields.remove(from);
                fields.insert(index.min(fields.len()), field);
            }
        });
        let to = match position {
            Position::First => "first".to_string(),
            Position::After(r) => format!("after {r}"),
            Position::Before(r) => format!("before {r}"),
        };
        Ok(record(AppliedKind::Move, &target, None, Some(to)))
    }

    fn drop_field(&mut self, change: &Change, path: &FieldPath, if_exists: bool) -> Outcome {
        let target = match self.resolve(change, path) {
            Ok(target) => target,
            Err(_) if if_exists => {
                return Ok(Applied::new(
                    AppliedKind::Drop,
                    None,
                    path.dotted(),
                    None,
                    None,
                ));
            }
            Err(problem) => return Err(problem),
        };
        let refused = match target.kind {
            MemberKind::StructField => None,
            MemberKind::ListElement => Some("Cannot delete element type from list"),
            MemberKind::MapKey => Some("Cannot delete map keys"),
            MemberKind::MapValue => Some("Cannot delete value type from map"),
        };
        if let Some(message) = refused {
            return Err(nested(
                change,
                &target,
                format!("{message}: `{}`", target.path),
            ));
        }
        let inside = format!("{}.", target.path);
        let removed: Vec<FieldId> = self
            .identifiers
            .iter()
            .copied()
            .filter(|id| {
                *id == target.id
                    || member_by_id(&self.fields, *id).is_some_and(|f| f.path.starts_with(&inside))
            })
            .collect();
        self.identifiers.retain(|id| !removed.contains(id));
        self.with_struct(target.parent_id, |fields| {
            fields.retain(|f| f.id != target.id)
        });
        let mut applied = record(
            AppliedKind::Drop,
            &target,
            Some(target.field_type.to_string()),
            None,
        );
        applied.implicit_identifier_drops = removed;
        Ok(applied)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::change::{ChangeKind, Origin, SourceFile, Span};
    use crate::evolve::{Evolution, evolve};
    use crate::iceberg::types::StructType;
    use crate::iceberg::types::{ListType, MapType, PrimitiveType as P};

    fn prim(p: P) -> Type {
        Type::Primitive(p)
    }

    fn st(fields: Vec<Field>) -> Type {
        Type::Struct(StructType { fields })
    }

    fn table(fields: Vec<Field>, last_column_id: FieldId) -> TableMetadata {
        TableMetadata {
            format_version: 2,
            location: "/t".into(),
            last_column_id,
            last_updated_ms: 0,
            current_schema_id: 0,
            schemas: vec![Arc::new(Schema {
                schema_id: 0,
                identifier_field_ids: vec![1],
                fields,
            })],
            partition_specs: Vec::new(),
            default_spec_id: 0,
            last_partition_id: None,
            sort_orders: Vec::new(),
            default_sort_order_id: 0,
            properties: Vec::new(),
            name_mapping: None,
            snapshots: Vec::new(),
            current_snapshot_id: None,
        }
    }

    fn change(kind: ChangeKind) -> Change {
        let source = Arc::new(SourceFile {
            name: "m.sql".into(),
            text: String::new(),
        });
        Change {
            kind,
            origin: Origin {
                source,
                statement: Span::default(),
                focus: Span::default(),
            },
        }
    }

    fn path(p: &str) -> FieldPath {
        FieldPath(if p.is_empty() {
            Vec::new()
        } else {
            p.split('.').map(String::from).collect()
        })
    }

    fn add(parent: &str, name: &str, field_type: Type) -> Change {
        change(ChangeKind::AddField {
            parent: path(parent),
            field: NewField {
                name: name.into(),
                field_type,
                required: false,
                doc: None,
            },
            position: None,
        })
    }

    fn ids(evolution: &Evolution) -> Vec<(String, FieldId)> {
        evolution
            .assigned
            .iter()
            .map(|a| (a.path.clone(), a.field_id))
            .collect()
    }

    fn pairs(expected: &[(&str, FieldId)]) -> Vec<(String, FieldId)> {
        expected.iter().map(|(p, i)| (p.to_string(), *i)).collect()
    }

    fn one(base: &TableMetadata, changes: Vec<Change>) -> Evolution {
        evolve(base, [changes.as_slice()])
    }

    fn id_only() -> TableMetadata {
        table(vec![Field::new(1, "id", true, prim(P::Long))], 1)
    }

    #[test]
    fn a_nested_struct_is_numbered_breadth_first() {
        // Java TestSchemaUpdate.testAddNestedStruct
        let location = st(vec![
            Field::new(0, "lat", false, prim(P::Float)),
            Field::new(0, "long", false, prim(P::Float)),
        ]);
        let e = one(&id_only(), vec![add("", "location", location)]);
        assert_eq!(
            ids(&e),
            pairs(&[("location", 2), ("location.lat", 3), ("location.long", 4)])
        );
        assert_eq!(e.metadata.last_column_id, 4);
        assert_eq!(e.metadata.current_schema_id, 1);
    }

    #[test]
    fn map_key_and_value_ids_come_before_their_subtrees() {
        // Java TestSchemaUpdate.testAddNestedMapOfStructs
        let key = st(["address", "city", "state", "zip"]
            .iter()
            .map(|n| Field::new(0, *n, false, prim(P::String)))
            .collect());
        let value = st(vec![
            Field::new(0, "lat", false, prim(P::Float)),
            Field::new(0, "long", false, prim(P::Float)),
        ]);
        let map = Type::Map(MapType {
            key_id: 0,
            key: Box::new(key),
            value_id: 0,
            value_required: false,
            value: Box::new(value),
        });
        let e = one(&id_only(), vec![add("", "locations", map)]);
        let got: Vec<FieldId> = ids(&e).into_iter().map(|(_, id)| id).collect();
        assert_eq!(got, (2..=10).collect::<Vec<_>>());
        let schema = e.metadata.current_schema();
        assert_eq!(schema.field_by_path("locations.key").map(|f| f.id), Some(3));
        assert_eq!(
            schema.field_by_path("locations.value").map(|f| f.id),
            Some(4)
        );
        assert_eq!(
            schema.field_by_path("locations.value.long").map(|f| f.id),
            Some(10)
        );
    }

    #[test]
    fn struct_siblings_are_numbered_before_grandchildren() {
        let inner = st(vec![
            Field::new(0, "x", false, prim(P::Int)),
            Field::new(0, "y", false, prim(P::Int)),
        ]);
        let s = st(vec![
            Field::new(0, "a", false, inner),
            Field::new(0, "b", false, prim(P::Int)),
        ]);
        let e = one(&id_only(), vec![add("", "s", s)]);
        let schema = e.metadata.current_schema();
        let got: Vec<_> = ["s", "s.a", "s.b", "s.a.x", "s.a.y"]
            .iter()
            .map(|p| schema.field_by_path(p).map(|f| f.id))
            .collect();
        assert_eq!(got, [Some(2), Some(3), Some(4), Some(5), Some(6)]);
    }

    #[test]
    fn adding_into_a_list_reaches_its_element_struct() {
        let element = st(vec![Field::new(4, "x", false, prim(P::Double))]);
        let points = Field::new(
            2,
            "points",
            false,
            Type::List(ListType {
                element_id: 3,
                element_required: false,
                element: Box::new(element),
            }),
        );
        let base = table(vec![Field::new(1, "id", true, prim(P::Long)), points], 4);
        for parent in ["points.element", "points"] {
            let e = one(&base, vec![add(parent, "z", prim(P::Double))]);
            assert!(e.problems.is_empty(), "{parent}: {:?}", e.problems);
            assert_eq!(ids(&e), pairs(&[("points.element.z", 5)]));
        }
    }

    #[test]
    fn a_dropped_name_added_again_gets_a_new_id_and_ids_never_go_down() {
        let base = table(
            vec![
                Field::new(1, "id", true, prim(P::Long)),
                Field::new(2, "status", false, prim(P::String)),
            ],
            2,
        );
        let drop = change(ChangeKind::Drop {
            path: path("status"),
            if_exists: false,
        });
        let e = evolve(
            &base,
            [
                vec![drop].as_slice(),
                vec![add("", "status", prim(P::Int))].as_slice(),
            ],
        );
        assert_eq!(ids(&e), pairs(&[("status", 3)]));
        assert_eq!(e.metadata.last_column_id, 3);
        assert_eq!(e.metadata.schemas.len(), 3);
    }

    #[test]
    fn returning_to_an_earlier_schema_reuses_its_id() {
        let add_scratch = vec![add("", "scratch", prim(P::Int))];
        let drop_scratch = vec![change(ChangeKind::Drop {
            path: path("scratch"),
            if_exists: false,
        })];
        let e = evolve(
            &id_only(),
            [add_scratch.as_slice(), drop_scratch.as_slice()],
        );
        assert_eq!(e.metadata.current_schema_id, 0);
        assert_eq!(e.metadata.schemas.len(), 2);
        assert_eq!(e.metadata.last_column_id, 2);
    }

    #[test]
    fn alternating_schemas_reuse_the_oldest_twin_and_number_new_ones_past_the_highest() {
        let doc = |text: &str| {
            vec![change(ChangeKind::UpdateDoc {
                path: path("id"),
                doc: Some(text.into()),
            })]
        };
        let mut base = id_only();
        Arc::make_mut(&mut base.schemas[0]).schema_id = 7;
        base.current_schema_id = 7;
        let (a, b) = (doc("a"), doc("b"));
        let e = evolve(
            &base,
            [a.as_slice(), b.as_slice(), a.as_slice(), b.as_slice()],
        );
        let ids: Vec<i32> = e.metadata.schemas.iter().map(|s| s.schema_id).collect();
        assert_eq!(ids, vec![7, 8, 9]);
        assert_eq!(e.metadata.current_schema_id, 9);
        let e = evolve(&base, [a.as_slice(), b.as_slice(), a.as_slice()]);
        assert_eq!(e.metadata.current_schema_id, 8);
        assert!(e.too_large.is_none());
    }

    #[test]
    fn renames_keep_ids_and_identifier_fields() {
        let e = one(
            &id_only(),
            vec![change(ChangeKind::Rename {
                path: path("id"),
                new_name: "user_id".into(),
            })],
        );
        let schema = e.metadata.current_schema();
        assert_eq!(schema.field_by_path("user_id").map(|f| f.id), Some(1));
        assert_eq!(schema.identifier_field_ids, vec![1]);
    }

    #[test]
    fn unknown_fields_get_a_suggestion() {
        let e = one(
            &id_only(),
            vec![change(ChangeKind::Drop {
                path: path("idd"),
                if_exists: false,
            })],
        );
        assert_eq!(e.problems.len(), 1);
        assert_eq!(
            e.problems[0].kind,
            ProblemKind::UnknownField {
                path: "idd".into(),
                suggestion: Some("id".into())
            }
        );
        assert_eq!(e.problems[0].help.as_deref(), Some("did you mean `id`?"));
        let quiet = one(
            &id_only(),
            vec![change(ChangeKind::Drop {
                path: path("idd"),
                if_exists: true,
            })],
        );
        assert!(quiet.problems.is_empty());
    }

    #[test]
    fn duplicate_names_are_refused() {
        let e = one(&id_only(), vec![add("", "id", prim(P::Int))]);
        assert_eq!(
            e.problems[0].kind,
            ProblemKind::DuplicateName {
                path: "id".into(),
                existing_id: 1
            }
        );
        assert_eq!(
            e.metadata.last_column_id, 1,
            "a refused add must not burn an id"
        );
    }

    #[test]
    fn changes_the_model_cannot_express_are_refused() {
        let map = Type::Map(MapType {
            key_id: 3,
            key: Box::new(prim(P::String)),
            value_id: 4,
            value_required: false,
            value: Box::new(prim(P::Int)),
        });
        let base = table(
            vec![
                Field::new(1, "id", true, prim(P::Long)),
                Field::new(2, "m", false, map),
            ],
            4,
        );
        let drop = |p: &str| {
            change(ChangeKind::Drop {
                path: path(p),
                if_exists: false,
            })
        };
        let cases = [
            (add("id", "x", prim(P::Int)), ProblemKind::InvalidChange),
            (
                change(ChangeKind::UpdateType {
                    path: path("m"),
                    new_type: P::String,
                }),
                ProblemKind::InvalidChange,
            ),
            (
                change(ChangeKind::Rename {
                    path: path("m.value"),
                    new_name: "v".into(),
                }),
                ProblemKind::InvalidChange,
            ),
            (drop("m.key"), ProblemKind::NestedStructure),
            (drop("m.value"), ProblemKind::NestedStructure),
            (
                change(ChangeKind::UpdateType {
                    path: path("m.key"),
                    new_type: P::Binary,
                }),
                ProblemKind::NestedStructure,
            ),
            (
                add("m.key", "x", prim(P::Int)),
                ProblemKind::NestedStructure,
            ),
        ];
        for (bad, expected) in cases {
            let e = one(&base, vec![bad.clone()]);
            assert_eq!(e.problems.len(), 1, "{:?}", bad.kind);
            assert_eq!(e.problems[0].kind, expected, "{:?}", bad.kind);
        }
    }

    #[test]
    fn moves_follow_first_and_after() {
        let base = table(
            ["id", "a", "b", "c"]
                .iter()
                .enumerate()
                .map(|(i, n)| Field::new(i as i32 + 1, *n, i == 0, prim(P::Int)))
                .collect(),
            4,
        );
        let first = change(ChangeKind::Move {
            path: path("c"),
            position: Position::First,
        });
        let after = change(ChangeKind::Move {
            path: path("id"),
            position: Position::After("b".into()),
        });
        let e = one(&base, vec![first, after]);
        let names: Vec<_> = e
            .metadata
            .current_schema()
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(names, ["c", "a", "b", "id"]);
        let itself = change(ChangeKind::Move {
            path: path("a"),
            position: Position::After("a".into()),
        });
        assert_eq!(one(&base, vec![itself]).problems.len(), 1);
    }

    #[test]
    fn identifier_fields_follow_java_validation() {
        let base = table(
            vec![
                Field::new(1, "id", true, prim(P::Long)),
                Field::new(2, "score", true, prim(P::Double)),
                Field::new(3, "note", false, prim(P::String)),
            ],
            3,
        );
        for (name, reason) in [
            ("score", "must not be float or double field"),
            ("note", "not a required field"),
        ] {
            let e = one(
                &base,
                vec![change(ChangeKind::SetIdentifierFields {
                    paths: vec![path(name)],
                })],
            );
            assert!(
                e.problems[0].message.ends_with(reason),
                "{}",
                e.problems[0].message
            );
        }
    }
}
