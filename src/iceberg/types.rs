//! Iceberg's type system: primitive and nested types, their canonical type strings, and the
//! type-promotion rules of each format version.
//!
//! Everything here follows the table spec (Appendix C for the JSON forms, "Schema Evolution" for
//! promotion). Nested types carry their field ids, so a `Type` is a complete, serialisable value.

use std::fmt;

use crate::iceberg::geospatial::{GeographyParameters, GeometryParameters, InvalidParameters};
use crate::iceberg::schema::Field;

/// Field ids are Java `int`s in every reference implementation.
pub type FieldId = i32;

/// Ids above this are reserved for metadata columns such as `_file` (spec: "Reserved Field IDs").
pub const MAX_USER_FIELD_ID: FieldId = i32::MAX - 200;

/// The highest decimal precision any reference implementation accepts.
pub const MAX_DECIMAL_PRECISION: u32 = 38;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PrimitiveType {
    Unknown,
    Boolean,
    Int,
    Long,
    Float,
    Double,
    Decimal {
        precision: u32,
        scale: u32,
    },
    Date,
    Time,
    Timestamp,
    Timestamptz,
    TimestampNs,
    TimestamptzNs,
    String,
    Uuid,
    Fixed(u64),
    Binary,
    Variant,
    /// `geometry` or `geometry(C)`, as written; we never interpret coordinates.
    Geometry(GeometryParameters),
    /// `geography`, `geography(C)` or `geography(C, A)`, as written.
    Geography(GeographyParameters),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Type {
    Primitive(PrimitiveType),
    Struct(StructType),
    List(ListType),
    Map(MapType),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct StructType {
    pub fields: Vec<Field>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ListType {
    pub element_id: FieldId,
    pub element_required: bool,
    pub element: Box<Type>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MapType {
    pub key_id: FieldId,
    pub key: Box<Type>,
    pub value_id: FieldId,
    pub value_required: bool,
    pub value: Box<Type>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TypeStringError {
    #[error("unknown Iceberg type `{0}`")]
    Unknown(String),
    /// A geospatial type whose parameters no reader accepts: the reason says which.
    #[error("invalid Iceberg type `{0}`: {1}")]
    InvalidParameters(String, InvalidParameters),
}

impl PrimitiveType {
    /// Parses a canonical type string. Case and whitespace around parameters are accepted, as the
    /// spec asks readers to ("Readers should accept optional whitespace ...").
    pub fn parse(text: &str) -> Result<PrimitiveType, TypeStringError> {
        let unknown = || TypeStringError::Unknown(text.to_string());
        let invalid = |reason| TypeStringError::InvalidParameters(text.to_string(), reason);
        let lower = text.trim().to_ascii_lowercase();
        let simple = match lower.as_str() {
            "unknown" => Some(PrimitiveType::Unknown),
            "boolean" => Some(PrimitiveType::Boolean),
            "int" => Some(PrimitiveType::Int),
            "long" => Some(PrimitiveType::Long),
            "float" => Some(PrimitiveType::Float),
            "double" => Some(PrimitiveType::Double),
            "date" => Some(PrimitiveType::Date),
            "time" => Some(PrimitiveType::Time),
            "timestamp" => Some(PrimitiveType::Timestamp),
            "timestamptz" => Some(PrimitiveType::Timestamptz),
            "timestamp_ns" => Some(PrimitiveType::TimestampNs),
            "timestamptz_ns" => Some(PrimitiveType::TimestamptzNs),
            "string" => Some(PrimitiveType::String),
            "uuid" => Some(PrimitiveType::Uuid),
            "binary" => Some(PrimitiveType::Binary),
            "variant" => Some(PrimitiveType::Variant),
            _ => None,
        };
        if let Some(simple) = simple {
            return Ok(simple);
        }
        if let Some(args) = parameters(&lower, "decimal", '(', ')') {
            let (p, s) = args.split_once(',').ok_or_else(unknown)?;
            let precision = p.trim().parse::<u32>().map_err(|_| unknown())?;
            let scale = s.trim().parse::<u32>().map_err(|_| unknown())?;
            if precision == 0 || precision > MAX_DECIMAL_PRECISION || scale > precision {
                return Err(unknown());
            }
            return Ok(PrimitiveType::Decimal { precision, scale });
        }
        if let Some(len) = parameters(&lower, "fixed", '[', ']') {
            let len = len.trim().parse::<u64>().map_err(|_| unknown())?;
            return Ok(PrimitiveType::Fixed(len));
        }
        // Geospatial parameters are case-sensitive identifiers (CRS names): take them from the
        // original text, not the lower-cased copy.
        let original = text.trim();
        if let Some(written) = geospatial_parameters(original, &lower, "geometry") {
            return GeometryParameters::from_written(written)
                .map(PrimitiveType::Geometry)
                .map_err(invalid);
        }
        if let Some(written) = geospatial_parameters(original, &lower, "geography") {
            return GeographyParameters::from_written(written)
                .map(PrimitiveType::Geography)
                .map_err(invalid);
        }
        Err(unknown())
    }

    /// The lowest table format version that may hold this type.
    pub fn min_format_version(&self) -> u8 {
        match self {
            PrimitiveType::Unknown
            | PrimitiveType::TimestampNs
            | PrimitiveType::TimestamptzNs
            | PrimitiveType::Variant
            | PrimitiveType::Geometry(_)
            | PrimitiveType::Geography(_) => 3,
            _ => 1,
        }
    }
}

/// `name(args)` or `name[args]` with optional whitespace before the bracket; returns `args`.
fn parameters<'a>(lower: &'a str, name: &str, open: char, close: char) -> Option<&'a str> {
    let rest = lower.strip_prefix(name)?.trim_start();
    rest.strip_prefix(open)?.strip_suffix(close)
}

/// `Some(None)` for the bare `name`, `Some(Some(args))` for `name(args)` with `args` cut from the
/// original text, `None` for another type.
fn geospatial_parameters<'a>(
    original: &'a str,
    lower: &str,
    name: &str,
) -> Option<Option<&'a str>> {
    if lower == name {
        return Some(None);
    }
    let args = parameters(lower, name, '(', ')')?;
    let start = original.len() - args.len() - 1;
    Some(Some(&original[start..original.len() - 1]))
}

impl fmt::Display for PrimitiveType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrimitiveType::Unknown => f.write_str("unknown"),
            PrimitiveType::Boolean => f.write_str("boolean"),
            PrimitiveType::Int => f.write_str("int"),
            PrimitiveType::Long => f.write_str("long"),
            PrimitiveType::Float => f.write_str("float"),
            PrimitiveType::Double => f.write_str("double"),
            // Both reference writers (Java and PyIceberg) put a space after the comma.
            PrimitiveType::Decimal { precision, scale } => {
                write!(f, "decimal({precision}, {scale})")
            }
            PrimitiveType::Date => f.write_str("date"),
            PrimitiveType::Time => f.write_str("time"),
            PrimitiveType::Timestamp => f.write_str("timestamp"),
            PrimitiveType::Timestamptz => f.write_str("timestamptz"),
            PrimitiveType::TimestampNs => f.write_str("timestamp_ns"),
            PrimitiveType::TimestamptzNs => f.write_str("timestamptz_ns"),
            PrimitiveType::String => f.write_str("string"),
            PrimitiveType::Uuid => f.write_str("uuid"),
            PrimitiveType::Fixed(len) => write!(f, "fixed[{len}]"),
            PrimitiveType::Binary => f.write_str("binary"),
            PrimitiveType::Variant => f.write_str("variant"),
            PrimitiveType::Geometry(params) => match params.written() {
                Some(crs) => write!(f, "geometry({crs})"),
                None => f.write_str("geometry"),
            },
            PrimitiveType::Geography(params) => match params.written() {
                Some(args) => write!(f, "geography({args})"),
                None => f.write_str("geography"),
            },
        }
    }
}

impl fmt::Display for Type {
    /// A compact, Spark-like rendering for messages (`struct<x: double>`, `list<int>`,
    /// `map<string, long>`); the JSON form lives in `iceberg::json`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Primitive(p) => p.fmt(f),
            Type::Struct(s) => {
                f.write_str("struct<")?;
                for (i, field) in s.fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}: {}", field.name, field.field_type)?;
                }
                f.write_str(">")
            }
            Type::List(l) => write!(f, "list<{}>", l.element),
            Type::Map(m) => write!(f, "map<{}, {}>", m.key, m.value),
        }
    }
}

impl Type {
    pub fn as_primitive(&self) -> Option<&PrimitiveType> {
        match self {
            Type::Primitive(p) => Some(p),
            _ => None,
        }
    }

    pub fn as_struct(&self) -> Option<&StructType> {
        match self {
            Type::Struct(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_nested(&self) -> bool {
        !matches!(self, Type::Primitive(_))
    }

    /// The lowest format version this type and every type nested in it needs.
    pub fn min_format_version(&self) -> u8 {
        match self {
            Type::Primitive(p) => p.min_format_version(),
            Type::Struct(s) => s
                .fields
                .iter()
                .map(|f| f.field_type.min_format_version())
                .max()
                .unwrap_or(1),
            Type::List(l) => l.element.min_format_version(),
            Type::Map(m) => m.key.min_format_version().max(m.value.min_format_version()),
        }
    }
}

/// Whether a column of type `from` may be changed to `to` in a table of `format_version`, exactly
/// as the spec's "Valid type promotions" table states. The same type is always allowed.
///
/// This is stricter than PyIceberg (which also accepts string<->binary, fixed[16]->uuid and, by a
/// bug, decimal scale changes) and looser than Iceberg Java 1.11 (which has not implemented the
/// v3 promotions yet): the spec is the contract both converge on.
pub fn is_allowed_promotion(from: &PrimitiveType, to: &PrimitiveType, format_version: u8) -> bool {
    use PrimitiveType as P;
    if from == to {
        return true;
    }
    let v3 = format_version >= 3;
    match (from, to) {
        (P::Int, P::Long) | (P::Float, P::Double) => true,
        (
            P::Decimal {
                precision: p1,
                scale: s1,
            },
            P::Decimal {
                precision: p2,
                scale: s2,
            },
        ) => s1 == s2 && p2 > p1,
        (P::Date, P::Timestamp | P::TimestampNs) => v3,
        (P::Unknown, _) => v3,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PrimitiveType as P;

    fn all_primitives() -> Vec<PrimitiveType> {
        vec![
            P::Unknown,
            P::Boolean,
            P::Int,
            P::Long,
            P::Float,
            P::Double,
            P::Decimal {
                precision: 9,
                scale: 2,
            },
            P::Decimal {
                precision: 18,
                scale: 2,
            },
            P::Decimal {
                precision: 18,
                scale: 4,
            },
            P::Date,
            P::Time,
            P::Timestamp,
            P::Timestamptz,
            P::TimestampNs,
            P::TimestamptzNs,
            P::String,
            P::Uuid,
            P::Fixed(16),
            P::Binary,
            P::Variant,
            geometry(Some("srid:4326")),
            geography(Some("srid:4326, spherical")),
        ]
    }

    fn geometry(written: Option<&str>) -> PrimitiveType {
        P::Geometry(GeometryParameters::from_written(written).unwrap())
    }

    fn geography(written: Option<&str>) -> PrimitiveType {
        P::Geography(GeographyParameters::from_written(written).unwrap())
    }

    #[test]
    fn type_strings_round_trip() {
        for p in all_primitives() {
            assert_eq!(P::parse(&p.to_string()), Ok(p.clone()), "{p}");
        }
    }

    #[test]
    fn type_strings_accept_whitespace_and_case() {
        assert_eq!(
            P::parse("decimal( 9 , 2 )"),
            Ok(P::Decimal {
                precision: 9,
                scale: 2
            })
        );
        assert_eq!(P::parse("fixed[ 16 ]"), Ok(P::Fixed(16)));
        assert_eq!(P::parse("LONG"), Ok(P::Long));
        assert_eq!(
            P::parse("geometry(srid:4326)"),
            Ok(geometry(Some("srid:4326")))
        );
        assert_eq!(P::parse(" Geography "), Ok(geography(None)));
    }

    /// A bare geospatial type is read, means the spec's defaults, and is written back bare; an
    /// explicit default is written back as the file wrote it.
    #[test]
    fn geospatial_type_strings_keep_their_written_form() {
        for text in [
            "geometry",
            "geometry(OGC:CRS84)",
            "geometry(srid:4326)",
            "geography",
            "geography(OGC:CRS84)",
            "geography(OGC:CRS84,spherical)",
            "geography(srid:4326, karney)",
        ] {
            let parsed = P::parse(text).unwrap();
            assert_eq!(parsed.to_string(), text);
            assert_eq!(parsed.min_format_version(), 3, "{text}");
        }
        assert_eq!(
            P::parse("geometry ( ogc:crs84 )").map(|p| p.to_string()),
            Ok("geometry(ogc:crs84)".to_string())
        );
    }

    #[test]
    fn the_default_geospatial_parameters_are_no_type_change() {
        let bare = P::parse("geometry").unwrap();
        let explicit = P::parse("geometry(OGC:CRS84)").unwrap();
        assert_eq!(bare, explicit);
        assert!(is_allowed_promotion(&bare, &explicit, 3));
        let bare = P::parse("geography").unwrap();
        let explicit = P::parse("geography(ogc:crs84, SPHERICAL)").unwrap();
        assert_eq!(bare, explicit);
        assert!(!is_allowed_promotion(
            &bare,
            &P::parse("geography(OGC:CRS84, karney)").unwrap(),
            3
        ));
        assert!(!is_allowed_promotion(
            &P::parse("geometry").unwrap(),
            &P::parse("geometry(srid:4326)").unwrap(),
            3
        ));
    }

    #[test]
    fn invalid_type_strings_are_rejected() {
        for bad in [
            "",
            "decimal(39,2)",
            "decimal(2,3)",
            "decimal(0,0)",
            "fixed[-1]",
            "int32",
            "decimal(9)",
            "geometry()",
            "geography( )",
            "geography(, spherical)",
            "geometries",
        ] {
            assert!(P::parse(bad).is_err(), "{bad}");
        }
    }

    /// The full promotion matrix: every ordered pair of primitives, per format version, against
    /// the spec's table written out independently here.
    #[test]
    fn promotion_matrix_follows_the_spec() {
        let allowed_v2 = |a: &P, b: &P| {
            a == b
                || matches!((a, b), (P::Int, P::Long) | (P::Float, P::Double))
                || matches!(
                    (a, b),
                    (
                        P::Decimal {
                            precision: 9,
                            scale: 2
                        },
                        P::Decimal {
                            precision: 18,
                            scale: 2
                        }
                    )
                )
        };
        let allowed_v3 = |a: &P, b: &P| {
            allowed_v2(a, b)
                || matches!(a, P::Unknown)
                || matches!((a, b), (P::Date, P::Timestamp) | (P::Date, P::TimestampNs))
        };
        for a in all_primitives() {
            for b in all_primitives() {
                for v in [1, 2] {
                    assert_eq!(
                        is_allowed_promotion(&a, &b, v),
                        allowed_v2(&a, &b),
                        "v{v}: {a} -> {b}"
                    );
                }
                assert_eq!(
                    is_allowed_promotion(&a, &b, 3),
                    allowed_v3(&a, &b),
                    "v3: {a} -> {b}"
                );
            }
        }
    }

    #[test]
    fn decimal_promotion_needs_equal_scale_and_more_precision() {
        let d = |precision, scale| P::Decimal { precision, scale };
        assert!(is_allowed_promotion(&d(9, 2), &d(10, 2), 2));
        assert!(!is_allowed_promotion(&d(10, 2), &d(9, 2), 2));
        assert!(!is_allowed_promotion(&d(9, 2), &d(12, 4), 2));
        assert!(!is_allowed_promotion(&d(9, 2), &d(12, 4), 3));
    }

    #[test]
    fn date_never_promotes_to_zoned_timestamps() {
        assert!(!is_allowed_promotion(&P::Date, &P::Timestamptz, 3));
        assert!(!is_allowed_promotion(&P::Date, &P::TimestamptzNs, 3));
    }
}
