//! From the parsed tree to a [`SchemaFile`], collecting every problem on the way.
//!
//! The reader never stops at the first error: a bad value is reported and skipped (a field
//! whose type is wrong still counts for duplicate names, ids and column references, so one
//! mistake does not cascade into several), and the file is returned only when nothing was wrong.
//! The cross-checks (`checks`) run last, on what could be read. `values` reads the values of
//! any key, `fields` and `types` the schema, `terms` the partition and sort-order terms,
//! `properties` the table properties, `columns` resolves column references.

use crate::change::Span;
use crate::iceberg::metadata::MAX_FORMAT_VERSION;
use crate::yaml::{YamlEntry, YamlNode};

mod checks;
mod columns;
mod fields;
mod properties;
mod terms;
mod types;
mod values;

pub(super) use columns::{column_segments, find_column};

use super::error::{SchemaFileError, SchemaFileErrorKind as Kind, SchemaFileErrors};
use super::type_string::Locator;
use super::{
    ColumnRef, DEFAULT_FORMAT_VERSION, FileField, FilePartitionField, FileSortField, Mapping,
    SchemaFile, Stated, node_span, span_of,
};
use crate::suggest::closest_key;
use values::quote_list;

const TOP_KEYS: &[&str] = &[
    "table",
    "format-version",
    "mapping",
    "fields",
    "identifier-fields",
    "partition",
    "sort-order",
    "properties",
    "dropped",
];

/// Reads the tree of a whole file.
pub(super) fn schema_file(text: &str, root: &YamlNode) -> Result<SchemaFile, SchemaFileErrors> {
    let mut reader = Reader {
        text,
        errors: Vec::new(),
    };
    let file = reader.file(root);
    let mut errors = reader.errors;
    match file {
        Some(file) if errors.is_empty() => Ok(file),
        _ => {
            errors.sort_by_key(|e| (e.span.offset, e.span.len));
            Err(SchemaFileErrors { errors })
        }
    }
}

struct Reader<'t> {
    text: &'t str,
    errors: Vec<SchemaFileError>,
}

impl Reader<'_> {
    fn file(&mut self, root: &YamlNode) -> Option<SchemaFile> {
        let entries = self.top_mapping(root)?;
        self.unknown_keys(entries, TOP_KEYS, "a schema file");
        // A missing top-level key is reported at the start of the file, not over all of it.
        let file_start = Span::new(root.span.start, 0);
        let table = match root.get("table") {
            Some(node) => self.string(node, "`table`").map(|t| (t, node_span(node))),
            None => {
                self.missing(file_start, "table", "the schema file");
                None
            }
        };
        let format_version = match root.get("format-version") {
            Some(node) => self.format_version(node),
            None => Some(DEFAULT_FORMAT_VERSION),
        };
        let mapping = match root.get("mapping") {
            Some(node) => self.mapping(node),
            None => Some(Mapping::default()),
        };
        let fields = match root.get("fields") {
            Some(node) => self.fields(node, "`fields`"),
            None => {
                self.missing(file_start, "fields", "the schema file");
                Vec::new()
            }
        };
        let dropped = self.dropped(root);
        let identifier_fields = self.identifier_fields(root);
        let partition = self.terms(root, "partition", Reader::partition_term);
        let sort_order = self.terms(root, "sort-order", Reader::sort_term);
        let properties = self.properties(root);
        self.check_schema(&fields, &dropped);
        self.check_columns(&fields, &identifier_fields, &partition, &sort_order);
        let stated = stated(root, entries, file_start);
        let (table, table_span) = table?;
        Some(SchemaFile {
            table,
            table_span,
            format_version: format_version?,
            mapping: mapping?,
            fields,
            identifier_fields,
            partition,
            sort_order,
            properties,
            dropped,
            stated,
        })
    }

    /// The file's top-level mapping; an empty file or another kind of value is an error.
    fn top_mapping<'n>(&mut self, root: &'n YamlNode) -> Option<&'n [YamlEntry]> {
        if let Some(entries) = root.as_map() {
            return Some(entries);
        }
        let error = if root.is_null() && root.span.is_empty() {
            SchemaFileError::new(
                Kind::MissingKey,
                node_span(root),
                "the schema file is empty",
            )
        } else {
            self.wrong_kind(root, "a mapping with `table` and `fields`")
        };
        self.push(error.with_help("a schema file starts with `table: <name>` and `fields:`"));
        None
    }

    /// `dropped`: retired fields, each with the id it had.
    fn dropped(&mut self, root: &YamlNode) -> Vec<FileField> {
        let dropped = match root.get("dropped") {
            Some(node) => self.fields(node, "`dropped`"),
            None => Vec::new(),
        };
        for field in dropped.iter().filter(|f| f.id.is_none()) {
            self.push(
                SchemaFileError::new(
                    Kind::MissingId,
                    field.name_span,
                    format!("dropped field `{}` has no id", field.name),
                )
                .with_help("write the id the field had: retired ids are what the history keeps"),
            );
        }
        dropped
    }

    fn identifier_fields(&mut self, root: &YamlNode) -> Vec<ColumnRef> {
        match root.get("identifier-fields") {
            Some(node) => self.strings(node, "`identifier-fields`", |r, node, s| {
                Some(ColumnRef {
                    name: s.to_owned(),
                    span: Locator::new(r.text, node, s).at(0..s.len()),
                })
            }),
            None => Vec::new(),
        }
    }

    /// The columns `identifier-fields`, `partition` and `sort-order` name are the table's.
    fn check_columns(
        &mut self,
        fields: &[FileField],
        identifier_fields: &[ColumnRef],
        partition: &[FilePartitionField],
        sort_order: &[FileSortField],
    ) {
        for column in identifier_fields {
            self.check_column(fields, column, "`identifier-fields`");
        }
        for term in partition {
            self.check_column(fields, &term.column, "`partition`");
        }
        for term in sort_order {
            self.check_column(fields, &term.column, "`sort-order`");
        }
    }

    fn format_version(&mut self, node: &YamlNode) -> Option<u8> {
        match node.as_i64() {
            Some(v) if (1..=i64::from(MAX_FORMAT_VERSION)).contains(&v) => u8::try_from(v).ok(),
            Some(v) => {
                self.push(SchemaFileError::new(
                    Kind::InvalidValue,
                    node_span(node),
                    format!(
                        "format version {v} is not supported (fieldgate reads v1 to v{MAX_FORMAT_VERSION})"
                    ),
                ));
                None
            }
            None => {
                let error = self.wrong_kind(
                    node,
                    &format!("`format-version` to be a number from 1 to {MAX_FORMAT_VERSION}"),
                );
                self.push(error);
                None
            }
        }
    }

    fn mapping(&mut self, node: &YamlNode) -> Option<Mapping> {
        let written = self.string(node, "`mapping`")?;
        if let Some(mapping) = Mapping::ALL.into_iter().find(|m| m.as_str() == written) {
            return Some(mapping);
        }
        let names = Mapping::ALL.map(Mapping::as_str);
        let help = match closest_key(&written, names.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("the mapping is one of {}", quote_list(&names)),
        };
        self.push(
            SchemaFileError::new(
                Kind::InvalidValue,
                node_span(node),
                format!("unknown mapping `{written}`"),
            )
            .with_help(help),
        );
        None
    }
}

/// Where the file states each optional key, for edits and messages.
fn stated(root: &YamlNode, entries: &[YamlEntry], file_start: Span) -> Stated {
    let value_span = |key: &str| root.get(key).map(node_span);
    Stated {
        format_version: value_span("format-version"),
        mapping: value_span("mapping"),
        identifier_fields: value_span("identifier-fields"),
        partition: value_span("partition"),
        sort_order: value_span("sort-order"),
        fields_key: entries
            .iter()
            .find(|e| e.key == "fields")
            .map_or(file_start, |e| span_of(e.key_span)),
    }
}
