//! The DDL front-end: a SQL migration file (Spark, Trino or Hive) becomes
//! [`Statement`](crate::change::Statement)s of [`Change`](crate::change::Change)s.
//!
//! Data flow: the whole file is tokenized once with sqlparser's tokenizer under our own
//! sqlparser dialect (`dialect.rs`); token locations become byte offsets (`lines.rs`). The token
//! stream is cut at every `;` into statements, and each statement gets its own sqlparser
//! `Parser`, which our grammar (`statement.rs`, `alter.rs`, `create.rs`, `types.rs`) drives
//! token by token through a cursor (`cursor.rs`). sqlparser parses none of the Iceberg forms, and
//! its AST has no place for ours, so rather than smuggling our statements through its
//! `Dialect::parse_statement` hook we drive the parser ourselves, and only hand a statement to
//! sqlparser's `parse_statement` when it is not one we model, to name it in the error.
//!
//! Errors never stop the file: a statement that fails yields one located error and parsing
//! resumes at the next `;`. A tokenizer error (an unterminated string) drops the statement it is
//! in and tokenizing resumes after the next `;` in the text. A Spark raw string the tokenizer
//! would end elsewhere than Spark does (`raw_string.rs`) is taken from the text instead, and
//! tokenizing goes on after it.

mod alter;
mod budget;
pub mod complete;
mod create;
mod cursor;
mod dialect;
mod error;
mod lines;
mod literal;
mod raw_string;
mod session;
mod statement;
mod table_actions;
mod tokens;
mod types;

#[cfg(test)]
mod chunk_tests;
#[cfg(test)]
mod table_action_tests;
#[cfg(test)]
mod tests;

use sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace};

pub use dialect::{Dialect, UnknownDialect};
pub use error::{DdlError, DdlErrorKind, DdlErrors};

use crate::change::{Change, Source, Span, Statement, StatementKind};
use budget::Budget;
use cursor::Cursor;
use lines::LineIndex;
use tokens::tokenize;

/// Parses a DDL file. Every statement must be one fieldgate models; all the file's errors are
/// returned together.
pub fn parse_sql(source: Source, dialect: Dialect) -> Result<Vec<Statement>, DdlErrors> {
    let (statements, errors) = parse_sql_recovering(&source, dialect);
    if errors.is_empty() {
        Ok(statements)
    } else {
        Err(DdlErrors::new(source, errors))
    }
}

/// Parses a DDL file, keeping the statements that parsed next to the errors of those that did
/// not (errors in file order).
pub fn parse_sql_recovering(source: &Source, dialect: Dialect) -> (Vec<Statement>, Vec<DdlError>) {
    parse_within(source, dialect, crate::limits::get().statements_per_file)
}

/// [`parse_sql_recovering`] of at most `cap` statements: the one after them is an error, and
/// the rest of the file is not read.
fn parse_within(source: &Source, dialect: Dialect, cap: u64) -> (Vec<Statement>, Vec<DdlError>) {
    let text = source.text.as_str();
    let lines = LineIndex::new(text);
    let (tokens, lexical) = tokenize(text, &lines, dialect, cap);
    let mut budget = Budget::new(cap, lexical);
    let mut errors = Vec::new();
    let mut statements: Vec<Statement> = Vec::new();
    let mut namespace: Option<String> = None;
    // Session statements not yet listed with a table statement.
    let mut session: Vec<Change> = Vec::new();
    let mut within = true;
    for group in split_statements(tokens) {
        let Some((start, end)) = statement_bounds(&group, &lines) else {
            // Only whitespace and comments: an empty statement.
            continue;
        };
        within = budget.statement(Span::from_range(start, end), &mut errors);
        if !within {
            break;
        }
        if let Some(error) = refused_token(&group, &lines, dialect) {
            errors.push(error);
            continue;
        }
        let mut cx = statement::Stmt {
            cur: Cursor::new(group, dialect, &lines, start, end),
            source,
            span: Span::from_range(start, end),
            namespace: namespace.as_deref(),
        };
        match statement::statement(&mut cx) {
            Ok(statement::Parsed::Statement(mut statement)) => {
                if let StatementKind::Alter(changes) = &mut statement.kind {
                    changes.splice(0..0, session.drain(..));
                }
                statements.push(statement);
            }
            Ok(statement::Parsed::Session {
                listed,
                namespace: used,
            }) => {
                session.push(listed);
                namespace = used.or(namespace);
            }
            Err(error) => errors.push(error),
        }
    }
    if within {
        budget.finish(&mut errors);
    }
    list_trailing_session(&mut statements, session, source);
    errors.sort_by_key(|e| e.span.offset);
    (statements, errors)
}

/// Session statements after the last `ALTER` (or before a `CREATE TABLE` that no `ALTER`
/// follows) are listed with the last `ALTER` of the file. A file without one (only `CREATE
/// TABLE`, or only session statements) gets them as a last statement that names no table: the
/// table the file is judged for takes it (see [`Statement::names_table`]).
fn list_trailing_session(statements: &mut Vec<Statement>, session: Vec<Change>, source: &Source) {
    let (Some(first), Some(last)) = (session.first(), session.last()) else {
        return;
    };
    let span = Span::from_range(first.origin.statement.offset, last.origin.statement.end());
    let last_alter = statements.iter_mut().rev().find_map(|s| match &mut s.kind {
        StatementKind::Alter(changes) => Some(changes),
        StatementKind::CreateTable(_) => None,
    });
    match last_alter {
        Some(changes) => changes.extend(session),
        None => statements.push(Statement {
            table: String::new(),
            table_span: Span::new(span.offset, 0),
            span,
            source: source.clone(),
            kind: StatementKind::Alter(session),
        }),
    }
}

/// A token the engine's lexer refuses although sqlparser's takes it: a letter outside ASCII in
/// an unquoted name (every engine's identifiers are ASCII letters, digits and `_` unless
/// quoted), or, in Spark, an optimizer hint (`/*+ ... */` is a hint, not a comment, and no DDL
/// statement takes one).
fn refused_token(group: &[TokenWithSpan], lines: &LineIndex, dialect: Dialect) -> Option<DdlError> {
    let span_of = |t: &TokenWithSpan| {
        let start = lines.offset(t.span.start)?;
        let end = lines.offset(t.span.end)?.max(start);
        Some(Span::from_range(start, end))
    };
    group.iter().enumerate().find_map(|(i, t)| match &t.token {
        Token::Char(c) if is_foreign_letter(*c) => {
            let word = unquoted_word_around(group, i, &span_of)?;
            let quote = match dialect {
                Dialect::Trino => '"',
                Dialect::Spark | Dialect::Hive => '`',
            };
            let text = lines.text().get(word.offset..word.end()).unwrap_or_default();
            Some(
                DdlError::new(
                    DdlErrorKind::Lexical,
                    word,
                    format!(
                        "`{text}` cannot be written unquoted: {} reads unquoted names as ASCII letters, digits and `_`",
                        dialect.title()
                    ),
                )
                .with_help(format!("quote the name: {quote}{text}{quote}")),
            )
        }
        Token::Whitespace(Whitespace::MultiLineComment(text))
            if dialect == Dialect::Spark && text.starts_with('+') =>
        {
            Some(
                DdlError::syntax(
                    span_of(t)?,
                    "Spark reads `/*+ ... */` as an optimizer hint, which no DDL statement takes",
                )
                .with_help("remove the hint, or write a comment as `/* ... */`"),
            )
        }
        _ => None,
    })
}

fn is_foreign_letter(c: char) -> bool {
    !c.is_ascii() && c.is_alphanumeric()
}

/// The span of the run of unquoted words and foreign letters, with nothing between them,
/// around token `i`: the word as the user sees it (`décimal`, not `é`).
fn unquoted_word_around(
    group: &[TokenWithSpan],
    i: usize,
    span_of: &dyn Fn(&TokenWithSpan) -> Option<Span>,
) -> Option<Span> {
    let part = |t: &TokenWithSpan| match &t.token {
        Token::Char(c) => is_foreign_letter(*c),
        Token::Word(w) => w.quote_style.is_none(),
        Token::Number(..) => true,
        _ => false,
    };
    let mut span = span_of(group.get(i)?)?;
    for t in group[..i].iter().rev().take_while(|t| part(t)) {
        let before = span_of(t)?;
        if before.end() != span.offset {
            break;
        }
        span = Span::from_range(before.offset, span.end());
    }
    for t in group[i + 1..].iter().take_while(|t| part(t)) {
        let after = span_of(t)?;
        if after.offset != span.end() {
            break;
        }
        span = Span::from_range(span.offset, after.end());
    }
    Some(span)
}

/// A tokenizer error at `span` of `text` as a located diagnostic; an unterminated string gets
/// help on writing a quote inside one, and one that is part of a Spark raw string (`r'...'`) as
/// written, help that does not escape: a raw string has no escapes.
fn lexical_error(message: &str, text: &str, span: Span, dialect: Dialect) -> DdlError {
    let error = DdlError::new(DdlErrorKind::Lexical, span, lowercase_first(message));
    if !message.starts_with("Unterminated string") {
        return error;
    }
    let raw = (dialect == Dialect::Spark)
        .then(|| raw_string::unterminated_in_raw(text, span.offset))
        .flatten();
    if let Some(quote) = raw {
        let (raw_example, escaped_example) = match quote {
            '"' => (r#"r'say "hi"'"#, r#""say \"hi\"""#),
            _ => (r#"r"it's""#, r"'it\'s'"),
        };
        return error.with_help(format!(
            "a raw string has no escapes and ends at the first `{quote}`: write a string holding `{quote}` as a raw string in the other quote (`{raw_example}`) or as a regular string with the quote escaped (`{escaped_example}`)"
        ));
    }
    // A backslash escapes a quote in Spark and in Hive alike. `''` is no way to write one in
    // both: Spark reads it as one quote, but Hive's literal is a sequence of quoted parts, so
    // there it ends one part and starts the next (`'it''s'` is `its`).
    let escaped = match dialect {
        Dialect::Trino => "''",
        Dialect::Spark | Dialect::Hive => "\\'",
    };
    error.with_help(format!(
        "a string runs to the next unescaped quote; write a quote inside a string as `{escaped}`"
    ))
}

fn lowercase_first(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Cuts the token stream at each `;` (the `;` itself belongs to no statement). Every `;` token
/// separates: strings and comments are single tokens already, and DDL has no blocks.
fn split_statements(tokens: Vec<TokenWithSpan>) -> Vec<Vec<TokenWithSpan>> {
    let mut groups = vec![Vec::new()];
    for token in tokens {
        if token.token == Token::SemiColon {
            groups.push(Vec::new());
        } else if let Some(group) = groups.last_mut() {
            group.push(token);
        }
    }
    groups
}

/// The byte range from the first to the last token that is not whitespace or a comment.
fn statement_bounds(group: &[TokenWithSpan], lines: &LineIndex) -> Option<(usize, usize)> {
    let significant = |t: &&TokenWithSpan| !matches!(t.token, Token::Whitespace(_));
    let first = group.iter().find(significant)?;
    let last = group.iter().rev().find(significant)?;
    let start = lines.offset(first.span.start)?;
    let end = lines.offset(last.span.end)?;
    (start <= end).then_some((start, end))
}
