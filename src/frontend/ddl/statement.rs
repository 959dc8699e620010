//! One statement: which form it is, and the pieces several forms share (column definitions,
//! `FIRST` / `AFTER` positions, the error for statements fieldgate does not model).

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::Token;

use crate::change::{
    Change, ChangeKind, FieldPath, Origin, Position, Source, Span, Statement, StatementKind,
};
use crate::frontend::ddl::cursor::{Cursor, PResult, PathSpan};
use crate::frontend::ddl::dialect::Dialect;
use crate::frontend::ddl::error::{DdlError, DdlErrorKind};
use crate::frontend::ddl::types::{ParsedType, parse_type};
use crate::frontend::ddl::{alter, create, session};

/// The statement being parsed: its tokens, its file and its span (first to last token).
pub(crate) struct Stmt<'a> {
    pub cur: Cursor<'a>,
    pub source: &'a Source,
    pub span: Span,
    /// The namespace of the last `USE`, which qualifies a table named by one part.
    pub namespace: Option<&'a str>,
}

/// What one statement is: a statement about a table, or one about the session (`USE`, `SET`,
/// `RESET`, a `CALL` without a table), which changes no table and is listed with the table
/// statement after it; a `USE` also gives the namespace of the statements after it.
pub(crate) enum Parsed {
    Statement(Statement),
    Session {
        listed: Change,
        namespace: Option<String>,
    },
}

impl Stmt<'_> {
    pub(crate) fn dialect(&self) -> Dialect {
        self.cur.dialect
    }

    pub(crate) fn change(&self, kind: ChangeKind, focus: Span) -> Change {
        Change {
            kind,
            origin: Origin {
                source: self.source.clone(),
                statement: self.span,
                focus,
            },
        }
    }

    pub(crate) fn statement(&self, table: Table, kind: StatementKind) -> Statement {
        Statement {
            table: table.name,
            table_span: table.span,
            span: self.span,
            source: self.source.clone(),
            kind,
        }
    }

    /// A table name as written (`db.t`, quotes kept) and its span.
    pub(crate) fn table(&mut self) -> PResult<Table> {
        let start = self.cur.next_start();
        let parts = self.cur.object_name("a table name")?;
        let name = match self.namespace {
            Some(namespace) if parts.len() == 1 => format!("{namespace}.{}", join_written(&parts)),
            _ => join_written(&parts),
        };
        Ok(Table {
            name,
            span: self.cur.since(start),
        })
    }

    /// "fieldgate does not model ...": a statement, or the part of one starting at `from`.
    pub(crate) fn unsupported(&self, what: &str, from: usize) -> DdlError {
        DdlError::new(
            DdlErrorKind::Unsupported,
            Span::from_range(from, self.span.end()),
            format!("fieldgate does not model {what}"),
        )
        .with_help(format!(
            "fieldgate checks CREATE TABLE, ALTER TABLE (columns, partition fields, write \
             orders, table properties, branches and tags), USE, SET, {}and Iceberg's \
             maintenance procedures, and reports any other statement rather than skip it",
            match self.dialect() {
                Dialect::Trino => "",
                Dialect::Spark | Dialect::Hive => "REFRESH TABLE ",
            }
        ))
    }
}

pub(crate) struct Table {
    pub name: String,
    pub span: Span,
}

pub(crate) fn join_written(parts: &[crate::frontend::ddl::cursor::NamePart]) -> String {
    parts
        .iter()
        .map(|p| p.written.as_str())
        .collect::<Vec<_>>()
        .join(".")
}

/// Parses one statement (the tokens between two `;`), which must be consumed entirely.
pub(crate) fn statement(cx: &mut Stmt) -> PResult<Parsed> {
    let dialect = cx.dialect();
    if let Some(parsed) = session::session_statement(cx)? {
        if !cx.cur.at_end() {
            return Err(cx.cur.expected("the end of the statement"));
        }
        return Ok(parsed);
    }
    let parsed = if cx.cur.at_words(&["alter", "table"]) {
        alter::alter_table(cx)?
    } else if cx.cur.at_words(&["create", "table"])
        || (dialect == Dialect::Hive && cx.cur.at_words(&["create", "external", "table"]))
    {
        create::create_table(cx)?
    } else if dialect != Dialect::Hive && cx.cur.at_words(&["comment", "on", "column"]) {
        comment_on_column(cx)?
    } else {
        return Err(unsupported_statement(cx));
    };
    if !cx.cur.at_end() {
        return Err(cx.cur.expected("the end of the statement"));
    }
    Ok(Parsed::Statement(parsed))
}

/// Words that end a statement's name: `DROP TABLE t`, not `DROP TABLE IF EXISTS`.
const OBJECT_WORDS: &[&str] = &[
    "table",
    "view",
    "into",
    "database",
    "schema",
    "namespace",
    "function",
    "index",
];

/// The error for a statement we do not model. A statement led by keywords is named by them
/// (`INSERT INTO`); anything else goes to sqlparser, whose error, if any, says what is wrong.
fn unsupported_statement(cx: &mut Stmt) -> DdlError {
    let mut words = Vec::new();
    for i in 0..4 {
        let tok = cx.cur.peek_nth(i);
        match tok.word() {
            Some(w) if w.quote_style.is_none() && w.keyword != Keyword::NoKeyword => {
                words.push(w.value.to_ascii_uppercase());
                if OBJECT_WORDS.contains(&w.value.to_ascii_lowercase().as_str()) {
                    break;
                }
            }
            _ => break,
        }
    }
    if !words.is_empty() {
        return cx.unsupported(&format!("`{}` statements", words.join(" ")), cx.span.offset);
    }
    match cx.cur.sqlparser_statement() {
        Ok(()) => cx.unsupported("this statement", cx.span.offset),
        Err((span, message)) => DdlError::syntax(span, sqlparser_message(&message)),
    }
}

/// sqlparser says `Expected: X, found: Y`; we say "expected X, found `Y`".
fn sqlparser_message(message: &str) -> String {
    match message
        .strip_prefix("Expected: ")
        .and_then(|m| m.split_once(", found: "))
    {
        Some((expected, "EOF")) => {
            format!("expected {expected}, found the end of the statement")
        }
        Some((expected, found)) => format!("expected {expected}, found `{found}`"),
        None => message.to_string(),
    }
}

/// Trino's and Spark's `COMMENT ON COLUMN t.c IS 'text' | NULL`: a doc change on a top-level column.
fn comment_on_column(cx: &mut Stmt) -> PResult<Statement> {
    cx.cur.eat_words(&["comment", "on", "column"]);
    let start = cx.cur.next_start();
    let parts = cx.cur.object_name("a column name (`table.column`)")?;
    let Some((column, table_parts)) = parts.split_last().filter(|(_, t)| !t.is_empty()) else {
        return Err(DdlError::syntax(
            cx.cur.since(start),
            "expected a column name qualified by its table (`table.column`)",
        ));
    };
    let table = Table {
        name: join_written(table_parts),
        span: Span::from_range(start, table_parts.last().map_or(start, |p| p.span.end())),
    };
    cx.cur.expect_word("is")?;
    let doc = if cx.cur.eat_word("null").is_some() {
        None
    } else {
        Some(cx.cur.string("a comment string or NULL")?.0)
    };
    let change = cx.change(
        ChangeKind::UpdateDoc {
            path: FieldPath(vec![column.value.clone()]),
            doc,
        },
        column.span,
    );
    Ok(cx.statement(table, StatementKind::Alter(vec![change])))
}

/// A column definition: `name type` and its clauses, in any order as Spark 3.4+ accepts them.
pub(crate) struct ColumnDef {
    pub path: PathSpan,
    pub ty: ParsedType,
    pub required: bool,
    pub doc: Option<String>,
    pub position: Option<RawPosition>,
}

impl ColumnDef {
    /// The name and type: where a finding about the new column points.
    pub(crate) fn focus(&self) -> Span {
        Span::from_range(self.path.span.offset, self.ty.span.end())
    }
}

/// Which clauses a column definition may have where it appears.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum DefContext {
    /// `ADD COLUMN`: a dotted path, and a position.
    Add,
    /// `CREATE TABLE`: a top-level name, no position.
    Create,
}

pub(crate) fn column_def(cx: &mut Stmt, context: DefContext) -> PResult<ColumnDef> {
    let path = match context {
        DefContext::Add => cx.cur.path("a column name")?,
        DefContext::Create => {
            let name = cx.cur.name("a column name")?;
            PathSpan {
                path: FieldPath(vec![name.value]),
                span: name.span,
            }
        }
    };
    let ty = parse_type(&mut cx.cur)?;
    let mut def = ColumnDef {
        path,
        ty,
        required: false,
        doc: None,
        position: None,
    };
    let mut seen_not_null = false;
    loop {
        let next = cx.cur.peek();
        if let Some(span) = cx.cur.eat_words(&["not", "null"]) {
            once(&mut seen_not_null, span, "NOT NULL")?;
            def.required = true;
        } else if let Some(span) = cx.cur.eat_word("comment") {
            if def.doc.is_some() {
                return Err(twice(span, "COMMENT"));
            }
            def.doc = Some(cx.cur.string("a comment string")?.0);
        } else if context == DefContext::Add && is_position_start(&cx.cur) {
            if def.position.is_some() {
                return Err(twice(next.span, "a position"));
            }
            def.position = Some(position(cx)?);
        } else if next.is_word("default") || next.is_word("generated") {
            return Err(DdlError::new(
                DdlErrorKind::Unsupported,
                next.span,
                "fieldgate does not model column default values or generated columns",
            ));
        } else if cx.dialect() == Dialect::Trino && next.is_word("with") {
            return Err(DdlError::new(
                DdlErrorKind::Unsupported,
                next.span,
                "fieldgate does not model column properties",
            ));
        } else {
            return Ok(def);
        }
    }
}

fn once(seen: &mut bool, span: Span, what: &str) -> PResult<()> {
    if std::mem::replace(seen, true) {
        return Err(twice(span, what));
    }
    Ok(())
}

fn twice(span: Span, what: &str) -> DdlError {
    DdlError::syntax(span, format!("{what} is given twice for this column"))
}

/// A position clause as written, before it is checked against the column it moves.
pub(crate) enum RawPosition {
    First(Span),
    After {
        sibling: PathSpan,
        clause: Span,
    },
    /// Trino's `LAST`: the default place for a new column.
    Last(Span),
}

impl RawPosition {
    pub(crate) fn clause(&self) -> Span {
        match self {
            RawPosition::First(span) | RawPosition::Last(span) => *span,
            RawPosition::After { clause, .. } => *clause,
        }
    }
}

pub(crate) fn is_position_start(cur: &Cursor) -> bool {
    cur.at_word("first")
        || cur.at_word("after")
        || (cur.dialect == Dialect::Trino && cur.at_word("last"))
}

/// `FIRST`, `AFTER x` (or Trino's `LAST`).
pub(crate) fn position(cx: &mut Stmt) -> PResult<RawPosition> {
    if let Some(span) = cx.cur.eat_word("first") {
        return Ok(RawPosition::First(span));
    }
    if cx.dialect() == Dialect::Trino
        && let Some(span) = cx.cur.eat_word("last")
    {
        return Ok(RawPosition::Last(span));
    }
    let start = cx.cur.expect_word("after")?.offset;
    // Every engine's grammar takes one identifier here: the sibling, never a path to it.
    let sibling = cx.cur.path("a column name")?;
    if sibling.path.0.len() > 1 {
        return Err(DdlError::syntax(
            sibling.span,
            format!(
                "{} names the column after `AFTER` alone, not by its path",
                cx.dialect().title()
            ),
        )
        .with_help(format!("write `AFTER {}`", sibling.path.leaf())));
    }
    Ok(RawPosition::After {
        sibling,
        clause: cx.cur.since(start),
    })
}

/// The position a clause gives (none for Trino's `LAST`, where a new column goes anyway).
pub(crate) fn resolve_position(raw: &RawPosition) -> Option<Position> {
    match raw {
        RawPosition::First(_) => Some(Position::First),
        RawPosition::Last(_) => None,
        RawPosition::After { sibling, .. } => {
            Some(Position::After(sibling.path.leaf().to_string()))
        }
    }
}

/// A comma-separated list in optional parentheses (Spark's `ADD COLUMNS (a int, b int)` and
/// `ADD COLUMNS a int, b int`).
pub(crate) fn maybe_parenthesised<T>(
    cx: &mut Stmt,
    mut item: impl FnMut(&mut Stmt) -> PResult<T>,
) -> PResult<Vec<T>> {
    let parens = cx.cur.eat(&Token::LParen).is_some();
    let mut items = vec![item(cx)?];
    while cx.cur.eat(&Token::Comma).is_some() {
        items.push(item(cx)?);
    }
    if parens {
        cx.cur.expect(&Token::RParen)?;
    }
    Ok(items)
}
