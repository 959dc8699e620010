//! The cross-checks, run on what could be read: duplicate names per struct, duplicate ids
//! anywhere, ids of dropped fields reused, and the columns that `identifier-fields`,
//! `partition` and `sort-order` name.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use crate::change::Span;
use crate::iceberg::types::FieldId;

use super::Reader;
use super::columns::{column_paths, find_column, join};
use crate::frontend::schema_file::error::{SchemaFileError, SchemaFileErrorKind as Kind};
use crate::frontend::schema_file::{ColumnRef, FileField, FileType};
use crate::suggest::closest_key;

impl Reader<'_> {
    /// Names unique per struct, ids unique, and no dropped field's id reused.
    pub(super) fn check_schema(&mut self, fields: &[FileField], dropped: &[FileField]) {
        self.check_names(fields, "the table");
        self.check_ids(fields, dropped);
    }

    pub(super) fn check_column(&mut self, fields: &[FileField], column: &ColumnRef, what: &str) {
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
        if let Some(s) = closest_key(&column.name, paths.iter().map(String::as_str)) {
            error = error.with_help(format!("did you mean `{s}`?"));
        }
        self.push(error);
    }

    /// Names are unique within each struct (the table's top level included).
    pub(super) fn check_names(&mut self, fields: &[FileField], context: &str) {
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

    pub(super) fn check_nested_names(&mut self, ty: &FileType, path: &str) {
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
    pub(super) fn check_ids(&mut self, fields: &[FileField], dropped: &[FileField]) {
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
