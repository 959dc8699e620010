//! What every rule sees: the table before and after, the applied changes, how readers find
//! columns, and the table's history, derived once per table rather than once per rule.

use std::collections::HashMap;

use crate::change::Origin;
use crate::evolve::{Applied, AppliedKind};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::schema::{FieldInfo, MemberKind, Schema};
use crate::iceberg::types::{FieldId, Type};

pub use crate::iceberg::mapping::Mapping;

/// Who must keep reading: schema-registry vocabulary mapped onto lake readers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Compatibility {
    /// New readers read old files (the default).
    pub backward: bool,
    /// Readers still holding the old schema (a cached Trino coordinator, a long-running job) read
    /// files written under the new one.
    pub forward: bool,
    /// Against every schema a snapshot still references, not only the previous one.
    pub transitive: bool,
}

impl Compatibility {
    pub const BACKWARD: Compatibility = Compatibility {
        backward: true,
        forward: false,
        transitive: false,
    };

    pub fn parse(text: &str) -> Option<Compatibility> {
        let (mode, transitive) = match text.strip_suffix("-transitive") {
            Some(mode) => (mode, true),
            None => (text, false),
        };
        let (backward, forward) = match mode {
            "backward" => (true, false),
            "forward" => (false, true),
            "full" => (true, true),
            _ => return None,
        };
        Some(Compatibility {
            backward,
            forward,
            transitive,
        })
    }
}

/// A field that is in the table's schema history but not in its current schema.
#[derive(Debug, Clone, PartialEq)]
pub struct DroppedField {
    pub id: FieldId,
    pub path: String,
    pub field_type: Type,
    pub doc: Option<String>,
    /// The newest schema that still had it.
    pub last_schema_id: i32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PartitionUse {
    pub spec_id: i32,
    pub name: String,
    pub transform: String,
    pub is_default: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SortUse {
    pub order_id: i32,
    pub transform: String,
    pub is_default: bool,
}

/// The table's past, as rules need it.
#[derive(Debug, Clone, Default)]
pub struct History {
    pub dropped: Vec<DroppedField>,
    pub partition_sources: HashMap<FieldId, Vec<PartitionUse>>,
    pub sort_sources: HashMap<FieldId, Vec<SortUse>>,
    pub identifiers: Vec<FieldId>,
    /// Schemas that data files may have been written with: those a snapshot names, and the
    /// current one.
    pub referenced_schema_ids: Vec<i32>,
}

impl History {
    pub fn of(table: &TableMetadata) -> History {
        let current = table.current_schema().index_by_id();
        let mut dropped: Vec<DroppedField> = Vec::new();
        for schema in &table.schemas {
            for field in schema.walk() {
                if field.kind != MemberKind::StructField || current.contains_key(&field.id) {
                    continue;
                }
                let entry = DroppedField {
                    id: field.id,
                    path: field.path,
                    field_type: field.field_type,
                    doc: field.doc,
                    last_schema_id: schema.schema_id,
                };
                match dropped.iter_mut().find(|d| d.id == entry.id) {
                    Some(existing) => *existing = entry,
                    None => dropped.push(entry),
                }
            }
        }
        let mut partition_sources: HashMap<FieldId, Vec<PartitionUse>> = HashMap::new();
        for spec in &table.partition_specs {
            for field in spec.fields.iter().filter(|f| f.transform != "void") {
                for source in &field.source_ids {
                    partition_sources
                        .entry(*source)
                        .or_default()
                        .push(PartitionUse {
                            spec_id: spec.spec_id,
                            name: field.name.clone(),
                            transform: field.transform.clone(),
                            is_default: spec.spec_id == table.default_spec_id,
                        });
                }
            }
        }
        let mut sort_sources: HashMap<FieldId, Vec<SortUse>> = HashMap::new();
        for order in &table.sort_orders {
            for field in &order.fields {
                for source in &field.source_ids {
                    sort_sources.entry(*source).or_default().push(SortUse {
                        order_id: order.order_id,
                        transform: field.transform.clone(),
                        is_default: order.order_id == table.default_sort_order_id,
                    });
                }
            }
        }
        let mut referenced_schema_ids: Vec<i32> =
            table.snapshots.iter().filter_map(|s| s.schema_id).collect();
        referenced_schema_ids.push(table.current_schema_id);
        referenced_schema_ids.sort_unstable();
        referenced_schema_ids.dedup();
        History {
            dropped,
            partition_sources,
            sort_sources,
            identifiers: table.current_schema().identifier_field_ids.clone(),
            referenced_schema_ids,
        }
    }
}

/// Places in a proposed metadata file that findings about the document itself point at (a
/// metadata proposal's text is the new state; for DDL and schema files there is none).
#[derive(Debug, Clone, Default)]
pub struct Anchors {
    pub last_column_id: Option<Origin>,
    pub current_schema_id: Option<Origin>,
    /// Each schema of the proposed file, by schema id.
    pub schemas: HashMap<i32, Origin>,
    /// Each field of each schema of the proposed file, by schema id and field id.
    pub fields: HashMap<(i32, FieldId), Origin>,
}

pub struct Context<'a> {
    pub table: &'a str,
    pub before: &'a TableMetadata,
    pub after: &'a TableMetadata,
    pub applied: &'a [Applied],
    pub mapping: Mapping,
    pub compatibility: Compatibility,
    pub history: &'a History,
    pub anchors: &'a Anchors,
}

impl<'a> Context<'a> {
    pub fn format_version(&self) -> u8 {
        self.after.format_version
    }

    /// Applied changes of one kind.
    pub fn changes(&self, kind: AppliedKind) -> impl Iterator<Item = &'a Applied> + 'a {
        self.applied.iter().filter(move |a| a.kind == kind)
    }

    /// The schemas old data files may have been written with, for `-transitive` checks; just the
    /// current schema before the change otherwise.
    pub fn reader_baselines(&self) -> Vec<&'a Schema> {
        if self.compatibility.transitive {
            self.history
                .referenced_schema_ids
                .iter()
                .filter_map(|id| self.before.schema(*id))
                .collect()
        } else {
            vec![self.before.current_schema()]
        }
    }

    /// The applied change that produced or last touched `id`, for locating a finding.
    pub fn last_change_of(&self, id: FieldId) -> Option<&'a Applied> {
        self.applied.iter().rev().find(|a| a.field_id == Some(id))
    }

    /// Whether the field existed in the committed table (not added by this proposal).
    pub fn existed_before(&self, id: FieldId) -> bool {
        self.before.current_schema().field_by_id(id).is_some()
    }
}

/// `path (field id N)`, the way every message names a field.
pub fn describe(field: &FieldInfo) -> String {
    format!("`{}` (field id {})", field.path, field.id)
}
