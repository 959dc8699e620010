//! Applies statements of `Change`s to a table and assigns new field ids exactly as Iceberg Java
//! (`SchemaUpdate` + `AssignFreshIds`) and PyIceberg (`UpdateSchema` + `_SetFreshIDs`) do:
//! ids continue from `last-column-id + 1`; an added column takes its id first, then its nested
//! type is numbered breadth-first per struct (all direct children, then each child's subtree;
//! a list's element then its subtree; a map's key id, value id, then key subtree, value subtree).
//! iceberg-rust numbers depth-first and is deliberately not followed.
//!
//! Each statement is one schema update, as one `ALTER TABLE` is one commit in an engine: it
//! yields a new schema (or reuses the id of an identical earlier one), `last-column-id` never goes
//! down, and the name mapping, when the table has one, follows renames and adds.
use crate::change::{Applied, Assigned, Change, Origin, Problem};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::schema::member_by_id;

mod ids;
mod members;
pub mod new_table;
mod partition;
mod problems;
mod resolve;
mod schemas;
mod sort;
mod table;
mod update;
pub use ids::{assign_fresh_schema_ids, field_from_new};
pub(crate) use partition::describe as describe_spec;
pub use partition::last_partition_id;
use schemas::SchemaLog;
pub(crate) use sort::describe as describe_sort_order;
use update::Update;

#[derive(Debug, Clone)]
pub struct Evolution {
    pub metadata: TableMetadata,
    pub assigned: Vec<Assigned>,
    pub applied: Vec<Applied>,
    pub problems: Vec<Problem>,
    /// The current schema's id after each statement, in order (the editor completes columns
    /// from the schema a statement leaves).
    pub schema_ids: Vec<i32>,
    /// Set when the migration would write more than [`MAX_WRITTEN_MEMBERS`]; evolution stopped
    /// at that statement, so the rest of this value is incomplete and must not be used.
    pub too_large: Option<TooLarge>,
}

/// The most members (fields, list elements, map keys and values) the schemas one proposal
/// appends may hold in all (`limits: schema-fields`, 2,500,000 by default: about 200 MB of
/// metadata JSON). Every statement is one schema update and so one more copy of the whole
/// schema in the metadata file, which readers load to plan every query: far below this the file
/// is already a burden, and without a bound a long migration of adds grows quadratically until
/// memory runs out.
fn max_written_members() -> usize {
    usize::try_from(crate::limits::get().schema_fields).unwrap_or(usize::MAX)
}

/// A proposal whose schemas would exceed [`max_written_members`], at the statement that
/// crosses it.
#[derive(Debug, Clone)]
pub struct TooLarge {
    pub origin: Origin,
    /// 1-based, among `statements`.
    pub statement: usize,
    pub statements: usize,
    pub members: usize,
}

impl TooLarge {
    pub fn message(&self) -> String {
        format!(
            "each statement is one schema update, which writes the whole schema again: by statement {} of {}, the new schemas hold {}, more than the {} a metadata file can reasonably carry (`limits: schema-fields` in fieldgate.yaml)",
            self.statement,
            self.statements,
            crate::plural::counted(self.members, "field"),
            max_written_members()
        )
    }

    pub fn help(&self) -> String {
        "make fewer schema updates: one statement can carry many changes (`ALTER TABLE t ADD COLUMNS (a int, b string)`, or one schema file), and each is one schema in the metadata".into()
    }
}

/// Applies each statement's changes, in order, as one schema update each. Problems are
/// collected; a change with a problem is skipped so later ones are still checked.
pub fn evolve<'c>(
    base: &TableMetadata,
    statements: impl IntoIterator<Item = &'c [Change]>,
) -> Evolution {
    let statements: Vec<&[Change]> = statements.into_iter().collect();
    let mut metadata = base.clone();
    let mut log = SchemaLog::of(&metadata);
    let mut assigned = Vec::new();
    let mut applied = Vec::new();
    let mut problems = Vec::new();
    let mut schema_ids = Vec::with_capacity(statements.len());
    let mut too_large = None;
    for (statement, changes) in statements.iter().enumerate() {
        let mut update = Update::new(&metadata, log.current(&metadata));
        for change in *changes {
            let outcome = if change.kind.is_table_level() {
                let schema = log.current(&metadata).clone();
                let outcome = table::apply_table_change(&mut metadata, &schema, change);
                update.mapping = metadata.name_mapping.clone();
                outcome
            } else {
                update.apply(change)
            };
            match outcome {
                Ok(mut record) => {
                    if let Some(id) = record.field_id {
                        record.after = member_by_id(&update.fields, id);
                    }
                    record.origin = Some(change.origin.clone());
                    record.statement = statement;
                    applied.push(record);
                }
                Err(problem) => problems.push(*problem),
            }
        }
        assigned.append(&mut update.assigned);
        update.commit(&mut metadata, &mut log);
        schema_ids.push(metadata.current_schema_id);
        if log.written > max_written_members()
            && let Some(first) = changes.first()
        {
            too_large = Some(TooLarge {
                origin: first.origin.clone(),
                statement: statement + 1,
                statements: statements.len(),
                members: log.written,
            });
            break;
        }
    }
    Evolution {
        metadata,
        assigned,
        applied,
        problems,
        schema_ids,
        too_large,
    }
}
