//! Fresh field ids, numbered as Java's `AssignFreshIds` numbers them: a struct's direct
//! children first, then each child's subtree; a list's element, then its subtree; a map's key
//! and value ids, then the key's subtree and the value's.

use crate::change::NewField;
use crate::iceberg::schema::Field;
use crate::iceberg::types::{FieldId, Type};

/// Fresh ids for a whole new schema (CREATE TABLE): top-level fields from 1, then each nested
/// type, in the same order as any added column. Returns the highest id used.
pub fn assign_fresh_schema_ids(fields: &mut [Field]) -> FieldId {
    let mut next = 1;
    let mut counter = || {
        let id = next;
        next += 1;
        id
    };
    for field in fields.iter_mut() {
        field.id = counter();
    }
    for field in fields.iter_mut() {
        assign_fresh_ids(&mut field.field_type, &mut counter);
    }
    next - 1
}

pub(super) fn assign_fresh_ids(field_type: &mut Type, next: &mut impl FnMut() -> FieldId) {
    match field_type {
        Type::Primitive(_) => {}
        Type::Struct(s) => {
            for field in s.fields.iter_mut() {
                field.id = next();
            }
            for field in s.fields.iter_mut() {
                assign_fresh_ids(&mut field.field_type, next);
            }
        }
        Type::List(l) => {
            l.element_id = next();
            assign_fresh_ids(&mut l.element, next);
        }
        Type::Map(m) => {
            m.key_id = next();
            m.value_id = next();
            assign_fresh_ids(&mut m.key, next);
            assign_fresh_ids(&mut m.value, next);
        }
    }
}

/// Turns a field as written in DDL into a schema field with placeholder ids.
pub fn field_from_new(new: &NewField) -> Field {
    Field {
        doc: new.doc.clone(),
        ..Field::new(0, new.name.clone(), new.required, new.field_type.clone())
    }
}
