//! Columns of a type fieldgate cannot decode (variant, geometry, geography), and defaults it
//! cannot build: reported `not-read` with their nested members, never guessed.

use crate::iceberg::types::{FieldId, PrimitiveType, Type};
use crate::verify::file_schema::FileNode;

use super::{ColumnReport, Member, Resolver, Status, join};

impl Resolver<'_> {
    /// A member holding `undecodable` somewhere: not read, and its file column (if the file has
    /// one) neither read nor pruned.
    pub(super) fn undecodable(
        &mut self,
        m: &Member<'_>,
        undecodable: &PrimitiveType,
        found: Option<&FileNode>,
    ) {
        let family = match undecodable {
            PrimitiveType::Geometry(_) => "geometry",
            PrimitiveType::Geography(_) => "geography",
            _ => "variant",
        };
        let detail = format!("not verified: fieldgate does not read {family} values");
        let file_column = found.map(|node| node.path.clone());
        self.unread.extend(file_column.clone());
        self.not_read(m.id, &m.path, m.field_type, file_column, detail);
    }

    /// A column of a type fieldgate cannot decode, and its nested members: reported, not read.
    pub(super) fn not_read(
        &mut self,
        id: FieldId,
        path: &str,
        t: &Type,
        file_column: Option<String>,
        detail: String,
    ) {
        self.columns.push(ColumnReport {
            path: path.to_string(),
            field_id: id,
            status: Status::NotRead,
            table_type: t.to_string(),
            file_column,
            file_type: None,
            detail: Some(detail),
            row_group: None,
        });
        let members: Vec<(FieldId, String, &Type)> = match t {
            Type::Primitive(_) => Vec::new(),
            Type::Struct(s) => s
                .fields
                .iter()
                .map(|f| (f.id, join(path, &f.name), &f.field_type))
                .collect(),
            Type::List(l) => vec![(l.element_id, join(path, "element"), &l.element)],
            Type::Map(m) => vec![
                (m.key_id, join(path, "key"), &m.key),
                (m.value_id, join(path, "value"), &m.value),
            ],
        };
        for (id, member, member_type) in members {
            self.not_read(id, &member, member_type, None, format!("part of `{path}`"));
        }
    }
}
