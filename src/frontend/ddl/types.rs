//! SQL type names to Iceberg types, with each engine's meaning of the names.
//!
//! Spark (and Hive) spell nested types `array<T>`, `map<K, V>`, `struct<a: T, ...>`; Trino
//! spells them `array(T)`, `map(K, V)`, `row(a T, ...)` (and accepts the angle-bracket forms
//! too). Names map as the engines' Iceberg integrations map them: Spark's `tinyint` and
//! `smallint` widen to `int`, Spark's `timestamp` is zoned (`timestamptz`) while Hive's is not,
//! `varchar(n)` and `char(n)` are `string`. Nested types get placeholder field id 0; `evolve`
//! assigns real ids. List elements and map values are optional, as both engines create them.

use sqlparser::tokenizer::Token;

use crate::change::Span;
use crate::frontend::ddl::cursor::{Cursor, PResult};
use crate::frontend::ddl::dialect::Dialect;
use crate::frontend::ddl::error::{DdlError, DdlErrorKind};
use crate::iceberg::schema::Field;
use crate::iceberg::types::{
    ListType, MAX_DECIMAL_PRECISION, MapType, PrimitiveType, StructType, Type,
};

/// A parsed type and the text it was parsed from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParsedType {
    pub ty: Type,
    pub span: Span,
}

/// Deeper nesting than this is an error rather than a risk to the stack; real schemas stay far
/// below it.
const MAX_DEPTH: usize = 64;

const SPARK_TYPES: &str = "boolean, tinyint, smallint, int, bigint, float, double, \
    decimal(p,s), date, timestamp, timestamp_ntz, string, varchar(n), char(n), binary, \
    array<T>, map<K, V>, struct<name: T, ...>";
const HIVE_TYPES: &str = "boolean, tinyint, smallint, int, bigint, float, double, \
    decimal(p,s), date, timestamp, timestamp with local time zone, string, varchar(n), \
    char(n), binary, array<T>, map<K, V>, struct<name: T, ...>";
const TRINO_TYPES: &str = "boolean, tinyint, smallint, integer, bigint, real, double, \
    decimal(p,s), date, time(6), timestamp(6), timestamp(6) with time zone, varchar, \
    varbinary, uuid, array(T), map(K, V), row(name T, ...)";

/// Types the engines have but Iceberg cannot store.
const NO_ICEBERG_EQUIVALENT: &[&str] = &[
    "interval",
    "void",
    "null",
    "json",
    "ipaddress",
    "hyperloglog",
    "qdigest",
    "tdigest",
    "uniontype",
    "object",
    "calendar_interval",
];

pub(crate) fn parse_type(cur: &mut Cursor) -> PResult<ParsedType> {
    parse_type_at(cur, 0)
}

fn parse_type_at(cur: &mut Cursor, depth: usize) -> PResult<ParsedType> {
    let head = cur.peek();
    let Some(name) = head.keyword() else {
        return Err(cur.expected("a type"));
    };
    if depth > MAX_DEPTH {
        return Err(DdlError::new(
            DdlErrorKind::InvalidType,
            head.span,
            "this type is nested too deeply",
        ));
    }
    cur.bump();
    let start = head.span.offset;
    let ty = match cur.dialect {
        Dialect::Spark | Dialect::Hive => spark_type(cur, &name, head.span, depth)?,
        Dialect::Trino => trino_type(cur, &name, head.span, depth)?,
    };
    Ok(ParsedType {
        ty,
        span: cur.since(start),
    })
}

fn primitive(p: PrimitiveType) -> PResult<Type> {
    Ok(Type::Primitive(p))
}

/// Spark and Hive type names (the name token is consumed).
fn spark_type(cur: &mut Cursor, name: &str, name_span: Span, depth: usize) -> PResult<Type> {
    use PrimitiveType as P;
    let hive = cur.dialect == Dialect::Hive;
    match name {
        "boolean" => primitive(P::Boolean),
        "tinyint" | "byte" | "smallint" | "short" | "int" | "integer" => primitive(P::Int),
        "bigint" | "long" => primitive(P::Long),
        "float" | "real" => primitive(P::Float),
        "double" => spark_double(cur, name_span),
        // Spark and Hive both default a bare `decimal` to decimal(10,0).
        "decimal" | "dec" | "numeric" => {
            decimal(cur, name_span.offset, (10, 0)).map(Type::Primitive)
        }
        "date" => primitive(P::Date),
        // Hive's Iceberg integration maps `timestamp` to Iceberg's zone-less timestamp and
        // `timestamp with local time zone` to timestamptz; Spark's `timestamp` is zoned.
        "timestamp" if hive => {
            if cur.eat_words(&["with", "local", "time", "zone"]).is_some() {
                primitive(P::Timestamptz)
            } else {
                primitive(P::Timestamp)
            }
        }
        "timestamp" | "timestamp_ltz" => {
            spark_timestamp_precision(cur)?;
            primitive(P::Timestamptz)
        }
        "timestamp_ntz" if !hive => {
            spark_timestamp_precision(cur)?;
            primitive(P::Timestamp)
        }
        "string" => primitive(P::String),
        "character" if hive => Err(unknown_type(cur.dialect, name, name_span)),
        "varchar" | "char" | "character" => spark_character(cur, name, name_span),
        "binary" => primitive(P::Binary),
        "variant" if !hive => primitive(P::Variant),
        "array" => spark_array(cur, depth),
        "map" => spark_map(cur, depth),
        "struct" => spark_struct(cur, depth),
        _ => Err(unknown_type(cur.dialect, name, name_span)),
    }
}

/// Hive's grammar has `DOUBLE PRECISION`; Spark's has only `DOUBLE`.
fn spark_double(cur: &mut Cursor, name_span: Span) -> PResult<Type> {
    match cur.eat_word("precision") {
        Some(_) if cur.dialect == Dialect::Hive => primitive(PrimitiveType::Double),
        Some(span) => Err(DdlError::new(
            DdlErrorKind::UnknownType,
            Span::from_range(name_span.offset, span.end()),
            "Spark has no type `double precision`",
        )
        .with_help("write `double`")),
        None => primitive(PrimitiveType::Double),
    }
}

/// `varchar(n)`, `char(n)`: Iceberg's `string`, but the length is required.
fn spark_character(cur: &mut Cursor, name: &str, name_span: Span) -> PResult<Type> {
    if optional_length(cur)?.is_none() {
        return Err(DdlError::new(
            DdlErrorKind::InvalidType,
            name_span,
            format!("{} requires a length for `{name}`", cur.dialect.title()),
        )
        .with_help(format!(
            "write `{name}(n)`, or `string` for text of any length (both are Iceberg's `string`)"
        )));
    }
    primitive(PrimitiveType::String)
}

/// `array<T>`.
fn spark_array(cur: &mut Cursor, depth: usize) -> PResult<Type> {
    cur.expect(&Token::Lt)?;
    let element = parse_type_at(cur, depth + 1)?;
    cur.expect_close_angle()?;
    Ok(list(element.ty))
}

/// `map<K, V>`.
fn spark_map(cur: &mut Cursor, depth: usize) -> PResult<Type> {
    cur.expect(&Token::Lt)?;
    let key = parse_type_at(cur, depth + 1)?;
    cur.expect(&Token::Comma)?;
    let value = parse_type_at(cur, depth + 1)?;
    cur.expect_close_angle()?;
    Ok(map(key.ty, value.ty))
}

/// `struct<a: T [NOT NULL] [COMMENT 'x'], b T, ...>` (the colon is optional); `struct<>` is
/// the empty struct.
fn spark_struct(cur: &mut Cursor, depth: usize) -> PResult<Type> {
    // `<>` lexes as the not-equal operator.
    if cur.eat(&Token::Neq).is_some() {
        return Ok(Type::Struct(StructType::default()));
    }
    cur.expect(&Token::Lt)?;
    let mut fields = Vec::new();
    if !cur.at(&Token::Gt) && !cur.at(&Token::ShiftRight) {
        loop {
            let name = cur.name("a struct field name")?;
            cur.eat(&Token::Colon);
            let ty = parse_type_at(cur, depth + 1)?;
            let required = cur.eat_words(&["not", "null"]).is_some();
            let doc = match cur.eat_word("comment") {
                Some(_) => Some(cur.string("a comment string")?.0),
                None => None,
            };
            let mut field = Field::new(0, name.value, required, ty.ty);
            field.doc = doc;
            fields.push(field);
            if cur.eat(&Token::Comma).is_none() {
                break;
            }
        }
    }
    cur.expect_close_angle()?;
    Ok(Type::Struct(StructType { fields }))
}

/// Trino type names (the name token is consumed).
fn trino_type(cur: &mut Cursor, name: &str, name_span: Span, depth: usize) -> PResult<Type> {
    use PrimitiveType as P;
    match name {
        "boolean" => primitive(P::Boolean),
        "tinyint" | "smallint" | "integer" | "int" => primitive(P::Int),
        "bigint" => primitive(P::Long),
        "real" => primitive(P::Float),
        "double" => {
            cur.eat_word("precision");
            primitive(P::Double)
        }
        // Trino defaults a bare `decimal` to decimal(38,0).
        "decimal" | "dec" | "numeric" => {
            decimal(cur, name_span.offset, (38, 0)).map(Type::Primitive)
        }
        "date" => primitive(P::Date),
        "time" => trino_time(cur, name_span),
        "timestamp" => trino_timestamp(cur, name_span),
        "varchar" | "char" => {
            optional_length(cur)?;
            primitive(P::String)
        }
        "varbinary" => primitive(P::Binary),
        "uuid" => primitive(P::Uuid),
        "array" => {
            let close = open_generic(cur)?;
            let element = parse_type_at(cur, depth + 1)?;
            close_generic(cur, close)?;
            Ok(list(element.ty))
        }
        "map" => {
            let close = open_generic(cur)?;
            let key = parse_type_at(cur, depth + 1)?;
            cur.expect(&Token::Comma)?;
            let value = parse_type_at(cur, depth + 1)?;
            close_generic(cur, close)?;
            Ok(map(key.ty, value.ty))
        }
        "row" => trino_row(cur, depth),
        _ => Err(unknown_type(cur.dialect, name, name_span)),
    }
}

/// `time[(p)] [without time zone]`; Iceberg has no zoned time.
fn trino_time(cur: &mut Cursor, name_span: Span) -> PResult<Type> {
    optional_length(cur)?;
    if cur.at_words(&["with", "time", "zone"]) {
        let start = cur.next_start();
        cur.eat_words(&["with", "time", "zone"]);
        return Err(DdlError::new(
            DdlErrorKind::UnknownType,
            Span::from_range(name_span.offset, cur.since(start).end()),
            "type `time with time zone` has no Iceberg equivalent",
        )
        .with_help("Iceberg's `time` has no zone: use `time(6)`"));
    }
    cur.eat_words(&["without", "time", "zone"]);
    primitive(PrimitiveType::Time)
}

/// `timestamp[(p)] [with|without time zone]`.
fn trino_timestamp(cur: &mut Cursor, name_span: Span) -> PResult<Type> {
    use PrimitiveType as P;
    // Trino's Iceberg connector stores microseconds; precisions up to 6 are coerced to
    // it, 7 to 9 are nanoseconds (format version 3).
    let precision = optional_length(cur)?.unwrap_or(6);
    let nanos = precision > 6;
    if precision > 9 {
        return Err(DdlError::new(
            DdlErrorKind::InvalidType,
            cur.since(name_span.offset),
            format!("timestamp precision {precision} is finer than Iceberg stores"),
        )
        .with_help("Iceberg timestamps have microsecond (6) or nanosecond (9) precision"));
    }
    let zoned = if cur.eat_words(&["with", "time", "zone"]).is_some() {
        true
    } else {
        cur.eat_words(&["without", "time", "zone"]);
        false
    };
    primitive(match (zoned, nanos) {
        (false, false) => P::Timestamp,
        (true, false) => P::Timestamptz,
        (false, true) => P::TimestampNs,
        (true, true) => P::TimestamptzNs,
    })
}

/// `row(name T, ...)`: Trino's struct.
fn trino_row(cur: &mut Cursor, depth: usize) -> PResult<Type> {
    cur.expect(&Token::LParen)?;
    let mut fields = Vec::new();
    loop {
        let name = cur.name("a row field name")?;
        let ty = parse_type_at(cur, depth + 1)?;
        fields.push(Field::new(0, name.value, false, ty.ty));
        if cur.eat(&Token::Comma).is_none() {
            break;
        }
    }
    cur.expect(&Token::RParen)?;
    Ok(Type::Struct(StructType { fields }))
}

#[derive(Clone, Copy)]
enum Close {
    Paren,
    Angle,
}

/// Trino's `array(T)`, or its legacy `array<T>`.
fn open_generic(cur: &mut Cursor) -> PResult<Close> {
    if cur.eat(&Token::LParen).is_some() {
        Ok(Close::Paren)
    } else if cur.eat(&Token::Lt).is_some() {
        Ok(Close::Angle)
    } else {
        Err(cur.expected("`(`"))
    }
}

fn close_generic(cur: &mut Cursor, close: Close) -> PResult<Span> {
    match close {
        Close::Paren => cur.expect(&Token::RParen),
        Close::Angle => cur.expect_close_angle(),
    }
}

fn list(element: Type) -> Type {
    Type::List(ListType {
        element_id: 0,
        element_required: false,
        element: Box::new(element),
    })
}

fn map(key: Type, value: Type) -> Type {
    Type::Map(MapType {
        key_id: 0,
        key: Box::new(key),
        value_id: 0,
        value_required: false,
        value: Box::new(value),
    })
}

/// `(n)` after `varchar`, `char`, `time`, `timestamp`. Lengths do not matter to Iceberg (all
/// are `string`); only a timestamp precision is checked, by its caller.
fn optional_length(cur: &mut Cursor) -> PResult<Option<u64>> {
    if cur.eat(&Token::LParen).is_none() {
        return Ok(None);
    }
    let (n, _) = cur.uint("a length")?;
    cur.expect(&Token::RParen)?;
    Ok(Some(n))
}

/// Spark's `timestamp(p)`: the parser takes a precision and the engine stores microseconds.
fn spark_timestamp_precision(cur: &mut Cursor) -> PResult<()> {
    let start = cur.next_start();
    match optional_length(cur)? {
        None | Some(SPARK_TIMESTAMP_PRECISION) => Ok(()),
        Some(precision) => Err(DdlError::new(
            DdlErrorKind::InvalidType,
            cur.since(start),
            format!("Spark timestamps have precision {SPARK_TIMESTAMP_PRECISION} (microseconds), not {precision}"),
        )
        .with_help("write the type without a precision, or with `(6)`")),
    }
}

const SPARK_TIMESTAMP_PRECISION: u64 = 6;

/// `[(p [, s])]` after a decimal type name; `start` is where the name began.
fn decimal(cur: &mut Cursor, start: usize, default: (u64, u64)) -> PResult<PrimitiveType> {
    let (precision, scale) = if cur.eat(&Token::LParen).is_some() {
        let (p, _) = cur.uint("a decimal precision")?;
        let s = match cur.eat(&Token::Comma) {
            Some(_) => cur.uint("a decimal scale")?.0,
            None => 0,
        };
        cur.expect(&Token::RParen)?;
        (p, s)
    } else {
        default
    };
    let span = cur.since(start);
    let max = u64::from(MAX_DECIMAL_PRECISION);
    if precision == 0 || precision > max {
        return Err(DdlError::new(
            DdlErrorKind::InvalidType,
            span,
            format!("decimal precision {precision} is out of range"),
        )
        .with_label(format!("Iceberg decimals hold 1 to {max} digits"))
        .with_help(format!("use a precision from 1 to {max}")));
    }
    if scale > precision {
        return Err(DdlError::new(
            DdlErrorKind::InvalidType,
            span,
            format!("decimal scale {scale} is larger than its precision {precision}"),
        ));
    }
    // Both are at most 38 here.
    Ok(PrimitiveType::Decimal {
        precision: precision as u32,
        scale: scale as u32,
    })
}

fn unknown_type(dialect: Dialect, name: &str, span: Span) -> DdlError {
    let (message, help) = if NO_ICEBERG_EQUIVALENT.contains(&name) {
        (format!("type `{name}` has no Iceberg equivalent"), None)
    } else {
        let known = match dialect {
            Dialect::Spark => SPARK_TYPES,
            Dialect::Hive => HIVE_TYPES,
            Dialect::Trino => TRINO_TYPES,
        };
        (
            format!("unknown {} type `{name}`", dialect.title()),
            Some(format!("{} types are: {known}", dialect.title())),
        )
    };
    let error = DdlError::new(DdlErrorKind::UnknownType, span, message);
    match help {
        Some(help) => error.with_help(help),
        None => error,
    }
}
