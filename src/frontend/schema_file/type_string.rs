//! Types written as strings: Iceberg's type names and the SQL spellings people paste from DDL.
//!
//! `long`, `decimal(10,2)`, `fixed[16]` are Iceberg's (through [`PrimitiveType::parse`]); `BIGINT`,
//! `VARCHAR(20)`, `ARRAY<STRING>`, `MAP<STRING, INT>`, `STRUCT<a: INT NOT NULL, b STRING>` are
//! SQL's, mapped as the DDL front-end maps Spark's: TINYINT/SMALLINT/INTEGER to `int`, BIGINT to
//! `long`, REAL to `float`, VARCHAR/CHAR/TEXT to `string`, TIMESTAMP_NTZ to `timestamp`. Nested
//! members of a type string have no ids (a proposal's `evolve` assigns them); list elements and
//! map values are optional, as engines create them.
//!
//! One name means different things in the two vocabularies: Iceberg's `timestamp` has no time
//! zone, Spark's `TIMESTAMP` does. The lower-case spelling is Iceberg's, as everywhere else in a
//! schema file; any other casing (`TIMESTAMP`, `Timestamp`) is the SQL type, `timestamptz`.

use std::ops::Range;

use crate::change::Span;
use crate::iceberg::types::{MAX_DECIMAL_PRECISION, PrimitiveType};
use crate::yaml::YamlNode;

use super::error::{SchemaFileError, SchemaFileErrorKind};
use super::read::suggest;
use super::{FileField, FileList, FileMap, FileType, node_span};

/// Type strings nest at most this deep; real schemas stay far below, hostile ones cannot
/// exhaust the stack.
const MAX_TYPE_DEPTH: usize = 64;

/// Every spelling a type string may start with, for "did you mean".
const TYPE_NAMES: &[&str] = &[
    "boolean",
    "int",
    "long",
    "float",
    "double",
    "decimal",
    "date",
    "time",
    "timestamp",
    "timestamptz",
    "timestamp_ns",
    "timestamptz_ns",
    "string",
    "uuid",
    "fixed",
    "binary",
    "variant",
    "unknown",
    "tinyint",
    "smallint",
    "integer",
    "bigint",
    "real",
    "varchar",
    "char",
    "text",
    "timestamp_ntz",
    "timestamp_ltz",
    "varbinary",
    "array",
    "list",
    "map",
    "struct",
];

pub(super) const TYPE_HELP: &str = "types are Iceberg's (boolean, int, long, float, double, \
    decimal(P,S), date, time, timestamp, timestamptz, timestamp_ns, timestamptz_ns, string, uuid, \
    fixed[L], binary) or SQL spellings (INT, BIGINT, VARCHAR, ARRAY<T>, MAP<K, V>, \
    STRUCT<name: T, ...>); nested types may also be written {struct: [...]}, {list: T} or \
    {map: [K, V]}";

/// Maps offsets inside a scalar's value to the file, when the value is the text as written
/// (plain, or quoted without escapes); otherwise every inner span is the whole scalar.
pub(super) struct Locator {
    base: Option<usize>,
    whole: Span,
}

impl Locator {
    pub(super) fn new(text: &str, node: &YamlNode, value: &str) -> Locator {
        let raw = text.get(node.span.range()).unwrap_or_default();
        let base = if raw == value {
            Some(node.span.start)
        } else if raw.len() == value.len() + 2 && raw.get(1..raw.len() - 1) == Some(value) {
            Some(node.span.start + 1)
        } else {
            None
        };
        Locator {
            base,
            whole: node_span(node),
        }
    }

    pub(super) fn at(&self, range: Range<usize>) -> Span {
        match self.base {
            Some(base) => Span::from_range(base + range.start, base + range.end),
            None => self.whole,
        }
    }
}

/// Parses a whole type string; errors are located inside it where possible.
pub(super) fn parse_type_string(s: &str, loc: &Locator) -> Result<FileType, SchemaFileError> {
    let mut parser = TypeParser { s, pos: 0, loc };
    let ty = parser.ty(0)?;
    parser.skip_ws();
    if let Some(c) = parser.peek() {
        let at = parser.pos..parser.pos + c.len_utf8();
        return Err(parser.error(at, format!("unexpected `{c}` after the type")));
    }
    Ok(ty)
}

struct TypeParser<'s, 'l> {
    s: &'s str,
    pos: usize,
    loc: &'l Locator,
}

impl TypeParser<'_, '_> {
    fn skip_ws(&mut self) {
        let rest = &self.s[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn peek(&self) -> Option<char> {
        self.s[self.pos..].chars().next()
    }

    /// `[A-Za-z0-9_]+` at the cursor.
    fn word(&mut self) -> Option<Range<usize>> {
        let start = self.pos;
        let len = self.s[start..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        self.pos += len;
        (len > 0).then_some(start..start + len)
    }

    fn error(&self, range: Range<usize>, message: impl Into<String>) -> SchemaFileError {
        SchemaFileError::new(
            SchemaFileErrorKind::UnknownType,
            self.loc.at(range),
            message,
        )
    }

    /// "expected X, found Y" at the cursor; at the end of the string, with the hint that a flow
    /// collection may have cut the value at a comma.
    fn unexpected(&self, expected: &str) -> SchemaFileError {
        match self.peek() {
            Some(c) => {
                let range = self.pos..self.pos + c.len_utf8();
                self.error(range, format!("expected {expected}, found `{c}`"))
            }
            None => self
                .error(
                    self.pos..self.pos,
                    format!("expected {expected}, but the type `{}` ends here", self.s),
                )
                .with_help(
                    "inside `{...}` or `[...]` a comma ends an unquoted value: quote the type, \
                     e.g. \"decimal(10,2)\"",
                ),
        }
    }

    fn expect(&mut self, c: char) -> Result<(), SchemaFileError> {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected(&format!("`{c}`")))
        }
    }

    fn eat_word(&mut self, word: &str) -> Option<Range<usize>> {
        self.skip_ws();
        let save = self.pos;
        match self.word() {
            Some(r) if self.s[r.clone()].eq_ignore_ascii_case(word) => Some(r),
            _ => {
                self.pos = save;
                None
            }
        }
    }

    /// A type with the span of its text.
    fn spanned(&mut self, depth: usize) -> Result<(FileType, Span), SchemaFileError> {
        self.skip_ws();
        let start = self.pos;
        let ty = self.ty(depth)?;
        Ok((ty, self.loc.at(start..self.pos)))
    }

    fn ty(&mut self, depth: usize) -> Result<FileType, SchemaFileError> {
        self.skip_ws();
        let Some(name) = self.word() else {
            return Err(self.unexpected("a type name"));
        };
        if depth >= MAX_TYPE_DEPTH {
            return Err(self.error(name, "this type is nested too deeply"));
        }
        match self.s[name.clone()].to_ascii_lowercase().as_str() {
            "array" | "list" => {
                self.expect('<')?;
                let (element, element_span) = self.spanned(depth + 1)?;
                self.expect('>')?;
                Ok(FileType::List(Box::new(FileList {
                    element_id: None,
                    element_id_span: self.loc.at(self.pos..self.pos),
                    element_required: false,
                    element,
                    element_span,
                })))
            }
            "map" => {
                self.expect('<')?;
                let (key, key_span) = self.spanned(depth + 1)?;
                self.expect(',')?;
                let (value, value_span) = self.spanned(depth + 1)?;
                self.expect('>')?;
                let end = self.loc.at(self.pos..self.pos);
                Ok(FileType::Map(Box::new(FileMap {
                    key_id: None,
                    key_id_span: end,
                    value_id: None,
                    value_id_span: end,
                    value_required: false,
                    key,
                    key_span,
                    value,
                    value_span,
                })))
            }
            "struct" => self.struct_fields(depth),
            _ => self.primitive(name),
        }
    }

    /// `<name [:] type [NOT NULL] [COMMENT 'doc'], ...>`; `<>` is the empty struct.
    fn struct_fields(&mut self, depth: usize) -> Result<FileType, SchemaFileError> {
        self.expect('<')?;
        let mut fields = Vec::new();
        self.skip_ws();
        if self.peek() == Some('>') {
            self.pos += 1;
            return Ok(FileType::Struct(fields));
        }
        loop {
            self.skip_ws();
            let start = self.pos;
            let (name, name_range) = self.field_name()?;
            self.skip_ws();
            if self.peek() == Some(':') {
                self.pos += 1;
            }
            let (field_type, type_span) = self.spanned(depth + 1)?;
            let required_span = match self.eat_word("not") {
                None => None,
                Some(not) => match self.eat_word("null") {
                    Some(null) => Some(self.loc.at(not.start..null.end)),
                    None => return Err(self.unexpected("`NULL` after `NOT`")),
                },
            };
            let mut doc = None;
            let mut doc_span = None;
            if self.eat_word("comment").is_some() {
                let (text, range) = self.quoted()?;
                doc = Some(text);
                doc_span = Some(self.loc.at(range));
            }
            fields.push(FileField {
                id: None,
                name,
                field_type,
                required: required_span.is_some(),
                doc,
                span: self.loc.at(start..self.pos),
                name_span: self.loc.at(name_range.clone()),
                type_span,
                id_span: self.loc.at(name_range.start..name_range.start),
                required_span,
                doc_span,
                in_type_string: true,
            });
            self.skip_ws();
            match self.peek() {
                Some(',') => self.pos += 1,
                Some('>') => {
                    self.pos += 1;
                    return Ok(FileType::Struct(fields));
                }
                _ => return Err(self.unexpected("`,` or `>`")),
            }
        }
    }

    /// A field name in a struct type string: a word, or any text in backquotes.
    fn field_name(&mut self) -> Result<(String, Range<usize>), SchemaFileError> {
        if self.peek() == Some('`') {
            let start = self.pos;
            let Some(len) = self.s[start + 1..].find('`') else {
                return Err(self.error(start..self.s.len(), "unclosed backquote in a field name"));
            };
            self.pos = start + 1 + len + 1;
            return Ok((
                self.s[start + 1..start + 1 + len].to_owned(),
                start..self.pos,
            ));
        }
        match self.word() {
            Some(r) => Ok((self.s[r.clone()].to_owned(), r)),
            None => Err(self.unexpected("a field name")),
        }
    }

    /// `'text'` with `''` for a quote inside.
    fn quoted(&mut self) -> Result<(String, Range<usize>), SchemaFileError> {
        self.skip_ws();
        let start = self.pos;
        if self.peek() != Some('\'') {
            return Err(self.unexpected("a quoted comment"));
        }
        let mut out = String::new();
        let mut chars = self.s[start + 1..].char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == '\'' {
                if chars.peek().map(|&(_, c)| c) == Some('\'') {
                    out.push('\'');
                    chars.next();
                    continue;
                }
                self.pos = start + 1 + i + 1;
                return Ok((out, start..self.pos));
            }
            out.push(c);
        }
        Err(self.error(start..self.s.len(), "unclosed quote in a comment"))
    }

    /// A primitive type name, with its `(args)` or `[length]` if any.
    fn primitive(&mut self, name: Range<usize>) -> Result<FileType, SchemaFileError> {
        let word = &self.s[name.clone()];
        let (end, has_args) = self.arguments_end()?;
        self.pos = end;
        let full = &self.s[name.start..end];
        if let Some(p) = sql_alias(word, has_args) {
            return Ok(FileType::Primitive(p));
        }
        if let Ok(p) = PrimitiveType::parse(full) {
            return Ok(FileType::Primitive(p));
        }
        Err(self.not_a_primitive(word, full, name.start..end, has_args))
    }

    /// Where a primitive's `(...)` or `[...]` arguments end, if it has them, else where its
    /// name ends; and whether it has them.
    fn arguments_end(&mut self) -> Result<(usize, bool), SchemaFileError> {
        let save = self.pos;
        self.skip_ws();
        let close = match self.peek() {
            Some('(') => ')',
            Some('[') => ']',
            _ => return Ok((save, false)),
        };
        match self.s[self.pos..].find(close) {
            Some(at) => Ok((self.pos + at + 1, true)),
            None => {
                self.pos = self.s.len();
                Err(self.unexpected(&format!("`{close}`")))
            }
        }
    }

    /// Why `full` (named `word`) is no primitive type, with what to write instead.
    fn not_a_primitive(
        &self,
        word: &str,
        full: &str,
        range: Range<usize>,
        has_args: bool,
    ) -> SchemaFileError {
        match word.to_ascii_lowercase().as_str() {
            "decimal" if !has_args => self
                .error(range, "`decimal` needs a precision and a scale")
                .with_help("write decimal(P,S), e.g. decimal(10,2)"),
            "decimal" => self
                .error(range, format!("invalid decimal type `{full}`"))
                .with_help(format!(
                    "the precision is 1 to {MAX_DECIMAL_PRECISION} and the scale at most the precision"
                )),
            "fixed" => self
                .error(range, format!("invalid fixed type `{full}`"))
                .with_help("write fixed[L] with the length in bytes, e.g. fixed[16]"),
            _ => {
                let help = match suggest(word, TYPE_NAMES.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => TYPE_HELP.to_owned(),
                };
                self.error(range, format!("unknown type `{full}`"))
                    .with_help(help)
            }
        }
    }
}

/// The SQL names a schema file accepts for Iceberg's primitives.
fn sql_alias(word: &str, has_args: bool) -> Option<PrimitiveType> {
    match word.to_ascii_lowercase().as_str() {
        // Lower-case `timestamp` is Iceberg's (no zone); `TIMESTAMP` is SQL's (zoned).
        "timestamp" if !has_args && word != "timestamp" => Some(PrimitiveType::Timestamptz),
        "tinyint" | "smallint" | "integer" if !has_args => Some(PrimitiveType::Int),
        "bigint" if !has_args => Some(PrimitiveType::Long),
        "real" if !has_args => Some(PrimitiveType::Float),
        // A length limit is not part of Iceberg's string type; the DDL front-end ignores it too.
        "varchar" | "char" | "text" => Some(PrimitiveType::String),
        "timestamp_ntz" if !has_args => Some(PrimitiveType::Timestamp),
        "timestamp_ltz" if !has_args => Some(PrimitiveType::Timestamptz),
        "varbinary" if !has_args => Some(PrimitiveType::Binary),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iceberg::types::PrimitiveType as P;

    fn parse(s: &str) -> Result<FileType, SchemaFileError> {
        let node = crate::yaml::parse(&format!("\"{s}\"")).unwrap();
        parse_type_string(s, &Locator::new(&format!("\"{s}\""), &node, s))
    }

    fn prim(s: &str) -> P {
        match parse(s) {
            Ok(FileType::Primitive(p)) => p,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn iceberg_names_and_sql_spellings() {
        let cases: &[(&str, P)] = &[
            ("long", P::Long),
            ("LONG", P::Long),
            ("int", P::Int),
            ("INT", P::Int),
            ("INTEGER", P::Int),
            ("SMALLINT", P::Int),
            ("tinyint", P::Int),
            ("BIGINT", P::Long),
            ("REAL", P::Float),
            ("FLOAT", P::Float),
            ("DOUBLE", P::Double),
            ("VARCHAR", P::String),
            ("VARCHAR(20)", P::String),
            ("TEXT", P::String),
            ("STRING", P::String),
            ("timestamp", P::Timestamp),
            ("TIMESTAMP", P::Timestamptz),
            ("TIMESTAMP_NTZ", P::Timestamp),
            ("timestamptz", P::Timestamptz),
            ("timestamp_ns", P::TimestampNs),
            ("BINARY", P::Binary),
            ("uuid", P::Uuid),
            ("fixed[16]", P::Fixed(16)),
            ("date", P::Date),
            (
                "DECIMAL(10, 2)",
                P::Decimal {
                    precision: 10,
                    scale: 2,
                },
            ),
            (
                "decimal(38,0)",
                P::Decimal {
                    precision: 38,
                    scale: 0,
                },
            ),
        ];
        for (s, expected) in cases {
            assert_eq!(&prim(s), expected, "{s}");
        }
    }

    #[test]
    fn nested_sql_types() {
        let Ok(FileType::List(list)) =
            parse("ARRAY<STRUCT<a: INT NOT NULL, `b c` STRING COMMENT 'it''s'>>")
        else {
            panic!()
        };
        assert_eq!(list.element_id, None);
        assert!(!list.element_required);
        let FileType::Struct(fields) = &list.element else {
            panic!()
        };
        assert_eq!(fields.len(), 2);
        assert_eq!((fields[0].name.as_str(), fields[0].required), ("a", true));
        assert_eq!(fields[0].field_type, FileType::Primitive(P::Int));
        assert_eq!(
            (fields[1].name.as_str(), fields[1].required),
            ("b c", false)
        );
        assert_eq!(fields[1].doc.as_deref(), Some("it's"));

        let Ok(FileType::Map(map)) = parse("map<string, array<timestamp>>") else {
            panic!()
        };
        assert_eq!(map.key, FileType::Primitive(P::String));
        let FileType::List(values) = &map.value else {
            panic!()
        };
        assert_eq!(values.element, FileType::Primitive(P::Timestamp));
        assert_eq!(parse("STRUCT<>"), Ok(FileType::Struct(Vec::new())));
    }

    #[test]
    fn errors_point_inside_the_string() {
        // The string sits at offset 1 of `"..."`.
        let cases: &[(&str, usize, usize, &str)] = &[
            ("strng", 1, 5, "unknown type `strng`"),
            ("ARRAY<strng>", 7, 5, "unknown type `strng`"),
            ("decimal", 1, 7, "`decimal` needs a precision and a scale"),
            (
                "decimal(40,2)",
                1,
                13,
                "invalid decimal type `decimal(40,2)`",
            ),
            ("fixed[x]", 1, 8, "invalid fixed type `fixed[x]`"),
            ("MAP<string>", 11, 1, "expected `,`, found `>`"),
            (
                "ARRAY<int",
                10,
                0,
                "expected `>`, but the type `ARRAY<int` ends here",
            ),
            (
                "decimal(10",
                11,
                0,
                "expected `)`, but the type `decimal(10` ends here",
            ),
            ("int int", 5, 1, "unexpected `i` after the type"),
            ("", 1, 0, "expected a type name, but the type `` ends here"),
            (
                "STRUCT<a INT NOT>",
                17,
                1,
                "expected `NULL` after `NOT`, found `>`",
            ),
        ];
        for &(s, offset, len, message) in cases {
            let e = parse(s).unwrap_err();
            assert_eq!(
                (e.span.offset, e.span.len, e.message.as_str()),
                (offset, len, message),
                "{s}"
            );
            assert_eq!(e.kind, SchemaFileErrorKind::UnknownType);
        }
        let e = parse("lnog").unwrap_err();
        assert_eq!(e.help.as_deref(), Some("did you mean `long`?"));
        assert_eq!(parse("blob").unwrap_err().help.as_deref(), Some(TYPE_HELP));
        let deep = format!("{}int{}", "ARRAY<".repeat(100), ">".repeat(100));
        assert_eq!(
            parse(&deep).unwrap_err().message,
            "this type is nested too deeply"
        );
    }
}
