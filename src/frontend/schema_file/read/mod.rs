//! From the parsed tree to a [`SchemaFile`], collecting every problem on the way.
//!
//! The reader never stops at the first error: a bad value is reported and skipped (a field
//! whose type is wrong still counts for duplicate names, ids and column references, so one
//! mistake does not cascade into several), and the file is returned only when nothing was wrong.
//! The cross-checks run last, on what could be read: duplicate names per struct, duplicate ids
//! anywhere, ids of dropped fields reused, and the columns that `identifier-fields`,
//! `partition` and `sort-order` name.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::ops::Range;

use crate::change::Span;
use crate::iceberg::metadata::MAX_FORMAT_VERSION;
use crate::iceberg::types::{FieldId, MAX_USER_FIELD_ID, PrimitiveType};
use crate::yaml::{YamlEntry, YamlNode, YamlValue};

mod properties;
mod terms;

use super::error::{SchemaFileError, SchemaFileErrorKind as Kind, SchemaFileErrors};
use super::type_string::{Locator, TYPE_HELP, parse_type_string};
use super::{
    ColumnRef, DEFAULT_FORMAT_VERSION, FileField, FileList, FileMap, FileType, Mapping, SchemaFile,
    Stated, node_span, span_of,
};

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
const FIELD_KEYS: &[&str] = &["id", "name", "type", "required", "doc"];
const STRUCT_KEYS: &[&str] = &["struct"];
const LIST_KEYS: &[&str] = &["list", "element-id", "element-required"];
const MAP_KEYS: &[&str] = &["map", "key-id", "value-id", "value-required"];
const TYPE_KEYS: &[&str] = &[
    "struct",
    "list",
    "element-id",
    "element-required",
    "map",
    "key-id",
    "value-id",
    "value-required",
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

/// "a string", "an integer".
fn a(kind: &str) -> String {
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {kind}")
}

fn quote_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Reader<'_> {
    fn push(&mut self, error: SchemaFileError) {
        self.errors.push(error);
    }

    /// What a node is, for "found ..." in messages: an empty value reads as "nothing".
    fn found(&self, node: &YamlNode) -> String {
        if node.is_null() && node.span.is_empty() {
            "nothing".to_owned()
        } else {
            a(node.kind_name())
        }
    }

    fn wrong_kind(&mut self, node: &YamlNode, expected: &str) -> SchemaFileError {
        SchemaFileError::new(
            Kind::WrongKind,
            node_span(node),
            format!("expected {expected}, found {}", self.found(node)),
        )
    }

    fn unknown_keys(&mut self, entries: &[YamlEntry], allowed: &[&str], what: &str) {
        for entry in entries {
            if allowed.contains(&entry.key.as_str()) {
                continue;
            }
            let help = match suggest(&entry.key, allowed.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("{what} has the keys {}", quote_list(allowed)),
            };
            self.push(
                SchemaFileError::new(
                    Kind::UnknownKey,
                    span_of(entry.key_span),
                    format!("unknown key `{}` in {what}", entry.key),
                )
                .with_help(help),
            );
        }
    }

    fn missing(&mut self, span: Span, key: &str, what: &str) {
        self.push(SchemaFileError::new(
            Kind::MissingKey,
            span,
            format!("{what} has no `{key}`"),
        ));
    }

    /// A string value; another scalar gets the hint to quote it.
    fn string(&mut self, node: &YamlNode, what: &str) -> Option<String> {
        if let Some(s) = node.as_str() {
            return Some(s.to_owned());
        }
        let mut error = self.wrong_kind(node, &format!("{what} to be a string"));
        if matches!(
            node.value,
            YamlValue::Int(_) | YamlValue::Float(_) | YamlValue::Bool(_)
        ) || (node.is_null() && !node.span.is_empty())
        {
            let raw = self.text.get(node.span.range()).unwrap_or_default();
            error = error.with_help(format!("quote it to make it a string: \"{raw}\""));
        }
        self.push(error);
        None
    }

    fn bool(&mut self, node: &YamlNode, what: &str) -> Option<bool> {
        if let Some(b) = node.as_bool() {
            return Some(b);
        }
        let error = self.wrong_kind(node, &format!("{what} to be `true` or `false`"));
        self.push(error);
        None
    }

    /// A field id: an integer from 1 to [`MAX_USER_FIELD_ID`]. An empty value (`id:`) is no id.
    fn id(&mut self, node: &YamlNode, what: &str) -> Option<FieldId> {
        if node.is_null() {
            return None;
        }
        let Some(raw) = (match &node.value {
            YamlValue::Int(raw) => Some(raw),
            _ => None,
        }) else {
            let mut error = self.wrong_kind(node, &format!("{what} to be an integer"));
            if node
                .as_str()
                .is_some_and(|s| s.trim().parse::<i64>().is_ok())
            {
                error = error.with_help("write the id without quotes");
            }
            self.push(error);
            return None;
        };
        match node.as_i64().and_then(|id| FieldId::try_from(id).ok()) {
            Some(id) if (1..=MAX_USER_FIELD_ID).contains(&id) => Some(id),
            _ => {
                self.push(SchemaFileError::new(
                    Kind::InvalidValue,
                    node_span(node),
                    format!("field id {raw} is out of range: ids are 1 to {MAX_USER_FIELD_ID}"),
                ));
                None
            }
        }
    }

    fn file(&mut self, root: &YamlNode) -> Option<SchemaFile> {
        let Some(entries) = root.as_map() else {
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
            return None;
        };
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
        let identifier_fields = match root.get("identifier-fields") {
            Some(node) => self.strings(node, "`identifier-fields`", |r, node, s| {
                Some(ColumnRef {
                    name: s.to_owned(),
                    span: Locator::new(r.text, node, s).at(0..s.len()),
                })
            }),
            None => Vec::new(),
        };
        let partition = self.terms(root, "partition", Reader::partition_term);
        let sort_order = self.terms(root, "sort-order", Reader::sort_term);
        let properties = self.properties(root);

        self.check_names(&fields, "the table");
        self.check_ids(&fields, &dropped);
        for column in &identifier_fields {
            self.check_column(&fields, column, "`identifier-fields`");
        }
        for term in &partition {
            self.check_column(&fields, &term.column, "`partition`");
        }
        for term in &sort_order {
            self.check_column(&fields, &term.column, "`sort-order`");
        }

        let value_span = |key: &str| root.get(key).map(node_span);
        let stated = Stated {
            format_version: value_span("format-version"),
            mapping: value_span("mapping"),
            identifier_fields: value_span("identifier-fields"),
            partition: value_span("partition"),
            sort_order: value_span("sort-order"),
            fields_key: entries
                .iter()
                .find(|e| e.key == "fields")
                .map_or(file_start, |e| span_of(e.key_span)),
        };
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
        let help = match suggest(&written, names.iter().copied()) {
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

    /// A sequence (an empty value counts as an empty one).
    fn seq<'n>(&mut self, node: &'n YamlNode, what: &str) -> &'n [YamlNode] {
        match &node.value {
            YamlValue::Seq(items) => items,
            YamlValue::Null => &[],
            _ => {
                let error = self.wrong_kind(node, &format!("{what} to be a sequence"));
                self.push(error);
                &[]
            }
        }
    }

    /// A sequence of strings, each read by `read`.
    fn strings<T>(
        &mut self,
        node: &YamlNode,
        what: &str,
        read: impl Fn(&mut Self, &YamlNode, &str) -> Option<T>,
    ) -> Vec<T> {
        let mut out = Vec::new();
        for item in self.seq(node, what) {
            let item_what = format!("an item of {what}");
            if let Some(s) = self.string(item, &item_what)
                && let Some(value) = read(self, item, &s)
            {
                out.push(value);
            }
        }
        out
    }

    fn fields(&mut self, node: &YamlNode, what: &str) -> Vec<FileField> {
        self.seq(node, what)
            .iter()
            .filter_map(|item| self.field(item))
            .collect()
    }

    fn field(&mut self, node: &YamlNode) -> Option<FileField> {
        let Some(entries) = node.as_map() else {
            let mut error = self.wrong_kind(node, "a field (a mapping with `name` and `type`)");
            if let Some(s) = node.as_str() {
                error = error.with_help(format!("write the field as {{name: {s}, type: string}}"));
            }
            self.push(error);
            return None;
        };
        self.unknown_keys(entries, FIELD_KEYS, "a field");
        let name_node = node.get("name");
        let name = match name_node {
            Some(n) => self.string(n, "a field's `name`"),
            None => {
                self.missing(node_span(node), "name", "this field");
                None
            }
        };
        if let (Some(n), Some("")) = (name_node, name.as_deref()) {
            self.push(SchemaFileError::new(
                Kind::InvalidValue,
                node_span(n),
                "a field name cannot be empty",
            ));
        }
        let type_node = node.get("type");
        let field_type = match type_node {
            Some(t) => self.file_type(t),
            None => {
                self.missing(node_span(node), "type", "this field");
                None
            }
        };
        let id_node = node.get("id");
        let id = id_node.and_then(|n| self.id(n, "`id`"));
        let required_node = node.get("required");
        let required = required_node.and_then(|n| self.bool(n, "`required`"));
        let doc_node = node.get("doc").filter(|n| !n.is_null());
        let doc = doc_node.and_then(|n| self.string(n, "`doc`"));

        let first_key = entries
            .first()
            .map_or(node.span.start, |e| e.key_span.start);
        Some(FileField {
            id,
            name: name?,
            // A field whose type could not be read still takes part in the cross-checks; the
            // error is recorded, so this placeholder never leaves the reader.
            field_type: field_type.unwrap_or(FileType::Primitive(PrimitiveType::Unknown)),
            required: required.unwrap_or(false),
            doc,
            span: node_span(node),
            name_span: name_node.map(node_span).unwrap_or_default(),
            type_span: type_node.map_or_else(|| node_span(node), node_span),
            id_span: match id_node.filter(|n| !n.is_null()) {
                Some(n) => node_span(n),
                None => Span::new(first_key, 0),
            },
            required_span: required_node.map(node_span),
            doc_span: doc_node.map(node_span),
            in_type_string: false,
        })
    }

    fn file_type(&mut self, node: &YamlNode) -> Option<FileType> {
        match &node.value {
            YamlValue::String(s) => {
                let locator = Locator::new(self.text, node, s);
                match parse_type_string(s, &locator) {
                    Ok(ty) => Some(ty),
                    Err(e) => {
                        self.push(e);
                        None
                    }
                }
            }
            YamlValue::Map(entries) => self.type_mapping(node, entries),
            _ => {
                let error = self
                    .wrong_kind(
                        node,
                        "a type (a name such as `long`, or a `struct`, `list` or `map` mapping)",
                    )
                    .with_help(TYPE_HELP);
                self.push(error);
                None
            }
        }
    }

    /// `{struct: [...]}`, `{list: T, ...}` or `{map: [K, V], ...}`.
    fn type_mapping(&mut self, node: &YamlNode, entries: &[YamlEntry]) -> Option<FileType> {
        let mut forms = entries
            .iter()
            .filter(|e| matches!(e.key.as_str(), "struct" | "list" | "map"));
        let Some(form) = forms.next() else {
            self.unknown_keys(entries, TYPE_KEYS, "a type");
            self.push(
                SchemaFileError::new(
                    Kind::MissingKey,
                    node_span(node),
                    "a type mapping needs one of `struct`, `list` or `map`",
                )
                .with_help(TYPE_HELP),
            );
            return None;
        };
        if let Some(second) = forms.next() {
            self.push(SchemaFileError::new(
                Kind::InvalidValue,
                span_of(second.key_span),
                format!(
                    "a type is one of `struct`, `list` or `map`, not both `{}` and `{}`",
                    form.key, second.key
                ),
            ));
            return None;
        }
        // Where a missing nested id would go: after the mapping's last value.
        let insert_at = Span::new(
            entries.last().map_or(node.span.end, |e| e.value.span.end),
            0,
        );
        let id_at = |reader: &mut Self, key: &str| match node.get(key).filter(|n| !n.is_null()) {
            Some(n) => (reader.id(n, &format!("`{key}`")), node_span(n)),
            None => (None, insert_at),
        };
        match form.key.as_str() {
            "struct" => {
                self.unknown_keys(entries, STRUCT_KEYS, "a struct type");
                Some(FileType::Struct(self.fields(&form.value, "`struct`")))
            }
            "list" => {
                self.unknown_keys(entries, LIST_KEYS, "a list type");
                let element = self.file_type(&form.value);
                let (element_id, element_id_span) = id_at(self, "element-id");
                let element_required = node
                    .get("element-required")
                    .and_then(|n| self.bool(n, "`element-required`"));
                Some(FileType::List(Box::new(FileList {
                    element_id,
                    element_id_span,
                    element_required: element_required.unwrap_or(false),
                    element: element?,
                    element_span: node_span(&form.value),
                })))
            }
            _ => {
                self.unknown_keys(entries, MAP_KEYS, "a map type");
                let (key_id, key_id_span) = id_at(self, "key-id");
                let (value_id, value_id_span) = id_at(self, "value-id");
                let value_required = node
                    .get("value-required")
                    .and_then(|n| self.bool(n, "`value-required`"));
                let [key_node, value_node] = form.value.as_seq().unwrap_or_default() else {
                    let error = self
                        .wrong_kind(&form.value, "`map` to be `[key type, value type]`")
                        .with_help("write e.g. {map: [string, long]}");
                    self.push(error);
                    return None;
                };
                let key = self.file_type(key_node);
                let value = self.file_type(value_node);
                Some(FileType::Map(Box::new(FileMap {
                    key_id,
                    key_id_span,
                    value_id,
                    value_id_span,
                    value_required: value_required.unwrap_or(false),
                    key: key?,
                    key_span: node_span(key_node),
                    value: value?,
                    value_span: node_span(value_node),
                })))
            }
        }
    }

    fn column_ref(
        &mut self,
        loc: &Locator,
        s: &str,
        range: Range<usize>,
        what: &str,
    ) -> Option<ColumnRef> {
        let range = trimmed(s, range);
        if range.is_empty() {
            self.push(SchemaFileError::new(
                Kind::InvalidValue,
                loc.at(range),
                format!("{what} is missing in `{s}`"),
            ));
            return None;
        }
        Some(ColumnRef {
            name: s[range.clone()].to_owned(),
            span: loc.at(range),
        })
    }

    fn check_column(&mut self, fields: &[FileField], column: &ColumnRef, what: &str) {
        if find_column(fields, &column.name).is_some() {
            return;
        }
        let mut paths = Vec::new();
        column_paths(fields, "", &mut paths);
        let mut error = SchemaFileError::new(
            Kind::UnknownColumn,
            column.span,
            format!(
                "{what} names `{}`, which is not a column of the table",
                column.name
            ),
        );
        if let Some(s) = suggest(&column.name, paths.iter().map(String::as_str)) {
            error = error.with_help(format!("did you mean `{s}`?"));
        }
        self.push(error);
    }

    /// Names are unique within each struct (the table's top level included).
    fn check_names(&mut self, fields: &[FileField], context: &str) {
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for field in fields {
            match seen.entry(&field.name) {
                Entry::Occupied(first) => self.push(
                    SchemaFileError::new(
                        Kind::DuplicateName,
                        field.name_span,
                        format!("duplicate field name `{}` in {context}", field.name),
                    )
                    .with_related(*first.get(), "first defined here"),
                ),
                Entry::Vacant(slot) => {
                    slot.insert(field.name_span);
                }
            }
        }
        for field in fields {
            self.check_nested_names(&field.field_type, &field.name);
        }
    }

    fn check_nested_names(&mut self, ty: &FileType, path: &str) {
        match ty {
            FileType::Primitive(_) => {}
            FileType::Struct(fields) => self.check_names(fields, &format!("struct `{path}`")),
            FileType::List(list) => {
                self.check_nested_names(&list.element, &format!("{path}.element"))
            }
            FileType::Map(map) => {
                self.check_nested_names(&map.key, &format!("{path}.key"));
                self.check_nested_names(&map.value, &format!("{path}.value"));
            }
        }
    }

    /// Every id is used once among the current fields and once among the dropped ones, and no
    /// current field reuses a dropped field's id.
    fn check_ids(&mut self, fields: &[FileField], dropped: &[FileField]) {
        let mut current = Vec::new();
        collect_ids(fields, "", &mut current);
        let mut retired = Vec::new();
        collect_ids(dropped, "", &mut retired);
        for uses in [&current, &retired] {
            let mut seen: HashMap<FieldId, &IdUse> = HashMap::new();
            for used in uses {
                match seen.entry(used.id) {
                    Entry::Occupied(first) => self.push(
                        SchemaFileError::new(
                            Kind::DuplicateId,
                            used.span,
                            format!(
                                "field id {} is used twice: by {} and by {}",
                                used.id,
                                first.get().what,
                                used.what
                            ),
                        )
                        .with_related(first.get().span, "first used here")
                        .with_help("every field, list element and map key or value has its own id"),
                    ),
                    Entry::Vacant(slot) => {
                        slot.insert(used);
                    }
                }
            }
        }
        let retired: HashMap<FieldId, &IdUse> = retired.iter().map(|u| (u.id, u)).collect();
        for used in &current {
            if let Some(old) = retired.get(&used.id) {
                self.push(
                    SchemaFileError::new(
                        Kind::RetiredId,
                        used.span,
                        format!(
                            "{} has id {}, which belonged to dropped {}",
                            used.what, used.id, old.what
                        ),
                    )
                    .with_related(old.span, "retired here")
                    .with_help(
                        "a dropped field's id is retired forever: old data files still hold its \
                         values under that id; leave the id out to have a new one assigned",
                    ),
                );
            }
        }
    }
}

/// One id and who uses it, for duplicate reports.
struct IdUse {
    id: FieldId,
    span: Span,
    what: String,
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}.{name}")
    }
}

fn collect_ids(fields: &[FileField], prefix: &str, out: &mut Vec<IdUse>) {
    for field in fields {
        let path = join(prefix, &field.name);
        if let Some(id) = field.id {
            out.push(IdUse {
                id,
                span: field.id_span,
                what: format!("field `{path}`"),
            });
        }
        collect_type_ids(&field.field_type, &path, out);
    }
}

fn collect_type_ids(ty: &FileType, path: &str, out: &mut Vec<IdUse>) {
    let mut member = |id: Option<FieldId>, span: Span, what: String| {
        if let Some(id) = id {
            out.push(IdUse { id, span, what });
        }
    };
    match ty {
        FileType::Primitive(_) => {}
        FileType::Struct(fields) => collect_ids(fields, path, out),
        FileType::List(list) => {
            member(
                list.element_id,
                list.element_id_span,
                format!("the element of `{path}`"),
            );
            collect_type_ids(&list.element, &format!("{path}.element"), out);
        }
        FileType::Map(map) => {
            member(map.key_id, map.key_id_span, format!("the key of `{path}`"));
            member(
                map.value_id,
                map.value_id_span,
                format!("the value of `{path}`"),
            );
            collect_type_ids(&map.key, &format!("{path}.key"), out);
            collect_type_ids(&map.value, &format!("{path}.value"), out);
        }
    }
}

/// The field a column reference names: a top-level name, or a dotted path through structs
/// (names may themselves hold dots, so each prefix that is a field name is tried).
pub(super) fn find_column<'f>(fields: &'f [FileField], path: &str) -> Option<&'f FileField> {
    fields.iter().find_map(|field| {
        if field.name == path {
            return Some(field);
        }
        let rest = path.strip_prefix(field.name.as_str())?.strip_prefix('.')?;
        match &field.field_type {
            FileType::Struct(nested) => find_column(nested, rest),
            _ => None,
        }
    })
}

/// The field names along the path [`find_column`] follows to `path`.
pub(super) fn column_segments(fields: &[FileField], path: &str) -> Option<Vec<String>> {
    fields.iter().find_map(|field| {
        if field.name == path {
            return Some(vec![field.name.clone()]);
        }
        let rest = path.strip_prefix(field.name.as_str())?.strip_prefix('.')?;
        match &field.field_type {
            FileType::Struct(nested) => {
                let mut segments = vec![field.name.clone()];
                segments.extend(column_segments(nested, rest)?);
                Some(segments)
            }
            _ => None,
        }
    })
}

/// Every path [`find_column`] accepts, for "did you mean".
fn column_paths(fields: &[FileField], prefix: &str, out: &mut Vec<String>) {
    for field in fields {
        let path = join(prefix, &field.name);
        if let FileType::Struct(nested) = &field.field_type {
            column_paths(nested, &path, out);
        }
        out.push(path);
    }
}

/// `range` without the whitespace at its ends.
fn trimmed(s: &str, range: Range<usize>) -> Range<usize> {
    let inner = &s[range.clone()];
    let start = range.start + (inner.len() - inner.trim_start().len());
    let end = range.end - (inner.len() - inner.trim_end().len());
    start..end.max(start)
}

/// The comma-separated arguments in `range`, each trimmed.
fn split_args(s: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = range.start;
    for (i, c) in s[range.clone()].char_indices() {
        if c == ',' {
            out.push(trimmed(s, start..range.start + i));
            start = range.start + i + 1;
        }
    }
    out.push(trimmed(s, start..range.end));
    out
}

/// The whitespace-separated words of `s`.
fn words(s: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        match (c.is_whitespace(), start) {
            (true, Some(st)) => {
                out.push(st..i);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

/// The candidate closest to `wanted` (ignoring case), if it is close enough to be a typo: one
/// edit (a transposition counts as one) per three characters, at least one, and never every
/// character (`c` is no typo of `a`).
pub(super) fn suggest<'c>(
    wanted: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let wanted_lower = wanted.to_lowercase();
    let len = wanted.chars().count();
    let limit = (len / 3).max(1).min(len.saturating_sub(1));
    candidates
        .into_iter()
        .map(|c| (edit_distance(&wanted_lower, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Optimal-string-alignment distance: insertions, deletions, substitutions and transpositions
/// of neighbours each cost one.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}
