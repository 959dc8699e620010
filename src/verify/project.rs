//! Building the table's values from what the file holds, batch by batch: each projected file
//! array is cast to the table type (the promotions the resolution allowed), nested structs, lists
//! and maps are rebuilt around their resolved children, and fields the file lacks become columns of
//! nulls or of their `initial-default`. What comes out has exactly the table schema's arrow types,
//! so a wrong resolution shows as a wrong value, not as a footer that merely looked right.

use std::collections::BTreeSet;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, FixedSizeBinaryArray,
    Float32Array, Float64Array, Int32Array, Int64Array, ListArray, MapArray, RecordBatch,
    StringArray, StructArray, Time64MicrosecondArray, TimestampMicrosecondArray,
    TimestampNanosecondArray, new_null_array,
};
use arrow_cast::{CastOptions, cast_with_options};
use arrow_schema::{DataType, Field as ArrowField, Fields, TimeUnit};
use serde_json::Value;

use crate::iceberg::schema::Field;
use crate::iceberg::types::{ListType, MapType, PrimitiveType, Type};
use crate::verify::file_schema::{FileNode, Shape};
use crate::verify::resolve::{Plan, ReadKind};
use crate::verify::values::{
    parse_date, parse_time, parse_timestamp, parse_timestamp_ticks, parse_uuid, unscaled_decimal,
};

const UTC: &str = "+00:00";

/// The arrow type a table type is read into. Every field is nullable: a null parent makes its
/// required children null too, and the reader's job here is to show values, not to re-validate.
pub fn arrow_type(t: &Type) -> DataType {
    use PrimitiveType as P;
    match t {
        Type::Primitive(p) => match p {
            P::Unknown => DataType::Null,
            P::Boolean => DataType::Boolean,
            P::Int => DataType::Int32,
            P::Long => DataType::Int64,
            P::Float => DataType::Float32,
            P::Double => DataType::Float64,
            P::Decimal { precision, scale } => DataType::Decimal128(*precision as u8, *scale as i8),
            P::Date => DataType::Date32,
            P::Time => DataType::Time64(TimeUnit::Microsecond),
            P::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, None),
            P::Timestamptz => DataType::Timestamp(TimeUnit::Microsecond, Some(UTC.into())),
            P::TimestampNs => DataType::Timestamp(TimeUnit::Nanosecond, None),
            P::TimestamptzNs => DataType::Timestamp(TimeUnit::Nanosecond, Some(UTC.into())),
            P::String => DataType::Utf8,
            P::Uuid => DataType::FixedSizeBinary(16),
            P::Fixed(n) => DataType::FixedSizeBinary(i32::try_from(*n).unwrap_or(i32::MAX)),
            P::Binary | P::Variant | P::Geometry(_) | P::Geography(_) => DataType::Binary,
        },
        Type::Struct(s) => DataType::Struct(struct_fields(&s.fields)),
        Type::List(l) => DataType::List(Arc::new(element_field(&l.element))),
        Type::Map(m) => DataType::Map(Arc::new(entries_field(&m.key, &m.value)), false),
    }
}

fn struct_fields(fields: &[Field]) -> Fields {
    fields
        .iter()
        .map(|f| ArrowField::new(&f.name, arrow_type(&f.field_type), true))
        .collect()
}

fn element_field(element: &Type) -> ArrowField {
    ArrowField::new("element", arrow_type(element), true)
}

fn entries_field(key: &Type, value: &Type) -> ArrowField {
    let fields = Fields::from(vec![
        ArrowField::new("key", arrow_type(key), false),
        ArrowField::new("value", arrow_type(value), true),
    ]);
    ArrowField::new("key_value", DataType::Struct(fields), false)
}

/// Turns one batch of projected file columns into the table's top-level columns.
pub struct Projector<'a> {
    pub file_columns: &'a [FileNode],
    pub leaves: &'a BTreeSet<usize>,
    pub fields: &'a [Field],
    pub plans: &'a [Plan],
}

impl Projector<'_> {
    pub fn project(&self, batch: &RecordBatch) -> Result<Vec<ArrayRef>, String> {
        let len = batch.num_rows();
        self.fields
            .iter()
            .zip(self.plans)
            .map(|(field, plan)| match plan {
                Plan::Fill(default) => fill(default.as_ref(), &field.field_type, len),
                Plan::Read(read) => {
                    let i = *read.node.first().ok_or("an empty read path")?;
                    let node = self
                        .file_columns
                        .get(i)
                        .ok_or("a read past the file schema")?;
                    let at = projected_index(self.file_columns, i, self.leaves);
                    if at >= batch.num_columns() {
                        return Err(format!("column `{}` was not projected", node.path));
                    }
                    self.conform(batch.column(at), node, &read.kind, &field.field_type)
                }
            })
            .collect()
    }

    fn conform(
        &self,
        array: &ArrayRef,
        node: &FileNode,
        kind: &ReadKind,
        table: &Type,
    ) -> Result<ArrayRef, String> {
        match (kind, table, &node.shape) {
            (ReadKind::Primitive, Type::Primitive(_), _) => {
                let options = CastOptions {
                    safe: false,
                    ..CastOptions::default()
                };
                cast_with_options(array, &arrow_type(table), &options)
                    .map_err(|e| format!("column `{}`: {e}", node.path))
            }
            (ReadKind::Struct(plans), Type::Struct(s), Shape::Struct(children)) => {
                self.conform_struct(array, node, plans, table, &s.fields, children)
            }
            (ReadKind::List(element_plan), Type::List(l), Shape::List(element)) => {
                self.conform_list(array, node, element_plan, table, l, element)
            }
            (ReadKind::Map(key_plan, value_plan), Type::Map(m), Shape::Map(key, value)) => {
                self.conform_map(array, node, (key_plan, value_plan), table, m, (key, value))
            }
            _ => Err(mismatch(array, node, table)),
        }
    }

    /// A struct rebuilt from its resolved fields, read or filled, keeping the file's nulls.
    fn conform_struct(
        &self,
        array: &ArrayRef,
        node: &FileNode,
        plans: &[Plan],
        table: &Type,
        fields: &[Field],
        children: &[FileNode],
    ) -> Result<ArrayRef, String> {
        let mismatch = || mismatch(array, node, table);
        let file = array
            .as_any()
            .downcast_ref::<StructArray>()
            .ok_or_else(mismatch)?;
        let mut columns = Vec::with_capacity(fields.len());
        for (field, plan) in fields.iter().zip(plans) {
            columns.push(match plan {
                Plan::Fill(default) => fill(default.as_ref(), &field.field_type, file.len())?,
                Plan::Read(read) => {
                    let j = *read.node.last().ok_or("an empty read path")?;
                    let child = children.get(j).ok_or_else(mismatch)?;
                    let at = projected_index(children, j, self.leaves);
                    if at >= file.num_columns() {
                        return Err(mismatch());
                    }
                    self.conform(file.column(at), child, &read.kind, &field.field_type)?
                }
            });
        }
        let out = StructArray::try_new(struct_fields(fields), columns, file.nulls().cloned())
            .map_err(|e| format!("column `{}`: {e}", node.path))?;
        Ok(Arc::new(out))
    }

    fn conform_list(
        &self,
        array: &ArrayRef,
        node: &FileNode,
        element_plan: &Plan,
        table: &Type,
        list: &ListType,
        element: &FileNode,
    ) -> Result<ArrayRef, String> {
        let file = array
            .as_any()
            .downcast_ref::<ListArray>()
            .ok_or_else(|| mismatch(array, node, table))?;
        let values = self.member(file.values(), element, element_plan, &list.element)?;
        let out = ListArray::try_new(
            Arc::new(element_field(&list.element)),
            file.offsets().clone(),
            values,
            file.nulls().cloned(),
        )
        .map_err(|e| format!("column `{}`: {e}", node.path))?;
        Ok(Arc::new(out))
    }

    fn conform_map(
        &self,
        array: &ArrayRef,
        node: &FileNode,
        (key_plan, value_plan): (&Plan, &Plan),
        table: &Type,
        map: &MapType,
        (key, value): (&FileNode, &FileNode),
    ) -> Result<ArrayRef, String> {
        let mismatch = || mismatch(array, node, table);
        let file = array
            .as_any()
            .downcast_ref::<MapArray>()
            .ok_or_else(mismatch)?;
        let keys = self.member(file.keys(), key, key_plan, &map.key)?;
        let values = self.member(file.values(), value, value_plan, &map.value)?;
        let entries_field = entries_field(&map.key, &map.value);
        let DataType::Struct(entry_fields) = entries_field.data_type().clone() else {
            return Err(mismatch());
        };
        let entries = StructArray::try_new(entry_fields, vec![keys, values], None)
            .map_err(|e| format!("column `{}`: {e}", node.path))?;
        let out = MapArray::try_new(
            Arc::new(entries_field),
            file.offsets().clone(),
            entries,
            file.nulls().cloned(),
            false,
        )
        .map_err(|e| format!("column `{}`: {e}", node.path))?;
        Ok(Arc::new(out))
    }

    /// A list element or map key/value: read as planned, or filled to the member array's length.
    fn member(
        &self,
        array: &ArrayRef,
        node: &FileNode,
        plan: &Plan,
        table: &Type,
    ) -> Result<ArrayRef, String> {
        match plan {
            Plan::Fill(default) => fill(default.as_ref(), table, array.len()),
            Plan::Read(read) => self.conform(array, node, &read.kind, table),
        }
    }
}

/// A file array whose arrow type is not the shape its node was resolved as.
fn mismatch(array: &ArrayRef, node: &FileNode, table: &Type) -> String {
    format!(
        "column `{}` decoded as {}, not as the {} it was resolved to",
        node.path,
        array.data_type(),
        table
    )
}

fn has_leaf(node: &FileNode, leaves: &BTreeSet<usize>) -> bool {
    leaves.range(node.leaves.clone()).next().is_some()
}

/// Where sibling `i` sits among the siblings the projection kept (the reader drops the others).
fn projected_index(siblings: &[FileNode], i: usize, leaves: &BTreeSet<usize>) -> usize {
    siblings
        .iter()
        .take(i)
        .filter(|n| has_leaf(n, leaves))
        .count()
}

/// A column of `len` copies of a field's `initial-default` (JSON single-value form), or nulls.
pub fn fill(default: Option<&Value>, t: &Type, len: usize) -> Result<ArrayRef, String> {
    use PrimitiveType as P;
    let Some(default) = default else {
        return Ok(new_null_array(&arrow_type(t), len));
    };
    let p = match t {
        Type::Primitive(p) => p,
        Type::Struct(s) => return fill_struct(default, &s.fields, len),
        Type::List(_) | Type::Map(_) => {
            return Err(format!(
                "initial-default {default} of a {t}: only null defaults of lists and maps are read"
            ));
        }
    };
    let bad = || format!("initial-default {default} is not a valid {t}");
    match p {
        P::Boolean | P::Int | P::Long | P::Float | P::Double | P::Decimal { .. } => {
            fill_number(default, p, len, &bad)
        }
        P::Date | P::Time | P::Timestamp | P::Timestamptz | P::TimestampNs | P::TimestamptzNs => {
            fill_time(default, p, len, &bad)
        }
        P::Uuid | P::String | P::Binary | P::Fixed(_) => fill_bytes(default, p, len, &bad),
        P::Unknown | P::Variant | P::Geometry(_) | P::Geography(_) => Err(format!(
            "initial-default {default}: {p} columns must default to null"
        )),
    }
}

/// `bad`: the message for a default that is not a value of its type.
type Invalid<'a> = &'a dyn Fn() -> String;

fn fill_number(
    default: &Value,
    p: &PrimitiveType,
    len: usize,
    bad: Invalid<'_>,
) -> Result<ArrayRef, String> {
    use PrimitiveType as P;
    Ok(match p {
        P::Boolean => Arc::new(BooleanArray::from(vec![
            default.as_bool().ok_or_else(bad)?;
            len
        ])),
        P::Int => {
            let v = default
                .as_i64()
                .and_then(|v| i32::try_from(v).ok())
                .ok_or_else(bad)?;
            Arc::new(Int32Array::from(vec![v; len]))
        }
        P::Long => Arc::new(Int64Array::from(vec![
            default.as_i64().ok_or_else(bad)?;
            len
        ])),
        P::Float => Arc::new(Float32Array::from(vec![
            default.as_f64().ok_or_else(bad)?
                as f32;
            len
        ])),
        P::Decimal { precision, scale } => {
            let v = default
                .as_str()
                .and_then(|s| unscaled_decimal(s, *scale))
                .ok_or_else(bad)?;
            Arc::new(
                Decimal128Array::from(vec![v; len])
                    .with_precision_and_scale(*precision as u8, *scale as i8)
                    .map_err(|e| e.to_string())?,
            )
        }
        // Double, the last of the numbers `fill` sends here.
        _ => Arc::new(Float64Array::from(vec![
            default.as_f64().ok_or_else(bad)?;
            len
        ])),
    })
}

fn fill_time(
    default: &Value,
    p: &PrimitiveType,
    len: usize,
    bad: Invalid<'_>,
) -> Result<ArrayRef, String> {
    use PrimitiveType as P;
    let zoned = matches!(p, P::Timestamptz | P::TimestamptzNs);
    Ok(match p {
        P::Date => {
            let v = default.as_str().and_then(parse_date).ok_or_else(bad)?;
            Arc::new(Date32Array::from(vec![v; len]))
        }
        P::Time => {
            let v = default
                .as_str()
                .and_then(|s| parse_time(s, 6))
                .ok_or_else(bad)?;
            Arc::new(Time64MicrosecondArray::from(vec![v; len]))
        }
        P::Timestamp | P::Timestamptz => {
            let v = default.as_str().and_then(parse_timestamp).ok_or_else(bad)?;
            let array = TimestampMicrosecondArray::from(vec![v; len]);
            Arc::new(if zoned {
                array.with_timezone(UTC)
            } else {
                array
            })
        }
        // The nanosecond timestamps, the last of the times `fill` sends here.
        _ => {
            let v = default
                .as_str()
                .and_then(|s| parse_timestamp_ticks(s, 9))
                .ok_or_else(bad)?;
            let array = TimestampNanosecondArray::from(vec![v; len]);
            Arc::new(if zoned {
                array.with_timezone(UTC)
            } else {
                array
            })
        }
    })
}

fn fill_bytes(
    default: &Value,
    p: &PrimitiveType,
    len: usize,
    bad: Invalid<'_>,
) -> Result<ArrayRef, String> {
    use PrimitiveType as P;
    let fixed = |bytes: Vec<u8>, size: i32| -> Result<ArrayRef, String> {
        let rows = std::iter::repeat_n(Some(bytes.as_slice()), len);
        Ok(Arc::new(
            FixedSizeBinaryArray::try_from_sparse_iter_with_size(rows, size)
                .map_err(|e| e.to_string())?,
        ))
    };
    match p {
        P::Uuid => fixed(default.as_str().and_then(parse_uuid).ok_or_else(bad)?, 16),
        P::String => Ok(Arc::new(StringArray::from(vec![
            default
                .as_str()
                .ok_or_else(bad)?;
            len
        ]))),
        // Binary and fixed, written in hex.
        _ => {
            let bytes = default.as_str().and_then(from_hex).ok_or_else(bad)?;
            match p {
                P::Fixed(n) if bytes.len() as u64 != *n => Err(bad()),
                P::Fixed(n) => fixed(bytes, *n as i32),
                _ => Ok(Arc::new(BinaryArray::from(vec![bytes.as_slice(); len]))),
            }
        }
    }
}

/// A struct default (`{}`, or an object keyed by field id, the JSON single-value form): a
/// non-null struct whose fields take the value given for them, else their own `initial-default`.
fn fill_struct(default: &Value, fields: &[Field], len: usize) -> Result<ArrayRef, String> {
    let Some(given) = default.as_object() else {
        return Err(format!(
            "initial-default {default} of a struct is not an object"
        ));
    };
    let columns = fields
        .iter()
        .map(|f| {
            let value = given
                .get(&f.id.to_string())
                .or(f.initial_default.as_ref())
                .filter(|v| !v.is_null());
            fill(value, &f.field_type, len)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let out =
        StructArray::try_new(struct_fields(fields), columns, None).map_err(|e| e.to_string())?;
    Ok(Arc::new(out))
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::values::value;

    #[test]
    fn defaults_fill_every_row() {
        let t = Type::Primitive(PrimitiveType::Decimal {
            precision: 9,
            scale: 2,
        });
        let a = fill(Some(&serde_json::json!("12.50")), &t, 2).unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(value(a.as_ref(), 1, Some(&t)), serde_json::json!("12.50"));
        let ts = Type::Primitive(PrimitiveType::Timestamptz);
        let a = fill(
            Some(&serde_json::json!("2017-11-16T22:31:08.000001+00:00")),
            &ts,
            1,
        )
        .unwrap();
        assert_eq!(
            value(a.as_ref(), 0, Some(&ts)),
            serde_json::json!("2017-11-16T22:31:08.000001+00:00")
        );
        assert!(
            fill(
                Some(&serde_json::json!("x")),
                &Type::Primitive(PrimitiveType::Int),
                1
            )
            .is_err()
        );
        let null = fill(None, &Type::Primitive(PrimitiveType::Long), 3).unwrap();
        assert_eq!(null.null_count(), 3);
    }

    #[test]
    fn defaults_of_v3_types_and_structs() {
        let cases = [
            ("timestamp_ns", "2017-11-16T22:31:08.123456789"),
            ("timestamptz_ns", "2017-11-16T22:31:08.123456789+00:00"),
            ("time", "22:31:08.5"),
            ("uuid", "f79c3e09-677c-4bbd-a479-3f349cb785e7"),
        ];
        for (type_name, default) in cases {
            let t = Type::Primitive(PrimitiveType::parse(type_name).unwrap());
            let a = fill(Some(&serde_json::json!(default)), &t, 2).unwrap();
            let shown = value(a.as_ref(), 1, Some(&t));
            let expected = if type_name == "time" {
                "22:31:08.500000"
            } else {
                default
            };
            assert_eq!(shown, serde_json::json!(expected), "{type_name}");
        }
        let s = Type::Struct(crate::iceberg::types::StructType {
            fields: vec![
                Field {
                    initial_default: Some(serde_json::json!(5)),
                    ..Field::new(3, "a", false, Type::Primitive(PrimitiveType::Int))
                },
                Field::new(4, "b", false, Type::Primitive(PrimitiveType::String)),
                Field::new(5, "c", false, Type::Primitive(PrimitiveType::Long)),
            ],
        });
        let a = fill(Some(&serde_json::json!({"5": 9})), &s, 1).unwrap();
        assert_eq!(
            value(a.as_ref(), 0, Some(&s)),
            serde_json::json!({"a": 5, "b": null, "c": 9})
        );
        let variant = Type::Primitive(PrimitiveType::Variant);
        assert!(fill(Some(&serde_json::json!("x")), &variant, 1).is_err());
    }
}
