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

use crate::change::{Change, ChangeKind, Origin, Problem, ProblemKind, Source, Span, Statement};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::pair::{Member, Members, Pairing};
use crate::iceberg::schema::MemberKind;
use crate::iceberg::types::FieldId;
use crate::proposal::Note;
use crate::suppress::Suppression;

mod finish;
mod ids;
mod layout;
mod properties;
#[cfg(test)]
mod tests;
mod walk;

use super::new_ids::WrittenId;
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
enum Partner<'a> {
    Existing(Member<'a>),
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
    /// The members of the table's current schema.
    members: Members<'a>,
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
        let members = Members::of(base.current_schema());
        let mut retired = HashMap::new();
        for schema in &base.schemas {
            let earlier = Members::of(schema);
            for field in Pairing::of(&earlier, &members).dropped() {
                retired.insert(field.id, earlier.path(field));
            }
        }
        Differ {
            file,
            source,
            whole: Span::new(0, source.text.len()),
            base,
            members,
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
        self.members.get(id).map_or_else(Vec::new, |m| {
            let segments = self.members.segments(m);
            segments.into_iter().map(str::to_string).collect()
        })
    }

    /// Marks `id` and everything inside it as accounted for.
    fn claim_subtree(&mut self, id: FieldId) {
        self.claimed
            .extend(self.members.subtree(id).into_iter().map(|m| m.id));
    }

    fn record(&mut self, id: FieldId, segments: &[String], anchor: Span) {
        self.claimed.insert(id);
        self.final_segments.insert(id, segments.to_vec());
        self.anchors.insert(id, anchor);
        self.entries.insert(id, self.entry);
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
