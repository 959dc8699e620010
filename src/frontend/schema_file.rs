//! The declarative schema file (`SCHEMA_FILE.md`): one table's desired schema in YAML, or the
//! same shape in JSON.
//!
//! Data flow: the text goes through [`crate::yaml::parse`] (or [`crate::json::parse`], whose tree
//! is converted to the same [`YamlNode`] shape), then `read` walks that one tree into a
//! [`SchemaFile`]: typed fields with optional ids and the span of every part a diagnostic or a
//! later rewrite needs. Every problem of the file is collected, not only the first, and each
//! points at its text. From there a file is used three ways:
//!
//! - as a proposal: [`SchemaFile::diff`] (`diff`) pairs its fields with a table's by id and
//!   returns the one schema update that makes the table what the file says;
//! - as a table description: [`SchemaFile::to_table_metadata`] (`table`) for a file whose fields
//!   all have ids (rule-example bases, tables without Iceberg metadata), and
//!   [`SchemaFile::with_fresh_ids`] (`fresh`) for a new table written without any;
//! - as a lock file: [`fill_ids`] (`write_back`) writes the ids the table has into the text,
//!   without touching anything else.
//!
//! Nothing here reads or writes files: callers pass text and get values or text back.

mod diff;
mod error;
mod fresh;
mod new_ids;
mod read;
mod table;
mod tree;
mod type_string;
mod write_back;

#[cfg(test)]
mod tests;

use std::fmt;
use std::path::Path;

use crate::change::Span;
use crate::iceberg::types::{FieldId, PrimitiveType};

pub use diff::SchemaDiff;
pub use error::{Related, SchemaFileError, SchemaFileErrorKind, SchemaFileErrors};
pub use table::TableDescription;
pub use write_back::{WriteBackError, fill_ids};

use crate::yaml::YamlNode;

/// The format version a schema file means when it does not say (Iceberg's default for new
/// tables).
pub const DEFAULT_FORMAT_VERSION: u8 = 2;

/// Which syntax a schema file is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
}

impl Format {
    /// JSON for a `.json` file, YAML for anything else (`.yaml`, `.yml`, no extension).
    pub fn from_path(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("json") => Format::Json,
            _ => Format::Yaml,
        }
    }
}

/// One table's schema as the file describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaFile {
    pub table: String,
    pub table_span: Span,
    /// 1, 2 or 3; [`DEFAULT_FORMAT_VERSION`] when absent.
    pub format_version: u8,
    pub mapping: Mapping,
    pub fields: Vec<FileField>,
    pub identifier_fields: Vec<ColumnRef>,
    pub partition: Vec<FilePartitionField>,
    pub sort_order: Vec<FileSortField>,
    /// Table properties the file states, in its order.
    pub properties: Vec<FileProperty>,
    /// Fields dropped earlier: history, whose ids are retired forever. Every one has an id.
    pub dropped: Vec<FileField>,
    /// Which optional top-level keys the file has, and where.
    pub stated: Stated,
}

/// Where the top-level keys are that a file may leave out, `None` when it does. A proposal
/// changes only what it states: without `identifier-fields` the table keeps its identifier
/// fields, while `identifier-fields: []` removes them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stated {
    /// The values of these keys.
    pub format_version: Option<Span>,
    pub mapping: Option<Span>,
    pub identifier_fields: Option<Span>,
    pub partition: Option<Span>,
    pub sort_order: Option<Span>,
    /// The `fields` key itself (empty at the start of the file when it is missing): where a
    /// finding about a top-level field that is no longer in the file points.
    pub fields_key: Span,
}

pub use crate::iceberg::mapping::Mapping;

/// One entry of `properties`: a table property's value, or `None` (`key: null`) for a property
/// the table must not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProperty {
    pub key: String,
    pub key_span: Span,
    pub value: Option<String>,
    pub value_span: Span,
}

/// A struct field: a top-level column, a field of a nested struct, or a dropped field.
#[derive(Debug, Clone, PartialEq)]
pub struct FileField {
    /// `None` for a field the proposal adds; `evolve` assigns it.
    pub id: Option<FieldId>,
    pub name: String,
    pub field_type: FileType,
    /// `false` unless the file says `required: true`.
    pub required: bool,
    pub doc: Option<String>,
    /// The whole entry (`{id: 1, name: id, ...}` or the block mapping).
    pub span: Span,
    pub name_span: Span,
    pub type_span: Span,
    /// The id's value; without an id, the empty span at the entry's first key, where `id: N`
    /// goes so that the id comes first as in the examples. (For a field inside a type string
    /// such as `STRUCT<a: int>` there is no place for an id: it is the empty span at its name.)
    pub id_span: Span,
    pub required_span: Option<Span>,
    pub doc_span: Option<Span>,
    /// Written inside a type string (`STRUCT<a: int>`), where no id can be written: a proposal
    /// matches such a field by name within its struct.
    pub in_type_string: bool,
}

/// A field type as written: Iceberg's types, with the ids of nested members optional.
#[derive(Debug, Clone, PartialEq)]
pub enum FileType {
    Primitive(PrimitiveType),
    Struct(Vec<FileField>),
    List(Box<FileList>),
    Map(Box<FileMap>),
}

/// `{list: T, element-id: N, element-required: bool}` or `ARRAY<T>`.
#[derive(Debug, Clone, PartialEq)]
pub struct FileList {
    pub element_id: Option<FieldId>,
    /// The id's value, or the empty span after the mapping's last value where
    /// `, element-id: N` would go (after the type string for `ARRAY<T>`).
    pub element_id_span: Span,
    /// `false` unless the file says `element-required: true` (engines create optional elements).
    pub element_required: bool,
    pub element: FileType,
    pub element_span: Span,
}

/// `{map: [K, V], key-id: N, value-id: M, value-required: bool}` or `MAP<K, V>`.
#[derive(Debug, Clone, PartialEq)]
pub struct FileMap {
    pub key_id: Option<FieldId>,
    pub key_id_span: Span,
    pub value_id: Option<FieldId>,
    pub value_id_span: Span,
    /// `false` unless the file says `value-required: true`.
    pub value_required: bool,
    pub key: FileType,
    pub key_span: Span,
    pub value: FileType,
    pub value_span: Span,
}

/// A column named by `identifier-fields` (or another list of names): a top-level name or a
/// dotted path through nested structs (`address.city`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnRef {
    pub name: String,
    pub span: Span,
}

/// One `partition` term: `bucket(16, id)`, `day(ts)`, `identity(region)` or a bare `region`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePartitionField {
    pub transform: Transform,
    pub column: ColumnRef,
    /// The whole term.
    pub span: Span,
}

/// Iceberg's partition transforms that apply to one column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    Identity,
    Bucket(u32),
    Truncate(u32),
    Year,
    Month,
    Day,
    Hour,
}

impl fmt::Display for Transform {
    /// The spec's transform string, as metadata stores it: `identity`, `bucket[16]`, `day`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transform::Identity => f.write_str("identity"),
            Transform::Bucket(n) => write!(f, "bucket[{n}]"),
            Transform::Truncate(w) => write!(f, "truncate[{w}]"),
            Transform::Year => f.write_str("year"),
            Transform::Month => f.write_str("month"),
            Transform::Day => f.write_str("day"),
            Transform::Hour => f.write_str("hour"),
        }
    }
}

/// One `sort-order` term: `id`, `ts desc`, `name asc nulls-last`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSortField {
    pub column: ColumnRef,
    pub direction: SortDirection,
    /// As written, or Iceberg's default: nulls first ascending, nulls last descending.
    pub null_order: NullOrder,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortDirection {
    Asc,
    Desc,
}

impl SortDirection {
    /// The spec's spelling: `asc`, `desc`.
    pub fn as_str(self) -> &'static str {
        match self {
            SortDirection::Asc => "asc",
            SortDirection::Desc => "desc",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NullOrder {
    NullsFirst,
    NullsLast,
}

impl NullOrder {
    /// The spec's spelling: `nulls-first`, `nulls-last`.
    pub fn as_str(self) -> &'static str {
        match self {
            NullOrder::NullsFirst => "nulls-first",
            NullOrder::NullsLast => "nulls-last",
        }
    }
}

impl SchemaFile {
    /// Reads a schema file: every problem comes back at once, each located in `text`.
    pub fn parse(text: &str, format: Format) -> Result<SchemaFile, SchemaFileErrors> {
        let root = match format {
            Format::Yaml => crate::yaml::parse(text)
                .map(|root| tree::rejoin_split_scalars(root, text))
                .map_err(|e| SchemaFileErrors::one(SchemaFileError::from_yaml(&e)))?,
            Format::Json => crate::json::parse(text)
                .map(|root| tree::from_json(&root))
                .map_err(|e| SchemaFileErrors::one(SchemaFileError::from_json(&e)))?,
        };
        read::schema_file(text, &root)
    }

    /// [`SchemaFile::parse`] of YAML text.
    pub fn parse_yaml(text: &str) -> Result<SchemaFile, SchemaFileErrors> {
        SchemaFile::parse(text, Format::Yaml)
    }

    /// [`SchemaFile::parse`] of JSON text.
    pub fn parse_json(text: &str) -> Result<SchemaFile, SchemaFileErrors> {
        SchemaFile::parse(text, Format::Json)
    }
}

/// A YAML span as the front-ends' span (offset and length).
fn span_of(span: crate::yaml::Span) -> Span {
    Span::from_range(span.start, span.end)
}

fn node_span(node: &YamlNode) -> Span {
    span_of(node.span)
}
