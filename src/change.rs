//! The one vocabulary every front-end speaks: a proposal (DDL, schema file, new metadata) becomes
//! a list of statements, each a list of `Change`s against one table, each remembering exactly which
//! text it came from so a finding can point at it; and what applying them gave (`Applied`,
//! `Assigned`, `Problem`), which the engine produces and rules and reports read.

use std::sync::Arc;

use crate::iceberg::schema::FieldInfo;
use crate::iceberg::types::{FieldId, PrimitiveType, Type};

pub use crate::span::Span;

/// A proposal or metadata text, kept whole so diagnostics can quote it.
#[derive(Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
}

pub type Source = Arc<SourceFile>;

/// Where a change came from: the whole statement, and the part of it that matters most (the new
/// type of a type change, the column path of a drop), which is where a diagnostic's label goes.
#[derive(Debug, Clone)]
pub struct Origin {
    pub source: Source,
    pub statement: Span,
    pub focus: Span,
}

/// A field named as the user wrote it: dotted path segments (Iceberg names: `points.element.z`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath(pub Vec<String>);

impl FieldPath {
    pub fn dotted(&self) -> String {
        self.0.join(".")
    }

    pub fn leaf(&self) -> &str {
        self.0.last().map(String::as_str).unwrap_or("")
    }

    pub fn parent(&self) -> FieldPath {
        FieldPath(self.0[..self.0.len().saturating_sub(1)].to_vec())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Position {
    First,
    /// After the sibling with this name (in the same struct).
    After(String),
    Before(String),
}

/// A field to add. Ids inside `field_type` are placeholders: `evolve` assigns them.
#[derive(Debug, Clone, PartialEq)]
pub struct NewField {
    pub name: String,
    pub field_type: Type,
    pub required: bool,
    pub doc: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ChangeKind {
    /// Add `field` into the struct at `parent` (empty path: the table root).
    AddField {
        parent: FieldPath,
        field: NewField,
        position: Option<Position>,
    },
    Rename {
        path: FieldPath,
        new_name: String,
    },
    UpdateType {
        path: FieldPath,
        new_type: PrimitiveType,
    },
    SetRequired {
        path: FieldPath,
        required: bool,
    },
    UpdateDoc {
        path: FieldPath,
        doc: Option<String>,
    },
    Move {
        path: FieldPath,
        position: Position,
    },
    Drop {
        path: FieldPath,
        if_exists: bool,
    },
    SetIdentifierFields {
        paths: Vec<FieldPath>,
    },
    DropIdentifierFields {
        paths: Vec<FieldPath>,
    },
    /// `ADD PARTITION FIELD term [AS name]`: one partition spec update.
    AddPartitionField {
        term: PartitionTerm,
        name: Option<String>,
    },
    /// `DROP PARTITION FIELD term`. A bare name that is not a column names the partition field
    /// itself, as Iceberg's Spark extensions resolve it.
    DropPartitionField {
        term: PartitionTerm,
    },
    /// `REPLACE PARTITION FIELD from WITH to [AS name]`: a removal and an add in one update.
    ReplacePartitionField {
        from: PartitionTerm,
        to: PartitionTerm,
        name: Option<String>,
    },
    /// Trino's `SET PROPERTIES partitioning = ARRAY[...]`: the spec becomes exactly these terms.
    SetPartitioning {
        terms: Vec<PartitionTerm>,
    },
    /// `WRITE [LOCALLY] ORDERED BY ...`, `WRITE DISTRIBUTED BY PARTITION [LOCALLY ORDERED BY
    /// ...]`, `WRITE UNORDERED`: the table's sort order (empty: unsorted) and the
    /// `write.distribution-mode` it sets.
    SetWriteOrder {
        order: Vec<SortTerm>,
        distribution: String,
    },
    /// `SET TBLPROPERTIES` (Trino's `SET PROPERTIES`), in order.
    SetProperties {
        properties: Vec<(String, String)>,
    },
    /// `UNSET TBLPROPERTIES [IF EXISTS]`.
    UnsetProperties {
        keys: Vec<String>,
        if_exists: bool,
    },
    /// A statement that changes neither schema, spec, sort order nor properties (branches, tags,
    /// maintenance procedures), named as the report lists it.
    NoSchemaEffect {
        statement: String,
    },
}

#[derive(Debug, Clone)]
pub struct Change {
    pub kind: ChangeKind,
    pub origin: Origin,
}

/// One statement of a proposal: all its changes form one schema update (one commit), as an engine
/// running the migration would make it.
#[derive(Debug, Clone)]
pub struct Statement {
    /// The table name as written (`lake_prod.dim_users`), with its span. Empty for the session
    /// statements (`USE`, `SET`, ...) of a file without `ALTER TABLE`, which name no table.
    pub table: String,
    pub table_span: Span,
    pub span: Span,
    pub source: Source,
    pub kind: StatementKind,
}

#[derive(Debug, Clone)]
pub enum StatementKind {
    Alter(Vec<Change>),
    /// A new table: fields in declaration order with placeholder ids, and its table properties.
    CreateTable(CreateTable),
}

#[derive(Debug, Clone, PartialEq)]
pub struct CreateTable {
    pub fields: Vec<NewField>,
    /// `PARTITIONED BY` terms as Iceberg transforms applied to column names.
    pub partition_by: Vec<PartitionTerm>,
    /// `TBLPROPERTIES` / `WITH` key-value pairs, in order.
    pub properties: Vec<(String, String)>,
    pub location: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionTerm {
    /// Iceberg transform string: `identity`, `bucket[16]`, `truncate[4]`, `year`, `month`, `day`,
    /// `hour`, `void`.
    pub transform: String,
    pub column: String,
}

/// One sort field as written: a term, `asc` or `desc`, `nulls-first` or `nulls-last`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortTerm {
    pub term: PartitionTerm,
    pub descending: bool,
    /// Spark's default when not written: nulls first ascending, last descending.
    pub nulls_first: bool,
}

impl PartitionTerm {
    /// As an engine's error messages write a term: `bucket[16](id)`, or `id` for identity.
    pub fn written(&self) -> String {
        if self.transform == "identity" {
            self.column.clone()
        } else {
            format!("{}({})", self.transform, self.column)
        }
    }
}

impl Statement {
    /// Whether the statement names its table. One that does not holds a file's session
    /// statements that no table statement carries: the table the file is judged for (its
    /// `CREATE TABLE`'s, `--table`'s or `--metadata`'s) takes it, so they are listed there.
    pub fn names_table(&self) -> bool {
        !self.table.is_empty()
    }
}

impl ChangeKind {
    /// Whether this kind changes the table rather than its schema: a statement's schema update
    /// leaves it alone and `evolve` applies it to the table's metadata.
    pub fn is_table_level(&self) -> bool {
        match self {
            ChangeKind::AddPartitionField { .. }
            | ChangeKind::DropPartitionField { .. }
            | ChangeKind::ReplacePartitionField { .. }
            | ChangeKind::SetPartitioning { .. }
            | ChangeKind::SetWriteOrder { .. }
            | ChangeKind::SetProperties { .. }
            | ChangeKind::UnsetProperties { .. }
            | ChangeKind::NoSchemaEffect { .. } => true,
            ChangeKind::AddField { .. }
            | ChangeKind::Rename { .. }
            | ChangeKind::UpdateType { .. }
            | ChangeKind::SetRequired { .. }
            | ChangeKind::UpdateDoc { .. }
            | ChangeKind::Move { .. }
            | ChangeKind::Drop { .. }
            | ChangeKind::SetIdentifierFields { .. }
            | ChangeKind::DropIdentifierFields { .. } => false,
        }
    }
}

impl Change {
    /// The main field path this change is about (the parent for an add).
    pub fn path(&self) -> Option<&FieldPath> {
        match &self.kind {
            ChangeKind::AddField { parent, .. } => Some(parent),
            ChangeKind::Rename { path, .. }
            | ChangeKind::UpdateType { path, .. }
            | ChangeKind::SetRequired { path, .. }
            | ChangeKind::UpdateDoc { path, .. }
            | ChangeKind::Move { path, .. }
            | ChangeKind::Drop { path, .. } => Some(path),
            ChangeKind::SetIdentifierFields { .. }
            | ChangeKind::DropIdentifierFields { .. }
            | ChangeKind::AddPartitionField { .. }
            | ChangeKind::DropPartitionField { .. }
            | ChangeKind::ReplacePartitionField { .. }
            | ChangeKind::SetPartitioning { .. }
            | ChangeKind::SetWriteOrder { .. }
            | ChangeKind::SetProperties { .. }
            | ChangeKind::UnsetProperties { .. }
            | ChangeKind::NoSchemaEffect { .. } => None,
        }
    }
}

// What applying a change gave: the result vocabulary every front-end, rule and report shares,
// so none of them needs the engine that produces it.

/// Why a change cannot be applied to the table at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProblemKind {
    /// The change names a field that does not exist; `suggestion` is the closest existing path.
    UnknownField {
        path: String,
        suggestion: Option<String>,
    },
    /// An add or rename collides with a sibling's name.
    DuplicateName { path: String, existing_id: FieldId },
    /// A change to the shape of a nested type Iceberg forbids: a map key altered, a list element or
    /// map value dropped, a field moved to another struct.
    NestedStructure,
    /// Any other change the Iceberg model cannot express (add to a primitive, rename an element...).
    InvalidChange,
    /// A proposal gives a field an id the table retired (a dropped field's): old files' values of
    /// the dropped field would be read as the new one. Only front-ends that let the user write
    /// ids (schema files) report it; `evolve` itself never reuses an id.
    IdReuse,
}

#[derive(Debug, Clone)]
pub struct Problem {
    pub kind: ProblemKind,
    pub message: String,
    pub help: Option<String>,
    pub origin: Origin,
    pub field_id: Option<FieldId>,
    pub path: Option<String>,
}

/// A field id handed out by this evolution, for reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assigned {
    pub path: String,
    pub field_id: FieldId,
}

/// What an applied change did, in the vocabulary of reports and rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AppliedKind {
    Add,
    Rename,
    UpdateType,
    SetRequired,
    SetOptional,
    UpdateDoc,
    Move,
    Drop,
    SetIdentifierFields,
    DropIdentifierFields,
    AddPartitionField,
    DropPartitionField,
    ReplacePartitionField,
    SetPartitioning,
    SetWriteOrder,
    SetProperties,
    UnsetProperties,
    NoSchemaEffect,
}

impl AppliedKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AppliedKind::Add => "add",
            AppliedKind::Rename => "rename",
            AppliedKind::UpdateType => "update-type",
            AppliedKind::SetRequired => "set-required",
            AppliedKind::SetOptional => "set-optional",
            AppliedKind::UpdateDoc => "update-doc",
            AppliedKind::Move => "move",
            AppliedKind::Drop => "drop",
            AppliedKind::SetIdentifierFields => "set-identifier-fields",
            AppliedKind::DropIdentifierFields => "drop-identifier-fields",
            AppliedKind::AddPartitionField => "add-partition-field",
            AppliedKind::DropPartitionField => "drop-partition-field",
            AppliedKind::ReplacePartitionField => "replace-partition-field",
            AppliedKind::SetPartitioning => "set-partitioning",
            AppliedKind::SetWriteOrder => "set-write-order",
            AppliedKind::SetProperties => "set-properties",
            AppliedKind::UnsetProperties => "unset-properties",
            AppliedKind::NoSchemaEffect => "no-schema-effect",
        }
    }
}

/// A change as it was applied, resolved to the field id it touched: the field as it was just
/// before the change and just after it, where the change came from, and which statement (schema
/// update) it belongs to. Rules judge these; reports list them.
#[derive(Debug, Clone)]
pub struct Applied {
    pub kind: AppliedKind,
    pub field_id: Option<FieldId>,
    pub path: String,
    pub from: Option<String>,
    pub to: Option<String>,
    pub origin: Option<Origin>,
    pub statement: usize,
    pub before: Option<FieldInfo>,
    pub after: Option<FieldInfo>,
    /// Identifier fields this change removed without the migration saying so (a drop of an
    /// identifier column, or of a struct holding one); Java refuses exactly these.
    pub implicit_identifier_drops: Vec<FieldId>,
    /// The table properties a `SET`/`UNSET TBLPROPERTIES` changed, each with its value just
    /// before and just after, so a rule judges the statement that made the change.
    pub properties: Vec<PropertyEdit>,
    /// For `WRITE [LOCALLY] ORDERED BY` / `WRITE UNORDERED`: the default sort order it made.
    pub sort_order_id: Option<i32>,
}

/// One table property as one change left it (`None`: not set).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropertyEdit {
    pub key: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

impl Applied {
    pub(crate) fn new(
        kind: AppliedKind,
        field_id: Option<FieldId>,
        path: String,
        from: Option<String>,
        to: Option<String>,
    ) -> Applied {
        Applied {
            kind,
            field_id,
            path,
            from,
            to,
            origin: None,
            statement: 0,
            before: None,
            after: None,
            implicit_identifier_drops: Vec::new(),
            properties: Vec::new(),
            sort_order_id: None,
        }
    }
}
