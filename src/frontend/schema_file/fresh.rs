//! A schema file for a table that does not exist yet: no id anywhere, so the ids are the ones
//! Iceberg gives a new table's schema (`CREATE TABLE`): top-level fields from 1 in order, then
//! each field's nested members, struct by struct, exactly as
//! [`crate::evolve::assign_fresh_schema_ids`] numbers them.

use crate::iceberg::types::FieldId;

use super::{FileField, FileType, SchemaFile};

impl SchemaFile {
    /// Whether the file writes no id at all: not on a field, element, key or value, and no
    /// dropped fields (which always have ids). Such a file, given without a table, describes a
    /// new table.
    pub fn has_no_ids(&self) -> bool {
        self.dropped.is_empty() && self.fields.iter().all(field_has_no_ids)
    }

    /// The file with every id filled in as Iceberg numbers a new table.
    pub fn with_fresh_ids(&self) -> SchemaFile {
        let mut file = self.clone();
        let mut next: FieldId = 0;
        let mut counter = || {
            next += 1;
            next
        };
        number_fields(&mut file.fields, &mut counter);
        file
    }
}

fn field_has_no_ids(field: &FileField) -> bool {
    field.id.is_none() && type_has_no_ids(&field.field_type)
}

fn type_has_no_ids(ty: &FileType) -> bool {
    match ty {
        FileType::Primitive(_) => true,
        FileType::Struct(fields) => fields.iter().all(field_has_no_ids),
        FileType::List(list) => list.element_id.is_none() && type_has_no_ids(&list.element),
        FileType::Map(map) => {
            map.key_id.is_none()
                && map.value_id.is_none()
                && type_has_no_ids(&map.key)
                && type_has_no_ids(&map.value)
        }
    }
}

/// All direct children first, then each child's subtree, as `AssignFreshIds` does.
fn number_fields(fields: &mut [FileField], next: &mut impl FnMut() -> FieldId) {
    for field in fields.iter_mut() {
        field.id = Some(next());
    }
    for field in fields.iter_mut() {
        number_type(&mut field.field_type, next);
    }
}

fn number_type(ty: &mut FileType, next: &mut impl FnMut() -> FieldId) {
    match ty {
        FileType::Primitive(_) => {}
        FileType::Struct(fields) => number_fields(fields, next),
        FileType::List(list) => {
            list.element_id = Some(next());
            number_type(&mut list.element, next);
        }
        FileType::Map(map) => {
            map.key_id = Some(next());
            map.value_id = Some(next());
            number_type(&mut map.key, next);
            number_type(&mut map.value, next);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::change::{SourceFile, StatementKind};
    use crate::evolve::new_table::new_table;
    use crate::frontend::ddl::{Dialect, parse_sql};
    use crate::frontend::schema_file::SchemaFile;

    #[test]
    fn a_new_table_is_numbered_as_create_table_numbers_it() {
        let file = SchemaFile::parse_yaml(
            "table: db.created\nfields:\n  - {name: id, type: long, required: true}\n  - {name: data, type: string}\n  - {name: point, type: {struct: [{name: x, type: double}, {name: y, type: double}]}}\n  - {name: tags, type: \"array<string>\"}\n  - {name: attrs, type: {map: [string, \"struct<a: int>\"]}}\n",
        )
        .unwrap();
        assert!(file.has_no_ids());
        let described = file.with_fresh_ids().to_table_metadata().unwrap().metadata;
        let sql = "CREATE TABLE db.created (id bigint NOT NULL, data string, point struct<x: double, y: double>, tags array<string>, attrs map<string, struct<a: int>>) USING iceberg";
        let source = Arc::new(SourceFile {
            name: "c.sql".into(),
            text: sql.into(),
        });
        let statements = parse_sql(source, Dialect::Spark).unwrap();
        let StatementKind::CreateTable(create) = &statements[0].kind else {
            panic!("a CREATE TABLE")
        };
        let created = new_table(create, "/t".into(), 0).unwrap();
        assert_eq!(
            described.current_schema().fields,
            created.current_schema().fields
        );
        assert_eq!(described.last_column_id, created.last_column_id);
        assert!(!file.with_fresh_ids().has_no_ids());
    }
}
