//! `limits: statements-per-file`: a file's statements are held and judged together, so their
//! count bounds the memory and time of reading and judging it. A statement the tokenizer could
//! not read counts too (it is one error to hold and report). The tokenizer stops once the
//! statements it has ended pass the limit ([`StatementCount`]), and the parser refuses the first
//! statement past it ([`Budget`]); both count alike, so nothing before that statement is left
//! unread and nothing after it is read.

use std::iter::Peekable;
use std::vec::IntoIter;

use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::error::{DdlError, DdlErrorKind};
use crate::change::Span;

/// The statements the tokens so far have ended: a `;` after a token that is not whitespace or
/// a comment (an empty statement does not count), and each tokenizer error.
#[derive(Default)]
pub(super) struct StatementCount {
    pub statements: u64,
    open: bool,
}

impl StatementCount {
    pub fn add(&mut self, tokens: &[TokenWithSpan]) {
        for t in tokens {
            match t.token {
                Token::SemiColon => {
                    self.statements += u64::from(self.open);
                    self.open = false;
                }
                Token::Whitespace(_) => {}
                _ => self.open = true,
            }
        }
    }

    /// A tokenizer error: the statement it interrupted is dropped, and counts as one.
    pub fn error(&mut self) {
        self.statements += 1;
        self.open = false;
    }
}

/// The parser's count, in file order: the statements it reads and the tokenizer's errors
/// before each.
pub(super) struct Budget {
    cap: u64,
    counted: u64,
    lexical: Peekable<IntoIter<DdlError>>,
}

impl Budget {
    pub fn new(cap: u64, lexical: Vec<DdlError>) -> Budget {
        Budget {
            cap,
            counted: 0,
            lexical: lexical.into_iter().peekable(),
        }
    }

    /// Counts the tokenizer's errors before `start` into `errors`, then the statement at
    /// `span`; `false` when one of them is past the limit, which is then the last error.
    pub fn statement(&mut self, span: Span, errors: &mut Vec<DdlError>) -> bool {
        self.errors_before(span.offset, errors) && self.count(span, None, errors)
    }

    /// The tokenizer's errors after the last statement.
    pub fn finish(mut self, errors: &mut Vec<DdlError>) {
        self.errors_before(usize::MAX, errors);
    }

    fn errors_before(&mut self, offset: usize, errors: &mut Vec<DdlError>) -> bool {
        while let Some(error) = self.lexical.next_if(|e| e.span.offset < offset) {
            if !self.count(error.span, Some(error), errors) {
                return false;
            }
        }
        true
    }

    fn count(&mut self, span: Span, error: Option<DdlError>, errors: &mut Vec<DdlError>) -> bool {
        self.counted += 1;
        if self.counted <= self.cap {
            errors.extend(error);
            return true;
        }
        errors.push(over_cap(span, self.cap));
        self.lexical = Vec::new().into_iter().peekable();
        false
    }
}

/// The error at the first statement past the limit.
fn over_cap(span: Span, cap: u64) -> DdlError {
    DdlError::new(
        DdlErrorKind::Limit,
        span,
        format!(
            "this file holds more than {cap} statements, the most one migration file may hold; this statement and the ones after it are not read"
        ),
    )
    .with_help(
        "split the migration into several files, or raise `limits: statements-per-file` in fieldgate.yaml",
    )
}
