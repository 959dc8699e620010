//! Which engine's SQL a migration is written in, and the sqlparser dialects that tokenize it.
//!
//! The dialect decides lexing (how identifiers are quoted, whether `"..."` is a string, whether
//! `\'` escapes a quote), which statement forms are accepted and what type names mean (Spark's
//! `timestamp` is zoned, Hive's is not). Statement parsing itself is ours (see `statement.rs`):
//! sqlparser contributes its tokenizer, its `Parser` primitives, and the fallback that names
//! statements we do not model.

use std::fmt;
use std::str::FromStr;

use sqlparser::dialect::Dialect as SqlDialect;

/// The engine a migration file is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Dialect {
    /// Spark SQL with the Iceberg SQL extensions.
    #[default]
    Spark,
    /// Trino with the Iceberg connector.
    Trino,
    /// Hive (HiveQL) with the Iceberg storage handler: Spark's grammar plus Hive's
    /// `CHANGE COLUMN old new type`, and Hive's meaning of `timestamp` (without zone).
    Hive,
}

impl Dialect {
    pub const ALL: [Dialect; 3] = [Dialect::Spark, Dialect::Trino, Dialect::Hive];

    pub fn name(self) -> &'static str {
        match self {
            Dialect::Spark => "spark",
            Dialect::Trino => "trino",
            Dialect::Hive => "hive",
        }
    }

    /// The engine's name as prose (`Spark`), for messages.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Dialect::Spark => "Spark",
            Dialect::Trino => "Trino",
            Dialect::Hive => "Hive",
        }
    }

    pub(crate) fn sql(self) -> &'static dyn SqlDialect {
        match self {
            Dialect::Spark => &SPARK_SQL,
            Dialect::Trino => &TRINO_SQL,
            Dialect::Hive => &HIVE_SQL,
        }
    }

    /// Spark's grammar (also accepted under `Hive`, which Spark parses too).
    pub(crate) fn is_spark_like(self) -> bool {
        matches!(self, Dialect::Spark | Dialect::Hive)
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown SQL dialect `{0}` (expected one of: spark, trino, hive)")]
pub struct UnknownDialect(pub String);

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(s: &str) -> Result<Dialect, UnknownDialect> {
        Dialect::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownDialect(s.to_string()))
    }
}

/// How an engine lexes SQL. The three engines share the same word characters and differ only
/// in what is written here, so each difference is one named field.
#[derive(Debug)]
struct Lexing {
    /// The character that quotes (delimits) an identifier.
    identifier_quote: char,
    /// Whether `\'` escapes a quote inside a string literal.
    backslash_escapes: bool,
    /// Whether an identifier may start with digits (`2nd_score`).
    numeric_prefix: bool,
    /// Whether `/* ... */` comments nest.
    nested_comments: bool,
}

/// Spark SQL lexing: backtick identifiers, `'...'` and `"..."` strings with backslash escapes,
/// nested block comments. (sqlparser's own `SparkSqlDialect` lexes `"..."` the same way but
/// has no backslash escapes, which Spark applies by default.)
static SPARK_SQL: Lexing = Lexing {
    identifier_quote: '`',
    backslash_escapes: true,
    numeric_prefix: true,
    nested_comments: true,
};

/// Trino lexing: ANSI double-quoted identifiers, `'...'` strings with `''` as the only escape.
static TRINO_SQL: Lexing = Lexing {
    identifier_quote: '"',
    backslash_escapes: false,
    numeric_prefix: false,
    nested_comments: false,
};

/// HiveQL lexing: as Spark (Hive also reads `"..."` as a string and applies backslash escapes),
/// but block comments do not nest.
static HIVE_SQL: Lexing = Lexing {
    identifier_quote: '`',
    backslash_escapes: true,
    numeric_prefix: true,
    nested_comments: false,
};

impl SqlDialect for Lexing {
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        ch == self.identifier_quote
    }

    fn identifier_quote_style(&self, _identifier: &str) -> Option<char> {
        Some(self.identifier_quote)
    }

    // Spark's, Hive's and Trino's lexers all define an unquoted identifier over ASCII letters,
    // digits and `_`; any other letter must be quoted.
    fn is_identifier_start(&self, ch: char) -> bool {
        ch.is_ascii_alphabetic() || ch == '_'
    }

    fn is_identifier_part(&self, ch: char) -> bool {
        ch.is_ascii_alphanumeric() || ch == '_'
    }

    fn supports_string_literal_backslash_escape(&self) -> bool {
        self.backslash_escapes
    }

    fn supports_numeric_prefix(&self) -> bool {
        self.numeric_prefix
    }

    fn supports_nested_comments(&self) -> bool {
        self.nested_comments
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialect_names_round_trip() {
        for d in Dialect::ALL {
            assert_eq!(d.name().parse::<Dialect>(), Ok(d));
            assert_eq!(d.to_string().to_uppercase().parse::<Dialect>(), Ok(d));
        }
        assert!("postgres".parse::<Dialect>().is_err());
    }
}
