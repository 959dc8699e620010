//! A metadata file proposed as the table's next state (what an engine wrote), read as a proposal.
//!
//! Unlike DDL or a schema file, the proposal is not applied: the new state is the file itself.
//! What the rules need is the same, though: the changes, paired by field id between the base's
//! current schema and the proposal's current schema, each pointing at its place in the proposed
//! file. Property changes, a new default partition spec or sort order, drops, renames, type,
//! nullability and doc changes, adds and moves come out as [`Applied`] records, table-level
//! changes first as in a schema file's statement, so every rule judges an engine-written file
//! exactly as it judges the DDL that would have made it;
//! `field-id-reuse` then checks what only a written file can get wrong (reused or low ids, a
//! lowered `last-column-id`, rewritten history, a current schema that is not the newest), through
//! the [`Anchors`] of the document.
//!
//! Changes no schema update can make (a field moved to another struct, a list turned into a
//! struct under one id, a list element replaced) are [`Problem`]s, as `evolve` would report them
//! for DDL.

mod fields;
mod identifiers;
mod layout;
mod properties;
mod spans;
mod spec_and_order;

use std::collections::HashMap;

use crate::change::{Applied, AppliedKind, Assigned, Origin, Problem, ProblemKind, Source, Span};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::pair::{Member, Members, Pairing};
use crate::iceberg::types::FieldId;
use crate::json::Node;
use crate::proposal::{Anchors, MetadataProposal};
use spans::{MemberSpans, PropertySpans, SchemaSpans};

/// Diffs `proposed` (read from `root`, the parsed text of `source`) against `base`.
pub fn diff_metadata(
    source: &Source,
    root: &Node<'_>,
    proposed: TableMetadata,
    base: &TableMetadata,
) -> MetadataProposal {
    let diff = Diff::new(source, root, &proposed, base);
    let properties = diff.property_changes();
    let spec_and_order = diff.spec_and_order_changes();
    let drops = diff.drops();
    let fields = diff.field_changes();
    let layout = diff.layout(&fields.reported);
    let identifiers = diff.identifier_change();
    let assigned = diff.assigned();
    let anchors = diff.anchors();
    let applied = properties
        .into_iter()
        .chain(spec_and_order)
        .chain(drops)
        .chain(fields.renames)
        .chain(fields.updates)
        .chain(layout)
        .chain(identifiers)
        .collect();
    MetadataProposal {
        source: source.clone(),
        metadata: proposed,
        applied,
        assigned,
        problems: fields.problems,
        anchors,
    }
}

/// The two states being compared, the members of both current schemas, and where the proposal's
/// parts are in its file.
struct Diff<'d> {
    source: &'d Source,
    base: &'d TableMetadata,
    proposed: &'d TableMetadata,
    spans: HashMap<i32, SchemaSpans>,
    properties: PropertySpans,
    top_level: HashMap<String, Span>,
    before: Members<'d>,
    after: Members<'d>,
}

impl<'d> Diff<'d> {
    fn new(
        source: &'d Source,
        root: &Node<'_>,
        proposed: &'d TableMetadata,
        base: &'d TableMetadata,
    ) -> Diff<'d> {
        Diff {
            source,
            base,
            proposed,
            spans: spans::document_spans(root),
            properties: spans::property_spans(root),
            top_level: spans::top_level_spans(root),
            before: Members::of(base.current_schema()),
            after: Members::of(proposed.current_schema()),
        }
    }

    fn pairing(&self) -> Pairing<'_, 'd> {
        Pairing::of(&self.before, &self.after)
    }

    fn current(&self) -> Option<&SchemaSpans> {
        self.spans.get(&self.proposed.current_schema_id)
    }

    fn origin(&self, focus: Span) -> Origin {
        Origin {
            source: self.source.clone(),
            statement: Span::new(0, self.source.text.len()),
            focus,
        }
    }

    /// Where a change with no better place points: the current schema's id.
    fn schema_anchor(&self) -> Span {
        self.current().map_or(Span::new(0, 0), |s| s.schema_id)
    }

    /// The best place in the proposed current schema for a change to member `id`.
    fn focus(&self, id: FieldId, pick: fn(&MemberSpans) -> Option<Span>) -> Span {
        self.current()
            .and_then(|s| s.members.get(&id))
            .map(|m| pick(m).unwrap_or(m.entry))
            .unwrap_or_else(|| self.schema_anchor())
    }

    /// A change of member `old` of the base into member `new` of the proposal.
    fn record(
        &self,
        kind: AppliedKind,
        focus: Span,
        old: Option<&Member<'d>>,
        new: Option<&Member<'d>>,
        from: Option<String>,
        to: Option<String>,
    ) -> Applied {
        let before = old.map(|m| self.before.info(m));
        let after = new.map(|m| self.after.info(m));
        let info = after.as_ref().or(before.as_ref());
        let path = info.map(|i| i.path.clone()).unwrap_or_default();
        let mut applied = Applied::new(kind, info.map(|i| i.id), path, from, to);
        applied.origin = Some(self.origin(focus));
        applied.before = before;
        applied.after = after;
        applied
    }

    /// A problem with member `new` of the proposal.
    fn problem(
        &self,
        kind: ProblemKind,
        focus: Span,
        new: &Member<'d>,
        message: String,
        help: &str,
    ) -> Problem {
        Problem {
            kind,
            message,
            help: Some(help.to_string()),
            origin: self.origin(focus),
            field_id: Some(new.id),
            path: Some(self.after.path(new)),
        }
    }

    /// Ids the proposal hands out, in id order.
    fn assigned(&self) -> Vec<Assigned> {
        let mut assigned: Vec<Assigned> = self
            .pairing()
            .added()
            .map(|f| Assigned {
                path: self.after.path(f),
                field_id: f.id,
            })
            .collect();
        assigned.sort_by_key(|a| a.field_id);
        assigned
    }

    fn anchors(&self) -> Anchors {
        let at = |key: &str| self.top_level.get(key).map(|s| self.origin(*s));
        let mut anchors = Anchors {
            last_column_id: at("last-column-id"),
            current_schema_id: at("current-schema-id"),
            ..Anchors::default()
        };
        for (schema_id, schema) in &self.spans {
            anchors
                .schemas
                .insert(*schema_id, self.origin(schema.schema_id));
            for (id, member) in &schema.members {
                let focus = member.name.unwrap_or(member.entry);
                anchors.fields.insert((*schema_id, *id), self.origin(focus));
            }
        }
        anchors
    }
}
