//! What a manifest entry's partition tuple tells a reader about columns a data file lacks: the
//! values of identity partitions, by source field id, in the JSON single-value form (spec
//! Appendix D) that `initial-default`s use too, so one code path fills both.

use apache_avro::types::Value as Avro;
use serde_json::Value;

use crate::iceberg::partition::PartitionSpec;
use crate::iceberg::schema::Schema;
use crate::iceberg::types::{PrimitiveType, Type};
use crate::verify::resolve::{Identity, PartitionValues};
use crate::verify::sample::field;
use crate::verify::values::{decimal, format_date, format_time, format_timestamp, hex, uuid};

/// The identity-partition values of a manifest entry, by source field id, in the JSON
/// single-value form of the source field's type in the current schema (pyiceberg builds the
/// partition type from the current schema too). Where two identity fields share a source, the
/// last non-null value wins, as in pyiceberg.
pub fn identity_values(
    spec: Option<&PartitionSpec>,
    partition: Option<&Avro>,
    schema: &Schema,
) -> PartitionValues {
    let mut out = PartitionValues::new();
    let Some(spec) = spec else {
        return out;
    };
    for pf in spec.fields.iter().filter(|f| f.transform == "identity") {
        let [source] = pf.source_ids.as_slice() else {
            continue;
        };
        let Some(Type::Primitive(source_type)) = schema.field_by_id(*source).map(|f| f.field_type)
        else {
            continue;
        };
        let raw = partition.and_then(|p| field(p, &pf.name));
        let identity = match raw.map_or(Some(Value::Null), |v| single_value(v, &source_type)) {
            Some(value) => Identity::Value {
                partition_field: pf.name.clone(),
                value,
            },
            None => Identity::Unknown(format!(
                "its identity partition `{}` holds a value fieldgate cannot decode",
                pf.name
            )),
        };
        let keep_earlier = matches!(
            &identity,
            Identity::Value { value, .. } if value.is_null()
        ) && out.contains_key(source);
        if !keep_earlier {
            out.insert(*source, identity);
        }
    }
    out
}

/// A partition value (Avro, as Iceberg writes manifests) in the JSON single-value form of the
/// source type (spec Appendix D), which `initial-default`s use too.
fn single_value(v: &Avro, t: &PrimitiveType) -> Option<Value> {
    use PrimitiveType as P;
    let micros_or_nanos = |ticks: i64| match t {
        P::Timestamp => Some(format_timestamp(ticks, 6, false)),
        P::Timestamptz => Some(format_timestamp(ticks, 6, true)),
        P::TimestampNs => Some(format_timestamp(ticks, 9, false)),
        P::TimestamptzNs => Some(format_timestamp(ticks, 9, true)),
        P::Time => Some(format_time(ticks, 6)),
        P::Long => None,
        _ => None,
    };
    Some(match v {
        Avro::Null => Value::Null,
        Avro::Union(_, inner) => return single_value(inner, t),
        Avro::Boolean(b) => Value::Bool(*b),
        Avro::Int(i) | Avro::Date(i) if *t == P::Date => format_date(i64::from(*i)).into(),
        Avro::Int(i) => (*i).into(),
        Avro::Long(l) if *t == P::Long => (*l).into(),
        Avro::Long(l)
        | Avro::TimeMicros(l)
        | Avro::TimestampMicros(l)
        | Avro::LocalTimestampMicros(l)
        | Avro::TimestampNanos(l)
        | Avro::LocalTimestampNanos(l) => micros_or_nanos(*l)?.into(),
        Avro::Float(f) => serde_json::Number::from_f64(f64::from(*f))?.into(),
        Avro::Double(d) => serde_json::Number::from_f64(*d)?.into(),
        Avro::String(s) => s.clone().into(),
        Avro::Uuid(u) => u.to_string().into(),
        Avro::Decimal(d) => {
            let P::Decimal { scale, .. } = t else {
                return None;
            };
            let bytes: Vec<u8> = d.try_into().ok()?;
            decimal(unscaled(&bytes)?, i8::try_from(*scale).ok()?).into()
        }
        Avro::Bytes(b) | Avro::Fixed(_, b) => match t {
            P::Uuid => uuid(b).into(),
            P::Decimal { scale, .. } => decimal(unscaled(b)?, i8::try_from(*scale).ok()?).into(),
            _ => hex(b).into(),
        },
        _ => return None,
    })
}

/// A big-endian two's-complement integer (Avro's decimal bytes).
fn unscaled(bytes: &[u8]) -> Option<i128> {
    if bytes.is_empty() || bytes.len() > 16 {
        return None;
    }
    let fill = if bytes[0] & 0x80 != 0 { 0xFF } else { 0 };
    let mut full = [fill; 16];
    full[16 - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(full))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_values_in_the_single_value_form_of_their_source_type() {
        use PrimitiveType as P;
        let cases: Vec<(Avro, P, Value)> = vec![
            (Avro::Int(7), P::Int, serde_json::json!(7)),
            (Avro::Long(7), P::Long, serde_json::json!(7)),
            (Avro::Date(19_000), P::Date, serde_json::json!("2022-01-08")),
            (Avro::Int(0), P::Date, serde_json::json!("1970-01-01")),
            (
                Avro::TimestampMicros(1_000_001),
                P::Timestamptz,
                serde_json::json!("1970-01-01T00:00:01.000001+00:00"),
            ),
            (
                Avro::Long(1_000_000),
                P::Timestamp,
                serde_json::json!("1970-01-01T00:00:01"),
            ),
            (
                Avro::TimestampNanos(1),
                P::TimestampNs,
                serde_json::json!("1970-01-01T00:00:00.000000001"),
            ),
            (
                Avro::String("eu".into()),
                P::String,
                serde_json::json!("eu"),
            ),
            (Avro::Boolean(true), P::Boolean, serde_json::json!(true)),
            (
                Avro::Bytes(vec![0xca, 0xfe]),
                P::Binary,
                serde_json::json!("cafe"),
            ),
            (
                Avro::Fixed(2, vec![0xff, 0x85]),
                P::Decimal {
                    precision: 4,
                    scale: 2,
                },
                serde_json::json!("-1.23"),
            ),
            (Avro::Union(1, Box::new(Avro::Null)), P::String, Value::Null),
        ];
        for (avro, t, expected) in cases {
            assert_eq!(single_value(&avro, &t), Some(expected), "{avro:?} as {t}");
        }
        assert_eq!(single_value(&Avro::Array(vec![]), &P::Int), None);
    }

    #[test]
    fn identity_partitions_by_source_id_last_non_null_wins() {
        let root = crate::json::parse(
            r#"{"spec-id":1,"fields":[
              {"source-id":2,"field-id":1000,"name":"region","transform":"identity"},
              {"source-id":2,"field-id":1001,"name":"region_again","transform":"identity"},
              {"source-id":3,"field-id":1002,"name":"day","transform":"day"},
              {"source-id":4,"field-id":1003,"name":"tier","transform":"identity"}]}"#,
        )
        .unwrap();
        let spec = PartitionSpec::from_json(&root, 0).unwrap();
        let schema = crate::iceberg::codec::schema_from_json(
            &crate::json::parse(
                r#"{"type":"struct","schema-id":0,"fields":[
                {"id":1,"name":"id","required":false,"type":"long"},
                {"id":2,"name":"region","required":false,"type":"string"},
                {"id":3,"name":"at","required":false,"type":"timestamp"},
                {"id":4,"name":"tier","required":false,"type":"int"}]}"#,
            )
            .unwrap(),
            0,
        )
        .unwrap();
        let record = Avro::Record(vec![
            ("region".into(), Avro::String("eu".into())),
            ("region_again".into(), Avro::Null),
            ("day".into(), Avro::Int(19_000)),
            ("tier".into(), Avro::Array(vec![])),
        ]);
        let values = identity_values(Some(&spec), Some(&record), &schema);
        assert_eq!(
            values.get(&2),
            Some(&Identity::Value {
                partition_field: "region".into(),
                value: serde_json::json!("eu")
            })
        );
        assert!(!values.contains_key(&3), "day() is no identity");
        assert!(matches!(values.get(&4), Some(Identity::Unknown(_))));
    }
}
