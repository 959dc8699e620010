//! Ids written in the file that pair with no table field at their place: a field of the table
//! elsewhere, a retired id, one the table never had, or a new field's id for `new_ids` to check.

use super::{Differ, dotted, member_word, parent_of, with};
use crate::change::{ProblemKind, Span};
use crate::frontend::schema_file::FileType;
use crate::frontend::schema_file::new_ids::WrittenId;
use crate::iceberg::schema::MemberKind;
use crate::iceberg::types::FieldId;

impl Differ<'_> {
    /// An id written in the file (under `key`) that does not pair with a table field at its
    /// place: report why. Returns whether the field should still be judged as a new field (an
    /// id the table never had, or retired) rather than left out (a field of the table,
    /// elsewhere). An id above `last-column-id` may be the one `apply` assigns the new field
    /// (written back by `apply --write`): that is decided once the whole update is known.
    pub(super) fn misplaced_id(
        &mut self,
        id: FieldId,
        span: Span,
        segments: &[String],
        key: &'static str,
    ) -> bool {
        let dotted_path = dotted(segments);
        let path = dotted_path.as_str();
        if let Some(&info) = self.members.get(id) {
            let table_path = self.members.path(&info);
            self.claim_subtree(id);
            self.id_from_elsewhere(id, span, path, info.kind, &table_path);
            return false;
        }
        match self.retired.get(&id).cloned() {
            Some(old) => self.problem(
                ProblemKind::IdReuse,
                span,
                path,
                Some(id),
                format!(
                    "`{path}` has id {id}, which belonged to `{old}`, dropped earlier: old data files still hold `{old}`'s values under that id, and readers would return them as `{path}`"
                ),
                "a dropped field's id is retired forever: leave the id out and apply assigns a new one",
            ),
            None if id > self.base.last_column_id => {
                let origin = self.origin(span);
                self.written_new.push(WrittenId {
                    id,
                    key,
                    path: segments.to_vec(),
                    origin,
                });
            }
            None => self.problem(
                ProblemKind::UnknownField {
                    path: path.to_string(),
                    suggestion: None,
                },
                span,
                path,
                Some(id),
                format!(
                    "`{path}` has id {id}, but the table has no field with that id (its last-column-id is {})",
                    self.base.last_column_id
                ),
                "leave the id out for a new field: apply assigns ids from last-column-id + 1 and writes them into the file",
            ),
        }
        true
    }

    /// `path` has the id of the table's member at `table_path`, which is not in this struct.
    fn id_from_elsewhere(
        &mut self,
        id: FieldId,
        span: Span,
        path: &str,
        kind: MemberKind,
        table_path: &str,
    ) {
        if kind == MemberKind::StructField {
            self.problem(
                ProblemKind::NestedStructure,
                span,
                path,
                Some(id),
                format!(
                    "`{path}` has id {id}, which is `{}` in the table: Iceberg cannot move a field into another struct",
                    table_path
                ),
                "keep the field where it is (and move it within its struct if needed), or leave the id out to add a new field and backfill it",
            );
        } else {
            self.problem(
                ProblemKind::InvalidChange,
                span,
                path,
                Some(id),
                format!(
                    "`{path}` has id {id}, which is the {} of `{}` in the table, not a field of this struct",
                    member_word(kind),
                    parent_of(table_path)
                ),
                "leave the id out to add a new field; apply assigns it",
            );
        }
    }

    /// A new field's members get new ids; an id written inside one is a mistake to explain.
    pub(super) fn check_new_ids(&mut self, ty: &FileType, path: &[String]) {
        match ty {
            FileType::Primitive(_) => {}
            FileType::Struct(fields) => {
                for field in fields {
                    let field_path = with(path, &field.name);
                    if let Some(id) = field.id {
                        self.misplaced_id(id, field.id_span, &field_path, "id");
                    }
                    self.check_new_ids(&field.field_type, &field_path);
                }
            }
            FileType::List(list) => {
                let element = with(path, "element");
                if let Some(id) = list.element_id {
                    self.misplaced_id(id, list.element_id_span, &element, "element-id");
                }
                self.check_new_ids(&list.element, &element);
            }
            FileType::Map(map) => {
                for (id, span, name, key, ty) in [
                    (map.key_id, map.key_id_span, "key", "key-id", &map.key),
                    (
                        map.value_id,
                        map.value_id_span,
                        "value",
                        "value-id",
                        &map.value,
                    ),
                ] {
                    let member = with(path, name);
                    if let Some(id) = id {
                        self.misplaced_id(id, span, &member, key);
                    }
                    self.check_new_ids(ty, &member);
                }
            }
        }
    }
}
