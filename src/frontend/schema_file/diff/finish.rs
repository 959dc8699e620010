//! The update put in order once the walk is done: identifier fields that go with a drop, drops,
//! renames in an order `evolve` can apply, updates, adds and moves, the final identifier fields;
//! then the table-level checks, the drop-and-re-add notes and the suppressions.

use std::collections::HashSet;

use super::{Differ, Rename, SchemaDiff, dotted, with};
use crate::change::{Change, ChangeKind, FieldPath, Span, Statement, StatementKind};
use crate::frontend::schema_file::new_ids::unexpected_ids;
use crate::frontend::schema_file::read::column_segments;
use crate::iceberg::schema::{FieldInfo, MemberKind};
use crate::iceberg::types::FieldId;
use crate::proposal::Note;
use crate::suppress::find_above;

impl Differ<'_> {
    /// Table fields the file does not account for, outermost only (a dropped struct takes its
    /// fields with it).
    /// Each with where it points and the entry it belongs to: its entry in `dropped`, else the
    /// struct that lost it, else `fields:`.
    fn drops(&self) -> Vec<(FieldInfo, Span, Span)> {
        let mut out = Vec::new();
        for member in self.members.iter() {
            if member.kind != MemberKind::StructField || self.claimed.contains(&member.id) {
                continue;
            }
            let parent_kept = member.parent_id.is_none_or(|p| self.claimed.contains(&p));
            if !parent_kept {
                continue;
            }
            let info = self.members.info(member);
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
                .members
                .children(container)
                .into_iter()
                .filter(|i| !dropped.contains(&i.id))
                .map(|i| i.name.to_string())
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

    pub(super) fn finish(mut self) -> SchemaDiff {
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
    pub(super) fn column_id(&self, name: &str) -> Option<FieldId> {
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
                .any(|(dropped, _, _)| self.members.within(*id, dropped.id))
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
                self.drop_identifiers(&remaining)
            } else {
                self.set_identifiers()
            };
            late.push(self.change(kind, span));
        }
        (early, late)
    }

    /// Dropping the identifier fields left once the other changes are made, by their final paths.
    fn drop_identifiers(&self, remaining: &[FieldId]) -> ChangeKind {
        ChangeKind::DropIdentifierFields {
            paths: remaining
                .iter()
                .filter_map(|id| self.final_segments.get(id).cloned())
                .map(FieldPath)
                .collect(),
        }
    }

    /// Setting the identifier fields the file names, by their paths in the file.
    fn set_identifiers(&self) -> ChangeKind {
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
