//! `ALTER TABLE` column changes, as Spark (with the Iceberg SQL extensions), Trino and Hive write
//! them, each turned into the `Change`s Iceberg's `UpdateSchema` would receive.
//!
//! All paths of one statement name fields as they were before the statement, as in Iceberg's
//! `UpdateSchema`: Hive's `CHANGE a b bigint` is a rename of `a` and a type change of `a`.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::Token;

use crate::change::{Change, ChangeKind, NewField, Span, Statement, StatementKind};
use crate::frontend::ddl::cursor::{PResult, PathSpan};
use crate::frontend::ddl::dialect::Dialect;
use crate::frontend::ddl::error::{DdlError, DdlErrorKind};
use crate::frontend::ddl::statement::{
    DefContext, RawPosition, Stmt, column_def, is_position_start, maybe_parenthesised, position,
    resolve_position,
};
use crate::frontend::ddl::table_actions::table_action;
use crate::frontend::ddl::types::{ParsedType, parse_type};
use crate::iceberg::names::same_name;
use crate::iceberg::types::Type;

pub(crate) fn alter_table(cx: &mut Stmt) -> PResult<Statement> {
    cx.cur.eat_words(&["alter", "table"]);
    if cx.dialect() == Dialect::Trino {
        cx.cur.eat_words(&["if", "exists"]);
    }
    let table = cx.table()?;
    let spark = cx.dialect().is_spark_like();
    let cur = &cx.cur;
    // `COLUMNS` goes to the same parsers under Trino, which then say it must be `COLUMN`.
    let changes = if cur.at_words(&["add", "column"]) || cur.at_words(&["add", "columns"]) {
        add_columns(cx)?
    } else if cur.at_words(&["drop", "column"]) || cur.at_words(&["drop", "columns"]) {
        drop_columns(cx)?
    } else if cur.at_words(&["rename", "column"]) {
        rename_column(cx)?
    } else if spark && cur.at_words(&["set", "identifier", "fields"]) {
        identifier_fields(cx, true)?
    } else if spark && cur.at_words(&["drop", "identifier", "fields"]) {
        identifier_fields(cx, false)?
    } else if cur.at_words(&["alter", "column"]) || (spark && cur.at_word("alter")) {
        alter_column(cx)?
    } else if spark && cur.at_word("change") {
        change_column(cx)?
    } else if let Some(changes) = table_action(cx)? {
        changes
    } else {
        return Err(unsupported_action(cx));
    };
    Ok(cx.statement(table, StatementKind::Alter(changes)))
}

/// `ALTER TABLE t ADD PARTITION FIELD ...` and the like: named by the action's leading keywords.
fn unsupported_action(cx: &Stmt) -> DdlError {
    // Iceberg extension words sqlparser does not count as keywords.
    const EXTRA: &[&str] = &[
        "identifier",
        "field",
        "fields",
        "properties",
        "ordered",
        "unordered",
        "distributed",
        "locally",
    ];
    let mut words = Vec::new();
    for i in 0..3 {
        let tok = cx.cur.peek_nth(i);
        let Some(w) = tok.word().filter(|w| w.quote_style.is_none()) else {
            break;
        };
        let lower = w.value.to_ascii_lowercase();
        if w.keyword == Keyword::NoKeyword && !EXTRA.contains(&lower.as_str()) {
            break;
        }
        words.push(w.value.to_ascii_uppercase());
    }
    let from = cx.cur.next_start();
    if words.is_empty() {
        return cx.cur.expected("an ALTER TABLE action");
    }
    cx.unsupported(&format!("`ALTER TABLE ... {}`", words.join(" ")), from)
}

/// `ADD COLUMN c type ...`; Spark also `ADD COLUMNS (c type, ...)` with or without parentheses;
/// Trino `ADD COLUMN [IF NOT EXISTS] c type`.
fn add_columns(cx: &mut Stmt) -> PResult<Vec<Change>> {
    cx.cur.eat_word("add");
    column_or_columns(cx)?;
    let defs = if cx.dialect() == Dialect::Trino {
        // `IF NOT EXISTS` makes an existing column a no-op; the Change model has no flag for it,
        // so the add is checked as if the column were new.
        cx.cur.eat_words(&["if", "not", "exists"]);
        vec![column_def(cx, DefContext::Add)?]
    } else {
        let defs = maybe_parenthesised(cx, |cx| column_def(cx, DefContext::Add))?;
        hive_cascade(cx)?;
        defs
    };
    let mut changes = Vec::with_capacity(defs.len());
    for def in defs {
        let parent = def.path.path.parent();
        let position = match &def.position {
            Some(raw) => resolve_position(raw),
            None => None,
        };
        let focus = def.focus();
        let field = NewField {
            name: def.path.path.leaf().to_string(),
            field_type: def.ty.ty,
            required: def.required,
            doc: def.doc,
        };
        changes.push(cx.change(
            ChangeKind::AddField {
                parent,
                field,
                position,
            },
            focus,
        ));
    }
    Ok(changes)
}

/// `COLUMN`, or in Spark and Hive also `COLUMNS`.
fn column_or_columns(cx: &mut Stmt) -> PResult<()> {
    if cx.dialect().is_spark_like() && cx.cur.eat_word("columns").is_some() {
        return Ok(());
    }
    cx.cur.expect_word("column").map(|_| ())
}

/// `DROP COLUMN [IF EXISTS] p`; Spark also `DROP COLUMNS [IF EXISTS] (a, b)` / `a, b`.
fn drop_columns(cx: &mut Stmt) -> PResult<Vec<Change>> {
    cx.cur.eat_word("drop");
    column_or_columns(cx)?;
    let if_exists = cx.cur.eat_words(&["if", "exists"]).is_some();
    let paths = if cx.dialect() == Dialect::Trino {
        vec![cx.cur.path("a column name")?]
    } else {
        maybe_parenthesised(cx, |cx| cx.cur.path("a column name"))?
    };
    Ok(paths
        .into_iter()
        .map(|p| {
            cx.change(
                ChangeKind::Drop {
                    path: p.path,
                    if_exists,
                },
                p.span,
            )
        })
        .collect())
}

/// `RENAME COLUMN a.b TO c` renames the leaf `b`; Trino also `RENAME COLUMN IF EXISTS`.
fn rename_column(cx: &mut Stmt) -> PResult<Vec<Change>> {
    cx.cur.eat_words(&["rename", "column"]);
    if cx.dialect() == Dialect::Trino {
        // As for ADD COLUMN IF NOT EXISTS: checked as if the column exists.
        cx.cur.eat_words(&["if", "exists"]);
    }
    let path = cx.cur.path("a column name")?;
    cx.cur.expect_word("to")?;
    let new_name = cx.cur.name("the new column name")?;
    if cx.cur.at(&Token::Period) {
        let start = new_name.span.offset;
        while cx.cur.eat(&Token::Period).is_some() {
            cx.cur.name("a field name after `.`")?;
        }
        return Err(DdlError::new(
            DdlErrorKind::Invalid,
            cx.cur.since(start),
            "a renamed field keeps its place: the new name is a single name, not a path",
        )
        .with_help(format!(
            "write `RENAME COLUMN {} TO <new leaf name>`",
            path.path.dotted()
        )));
    }
    Ok(vec![rename(cx, &path, new_name.value)])
}

fn rename(cx: &Stmt, path: &PathSpan, new_name: String) -> Change {
    cx.change(
        ChangeKind::Rename {
            path: path.path.clone(),
            new_name,
        },
        path.span,
    )
}

/// `SET IDENTIFIER FIELDS a, b` / `DROP IDENTIFIER FIELDS a, b` (Iceberg's Spark extensions).
fn identifier_fields(cx: &mut Stmt, set: bool) -> PResult<Vec<Change>> {
    cx.cur.bump();
    cx.cur.eat_words(&["identifier", "fields"]);
    let paths = cx.cur.paths("a column name")?;
    let focus = match (paths.first(), paths.last()) {
        (Some(first), Some(last)) => Span::from_range(first.span.offset, last.span.end()),
        _ => cx.span,
    };
    let paths = paths.into_iter().map(|p| p.path).collect();
    let kind = if set {
        ChangeKind::SetIdentifierFields { paths }
    } else {
        ChangeKind::DropIdentifierFields { paths }
    };
    Ok(vec![cx.change(kind, focus)])
}

/// `ALTER [COLUMN] p <action>` (Spark's `COLUMN` is optional, Trino's is not).
fn alter_column(cx: &mut Stmt) -> PResult<Vec<Change>> {
    cx.cur.eat_word("alter");
    if cx.cur.eat_word("column").is_none() && cx.dialect() == Dialect::Trino {
        return Err(cx.cur.expected("`COLUMN`"));
    }
    let path = cx.cur.path("a column name")?;
    let mut changes = column_action(cx, &path)?;
    // Spark 4 takes several columns in one statement: `ALTER COLUMN a COMMENT 'x', b TYPE int`.
    while cx.dialect().is_spark_like() && cx.cur.eat(&Token::Comma).is_some() {
        let path = cx.cur.path("a column name")?;
        changes.extend(column_action(cx, &path)?);
    }
    Ok(changes)
}

/// The words that start an `ALTER COLUMN` action (Spark's `CHANGE c <action>` uses them too).
const ACTION_WORDS: &[&str] = &["type", "comment", "first", "after", "set", "drop"];

/// What `ALTER COLUMN p` does: `TYPE t [COMMENT 'x']`, `SET DATA TYPE t`, `COMMENT 'x'`,
/// `FIRST` / `AFTER x`, `SET NOT NULL`, `DROP NOT NULL`.
fn column_action(cx: &mut Stmt, path: &PathSpan) -> PResult<Vec<Change>> {
    let next = cx.cur.peek();
    let spark = cx.dialect().is_spark_like();
    if spark && cx.cur.at_words(&["set", "data", "type"]) {
        return Err(DdlError::syntax(
            cx.cur.peek_nth(1).span,
            "`SET DATA TYPE` is Trino's; Spark changes a type with `ALTER COLUMN c TYPE t`",
        )
        .with_help(format!(
            "write `ALTER COLUMN {} TYPE ...`",
            path.path.dotted()
        )));
    }
    if cx.cur.eat_word("type").is_some() || cx.cur.eat_words(&["set", "data", "type"]).is_some() {
        let ty = new_type(cx)?;
        let changes = vec![update_type(cx, path, ty)?];
        if spark && cx.cur.at_word("comment") {
            return Err(DdlError::syntax(
                cx.cur.peek().span,
                "Spark takes one action per column: a type change ends at its type",
            )
            .with_help(format!(
                "change the comment in its own clause: `, {} COMMENT '...'`",
                path.path.dotted()
            )));
        }
        Ok(changes)
    } else if cx.cur.eat_word("comment").is_some() {
        Ok(vec![update_doc(cx, path)?])
    } else if is_position_start(&cx.cur) {
        let raw = position(cx)?;
        Ok(move_to(cx, path, &raw)?.into_iter().collect())
    } else if cx.cur.eat_words(&["set", "not", "null"]).is_some() {
        Ok(vec![set_required(cx, path, true)])
    } else if cx.cur.eat_words(&["drop", "not", "null"]).is_some() {
        Ok(vec![set_required(cx, path, false)])
    } else if (next.is_word("set") || next.is_word("drop")) && cx.cur.peek_nth(1).is_word("default")
    {
        Err(cx.unsupported("column default values", next.span.offset))
    } else {
        Err(cx.cur.expected(
            "`TYPE`, `SET DATA TYPE`, `COMMENT`, `FIRST`, `AFTER`, `SET NOT NULL` or `DROP NOT NULL`",
        ))
    }
}

/// The type a column is changed to. Spark's analyzer allows a change only to a type the column
/// casts up to (`Cast.canUpCast`, else NOT_SUPPORTED_CHANGE_COLUMN), and Spark reads every
/// Iceberg column as `int` or a type that does not cast up to `tinyint`/`smallint`: Iceberg
/// would see `int` (the only width it has) and pass what Spark refuses before it gets there.
fn new_type(cx: &mut Stmt) -> PResult<ParsedType> {
    let head = cx.cur.peek().keyword();
    let ty = parse_type(&mut cx.cur)?;
    match head.as_deref() {
        Some(narrow @ ("tinyint" | "byte" | "smallint" | "short")) if cx.dialect() == Dialect::Spark => {
            Err(DdlError::new(
                DdlErrorKind::Invalid,
                ty.span,
                format!(
                    "Spark refuses a change to `{narrow}` before Iceberg sees it: no Iceberg column \
                     casts up to it (Spark's NOT_SUPPORTED_CHANGE_COLUMN; an Iceberg `int` is Spark's INT)"
                ),
            )
            .with_help(
                "Iceberg stores `tinyint` and `smallint` as `int`: keep the column's type, or add \
                 a new column for narrower values",
            ))
        }
        _ => Ok(ty),
    }
}

fn update_type(cx: &Stmt, path: &PathSpan, ty: ParsedType) -> PResult<Change> {
    match ty.ty {
        Type::Primitive(new_type) => Ok(cx.change(
            ChangeKind::UpdateType {
                path: path.path.clone(),
                new_type,
            },
            ty.span,
        )),
        _ => Err(DdlError::new(
            DdlErrorKind::Invalid,
            ty.span,
            "a column's type can only be changed to a primitive type",
        )
        .with_help(format!(
            "Iceberg evolves structs, lists and maps field by field: ADD COLUMN or DROP COLUMN \
             `{}.<field>` instead",
            path.path.dotted()
        ))),
    }
}

/// Reads the comment string after `COMMENT`.
fn update_doc(cx: &mut Stmt, path: &PathSpan) -> PResult<Change> {
    let (doc, _) = cx.cur.string("a comment string")?;
    Ok(cx.change(
        ChangeKind::UpdateDoc {
            path: path.path.clone(),
            doc: Some(doc),
        },
        path.span,
    ))
}

fn set_required(cx: &Stmt, path: &PathSpan, required: bool) -> Change {
    cx.change(
        ChangeKind::SetRequired {
            path: path.path.clone(),
            required,
        },
        path.span,
    )
}

/// A move (none for Trino's `LAST`, which is where a new column goes anyway).
fn move_to(cx: &Stmt, path: &PathSpan, raw: &RawPosition) -> PResult<Option<Change>> {
    let Some(position) = resolve_position(raw) else {
        return Ok(None);
    };
    Ok(Some(cx.change(
        ChangeKind::Move {
            path: path.path.clone(),
            position,
        },
        raw.clause(),
    )))
}

/// `CHANGE [COLUMN] ...`. Spark: `CHANGE c <ALTER COLUMN action>`, or Hive's form
/// `CHANGE c c type [COMMENT 'x'] [FIRST | AFTER x]` without a rename. Hive:
/// `CHANGE [COLUMN] old new type [COMMENT 'x'] [FIRST | AFTER x] [CASCADE | RESTRICT]`.
fn change_column(cx: &mut Stmt) -> PResult<Vec<Change>> {
    cx.cur.eat_word("change");
    cx.cur.eat_word("column");
    let path = cx.cur.path("a column name")?;
    let hive = cx.dialect() == Dialect::Hive;
    if !hive && ACTION_WORDS.iter().any(|w| cx.cur.at_word(w)) {
        let mut changes = column_action(cx, &path)?;
        while cx.cur.eat(&Token::Comma).is_some() {
            let path = cx.cur.path("a column name")?;
            changes.extend(column_action(cx, &path)?);
        }
        return Ok(changes);
    }
    let new_name = cx.cur.name("the new column name")?;
    let ty = new_type(cx)?;
    // Spark's resolver compares the two names: `CHANGE c C bigint` is no rename.
    let renamed = !same_name(&new_name.value, path.path.leaf());
    if renamed && !hive {
        return Err(DdlError::new(
            DdlErrorKind::Invalid,
            new_name.span,
            "Spark does not rename columns with `CHANGE COLUMN old new type`",
        )
        .with_help(format!(
            "rename with `RENAME COLUMN {} TO {}`",
            path.path.dotted(),
            new_name.value
        )));
    }
    let mut changes = Vec::new();
    if renamed {
        changes.push(rename(cx, &path, new_name.value));
    }
    // The old type is not known here: the type change is emitted even when the type is the
    // same, which Iceberg treats as no change.
    changes.push(update_type(cx, &path, ty)?);
    if cx.cur.eat_word("comment").is_some() {
        changes.push(update_doc(cx, &path)?);
    }
    if is_position_start(&cx.cur) {
        let raw = position(cx)?;
        changes.extend(move_to(cx, &path, &raw)?);
    }
    hive_cascade(cx)?;
    Ok(changes)
}

/// Hive's `CASCADE` / `RESTRICT` after `ADD COLUMNS` and `CHANGE COLUMN` (its partition-metadata
/// switch, nothing to do with the Iceberg schema). Spark's grammar has neither there.
fn hive_cascade(cx: &mut Stmt) -> PResult<()> {
    let next = cx.cur.peek();
    if !next.is_word("cascade") && !next.is_word("restrict") {
        return Ok(());
    }
    if cx.dialect() == Dialect::Hive {
        cx.cur.bump();
        return Ok(());
    }
    Err(DdlError::syntax(
        next.span,
        format!(
            "Spark does not accept {} here: it is Hive's, for partition metadata",
            next.describe()
        ),
    )
    .with_help("remove it; the Iceberg table's schema changes the same without it"))
}
