//! Plain scalars resolved by the YAML 1.2 core schema (spec §10.3.2), and the numeric values of
//! the integer and float spellings it allows.
//!
//! The core schema, not YAML 1.1's: `yes`, `no`, `on`, `off` and `y` stay strings, `010` is ten
//! (not octal eight), `1_000` is a string. That is what every YAML 1.2 reader agrees on, and it
//! avoids the "Norway problem" of a country code `NO` read as `false`.

use super::node::YamlValue;

/// What a plain (unquoted, non-block) scalar means.
pub(super) fn resolve_plain(text: &str) -> YamlValue {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => YamlValue::Null,
        "true" | "True" | "TRUE" => YamlValue::Bool(true),
        "false" | "False" | "FALSE" => YamlValue::Bool(false),
        _ if is_int(text) => YamlValue::Int(text.to_owned()),
        _ if is_float(text) => YamlValue::Float(text.to_owned()),
        _ => YamlValue::String(text.to_owned()),
    }
}

fn all(text: &str, pred: impl Fn(u8) -> bool) -> bool {
    !text.is_empty() && text.bytes().all(pred)
}

/// `[-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+`
fn is_int(text: &str) -> bool {
    if let Some(octal) = text.strip_prefix("0o") {
        return all(octal, |b| matches!(b, b'0'..=b'7'));
    }
    if let Some(hex) = text.strip_prefix("0x") {
        return all(hex, |b| b.is_ascii_hexdigit());
    }
    all(strip_sign(text), |b| b.is_ascii_digit())
}

fn strip_sign(text: &str) -> &str {
    text.strip_prefix(['-', '+']).unwrap_or(text)
}

/// `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`, `[-+]? \. (inf|Inf|INF)`
/// and `\. (nan|NaN|NAN)`.
fn is_float(text: &str) -> bool {
    if matches!(text, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let unsigned = strip_sign(text);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", fraction)) => all(fraction, |b| b.is_ascii_digit()),
        Some((whole, fraction)) => {
            all(whole, |b| b.is_ascii_digit()) && fraction.bytes().all(|b| b.is_ascii_digit())
        }
        None => all(mantissa, |b| b.is_ascii_digit()),
    };
    let exponent_ok = exponent.is_none_or(|e| all(strip_sign(e), |b| b.is_ascii_digit()));
    mantissa_ok && exponent_ok
}

/// The value of a text [`is_int`] accepted, if it fits an `i64`.
pub(super) fn int_value(raw: &str) -> Option<i64> {
    if let Some(octal) = raw.strip_prefix("0o") {
        return i64::from_str_radix(octal, 8).ok();
    }
    if let Some(hex) = raw.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok();
    }
    raw.parse().ok()
}

/// The value of a text [`is_float`] accepted.
pub(super) fn float_value(raw: &str) -> Option<f64> {
    let negative = raw.starts_with('-');
    match strip_sign(raw) {
        ".inf" | ".Inf" | ".INF" if negative => Some(f64::NEG_INFINITY),
        ".inf" | ".Inf" | ".INF" => Some(f64::INFINITY),
        ".nan" | ".NaN" | ".NAN" => Some(f64::NAN),
        // Rust's float syntax is a superset of the core schema's (`1.`, `.5`, `+1e3` all parse).
        _ => raw.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> &'static str {
        resolve_plain(text).kind_name()
    }

    #[test]
    fn core_schema_resolution() {
        for null in ["", "~", "null", "Null", "NULL"] {
            assert_eq!(kind(null), "null", "{null:?}");
        }
        for b in ["true", "True", "TRUE", "false", "False", "FALSE"] {
            assert_eq!(kind(b), "boolean", "{b}");
        }
        for int in ["0", "12", "-3", "+7", "007", "0o17", "0x1F", "0xff"] {
            assert_eq!(kind(int), "integer", "{int}");
        }
        for float in [
            "1.5", "-2e3", "2E+3", ".5", "1.", "+1.5e-3", ".inf", "-.Inf", "+.INF", ".nan", ".NaN",
        ] {
            assert_eq!(kind(float), "float", "{float}");
        }
        // YAML 1.1 booleans, digit separators, signed hex and NaN with a sign are strings in 1.2.
        for string in [
            "yes", "no", "on", "off", "y", "NO", "tRUE", "nul", "1_000", "0x", "0o8", "-0x1",
            "+-5", "0b101", "-.nan", "1e", "e3", ".", "-", "1.2.3", "12abc", "inf", "nan", " 1",
        ] {
            assert_eq!(kind(string), "string", "{string:?}");
        }
    }

    #[test]
    fn numeric_values() {
        assert_eq!(int_value("0x1F"), Some(31));
        assert_eq!(int_value("0o17"), Some(15));
        assert_eq!(int_value("+7"), Some(7));
        assert_eq!(int_value("-007"), Some(-7));
        assert_eq!(int_value("9223372036854775808"), None);
        assert_eq!(float_value("-.inf"), Some(f64::NEG_INFINITY));
        assert!(float_value(".NaN").is_some_and(f64::is_nan));
        assert_eq!(float_value("1."), Some(1.0));
        assert_eq!(float_value("-2E+3"), Some(-2000.0));
    }
}
