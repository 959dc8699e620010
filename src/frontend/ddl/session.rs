//! Statements about the session rather than a table's schema: `USE db` (the namespace of the
//! statements after it, as Spark and Trino resolve names), `SET` / `RESET` of session settings,
//! Spark's `REFRESH TABLE` (the session's cache of a table dropped), and `CALL` of Iceberg's
//! stored procedures, which maintain a table without changing its schema
//! or are refused by name when they rewrite data or replace the table's state.

use sqlparser::tokenizer::Token;

use crate::change::{ChangeKind, Span, StatementKind};
use crate::frontend::ddl::cursor::PResult;
use crate::frontend::ddl::dialect::Dialect;
use crate::frontend::ddl::error::{DdlError, DdlErrorKind};
use crate::frontend::ddl::statement::{Parsed, Stmt, Table, join_written};

/// The session statement at the cursor, if it is one.
pub(crate) fn session_statement(cx: &mut Stmt) -> PResult<Option<Parsed>> {
    if cx.cur.eat_word("use").is_some() {
        let parts = cx.cur.object_name("a namespace")?;
        let namespace = join_written(&parts);
        let listed = session_change(cx, format!("USE {namespace}"));
        return Ok(Some(Parsed::Session {
            listed,
            namespace: Some(namespace),
        }));
    }
    if cx.cur.at_word("set") || cx.cur.at_word("reset") {
        // Session settings (`SET spark.sql.x = y`, `SET SESSION ...`, `SET TIME ZONE ...`)
        // change how later statements run, never a table.
        while !cx.cur.at_end() {
            cx.cur.bump();
        }
        let listed = session_change(cx, written(cx));
        return Ok(Some(Parsed::Session {
            listed,
            namespace: None,
        }));
    }
    if cx.cur.at_word("call") {
        return call(cx).map(Some);
    }
    if cx.dialect() != Dialect::Trino
        && let Some(words) = cx.cur.eat_words(&["refresh", "table"])
    {
        // Spark's `REFRESH TABLE t` drops the session's cached metadata of `t`, which is what a
        // reader should do after a schema change; it changes nothing in the table.
        let table = cx.table()?;
        let focus = Span::from_range(words.offset, table.span.end());
        let change = cx.change(
            ChangeKind::NoSchemaEffect {
                statement: "REFRESH TABLE".into(),
            },
            focus,
        );
        return Ok(Some(Parsed::Statement(
            cx.statement(table, StatementKind::Alter(vec![change])),
        )));
    }
    Ok(None)
}

/// How long a session statement's text may be where the report lists it.
const LISTED_CHARS: usize = 120;

/// The statement as the report lists it: its text with each run of white space one space, cut
/// after [`LISTED_CHARS`] characters.
fn written(cx: &Stmt) -> String {
    let text = cx
        .source
        .text
        .get(cx.span.offset..cx.span.end())
        .unwrap_or_default();
    let mut listed = String::new();
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            listed.push(' ');
        }
        listed.push_str(word);
        if listed.chars().count() > LISTED_CHARS {
            let cut: String = listed.chars().take(LISTED_CHARS).collect();
            return format!("{cut}...");
        }
    }
    listed
}

/// A session statement recorded as a change with no effect, at the whole statement.
fn session_change(cx: &Stmt, statement: String) -> crate::change::Change {
    cx.change(ChangeKind::NoSchemaEffect { statement }, cx.span)
}

/// Procedures that maintain a table's files or report on it, without touching its schema,
/// partition spec, sort order or current snapshot.
const NO_SCHEMA_EFFECT: &[&str] = &[
    "expire_snapshots",
    "remove_orphan_files",
    "rewrite_manifests",
    "compute_table_stats",
    "compute_partition_stats",
    "ancestors_of",
    "create_changelog_view",
];

/// Procedures fieldgate refuses, with the reason a reviewer needs.
const REFUSED: &[(&str, &str)] = &[
    ("rewrite_data_files", "rewrites the table's data files"),
    (
        "rewrite_position_delete_files",
        "rewrites the table's delete files",
    ),
    ("add_files", "adds data files written under another schema"),
    (
        "migrate",
        "replaces a table with an Iceberg table of its own schema",
    ),
    ("snapshot", "creates a table with the schema of another"),
    (
        "register_table",
        "registers a table whose schema fieldgate has not judged",
    ),
    (
        "rollback_to_snapshot",
        "moves the table to another snapshot",
    ),
    (
        "rollback_to_timestamp",
        "moves the table to another snapshot",
    ),
    (
        "set_current_snapshot",
        "moves the table to another snapshot",
    ),
    ("cherrypick_snapshot", "commits another snapshot's changes"),
    ("publish_changes", "commits a staged snapshot"),
    ("fast_forward", "moves a branch to another snapshot"),
];

/// `CALL [catalog.]system.procedure(args)`: the table is the `table => '...'` argument or the
/// first positional string.
fn call(cx: &mut Stmt) -> PResult<Parsed> {
    let start = cx.cur.expect_word("call")?.offset;
    let parts = cx.cur.object_name("a procedure name")?;
    let procedure = parts
        .last()
        .map(|p| p.value.to_ascii_lowercase())
        .unwrap_or_default();
    let name_span = Span::from_range(
        parts.first().map_or(start, |p| p.span.offset),
        parts.last().map_or(start, |p| p.span.end()),
    );
    let in_system = parts.len() >= 2 && parts[parts.len() - 2].value.eq_ignore_ascii_case("system");
    let table = call_table(cx)?;
    if let Some((_, why)) = REFUSED.iter().find(|(p, _)| *p == procedure) {
        return Err(DdlError::new(
            DdlErrorKind::Unsupported,
            name_span,
            format!("fieldgate does not model `CALL system.{procedure}`: it {why}"),
        )
        .with_help("run it outside the migration, once its effect has been reviewed"));
    }
    if !in_system || !NO_SCHEMA_EFFECT.contains(&procedure.as_str()) {
        return Err(DdlError::new(
            DdlErrorKind::Unsupported,
            name_span,
            format!(
                "fieldgate does not model the procedure `{}`",
                join_written(&parts)
            ),
        )
        .with_help(format!(
            "fieldgate reads these Iceberg procedures as changing no schema: {}",
            NO_SCHEMA_EFFECT
                .iter()
                .map(|p| format!("system.{p}"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let Some((name, span)) = table else {
        return Ok(Parsed::Session {
            listed: session_change(cx, format!("CALL system.{procedure}")),
            namespace: None,
        });
    };
    let change = cx.change(
        ChangeKind::NoSchemaEffect {
            statement: format!("CALL system.{procedure}"),
        },
        name_span,
    );
    let table = Table { name, span };
    Ok(Parsed::Statement(
        cx.statement(table, StatementKind::Alter(vec![change])),
    ))
}

/// Reads the argument list, returning the table it names, if any.
fn call_table(cx: &mut Stmt) -> PResult<Option<(String, Span)>> {
    cx.cur.expect(&Token::LParen)?;
    let mut table = None;
    let mut depth = 0usize;
    let mut index = 0usize;
    let mut first_argument = true;
    loop {
        if cx.cur.at_end() {
            return Err(cx.cur.expected("`)`"));
        }
        let next = cx.cur.peek();
        if depth == 0 && first_argument {
            first_argument = false;
            if cx.cur.peek_nth(1).token == Token::RArrow {
                if next.is_word("table") {
                    cx.cur.bump();
                    cx.cur.bump();
                    table = Some(cx.cur.string("the table name, as a string")?);
                    continue;
                }
            } else if let Token::SingleQuotedString(_) = next.token
                && index == 0
            {
                table = Some(cx.cur.string("the table name")?);
                continue;
            }
        }
        match next.token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket if depth > 0 => depth -= 1,
            Token::RParen => {
                cx.cur.bump();
                return Ok(table);
            }
            Token::Comma if depth == 0 => {
                first_argument = true;
                index += 1;
            }
            _ => {}
        }
        cx.cur.bump();
    }
}
