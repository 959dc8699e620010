//! A metadata file proposed as the table's next state (what an engine wrote), read as a proposal.
//!
//! Unlike DDL or a schema file, the proposal is not applied: the new state is the file itself.
//! What the rules need is the same, though: the changes, paired by field id between the base's
//! current schema and the proposal's current schema, each pointing at its place in the proposed
//! file. Drops, renames, type, nullability and doc changes, adds and moves come out as
//! [`Applied`] records, in the order a schema update applies them, so every rule judges an
//! engine-written file exactly as it judges the DDL that would have made it; `field-id-reuse`
//! then checks what only a written file can get wrong (reused or low ids, a lowered
//! `last-column-id`, rewritten history, a current schema that is not the newest), through the
//! [`Anchors`] of the document.
//!
//! Changes no schema update can make (a field moved to another struct, a list turned into a
//! struct under one id, a list element replaced) are [`Problem`]s, as `evolve` would report them
//! for DDL.

use std::collections::HashMap;

use crate::change::{Applied, AppliedKind, Assigned, Problem, ProblemKind};
use crate::change::{Origin, Source, Span};
use crate::frontend::longest_increasing;
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::schema::{FieldInfo, MemberKind};
use crate::iceberg::types::{FieldId, Type};
use crate::json::{self, Node};
use crate::proposal::{Anchors, MetadataProposal};

/// Diffs `proposed` (read from `root`, the parsed text of `source`) against `base`.
pub fn diff_metadata(
    source: &Source,
    root: &Node<'_>,
    proposed: TableMetadata,
    base: &TableMetadata,
) -> MetadataProposal {
    let spans = document_spans(root);
    let current = spans.get(&proposed.current_schema_id);
    let whole = Span::new(0, source.text.len());
    let origin = |focus: Span| Origin {
        source: source.clone(),
        statement: whole,
        focus,
    };
    let schema_anchor = current.map_or(Span::new(0, 0), |s| s.schema_id);
    // The best place in the proposed current schema for a change to member `id`.
    let focus = |id: FieldId, pick: fn(&MemberSpans) -> Option<Span>| {
        current
            .and_then(|s| s.members.get(&id))
            .map(|m| pick(m).unwrap_or(m.entry))
            .unwrap_or(schema_anchor)
    };

    let before = base.current_schema().index_by_id();
    let after_schema = proposed.current_schema().clone();
    let after_walk = after_schema.walk();
    let after: HashMap<FieldId, FieldInfo> = after_walk.iter().map(|f| (f.id, f.clone())).collect();

    let mut problems = Vec::new();
    let mut problem =
        |kind: ProblemKind, focus: Span, info: &FieldInfo, message: String, help: &str| {
            problems.push(Problem {
                kind,
                message,
                help: Some(help.to_string()),
                origin: origin(focus),
                field_id: Some(info.id),
                path: Some(info.path.clone()),
            });
        };
    let record = |kind: AppliedKind,
                  focus: Span,
                  old: Option<&FieldInfo>,
                  new: Option<&FieldInfo>,
                  from: Option<String>,
                  to: Option<String>| {
        let info = new.or(old);
        let path = info.map(|i| i.path.clone()).unwrap_or_default();
        let mut applied = Applied::new(kind, info.map(|i| i.id), path, from, to);
        applied.origin = Some(origin(focus));
        applied.before = old.cloned();
        applied.after = new.cloned();
        applied
    };

    let mut drops = Vec::new();
    for old in base.current_schema().walk() {
        let kept_parent = old.parent_id.is_none_or(|p| after.contains_key(&p));
        if old.kind == MemberKind::StructField && !after.contains_key(&old.id) && kept_parent {
            let at = old
                .parent_id
                .map_or(schema_anchor, |p| focus(p, |m| m.name));
            drops.push(record(
                AppliedKind::Drop,
                at,
                Some(&old),
                None,
                Some(old.field_type.to_string()),
                None,
            ));
        }
    }

    let mut renames = Vec::new();
    let mut updates = Vec::new();
    let mut layout = Vec::new();
    // Members of a replaced or reshaped type: reported once, with their owner.
    let mut reported: Vec<FieldId> = Vec::new();
    for new in &after_walk {
        let Some(old) = before.get(&new.id) else {
            continue;
        };
        if reported.contains(&new.id) {
            continue;
        }
        if old.kind != new.kind || old.parent_id != new.parent_id {
            problem(
                ProblemKind::NestedStructure,
                focus(new.id, |m| m.name),
                new,
                format!(
                    "id {} is `{}` in the table but `{}` in the proposed metadata: Iceberg cannot move a field into another struct",
                    new.id, old.path, new.path
                ),
                "keep every id where it is; a field in a new place is a new field with a new id",
            );
            continue;
        }
        if new.kind == MemberKind::StructField && new.name != old.name {
            let mut rename = record(
                AppliedKind::Rename,
                focus(new.id, |m| m.name),
                Some(old),
                Some(new),
                Some(old.path.clone()),
                Some(new.path.clone()),
            );
            // As `evolve` records it: a rename is about the field it renames.
            rename.path = old.path.clone();
            renames.push(rename);
        }
        match (&old.field_type, &new.field_type) {
            (Type::Primitive(a), Type::Primitive(b)) if a != b => {
                if old.kind == MemberKind::MapKey {
                    problem(
                        ProblemKind::NestedStructure,
                        focus(new.id, |m| m.field_type),
                        new,
                        format!(
                            "Cannot alter map keys: `{}` changes from {a} to {b}",
                            new.path
                        ),
                        "map keys are immutable: add a new map column and backfill it",
                    );
                } else {
                    updates.push(record(
                        AppliedKind::UpdateType,
                        focus(new.id, |m| m.field_type),
                        Some(old),
                        Some(new),
                        Some(a.to_string()),
                        Some(b.to_string()),
                    ));
                }
            }
            (Type::Primitive(_), Type::Primitive(_)) | (Type::Struct(_), Type::Struct(_)) => {}
            (Type::List(a), Type::List(b)) if a.element_id != b.element_id => {
                reported.extend(subtree(&after_walk, b.element_id));
                problem(
                    ProblemKind::NestedStructure,
                    focus(new.id, |m| m.field_type),
                    new,
                    format!(
                        "the element of `{}` is replaced (id {} -> {}): a list's element cannot be replaced",
                        new.path, a.element_id, b.element_id
                    ),
                    "keep the element's id; a new shape is a new column",
                );
            }
            (Type::Map(a), Type::Map(b)) if a.key_id != b.key_id || a.value_id != b.value_id => {
                reported.extend(subtree(&after_walk, b.key_id));
                reported.extend(subtree(&after_walk, b.value_id));
                problem(
                    ProblemKind::NestedStructure,
                    focus(new.id, |m| m.field_type),
                    new,
                    format!(
                        "the key or value of `{}` is replaced (ids {}/{} -> {}/{}): a map's key and value cannot be replaced",
                        new.path, a.key_id, a.value_id, b.key_id, b.value_id
                    ),
                    "keep the key's and value's ids; a new shape is a new column",
                );
            }
            (Type::List(_), Type::List(_)) | (Type::Map(_), Type::Map(_)) => {}
            (a, b) => {
                reported.extend(subtree(&after_walk, new.id));
                problem(
                    ProblemKind::InvalidChange,
                    focus(new.id, |m| m.field_type),
                    new,
                    format!(
                        "Cannot change the type of `{}` (field id {}) from {a} to {b}: only primitive types can change",
                        new.path, new.id
                    ),
                    "add a new column with the new type and backfill it",
                );
                continue;
            }
        }
        if new.required != old.required && old.kind != MemberKind::MapKey {
            let word = |r: bool| if r { "required" } else { "optional" };
            let kind = if new.required {
                AppliedKind::SetRequired
            } else {
                AppliedKind::SetOptional
            };
            updates.push(record(
                kind,
                focus(new.id, |m| m.required),
                Some(old),
                Some(new),
                Some(word(old.required).into()),
                Some(word(new.required).into()),
            ));
        }
        if new.doc != old.doc {
            updates.push(record(
                AppliedKind::UpdateDoc,
                focus(new.id, |m| m.doc),
                Some(old),
                Some(new),
                old.doc.clone(),
                new.doc.clone(),
            ));
        }
    }

    // Adds (the top of each new subtree) and moves, struct by struct in the proposal's order.
    let mut containers: Vec<Option<FieldId>> = Vec::new();
    for info in &after_walk {
        if info.kind == MemberKind::StructField && !containers.contains(&info.parent_id) {
            containers.push(info.parent_id);
        }
    }
    for container in containers {
        let exists_before = container.is_none_or(|c| before.contains_key(&c));
        if !exists_before || container.is_some_and(|c| reported.contains(&c)) {
            continue;
        }
        let siblings: Vec<&FieldInfo> = after_walk
            .iter()
            .filter(|f| f.kind == MemberKind::StructField && f.parent_id == container)
            .collect();
        let positions: Vec<Option<usize>> = siblings
            .iter()
            .map(|f| {
                before
                    .get(&f.id)
                    .filter(|old| old.parent_id == container && old.kind == f.kind)
                    .map(|old| old.position)
            })
            .collect();
        let in_place = longest_increasing(&positions);
        let mut previous: Option<&str> = None;
        for (i, field) in siblings.iter().enumerate() {
            match positions[i] {
                None if !before.contains_key(&field.id) => layout.push(record(
                    AppliedKind::Add,
                    focus(field.id, |m| m.name),
                    None,
                    Some(field),
                    None,
                    Some(field.field_type.to_string()),
                )),
                Some(_) if !in_place[i] => {
                    let to = previous.map_or("first".to_string(), |p| format!("after {p}"));
                    layout.push(record(
                        AppliedKind::Move,
                        focus(field.id, |m| m.name),
                        before.get(&field.id),
                        Some(field),
                        None,
                        Some(to),
                    ));
                }
                _ => {}
            }
            previous = Some(&field.name);
        }
    }

    let mut identifiers = Vec::new();
    let old_ids = &base.current_schema().identifier_field_ids;
    let new_ids = &after_schema.identifier_field_ids;
    let (mut a, mut b) = (old_ids.clone(), new_ids.clone());
    a.sort_unstable();
    b.sort_unstable();
    if a != b {
        let names = |ids: &[FieldId], index: &HashMap<FieldId, FieldInfo>| {
            ids.iter()
                .map(|id| index.get(id).map_or(id.to_string(), |f| f.path.clone()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let at = current.and_then(|s| s.identifiers).unwrap_or(schema_anchor);
        let (kind, from, to) = if new_ids.is_empty() {
            (
                AppliedKind::DropIdentifierFields,
                Some(names(old_ids, &before)),
                None,
            )
        } else {
            (
                AppliedKind::SetIdentifierFields,
                None,
                Some(names(new_ids, &after)),
            )
        };
        let path = from.clone().or(to.clone()).unwrap_or_default();
        let mut applied = Applied::new(kind, None, path, from, to);
        applied.origin = Some(origin(at));
        identifiers.push(applied);
    }

    let mut assigned: Vec<Assigned> = after_walk
        .iter()
        .filter(|f| !before.contains_key(&f.id))
        .map(|f| Assigned {
            path: f.path.clone(),
            field_id: f.id,
        })
        .collect();
    assigned.sort_by_key(|a| a.field_id);

    let mut anchors = Anchors {
        last_column_id: root.get("last-column-id").map(|n| origin(span(n.span))),
        current_schema_id: root.get("current-schema-id").map(|n| origin(span(n.span))),
        ..Anchors::default()
    };
    for (schema_id, schema) in &spans {
        anchors.schemas.insert(*schema_id, origin(schema.schema_id));
        for (id, member) in &schema.members {
            anchors.fields.insert(
                (*schema_id, *id),
                origin(member.name.unwrap_or(member.entry)),
            );
        }
    }

    let applied = drops
        .into_iter()
        .chain(renames)
        .chain(updates)
        .chain(layout)
        .chain(identifiers)
        .collect();
    MetadataProposal {
        source: source.clone(),
        metadata: proposed,
        applied,
        assigned,
        problems,
        anchors,
    }
}

/// `id` and every member inside it.
fn subtree(walk: &[FieldInfo], id: FieldId) -> Vec<FieldId> {
    let parents: HashMap<FieldId, Option<FieldId>> =
        walk.iter().map(|f| (f.id, f.parent_id)).collect();
    walk.iter()
        .map(|f| f.id)
        .filter(|member| {
            let mut current = Some(*member);
            while let Some(c) = current {
                if c == id {
                    return true;
                }
                current = parents.get(&c).copied().flatten();
            }
            false
        })
        .collect()
}

fn span(s: json::Span) -> Span {
    Span::from_range(s.start, s.end)
}

/// Where one schema's parts are in the proposed file.
struct SchemaSpans {
    /// The `schema-id` value (the schema object's start when it has none, as v1's `schema`).
    schema_id: Span,
    identifiers: Option<Span>,
    members: HashMap<FieldId, MemberSpans>,
}

/// Where one field (or list element, map key or value) is: the object that holds it, and its
/// parts when it has them.
#[derive(Debug, Clone, Copy)]
struct MemberSpans {
    entry: Span,
    name: Option<Span>,
    field_type: Option<Span>,
    required: Option<Span>,
    doc: Option<Span>,
}

fn document_spans(root: &Node<'_>) -> HashMap<i32, SchemaSpans> {
    let mut out = HashMap::new();
    let schemas: Vec<&Node<'_>> = match root.get("schemas").and_then(Node::as_array) {
        Some(list) => list.iter().collect(),
        None => root.get("schema").into_iter().collect(),
    };
    for schema in schemas {
        let id_node = schema.get("schema-id");
        let schema_id = id_node
            .and_then(Node::as_i64)
            .and_then(|id| i32::try_from(id).ok())
            .unwrap_or(0);
        let mut members = HashMap::new();
        if let Some(fields) = schema.get("fields") {
            struct_spans(fields, &mut members);
        }
        out.insert(
            schema_id,
            SchemaSpans {
                schema_id: id_node.map_or(Span::new(schema.span.start, 1), |n| span(n.span)),
                identifiers: schema.get("identifier-field-ids").map(|n| span(n.span)),
                members,
            },
        );
    }
    out
}

fn struct_spans(fields: &Node<'_>, out: &mut HashMap<FieldId, MemberSpans>) {
    for field in fields.as_array().unwrap_or_default() {
        let Some(id) = member_id(field.get("id")) else {
            continue;
        };
        out.insert(
            id,
            MemberSpans {
                entry: span(field.span),
                name: field.get("name").map(|n| span(n.span)),
                field_type: field.get("type").map(|n| span(n.span)),
                required: field.get("required").map(|n| span(n.span)),
                doc: field.get("doc").map(|n| span(n.span)),
            },
        );
        if let Some(ty) = field.get("type") {
            type_spans(ty, out);
        }
    }
}

fn type_spans(ty: &Node<'_>, out: &mut HashMap<FieldId, MemberSpans>) {
    match ty.get("type").and_then(Node::as_str) {
        Some("struct") => {
            if let Some(fields) = ty.get("fields") {
                struct_spans(fields, out);
            }
        }
        Some("list") => member_spans(ty, "element-id", "element", "element-required", out),
        Some("map") => {
            member_spans(ty, "key-id", "key", "", out);
            member_spans(ty, "value-id", "value", "value-required", out);
        }
        _ => {}
    }
}

fn member_spans(
    ty: &Node<'_>,
    id_key: &str,
    type_key: &str,
    required_key: &str,
    out: &mut HashMap<FieldId, MemberSpans>,
) {
    let Some(id) = member_id(ty.get(id_key)) else {
        return;
    };
    let member_type = ty.get(type_key);
    out.insert(
        id,
        MemberSpans {
            entry: span(ty.span),
            name: ty.get(id_key).map(|n| span(n.span)),
            field_type: member_type.map(|n| span(n.span)),
            required: ty.get(required_key).map(|n| span(n.span)),
            doc: None,
        },
    );
    if let Some(member_type) = member_type {
        type_spans(member_type, out);
    }
}

fn member_id(node: Option<&Node<'_>>) -> Option<FieldId> {
    node.and_then(Node::as_i64)
        .and_then(|id| FieldId::try_from(id).ok())
}
