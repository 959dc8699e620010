//! Resolution: the table schema against one file's schema, by field id, exactly as an Iceberg
//! reader projects (spec "Column Projection"): each table field finds the file node with its id at
//! the same nesting level; a primitive is read as is, or promoted when the spec allows the change
//! from the file's type; a field the file lacks reads its `initial-default`, or null, and fails the
//! file when it is required. The result says, per field, what happened (the report) and, per
//! top-level field, what to read and how to build the table's value from it (the plan), plus the
//! leaf columns to project and the file columns left out (pruned: never read). A field the file
//! lacks takes, before its default, the value of an identity partition on it from the file's
//! manifest entry (as pyiceberg 0.12's `_get_column_projection_values`). Columns of a type
//! fieldgate cannot decode (variant, geometry, geography) are `not-read`: reported, never guessed.
//!
//! Pure: no I/O, so every rule here is tested on schemas written as text.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::iceberg::schema::Field;
use crate::iceberg::types::{FieldId, PrimitiveType, Type};
use crate::verify::file_schema::{FileNode, FileSchema, Shape};

mod missing;
mod not_read;
mod present;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Resolved,
    Promoted,
    MissingNull,
    MissingDefault,
    /// Not in the file: the value of an identity partition on the field, from the manifest.
    PartitionValue,
    /// A type fieldgate cannot decode: neither read nor shown.
    NotRead,
    Incompatible,
    MissingRequired,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Resolved => "resolved",
            Status::Promoted => "promoted",
            Status::MissingNull => "missing-null",
            Status::MissingDefault => "missing-default",
            Status::PartitionValue => "partition-value",
            Status::NotRead => "not-read",
            Status::Incompatible => "incompatible",
            Status::MissingRequired => "missing-required",
        }
    }

    pub fn fails(self) -> bool {
        matches!(self, Status::Incompatible | Status::MissingRequired)
    }
}

/// How one table field (or list element, map key or value) resolved in one file.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnReport {
    pub path: String,
    pub field_id: FieldId,
    pub status: Status,
    pub table_type: String,
    /// The file column it was read from (its path in the file's own names).
    pub file_column: Option<String>,
    /// How the file stores it, when that matters (promoted, incompatible).
    pub file_type: Option<String>,
    /// Why it is incompatible, or what the default is.
    pub detail: Option<String>,
    /// For an incompatible column: the first row group a reader would fail on.
    pub row_group: Option<usize>,
}

/// What to read for a field and how to build the table's value from it.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Not read: every row gets the default (`None`: null).
    Fill(Option<Value>),
    Read(Read),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The file node, as a path of child indices from the root of the file schema.
    pub node: Vec<usize>,
    pub kind: ReadKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ReadKind {
    Primitive,
    Struct(Vec<Plan>),
    List(Box<Plan>),
    Map(Box<Plan>, Box<Plan>),
}

/// A file column no table field reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Pruned {
    pub file_column: String,
    pub field_id: Option<FieldId>,
    pub leaves: std::ops::Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Resolution {
    pub columns: Vec<ColumnReport>,
    /// One per top-level table field, in table order.
    pub plans: Vec<Plan>,
    pub leaves: BTreeSet<usize>,
    pub pruned: Vec<Pruned>,
    /// Per top-level table field, the top-level file column with its id (by index), whether it
    /// could be read or not: what a field-id reader takes the field from.
    pub sources: Vec<Option<usize>>,
}

impl Resolution {
    pub fn fails(&self) -> bool {
        self.columns.iter().any(|c| c.status.fails())
    }
}

/// What a file's manifest entry says of a field the file may lack: an identity partition on it.
#[derive(Debug, Clone, PartialEq)]
pub enum Identity {
    /// The partition value (JSON single-value form; null when the partition value is null).
    Value {
        partition_field: String,
        value: Value,
    },
    /// The field is an identity partition source, but the file's manifest entry is unknown.
    Unknown(String),
}

/// Identity-partition facts by source field id.
pub type PartitionValues = BTreeMap<FieldId, Identity>;

/// A table type fieldgate cannot read yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

pub fn resolve(
    fields: &[Field],
    file: &FileSchema,
    format_version: u8,
    partition: &PartitionValues,
) -> Result<Resolution, Unsupported> {
    let mut r = Resolver {
        format_version,
        partition,
        columns: Vec::new(),
        leaves: BTreeSet::new(),
        unread: BTreeSet::new(),
    };
    let plans = r.fields(fields, Some((&file.columns, &[])), "", true)?;
    let pruned = pruned(&file.columns, &r.leaves, &r.unread);
    let sources = fields
        .iter()
        .map(|f| {
            let unknown = matches!(f.field_type, Type::Primitive(PrimitiveType::Unknown));
            file.columns
                .iter()
                .position(|c| c.id == Some(f.id))
                .filter(|_| !unknown)
        })
        .collect();
    Ok(Resolution {
        columns: r.columns,
        plans,
        leaves: r.leaves,
        pruned,
        sources,
    })
}

/// The v3 type a table type holds that fieldgate cannot decode (variant, geometry, geography),
/// at any depth: such a column is reported `not-read` as a whole.
pub fn unreadable(t: &Type) -> Option<&PrimitiveType> {
    match t {
        Type::Primitive(
            p @ (PrimitiveType::Variant | PrimitiveType::Geometry(_) | PrimitiveType::Geography(_)),
        ) => Some(p),
        Type::Primitive(_) => None,
        Type::Struct(s) => s.fields.iter().find_map(|f| unreadable(&f.field_type)),
        Type::List(l) => unreadable(&l.element),
        Type::Map(m) => unreadable(&m.key).or_else(|| unreadable(&m.value)),
    }
}

struct Resolver<'p> {
    format_version: u8,
    partition: &'p PartitionValues,
    columns: Vec<ColumnReport>,
    leaves: BTreeSet<usize>,
    /// File columns a table field resolved to but could not read (incompatible, not-read): not
    /// dropped columns, so not pruned.
    unread: BTreeSet<String>,
}

type Level<'a> = (&'a [FileNode], &'a [usize]);

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

impl Resolver<'_> {
    /// Resolves struct fields against the file nodes of one level (`None`: the parent is missing).
    fn fields(
        &mut self,
        fields: &[Field],
        level: Option<Level<'_>>,
        prefix: &str,
        parent_present: bool,
    ) -> Result<Vec<Plan>, Unsupported> {
        fields
            .iter()
            .map(|field| {
                let found = level.and_then(|(nodes, at)| {
                    nodes
                        .iter()
                        .position(|n| n.id == Some(field.id))
                        .map(|i| (&nodes[i], [at, &[i]].concat()))
                });
                self.member(
                    Member {
                        id: field.id,
                        path: join(prefix, &field.name),
                        required: field.required,
                        field_type: &field.field_type,
                        default: field.initial_default.as_ref().filter(|d| !d.is_null()),
                    },
                    found,
                    parent_present,
                )
            })
            .collect()
    }

    /// One table member against the file node with its id, if the file has one.
    fn member(
        &mut self,
        m: Member<'_>,
        found: Option<(&FileNode, Vec<usize>)>,
        parent_present: bool,
    ) -> Result<Plan, Unsupported> {
        if let Some(p) = unreadable(m.field_type) {
            self.undecodable(&m, p, found.map(|(node, _)| node));
            return Ok(Plan::Fill(None));
        }
        let unknown = matches!(m.field_type, Type::Primitive(PrimitiveType::Unknown));
        match found.filter(|_| !unknown) {
            Some((node, at)) => self.present(m, node, at),
            None => self.missing(&m, parent_present, unknown),
        }
    }
}

struct Member<'a> {
    id: FieldId,
    path: String,
    required: bool,
    field_type: &'a Type,
    default: Option<&'a Value>,
}

/// List and map members match structurally; a differing id in the file means another field.
fn same_id(node: &FileNode, id: FieldId) -> bool {
    node.id.is_none_or(|n| n == id)
}

/// The highest file nodes none of whose leaves are read and that no table field resolved to.
fn pruned(nodes: &[FileNode], leaves: &BTreeSet<usize>, unread: &BTreeSet<String>) -> Vec<Pruned> {
    let mut out = Vec::new();
    for node in nodes {
        if node.leaves.is_empty() || unread.contains(&node.path) {
            continue;
        }
        if leaves.range(node.leaves.clone()).next().is_none() {
            out.push(Pruned {
                file_column: node.path.clone(),
                field_id: node.id,
                leaves: node.leaves.clone(),
            });
            continue;
        }
        let children: Vec<FileNode> = match &node.shape {
            Shape::Struct(c) => c.clone(),
            Shape::List(e) => vec![(**e).clone()],
            Shape::Map(k, v) => vec![(**k).clone(), (**v).clone()],
            Shape::Primitive(_) | Shape::Other(_) => Vec::new(),
        };
        out.extend(pruned(&children, leaves, unread));
    }
    out
}

#[cfg(test)]
mod tests;
