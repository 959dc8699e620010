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
mod types;

#[cfg(test)]
mod table_action_tests;
#[cfg(test)]
mod tests;

use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer, Whitespace};

pub use dialect::{Dialect, UnknownDialect};
pub use error::{DdlError, DdlErrorKind, DdlErrors};

use crate::change::{Change, Source, Span, Statement, StatementKind};
use cursor::Cursor;
use lines::LineIndex;

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
    let text = source.text.as_str();
    let lines = LineIndex::new(text);
    let (tokens, mut errors) = tokenize(text, &lines, dialect);
    let mut statements: Vec<Statement> = Vec::new();
    let mut namespace: Option<String> = None;
    // Session statements not yet listed with a table statement.
    let mut session: Vec<Change> = Vec::new();
    for group in split_statements(tokens) {
        let Some((start, end)) = statement_bounds(&group, &lines) else {
            // Only whitespace and comments: an empty statement.
            continue;
        };
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
    list_trailing_session(&mut statements, session);
    errors.sort_by_key(|e| e.span.offset);
    (statements, errors)
}

/// Session statements after the last `ALTER` (or before a `CREATE TABLE` that no `ALTER`
/// follows) are listed with the last `ALTER` of the file; a file without one lists them nowhere,
/// since no table change carries them.
fn list_trailing_session(statements: &mut [Statement], session: Vec<Change>) {
    let last_alter = statements.iter_mut().rev().find_map(|s| match &mut s.kind {
        StatementKind::Alter(changes) => Some(changes),
        StatementKind::CreateTable(_) => None,
    });
    if let Some(changes) = last_alter {
        changes.extend(session);
    }
}

/// Tokenizes the whole text. On a tokenizer error, the tokens of the statement it interrupted
/// are dropped, the error is recorded, and tokenizing resumes after the next `;` of the raw text
/// (for an unterminated string, the likeliest end of the statement the user meant).
fn tokenize(
    text: &str,
    lines: &LineIndex,
    dialect: Dialect,
) -> (Vec<TokenWithSpan>, Vec<DdlError>) {
    let mut tokens: Vec<TokenWithSpan> = Vec::new();
    let mut errors = Vec::new();
    let mut base = 0;
    // The next raw string the tokenizer would misread (Spark only): tokenizing stops before it,
    // and its literal is taken from the text (`raw_string.rs`). It is looked for again once
    // passed: after an error, tokenizing resumes at a `;` that may lie before or after it.
    let mut raw: Option<raw_string::RawString> = None;
    let mut scanned = false;
    while let Some(all_rest) = text.get(base..) {
        let passed = raw.as_ref().is_some_and(|r| r.open < base);
        if dialect == Dialect::Spark && (!scanned || passed) {
            raw = raw_string::next_misread(text, base);
            scanned = true;
        }
        let rest = raw
            .as_ref()
            .map_or(all_rest, |r| text.get(base..r.open).unwrap_or(""));
        let base_location = lines.location(base);
        let mut buf = Vec::new();
        // Literals stay as written: `literal.rs` unescapes them as the dialect's engine does.
        let result = Tokenizer::new(dialect.sql(), rest)
            .with_unescape(false)
            .tokenize_with_location_into_buf(&mut buf);
        tokens.extend(rebased(buf, base_location));
        let Err(error) = result else {
            let Some(string) = raw.take() else { break };
            tokens.push(string.token(lines));
            base = string.end;
            scanned = false;
            continue;
        };
        let at = lines
            .offset(lines::rebase(error.location, base_location))
            .unwrap_or(text.len())
            .max(base);
        let keep = tokens
            .iter()
            .rposition(|t| t.token == Token::SemiColon)
            .map_or(0, |i| i + 1);
        tokens.truncate(keep);
        let (len, semicolon) = error_extent(text.get(at..).unwrap_or(""));
        errors.push(lexical_error(
            &error.message,
            text,
            Span::new(at, len),
            dialect,
        ));
        match semicolon {
            Some(i) => base = at + i + 1,
            None => break,
        }
    }
    (tokens, errors)
}

/// How far a tokenizer error at the start of `after` reaches (to the `;` or the end of the
/// line, whichever comes first), and where the next `;` is.
fn error_extent(after: &str) -> (usize, Option<usize>) {
    let semicolon = after.find(';');
    let line_end = after
        .find('\n')
        .map(|i| after[..i].trim_end_matches('\r').len());
    let len = match (semicolon, line_end) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) => a,
        (None, Some(b)) => b,
        (None, None) => after.len(),
    };
    (len, semicolon)
}

/// Tokens of a slice of the text that starts at `base`, located in the whole text, identifier
/// quotes undoubled.
fn rebased(tokens: Vec<TokenWithSpan>, base: Location) -> Vec<TokenWithSpan> {
    tokens
        .into_iter()
        .map(|mut t| {
            t.span.start = lines::rebase(t.span.start, base);
            t.span.end = lines::rebase(t.span.end, base);
            t.token = literal::undouble_identifier_quotes(t.token);
            t
        })
        .collect()
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
