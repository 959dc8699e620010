//! A cursor over the tokens of one statement: sqlparser's `Parser` underneath (its token stream,
//! `parse_object_name`, and the `parse_statement` fallback), with byte-offset spans on top and
//! the small vocabulary our grammar is written in (`eat_word`, `path`, `string`, ...).
//!
//! Keywords are matched by their text, not by sqlparser's `Keyword` enum: several words the
//! Iceberg grammar needs (`IDENTIFIER`, `FIELD`, `PROPERTIES`) are not sqlparser keywords, and
//! matching text keeps us independent of which words a sqlparser release reserves.
//!
//! sqlparser lexes `>>` as one shift token; nested generics (`array<struct<x: int>>`) need it
//! as two closers, so the cursor can split it: the first `>` is consumed, and the second is
//! shown by `peek` until consumed in turn.

use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

use crate::change::{FieldPath, Span};
use crate::frontend::ddl::dialect::Dialect;
use crate::frontend::ddl::error::DdlError;
use crate::frontend::ddl::lines::LineIndex;
use crate::frontend::ddl::literal;

pub(crate) type PResult<T> = Result<T, DdlError>;

/// A token with its byte span.
#[derive(Debug, Clone)]
pub(crate) struct Tok {
    pub token: Token,
    pub span: Span,
}

impl Tok {
    /// An unquoted word equal to `word`, ignoring ASCII case.
    pub(crate) fn is_word(&self, word: &str) -> bool {
        matches!(&self.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
    }

    pub(crate) fn word(&self) -> Option<&Word> {
        match &self.token {
            Token::Word(w) => Some(w),
            _ => None,
        }
    }

    /// An unquoted word, lower-cased: how keywords and type names are compared.
    pub(crate) fn keyword(&self) -> Option<String> {
        self.word()
            .filter(|w| w.quote_style.is_none())
            .map(|w| w.value.to_ascii_lowercase())
    }

    /// The token as a message shows it.
    pub(crate) fn describe(&self) -> String {
        match &self.token {
            Token::EOF => "the end of the statement".to_string(),
            token => format!("`{token}`"),
        }
    }
}

/// An identifier as written: quotes removed (and their escapes resolved), case kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Name {
    pub value: String,
    pub span: Span,
}

/// A dotted field path with the span from its first to its last segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathSpan {
    pub path: FieldPath,
    pub span: Span,
}

pub(crate) struct Cursor<'a> {
    parser: Parser<'static>,
    lines: &'a LineIndex<'a>,
    pub(crate) dialect: Dialect,
    /// The unconsumed second half of a `>>` whose first half closed a nested type.
    pending_gt: Option<Span>,
    /// The end of the last consumed token: where a construct that just ended stops.
    last_end: usize,
    /// The end of the statement, where "found the end of the statement" errors point.
    end: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor over one statement's tokens (without its `;`), ending at byte `end`.
    pub(crate) fn new(
        tokens: Vec<TokenWithSpan>,
        dialect: Dialect,
        lines: &'a LineIndex<'a>,
        start: usize,
        end: usize,
    ) -> Cursor<'a> {
        Cursor {
            parser: Parser::new(dialect.sql()).with_tokens_with_locations(tokens),
            lines,
            dialect,
            pending_gt: None,
            last_end: start,
            end,
        }
    }

    /// The file's line table, for cursors over text nested in a literal.
    pub(crate) fn lines(&self) -> &'a LineIndex<'a> {
        self.lines
    }

    fn span_of(&self, token: &TokenWithSpan) -> Span {
        match (
            self.lines.offset(token.span.start),
            self.lines.offset(token.span.end),
        ) {
            (Some(start), Some(end)) if start <= end => Span::from_range(start, end),
            // The parser's synthetic end-of-input token has no location.
            _ => Span::new(self.end, 0),
        }
    }

    fn tok(&self, token: &TokenWithSpan) -> Tok {
        Tok {
            token: token.token.clone(),
            span: self.span_of(token),
        }
    }

    pub(crate) fn peek(&self) -> Tok {
        self.peek_nth(0)
    }

    pub(crate) fn peek_nth(&self, n: usize) -> Tok {
        match (self.pending_gt, n) {
            (Some(span), 0) => Tok {
                token: Token::Gt,
                span,
            },
            (Some(_), n) => self.tok(self.parser.peek_nth_token_ref(n - 1)),
            (None, n) => self.tok(self.parser.peek_nth_token_ref(n)),
        }
    }

    pub(crate) fn bump(&mut self) -> Tok {
        if let Some(span) = self.pending_gt.take() {
            self.last_end = span.end();
            return Tok {
                token: Token::Gt,
                span,
            };
        }
        let raw = self.parser.next_token();
        let tok = self.tok(&raw);
        if tok.token != Token::EOF {
            self.last_end = tok.span.end();
        }
        tok
    }

    pub(crate) fn at_end(&self) -> bool {
        self.peek().token == Token::EOF
    }

    /// The span from `start` to the end of the last consumed token.
    pub(crate) fn since(&self, start: usize) -> Span {
        Span::from_range(start, self.last_end)
    }

    /// The offset where the next token starts.
    pub(crate) fn next_start(&self) -> usize {
        self.peek().span.offset
    }

    pub(crate) fn at_word(&self, word: &str) -> bool {
        self.peek().is_word(word)
    }

    /// Whether the next tokens are exactly these words.
    pub(crate) fn at_words(&self, words: &[&str]) -> bool {
        words
            .iter()
            .enumerate()
            .all(|(i, w)| self.peek_nth(i).is_word(w))
    }

    pub(crate) fn eat_word(&mut self, word: &str) -> Option<Span> {
        self.eat_words(&[word])
    }

    /// Consumes all of `words` or nothing; returns the span they cover.
    pub(crate) fn eat_words(&mut self, words: &[&str]) -> Option<Span> {
        if words.is_empty() || !self.at_words(words) {
            return None;
        }
        let start = self.next_start();
        for _ in words {
            self.bump();
        }
        Some(self.since(start))
    }

    pub(crate) fn expect_word(&mut self, word: &str) -> PResult<Span> {
        self.eat_word(word)
            .ok_or_else(|| self.expected(&format!("`{}`", word.to_ascii_uppercase())))
    }

    pub(crate) fn at(&self, token: &Token) -> bool {
        &self.peek().token == token
    }

    pub(crate) fn eat(&mut self, token: &Token) -> Option<Span> {
        self.at(token).then(|| self.bump().span)
    }

    pub(crate) fn expect(&mut self, token: &Token) -> PResult<Span> {
        self.eat(token)
            .ok_or_else(|| self.expected(&format!("`{token}`")))
    }

    /// Consumes the `>` closing a generic type, splitting a `>>` into two closers.
    pub(crate) fn expect_close_angle(&mut self) -> PResult<Span> {
        let next = self.peek();
        match next.token {
            Token::Gt => Ok(self.bump().span),
            Token::ShiftRight => {
                self.bump();
                // `>>` is two ASCII bytes: this closer is the first, the second stays pending.
                let first = Span::new(next.span.offset, 1);
                self.pending_gt = Some(Span::new(next.span.offset + 1, 1));
                self.last_end = first.end();
                Ok(first)
            }
            _ => Err(self.expected("`>`")),
        }
    }

    /// An error at the next token: "expected X, found Y".
    pub(crate) fn expected(&self, what: &str) -> DdlError {
        let next = self.peek();
        DdlError::syntax(
            next.span,
            format!("expected {what}, found {}", next.describe()),
        )
    }

    /// An identifier: any word, quoted or not (keywords are fine where a name is expected,
    /// as in Spark and Trino for non-reserved words; the grammar around it disambiguates).
    pub(crate) fn name(&mut self, what: &str) -> PResult<Name> {
        let next = self.peek();
        match &next.token {
            Token::Word(w) if w.quote_style.is_some() && w.value.is_empty() => Err(DdlError::new(
                crate::frontend::ddl::DdlErrorKind::Invalid,
                next.span,
                format!("{what} cannot be empty"),
            )),
            Token::Word(w) => {
                let value = w.value.clone();
                self.bump();
                Ok(Name {
                    value,
                    span: next.span,
                })
            }
            _ => Err(self.expected(what)),
        }
    }

    /// A dotted path of names: `point.z`, `` `a.b`.c `` (a quoted segment is one segment).
    pub(crate) fn path(&mut self, what: &str) -> PResult<PathSpan> {
        let first = self.name(what)?;
        let start = first.span.offset;
        let mut segments = vec![first.value];
        while self.eat(&Token::Period).is_some() {
            segments.push(self.name("a field name after `.`")?.value);
        }
        Ok(PathSpan {
            path: FieldPath(segments),
            span: self.since(start),
        })
    }

    /// A comma-separated list of paths.
    pub(crate) fn paths(&mut self, what: &str) -> PResult<Vec<PathSpan>> {
        let mut paths = vec![self.path(what)?];
        while self.eat(&Token::Comma).is_some() {
            paths.push(self.path(what)?);
        }
        Ok(paths)
    }

    /// A string literal (`'...'`; in Spark and Hive also `"..."`), unescaped as the dialect's
    /// engine does. Spark reads adjacent literals as one (`'a' 'b'` is `ab`) and `r'...'` /
    /// `R"..."` as raw (no escapes). Hive's DDL takes one `StringLiteral` token wherever it takes
    /// a string (`KW_COMMENT StringLiteral`), which holds quoted parts written without space
    /// between them (`'a'"b"` is `ab`), so a part after a space is refused there.
    pub(crate) fn string(&mut self, what: &str) -> PResult<(String, Span)> {
        let start = self.next_start();
        let Some(mut value) = self.string_piece()? else {
            return Err(self.expected(what));
        };
        let touching = |cur: &Self| cur.peek().span.offset == cur.since(start).end();
        match self.dialect {
            Dialect::Spark => {
                while let Some(more) = self.string_piece()? {
                    value.push_str(&more);
                }
            }
            Dialect::Hive if touching(self) => {
                while touching(self) {
                    let Some(more) = self.string_piece()? else {
                        break;
                    };
                    value.push_str(&more);
                }
            }
            Dialect::Hive if literal::string_body(&self.peek().token).is_some() => {
                return Err(DdlError::syntax(
                    self.peek().span,
                    "Hive takes one string literal here: a second one after it is a syntax error in Hive (Spark would join them)",
                )
                .with_help("write the text as one literal"));
            }
            Dialect::Hive | Dialect::Trino => {}
        }
        Ok((value, self.since(start)))
    }

    /// The value of the literal at the cursor, consumed; `None` (nothing consumed) if there is
    /// none.
    fn string_piece(&mut self) -> PResult<Option<String>> {
        let next = self.peek();
        let raw = self.dialect == Dialect::Spark
            && next.keyword().as_deref() == Some("r")
            && self.peek_nth(1).span.offset == next.span.end();
        let literal = if raw { self.peek_nth(1) } else { next };
        let Some((body, quote)) = literal::string_body(&literal.token) else {
            return Ok(None);
        };
        let value = if raw {
            body.to_string()
        } else {
            literal::unescape(body, quote, self.dialect, literal.span)?
        };
        if raw {
            self.bump();
        }
        self.bump();
        Ok(Some(value))
    }

    /// An unsigned integer literal.
    pub(crate) fn uint(&mut self, what: &str) -> PResult<(u64, Span)> {
        let next = self.peek();
        if let Token::Number(text, _) = &next.token
            && let Ok(value) = text.parse::<u64>()
        {
            self.bump();
            return Ok((value, next.span));
        }
        Err(self.expected(what))
    }

    /// A possibly qualified object name (`db.t`, `` `my db`.t ``), through sqlparser's
    /// `parse_object_name`.
    pub(crate) fn object_name(&mut self, what: &str) -> PResult<Vec<NamePart>> {
        if self.pending_gt.is_some() {
            return Err(self.expected(what));
        }
        let name = match self.parser.parse_object_name(false) {
            Ok(name) => name,
            Err(_) => {
                // sqlparser consumed the token it rejected: point at that one.
                let current = self.parser.get_current_token().clone();
                let found = self.tok(&current);
                return Err(DdlError::syntax(
                    found.span,
                    format!("expected {what}, found {}", found.describe()),
                ));
            }
        };
        let current = self.parser.get_current_token().clone();
        self.last_end = self.span_of(&current).end();
        let mut parts = Vec::with_capacity(name.0.len());
        for part in &name.0 {
            let Some(ident) = part.as_ident() else {
                // Only dialects we do not use produce computed name parts.
                return Err(DdlError::syntax(
                    self.since(self.last_end),
                    format!("expected {what}"),
                ));
            };
            let span = match (
                self.lines.offset(ident.span.start),
                self.lines.offset(ident.span.end),
            ) {
                (Some(start), Some(end)) if start <= end => Span::from_range(start, end),
                _ => Span::new(self.last_end, 0),
            };
            parts.push(NamePart {
                written: ident.to_string(),
                value: ident.value.clone(),
                span,
            });
        }
        Ok(parts)
    }

    /// Hands the rest of the statement to sqlparser's own `parse_statement`, to learn whether
    /// it is SQL at all. On failure returns sqlparser's message and the token it stopped at.
    pub(crate) fn sqlparser_statement(&mut self) -> Result<(), (Span, String)> {
        use sqlparser::parser::ParserError;
        let err = match self.parser.parse_statement() {
            Ok(_) => return Ok(()),
            Err(err) => err,
        };
        let message = match err {
            ParserError::ParserError(m) | ParserError::TokenizerError(m) => m,
            ParserError::RecursionLimitExceeded => "the statement is nested too deeply".to_string(),
        };
        // sqlparser appends " at Line: L, Column: C" to its messages; the location is the
        // start of the offending token, which we look up to underline the whole token.
        let (message, location) = match message.rsplit_once(" at Line: ") {
            Some((text, at)) => (text.to_string(), parse_location(at)),
            None => (message, None),
        };
        let at = location.and_then(|l| self.lines.offset(l));
        let span = (0..)
            .map(|i| self.parser.token_at(i))
            .take_while(|t| t.token != Token::EOF)
            .map(|t| self.span_of(t))
            .find(|span| Some(span.offset) == at)
            .unwrap_or_else(|| Span::new(at.unwrap_or(self.end), 0));
        Err((span, message))
    }
}

/// A part of an object name: as written (quotes kept) and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NamePart {
    pub written: String,
    pub value: String,
    pub span: Span,
}

/// `L, Column: C` from the end of a sqlparser message.
fn parse_location(text: &str) -> Option<sqlparser::tokenizer::Location> {
    let (line, column) = text.split_once(", Column: ")?;
    Some(sqlparser::tokenizer::Location::new(
        line.trim().parse().ok()?,
        column.trim().parse().ok()?,
    ))
}
