//! What every rule sees: the table before and after, the applied changes, how readers find
//! columns, and the table's history, derived once per table rather than once per rule.

use std::collections::HashMap;

use crate::change::Origin;
use crate::change::{Applied, AppliedKind, PropertyEdit};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::pair::{Member, Members, Pairing};
use crate::iceberg::schema::{FieldInfo, Schema};

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

/// A commit of the repository that holds the table's metadata, as findings name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    /// The abbreviated id (`3f2a1c9`).
    pub id: String,
    /// The commit date (UTC), `YYYY-MM-DD`.
    pub date: String,
    /// The same date as days since the Unix epoch, for windows measured in days.
    pub day: i64,
    pub author: String,
}

/// A field that a commit removed from the table's current schema.
#[derive(Debug, Clone, PartialEq)]
pub struct CommittedDrop {
    pub id: FieldId,
    pub path: String,
    pub field_type: Type,
    pub doc: Option<String>,
    pub commit: CommitInfo,
}

/// What the version history of the table's metadata file shows (from git, by `check`): metadata
/// keeps old schemas, but not when or by whom a field was dropped, and expired schemas are gone
/// from it entirely.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileHistory {
    /// Oldest first.
    pub drops: Vec<CommittedDrop>,
    /// Fields whose doc carries the deprecation mark at the base, with the commit since which it
    /// has carried it without a break.
    pub deprecated_since: Vec<(FieldId, CommitInfo)>,
}

impl FileHistory {
    /// Reads the history from the table's metadata versions, oldest first, the last being the
    /// base: a field in one version's current schema and not in the next one's was dropped by
    /// the next one's commit; a field marked deprecated at the base has been since the first
    /// version of the unbroken run of versions that carry the mark.
    pub fn from_versions(
        versions: &[(CommitInfo, TableMetadata)],
        options: &RuleOptions,
    ) -> FileHistory {
        let members: Vec<Members<'_>> = versions
            .iter()
            .map(|(_, table)| Members::of(table.current_schema()))
            .collect();
        // Struct fields only: an id that is a list element or map member on one side counts
        // as absent there.
        let field = |i: usize, id: FieldId| members[i].get(id).filter(|m| m.is_struct_field());
        let mut drops = Vec::new();
        for (i, pair) in members.windows(2).enumerate() {
            let (before, after) = (&pair[0], &pair[1]);
            let mut gone: Vec<&Member<'_>> = Pairing::of(before, after)
                .by_before()
                .filter(|(old, new)| {
                    old.is_struct_field() && !new.is_some_and(|n| n.is_struct_field())
                })
                .map(|(old, _)| old)
                .collect();
            gone.sort_by_key(|f| f.id);
            for old in gone {
                drops.push(CommittedDrop {
                    id: old.id,
                    path: before.path(old),
                    field_type: old.field_type.clone(),
                    doc: old.doc().map(str::to_string),
                    commit: versions[i + 1].0.clone(),
                });
            }
        }
        let mut deprecated_since = Vec::new();
        if let Some(last) = members.len().checked_sub(1) {
            let mut marked: Vec<FieldId> = members[last]
                .iter()
                .filter(|m| m.is_struct_field() && options.is_deprecated(m.doc()))
                .map(|m| m.id)
                .collect();
            marked.sort_unstable();
            for id in marked {
                let carries =
                    |i: usize| field(i, id).is_some_and(|f| options.is_deprecated(f.doc()));
                let mut first = last;
                while first > 0 && carries(first - 1) {
                    first -= 1;
                }
                deprecated_since.push((id, versions[first].0.clone()));
            }
        }
        FileHistory {
            drops,
            deprecated_since,
        }
    }

    pub fn deprecated_since(&self, id: FieldId) -> Option<&CommitInfo> {
        self.deprecated_since
            .iter()
            .find(|(field, _)| *field == id)
            .map(|(_, commit)| commit)
    }
}

/// Options of individual rules, from `fieldgate.yaml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleOptions {
    /// `name-reuse`: reusing a name dropped more than this many days ago is only a warning.
    pub name_reuse_window_days: Option<u32>,
    /// `column-drop`: a drop is an error unless the field's doc carried `deprecation_mark` for
    /// at least this many days before the base.
    pub require_deprecation_days: Option<u32>,
    pub deprecation_mark: String,
}

pub const DEFAULT_DEPRECATION_MARK: &str = "deprecated";

impl Default for RuleOptions {
    fn default() -> RuleOptions {
        RuleOptions {
            name_reuse_window_days: None,
            require_deprecation_days: None,
            deprecation_mark: DEFAULT_DEPRECATION_MARK.to_string(),
        }
    }
}

impl RuleOptions {
    /// Whether a doc carries the deprecation mark (case-insensitively).
    pub fn is_deprecated(&self, doc: Option<&str>) -> bool {
        doc.is_some_and(|d| {
            d.to_lowercase()
                .contains(&self.deprecation_mark.to_lowercase())
        })
    }
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
    /// The metadata file's version history, when the table lives in a repository.
    pub file: Option<FileHistory>,
}

impl History {
    pub fn of(table: &TableMetadata) -> History {
        let dropped = dropped_fields(table);
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
            file: None,
        }
    }
}

/// Every struct field of an earlier schema that the current one no longer has, with the
/// newest schema that still had it, in the order the schemas and their walks give.
fn dropped_fields(table: &TableMetadata) -> Vec<DroppedField> {
    let current = Members::of(table.current_schema());
    let mut dropped: Vec<DroppedField> = Vec::new();
    let mut at: HashMap<FieldId, usize> = HashMap::new();
    for schema in &table.schemas {
        // Members borrow from the schema: only the dropped fields are materialised, for
        // every schema of a long history is looked at on every judgement.
        let members = Members::of(schema);
        for field in Pairing::of(&members, &current).dropped() {
            if !field.is_struct_field() {
                continue;
            }
            let entry = DroppedField {
                id: field.id,
                path: members.path(field),
                field_type: field.field_type.clone(),
                doc: field.doc().map(str::to_string),
                last_schema_id: schema.schema_id,
            };
            match at.get(&entry.id) {
                Some(&i) => dropped[i] = entry,
                None => {
                    at.insert(entry.id, dropped.len());
                    dropped.push(entry);
                }
            }
        }
    }
    dropped
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
    pub options: &'a RuleOptions,
    /// Today, in days since the Unix epoch, for windows measured in days.
    pub today: i64,
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

    /// Every edit of one of `keys` by a property statement, with the change that made it.
    pub fn property_edits<'k>(
        &self,
        keys: &'k [&'k str],
    ) -> impl Iterator<Item = (&'a Applied, &'a PropertyEdit)> + 'k
    where
        'a: 'k,
    {
        self.applied.iter().flat_map(move |applied| {
            applied
                .properties
                .iter()
                .filter(move |edit| keys.contains(&edit.key.as_str()))
                .map(move |edit| (applied, edit))
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{commit, table_with};

    #[test]
    fn drops_and_deprecation_marks_are_dated_by_the_versions_that_made_them() {
        let v1 = table_with(
            2,
            r#"[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"status","required":false,"type":"string"},{"id":3,"name":"old","required":false,"type":"int"}]"#,
        );
        let v2 = table_with(
            2,
            r#"[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"status","required":false,"type":"string","doc":"Deprecated soon"},{"id":3,"name":"old","required":false,"type":"int","doc":"deprecated"}]"#,
        );
        let v3 = table_with(
            2,
            r#"[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"status","required":false,"type":"string","doc":"deprecated: gone in Q3"}]"#,
        );
        let versions = vec![
            (commit("aaaaaaa", "2026-01-01", "Ada"), v1),
            (commit("bbbbbbb", "2026-02-01", "Ada"), v2),
            (commit("ccccccc", "2026-03-01", "Grace"), v3),
        ];
        let history = FileHistory::from_versions(&versions, &RuleOptions::default());
        assert_eq!(history.drops.len(), 1);
        assert_eq!(history.drops[0].path, "old");
        assert_eq!(history.drops[0].commit.id, "ccccccc");
        assert_eq!(
            history.deprecated_since(2).map(|c| c.id.as_str()),
            Some("bbbbbbb")
        );
        assert_eq!(history.deprecated_since(1), None);
    }
}
