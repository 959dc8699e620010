//! A proposal as the front-ends hand it to the judge, whatever it was written as: DDL statements,
//! the one schema update a schema file describes, or a metadata file an engine wrote.
//!
//! DDL and schema files both become [`Statement`]s that `evolve` applies, so they are judged the
//! same way and get the same field ids. A schema file can also say things no `Change` carries:
//! problems found while diffing it (an id the table retired, a field moved to another struct)
//! and notes for the findings about a change that may not be what the author meant. A metadata
//! proposal is different in kind: the new table state is the file itself, not something
//! fieldgate computes, so it carries its own "applied" records derived by diffing.

use crate::change::{Applied, Assigned, Problem};
use crate::change::{Source, Statement};
use crate::frontend::schema_file::{Format, SchemaFile};
use crate::iceberg::metadata::TableMetadata;
pub use crate::rules::context::Anchors;
use crate::suppress::Suppression;

/// One proposal file, read.
#[derive(Debug, Clone)]
pub enum Proposal {
    /// A `.sql` migration: its statements in file order.
    Ddl(Vec<Statement>),
    /// A schema file (`.yaml`, `.yml`, `.json`).
    SchemaFile(FileProposal),
    /// A new `*.metadata.json`, as an engine wrote it.
    Metadata(MetadataProposal),
}

impl Proposal {
    /// The statements `evolve` applies for this proposal (none for a metadata proposal).
    pub fn statements(&self) -> Vec<&Statement> {
        match self {
            Proposal::Ddl(statements) => statements.iter().collect(),
            Proposal::SchemaFile(file) => file.statement.iter().collect(),
            Proposal::Metadata(_) => Vec::new(),
        }
    }

    /// Gives `table` to the statements that name none (a file's session statements without a
    /// table statement): they are about the table the proposal is judged for.
    pub fn name_unnamed(&mut self, table: &str) {
        if let Proposal::Ddl(statements) = self {
            for statement in statements.iter_mut().filter(|s| !s.names_table()) {
                statement.table = table.to_string();
            }
        }
    }

    pub fn source(&self) -> Option<&Source> {
        match self {
            Proposal::Ddl(statements) => statements.first().map(|s| &s.source),
            Proposal::SchemaFile(file) => Some(&file.source),
            Proposal::Metadata(metadata) => Some(&metadata.source),
        }
    }
}

/// A schema file read as a proposal.
#[derive(Debug, Clone)]
pub struct FileProposal {
    pub file: SchemaFile,
    pub source: Source,
    pub format: Format,
    /// The one schema update that turns the table into what the file describes; `None` when the
    /// file describes a new table (there was no table to diff against).
    pub statement: Option<Statement>,
    /// What the diff found that no `Change` can express; they fail the proposal like changes
    /// Iceberg cannot apply.
    pub problems: Vec<Problem>,
    pub notes: Vec<Note>,
    /// `# fieldgate: allow <rule> -- <reason>` comments above the file's field entries.
    pub suppressions: Vec<Suppression>,
}

/// A remark a front-end attaches to every finding about one of `paths` (the dotted field paths
/// the findings name): an ambiguity the rules cannot see, such as a field that lost its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub paths: Vec<String>,
    pub text: String,
}

/// A new `*.metadata.json` proposed as the table's next state.
#[derive(Debug, Clone)]
pub struct MetadataProposal {
    pub source: Source,
    /// The proposed state, exactly as the file says.
    pub metadata: TableMetadata,
    /// The base's current schema against the proposal's, paired by field id, as changes.
    pub applied: Vec<Applied>,
    /// Ids the proposal hands out (fields not in any earlier schema).
    pub assigned: Vec<Assigned>,
    /// Changes Iceberg cannot make (a list turned into a struct under one id).
    pub problems: Vec<Problem>,
    pub anchors: Anchors,
}
