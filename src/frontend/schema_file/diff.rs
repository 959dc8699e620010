//! A schema file read as a proposal: the table as the file describes it, diffed against the
//! table as it is, becomes one schema update of [`Change`]s, each pointing at the file's text.
//!
//! Fields are paired by id (`SCHEMA_FILE.md`): a field without an id is new; a table field
//! whose id is not in the file is dropped; the same id under another name is a rename; another
//! type, `required` or `doc` is that change; a different order is moves. Where the file has no
//! place for an id, pairing is structural: a list's element and a map's key and value belong to
//! their list or map, and the fields of a type string (`STRUCT<a: int>`) are paired by name.
//!
//! The changes come out in the order that lets `evolve` apply them one after another as one
//! update, as Iceberg's `UpdateSchema` would: identifier fields that go away with a dropped
//! column first, then drops (by the old paths), renames (parents before children, a name freed
//! before it is taken), type, nullability and doc changes, then adds and moves struct by struct
//! in file order (so new ids follow the order new fields appear in the file), and last the
//! identifier fields. Moves are the fewest that give the file's order: the fields already in
//! order (the longest run of them) stay, the others move after their predecessor in the file.
//!
//! What no `Change` can express is a [`Problem`]: an id the table retired or never had, a field
//! moved into another struct, a struct turned into a primitive, a partition or sort order the
//! table does not have. Such a field takes no part in the update (or is judged as a new field,
//! for a bad id), so one mistake does not cascade into many findings. An id above the table's
//! `last-column-id` is a new field's when it is the one `apply` assigns (`new_ids`): that is what
//! `apply --write` leaves in the file.

use std::collections::{HashMap, HashSet};

use crate::change::{
    Change, ChangeKind, FieldPath, NewField, Origin, Position, Source, Span, Statement,
    StatementKind,
};
use crate::change::{Problem, ProblemKind};
use crate::frontend::longest_increasing;
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::schema::{Field, FieldInfo, MemberKind};
use crate::iceberg::types::{FieldId, ListType, MapType, StructType, Type};
use crate::proposal::Note;
use crate::suppress::{Suppression, find_above};

mod properties;

use super::new_ids::{WrittenId, unexpected_ids};
use super::read::column_segments;
use super::{FileField, FileType, SchemaFile};

/// The schema update a proposal file asks for.
#[derive(Debug, Clone)]
pub struct SchemaDiff {
    pub statement: Statement,
    pub problems: Vec<Problem>,
    pub notes: Vec<Note>,
    /// `# fieldgate: allow <rule> -- <reason>` comments above field entries, as for DDL.
    pub suppressions: Vec<Suppression>,
}

impl SchemaFile {
    /// The changes that turn `base` (its current schema) into the table this file describes;
    /// `source` is the file's text, which every change points into.
    pub fn diff(&self, source: &Source, base: &TableMetadata) -> SchemaDiff {
        let mut differ = Differ::new(self, source, base);
        differ.walk_struct(Container::Root, &self.fields, &[]);
        differ.finish()
    }
}

/// The struct a file field sits in, as the table knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Container {
    /// The table's top level.
    Root,
    /// A struct the table has: a struct field, or the struct of a list element or map value
    /// (the id is then the element's or value's). The structs of new fields are part of their
    /// add and never walked.
    Id(FieldId),
}

impl Container {
    fn holds(self, parent: Option<FieldId>) -> bool {
        match (self, parent) {
            (Container::Root, None) => true,
            (Container::Id(id), Some(parent)) => id == parent,
            _ => false,
        }
    }

    fn id(self) -> Option<FieldId> {
        match self {
            Container::Id(id) => Some(id),
            Container::Root => None,
        }
    }
}

/// How a file field pairs with the table.
enum Pairing {
    Existing(Box<FieldInfo>),
    New,
    /// Reported as a problem and left out of the update.
    Skip,
}

struct Rename {
    container: Option<FieldId>,
    old: String,
    new: String,
    origin: Origin,
}

struct Differ<'a> {
    file: &'a SchemaFile,
    source: &'a Source,
    whole: Span,
    base: &'a TableMetadata,
    index: HashMap<FieldId, FieldInfo>,
    /// Ids of earlier schemas that the current one no longer has, with their last path.
    retired: HashMap<FieldId, String>,
    /// Table ids the file accounts for: paired, or part of a problem already reported.
    claimed: HashSet<FieldId>,
    /// Each paired table id (fields, elements, keys, values) by the path the file gives it.
    final_segments: HashMap<FieldId, Vec<String>>,
    /// File paths (dotted) to the table id they pair with, `None` for new fields.
    final_ids: HashMap<String, Option<FieldId>>,
    /// Where a finding about a vanished member of a struct points: the struct's owner in the file.
    anchors: HashMap<FieldId, Span>,
    /// The file entry (a field's mapping) each paired table id belongs to.
    entries: HashMap<FieldId, Span>,
    /// The entry the walk is at: a change's statement.
    entry: Span,
    /// The outermost entry starting on each line (by the line's start offset): where a
    /// suppression comment above the line applies.
    line_entries: HashMap<usize, Span>,
    renames: Vec<Rename>,
    updates: Vec<Change>,
    layout: Vec<Change>,
    /// New fields without an id, or with a new field's id: container, name, dotted path and
    /// the id written, for the drop-and-re-add note.
    added: Vec<(Option<FieldId>, String, String, Option<FieldId>)>,
    /// Ids above the base's `last-column-id`, checked against what `apply` assigns at the end.
    written_new: Vec<WrittenId>,
    problems: Vec<Problem>,
}

fn dotted(segments: &[String]) -> String {
    segments.join(".")
}

fn with(segments: &[String], name: &str) -> Vec<String> {
    let mut out = segments.to_vec();
    out.push(name.to_string());
    out
}

fn member_word(kind: MemberKind) -> &'static str {
    match kind {
        MemberKind::StructField => "field",
        MemberKind::ListElement => "element",
        MemberKind::MapKey => "key",
        MemberKind::MapValue => "value",
    }
}

impl<'a> Differ<'a> {
    fn new(file: &'a SchemaFile, source: &'a Source, base: &'a TableMetadata) -> Differ<'a> {
        let index = base.current_schema().index_by_id();
        let mut retired = HashMap::new();
        for schema in &base.schemas {
            for field in schema.walk() {
                if !index.contains_key(&field.id) {
                    retired.insert(field.id, field.path);
                }
            }
        }
        Differ {
            file,
            source,
            whole: Span::new(0, source.text.len()),
            base,
            index,
            retired,
            claimed: HashSet::new(),
            final_segments: HashMap::new(),
            final_ids: HashMap::new(),
            anchors: HashMap::new(),
            entries: HashMap::new(),
            entry: Span::new(0, source.text.len()),
            line_entries: line_entries(&source.text, file),
            renames: Vec::new(),
            updates: Vec::new(),
            layout: Vec::new(),
            added: Vec::new(),
            written_new: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// A change's origin: `focus` within the entry the walk is at, its "statement" (a
    /// suppression comment above an entry covers every change whose focus is inside it).
    fn origin(&self, focus: Span) -> Origin {
        Origin {
            source: self.source.clone(),
            statement: self.entry,
            focus,
        }
    }

    fn change(&self, kind: ChangeKind, focus: Span) -> Change {
        Change {
            kind,
            origin: self.origin(focus),
        }
    }

    fn problem(
        &mut self,
        kind: ProblemKind,
        focus: Span,
        path: &str,
        field_id: Option<FieldId>,
        message: String,
        help: &str,
    ) {
        self.problems.push(Problem {
            kind,
            message,
            help: Some(help.to_string()),
            origin: self.origin(focus),
            field_id,
            path: Some(path.to_string()),
        });
    }

    /// The table's path of `id` as segments (names may contain dots, so not split from `path`).
    fn base_segments(&self, id: FieldId) -> Vec<String> {
        let mut segments = Vec::new();
        let mut current = self.index.get(&id);
        while let Some(info) = current {
            segments.push(info.name.clone());
            current = info.parent_id.and_then(|p| self.index.get(&p));
        }
        segments.reverse();
        segments
    }

    fn is_within(&self, id: FieldId, ancestor: FieldId) -> bool {
        let mut current = Some(id);
        while let Some(c) = current {
            if c == ancestor {
                return true;
            }
            current = self.index.get(&c).and_then(|i| i.parent_id);
        }
        false
    }

    /// Marks `id` and everything inside it as accounted for.
    fn claim_subtree(&mut self, id: FieldId) {
        let inside: Vec<FieldId> = self
            .index
            .keys()
            .copied()
            .filter(|member| self.is_within(*member, id))
            .collect();
        self.claimed.extend(inside);
    }

    fn record(&mut self, id: FieldId, segments: &[String], anchor: Span) {
        self.claimed.insert(id);
        self.final_segments.insert(id, segments.to_vec());
        self.anchors.insert(id, anchor);
        self.entries.insert(id, self.entry);
    }

    /// An id written in the file (under `key`) that does not pair with a table field at its
    /// place: report why. Returns whether the field should still be judged as a new field (an
    /// id the table never had, or retired) rather than left out (a field of the table,
    /// elsewhere). An id above `last-column-id` may be the one `apply` assigns the new field
    /// (written back by `apply --write`): that is decided once the whole update is known.
    fn misplaced_id(
        &mut self,
        id: FieldId,
        span: Span,
        segments: &[String],
        key: &'static str,
    ) -> bool {
        let dotted_path = dotted(segments);
        let path = dotted_path.as_str();
        if let Some(info) = self.index.get(&id).cloned() {
            self.claim_subtree(id);
            if info.kind == MemberKind::StructField {
                self.problem(
                    ProblemKind::NestedStructure,
                    span,
                    path,
                    Some(id),
                    format!(
                        "`{path}` has id {id}, which is `{}` in the table: Iceberg cannot move a field into another struct",
                        info.path
                    ),
                    "keep the field where it is (and move it within its struct if needed), or leave the id out to add a new field and backfill it",
                );
            } else {
                self.problem(
                    ProblemKind::InvalidChange,
                    span,
                    path,
                    Some(id),
                    format!(
                        "`{path}` has id {id}, which is the {} of `{}` in the table, not a field of this struct",
                        member_word(info.kind),
                        parent_of(&info.path)
                    ),
                    "leave the id out to add a new field; apply assigns it",
                );
            }
            return false;
        }
        match self.retired.get(&id).cloned() {
            Some(old) => self.problem(
                ProblemKind::IdReuse,
                span,
                path,
                Some(id),
                format!(
                    "`{path}` has id {id}, which belonged to `{old}`, dropped earlier: old data files still hold `{old}`'s values under that id, and readers would return them as `{path}`"
                ),
                "a dropped field's id is retired forever: leave the id out and apply assigns a new one",
            ),
            None if id > self.base.last_column_id => {
                let origin = self.origin(span);
                self.written_new.push(WrittenId {
                    id,
                    key,
                    path: segments.to_vec(),
                    origin,
                });
            }
            None => self.problem(
                ProblemKind::UnknownField {
                    path: path.to_string(),
                    suggestion: None,
                },
                span,
                path,
                Some(id),
                format!(
                    "`{path}` has id {id}, but the table has no field with that id (its last-column-id is {})",
                    self.base.last_column_id
                ),
                "leave the id out for a new field: apply assigns ids from last-column-id + 1 and writes them into the file",
            ),
        }
        true
    }

    fn pair(&mut self, container: Container, field: &FileField, path: &[String]) -> Pairing {
        if let Some(id) = field.id {
            if let Some(info) = self.index.get(&id)
                && info.kind == MemberKind::StructField
                && container.holds(info.parent_id)
                && !self.claimed.contains(&id)
            {
                return Pairing::Existing(Box::new(info.clone()));
            }
            return if self.misplaced_id(id, field.id_span, path, "id") {
                Pairing::New
            } else {
                Pairing::Skip
            };
        }
        // A type string has no place for ids: its fields pair by name.
        if field.in_type_string
            && let Some(info) = self.index.values().find(|info| {
                info.kind == MemberKind::StructField
                    && container.holds(info.parent_id)
                    && info.name == field.name
                    && !self.claimed.contains(&info.id)
            })
        {
            return Pairing::Existing(Box::new(info.clone()));
        }
        Pairing::New
    }

    /// One struct of the file: pair its fields, then in file order add the new ones, move the
    /// ones out of order, and compare (and descend into) the paired ones.
    fn walk_struct(&mut self, container: Container, fields: &[FileField], prefix: &[String]) {
        let outer = self.entry;
        let pairings: Vec<Pairing> = fields
            .iter()
            .map(|f| {
                self.entry = f.span;
                self.pair(container, f, &with(prefix, &f.name))
            })
            .collect();
        for (field, pairing) in fields.iter().zip(&pairings) {
            if let Pairing::Existing(info) = pairing {
                self.entry = field.span;
                self.record(info.id, &with(prefix, &field.name), field.name_span);
            }
        }
        let positions: Vec<Option<usize>> = pairings
            .iter()
            .map(|p| match p {
                Pairing::Existing(info) => Some(info.position),
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
                Pairing::Skip => continue,
                Pairing::New => {
                    self.final_ids.insert(dotted(&path), None);
                    // Appending keeps the order when nothing the table has comes after it.
                    let existing_after = pairings[i + 1..]
                        .iter()
                        .any(|p| matches!(p, Pairing::Existing(_)));
                    let kind = ChangeKind::AddField {
                        parent: FieldPath(prefix.to_vec()),
                        field: NewField {
                            name: field.name.clone(),
                            field_type: placeholder_type(&field.field_type),
                            required: field.required,
                            doc: field.doc.clone(),
                        },
                        position: existing_after.then(position),
                    };
                    let change = self.change(kind, field.name_span);
                    self.layout.push(change);
                    if field.id.is_none_or(|id| id > self.base.last_column_id) {
                        self.added.push((
                            container.id(),
                            field.name.clone(),
                            dotted(&path),
                            field.id,
                        ));
                    }
                    self.check_new_ids(&field.field_type, &path);
                }
                Pairing::Existing(info) => {
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

    fn compare_field(&mut self, field: &FileField, info: &FieldInfo, path: &[String]) {
        if field.name != info.name {
            let origin = self.origin(field.name_span);
            self.renames.push(Rename {
                container: info.parent_id,
                old: info.name.clone(),
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
        if field.doc != info.doc {
            let kind = ChangeKind::UpdateDoc {
                path: FieldPath(path.to_vec()),
                doc: field.doc.clone(),
            };
            let change = self.change(kind, field.doc_span.unwrap_or(field.name_span));
            self.updates.push(change);
        }
        self.compare_type(
            &field.field_type,
            &info.field_type,
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
            (FileType::List(list), Type::List(old)) => {
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
            (FileType::Map(map), Type::Map(old)) => {
                let key = with(path, "key");
                let value = with(path, "value");
                let key_same = self.same_member(map.key_id, map.key_id_span, old.key_id, &key);
                let value_same =
                    self.same_member(map.value_id, map.value_id_span, old.value_id, &value);
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
            _ => {
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
        }
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

    /// A new field's members get new ids; an id written inside one is a mistake to explain.
    fn check_new_ids(&mut self, ty: &FileType, path: &[String]) {
        match ty {
            FileType::Primitive(_) => {}
            FileType::Struct(fields) => {
                for field in fields {
                    let field_path = with(path, &field.name);
                    if let Some(id) = field.id {
                        self.misplaced_id(id, field.id_span, &field_path, "id");
                    }
                    self.check_new_ids(&field.field_type, &field_path);
                }
            }
            FileType::List(list) => {
                let element = with(path, "element");
                if let Some(id) = list.element_id {
                    self.misplaced_id(id, list.element_id_span, &element, "element-id");
                }
                self.check_new_ids(&list.element, &element);
            }
            FileType::Map(map) => {
                for (id, span, name, key, ty) in [
                    (map.key_id, map.key_id_span, "key", "key-id", &map.key),
                    (
                        map.value_id,
                        map.value_id_span,
                        "value",
                        "value-id",
                        &map.value,
                    ),
                ] {
                    let member = with(path, name);
                    if let Some(id) = id {
                        self.misplaced_id(id, span, &member, key);
                    }
                    self.check_new_ids(ty, &member);
                }
            }
        }
    }

    /// Table fields the file does not account for, outermost only (a dropped struct takes its
    /// fields with it).
    /// Each with where it points and the entry it belongs to: its entry in `dropped`, else the
    /// struct that lost it, else `fields:`.
    fn drops(&self) -> Vec<(FieldInfo, Span, Span)> {
        let mut out = Vec::new();
        for info in self.base.current_schema().walk() {
            if info.kind != MemberKind::StructField || self.claimed.contains(&info.id) {
                continue;
            }
            let parent_kept = info.parent_id.is_none_or(|p| self.claimed.contains(&p));
            if !parent_kept {
                continue;
            }
            let listed = self.file.dropped.iter().find(|d| d.id == Some(info.id));
            let parent = info.parent_id;
            let (focus, entry) = match listed {
                Some(d) => (d.name_span, d.span),
                None => (
                    parent
                        .and_then(|p| self.anchors.get(&p).copied())
                        .unwrap_or(self.file.stated.fields_key),
                    parent
                        .and_then(|p| self.entries.get(&p).copied())
                        .unwrap_or(self.file.stated.fields_key),
                ),
            };
            out.push((info, focus, entry));
        }
        out
    }

    /// Renames in an order `evolve` can apply one by one: groups of siblings in file order
    /// (a parent's group before its children's), and within a group a name is freed before
    /// another field takes it. A cycle (two fields swapping names) is left as written:
    /// `evolve` then reports the collision.
    fn ordered_renames(&self, drops: &[(FieldInfo, Span, Span)]) -> Vec<Change> {
        let mut groups: Vec<(Option<FieldId>, Vec<&Rename>)> = Vec::new();
        for rename in &self.renames {
            match groups.iter_mut().find(|(c, _)| *c == rename.container) {
                Some((_, group)) => group.push(rename),
                None => groups.push((rename.container, vec![rename])),
            }
        }
        let dropped: HashSet<FieldId> = drops.iter().map(|(d, _, _)| d.id).collect();
        let mut out = Vec::new();
        for (container, mut pending) in groups {
            let mut held: HashSet<String> = self
                .index
                .values()
                .filter(|i| {
                    i.kind == MemberKind::StructField
                        && i.parent_id == container
                        && !dropped.contains(&i.id)
                })
                .map(|i| i.name.clone())
                .collect();
            let parent: Vec<String> = container
                .and_then(|c| self.final_segments.get(&c).cloned())
                .unwrap_or_default();
            while !pending.is_empty() {
                let next = pending
                    .iter()
                    .position(|r| !held.contains(&r.new))
                    .unwrap_or(0);
                let rename = pending.remove(next);
                held.remove(&rename.old);
                held.insert(rename.new.clone());
                out.push(Change {
                    kind: ChangeKind::Rename {
                        path: FieldPath(with(&parent, &rename.old)),
                        new_name: rename.new.clone(),
                    },
                    origin: rename.origin.clone(),
                });
            }
        }
        out
    }

    fn finish(mut self) -> SchemaDiff {
        let drops = self.drops();
        let mut changes = Vec::new();

        let (early, late) = match self.file.stated.identifier_fields {
            Some(span) => {
                self.entry = span;
                self.identifier_changes(&drops)
            }
            None => (Vec::new(), Vec::new()),
        };
        changes.extend(self.property_changes());
        changes.extend(early);
        for (info, focus, entry) in &drops {
            let kind = ChangeKind::Drop {
                path: FieldPath(self.base_segments(info.id)),
                if_exists: false,
            };
            self.entry = *entry;
            changes.push(self.change(kind, *focus));
        }
        changes.extend(self.ordered_renames(&drops));
        changes.append(&mut self.updates);
        changes.append(&mut self.layout);
        changes.extend(late);
        let unexpected = unexpected_ids(self.base, &changes, &self.written_new);
        self.problems.extend(unexpected);

        self.entry = self.whole;
        self.check_format_version();
        self.check_partition();
        self.check_sort_order();
        let notes = self.notes(&drops);
        let mut candidates: Vec<Span> = self.line_entries.values().copied().collect();
        candidates.sort_by_key(|s| s.offset);
        candidates.push(self.file.stated.fields_key);
        let suppressions = find_above(self.source, &candidates, "#");
        let file = self.file;
        SchemaDiff {
            statement: Statement {
                table: file.table.clone(),
                table_span: file.table_span,
                span: self.whole,
                source: self.source.clone(),
                kind: StatementKind::Alter(changes),
            },
            problems: self.problems,
            notes,
            suppressions,
        }
    }

    /// The id a column reference of the file pairs with, `None` for a new field (or one the
    /// file does not have, which the reader has reported already).
    fn column_id(&self, name: &str) -> Option<FieldId> {
        let segments = column_segments(&self.file.fields, name)?;
        self.final_ids.get(&dotted(&segments)).copied().flatten()
    }

    /// Identifier-field changes: those removed along with a dropped column must go before the
    /// drop (Java refuses to drop an identifier field otherwise); the final set is set last,
    /// once every field it names exists with its final name and nullability.
    fn identifier_changes(&self, drops: &[(FieldInfo, Span, Span)]) -> (Vec<Change>, Vec<Change>) {
        let Some(span) = self.file.stated.identifier_fields else {
            return (Vec::new(), Vec::new());
        };
        let wanted: Vec<Option<FieldId>> = self
            .file
            .identifier_fields
            .iter()
            .map(|c| self.column_id(&c.name))
            .collect();
        let current = &self.base.current_schema().identifier_field_ids;
        let removed: Vec<FieldId> = current
            .iter()
            .copied()
            .filter(|id| !wanted.contains(&Some(*id)))
            .collect();
        let goes_with_a_drop = removed.iter().any(|id| {
            drops
                .iter()
                .any(|(dropped, _, _)| self.is_within(*id, dropped.id))
        });
        let mut early = Vec::new();
        let mut remaining: Vec<FieldId> = current.clone();
        if goes_with_a_drop {
            let paths = removed
                .iter()
                .map(|id| FieldPath(self.base_segments(*id)))
                .collect();
            early.push(self.change(ChangeKind::DropIdentifierFields { paths }, span));
            remaining.retain(|id| !removed.contains(id));
        }
        let mut want_sorted: Vec<Option<FieldId>> = wanted.clone();
        want_sorted.sort_unstable();
        let mut have_sorted: Vec<Option<FieldId>> = remaining.iter().copied().map(Some).collect();
        have_sorted.sort_unstable();
        let mut late = Vec::new();
        if want_sorted != have_sorted {
            let kind = if wanted.is_empty() {
                ChangeKind::DropIdentifierFields {
                    paths: remaining
                        .iter()
                        .filter_map(|id| self.final_segments.get(id).cloned())
                        .map(FieldPath)
                        .collect(),
                }
            } else {
                ChangeKind::SetIdentifierFields {
                    paths: self
                        .file
                        .identifier_fields
                        .iter()
                        .map(|c| {
                            FieldPath(
                                column_segments(&self.file.fields, &c.name)
                                    .unwrap_or_else(|| vec![c.name.clone()]),
                            )
                        })
                        .collect(),
                }
            };
            late.push(self.change(kind, span));
        }
        (early, late)
    }

    /// The partition spec is not a schema: a proposal may restate the table's, not change it.
    fn check_partition(&mut self) {
        let Some(span) = self.file.stated.partition else {
            return;
        };
        let written: Vec<(Option<FieldId>, String)> = self
            .file
            .partition
            .iter()
            .map(|t| (self.column_id(&t.column.name), t.transform.to_string()))
            .collect();
        let spec = self
            .base
            .partition_specs
            .iter()
            .find(|s| s.spec_id == self.base.default_spec_id);
        let table: Vec<(Option<FieldId>, String)> = spec
            .map(|s| {
                s.fields
                    .iter()
                    .filter(|f| f.transform != "void")
                    .map(|f| (f.source_ids.first().copied(), f.transform.clone()))
                    .collect()
            })
            .unwrap_or_default();
        if written != table {
            let terms: Vec<String> = table
                .iter()
                .map(|(id, transform)| self.partition_term(*id, transform))
                .collect();
            self.problem(
                ProblemKind::InvalidChange,
                span,
                "partition",
                None,
                format!(
                    "the file's `partition` differs from the table's partition spec [{}]: fieldgate judges schema changes, and partition evolution is not one",
                    terms.join(", ")
                ),
                "change partitioning with the engine (ALTER TABLE ... ADD/DROP PARTITION FIELD); here, restate the table's spec or leave `partition` out",
            );
        }
    }

    fn column_name(&self, id: Option<FieldId>) -> String {
        id.and_then(|id| self.final_segments.get(&id).map(|s| dotted(s)))
            .or_else(|| id.and_then(|id| self.index.get(&id).map(|i| i.path.clone())))
            .unwrap_or_else(|| "?".to_string())
    }

    /// A partition field in the schema file's spelling: `region`, `bucket(16, id)`, `day(ts)`.
    fn partition_term(&self, id: Option<FieldId>, transform: &str) -> String {
        let column = self.column_name(id);
        if transform == "identity" {
            return column;
        }
        match transform.split_once('[') {
            Some((name, rest)) => format!("{name}({}, {column})", rest.trim_end_matches(']')),
            None => format!("{transform}({column})"),
        }
    }

    /// Like the partition spec, the sort order is restated, not changed, by a proposal.
    fn check_sort_order(&mut self) {
        let Some(span) = self.file.stated.sort_order else {
            return;
        };
        let written: Vec<(Option<FieldId>, String, String, String)> = self
            .file
            .sort_order
            .iter()
            .map(|t| {
                (
                    self.column_id(&t.column.name),
                    "identity".to_string(),
                    t.direction.as_str().to_string(),
                    t.null_order.as_str().to_string(),
                )
            })
            .collect();
        let order = self
            .base
            .sort_orders
            .iter()
            .find(|o| o.order_id == self.base.default_sort_order_id);
        let table: Vec<(Option<FieldId>, String, String, String)> = order
            .map(|o| {
                o.fields
                    .iter()
                    .map(|f| {
                        (
                            f.source_ids.first().copied(),
                            f.transform.clone(),
                            f.direction.clone(),
                            f.null_order.clone(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        if written != table {
            let terms: Vec<String> = table
                .iter()
                .map(|(id, transform, direction, nulls)| {
                    let column = self.column_name(*id);
                    let column = if transform == "identity" {
                        column
                    } else {
                        format!("{transform}({column})")
                    };
                    format!("{column} {direction} {nulls}")
                })
                .collect();
            self.problem(
                ProblemKind::InvalidChange,
                span,
                "sort-order",
                None,
                format!(
                    "the file's `sort-order` differs from the table's sort order [{}]: fieldgate judges schema changes, and a new sort order is not one",
                    terms.join(", ")
                ),
                "change the sort order with the engine (ALTER TABLE ... WRITE ORDERED BY); here, restate the table's order or leave `sort-order` out",
            );
        }
    }

    /// A field that lost its id (or got a new field's) reads as a drop plus a new field of the
    /// same name: say so wherever a finding names either.
    fn notes(&self, drops: &[(FieldInfo, Span, Span)]) -> Vec<Note> {
        let mut notes = Vec::new();
        for (container, name, path, written) in &self.added {
            let Some((dropped, _, _)) = drops
                .iter()
                .find(|(d, _, _)| d.parent_id == *container && d.name.eq_ignore_ascii_case(name))
            else {
                continue;
            };
            let has = match written {
                Some(id) => format!("has id {id}, a new field's,"),
                None => "has no id".to_string(),
            };
            notes.push(Note {
                paths: vec![path.clone(), dropped.path.clone()],
                text: format!(
                    "`{path}` {has} in the file, so it reads as a new field, and field id {} (`{}`) is no longer in the file, so it reads as dropped: its data stays behind under the retired id. If you meant to keep the column, write `id: {}` on it",
                    dropped.id, dropped.path, dropped.id
                ),
            });
        }
        notes
    }
}

fn line_start(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .and_then(|before| before.rfind('\n'))
        .map_or(0, |i| i + 1)
}

/// The outermost field entry (of `fields`, nested structs and `dropped`) starting on each line.
fn line_entries(text: &str, file: &SchemaFile) -> HashMap<usize, Span> {
    fn walk(text: &str, fields: &[FileField], out: &mut HashMap<usize, Span>) {
        for field in fields {
            out.entry(line_start(text, field.span.offset))
                .or_insert(field.span);
            walk_type(text, &field.field_type, out);
        }
    }
    fn walk_type(text: &str, ty: &FileType, out: &mut HashMap<usize, Span>) {
        match ty {
            FileType::Primitive(_) => {}
            FileType::Struct(fields) => walk(text, fields, out),
            FileType::List(list) => walk_type(text, &list.element, out),
            FileType::Map(map) => {
                walk_type(text, &map.key, out);
                walk_type(text, &map.value, out);
            }
        }
    }
    let mut out = HashMap::new();
    walk(text, &file.fields, &mut out);
    walk(text, &file.dropped, &mut out);
    out
}

fn parent_of(path: &str) -> &str {
    path.rsplit_once('.').map_or("", |(parent, _)| parent)
}

/// A file type as a model type whose ids are placeholders, for a field `evolve` will add.
fn placeholder_type(ty: &FileType) -> Type {
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::change::SourceFile;
    use crate::evolve::evolve;

    const BASE: &str = r#"
table: db.users
fields:
  - {id: 1, name: id, type: long, required: true}
  - {id: 2, name: phone, type: string, doc: mobile}
  - {id: 3, name: qty, type: int}
  - id: 4
    name: address
    type: {struct: [{id: 5, name: city, type: string}, {id: 6, name: zip, type: string}]}
  - {id: 7, name: tags, type: {list: string, element-id: 8}}
  - {id: 9, name: attrs, type: {map: [string, {struct: [{id: 12, name: a, type: int}]}], key-id: 10, value-id: 11}}
identifier-fields: [id]
dropped:
  - {id: 13, name: status, type: string}
"#;

    fn base() -> TableMetadata {
        SchemaFile::parse_yaml(BASE)
            .and_then(|f| f.to_table_metadata())
            .map(|d| d.metadata)
            .unwrap()
    }

    /// The diff of `proposal` against [`BASE`]: each change as a short line, and the problems.
    fn diff(proposal: &str) -> (Vec<String>, Vec<String>, SchemaDiff) {
        let source = Arc::new(SourceFile {
            name: "p.yaml".into(),
            text: proposal.to_string(),
        });
        let file = SchemaFile::parse_yaml(proposal).unwrap();
        let diff = file.diff(&source, &base());
        let StatementKind::Alter(changes) = &diff.statement.kind else {
            panic!("an alter statement")
        };
        let lines = changes
            .iter()
            .map(|c| {
                let focus = &proposal[c.origin.focus.offset..c.origin.focus.end()];
                let what = match &c.kind {
                    ChangeKind::AddField {
                        parent,
                        field,
                        position,
                    } => format!("add {}/{} {position:?}", parent.dotted(), field.name),
                    ChangeKind::Rename { path, new_name } => {
                        format!("rename {} -> {new_name}", path.dotted())
                    }
                    ChangeKind::UpdateType { path, new_type } => {
                        format!("type {} {new_type}", path.dotted())
                    }
                    ChangeKind::SetRequired { path, required } => {
                        format!("required {} {required}", path.dotted())
                    }
                    ChangeKind::UpdateDoc { path, doc } => format!("doc {} {doc:?}", path.dotted()),
                    ChangeKind::Move { path, position } => {
                        format!("move {} {position:?}", path.dotted())
                    }
                    ChangeKind::Drop { path, .. } => format!("drop {}", path.dotted()),
                    ChangeKind::SetIdentifierFields { paths } => format!(
                        "identifiers {:?}",
                        paths.iter().map(FieldPath::dotted).collect::<Vec<_>>()
                    ),
                    ChangeKind::DropIdentifierFields { paths } => format!(
                        "drop identifiers {:?}",
                        paths.iter().map(FieldPath::dotted).collect::<Vec<_>>()
                    ),
                    other => format!("{other:?}"),
                };
                format!("{what} @{focus}")
            })
            .collect();
        let problems = diff
            .problems
            .iter()
            .map(|p| format!("{:?}: {}", p.kind, p.message))
            .collect();
        (lines, problems, diff)
    }

    /// Applies the diff and requires the result to be exactly the table the file describes.
    fn applies_to_the_file(proposal: &str) {
        let (_, problems, diff) = diff(proposal);
        assert!(problems.is_empty(), "{problems:?}");
        let StatementKind::Alter(changes) = &diff.statement.kind else {
            panic!()
        };
        let evolution = evolve(&base(), [changes.as_slice()]);
        assert!(evolution.problems.is_empty(), "{:?}", evolution.problems);
        let after = evolution.metadata.current_schema();
        let file = SchemaFile::parse_yaml(proposal).unwrap();
        // Same names, order, types and flags; ids compared where the file has them.
        let described: Vec<(String, String, bool)> = file
            .fields
            .iter()
            .map(|f| {
                (
                    f.name.clone(),
                    placeholder_type(&f.field_type).to_string(),
                    f.required,
                )
            })
            .collect();
        let applied: Vec<(String, String, bool)> = after
            .fields
            .iter()
            .map(|f| (f.name.clone(), f.field_type.to_string(), f.required))
            .collect();
        assert_eq!(applied, described);
        for field in &file.fields {
            if let Some(id) = field.id {
                assert_eq!(
                    after
                        .fields
                        .iter()
                        .find(|f| f.name == field.name)
                        .map(|f| f.id),
                    Some(id)
                );
            }
        }
    }

    #[test]
    fn the_same_table_is_no_change() {
        let (lines, problems, _) = diff(BASE);
        assert!(
            lines.is_empty() && problems.is_empty(),
            "{lines:?} {problems:?}"
        );
    }

    #[test]
    fn every_change_kind_points_at_its_text() {
        let proposal = r#"
table: db.users
fields:
  - {id: 2, name: mobile_phone, type: string}
  - {id: 1, name: id, type: long, required: true}
  - {id: 3, name: qty, type: long, required: true, doc: units}
  - id: 4
    name: address
    type: {struct: [{id: 6, name: zip, type: string}, {name: street, type: string}, {id: 5, name: town, type: string}]}
  - {id: 7, name: tags, type: {list: string, element-required: true}}
  - {id: 9, name: attrs, type: {map: [string, {struct: [{id: 12, name: a, type: long}, {name: b, type: int}]}], key-id: 10, value-id: 11}}
  - {name: vip_level, type: int}
"#;
        let (lines, problems, _) = diff(proposal);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            lines,
            [
                "rename phone -> mobile_phone @mobile_phone",
                "rename address.city -> town @town",
                "doc mobile_phone None @mobile_phone",
                "required qty true @true",
                "doc qty Some(\"units\") @units",
                "type qty long @long",
                "required tags.element true @string",
                "type attrs.value.a long @long",
                "move mobile_phone First @mobile_phone",
                "move address.zip First @zip",
                "add address/street Some(After(\"zip\")) @street",
                "add attrs.value/b None @b",
                "add /vip_level None @vip_level",
            ]
        );
        applies_to_the_file(proposal);
    }

    #[test]
    fn a_missing_id_is_a_drop_and_the_drop_points_at_its_struct() {
        let proposal = "table: db.users\nfields:\n  - {id: 1, name: id, type: long, required: true}\n  - {id: 3, name: qty, type: int}\n  - {id: 4, name: address, type: {struct: [{id: 5, name: city, type: string}]}}\n  - {id: 7, name: tags, type: {list: string, element-id: 8}}\n  - {id: 9, name: attrs, type: {map: [string, {struct: [{id: 12, name: a, type: int}]}], key-id: 10, value-id: 11}}\n";
        let (lines, _, _) = diff(proposal);
        assert_eq!(lines, ["drop phone @fields", "drop address.zip @address"]);
        applies_to_the_file(proposal);
    }

    #[test]
    fn new_fields_take_ids_in_file_order_and_keep_their_place() {
        let proposal = r#"
table: db.users
fields:
  - {name: first, type: int}
  - {id: 1, name: id, type: long, required: true}
  - {id: 2, name: phone, type: string, doc: mobile}
  - {name: middle, type: "struct<a: int, b: array<string>>"}
  - {id: 3, name: qty, type: int}
  - {id: 4, name: address, type: {struct: [{id: 5, name: city, type: string}, {id: 6, name: zip, type: string}]}}
  - {id: 7, name: tags, type: {list: string, element-id: 8}}
  - {id: 9, name: attrs, type: {map: [string, {struct: [{id: 12, name: a, type: int}]}], key-id: 10, value-id: 11}}
  - {name: last, type: "map<string, int>"}
identifier-fields: [id]
"#;
        let (lines, _, diff) = diff(proposal);
        assert_eq!(
            lines,
            [
                "add /first Some(First) @first",
                "add /middle Some(After(\"phone\")) @middle",
                "add /last None @last",
            ]
        );
        applies_to_the_file(proposal);
        let StatementKind::Alter(changes) = &diff.statement.kind else {
            panic!()
        };
        let evolution = evolve(&base(), [changes.as_slice()]);
        let ids: Vec<(String, FieldId)> = evolution
            .assigned
            .iter()
            .map(|a| (a.path.clone(), a.field_id))
            .collect();
        let expected = [
            ("first", 14),
            ("middle", 15),
            ("middle.a", 16),
            ("middle.b", 17),
            ("middle.b.element", 18),
            ("last", 19),
            ("last.key", 20),
            ("last.value", 21),
        ];
        let expected: Vec<(String, FieldId)> =
            expected.iter().map(|(p, i)| (p.to_string(), *i)).collect();
        assert_eq!(ids, expected);
    }

    #[test]
    fn fields_of_a_type_string_pair_by_name() {
        let proposal = BASE.replace(
            "type: {struct: [{id: 5, name: city, type: string}, {id: 6, name: zip, type: string}]}",
            "type: \"struct<city: string, zip: int, street: string>\"",
        );
        let (lines, problems, _) = diff(&proposal);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            lines,
            [
                "type address.zip int @int",
                "add address/street None @street"
            ]
        );
    }

    #[test]
    fn a_re_added_name_without_id_is_explained() {
        let proposal = BASE.replace(
            "{id: 2, name: phone, type: string, doc: mobile}",
            "{name: phone, type: string, doc: mobile}",
        );
        let (lines, _, diff) = diff(&proposal);
        assert_eq!(
            lines,
            [
                "drop phone @fields",
                "add /phone Some(After(\"id\")) @phone"
            ]
        );
        assert_eq!(diff.notes.len(), 1);
        assert_eq!(diff.notes[0].paths, ["phone", "phone"]);
        assert!(
            diff.notes[0].text.contains("write `id: 2`"),
            "{:?}",
            diff.notes
        );
        // The same with a new field's id (14 is what apply assigns): still explained.
        let renumbered = BASE.replace(
            "{id: 2, name: phone, type: string, doc: mobile}",
            "{id: 14, name: phone, type: string, doc: mobile}",
        );
        let (lines, problems, found) = self::diff(&renumbered);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(found.notes.len(), 1);
        assert!(
            found.notes[0]
                .text
                .starts_with("`phone` has id 14, a new field's, in the file"),
            "{:?}",
            found.notes
        );
    }

    #[test]
    fn ids_the_table_retired_or_never_had_are_problems() {
        // (Without the file's own `dropped`, which would catch id 13 on reading.)
        let proposal = BASE
            .replace(
                "  - {id: 3, name: qty, type: int}\n",
                "  - {id: 3, name: qty, type: int}\n  - {id: 13, name: state, type: string}\n  - {id: 99, name: extra, type: int}\n",
            )
            .replace("dropped:\n  - {id: 13, name: status, type: string}\n", "");
        let (lines, problems, _) = diff(&proposal);
        assert_eq!(
            lines,
            [
                "add /state Some(After(\"qty\")) @state",
                "add /extra Some(After(\"state\")) @extra",
            ]
        );
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].starts_with("IdReuse: `state` has id 13, which belonged to `status`"));
        // `state` is judged as a new field too, so it takes 14 and `extra` 15.
        assert!(
            problems[1].starts_with("UnknownField")
                && problems[1].contains(
                    ": `extra` has id 99, but the table has no field with that id, and `apply` assigns this new field id 15"
                ),
            "{problems:?}"
        );
        // An id at or below last-column-id that no schema has (its schema expired) is not a
        // new field's.
        let mut expired = base();
        expired.last_column_id = 20;
        let below = BASE.replace(
            "  - {id: 3, name: qty, type: int}\n",
            "  - {id: 3, name: qty, type: int}\n  - {id: 16, name: gone, type: int}\n",
        );
        let source = Arc::new(SourceFile {
            name: "p.yaml".into(),
            text: below.clone(),
        });
        let problems = SchemaFile::parse_yaml(&below)
            .unwrap()
            .diff(&source, &expired)
            .problems;
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].message.contains(
                "has id 16, but the table has no field with that id (its last-column-id is 20)"
            ),
            "{problems:?}"
        );
    }

    /// `proposal` with the ids `apply` assigns written in, as `apply --write` leaves it.
    fn written_back(proposal: &str) -> String {
        let (_, problems, diff) = diff(proposal);
        assert!(problems.is_empty(), "{problems:?}");
        let StatementKind::Alter(changes) = &diff.statement.kind else {
            panic!()
        };
        let evolution = evolve(&base(), [changes.as_slice()]);
        super::super::fill_ids(
            proposal,
            super::super::Format::Yaml,
            evolution.metadata.current_schema(),
        )
        .unwrap()
    }

    const NEW_FIELDS: &str = r#"
table: db.users
fields:
  - {name: first, type: int}
  - {id: 1, name: id, type: long, required: true}
  - {id: 2, name: phone, type: string, doc: mobile}
  - {id: 3, name: qty, type: int}
  - id: 4
    name: address
    type: {struct: [{id: 5, name: city, type: string}, {id: 6, name: zip, type: string}, {name: street, type: string}]}
  - {id: 7, name: tags, type: {list: string, element-id: 8}}
  - {id: 9, name: attrs, type: {map: [string, {struct: [{id: 12, name: a, type: int}]}], key-id: 10, value-id: 11}}
  - {name: points, type: {list: {struct: [{name: x, type: double}, {name: m, type: {map: [string, int]}}]}}}
identifier-fields: [id]
"#;

    #[test]
    fn ids_apply_wrote_back_are_the_new_fields_they_name() {
        let filled = written_back(NEW_FIELDS);
        assert!(filled.contains("{id: 14, name: first"), "{filled}");
        assert!(filled.contains("element-id: 17"), "{filled}");
        let (before, _, _) = diff(NEW_FIELDS);
        let (after, problems, found) = diff(&filled);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(after, before);
        assert!(found.notes.is_empty(), "{:?}", found.notes);
        applies_to_the_file(&filled);
    }

    #[test]
    fn a_new_id_that_is_not_the_one_apply_assigns_names_the_one_it_does() {
        let filled = written_back(NEW_FIELDS);
        // Two new fields swapped, and a map's key id changed.
        let tampered = filled
            .replace("{id: 14, name: first", "{id: 15, name: first")
            .replace("{id: 15, name: street", "{id: 14, name: street")
            .replace("key-id: 20", "key-id: 30");
        assert_ne!(tampered, filled);
        let (lines, problems, found) = diff(&tampered);
        assert_eq!(lines, diff(NEW_FIELDS).0, "judged as the same new fields");
        assert_eq!(problems.len(), 3, "{problems:?}");
        let first = found
            .problems
            .iter()
            .find(|p| p.path.as_deref() == Some("first"))
            .unwrap();
        assert!(
            first
                .message
                .contains("`first` has id 15, but the table has no field with that id, and `apply` assigns this new field id 14"),
            "{}",
            first.message
        );
        assert_eq!(
            first
                .help
                .as_deref()
                .map(|h| h.starts_with("write `id: 14`")),
            Some(true)
        );
        assert_eq!(
            &tampered[first.origin.focus.offset..first.origin.focus.end()],
            "15"
        );
        let key = found
            .problems
            .iter()
            .find(|p| p.path.as_deref() == Some("points.element.m.key"))
            .unwrap();
        assert!(
            key.message.contains("id 30") && key.message.contains("id 20"),
            "{}",
            key.message
        );
        assert!(
            key.help
                .as_deref()
                .unwrap_or_default()
                .starts_with("write `key-id: 20`")
        );
    }

    #[test]
    fn reshaping_nested_types_is_a_problem_not_a_change() {
        let moved = BASE
            .replace(
                "  - {id: 3, name: qty, type: int}\n",
                "  - {id: 3, name: qty, type: int}\n  - {id: 5, name: city, type: string}\n",
            )
            .replace("{id: 5, name: city, type: string}, {id: 6", "{id: 6");
        let (lines, problems, _) = diff(&moved);
        assert!(lines.is_empty(), "{lines:?}");
        assert!(
            problems[0].starts_with("NestedStructure: `city` has id 5, which is `address.city`")
        );

        let element = BASE.replace("element-id: 8", "element-id: 30");
        let (_, problems, _) = diff(&element);
        assert!(
            problems[0].contains("`tags.element` has id 8 in the table, but the file gives it 30")
        );

        let kind = BASE.replace(
            "{id: 3, name: qty, type: int}",
            "{id: 3, name: qty, type: \"array<int>\"}",
        );
        let (lines, problems, _) = diff(&kind);
        assert!(lines.is_empty(), "{lines:?}");
        assert!(problems[0].starts_with(
            "InvalidChange: Cannot change the type of `qty` (field id 3) from int to list<int>"
        ));
    }

    #[test]
    fn identifier_fields_change_only_when_stated() {
        let unstated = BASE.replace("identifier-fields: [id]\n", "");
        assert!(diff(&unstated).0.is_empty());
        let dropped = BASE
            .replace("identifier-fields: [id]", "identifier-fields: []")
            .replace("  - {id: 1, name: id, type: long, required: true}\n", "");
        let (lines, _, _) = diff(&dropped);
        assert_eq!(lines, ["drop identifiers [\"id\"] @[]", "drop id @fields",]);
        let set = BASE.replace(
            "identifier-fields: [id]",
            "identifier-fields: [id, address.city]",
        );
        let (lines, _, _) = diff(&set);
        assert_eq!(
            lines,
            ["identifiers [\"id\", \"address.city\"] @[id, address.city]"]
        );
    }

    #[test]
    fn partition_sort_order_and_format_version_are_restated_not_changed() {
        let table = {
            let mut t = base();
            t.partition_specs[0]
                .fields
                .push(crate::iceberg::partition::PartitionField {
                    source_ids: vec![1],
                    field_id: Some(1000),
                    name: "id_bucket".into(),
                    transform: "bucket[16]".into(),
                });
            t
        };
        let check = |text: &str| {
            let source = Arc::new(SourceFile {
                name: "p.yaml".into(),
                text: text.to_string(),
            });
            let file = SchemaFile::parse_yaml(text).unwrap();
            file.diff(&source, &table)
                .problems
                .into_iter()
                .map(|p| p.message)
                .collect::<Vec<_>>()
        };
        assert!(check(&format!("{BASE}partition: [bucket(16, id)]\n")).is_empty());
        let changed = check(&format!(
            "{BASE}partition: [day(id)]\nformat-version: 3\nsort-order: [id]\n"
        ));
        assert_eq!(changed.len(), 3, "{changed:?}");
        assert!(changed[0].contains("format version 3, but the table is format version 2"));
        assert!(
            changed[1].contains("partition spec [bucket(16, id)]"),
            "{changed:?}"
        );
        assert!(changed[2].contains("sort order []"), "{changed:?}");
    }

    #[test]
    fn swapped_names_are_left_to_evolve_and_chains_are_ordered() {
        // qty takes phone's name after phone has moved on to mobile.
        let chain = BASE
            .replace("name: phone,", "name: mobile,")
            .replace("name: qty,", "name: phone,");
        let (lines, _, _) = diff(&chain);
        assert_eq!(
            lines,
            [
                "rename phone -> mobile @mobile",
                "rename qty -> phone @phone"
            ]
        );
        applies_to_the_file(&chain);
    }

    #[test]
    fn a_suppression_covers_the_entry_below_it() {
        let covers = |proposal: &str| {
            let (_, _, found) = diff(proposal);
            let StatementKind::Alter(changes) = &found.statement.kind else {
                panic!()
            };
            assert_eq!(found.suppressions.len(), 1, "{proposal}");
            let entry = found.suppressions[0].statement;
            let focus = changes[0].origin.focus;
            entry.offset <= focus.offset && focus.end() <= entry.end()
        };
        // Above `address`: its whole entry, the nested rename included.
        let above_address = BASE.replace(
            "  - id: 4\n    name: address\n    type: {struct: [{id: 5, name: city,",
            "  # fieldgate: allow column-rename -- the city is a town now\n  - id: 4\n    name: address\n    type: {struct: [{id: 5, name: town,",
        );
        assert!(covers(&above_address));
        // Above `city` itself, in a block list.
        let above_city = BASE.replace(
            "    type: {struct: [{id: 5, name: city, type: string}, {id: 6, name: zip, type: string}]}",
            "    type:\n      struct:\n        # fieldgate: allow column-rename -- the city is a town now\n        - {id: 5, name: town, type: string}\n        - {id: 6, name: zip, type: string}",
        );
        assert!(covers(&above_city));
        // Above `zip`: not the rename of city.
        let above_zip = above_city.replace(
            "        # fieldgate: allow column-rename -- the city is a town now\n        - {id: 5, name: town, type: string}\n        - {id: 6,",
            "        - {id: 5, name: town, type: string}\n        # fieldgate: allow column-rename -- the city is a town now\n        - {id: 6,",
        );
        assert!(!covers(&above_zip));
    }
}
