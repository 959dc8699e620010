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
use crate::iceberg::types::{FieldId, PrimitiveType, Type, is_allowed_promotion};
use crate::verify::file_schema::{FileNode, FileSchema, Shape};
use crate::verify::project::fill;

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

    fn member(
        &mut self,
        m: Member<'_>,
        found: Option<(&FileNode, Vec<usize>)>,
        parent_present: bool,
    ) -> Result<Plan, Unsupported> {
        if let Some(p) = unreadable(m.field_type) {
            let family = match p {
                PrimitiveType::Geometry(_) => "geometry",
                PrimitiveType::Geography(_) => "geography",
                _ => "variant",
            };
            let detail = format!("not verified: fieldgate does not read {family} values");
            let file_column = found.map(|(node, _)| node.path.clone());
            self.unread.extend(file_column.clone());
            self.not_read(m.id, &m.path, m.field_type, file_column, detail);
            return Ok(Plan::Fill(None));
        }
        let unknown = matches!(m.field_type, Type::Primitive(PrimitiveType::Unknown));
        let Some((node, at)) = found.filter(|_| !unknown) else {
            return self.missing(&m, parent_present, unknown);
        };
        let mut report = ColumnReport {
            path: m.path.clone(),
            field_id: m.id,
            status: Status::Resolved,
            table_type: m.field_type.to_string(),
            file_column: Some(node.path.clone()),
            file_type: None,
            detail: None,
            row_group: None,
        };
        let incompatible = |mut report: ColumnReport, why: String| {
            report.status = Status::Incompatible;
            report.file_type = Some(node.type_name());
            report.detail = Some(why);
            report
        };
        match (m.field_type, &node.shape) {
            (Type::Primitive(table), Shape::Primitive(file)) => {
                let ok = match &file.iceberg {
                    Some(f) if f == table => Some(Status::Resolved),
                    _ if file.int96
                        && matches!(
                            table,
                            PrimitiveType::Timestamp | PrimitiveType::Timestamptz
                        ) =>
                    {
                        Some(Status::Resolved)
                    }
                    Some(f) if is_allowed_promotion(f, table, self.format_version) => {
                        Some(Status::Promoted)
                    }
                    Some(f) => match timestamp_read(f, table, self.format_version) {
                        Some((status, why)) => {
                            report.detail = Some(why.into());
                            Some(status)
                        }
                        None => None,
                    },
                    None => None,
                };
                match ok {
                    Some(status) => {
                        report.status = status;
                        if status == Status::Promoted || report.detail.is_some() {
                            report.file_type = Some(node.type_name());
                        }
                        self.columns.push(report);
                        self.leaves.extend(node.leaves.clone());
                        Ok(Plan::Read(Read {
                            node: at,
                            kind: ReadKind::Primitive,
                        }))
                    }
                    None => {
                        let why = match &file.iceberg {
                            Some(f) => format!(
                                "the file stores {f} ({}); {f} -> {table} is not a type promotion Iceberg allows",
                                file.label
                            ),
                            None => format!(
                                "the file stores {}, which holds no Iceberg type",
                                file.label
                            ),
                        };
                        self.unread.insert(node.path.clone());
                        self.columns.push(incompatible(report, why));
                        Ok(Plan::Fill(None))
                    }
                }
            }
            (Type::Struct(s), Shape::Struct(children)) => {
                self.columns.push(report);
                let plans = self.fields(&s.fields, Some((children, &at)), &m.path, true)?;
                self.keep_one_leaf(node);
                Ok(Plan::Read(Read {
                    node: at,
                    kind: ReadKind::Struct(plans),
                }))
            }
            (Type::List(l), Shape::List(element)) if same_id(element, l.element_id) => {
                self.columns.push(report);
                let element_plan = self.member(
                    Member {
                        id: l.element_id,
                        path: join(&m.path, "element"),
                        required: l.element_required,
                        field_type: &l.element,
                        default: None,
                    },
                    Some((element, [at.as_slice(), &[0]].concat())),
                    true,
                )?;
                self.keep_one_leaf(node);
                Ok(Plan::Read(Read {
                    node: at,
                    kind: ReadKind::List(Box::new(element_plan)),
                }))
            }
            (Type::Map(map), Shape::Map(key, value))
                if same_id(key, map.key_id) && same_id(value, map.value_id) =>
            {
                self.columns.push(report);
                let key_plan = self.member(
                    Member {
                        id: map.key_id,
                        path: join(&m.path, "key"),
                        required: true,
                        field_type: &map.key,
                        default: None,
                    },
                    Some((key, [at.as_slice(), &[0]].concat())),
                    true,
                )?;
                let value_plan = self.member(
                    Member {
                        id: map.value_id,
                        path: join(&m.path, "value"),
                        required: map.value_required,
                        field_type: &map.value,
                        default: None,
                    },
                    Some((value, [at.as_slice(), &[1]].concat())),
                    true,
                )?;
                // The Parquet reader drops a map unless both its key and value are projected.
                self.keep_one_leaf(key);
                self.keep_one_leaf(value);
                Ok(Plan::Read(Read {
                    node: at,
                    kind: ReadKind::Map(Box::new(key_plan), Box::new(value_plan)),
                }))
            }
            _ => {
                let why = format!(
                    "the file stores {}, the table a {}",
                    node.describe(),
                    m.field_type
                );
                self.unread.insert(node.path.clone());
                self.columns.push(incompatible(report, why));
                Ok(Plan::Fill(None))
            }
        }
    }

    /// A present struct, list or map must have at least one leaf read, or its nulls and lengths
    /// are unknown: when every child is missing, the first leaf is read.
    fn keep_one_leaf(&mut self, node: &FileNode) {
        if self.leaves.range(node.leaves.clone()).next().is_none() && !node.leaves.is_empty() {
            self.leaves.insert(node.leaves.start);
        }
    }

    /// A field the file lacks. The order of what fills it is pyiceberg 0.12's
    /// (`ArrowProjectionVisitor.struct`): a required field without an `initial-default` fails even
    /// when an identity partition holds its value (Iceberg Java reads the partition value there);
    /// otherwise a non-null identity-partition value, then the `initial-default`, then null.
    fn missing(
        &mut self,
        m: &Member<'_>,
        parent_present: bool,
        unknown: bool,
    ) -> Result<Plan, Unsupported> {
        if let Some(default) = m.default
            && let Err(e) = fill(Some(default), m.field_type, 0)
        {
            if matches!(m.field_type, Type::List(_) | Type::Map(_)) {
                self.not_read(
                    m.id,
                    &m.path,
                    m.field_type,
                    None,
                    format!("not verified: {e}"),
                );
                return Ok(Plan::Fill(None));
            }
            return Err(Unsupported(format!("`{}`: {e}", m.path)));
        }
        let identity = self
            .partition
            .get(&m.id)
            .filter(|_| parent_present && !unknown);
        let partition_value = match identity {
            Some(Identity::Value {
                partition_field,
                value,
            }) if !value.is_null() => Some((partition_field, value)),
            _ => None,
        };
        let note = match identity {
            Some(Identity::Value {
                partition_field,
                value,
            }) if value.is_null() => Some(format!(
                "its identity partition `{partition_field}` is null in the manifest"
            )),
            Some(Identity::Unknown(why)) => Some(why.clone()),
            _ => None,
        };
        let (status, detail, value) = match (partition_value, m.default) {
            (Some((field, value)), default) if !m.required || default.is_some() => (
                Status::PartitionValue,
                Some(format!("identity partition `{field}` = {value}")),
                Some(value),
            ),
            (Some((field, value)), _) => (
                Status::MissingRequired,
                Some(format!(
                    "a required field with no initial-default: the identity partition `{field}` = {value} \
                     would fill it (Iceberg Java reads it so), but pyiceberg 0.12 refuses the file"
                )),
                None,
            ),
            (None, Some(default)) => (
                Status::MissingDefault,
                Some(format!("initial-default {default}")),
                Some(default),
            ),
            (None, None) if m.required && parent_present && !unknown => (
                Status::MissingRequired,
                Some("a required field with no initial-default: no reader can fill it".into()),
                None,
            ),
            (None, None) if unknown => (
                Status::MissingNull,
                Some("unknown columns always read as null".into()),
                None,
            ),
            (None, None) => (Status::MissingNull, None, None),
        };
        let detail = match (detail, note) {
            (Some(d), Some(n)) => Some(format!("{d}; {n}")),
            (d, n) => d.or(n),
        };
        self.columns.push(ColumnReport {
            path: m.path.clone(),
            field_id: m.id,
            status,
            table_type: m.field_type.to_string(),
            file_column: None,
            file_type: None,
            detail,
            row_group: None,
        });
        // Nested members of a missing field are missing too: null as their parent is, or, under a
        // struct default, the value it gives them or their own initial-default.
        let mut nested =
            |id, path: String, required, field_type: &Type, default: Option<&Value>| {
                self.missing(
                    &Member {
                        id,
                        path,
                        required,
                        field_type,
                        default,
                    },
                    false,
                    false,
                )
                .map(|_| ())
            };
        match m.field_type {
            Type::Primitive(_) => {}
            Type::Struct(s) => {
                for f in &s.fields {
                    let default = m.default.and_then(|given| {
                        given
                            .get(f.id.to_string())
                            .or(f.initial_default.as_ref())
                            .filter(|d| !d.is_null())
                    });
                    nested(
                        f.id,
                        join(&m.path, &f.name),
                        f.required,
                        &f.field_type,
                        default,
                    )?;
                }
            }
            Type::List(l) => nested(
                l.element_id,
                join(&m.path, "element"),
                true,
                &l.element,
                None,
            )?,
            Type::Map(map) => {
                nested(map.key_id, join(&m.path, "key"), true, &map.key, None)?;
                nested(map.value_id, join(&m.path, "value"), true, &map.value, None)?;
            }
        }
        Ok(Plan::Fill(value.cloned()))
    }

    /// A column of a type fieldgate cannot decode, and its nested members: reported, not read.
    fn not_read(
        &mut self,
        id: FieldId,
        path: &str,
        t: &Type,
        file_column: Option<String>,
        detail: String,
    ) {
        self.columns.push(ColumnReport {
            path: path.to_string(),
            field_id: id,
            status: Status::NotRead,
            table_type: t.to_string(),
            file_column,
            file_type: None,
            detail: Some(detail),
            row_group: None,
        });
        let members: Vec<(FieldId, String, &Type)> = match t {
            Type::Primitive(_) => Vec::new(),
            Type::Struct(s) => s
                .fields
                .iter()
                .map(|f| (f.id, join(path, &f.name), &f.field_type))
                .collect(),
            Type::List(l) => vec![(l.element_id, join(path, "element"), &l.element)],
            Type::Map(m) => vec![
                (m.key_id, join(path, "key"), &m.key),
                (m.value_id, join(path, "value"), &m.value),
            ],
        };
        for (id, member, member_type) in members {
            self.not_read(id, &member, member_type, None, format!("part of `{path}`"));
        }
    }
}

/// Timestamps pyiceberg 0.12 reads although their types differ (`_cast_if_needed`): a UTC-adjusted
/// column as a `timestamp` and a local one as a `timestamptz` (the microseconds as they are), and,
/// in v1 and v2 tables, nanoseconds as microseconds (truncated toward zero, an unsafe arrow cast).
fn timestamp_read(
    file: &PrimitiveType,
    table: &PrimitiveType,
    format_version: u8,
) -> Option<(Status, &'static str)> {
    use PrimitiveType as P;
    match (file, table) {
        (P::Timestamptz, P::Timestamp) | (P::Timestamp, P::Timestamptz) => Some((
            Status::Resolved,
            "the file's timestamp and the table's differ in time zone: readers take its microseconds as they are",
        )),
        (P::TimestampNs | P::TimestamptzNs, P::Timestamp | P::Timestamptz)
            if format_version <= 2 =>
        {
            Some((
                Status::Promoted,
                "nanoseconds truncated to microseconds, as pyiceberg reads v1 and v2 tables",
            ))
        }
        _ => None,
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
mod tests {
    use super::*;
    use crate::iceberg::codec::schema_from_json;
    use crate::iceberg::schema::Schema;
    use parquet::schema::parser::parse_message_type;
    use parquet::schema::types::SchemaDescriptor;
    use std::sync::Arc;

    fn table(json: &str) -> Schema {
        let root = crate::json::parse(json).unwrap();
        schema_from_json(&root, 0).unwrap()
    }

    fn file(text: &str) -> FileSchema {
        let t = parse_message_type(text).unwrap();
        FileSchema::from_parquet(&SchemaDescriptor::new(Arc::new(t)), None)
    }

    fn statuses(r: &Resolution) -> Vec<(String, &'static str)> {
        r.columns
            .iter()
            .map(|c| (c.path.clone(), c.status.as_str()))
            .collect()
    }

    const TABLE: &str = r#"{"type":"struct","schema-id":3,"fields":[
        {"id":1,"name":"id","required":true,"type":"long"},
        {"id":2,"name":"mobile","required":false,"type":"string"},
        {"id":4,"name":"vip_level","required":false,"type":"int"},
        {"id":5,"name":"total","required":false,"type":"long"},
        {"id":6,"name":"amount","required":false,"type":"decimal(12, 2)"},
        {"id":7,"name":"point","required":false,"type":{"type":"struct","fields":[
            {"id":8,"name":"x","required":false,"type":"double"},
            {"id":9,"name":"z","required":false,"type":"double"}]}}]}"#;

    #[test]
    fn resolves_by_id_promotes_fills_and_prunes() {
        let f = file(
            "message m {
               required int64 id = 1;
               optional binary phone (STRING) = 2;
               optional binary dropped (STRING) = 3;
               optional int32 total = 5;
               optional int32 amount (DECIMAL(9,2)) = 6;
               optional group point = 7 { optional double x = 8; optional double y = 10; }
             }",
        );
        let r = resolve(&table(TABLE).fields, &f, 2, &PartitionValues::new()).unwrap();
        assert_eq!(
            statuses(&r),
            [
                ("id".into(), "resolved"),
                ("mobile".into(), "resolved"),
                ("vip_level".into(), "missing-null"),
                ("total".into(), "promoted"),
                ("amount".into(), "promoted"),
                ("point".into(), "resolved"),
                ("point.x".into(), "resolved"),
                ("point.z".into(), "missing-null"),
            ]
        );
        assert_eq!(r.columns[1].file_column.as_deref(), Some("phone"));
        assert_eq!(r.leaves, BTreeSet::from([0, 1, 3, 4, 5]));
        let pruned: Vec<_> = r.pruned.iter().map(|p| p.file_column.as_str()).collect();
        assert_eq!(pruned, ["dropped", "point.y"]);
        assert_eq!(
            r.sources,
            [Some(0), Some(1), None, Some(3), Some(4), Some(5)]
        );
        assert!(!r.fails());
    }

    #[test]
    fn narrowing_other_types_and_missing_required_fail() {
        let f = file(
            "message m {
               optional binary total (STRING) = 5;
               optional int64 amount (DECIMAL(14,2)) = 6;
               optional int32 point = 7;
             }",
        );
        let r = resolve(&table(TABLE).fields, &f, 2, &PartitionValues::new()).unwrap();
        let st = statuses(&r);
        assert_eq!(st[0], ("id".into(), "missing-required"));
        assert_eq!(st[3], ("total".into(), "incompatible"));
        assert_eq!(st[4], ("amount".into(), "incompatible"));
        assert_eq!(st[5], ("point".into(), "incompatible"));
        assert!(r.fails());
        assert_eq!(
            r.columns[4].detail.as_deref(),
            Some(
                "the file stores decimal(14, 2) (INT64 (DECIMAL(14,2))); decimal(14, 2) -> decimal(12, 2) is not a type promotion Iceberg allows"
            )
        );
    }

    #[test]
    fn decimal_widening_over_every_physical_encoding() {
        for physical in [
            "int32 amount (DECIMAL(9,2))",
            "int64 amount (DECIMAL(10,2))",
            "fixed_len_byte_array(5) amount (DECIMAL(9,2))",
            "binary amount (DECIMAL(9,2))",
        ] {
            let f = file(&format!(
                "message m {{ required int64 id = 1; optional {physical} = 6; }}"
            ));
            let r = resolve(&table(TABLE).fields, &f, 2, &PartitionValues::new()).unwrap();
            assert_eq!(r.columns[4].status, Status::Promoted, "{physical}");
        }
        let f = file("message m { optional int32 amount (DECIMAL(9,3)) = 6; }");
        let r = resolve(&table(TABLE).fields, &f, 2, &PartitionValues::new()).unwrap();
        assert_eq!(r.columns[4].status, Status::Incompatible, "scale change");
    }

    #[test]
    fn defaults_unknown_and_nested_lists_and_maps() {
        let t = table(
            r#"{"type":"struct","schema-id":0,"fields":[
            {"id":1,"name":"id","required":true,"type":"long","initial-default":7},
            {"id":2,"name":"u","required":false,"type":"unknown"},
            {"id":3,"name":"pts","required":false,"type":{"type":"list","element-id":4,"element-required":false,
              "element":{"type":"struct","fields":[{"id":5,"name":"x","required":false,"type":"long"}]}}},
            {"id":6,"name":"m","required":false,"type":{"type":"map","key-id":7,"key":"string","value-id":8,
              "value-required":false,"value":"long"}}]}"#,
        );
        let f = file(
            "message m {
               optional int32 u = 2;
               optional group pts (LIST) = 3 { repeated group list { optional group element = 4 { optional int32 x = 5; optional int32 y = 9; } } }
               optional group m (MAP) = 6 { repeated group key_value { required binary key (STRING) = 7; optional int32 value = 8; } }
             }",
        );
        let r = resolve(&t.fields, &f, 3, &PartitionValues::new()).unwrap();
        assert_eq!(
            statuses(&r),
            [
                ("id".into(), "missing-default"),
                ("u".into(), "missing-null"),
                ("pts".into(), "resolved"),
                ("pts.element".into(), "resolved"),
                ("pts.element.x".into(), "promoted"),
                ("m".into(), "resolved"),
                ("m.key".into(), "resolved"),
                ("m.value".into(), "promoted"),
            ]
        );
        assert_eq!(r.plans[0], Plan::Fill(Some(serde_json::json!(7))));
        let pruned: Vec<_> = r.pruned.iter().map(|p| p.file_column.as_str()).collect();
        assert_eq!(pruned, ["u", "pts.element.y"]);
    }

    #[test]
    fn a_struct_whose_children_are_all_missing_still_reads_one_leaf() {
        let t = table(
            r#"{"type":"struct","schema-id":0,"fields":[
            {"id":1,"name":"s","required":false,"type":{"type":"struct","fields":[
              {"id":3,"name":"new","required":false,"type":"int"}]}}]}"#,
        );
        let f = file("message m { optional group s = 1 { optional int32 old = 2; } }");
        let r = resolve(&t.fields, &f, 2, &PartitionValues::new()).unwrap();
        assert_eq!(r.leaves, BTreeSet::from([0]));
    }

    #[test]
    fn an_incompatible_column_is_neither_pruned_nor_its_own_positional_source() {
        let f = file(
            "message m { required int64 id = 1; optional binary total (STRING) = 5; optional binary gone (STRING) = 3; }",
        );
        let r = resolve(&table(TABLE).fields, &f, 2, &PartitionValues::new()).unwrap();
        assert_eq!(r.columns[3].status, Status::Incompatible);
        let pruned: Vec<_> = r.pruned.iter().map(|p| p.file_column.as_str()).collect();
        assert_eq!(pruned, ["gone"], "`total` is unreadable, not dropped");
        assert_eq!(
            r.sources[3],
            Some(1),
            "a field-id reader takes `total` from `total`"
        );
    }

    fn partition(entries: &[(FieldId, Identity)]) -> PartitionValues {
        entries.iter().cloned().collect()
    }

    fn value(field: &str, v: Value) -> Identity {
        Identity::Value {
            partition_field: field.into(),
            value: v,
        }
    }

    #[test]
    fn a_missing_identity_partition_source_reads_the_partition_value() {
        let t = table(
            r#"{"type":"struct","schema-id":0,"fields":[
            {"id":1,"name":"id","required":false,"type":"long"},
            {"id":2,"name":"region","required":false,"type":"string","initial-default":"xx"},
            {"id":3,"name":"tier","required":false,"type":"int"},
            {"id":4,"name":"zone","required":false,"type":"string"},
            {"id":5,"name":"key","required":true,"type":"int"},
            {"id":6,"name":"s","required":false,"type":{"type":"struct","fields":[
              {"id":7,"name":"city","required":false,"type":"string"}]}}]}"#,
        );
        let f = file("message m { optional int64 id = 1; }");
        let values = partition(&[
            (2, value("region", serde_json::json!("eu"))),
            (3, value("tier", Value::Null)),
            (4, Identity::Unknown("not in the manifests".into())),
            (5, value("key", serde_json::json!(4))),
            (7, value("city", serde_json::json!("Delft"))),
        ]);
        let r = resolve(&t.fields, &f, 3, &values).unwrap();
        assert_eq!(
            statuses(&r),
            [
                ("id".into(), "resolved"),
                ("region".into(), "partition-value"),
                ("tier".into(), "missing-null"),
                ("zone".into(), "missing-null"),
                ("key".into(), "missing-required"),
                ("s".into(), "missing-null"),
                ("s.city".into(), "missing-null"),
            ]
        );
        // The partition value wins over the initial-default, as in pyiceberg.
        assert_eq!(r.plans[1], Plan::Fill(Some(serde_json::json!("eu"))));
        assert_eq!(
            r.columns[1].detail.as_deref(),
            Some("identity partition `region` = \"eu\"")
        );
        assert_eq!(r.plans[2], Plan::Fill(None));
        assert!(
            r.columns[2]
                .detail
                .as_deref()
                .unwrap()
                .contains("is null in the manifest")
        );
        assert_eq!(r.columns[3].detail.as_deref(), Some("not in the manifests"));
        // pyiceberg 0.12 refuses a required field the file lacks before it looks at partitions.
        assert!(
            r.columns[4]
                .detail
                .as_deref()
                .unwrap()
                .contains("pyiceberg 0.12 refuses")
        );
        // Under a missing struct, the partition value is not used: the struct is null.
        assert_eq!(r.plans[5], Plan::Fill(None));
    }

    #[test]
    fn variant_geometry_and_geography_columns_are_not_read_nor_pruned() {
        let t = table(
            r#"{"type":"struct","schema-id":0,"fields":[
            {"id":1,"name":"v","required":false,"type":"variant"},
            {"id":2,"name":"g","required":false,"type":"geometry(srid:4326)"},
            {"id":3,"name":"h","required":false,"type":"geography(OGC:CRS84, spherical)"},
            {"id":4,"name":"s","required":false,"type":{"type":"struct","fields":[
              {"id":5,"name":"x","required":false,"type":"int"},
              {"id":6,"name":"inner","required":false,"type":"variant"}]}},
            {"id":7,"name":"n","required":false,"type":"long"}]}"#,
        );
        let f = file(
            "message m {
               optional group v = 1 { required binary metadata; required binary value; }
               optional binary g = 2;
               optional group s = 4 { optional int32 x = 5; optional binary inner = 6; }
               optional int64 n = 7;
             }",
        );
        let r = resolve(&t.fields, &f, 3, &PartitionValues::new()).unwrap();
        assert_eq!(
            statuses(&r),
            [
                ("v".into(), "not-read"),
                ("g".into(), "not-read"),
                ("h".into(), "not-read"),
                ("s".into(), "not-read"),
                ("s.x".into(), "not-read"),
                ("s.inner".into(), "not-read"),
                ("n".into(), "resolved"),
            ]
        );
        assert_eq!(
            r.columns[0].detail.as_deref(),
            Some("not verified: fieldgate does not read variant values")
        );
        assert_eq!(r.columns[0].file_column.as_deref(), Some("v"));
        assert!(r.pruned.is_empty(), "{:?}", r.pruned);
        assert!(!r.fails());
        assert_eq!(r.leaves, BTreeSet::from([5]));
    }

    #[test]
    fn timestamp_ns_resolves_and_nested_defaults_fill_or_say_why_not() {
        let t = table(
            r#"{"type":"struct","schema-id":0,"fields":[
            {"id":1,"name":"at","required":false,"type":"timestamp_ns"},
            {"id":2,"name":"s","required":false,"type":{"type":"struct","fields":[
              {"id":3,"name":"a","required":false,"type":"int","initial-default":5},
              {"id":4,"name":"b","required":false,"type":"string"}]},"initial-default":{}},
            {"id":5,"name":"l","required":false,"type":{"type":"list","element-id":6,
              "element-required":false,"element":"int"},"initial-default":[1]},
            {"id":7,"name":"at_default","required":false,"type":"timestamptz_ns",
              "initial-default":"2017-11-16T22:31:08.123456789+00:00"}]}"#,
        );
        let f = file("message m { optional int64 at (TIMESTAMP(NANOS,false)) = 1; }");
        let r = resolve(&t.fields, &f, 3, &PartitionValues::new()).unwrap();
        assert_eq!(
            statuses(&r),
            [
                ("at".into(), "resolved"),
                ("s".into(), "missing-default"),
                ("s.a".into(), "missing-default"),
                ("s.b".into(), "missing-null"),
                ("l".into(), "not-read"),
                ("l.element".into(), "not-read"),
                ("at_default".into(), "missing-default"),
            ]
        );
        assert_eq!(r.plans[1], Plan::Fill(Some(serde_json::json!({}))));
        assert!(
            r.columns[4]
                .detail
                .as_deref()
                .unwrap()
                .contains("only null defaults of lists and maps are read")
        );
    }

    #[test]
    fn an_invalid_initial_default_is_an_error_not_a_value() {
        let t = table(
            r#"{"type":"struct","schema-id":0,"fields":[
            {"id":1,"name":"n","required":false,"type":"int","initial-default":"seven"}]}"#,
        );
        let f = file("message m { optional int64 other = 2; }");
        let e = resolve(&t.fields, &f, 3, &PartitionValues::new()).unwrap_err();
        assert_eq!(e.0, "`n`: initial-default \"seven\" is not a valid int");
    }

    #[test]
    fn timestamps_read_across_time_zones_and_nanoseconds_only_before_v3() {
        let t = table(
            r#"{"type":"struct","schema-id":0,"fields":[
            {"id":1,"name":"ts","required":false,"type":"timestamp"},
            {"id":2,"name":"tz","required":false,"type":"timestamptz"}]}"#,
        );
        let swapped = file(
            "message m {
               optional int64 ts (TIMESTAMP(MICROS,true)) = 1;
               optional int64 tz (TIMESTAMP(MICROS,false)) = 2;
             }",
        );
        let r = resolve(&t.fields, &swapped, 2, &PartitionValues::new()).unwrap();
        assert_eq!(
            statuses(&r),
            [("ts".into(), "resolved"), ("tz".into(), "resolved")]
        );
        assert_eq!(r.columns[0].file_type.as_deref(), Some("timestamptz"));
        let nanos = file(
            "message m {
               optional int64 ts (TIMESTAMP(NANOS,false)) = 1;
               optional int64 tz (TIMESTAMP(NANOS,true)) = 2;
             }",
        );
        let v2 = resolve(&t.fields, &nanos, 2, &PartitionValues::new()).unwrap();
        assert_eq!(
            statuses(&v2),
            [("ts".into(), "promoted"), ("tz".into(), "promoted")]
        );
        let v3 = resolve(&t.fields, &nanos, 3, &PartitionValues::new()).unwrap();
        assert_eq!(
            statuses(&v3),
            [("ts".into(), "incompatible"), ("tz".into(), "incompatible")]
        );
    }
}
