//! A Parquet file's schema as a tree Iceberg can resolve against: each node with its name, its
//! field id (from the file, or from the table's name mapping when the file has none), its shape
//! (struct, list, map, primitive), the Iceberg type a primitive holds, and the range of leaf
//! column indices under it (what a projection mask selects).
//!
//! Lists and maps follow the Parquet spec's LogicalTypes rules, including the backward-compatible
//! two-level list forms. A file "has ids" when any node has one, as Iceberg Java decides
//! (`ParquetSchemaUtil.hasIds`).

use std::ops::Range;

use parquet::basic::{ConvertedType, LogicalType, Repetition, TimeUnit, Type as PhysicalType};
use parquet::schema::types::{SchemaDescriptor, Type as ParquetType};

use crate::iceberg::name_mapping::{MappedField, NameMapping};
use crate::iceberg::schema::Field;
use crate::iceberg::types::{FieldId, ListType, MapType, PrimitiveType, StructType, Type};

#[derive(Debug, Clone, PartialEq)]
pub struct FileNode {
    pub name: String,
    /// Dotted from the root, with list and map members named `element`, `key`, `value`.
    pub path: String,
    pub id: Option<FieldId>,
    pub optional: bool,
    pub shape: Shape,
    /// The leaf column indices under this node.
    pub leaves: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Primitive(FilePrimitive),
    Struct(Vec<FileNode>),
    List(Box<FileNode>),
    Map(Box<FileNode>, Box<FileNode>),
    /// A shape Iceberg does not write (a repeated field outside a LIST, a malformed MAP).
    Other(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct FilePrimitive {
    /// The Iceberg type the column holds, or `None` when Iceberg has no type for it.
    pub iceberg: Option<PrimitiveType>,
    /// A legacy INT96 timestamp, which readers accept for `timestamp` and `timestamptz`.
    pub int96: bool,
    /// The Parquet type as a person reads it: `INT32`, `BYTE_ARRAY (STRING)`, `INT64 (DECIMAL(12,2))`.
    pub label: String,
}

/// Where the ids the reader matches by came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdSource {
    FieldIds,
    NameMapping,
    /// No ids in the file and no name mapping in the table: a field-id reader cannot read it.
    None,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FileSchema {
    pub columns: Vec<FileNode>,
    pub ids: IdSource,
}

impl FileSchema {
    pub fn from_parquet(descr: &SchemaDescriptor, mapping: Option<&NameMapping>) -> FileSchema {
        let mut next_leaf = 0;
        let mut columns: Vec<FileNode> = descr
            .root_schema()
            .get_fields()
            .iter()
            .map(|t| node(t, "", &mut next_leaf))
            .collect();
        let has_ids = columns.iter().any(any_id);
        let ids = if has_ids {
            IdSource::FieldIds
        } else if let Some(mapping) = mapping {
            for column in &mut columns {
                apply_mapping(column, &mapping.fields);
            }
            IdSource::NameMapping
        } else {
            IdSource::None
        };
        FileSchema { columns, ids }
    }
}

impl FileNode {
    /// The node's type in Iceberg terms, for messages and for rendering its values; nested ids
    /// are the file's (0 when it has none).
    pub fn iceberg_type(&self) -> Option<Type> {
        Some(match &self.shape {
            Shape::Primitive(p) => Type::Primitive(p.iceberg.clone()?),
            Shape::Struct(children) => Type::Struct(StructType {
                fields: children
                    .iter()
                    .map(|c| {
                        Some(Field::new(
                            c.id.unwrap_or(0),
                            c.name.clone(),
                            !c.optional,
                            c.iceberg_type()?,
                        ))
                    })
                    .collect::<Option<_>>()?,
            }),
            Shape::List(element) => Type::List(ListType {
                element_id: element.id.unwrap_or(0),
                element_required: !element.optional,
                element: Box::new(element.iceberg_type()?),
            }),
            Shape::Map(key, value) => Type::Map(MapType {
                key_id: key.id.unwrap_or(0),
                key: Box::new(key.iceberg_type()?),
                value_id: value.id.unwrap_or(0),
                value_required: !value.optional,
                value: Box::new(value.iceberg_type()?),
            }),
            Shape::Other(_) => return None,
        })
    }

    /// The node's Iceberg type as text, or its Parquet type when it has no Iceberg type.
    pub fn type_name(&self) -> String {
        match &self.shape {
            Shape::Primitive(p) => p
                .iceberg
                .as_ref()
                .map_or_else(|| p.label.clone(), |t| t.to_string()),
            _ => self.describe(),
        }
    }

    /// How the file stores this node, for messages.
    pub fn describe(&self) -> String {
        match &self.shape {
            Shape::Primitive(p) => match &p.iceberg {
                Some(t) => format!("{t} ({})", p.label),
                None => p.label.clone(),
            },
            Shape::Other(what) => what.clone(),
            _ => self
                .iceberg_type()
                .map(|t| t.to_string())
                .unwrap_or_else(|| "a nested type with parts Iceberg cannot read".into()),
        }
    }
}

fn any_id(node: &FileNode) -> bool {
    node.id.is_some()
        || match &node.shape {
            Shape::Struct(children) => children.iter().any(any_id),
            Shape::List(e) => any_id(e),
            Shape::Map(k, v) => any_id(k) || any_id(v),
            Shape::Primitive(_) | Shape::Other(_) => false,
        }
}

/// Gives an id-less node the id its name maps to at this level, as Iceberg's
/// `ApplyNameMapping` does: list and map members are looked up as `element`, `key`, `value`.
fn apply_mapping(node: &mut FileNode, level: &[MappedField]) {
    let entry = level
        .iter()
        .find(|entry| entry.names.iter().any(|n| n == &node.name));
    node.id = entry.and_then(|e| e.field_id);
    let children: &[MappedField] = entry.map(|e| e.fields.as_slice()).unwrap_or(&[]);
    let member = |name: &str| -> Vec<MappedField> {
        children
            .iter()
            .filter(|c| c.names.iter().any(|n| n == name))
            .take(1)
            .map(|c| MappedField {
                names: vec![name.to_string()],
                ..c.clone()
            })
            .collect()
    };
    match &mut node.shape {
        Shape::Struct(fields) => fields.iter_mut().for_each(|f| apply_mapping(f, children)),
        Shape::List(element) => {
            element.name = "element".into();
            apply_mapping(element, &member("element"));
        }
        Shape::Map(key, value) => {
            key.name = "key".into();
            value.name = "value".into();
            apply_mapping(key, &member("key"));
            apply_mapping(value, &member("value"));
        }
        Shape::Primitive(_) | Shape::Other(_) => {}
    }
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

fn id_of(t: &ParquetType) -> Option<FieldId> {
    let info = t.get_basic_info();
    info.has_id().then(|| info.id())
}

fn optional(t: &ParquetType) -> bool {
    let info = t.get_basic_info();
    !info.has_repetition() || info.repetition() != Repetition::REQUIRED
}

fn leaf_count(t: &ParquetType) -> usize {
    match t {
        ParquetType::PrimitiveType { .. } => 1,
        ParquetType::GroupType { fields, .. } => fields.iter().map(|f| leaf_count(f)).sum(),
    }
}

/// Builds the node for `t`, named `name` in paths (list and map members get their Iceberg names).
fn node(t: &ParquetType, prefix: &str, next_leaf: &mut usize) -> FileNode {
    named_node(t, t.name(), prefix, next_leaf)
}

fn named_node(t: &ParquetType, name: &str, prefix: &str, next_leaf: &mut usize) -> FileNode {
    let path = join(prefix, name);
    let first = *next_leaf;
    let info = t.get_basic_info();
    let repeated = info.has_repetition() && info.repetition() == Repetition::REPEATED;
    let shape = if repeated {
        Shape::Other(format!("a repeated field outside a LIST ({})", t.name()))
    } else {
        match t {
            ParquetType::PrimitiveType { .. } => {
                *next_leaf += 1;
                Shape::Primitive(primitive(t))
            }
            ParquetType::GroupType { fields, .. } => {
                let logical = info.logical_type_ref();
                let converted = info.converted_type();
                if matches!(logical, Some(LogicalType::List)) || converted == ConvertedType::LIST {
                    list(t, &path, next_leaf)
                } else if matches!(logical, Some(LogicalType::Map))
                    || matches!(converted, ConvertedType::MAP | ConvertedType::MAP_KEY_VALUE)
                {
                    map(t, &path, next_leaf)
                } else {
                    Shape::Struct(fields.iter().map(|f| node(f, &path, next_leaf)).collect())
                }
            }
        }
    };
    let last = first + leaf_count(t);
    *next_leaf = last;
    FileNode {
        name: name.to_string(),
        path,
        id: id_of(t),
        optional: optional(t),
        shape,
        leaves: first..last,
    }
}

/// The LIST rules of the Parquet spec, with the backward-compatibility forms.
fn list(t: &ParquetType, path: &str, next_leaf: &mut usize) -> Shape {
    let fields = t.get_fields();
    let [repeated] = fields else {
        return Shape::Other("a LIST group without exactly one child".into());
    };
    let repeated_name = repeated.name();
    let element = match repeated.as_ref() {
        // Two-level list of primitives: the repeated field is the element.
        ParquetType::PrimitiveType { .. } => repeated,
        ParquetType::GroupType { fields: inner, .. } => {
            let legacy = inner.len() != 1
                || repeated_name == "array"
                || repeated_name == format!("{}_tuple", t.name());
            if legacy { repeated } else { &inner[0] }
        }
    };
    let mut element = if std::ptr::eq(element.as_ref(), repeated.as_ref()) {
        // The repeated node itself is the element: read its shape as if it were not repeated.
        let element_path = join(path, "element");
        let start = *next_leaf;
        let shape = match repeated.as_ref() {
            ParquetType::PrimitiveType { .. } => Shape::Primitive(primitive(repeated)),
            ParquetType::GroupType { fields: inner, .. } => Shape::Struct(
                inner
                    .iter()
                    .map(|f| node(f, &element_path, next_leaf))
                    .collect(),
            ),
        };
        FileNode {
            name: "element".into(),
            path: element_path,
            id: id_of(repeated),
            optional: false,
            shape,
            leaves: start..start + leaf_count(repeated),
        }
    } else {
        named_node(element, "element", path, next_leaf)
    };
    element.name = "element".into();
    Shape::List(Box::new(element))
}

fn map(t: &ParquetType, path: &str, next_leaf: &mut usize) -> Shape {
    let fields = t.get_fields();
    let key_value = match fields {
        [kv] if kv.is_group() && kv.get_fields().len() == 2 => kv,
        _ => {
            return Shape::Other(
                "a MAP group that is not `repeated group key_value { key; value }`".into(),
            );
        }
    };
    let [key, value] = key_value.get_fields() else {
        return Shape::Other("a MAP without a key and a value".into());
    };
    let key = named_node(key, "key", path, next_leaf);
    let value = named_node(value, "value", path, next_leaf);
    Shape::Map(Box::new(key), Box::new(value))
}

/// The Iceberg type a Parquet primitive holds, following the spec's Parquet type mapping and
/// what Iceberg's readers accept beyond it (narrower ints, millisecond times and timestamps).
pub fn primitive(t: &ParquetType) -> FilePrimitive {
    let ParquetType::PrimitiveType {
        physical_type,
        type_length,
        scale,
        precision,
        basic_info,
    } = t
    else {
        return FilePrimitive {
            iceberg: None,
            int96: false,
            label: "a group".into(),
        };
    };
    let logical = basic_info.logical_type_ref();
    let converted = basic_info.converted_type();
    let (iceberg, annotation) = decimal(logical, converted, *precision, *scale)
        .or_else(|| match physical_type {
            PhysicalType::BOOLEAN => Some((Some(PrimitiveType::Boolean), None)),
            PhysicalType::INT32 => int32(logical, converted),
            PhysicalType::INT64 => int64(logical, converted),
            PhysicalType::INT96 => Some((Some(PrimitiveType::Timestamptz), None)),
            PhysicalType::FLOAT if logical.is_none() => Some((Some(PrimitiveType::Float), None)),
            PhysicalType::DOUBLE if logical.is_none() => Some((Some(PrimitiveType::Double), None)),
            PhysicalType::BYTE_ARRAY => byte_array(logical, converted),
            PhysicalType::FIXED_LEN_BYTE_ARRAY => fixed(logical, converted, *type_length),
            _ => None,
        })
        .unwrap_or_else(|| unmapped(logical, converted));
    let physical = match physical_type {
        PhysicalType::FIXED_LEN_BYTE_ARRAY => format!("FIXED_LEN_BYTE_ARRAY({type_length})"),
        other => other.to_string(),
    };
    let label = match annotation {
        Some(a) => format!("{physical} ({a})"),
        None => physical,
    };
    FilePrimitive {
        iceberg,
        int96: *physical_type == PhysicalType::INT96,
        label,
    }
}

/// The Iceberg type a primitive holds (`None`: no Iceberg type) and its annotation as a person
/// reads it; each physical type's reader below answers `None` for annotations it leaves to
/// [`unmapped`].
type Holds = (Option<PrimitiveType>, Option<String>);

/// A decimal annotation on any physical type, by logical type or by converted type.
fn decimal(
    logical: Option<&LogicalType>,
    converted: ConvertedType,
    precision: i32,
    scale: i32,
) -> Option<Holds> {
    let decimal = |p: i32, s: i32| {
        (p > 0 && s >= 0 && s <= p).then_some(PrimitiveType::Decimal {
            precision: p as u32,
            scale: s as u32,
        })
    };
    match logical {
        Some(LogicalType::Decimal(d)) => Some((
            decimal(d.precision, d.scale),
            Some(format!("DECIMAL({},{})", d.precision, d.scale)),
        )),
        None if converted == ConvertedType::DECIMAL => Some((
            decimal(precision, scale),
            Some(format!("DECIMAL({precision},{scale})")),
        )),
        _ => None,
    }
}

fn int32(logical: Option<&LogicalType>, converted: ConvertedType) -> Option<Holds> {
    use PrimitiveType as P;
    match logical {
        Some(LogicalType::Date) => Some((Some(P::Date), Some("DATE".into()))),
        Some(LogicalType::Integer(i)) => Some((
            (i.is_signed || i.bit_width < 32).then_some(P::Int),
            Some(format!("INT({},{})", i.bit_width, i.is_signed)),
        )),
        Some(LogicalType::Time(_)) => Some((Some(P::Time), Some("TIME".into()))),
        Some(_) => None,
        None => Some(match converted {
            ConvertedType::DATE => (Some(P::Date), Some("DATE".into())),
            ConvertedType::NONE
            | ConvertedType::INT_8
            | ConvertedType::INT_16
            | ConvertedType::INT_32 => (Some(P::Int), None),
            ConvertedType::UINT_8 | ConvertedType::UINT_16 => (Some(P::Int), None),
            ConvertedType::TIME_MILLIS => (Some(P::Time), Some("TIME".into())),
            other => (None, Some(format!("{other}"))),
        }),
    }
}

fn int64(logical: Option<&LogicalType>, converted: ConvertedType) -> Option<Holds> {
    use PrimitiveType as P;
    match logical {
        Some(LogicalType::Integer(i)) => Some((
            i.is_signed.then_some(P::Long),
            Some(format!("INT({},{})", i.bit_width, i.is_signed)),
        )),
        Some(LogicalType::Time(_)) => Some((Some(P::Time), Some("TIME".into()))),
        Some(LogicalType::Timestamp(ts)) => {
            let utc = ts.is_adjusted_to_u_t_c;
            let held = match (utc, &ts.unit) {
                (true, TimeUnit::NANOS) => P::TimestamptzNs,
                (false, TimeUnit::NANOS) => P::TimestampNs,
                (true, _) => P::Timestamptz,
                (false, _) => P::Timestamp,
            };
            let unit = match ts.unit {
                TimeUnit::MILLIS => "MILLIS",
                TimeUnit::MICROS => "MICROS",
                TimeUnit::NANOS => "NANOS",
            };
            let zone = if utc { "UTC" } else { "local" };
            Some((Some(held), Some(format!("TIMESTAMP({unit}, {zone})"))))
        }
        Some(_) => None,
        None => Some(match converted {
            ConvertedType::NONE | ConvertedType::INT_64 => (Some(P::Long), None),
            ConvertedType::TIME_MICROS => (Some(P::Time), Some("TIME".into())),
            ConvertedType::TIMESTAMP_MILLIS | ConvertedType::TIMESTAMP_MICROS => {
                (Some(P::Timestamptz), Some(format!("{converted}")))
            }
            other => (None, Some(format!("{other}"))),
        }),
    }
}

fn byte_array(logical: Option<&LogicalType>, converted: ConvertedType) -> Option<Holds> {
    use PrimitiveType as P;
    match logical {
        Some(LogicalType::String | LogicalType::Enum | LogicalType::Json) => {
            Some((Some(P::String), Some("STRING".into())))
        }
        Some(LogicalType::Bson) => Some((Some(P::Binary), Some("BSON".into()))),
        Some(_) => None,
        None => Some(match converted {
            ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON => {
                (Some(P::String), Some("STRING".into()))
            }
            ConvertedType::NONE | ConvertedType::BSON => (Some(P::Binary), None),
            other => (None, Some(format!("{other}"))),
        }),
    }
}

fn fixed(logical: Option<&LogicalType>, converted: ConvertedType, length: i32) -> Option<Holds> {
    match logical {
        Some(LogicalType::Uuid) if length == 16 => {
            Some((Some(PrimitiveType::Uuid), Some("UUID".into())))
        }
        None if converted == ConvertedType::NONE => {
            Some((u64::try_from(length).ok().map(PrimitiveType::Fixed), None))
        }
        _ => None,
    }
}

/// An annotation Iceberg has no type for, named as Parquet names it.
fn unmapped(logical: Option<&LogicalType>, converted: ConvertedType) -> Holds {
    match logical {
        Some(other) => (None, Some(format!("{other:?}").to_uppercase())),
        None => (None, Some(format!("{converted}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::schema::parser::parse_message_type;
    use std::sync::Arc;

    fn schema(text: &str, mapping: Option<&NameMapping>) -> FileSchema {
        let t = parse_message_type(text).unwrap();
        FileSchema::from_parquet(&SchemaDescriptor::new(Arc::new(t)), mapping)
    }

    #[test]
    fn three_level_lists_and_maps_with_ids_and_leaf_ranges() {
        let s = schema(
            "message m {
               required int64 id = 1;
               optional group points (LIST) = 2 {
                 repeated group list { optional group element = 3 { optional double x = 4; optional double y = 5; } }
               }
               optional group attrs (MAP) = 6 {
                 repeated group key_value { required binary key (STRING) = 7; optional int32 value = 8; }
               }
             }",
            None,
        );
        assert_eq!(s.ids, IdSource::FieldIds);
        let Shape::List(element) = &s.columns[1].shape else {
            panic!()
        };
        assert_eq!(
            (element.id, element.path.as_str()),
            (Some(3), "points.element")
        );
        assert_eq!(s.columns[1].leaves, 1..3);
        let Shape::Map(key, value) = &s.columns[2].shape else {
            panic!()
        };
        assert_eq!(
            (key.id, value.id, value.leaves.clone()),
            (Some(7), Some(8), 4..5)
        );
        assert_eq!(
            s.columns[2].iceberg_type().unwrap().to_string(),
            "map<string, int>"
        );
    }

    #[test]
    fn two_level_legacy_lists() {
        let s = schema(
            "message m {
               optional group a (LIST) { repeated int32 array; }
               optional group b (LIST) { repeated group array { optional int32 x; } }
             }",
            None,
        );
        assert_eq!(s.ids, IdSource::None);
        assert_eq!(
            s.columns[0].iceberg_type().unwrap().to_string(),
            "list<int>"
        );
        assert_eq!(
            s.columns[1].iceberg_type().unwrap().to_string(),
            "list<struct<x: int>>"
        );
        assert_eq!(s.columns[1].leaves, 1..2);
    }

    #[test]
    fn name_mapping_gives_ids_by_name_at_each_level() {
        let holder = crate::json::parse("\"\"").unwrap();
        let mapping = NameMapping::parse(
            r#"[{"field-id":1,"names":["id"]},{"field-id":2,"names":["phone","mobile"]},
                {"field-id":3,"names":["tags"],"fields":[{"field-id":4,"names":["element"]}]}]"#,
            &holder,
        )
        .unwrap();
        let s = schema(
            "message m {
               optional binary mobile (STRING);
               optional group tags (LIST) { repeated group list { optional binary item (STRING); } }
               optional int32 stray;
             }",
            Some(&mapping),
        );
        assert_eq!(s.ids, IdSource::NameMapping);
        let ids: Vec<_> = s.columns.iter().map(|c| c.id).collect();
        assert_eq!(ids, [Some(2), Some(3), None]);
        let Shape::List(element) = &s.columns[1].shape else {
            panic!()
        };
        assert_eq!(element.id, Some(4));
    }

    #[test]
    fn physical_types_map_to_iceberg_types() {
        let s = schema(
            "message m {
               optional int32 a (DECIMAL(9,2));
               optional int64 b (DECIMAL(12,2));
               optional fixed_len_byte_array(6) c (DECIMAL(12,2));
               optional binary d (DECIMAL(12,2));
               optional int64 e (TIMESTAMP(MICROS,true));
               optional int64 f (TIMESTAMP(MILLIS,false));
               optional int96 g;
               optional int32 h (INTEGER(8,true));
               optional int64 i (INTEGER(64,false));
               optional fixed_len_byte_array(16) j (UUID);
               optional binary k;
             }",
            None,
        );
        let types: Vec<String> = s
            .columns
            .iter()
            .map(|c| match &c.shape {
                Shape::Primitive(p) => p.iceberg.as_ref().map_or("-".into(), |t| t.to_string()),
                _ => "?".into(),
            })
            .collect();
        assert_eq!(
            types,
            [
                "decimal(9, 2)",
                "decimal(12, 2)",
                "decimal(12, 2)",
                "decimal(12, 2)",
                "timestamptz",
                "timestamp",
                "timestamptz",
                "int",
                "-",
                "uuid",
                "binary"
            ]
        );
        assert_eq!(
            s.columns[1].describe(),
            "decimal(12, 2) (INT64 (DECIMAL(12,2)))"
        );
    }
}
