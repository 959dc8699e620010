//! Applies statements of `Change`s to a table and assigns new field ids exactly as Iceberg Java
//! (`SchemaUpdate` + `AssignFreshIds`) and PyIceberg (`UpdateSchema` + `_SetFreshIDs`) do:
//! ids continue from `last-column-id + 1`; an added column takes its id first, then its nested
//! type is numbered breadth-first per struct (all direct children, then each child's subtree;
//! a list's element then its subtree; a map's key id, value id, then key subtree, value subtree).
//! iceberg-rust numbers depth-first and is deliberately not followed.
//!
//! Each statement is one schema update, as one `ALTER TABLE` is one commit in an engine: it
//! yields a new schema (or reuses the id of an identical earlier one), `last-column-id` never goes
//! down, and the name mapping, when the table has one, follows renames and adds.

use crate::change::{
    Applied, AppliedKind, Assigned, Change, ChangeKind, FieldPath, NewField, Origin, Position,
    Problem, ProblemKind,
};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::names::same_name;
use crate::iceberg::schema::{Field, FieldInfo, MemberKind, Schema, member_by_id};
use crate::iceberg::types::{FieldId, MAX_USER_FIELD_ID, PrimitiveType, StructType, Type};
use crate::suggest::closest;

pub mod new_table;
mod partition;
mod schemas;
mod sort;
mod table;
use schemas::SchemaLog;

#[derive(Debug, Clone)]
pub struct Evolution {
    pub metadata: TableMetadata,
    pub assigned: Vec<Assigned>,
    pub applied: Vec<Applied>,
    pub problems: Vec<Problem>,
    /// Set when the migration would write more than [`MAX_WRITTEN_MEMBERS`]; evolution stopped
    /// at that statement, so the rest of this value is incomplete and must not be used.
    pub too_large: Option<TooLarge>,
}

/// The most members (fields, list elements, map keys and values) the schemas one proposal
/// appends may hold in all, about 200 MB of metadata JSON. Every statement is one schema update
/// and so one more copy of the whole schema in the metadata file, which readers load to plan
/// every query: far below this the file is already a burden, and without a bound a long
/// migration of adds grows quadratically until memory runs out.
pub const MAX_WRITTEN_MEMBERS: usize = 2_500_000;

/// A proposal whose schemas would exceed [`MAX_WRITTEN_MEMBERS`], at the statement that
/// crosses it.
#[derive(Debug, Clone)]
pub struct TooLarge {
    pub origin: Origin,
    /// 1-based, among `statements`.
    pub statement: usize,
    pub statements: usize,
    pub members: usize,
}

impl TooLarge {
    pub fn message(&self) -> String {
        format!(
            "each statement is one schema update, which writes the whole schema again: by statement {} of {}, the new schemas hold {} fields, more than the {} a metadata file can reasonably carry",
            self.statement, self.statements, self.members, MAX_WRITTEN_MEMBERS
        )
    }

    pub fn help(&self) -> String {
        "make fewer schema updates: one statement can carry many changes (`ALTER TABLE t ADD COLUMNS (a int, b string)`, or one schema file), and each is one schema in the metadata".into()
    }
}

/// Applies each statement's changes, in order, as one schema update each. Problems are
/// collected; a change with a problem is skipped so later ones are still checked.
pub fn evolve<'c>(
    base: &TableMetadata,
    statements: impl IntoIterator<Item = &'c [Change]>,
) -> Evolution {
    let statements: Vec<&[Change]> = statements.into_iter().collect();
    let mut metadata = base.clone();
    let mut log = SchemaLog::of(&metadata);
    let mut assigned = Vec::new();
    let mut applied = Vec::new();
    let mut problems = Vec::new();
    let mut too_large = None;
    for (statement, changes) in statements.iter().enumerate() {
        let mut update = Update::new(&metadata, log.current(&metadata));
        for change in *changes {
            let outcome = if table::is_table_change(change) {
                let schema = log.current(&metadata).clone();
                let outcome = table::apply_table_change(&mut metadata, &schema, change);
                update.mapping = metadata.name_mapping.clone();
                outcome
            } else {
                update.apply(change)
            };
            match outcome {
                Ok(mut record) => {
                    if let Some(id) = record.field_id {
                        record.after = member_by_id(&update.fields, id);
                    }
                    record.origin = Some(change.origin.clone());
                    record.statement = statement;
                    applied.push(record);
                }
                Err(problem) => problems.push(*problem),
            }
        }
        assigned.append(&mut update.assigned);
        update.commit(&mut metadata, &mut log);
        if log.written > MAX_WRITTEN_MEMBERS
            && let Some(first) = changes.first()
        {
            too_large = Some(TooLarge {
                origin: first.origin.clone(),
                statement: statement + 1,
                statements: statements.len(),
                members: log.written,
            });
            break;
        }
    }
    Evolution {
        metadata,
        assigned,
        applied,
        problems,
        too_large,
    }
}

/// Fresh ids for a whole new schema (CREATE TABLE): top-level fields from 1, then each nested
/// type, in the same order as any added column. Returns the highest id used.
pub fn assign_fresh_schema_ids(fields: &mut [Field]) -> FieldId {
    let mut next = 1;
    let mut counter = || {
        let id = next;
        next += 1;
        id
    };
    for field in fields.iter_mut() {
        field.id = counter();
    }
    for field in fields.iter_mut() {
        assign_fresh_ids(&mut field.field_type, &mut counter);
    }
    next - 1
}

fn assign_fresh_ids(field_type: &mut Type, next: &mut impl FnMut() -> FieldId) {
    match field_type {
        Type::Primitive(_) => {}
        Type::Struct(s) => {
            for field in s.fields.iter_mut() {
                field.id = next();
            }
            for field in s.fields.iter_mut() {
                assign_fresh_ids(&mut field.field_type, next);
            }
        }
        Type::List(l) => {
            l.element_id = next();
            assign_fresh_ids(&mut l.element, next);
        }
        Type::Map(m) => {
            m.key_id = next();
            m.value_id = next();
            assign_fresh_ids(&mut m.key, next);
            assign_fresh_ids(&mut m.value, next);
        }
    }
}

/// Turns a field as written in DDL into a schema field with placeholder ids.
pub fn field_from_new(new: &NewField) -> Field {
    Field {
        doc: new.doc.clone(),
        ..Field::new(0, new.name.clone(), new.required, new.field_type.clone())
    }
}

/// One schema update in progress: a working copy of the current schema.
struct Update {
    fields: Vec<Field>,
    identifiers: Vec<FieldId>,
    last_column_id: FieldId,
    mapping: Option<crate::iceberg::name_mapping::NameMapping>,
    assigned: Vec<Assigned>,
}

type Outcome = Result<Applied, Box<Problem>>;

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
    fn new(metadata: &TableMetadata, current: &Schema) -> Update {
        Update {
            fields: current.fields.clone(),
            identifiers: current.identifier_field_ids.clone(),
            last_column_id: metadata.last_column_id,
            mapping: metadata.name_mapping.clone(),
            assigned: Vec::new(),
        }
    }

    fn schema(&self) -> Schema {
        Schema {
            schema_id: -1,
            identifier_field_ids: self.identifiers.clone(),
            fields: self.fields.clone(),
        }
    }

    fn commit(self, metadata: &mut TableMetadata, log: &mut SchemaLog) {
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

    fn apply(&mut self, change: &Change) -> Outcome {
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
                let target = self.resolve(change, path)?;
                self.with_member(target.id, |m| match m {
                    Member::Field(f) => f.required = *required,
                    Member::Element(required_flag) | Member::Value(required_flag) => {
                        *required_flag = *required
                    }
                });
                let word = |r: bool| if r { "required" } else { "optional" };
                let kind = if *required {
                    AppliedKind::SetRequired
                } else {
                    AppliedKind::SetOptional
                };
                Ok(record(
                    kind,
                    &target,
                    Some(word(target.required).into()),
                    Some(word(*required).into()),
                ))
            }
            ChangeKind::UpdateDoc { path, doc } => {
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
            ChangeKind::Move { path, position } => self.move_field(change, path, position),
            ChangeKind::Drop { path, if_exists } => self.drop_field(change, path, *if_exists),
            ChangeKind::SetIdentifierFields { paths } => self.set_identifiers(change, paths),
            ChangeKind::DropIdentifierFields { paths } => self.drop_identifiers(change, paths),
            // `evolve` hands these to `table::apply_table_change`.
            ChangeKind::AddPartitionField { .. }
            | ChangeKind::DropPartitionField { .. }
            | ChangeKind::ReplacePartitionField { .. }
            | ChangeKind::SetPartitioning { .. }
            | ChangeKind::SetWriteOrder { .. }
            | ChangeKind::SetProperties { .. }
            | ChangeKind::UnsetProperties { .. }
            | ChangeKind::NoSchemaEffect { .. } => Err(invalid_at(
                change,
                "a table change is not a schema change".into(),
            )),
        }
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
        // Like Java, adding to a list or map means adding to its element or value struct.
        let (parent_id, parent_path) = if parent.0.is_empty() {
            (None, String::new())
        } else {
            let target = self.resolve(change, parent)?;
            let container = self.struct_container(change, &target)?;
            (Some(container.0), container.1)
        };
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
        let added = Schema {
            schema_id: 0,
            identifier_field_ids: Vec::new(),
            fields: vec![field.clone()],
        };
        for info in added.walk() {
            self.assigned.push(Assigned {
                path: join(&parent_path, &info.path),
                field_id: info.id,
            });
        }
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

    /// Map keys are immutable in Iceberg (Java: "Cannot alter map keys"): a change to a key or to
    /// anything inside one is refused, whatever the change.
    fn refuse_map_key_changes(&self, change: &Change) -> Result<(), Box<Problem>> {
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
    fn check_identifier(&self, change: &Change, target: &FieldInfo) -> Result<(), Box<Problem>> {
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

    fn position_index(
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
    fn struct_container(
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
    fn siblings(&self, parent: Option<FieldId>) -> &[Field] {
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

    fn with_struct(&mut self, parent: Option<FieldId>, f: impl FnOnce(&mut Vec<Field>)) {
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

    fn with_member(&mut self, id: FieldId, f: impl FnOnce(Member<'_>)) {
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
    fn set_member_type(&mut self, id: FieldId, new_type: &PrimitiveType) {
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
    fn resolve(&self, change: &Change, path: &FieldPath) -> Result<FieldInfo, Box<Problem>> {
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

    fn unknown_field(
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

/// A member seen through a reference, so looking one name up among many siblings clones
/// nothing; only the member picked becomes a [`FieldInfo`].
struct MemberRef<'a> {
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
fn child_members<'a>(root: &'a [Field], parent: Option<&'a FieldInfo>) -> Vec<MemberRef<'a>> {
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
fn pick(root: &[Field], parent: Option<&FieldInfo>, name: &str) -> Option<FieldInfo> {
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

enum Member<'a> {
    Field(&'a mut Field),
    Element(&'a mut bool),
    Value(&'a mut bool),
}

fn visit_structs_mut(
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

fn visit_members_mut(fields: &mut [Field], f: &mut impl FnMut(FieldId, Member<'_>)) {
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

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

fn parent_path(path: &str) -> String {
    path.rsplit_once('.')
        .map(|(p, _)| p.to_string())
        .unwrap_or_default()
}

fn nested(change: &Change, target: &FieldInfo, message: String) -> Box<Problem> {
    let mut problem = invalid(change, target, message);
    problem.kind = ProblemKind::NestedStructure;
    problem.help = Some(
        "add a new column with the new shape and backfill it; Iceberg readers cannot reinterpret map keys, list elements or map values in place".into(),
    );
    problem
}

fn invalid(change: &Change, target: &FieldInfo, message: String) -> Box<Problem> {
    Box::new(Problem {
        kind: ProblemKind::InvalidChange,
        message,
        help: None,
        origin: change.origin.clone(),
        field_id: Some(target.id),
        path: Some(target.path.clone()),
    })
}

fn invalid_at(change: &Change, message: String) -> Box<Problem> {
    Box::new(Problem {
        kind: ProblemKind::InvalidChange,
        message,
        help: None,
        origin: change.origin.clone(),
        field_id: None,
        path: change.path().map(FieldPath::dotted),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::change::{Origin, SourceFile, Span};
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
            schemas: vec![Schema {
                schema_id: 0,
                identifier_field_ids: vec![1],
                fields,
            }],
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
        base.schemas[0].schema_id = 7;
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
