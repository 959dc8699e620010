//! Tokenizing a chunk at a time gives exactly the tokens and errors of tokenizing the whole
//! text, wherever the chunks end; and a file's statements stop at `limits:
//! statements-per-file`, at the first statement past it.

use std::sync::Arc;

use super::tokens::tokenize_in_chunks;
use super::*;
use crate::change::SourceFile;

/// Each token with where it starts and ends, and each error, as a comparable value.
fn tokens_in_chunks(text: &str, dialect: Dialect, chunk: usize) -> Vec<String> {
    let lines = LineIndex::new(text);
    let (tokens, errors) = tokenize_in_chunks(text, &lines, dialect, u64::MAX, chunk);
    let tokens = tokens
        .iter()
        .map(|t| format!("{:?} {:?}-{:?}", t.token, t.span.start, t.span.end));
    let errors = errors
        .iter()
        .map(|e| format!("error {}+{} {}", e.span.offset, e.span.len, e.message));
    tokens.chain(errors).collect()
}

const TEXTS: &[(&str, Dialect)] = &[
    (
        "ALTER TABLE t ADD COLUMN a int COMMENT 'x;y';\n-- a ; comment\nALTER TABLE t DROP COLUMN b;",
        Dialect::Spark,
    ),
    (
        "/* a ; block\n comment */ ALTER TABLE t RENAME COLUMN a TO `b;c`;;  ;\nUSE db;",
        Dialect::Spark,
    ),
    (
        "ALTER TABLE t ALTER COLUMN a COMMENT r'a\\'; ALTER TABLE t ALTER COLUMN a COMMENT 'é;ü';",
        Dialect::Spark,
    ),
    (
        "ALTER TABLE t ADD COLUMN a int COMMENT 'never closed;\nALTER TABLE t DROP COLUMN b;\nALTER TABLE t DROP COLUMN c;",
        Dialect::Spark,
    ),
    (
        "ALTER TABLE t ADD COLUMN \"a;b\" int; COMMENT ON COLUMN t.a IS 'it''s; here';",
        Dialect::Trino,
    ),
    (
        "ALTER TABLE t CHANGE COLUMN a a bigint COMMENT 'ok'; /* open comment ; never closed",
        Dialect::Hive,
    ),
];

#[test]
fn chunks_of_any_size_tokenize_as_the_whole_text_does() {
    for (text, dialect) in TEXTS {
        let whole = tokens_in_chunks(text, *dialect, usize::MAX);
        for chunk in 1..=text.len() + 1 {
            assert_eq!(
                tokens_in_chunks(text, *dialect, chunk),
                whole,
                "{text:?} in chunks of {chunk} bytes"
            );
        }
    }
}

fn source(text: &str) -> Source {
    Arc::new(SourceFile {
        name: "migration.sql".into(),
        text: text.into(),
    })
}

#[test]
fn the_first_statement_past_the_cap_is_an_error_and_nothing_after_it_is_read() {
    let text = "ALTER TABLE t ADD COLUMN a int;\n;\n-- only a comment\n;\nALTER TABLE t DROP COLUMN b;\nALTER TABLE t DROP COLUMN c;\nALTER TABLE t ADD COLUMN d 'unterminated;\n";
    let (statements, errors) = parse_within(&source(text), Dialect::Spark, 2);
    assert_eq!(statements.len(), 2);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let third = text.find("ALTER TABLE t DROP COLUMN c").unwrap_or_default();
    assert_eq!(
        (errors[0].kind, errors[0].span.offset),
        (DdlErrorKind::Limit, third)
    );
    assert!(errors[0].message.contains("more than 2 statements"));

    let (statements, errors) = parse_within(&source(text), Dialect::Spark, 3);
    assert_eq!(statements.len(), 3);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].kind, DdlErrorKind::Limit);
}

#[test]
fn a_file_of_exactly_the_cap_is_read_whole() {
    let text = "ALTER TABLE t ADD COLUMN a int;\nALTER TABLE t DROP COLUMN b";
    let (statements, errors) = parse_within(&source(text), Dialect::Spark, 2);
    assert_eq!((statements.len(), errors.len()), (2, 0), "{errors:#?}");
}

#[test]
fn a_statement_that_does_not_tokenize_counts_as_one() {
    let text = "ALTER TABLE t ADD COLUMN a string COMMENT 'open\n;\nALTER TABLE t DROP COLUMN b;\nALTER TABLE t DROP COLUMN c;";
    let (statements, errors) = parse_within(&source(text), Dialect::Spark, 2);
    assert_eq!(statements.len(), 1, "{statements:#?}");
    let kinds: Vec<DdlErrorKind> = errors.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [DdlErrorKind::Lexical, DdlErrorKind::Limit]);

    // Past the limit, the statement that did not tokenize is where the error is.
    let text = "ALTER TABLE t DROP COLUMN b;\nALTER TABLE t ADD COLUMN a string COMMENT 'open\n;\nALTER TABLE t DROP COLUMN c;";
    let (statements, errors) = parse_within(&source(text), Dialect::Spark, 1);
    assert_eq!(statements.len(), 1, "{statements:#?}");
    let at = text.find("'open").unwrap_or_default();
    let found: Vec<(DdlErrorKind, usize)> =
        errors.iter().map(|e| (e.kind, e.span.offset)).collect();
    assert_eq!(found, [(DdlErrorKind::Limit, at)]);
}

#[test]
fn every_tokenizer_error_within_the_cap_is_kept() {
    // Each quote is left open, and no later quote of its kind closes it.
    let text = "ALTER 'a;\nALTER \"b;\nALTER `c;";
    let kinds = |cap| {
        let (_, errors) = parse_within(&source(text), Dialect::Spark, cap);
        errors.iter().map(|e| e.kind).collect::<Vec<_>>()
    };
    use DdlErrorKind::{Lexical, Limit};
    assert_eq!(kinds(3), [Lexical, Lexical, Lexical]);
    assert_eq!(kinds(2), [Lexical, Lexical, Limit]);
}
