//! Column references: the field a dotted path names, and every path there is.

use crate::frontend::schema_file::{FileField, FileType};

pub(super) fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}.{name}")
    }
}

/// The field a column reference names: a top-level name, or a dotted path through structs
/// (names may themselves hold dots, so each prefix that is a field name is tried).
pub(in crate::frontend::schema_file) fn find_column<'f>(
    fields: &'f [FileField],
    path: &str,
) -> Option<&'f FileField> {
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
pub(in crate::frontend::schema_file) fn column_segments(
    fields: &[FileField],
    path: &str,
) -> Option<Vec<String>> {
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
pub(super) fn column_paths(fields: &[FileField], prefix: &str, out: &mut Vec<String>) {
    for field in fields {
        let path = join(prefix, &field.name);
        if let FileType::Struct(nested) = &field.field_type {
            column_paths(nested, &path, out);
        }
        out.push(path);
    }
}
