//! The name mapping (`schema.name-mapping.default`): fallback field ids for data files written
//! without them. Schema changes keep it current exactly as Iceberg Java's `MappingUtil.update`
//! does: a rename adds the new name and keeps the old one as an alias; an added field gets an
//! entry, and its name is taken away from any sibling entry that had it (the name now means the
//! new field). Entries left without names are kept, as Java keeps them; PyIceberg drops them.
//! Such an entry matches no column, so [`NameMapping::same_meaning`] treats both as equal.

use std::collections::HashMap;

use serde_json::{Map, Value as JsonValue};

use crate::iceberg::codec::{ModelError, ModelResult, as_array, as_i32, as_object, as_str};
use crate::iceberg::schema::Field;
use crate::iceberg::types::{FieldId, Type};
use crate::json::Node;

pub const NAME_MAPPING_PROPERTY: &str = "schema.name-mapping.default";

#[derive(Debug, Clone, PartialEq, Default)]
pub struct NameMapping {
    pub fields: Vec<MappedField>,
    /// Whether entries are written `names` before `field-id` (kept from the file we read).
    pub names_first: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MappedField {
    pub field_id: Option<FieldId>,
    pub names: Vec<String>,
    pub fields: Vec<MappedField>,
}

impl NameMapping {
    /// Parses the property's JSON text; errors are reported at `property` (the string in the
    /// metadata file), since offsets inside an escaped string do not map back one to one.
    pub fn parse(text: &str, property: &Node<'_>) -> ModelResult<NameMapping> {
        let root = crate::json::parse(text).map_err(|e| {
            ModelError::at(
                property,
                format!("`{NAME_MAPPING_PROPERTY}` is not valid JSON: {e}"),
            )
        })?;
        let relocate = |e: ModelError| {
            ModelError::at(
                property,
                format!("`{NAME_MAPPING_PROPERTY}`: {}", e.message),
            )
        };
        let entries = as_array(&root, "a name mapping").map_err(relocate)?;
        let names_first = entries
            .first()
            .and_then(|e| e.as_object())
            .map(|m| {
                let keys: Vec<&str> = m.iter().map(|m| m.key.as_ref()).collect();
                keys.iter().position(|k| *k == "names") < keys.iter().position(|k| *k == "field-id")
            })
            .unwrap_or(false);
        let fields = mapped_fields(entries).map_err(relocate)?;
        Ok(NameMapping {
            fields,
            names_first,
        })
    }

    pub fn to_json_string(&self) -> String {
        let value = JsonValue::Array(
            self.fields
                .iter()
                .map(|f| f.to_json(self.names_first))
                .collect(),
        );
        value.to_string()
    }

    /// Whether two mappings resolve every column name of every file to the same field id: equal
    /// once entries without names are left out (with what is under them, which only a name
    /// could reach), whatever the writer's key order. Java keeps such entries and PyIceberg
    /// drops them, so metadata from either writer means the same.
    pub fn same_meaning(&self, other: &NameMapping) -> bool {
        named(&self.fields) == named(&other.fields)
    }

    /// Parses the property's value on its own (a `SET TBLPROPERTIES` value, a schema file's
    /// `properties`), where an error has no place in a metadata file to point at.
    pub fn parse_value(value: &str) -> Result<NameMapping, String> {
        let quoted = JsonValue::String(value.to_string()).to_string();
        let node = crate::json::parse(&quoted).map_err(|e| e.to_string())?;
        NameMapping::parse(value, &node).map_err(|e| e.message)
    }

    /// The names this mapping resolves to a field id that `other` resolves to another id or to
    /// none: what files written without ids would read differently under `other`. Nested names
    /// are compared under the entry their parent's name resolves to, level by level, so the
    /// work is linear in the two mappings whatever the aliases.
    pub fn lost_in(&self, other: &NameMapping) -> Vec<LostName> {
        let mut out = Vec::new();
        lost(&self.fields, &other.fields, "", &mut out);
        out
    }

    /// A rename of field `id` to `new_name`: the new name joins the old ones.
    pub fn rename(&mut self, id: FieldId, new_name: &str) {
        if let Some(entry) = find_mut(&mut self.fields, id)
            && !entry.names.iter().any(|n| n == new_name)
        {
            entry.names.push(new_name.to_string());
        }
    }

    /// A field added under `parent` (None: the table root). Nested members get entries too.
    pub fn add(&mut self, parent: Option<FieldId>, field: &Field) {
        let siblings = match parent {
            None => &mut self.fields,
            Some(id) => match find_mut(&mut self.fields, id) {
                Some(entry) => &mut entry.fields,
                // The parent was never mapped: old files cannot contain this field either.
                None => return,
            },
        };
        for sibling in siblings.iter_mut() {
            sibling.names.retain(|n| n != &field.name);
        }
        siblings.push(MappedField {
            field_id: Some(field.id),
            names: vec![field.name.clone()],
            fields: children_of(&field.field_type),
        });
    }
}

/// A name a mapping no longer resolves as before: `path` in file names (`address.city`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostName {
    pub path: String,
    pub was: FieldId,
    /// The id the name resolves to now, `None` when it resolves to nothing.
    pub now: Option<FieldId>,
}

fn lost(before: &[MappedField], after: &[MappedField], prefix: &str, out: &mut Vec<LostName>) {
    let by_name: HashMap<&str, &MappedField> = after
        .iter()
        .flat_map(|entry| entry.names.iter().map(move |n| (n.as_str(), entry)))
        .collect();
    let path = |name: &str| match prefix {
        "" => name.to_string(),
        _ => format!("{prefix}.{name}"),
    };
    for entry in before {
        let Some(was) = entry.field_id else {
            continue;
        };
        let mut kept = None;
        for name in &entry.names {
            match by_name.get(name.as_str()) {
                Some(now) if now.field_id == Some(was) => {
                    kept.get_or_insert((name, *now));
                }
                found => out.push(LostName {
                    path: path(name),
                    was,
                    now: found.and_then(|f| f.field_id),
                }),
            }
        }
        if let Some((name, now)) = kept {
            lost(&entry.fields, &now.fields, &path(name), out);
        }
    }
}

/// `fields` without the entries no name can reach, at every depth.
fn named(fields: &[MappedField]) -> Vec<MappedField> {
    fields
        .iter()
        .filter(|f| !f.names.is_empty())
        .map(|f| MappedField {
            field_id: f.field_id,
            names: f.names.clone(),
            fields: named(&f.fields),
        })
        .collect()
}

fn children_of(field_type: &Type) -> Vec<MappedField> {
    let leaf = |id, name: &str, ty: &Type| MappedField {
        field_id: Some(id),
        names: vec![name.to_string()],
        fields: children_of(ty),
    };
    match field_type {
        Type::Primitive(_) => Vec::new(),
        Type::Struct(s) => s
            .fields
            .iter()
            .map(|f| leaf(f.id, &f.name, &f.field_type))
            .collect(),
        Type::List(l) => vec![leaf(l.element_id, "element", &l.element)],
        Type::Map(m) => vec![
            leaf(m.key_id, "key", &m.key),
            leaf(m.value_id, "value", &m.value),
        ],
    }
}

fn find_mut(fields: &mut [MappedField], id: FieldId) -> Option<&mut MappedField> {
    for field in fields {
        if field.field_id == Some(id) {
            return Some(field);
        }
        if let Some(found) = find_mut(&mut field.fields, id) {
            return Some(found);
        }
    }
    None
}

fn mapped_fields(entries: &[Node<'_>]) -> ModelResult<Vec<MappedField>> {
    entries
        .iter()
        .map(|entry| {
            as_object(entry, "a name mapping entry")?;
            let names = match entry.get("names") {
                Some(names) => as_array(names, "`names`")?
                    .iter()
                    .map(|n| as_str(n, "a mapped name").map(str::to_string))
                    .collect::<ModelResult<_>>()?,
                None => Vec::new(),
            };
            let fields = match entry.get("fields") {
                Some(fields) => mapped_fields(as_array(fields, "`fields`")?)?,
                None => Vec::new(),
            };
            Ok(MappedField {
                field_id: entry
                    .get("field-id")
                    .map(|id| as_i32(id, "`field-id`"))
                    .transpose()?,
                names,
                fields,
            })
        })
        .collect()
}

impl MappedField {
    fn to_json(&self, names_first: bool) -> JsonValue {
        let mut m = Map::new();
        let names = JsonValue::Array(self.names.iter().map(|n| n.clone().into()).collect());
        if names_first {
            m.insert("names".into(), names.clone());
        }
        if let Some(id) = self.field_id {
            m.insert("field-id".into(), id.into());
        }
        if !names_first {
            m.insert("names".into(), names);
        }
        if !self.fields.is_empty() {
            m.insert(
                "fields".into(),
                JsonValue::Array(self.fields.iter().map(|f| f.to_json(names_first)).collect()),
            );
        }
        JsonValue::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iceberg::types::{PrimitiveType, StructType};

    fn mapping(text: &str) -> NameMapping {
        let holder = crate::json::parse("\"\"").unwrap();
        NameMapping::parse(text, &holder).unwrap()
    }

    #[test]
    fn round_trips_pyiceberg_text() {
        let text = r#"[{"field-id":1,"names":["id"]},{"field-id":3,"names":["location"],"fields":[{"field-id":4,"names":["lat","latitude"]}]}]"#;
        assert_eq!(mapping(text).to_json_string(), text);
    }

    #[test]
    fn rename_keeps_the_old_name_as_alias() {
        let mut m = mapping(r#"[{"field-id":1,"names":["id"]},{"field-id":2,"names":["cat"]}]"#);
        m.rename(2, "category");
        assert_eq!(m.fields[1].names, ["cat", "category"]);
    }

    #[test]
    fn a_re_added_name_points_at_the_new_field() {
        let mut m = mapping(r#"[{"field-id":1,"names":["id"]},{"field-id":2,"names":["data"]}]"#);
        let field = Field::new(
            4,
            "data",
            false,
            Type::Struct(StructType {
                fields: vec![Field::new(
                    5,
                    "x",
                    false,
                    Type::Primitive(PrimitiveType::Int),
                )],
            }),
        );
        m.add(None, &field);
        assert_eq!(
            m.to_json_string(),
            r#"[{"field-id":1,"names":["id"]},{"field-id":2,"names":[]},{"field-id":4,"names":["data"],"fields":[{"field-id":5,"names":["x"]}]}]"#
        );
    }

    #[test]
    fn entries_without_names_do_not_change_the_meaning() {
        // What Java keeps after a name moved to a new field, and what PyIceberg writes.
        let java = mapping(
            r#"[{"field-id":1,"names":["id"]},{"field-id":2,"names":[],"fields":[{"field-id":3,"names":["x"]}]},{"field-id":4,"names":["data"]}]"#,
        );
        let pyiceberg =
            mapping(r#"[{"names":["id"],"field-id":1},{"names":["data"],"field-id":4}]"#);
        assert!(java.same_meaning(&pyiceberg) && pyiceberg.same_meaning(&java));
        // A name that resolves to another id is a different mapping.
        let moved = mapping(r#"[{"field-id":1,"names":["id"]},{"field-id":2,"names":["data"]}]"#);
        assert!(!java.same_meaning(&moved));
        let nested = mapping(
            r#"[{"field-id":1,"names":["id"]},{"field-id":4,"names":["data"],"fields":[{"field-id":5,"names":[]}]}]"#,
        );
        assert!(nested.same_meaning(&pyiceberg));
    }
}
