//! Values as `verify --rows` prints them: JSON numbers for ints and floats, decimals as
//! plain-notation strings, ISO-8601 dates, times and timestamps, lowercase hex for binary and
//! fixed, canonical strings for uuids, objects for structs, arrays for lists, and maps as arrays of
//! `{"key": …, "value": …}`. A `float` prints as the shortest decimal that reads back as the same
//! 32-bit value (`0.1`), and a float promoted to `double` as that double (`0.10000000149011612`):
//! the promotion is exact, and showing it is the point. Non-finite floats become strings.
//!
//! Rendering follows the arrow type; the Iceberg type, when given, only tells a uuid from fixed[16].

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, Time32MillisecondType, Time64MicrosecondType, Time64NanosecondType,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, MapArray, StructArray};
use arrow_schema::{DataType, Fields, TimeUnit};
use serde_json::{Map, Value, json};

use crate::iceberg::types::{PrimitiveType, Type};

pub fn value(array: &dyn Array, row: usize, t: Option<&Type>) -> Value {
    if row >= array.len() || array.is_null(row) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::Null => Value::Null,
        DataType::Boolean => json!(array.as_boolean().value(row)),
        DataType::Int8 => json!(array.as_primitive::<Int8Type>().value(row)),
        DataType::Int16 => json!(array.as_primitive::<Int16Type>().value(row)),
        DataType::Int32 => json!(array.as_primitive::<Int32Type>().value(row)),
        DataType::Int64 => json!(array.as_primitive::<Int64Type>().value(row)),
        DataType::UInt8 => json!(array.as_primitive::<UInt8Type>().value(row)),
        DataType::UInt16 => json!(array.as_primitive::<UInt16Type>().value(row)),
        DataType::UInt32 => json!(array.as_primitive::<UInt32Type>().value(row)),
        DataType::UInt64 => json!(array.as_primitive::<UInt64Type>().value(row)),
        DataType::Float32 => float32(array.as_primitive::<Float32Type>().value(row)),
        DataType::Float64 => float64(array.as_primitive::<Float64Type>().value(row)),
        DataType::Decimal128(_, scale) => json!(decimal(
            array.as_primitive::<Decimal128Type>().value(row),
            *scale
        )),
        DataType::Date32
        | DataType::Time32(TimeUnit::Millisecond)
        | DataType::Time64(TimeUnit::Microsecond | TimeUnit::Nanosecond)
        | DataType::Timestamp(_, _) => time_value(array, row),
        DataType::Utf8 => json!(array.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => json!(array.as_string::<i64>().value(row)),
        DataType::Utf8View => json!(array.as_string_view().value(row)),
        DataType::Binary => json!(hex(array.as_binary::<i32>().value(row))),
        DataType::LargeBinary => json!(hex(array.as_binary::<i64>().value(row))),
        DataType::BinaryView => json!(hex(array.as_binary_view().value(row))),
        DataType::FixedSizeBinary(_) => {
            let bytes = array.as_fixed_size_binary().value(row);
            if matches!(t, Some(Type::Primitive(PrimitiveType::Uuid))) {
                json!(uuid(bytes))
            } else {
                json!(hex(bytes))
            }
        }
        DataType::Struct(fields) => struct_value(array.as_struct(), fields, row, t),
        DataType::List(_) | DataType::LargeList(_) => list_value(array, row, t),
        DataType::Map(_, _) => map_value(array, row, t),
        other => {
            let options = arrow_cast::display::FormatOptions::default();
            match arrow_cast::display::ArrayFormatter::try_new(array, &options) {
                Ok(f) => json!(f.value(row).to_string()),
                Err(_) => json!(format!("<{other}>")),
            }
        }
    }
}

/// A date, time or timestamp as Python's `isoformat` writes it, to microseconds (nanoseconds
/// when the column holds them).
fn time_value(array: &dyn Array, row: usize) -> Value {
    let (ticks, digits) = match array.data_type() {
        DataType::Date32 => {
            return json!(format_date(i64::from(
                array.as_primitive::<Date32Type>().value(row)
            )));
        }
        DataType::Time32(_) => {
            let millis = array.as_primitive::<Time32MillisecondType>().value(row);
            return json!(format_time(i64::from(millis) * 1_000, 6));
        }
        DataType::Time64(TimeUnit::Microsecond) => {
            let micros = array.as_primitive::<Time64MicrosecondType>().value(row);
            return json!(format_time(micros, 6));
        }
        DataType::Time64(_) => {
            let nanos = array.as_primitive::<Time64NanosecondType>().value(row);
            return json!(format_time(nanos, 9));
        }
        DataType::Timestamp(TimeUnit::Second, _) => (
            array.as_primitive::<TimestampSecondType>().value(row) * 1_000_000,
            6,
        ),
        DataType::Timestamp(TimeUnit::Millisecond, _) => (
            array.as_primitive::<TimestampMillisecondType>().value(row) * 1_000,
            6,
        ),
        DataType::Timestamp(TimeUnit::Microsecond, _) => (
            array.as_primitive::<TimestampMicrosecondType>().value(row),
            6,
        ),
        _ => (
            array.as_primitive::<TimestampNanosecondType>().value(row),
            9,
        ),
    };
    let utc = matches!(array.data_type(), DataType::Timestamp(_, Some(_)));
    json!(format_timestamp(ticks, digits, utc))
}

/// A struct row as an object by field name, each field rendered with its table type when the
/// table's type is a struct.
fn struct_value(s: &StructArray, fields: &Fields, row: usize, t: Option<&Type>) -> Value {
    let children = match t {
        Some(Type::Struct(st)) => st.fields.iter().map(|f| Some(&f.field_type)).collect(),
        _ => vec![None; fields.len()],
    };
    let mut object = Map::new();
    for (i, field) in fields.iter().enumerate() {
        let child_type = children.get(i).copied().flatten();
        object.insert(
            field.name().clone(),
            value(s.column(i).as_ref(), row, child_type),
        );
    }
    Value::Object(object)
}

fn list_value(array: &dyn Array, row: usize, t: Option<&Type>) -> Value {
    let element_type = match t {
        Some(Type::List(l)) => Some(l.element.as_ref()),
        _ => None,
    };
    let items = match array.data_type() {
        DataType::List(_) => array.as_list::<i32>().value(row),
        _ => array.as_list::<i64>().value(row),
    };
    Value::Array(
        (0..items.len())
            .map(|i| value(items.as_ref(), i, element_type))
            .collect(),
    )
}

/// A map row as a list of `{"key", "value"}` entries, in the file's order.
fn map_value(array: &dyn Array, row: usize, t: Option<&Type>) -> Value {
    let (key_type, value_type) = match t {
        Some(Type::Map(m)) => (Some(m.key.as_ref()), Some(m.value.as_ref())),
        _ => (None, None),
    };
    let Some(map) = array.as_any().downcast_ref::<MapArray>() else {
        return Value::Null;
    };
    let offsets = map.value_offsets();
    let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
    Value::Array(
        (start..end)
            .map(|i| {
                json!({
                    "key": value(map.keys().as_ref(), i, key_type),
                    "value": value(map.values().as_ref(), i, value_type),
                })
            })
            .collect(),
    )
}

fn float32(v: f32) -> Value {
    if v.is_finite() {
        // The shortest text that reads back as this f32, as a JSON number.
        v.to_string()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number)
    } else {
        non_finite(f64::from(v))
    }
}

fn float64(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or_else(|| non_finite(v), Value::Number)
}

fn non_finite(v: f64) -> Value {
    json!(if v.is_nan() {
        "NaN"
    } else if v > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    })
}

/// Plain notation with exactly `scale` digits after the point: `1234567890.12`, `-0.05`.
pub fn decimal(unscaled: i128, scale: i8) -> String {
    if scale <= 0 {
        let zeros = "0".repeat(scale.unsigned_abs() as usize);
        return if unscaled == 0 {
            "0".into()
        } else {
            format!("{unscaled}{zeros}")
        };
    }
    let scale = scale as usize;
    let digits = unscaled.unsigned_abs().to_string();
    let digits = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = digits.split_at(digits.len() - scale);
    let sign = if unscaled < 0 { "-" } else { "" };
    format!("{sign}{int}.{frac}")
}

/// The unscaled value of a plain-notation decimal at `scale` (`"12.5"` at scale 2: 1250).
pub fn unscaled_decimal(text: &str, scale: u32) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty() || frac.len() > scale as usize {
        return None;
    }
    let all = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !all(int) || !all(frac) {
        return None;
    }
    let padded = format!("{int}{frac:0<width$}", width = scale as usize);
    let v: i128 = padded.parse().ok()?;
    Some(if negative { -v } else { v })
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn uuid(bytes: &[u8]) -> String {
    let h = hex(bytes);
    if h.len() != 32 {
        return h;
    }
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub fn format_date(days: i64) -> String {
    let (y, m, d) = civil(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `HH:MM:SS`, with the fraction (6 or 9 digits) only when it is not zero, as Python prints it.
pub fn format_time(ticks: i64, digits: u32) -> String {
    let per_second = 10_i64.pow(digits);
    let seconds = ticks.div_euclid(per_second);
    let fraction = ticks.rem_euclid(per_second);
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if fraction == 0 {
        format!("{h:02}:{m:02}:{s:02}")
    } else {
        format!(
            "{h:02}:{m:02}:{s:02}.{fraction:0width$}",
            width = digits as usize
        )
    }
}

pub fn format_timestamp(ticks: i64, digits: u32, utc: bool) -> String {
    let per_day = 86_400 * 10_i64.pow(digits);
    let date = format_date(ticks.div_euclid(per_day));
    let time = format_time(ticks.rem_euclid(per_day), digits);
    let zone = if utc { "+00:00" } else { "" };
    format!("{date}T{time}{zone}")
}

pub fn parse_date(text: &str) -> Option<i32> {
    let mut parts = text.splitn(3, '-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: u32 = parts.next()?.parse().ok()?;
    let d: u32 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    i32::try_from(days_from_civil(y, m, d)).ok()
}

/// Microseconds since the epoch of `YYYY-MM-DDTHH:MM:SS[.ffffff][+00:00|Z]`.
pub fn parse_timestamp(text: &str) -> Option<i64> {
    parse_timestamp_ticks(text, 6)
}

/// Ticks (`digits` of a second: 6 micros, 9 nanos) since the epoch of
/// `YYYY-MM-DDTHH:MM:SS[.fraction][+00:00|Z]`.
pub fn parse_timestamp_ticks(text: &str, digits: u32) -> Option<i64> {
    let (date, time) = text.split_once('T')?;
    let time = time
        .strip_suffix("+00:00")
        .or_else(|| time.strip_suffix('Z'))
        .unwrap_or(time);
    let days = i64::from(parse_date(date)?);
    let per_day = 86_400 * 10_i64.pow(digits);
    days.checked_mul(per_day)?
        .checked_add(parse_time(time, digits)?)
}

/// Ticks (`digits` of a second) since midnight of `HH:MM:SS[.fraction]`.
pub fn parse_time(text: &str, digits: u32) -> Option<i64> {
    let (hms, fraction) = text.split_once('.').unwrap_or((text, ""));
    let mut parts = hms.splitn(3, ':');
    let h: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let s: i64 = parts.next()?.parse().ok()?;
    if h > 23 || m > 59 || s > 59 {
        return None;
    }
    if fraction.len() > digits as usize || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let width = digits as usize;
    let ticks: i64 = format!("{fraction:0<width$}").parse().ok()?;
    Some(((h * 60 + m) * 60 + s) * 10_i64.pow(digits) + ticks)
}

/// The 16 bytes of a canonical uuid string.
pub fn parse_uuid(text: &str) -> Option<Vec<u8>> {
    let dashes: Vec<usize> = text.match_indices('-').map(|(i, _)| i).collect();
    if dashes != [8, 13, 18, 23] || text.len() != 36 {
        return None;
    }
    let digits = text.replace('-', "");
    (0..32)
        .step_by(2)
        .map(|i| u8::from_str_radix(digits.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_print_in_plain_notation() {
        assert_eq!(decimal(123, 2), "1.23");
        assert_eq!(decimal(-5, 2), "-0.05");
        assert_eq!(decimal(123_456_789_012, 2), "1234567890.12");
        assert_eq!(decimal(7, 0), "7");
        assert_eq!(unscaled_decimal("12.5", 2), Some(1250));
        assert_eq!(unscaled_decimal("-0.05", 2), Some(-5));
        assert_eq!(unscaled_decimal("1.234", 2), None);
    }

    #[test]
    fn dates_and_timestamps_as_python_isoformat() {
        assert_eq!(format_date(0), "1970-01-01");
        assert_eq!(format_date(-1), "1969-12-31");
        assert_eq!(format_date(7305), "1990-01-01");
        assert_eq!(parse_date("1990-01-01"), Some(7305));
        assert_eq!(
            parse_date("2024-02-29")
                .map(i64::from)
                .map(format_date)
                .as_deref(),
            Some("2024-02-29")
        );
        assert_eq!(
            format_timestamp(1_704_110_400_000_000, 6, true),
            "2024-01-01T12:00:00+00:00"
        );
        assert_eq!(
            format_timestamp(1_500_000, 6, false),
            "1970-01-01T00:00:01.500000"
        );
        assert_eq!(format_timestamp(-1, 6, false), "1969-12-31T23:59:59.999999");
        assert_eq!(
            parse_timestamp("2024-01-01T12:00:00+00:00"),
            Some(1_704_110_400_000_000)
        );
    }

    #[test]
    fn floats_print_as_their_own_width() {
        assert_eq!(float32(0.1), json!(0.1));
        assert_eq!(float64(f64::from(0.1f32)), json!(0.10000000149011612));
        assert_eq!(float64(f64::NAN), json!("NaN"));
        assert_eq!(float32(f32::NEG_INFINITY), json!("-Infinity"));
    }
}
