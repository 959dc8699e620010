//! A member the file has: read as it is, promoted, or incompatible; structs, lists and maps
//! resolved member by member.

use crate::iceberg::types::{ListType, MapType, PrimitiveType, Type, is_allowed_promotion};
use crate::verify::file_schema::{FileNode, FilePrimitive, Shape};

use super::{
    ColumnReport, Member, Plan, Read, ReadKind, Resolver, Status, Unsupported, join, same_id,
};

impl Resolver<'_> {
    /// A member found in the file, at `at`: its report comes before its nested members'.
    pub(super) fn present(
        &mut self,
        m: Member<'_>,
        node: &FileNode,
        at: Vec<usize>,
    ) -> Result<Plan, Unsupported> {
        let report = ColumnReport {
            path: m.path.clone(),
            field_id: m.id,
            status: Status::Resolved,
            table_type: m.field_type.to_string(),
            file_column: Some(node.path.clone()),
            file_type: None,
            detail: None,
            row_group: None,
        };
        match (m.field_type, &node.shape) {
            (Type::Primitive(table), Shape::Primitive(file)) => {
                Ok(self.primitive(report, node, at, file, table))
            }
            (Type::Struct(s), Shape::Struct(children)) => {
                self.columns.push(report);
                let plans = self.fields(&s.fields, Some((children, &at)), &m.path, true)?;
                self.keep_one_leaf(node);
                Ok(read(at, ReadKind::Struct(plans)))
            }
            (Type::List(l), Shape::List(element)) if same_id(element, l.element_id) => {
                self.columns.push(report);
                let element_plan = self.list_element(&m.path, l, element, &at)?;
                self.keep_one_leaf(node);
                Ok(read(at, ReadKind::List(Box::new(element_plan))))
            }
            (Type::Map(map), Shape::Map(key, value))
                if same_id(key, map.key_id) && same_id(value, map.value_id) =>
            {
                self.columns.push(report);
                let (key_plan, value_plan) = self.map_entries(&m.path, map, key, value, &at)?;
                // The Parquet reader drops a map unless both its key and value are projected.
                self.keep_one_leaf(key);
                self.keep_one_leaf(value);
                Ok(read(
                    at,
                    ReadKind::Map(Box::new(key_plan), Box::new(value_plan)),
                ))
            }
            _ => {
                let why = format!(
                    "the file stores {}, the table a {}",
                    node.describe(),
                    m.field_type
                );
                Ok(self.incompatible(report, node, why))
            }
        }
    }

    /// A primitive column, read when the file's type is the table's or reads as it.
    fn primitive(
        &mut self,
        mut report: ColumnReport,
        node: &FileNode,
        at: Vec<usize>,
        file: &FilePrimitive,
        table: &PrimitiveType,
    ) -> Plan {
        let Some((status, detail)) = read_as(file, table, self.format_version) else {
            return self.incompatible(report, node, not_readable_as(file, table));
        };
        report.status = status;
        report.detail = detail.map(Into::into);
        if status == Status::Promoted || report.detail.is_some() {
            report.file_type = Some(node.type_name());
        }
        self.columns.push(report);
        self.leaves.extend(node.leaves.clone());
        read(at, ReadKind::Primitive)
    }

    fn list_element(
        &mut self,
        path: &str,
        list: &ListType,
        element: &FileNode,
        at: &[usize],
    ) -> Result<Plan, Unsupported> {
        let member = Member {
            id: list.element_id,
            path: join(path, "element"),
            required: list.element_required,
            field_type: &list.element,
            default: None,
        };
        self.member(member, Some((element, [at, &[0]].concat())), true)
    }

    fn map_entries(
        &mut self,
        path: &str,
        map: &MapType,
        key: &FileNode,
        value: &FileNode,
        at: &[usize],
    ) -> Result<(Plan, Plan), Unsupported> {
        let key_member = Member {
            id: map.key_id,
            path: join(path, "key"),
            required: true,
            field_type: &map.key,
            default: None,
        };
        let key_plan = self.member(key_member, Some((key, [at, &[0]].concat())), true)?;
        let value_member = Member {
            id: map.value_id,
            path: join(path, "value"),
            required: map.value_required,
            field_type: &map.value,
            default: None,
        };
        let value_plan = self.member(value_member, Some((value, [at, &[1]].concat())), true)?;
        Ok((key_plan, value_plan))
    }

    /// A file column that cannot be read as the table's type: reported, left unread (not pruned),
    /// and the member read as null.
    fn incompatible(&mut self, mut report: ColumnReport, node: &FileNode, why: String) -> Plan {
        report.status = Status::Incompatible;
        report.file_type = Some(node.type_name());
        report.detail = Some(why);
        self.unread.insert(node.path.clone());
        self.columns.push(report);
        Plan::Fill(None)
    }

    /// A present struct, list or map must have at least one leaf read, or its nulls and lengths
    /// are unknown: when every child is missing, the first leaf is read.
    fn keep_one_leaf(&mut self, node: &FileNode) {
        if self.leaves.range(node.leaves.clone()).next().is_none() && !node.leaves.is_empty() {
            self.leaves.insert(node.leaves.start);
        }
    }
}

fn read(node: Vec<usize>, kind: ReadKind) -> Plan {
    Plan::Read(Read { node, kind })
}

/// How a file primitive reads as the table's type, and why when that is worth saying; `None`
/// when no reader reads it so.
fn read_as(
    file: &FilePrimitive,
    table: &PrimitiveType,
    format_version: u8,
) -> Option<(Status, Option<&'static str>)> {
    match &file.iceberg {
        Some(f) if f == table => Some((Status::Resolved, None)),
        _ if file.int96
            && matches!(table, PrimitiveType::Timestamp | PrimitiveType::Timestamptz) =>
        {
            Some((Status::Resolved, None))
        }
        Some(f) if is_allowed_promotion(f, table, format_version) => Some((Status::Promoted, None)),
        Some(f) => {
            timestamp_read(f, table, format_version).map(|(status, why)| (status, Some(why)))
        }
        None => None,
    }
}

fn not_readable_as(file: &FilePrimitive, table: &PrimitiveType) -> String {
    match &file.iceberg {
        Some(f) => format!(
            "the file stores {f} ({}); {f} -> {table} is not a type promotion Iceberg allows",
            file.label
        ),
        None => format!(
            "the file stores {}, which holds no Iceberg type",
            file.label
        ),
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
