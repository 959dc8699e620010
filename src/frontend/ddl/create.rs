//! `CREATE TABLE`: columns, partitioning, location and table properties.
//!
//! Spark: `CREATE TABLE [IF NOT EXISTS] t (cols) [USING iceberg] [PARTITIONED BY (terms)]
//! [LOCATION '...'] [COMMENT '...'] [TBLPROPERTIES ('k'='v', ...)]`, clauses in any order.
//! Trino: `CREATE TABLE [IF NOT EXISTS] t (cols) [COMMENT '...'] [WITH (format_version = 2,
//! partitioning = ARRAY['bucket(id, 16)'], location = '...')]`. Hive adds `EXTERNAL`,
//! `STORED BY ICEBERG` and `PARTITIONED BY SPEC (terms)`.
//!
//! Partition terms become Iceberg transform strings (`identity`, `bucket[16]`, `truncate[4]`,
//! `year`, `month`, `day`, `hour`, `void`), whichever engine's spelling they were written in.

use sqlparser::tokenizer::{Token, Tokenizer};

use crate::change::{CreateTable, NewField, PartitionTerm, Span, Statement, StatementKind};
use crate::frontend::ddl::cursor::{Cursor, PResult, PathSpan};
use crate::frontend::ddl::dialect::Dialect;
use crate::frontend::ddl::error::{DdlError, DdlErrorKind};
use crate::frontend::ddl::lines;
use crate::frontend::ddl::statement::{DefContext, Stmt, column_def};
use crate::frontend::ddl::types::parse_type;

pub(crate) fn create_table(cx: &mut Stmt) -> PResult<Statement> {
    cx.cur.eat_word("create");
    cx.cur.eat_word("external");
    cx.cur.eat_word("table");
    // `IF NOT EXISTS` may leave an existing table alone; the statement is checked as the
    // table it would create.
    cx.cur.eat_words(&["if", "not", "exists"]);
    let table = cx.table()?;
    let next = cx.cur.peek();
    if next.is_word("as") || next.is_word("like") {
        return Err(cx.unsupported(
            "tables created from a query or from another table",
            next.span.offset,
        ));
    }
    let mut create = CreateTable {
        fields: Vec::new(),
        partition_by: Vec::new(),
        properties: Vec::new(),
        location: None,
    };
    cx.cur.expect(&Token::LParen)?;
    loop {
        let next = cx.cur.peek();
        if cx.cur.at_words(&["primary", "key"])
            || next.is_word("constraint")
            || next.is_word("like")
        {
            return Err(cx.unsupported("table constraints and LIKE clauses", next.span.offset));
        }
        let def = column_def(cx, DefContext::Create)?;
        create.fields.push(NewField {
            name: def.path.path.leaf().to_string(),
            field_type: def.ty.ty,
            required: def.required,
            doc: def.doc,
        });
        if cx.cur.eat(&Token::Comma).is_none() {
            break;
        }
    }
    cx.cur.expect(&Token::RParen)?;
    clauses(cx, &mut create)?;
    Ok(cx.statement(table, StatementKind::CreateTable(create)))
}

/// The clauses after the column list, in any order (Spark accepts any order; Trino has only
/// `COMMENT` and `WITH`).
fn clauses(cx: &mut Stmt, create: &mut CreateTable) -> PResult<()> {
    let spark = cx.dialect().is_spark_like();
    loop {
        let next = cx.cur.peek();
        if cx.cur.eat_word("comment").is_some() {
            let (comment, _) = cx.cur.string("a comment string")?;
            // Iceberg keeps a table comment as the `comment` table property.
            create.properties.push(("comment".into(), comment));
        } else if spark && cx.cur.eat_word("using").is_some() {
            iceberg_provider(cx)?;
        } else if spark && cx.cur.eat_words(&["partitioned", "by"]).is_some() {
            spark_partitioned_by(cx, create)?;
        } else if spark && cx.cur.eat_word("location").is_some() {
            create.location = Some(cx.cur.string("a location string")?.0);
        } else if spark && cx.cur.eat_word("tblproperties").is_some() {
            create.properties.extend(spark_properties(cx)?);
        } else if spark && cx.cur.eat_word("options").is_some() {
            // Data-source options configure reads and writes, not the table's schema.
            spark_properties(cx)?;
        } else if cx.dialect() == Dialect::Hive && cx.cur.eat_words(&["stored", "by"]).is_some() {
            // `STORED BY ICEBERG` or the storage handler's class name.
            if cx.cur.string("a storage handler").is_err() {
                cx.cur.name("a storage handler")?;
            }
        } else if cx.dialect() == Dialect::Hive && cx.cur.eat_words(&["stored", "as"]).is_some() {
            let format = cx.cur.name("a file format")?;
            create.properties.push((
                "write.format.default".into(),
                format.value.to_ascii_lowercase(),
            ));
        } else if cx.dialect() == Dialect::Trino && cx.cur.eat_word("with").is_some() {
            trino_properties(cx, create)?;
        } else if next.is_word("as") {
            return Err(cx.unsupported("tables created from a query", next.span.offset));
        } else if next.token == Token::EOF {
            return Ok(());
        } else {
            let word = next.keyword().unwrap_or_default().to_ascii_uppercase();
            let what = if word.is_empty() {
                "this CREATE TABLE clause".to_string()
            } else {
                format!("the `{word}` clause of CREATE TABLE")
            };
            return Err(cx.unsupported(&what, next.span.offset));
        }
    }
}

/// `USING provider`: only Iceberg tables are modelled.
fn iceberg_provider(cx: &mut Stmt) -> PResult<()> {
    let provider = cx.cur.name("a table provider")?;
    if provider.value.eq_ignore_ascii_case("iceberg") {
        return Ok(());
    }
    Err(DdlError::new(
        DdlErrorKind::Unsupported,
        provider.span,
        format!(
            "fieldgate models Iceberg tables, not `{}` tables",
            provider.value
        ),
    )
    .with_help("create the table `USING iceberg`"))
}

/// The terms of `PARTITIONED BY (...)` (Hive's `PARTITIONED BY SPEC (...)` declares no columns).
fn spark_partitioned_by(cx: &mut Stmt, create: &mut CreateTable) -> PResult<()> {
    let hive_spec = cx.dialect() == Dialect::Hive && cx.cur.eat_word("spec").is_some();
    cx.cur.expect(&Token::LParen)?;
    loop {
        let term = spark_partition_term(cx, create, !hive_spec)?;
        create.partition_by.push(term);
        if cx.cur.eat(&Token::Comma).is_none() {
            break;
        }
    }
    cx.cur.expect(&Token::RParen)?;
    Ok(())
}

/// Spark's `PARTITIONED BY` term: `col`, `a.b`, `transform(args)`, or (Hive style, when
/// `typed_columns`) `col type`, which also declares the column.
fn spark_partition_term(
    cx: &mut Stmt,
    create: &mut CreateTable,
    typed_columns: bool,
) -> PResult<PartitionTerm> {
    let head = cx.cur.path("a partition column or transform")?;
    if head.path.0.len() == 1 && cx.cur.at(&Token::LParen) {
        return transform(&mut cx.cur, &head, SPARK_TRANSFORMS);
    }
    if typed_columns && !cx.cur.at(&Token::Comma) && !cx.cur.at(&Token::RParen) {
        let ty = parse_type(&mut cx.cur)?;
        let doc = match cx.cur.eat_word("comment") {
            Some(_) => Some(cx.cur.string("a comment string")?.0),
            None => None,
        };
        create.fields.push(NewField {
            name: head.path.leaf().to_string(),
            field_type: ty.ty,
            required: false,
            doc,
        });
    }
    Ok(PartitionTerm {
        transform: "identity".into(),
        column: head.path.dotted(),
    })
}

/// How an engine writes a transform: its names, and whether the width comes first.
pub(crate) struct Transforms {
    names: &'static [(&'static str, &'static str)],
    help: &'static str,
}

pub(crate) const SPARK_TRANSFORMS: &Transforms = &Transforms {
    names: &[
        ("identity", "identity"),
        ("bucket", "bucket"),
        ("truncate", "truncate"),
        ("year", "year"),
        ("years", "year"),
        ("month", "month"),
        ("months", "month"),
        ("day", "day"),
        ("days", "day"),
        ("date", "day"),
        ("hour", "hour"),
        ("hours", "hour"),
        ("date_hour", "hour"),
    ],
    help: "Iceberg transforms in Spark: bucket(N, col), truncate(W, col), year(col), \
           month(col), day(col), hour(col), or a bare column",
};

const TRINO_TRANSFORMS: &Transforms = &Transforms {
    names: &[
        ("bucket", "bucket"),
        ("truncate", "truncate"),
        ("year", "year"),
        ("month", "month"),
        ("day", "day"),
        ("hour", "hour"),
        ("void", "void"),
    ],
    help: "Iceberg transforms in Trino: 'bucket(col, N)', 'truncate(col, W)', 'year(col)', \
           'month(col)', 'day(col)', 'hour(col)', 'void(col)', or a bare 'col'",
};

/// `name(args)`: one column, plus a width for `bucket` and `truncate` (on either side of the
/// column: Spark writes `bucket(16, id)`, Trino `bucket(id, 16)`).
pub(crate) fn transform(
    cur: &mut Cursor,
    head: &PathSpan,
    known: &Transforms,
) -> PResult<PartitionTerm> {
    let written = head.path.leaf().to_ascii_lowercase();
    let Some(&(_, name)) = known.names.iter().find(|(w, _)| *w == written) else {
        return Err(DdlError::new(
            DdlErrorKind::Invalid,
            head.span,
            format!("unknown partition transform `{}`", head.path.leaf()),
        )
        .with_help(known.help));
    };
    cur.expect(&Token::LParen)?;
    let mut width = None;
    let mut column = None;
    loop {
        if matches!(cur.peek().token, Token::Number(..)) {
            let (n, span) = cur.uint("a width")?;
            if width.replace(n).is_some() {
                return Err(DdlError::syntax(span, "a transform takes one width"));
            }
        } else {
            let path = cur.path("a column name")?;
            if column.replace(path.path.dotted()).is_some() {
                return Err(DdlError::syntax(path.span, "a transform takes one column"));
            }
        }
        if cur.eat(&Token::Comma).is_none() {
            break;
        }
    }
    let close = cur.expect(&Token::RParen)?;
    let span = Span::from_range(head.span.offset, close.end());
    let takes_width = matches!(name, "bucket" | "truncate");
    let Some(column) = column else {
        return Err(DdlError::syntax(
            span,
            format!("`{written}` needs a column"),
        ));
    };
    let transform = match (takes_width, width) {
        (true, Some(n)) if n > 0 => format!("{name}[{n}]"),
        (true, _) => {
            return Err(DdlError::syntax(
                span,
                format!("`{written}` needs a positive width"),
            ));
        }
        (false, None) => name.to_string(),
        (false, Some(_)) => {
            return Err(DdlError::syntax(
                span,
                format!("`{written}` takes only a column"),
            ));
        }
    };
    Ok(PartitionTerm { transform, column })
}

/// Spark's `('key' = 'value', ...)`: keys are strings or dotted names, `=` is optional, values
/// are strings, numbers or booleans.
pub(crate) fn spark_properties(cx: &mut Stmt) -> PResult<Vec<(String, String)>> {
    cx.cur.expect(&Token::LParen)?;
    let mut properties = Vec::new();
    if cx.cur.eat(&Token::RParen).is_some() {
        return Ok(properties);
    }
    loop {
        let key = match cx.cur.string("a property key") {
            Ok((key, _)) => key,
            Err(_) => cx.cur.path("a property key")?.path.dotted(),
        };
        cx.cur.eat(&Token::Eq);
        let value = scalar(&mut cx.cur)?;
        properties.push((key, value));
        if cx.cur.eat(&Token::Comma).is_none() {
            break;
        }
    }
    cx.cur.expect(&Token::RParen)?;
    Ok(properties)
}

/// A property value: a string, a number or a boolean, as text.
pub(crate) fn scalar(cur: &mut Cursor) -> PResult<String> {
    let next = cur.peek();
    match &next.token {
        Token::SingleQuotedString(_) | Token::DoubleQuotedString(_) => {
            Ok(cur.string("a property value")?.0)
        }
        Token::Number(n, _) => {
            let n = n.clone();
            cur.bump();
            Ok(n)
        }
        _ if next.is_word("true") || next.is_word("false") => {
            cur.bump();
            Ok(next.keyword().unwrap_or_default())
        }
        _ => Err(cur.expected("a string, number or boolean")),
    }
}

/// Trino's `WITH (name = value, ...)`. `partitioning` becomes partition terms and `location`
/// the location; `format_version` and `format` are stored under the Iceberg property names
/// (`format-version`, `write.format.default`) so consumers see one vocabulary.
fn trino_properties(cx: &mut Stmt, create: &mut CreateTable) -> PResult<()> {
    cx.cur.expect(&Token::LParen)?;
    loop {
        let name = cx.cur.name("a table property name")?;
        cx.cur.expect(&Token::Eq)?;
        match name.value.to_ascii_lowercase().as_str() {
            "partitioning" => {
                for (text, span) in string_array(&mut cx.cur)? {
                    create
                        .partition_by
                        .push(trino_partition_term(cx, &text, span)?);
                }
            }
            "location" => create.location = Some(cx.cur.string("a location string")?.0),
            "format_version" => {
                create
                    .properties
                    .push(("format-version".into(), scalar(&mut cx.cur)?));
            }
            "format" => {
                create
                    .properties
                    .push(("write.format.default".into(), scalar(&mut cx.cur)?));
            }
            _ if cx.cur.at_word("array") => {
                let start = cx.cur.next_start();
                string_array(&mut cx.cur)?;
                let span = cx.cur.since(start);
                let text = cx.source.text.get(span.offset..span.end()).unwrap_or("");
                create.properties.push((name.value, text.to_string()));
            }
            _ => create.properties.push((name.value, scalar(&mut cx.cur)?)),
        }
        if cx.cur.eat(&Token::Comma).is_none() {
            break;
        }
    }
    cx.cur.expect(&Token::RParen)?;
    Ok(())
}

/// `ARRAY['a', 'b']`: the strings and the span of each literal.
pub(crate) fn string_array(cur: &mut Cursor) -> PResult<Vec<(String, Span)>> {
    cur.expect_word("array")?;
    cur.expect(&Token::LBracket)?;
    let mut items = Vec::new();
    if cur.eat(&Token::RBracket).is_some() {
        return Ok(items);
    }
    loop {
        items.push(cur.string("a string")?);
        if cur.eat(&Token::Comma).is_none() {
            break;
        }
    }
    cur.expect(&Token::RBracket)?;
    Ok(items)
}

/// One `partitioning` entry, a little expression inside a string (`'bucket(id, 16)'`, `'ts'`,
/// `'"Quoted col"'`): tokenized on its own, with locations moved onto the literal so errors
/// point inside it (exactly, unless the literal contains escaped quotes).
pub(crate) fn trino_partition_term(cx: &Stmt, text: &str, literal: Span) -> PResult<PartitionTerm> {
    let invalid = || {
        DdlError::new(
            DdlErrorKind::Invalid,
            literal,
            format!("`{text}` is not a partition term"),
        )
        .with_help(TRINO_TRANSFORMS.help)
    };
    let lines = cx.cur.lines();
    let base = lines.location(literal.offset + 1);
    let Ok(tokens) = Tokenizer::new(Dialect::Trino.sql(), text).tokenize_with_location() else {
        return Err(invalid());
    };
    let tokens = tokens
        .into_iter()
        .map(|mut t| {
            t.span.start = lines::rebase(t.span.start, base);
            t.span.end = lines::rebase(t.span.end, base);
            t
        })
        .collect();
    let inner_end = literal.end().saturating_sub(1).max(literal.offset);
    let mut cur = Cursor::new(tokens, Dialect::Trino, lines, literal.offset, inner_end);
    if cur.at_end() {
        return Err(invalid());
    }
    let head = cur.path("a partition column or transform")?;
    let term = if head.path.0.len() == 1 && cur.at(&Token::LParen) {
        transform(&mut cur, &head, TRINO_TRANSFORMS)?
    } else {
        PartitionTerm {
            transform: "identity".into(),
            column: head.path.dotted(),
        }
    };
    if !cur.at_end() {
        return Err(cur.expected("the end of the partition term"));
    }
    Ok(term)
}
