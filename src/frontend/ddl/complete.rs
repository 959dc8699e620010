//! Where an editor's cursor is in an `ALTER TABLE` statement, for completion: at a column name
//! (of the table, or under a struct path written before a `.`) or at a column type. The
//! statement is tokenized as the parser tokenizes it, up to the cursor, and walked by the shapes
//! of the grammar in `alter.rs` (ADD, DROP, RENAME, ALTER, CHANGE, REPLACE COLUMNS), so a name
//! is completed only where the grammar reads an existing column and a type only where it
//! reads a type.

use sqlparser::tokenizer::Token;

use crate::change::{SourceFile, Span, StatementKind};
use crate::frontend::ddl::dialect::Dialect;
use crate::frontend::ddl::lines::LineIndex;
use crate::frontend::ddl::{parse_sql, tokenize};
use crate::iceberg::types::Type;

/// How far back from the cursor the statement is looked for: a statement being edited is
/// short, and tokenizing a whole 50 MB buffer per completion would hold the editor up.
const WINDOW: usize = 256 * 1024;

/// A completion site: what the cursor is at, in which table's statement, and the part of the
/// word already typed (replaced by the completion).
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    /// The table as the statement names it (`db.events`).
    pub table: String,
    pub want: Want,
    pub typed: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Want {
    /// An existing column: a field of the struct at `parent` (empty: the table's top level).
    Column { parent: Vec<String> },
    /// A column type.
    Type,
    /// The table of an `ALTER TABLE`: a name under the `namespace` segments written before a
    /// `.` (the whole name when empty).
    Table { namespace: Vec<String> },
}

/// The site at byte `offset` of `text`, if it is one.
pub fn site_at(text: &str, offset: usize, dialect: Dialect) -> Option<Site> {
    let offset = offset.min(text.len());
    let start = window_start(text, offset);
    let window = text.get(start..offset)?;
    let lines = LineIndex::new(window);
    let (tokens, errors) = tokenize(window, &lines, dialect, u64::MAX);
    let statement = tokens
        .iter()
        .rposition(|t| t.token == Token::SemiColon)
        .map_or(0, |i| i + 1);
    let statement_start = match tokens.get(statement) {
        Some(t) => lines.offset(t.span.start).unwrap_or(window.len()),
        None => window.len(),
    };
    // The statement at the cursor did not tokenize (an unterminated string or quoted name).
    if errors.iter().any(|e| e.span.offset >= statement_start) {
        return None;
    }
    let mut words: Vec<(Token, usize, usize)> = Vec::new();
    for t in &tokens[statement..] {
        if matches!(t.token, Token::Whitespace(_) | Token::EOF) {
            continue;
        }
        let from = lines.offset(t.span.start)?;
        let to = lines.offset(t.span.end)?;
        words.push((t.token.clone(), from, to));
    }
    // A word ending at the cursor is being typed: the site is where it starts.
    let typed = match words.last() {
        Some((Token::Word(_), from, to)) if *to == window.len() => {
            let typed = Span::from_range(start + from, start + to);
            words.pop();
            typed
        }
        _ => Span::new(offset, 0),
    };
    let tokens: Vec<Token> = words.into_iter().map(|(t, _, _)| t).collect();
    let (table, want) = Walk::new(&tokens).statement()?;
    Some(Site { table, want, typed })
}

/// Where tokenizing starts: the text's start, or in a long text just after a `;` not far
/// before the cursor (a `;` in a string there may mislead it; no worse than no completion).
fn window_start(text: &str, offset: usize) -> usize {
    if offset <= WINDOW {
        return 0;
    }
    let mut from = offset - WINDOW;
    while !text.is_char_boundary(from) {
        from += 1;
    }
    text.get(from..offset)
        .and_then(|w| w.rfind(';'))
        .map_or(from, |i| from + i + 1)
}

/// The walk's outcome at one step: the cursor was reached at a site, or at no site, or the
/// part walked ended and the walk goes on.
enum Step<T> {
    At(Want),
    Nothing,
    Next(T),
}

use Step::{At, Next, Nothing};

/// `?` for steps: a finished walk is returned as it is.
macro_rules! step {
    ($e:expr) => {
        match $e {
            Next(value) => value,
            At(want) => return At(want),
            Nothing => return Nothing,
        }
    };
}

struct Walk<'t> {
    tokens: &'t [Token],
    at: usize,
    /// A `>>` read where one `>` was wanted: the next `>` is already read.
    closed: bool,
}

impl<'t> Walk<'t> {
    fn new(tokens: &'t [Token]) -> Walk<'t> {
        Walk {
            tokens,
            at: 0,
            closed: false,
        }
    }

    fn end(&self) -> bool {
        self.at >= self.tokens.len()
    }

    fn peek_word(&self) -> Option<String> {
        match self.tokens.get(self.at) {
            Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_lowercase()),
            _ => None,
        }
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let found = self.peek_word().as_deref() == Some(word);
        self.at += usize::from(found);
        found
    }

    fn eat_words(&mut self, words: &[&str]) -> bool {
        let back = self.at;
        if words.iter().all(|w| self.eat_word(w)) {
            return true;
        }
        self.at = back;
        false
    }

    fn eat(&mut self, token: &Token) -> bool {
        let found = self.tokens.get(self.at) == Some(token);
        self.at += usize::from(found);
        found
    }

    /// One `>`, where `>>` closes two levels.
    fn eat_close_angle(&mut self) -> bool {
        if self.closed {
            self.closed = false;
            return true;
        }
        if self.eat(&Token::ShiftRight) {
            self.closed = true;
            return true;
        }
        self.eat(&Token::Gt)
    }

    /// Any name (a keyword or quoted word).
    fn name(&mut self) -> Option<String> {
        match self.tokens.get(self.at) {
            Some(Token::Word(w)) => {
                self.at += 1;
                Some(w.value.clone())
            }
            _ => None,
        }
    }

    /// `ALTER TABLE [IF EXISTS] name action`: the table and the site.
    fn statement(mut self) -> Option<(String, Want)> {
        if !self.eat_words(&["alter", "table"]) {
            return None;
        }
        self.eat_words(&["if", "exists"]);
        let table = match self.path() {
            Next(segments) => segments.join("."),
            At(Want::Column { parent }) => {
                return Some((String::new(), Want::Table { namespace: parent }));
            }
            _ => return None,
        };
        let step = match self.peek_word().as_deref() {
            Some("add") => self.add(),
            Some("drop") => self.drop(),
            Some("rename") => self.rename(),
            Some("alter") => self.alter(),
            Some("change") => self.change(),
            Some("replace") => self.replace(),
            _ => Nothing,
        };
        match step {
            At(want) => Some((table, want)),
            _ => None,
        }
    }

    /// A dotted name of an existing column: the cursor in it completes a segment under the
    /// segments before.
    fn path(&mut self) -> Step<Vec<String>> {
        let mut segments = Vec::new();
        loop {
            if self.end() {
                return At(Want::Column { parent: segments });
            }
            let Some(name) = self.name() else {
                return Nothing;
            };
            segments.push(name);
            if !self.eat(&Token::Period) {
                return Next(segments);
            }
        }
    }

    /// A column being added: its new name (completed only under a struct it names), then its
    /// type and the rest of its definition.
    fn new_column(&mut self) -> Step<()> {
        match self.path() {
            At(Want::Column { parent }) if parent.is_empty() => return Nothing,
            Next(_) => {}
            other => return other.map(),
        }
        step!(self.type_());
        self.definition_tail()
    }

    /// `NOT NULL`, `COMMENT '...'`, `FIRST`, `AFTER column`, `DEFAULT ...` up to a `,` or `)`
    /// (left unread).
    fn definition_tail(&mut self) -> Step<()> {
        loop {
            if self.end() {
                return Nothing;
            }
            if matches!(self.tokens.get(self.at), Some(Token::Comma | Token::RParen)) {
                return Next(());
            }
            if self.eat_word("after") {
                step!(self.path());
                continue;
            }
            self.at += 1;
        }
    }

    /// `( item, item, ... )`, or one item without parentheses.
    fn items(&mut self, item: fn(&mut Self) -> Step<()>) -> Step<()> {
        let listed = self.eat(&Token::LParen);
        loop {
            step!(item(self));
            if !self.eat(&Token::Comma) {
                break;
            }
        }
        if listed && !self.eat(&Token::RParen) {
            return Nothing;
        }
        Next(())
    }

    fn add(&mut self) -> Step<()> {
        self.eat_word("add");
        if !self.eat_word("column") && !self.eat_word("columns") {
            return Nothing;
        }
        self.eat_words(&["if", "not", "exists"]);
        self.items(Self::new_column)
    }

    fn replace(&mut self) -> Step<()> {
        if !self.eat_words(&["replace", "columns"]) {
            return Nothing;
        }
        self.items(Self::new_column)
    }

    fn drop(&mut self) -> Step<()> {
        self.eat_word("drop");
        if !self.eat_word("column") && !self.eat_word("columns") {
            return Nothing;
        }
        self.eat_words(&["if", "exists"]);
        self.items(|walk| walk.path().map())
    }

    fn rename(&mut self) -> Step<()> {
        if !self.eat_words(&["rename", "column"]) {
            return Nothing;
        }
        self.eat_words(&["if", "exists"]);
        self.path().map()
    }

    /// `ALTER [COLUMN] path action`: `TYPE t`, `SET DATA TYPE t`, `AFTER column`, ...
    fn alter(&mut self) -> Step<()> {
        self.eat_word("alter");
        self.eat_word("column");
        step!(self.path());
        self.column_action()
    }

    fn column_action(&mut self) -> Step<()> {
        if self.eat_word("type") || self.eat_words(&["set", "data", "type"]) {
            return self.type_();
        }
        if self.eat_word("after") {
            return self.path().map();
        }
        Nothing
    }

    /// `CHANGE [COLUMN] path` with an ALTER COLUMN action, or `old new type ...`.
    fn change(&mut self) -> Step<()> {
        self.eat_word("change");
        self.eat_word("column");
        step!(self.path());
        let action = ["type", "set", "after", "first", "comment", "drop"];
        if self
            .peek_word()
            .is_some_and(|w| action.contains(&w.as_str()))
        {
            return self.column_action();
        }
        if self.end() || self.name().is_none() {
            return Nothing;
        }
        step!(self.type_());
        self.definition_tail()
    }

    /// A type (Spark's `struct<a: t>`, `array<t>`, `map<k, v>`; Trino's `row(a t)`, `array(t)`,
    /// `map(k, v)`; parameters in parentheses).
    fn type_(&mut self) -> Step<()> {
        if self.end() {
            return At(Want::Type);
        }
        let Some(name) = self.peek_word() else {
            return Nothing;
        };
        self.at += 1;
        match name.as_str() {
            "struct" => self.fields(Token::Lt, true),
            "row" => self.fields(Token::LParen, false),
            "array" | "map" => {
                let angle = self.eat(&Token::Lt);
                if !angle && !self.eat(&Token::LParen) {
                    return if self.end() { Nothing } else { Next(()) };
                }
                step!(self.type_());
                if name == "map" {
                    if !self.eat(&Token::Comma) {
                        return Nothing;
                    }
                    step!(self.type_());
                }
                match angle {
                    true => self.close_angle(),
                    false => self.close(Token::RParen),
                }
            }
            _ => self.parameters(),
        }
    }

    /// `<name [:] type, ...>` or `(name type, ...)`: a field's new name is not completed.
    fn fields(&mut self, open: Token, angle: bool) -> Step<()> {
        if angle && self.eat(&Token::Neq) {
            return Next(());
        }
        if !self.eat(&open) {
            return Nothing;
        }
        loop {
            if self.end() || self.name().is_none() {
                return Nothing;
            }
            self.eat(&Token::Colon);
            step!(self.type_());
            while !self.end()
                && !self.closed
                && !matches!(
                    self.tokens.get(self.at),
                    Some(Token::Comma | Token::Gt | Token::ShiftRight | Token::RParen)
                )
            {
                self.at += 1;
            }
            if !self.eat(&Token::Comma) {
                break;
            }
        }
        match angle {
            true => self.close_angle(),
            false => self.close(Token::RParen),
        }
    }

    /// `(10, 2)` after a type name, and words such as `WITH TIME ZONE` are left to the caller.
    fn parameters(&mut self) -> Step<()> {
        if !self.eat(&Token::LParen) {
            return Next(());
        }
        while !self.eat(&Token::RParen) {
            if self.end() {
                return Nothing;
            }
            self.at += 1;
        }
        Next(())
    }

    fn close_angle(&mut self) -> Step<()> {
        match self.eat_close_angle() {
            true => Next(()),
            false => Nothing,
        }
    }

    fn close(&mut self, token: Token) -> Step<()> {
        match self.eat(&token) {
            true => Next(()),
            false => Nothing,
        }
    }
}

impl<T> Step<T> {
    /// The same outcome, with what a finished part gave dropped.
    fn map(self) -> Step<()> {
        match self {
            At(want) => At(want),
            Nothing => Nothing,
            Next(_) => Next(()),
        }
    }
}

/// A type name of the dialect as a completion offers it: as written, and the Iceberg type it
/// is (worked out by the parser itself, so the list cannot disagree with it).
pub struct TypeName {
    pub written: &'static str,
    pub iceberg: String,
}

const SPARK_NAMES: &[&str] = &[
    "boolean",
    "tinyint",
    "smallint",
    "int",
    "bigint",
    "float",
    "double",
    "decimal(10,0)",
    "date",
    "timestamp",
    "timestamp_ntz",
    "string",
    "varchar(255)",
    "char(1)",
    "binary",
    "variant",
    "array<string>",
    "map<string, string>",
    "struct<name: string>",
];
const HIVE_NAMES: &[&str] = &[
    "boolean",
    "tinyint",
    "smallint",
    "int",
    "bigint",
    "float",
    "double",
    "decimal(10,0)",
    "date",
    "timestamp",
    "timestamp with local time zone",
    "string",
    "varchar(255)",
    "char(1)",
    "binary",
    "array<string>",
    "map<string, string>",
    "struct<name: string>",
];
const TRINO_NAMES: &[&str] = &[
    "boolean",
    "tinyint",
    "smallint",
    "integer",
    "bigint",
    "real",
    "double",
    "decimal(38,0)",
    "date",
    "time(6)",
    "timestamp(6)",
    "timestamp(6) with time zone",
    "varchar",
    "varbinary",
    "uuid",
    "array(varchar)",
    "map(varchar, varchar)",
    "row(name varchar)",
];

/// The dialect's column types, each with its Iceberg type.
pub fn type_names(dialect: Dialect) -> Vec<TypeName> {
    let names = match dialect {
        Dialect::Spark => SPARK_NAMES,
        Dialect::Hive => HIVE_NAMES,
        Dialect::Trino => TRINO_NAMES,
    };
    names
        .iter()
        .filter_map(|&written| {
            Some(TypeName {
                written,
                iceberg: iceberg_type(written, dialect)?.to_string(),
            })
        })
        .collect()
}

/// What the parser makes of `written` as an added column's type.
fn iceberg_type(written: &str, dialect: Dialect) -> Option<Type> {
    let text = format!("ALTER TABLE t ADD COLUMN c {written}");
    let source = std::sync::Arc::new(SourceFile {
        name: String::new(),
        text,
    });
    let statements = parse_sql(source, dialect).ok()?;
    let StatementKind::Alter(changes) = &statements.first()?.kind else {
        return None;
    };
    match &changes.first()?.kind {
        crate::change::ChangeKind::AddField { field, .. } => Some(field.field_type.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_end(text: &str, dialect: Dialect) -> Option<(String, Want, &str)> {
        let site = site_at(text, text.len(), dialect)?;
        let typed = &text[site.typed.offset..site.typed.end()];
        Some((site.table, site.want, typed))
    }

    fn column(parent: &[&str]) -> Want {
        Want::Column {
            parent: parent.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn column_names_where_the_grammar_reads_an_existing_column() {
        let spark = Dialect::Spark;
        let cases = [
            ("ALTER TABLE db.t DROP COLUMN ", column(&[]), ""),
            ("ALTER TABLE db.t DROP COLUMN cu", column(&[]), "cu"),
            ("ALTER TABLE db.t DROP COLUMNS (a, b", column(&[]), "b"),
            (
                "ALTER TABLE db.t DROP COLUMN IF EXISTS s.",
                column(&["s"]),
                "",
            ),
            (
                "ALTER TABLE db.t RENAME COLUMN s.inner.x",
                column(&["s", "inner"]),
                "x",
            ),
            ("ALTER TABLE db.t ALTER COLUMN ", column(&[]), ""),
            ("alter table db.t alter column `s`.", column(&["s"]), ""),
            ("ALTER TABLE db.t CHANGE COLUMN a", column(&[]), "a"),
            ("ALTER TABLE db.t ALTER COLUMN a AFTER b", column(&[]), "b"),
            ("ALTER TABLE db.t ADD COLUMN s.", column(&["s"]), ""),
            (
                "ALTER TABLE db.t ADD COLUMNS (x int COMMENT 'a, b' AFTER ",
                column(&[]),
                "",
            ),
            (
                "-- first;\nALTER TABLE a.b DROP COLUMN x;\nALTER TABLE db.t DROP COLUMN ",
                column(&[]),
                "",
            ),
        ];
        for (text, want, typed) in cases {
            let (table, found, written) = at_end(text, spark).unwrap_or_else(|| panic!("{text}"));
            assert_eq!((found, written), (want, typed), "{text}");
            assert_eq!(table, "db.t", "{text}");
        }
    }

    #[test]
    fn table_names_after_alter_table() {
        let table = |namespace: &[&str]| Want::Table {
            namespace: namespace.iter().map(|s| s.to_string()).collect(),
        };
        let cases = [
            ("ALTER TABLE ", table(&[]), ""),
            ("alter table lake", table(&[]), "lake"),
            (
                "ALTER TABLE IF EXISTS lake_prod.",
                table(&["lake_prod"]),
                "",
            ),
            ("ALTER TABLE lake_prod.dim", table(&["lake_prod"]), "dim"),
            (
                "ALTER TABLE a.b DROP COLUMN x;\nALTER TABLE `db`.t",
                table(&["db"]),
                "t",
            ),
        ];
        for (text, want, typed) in cases {
            let (_, found, written) =
                at_end(text, Dialect::Spark).unwrap_or_else(|| panic!("{text}"));
            assert_eq!((found, written), (want, typed), "{text}");
        }
        for text in ["ALTER TABLE", "ALTER TABLE db.t ", "CREATE TABLE "] {
            assert_eq!(at_end(text, Dialect::Spark), None, "{text}");
        }
    }

    #[test]
    fn types_where_the_grammar_reads_a_type() {
        let cases = [
            ("ALTER TABLE db.t ADD COLUMN x ", Dialect::Spark, ""),
            (
                "ALTER TABLE db.t ADD COLUMNS (x int, y big",
                Dialect::Spark,
                "big",
            ),
            ("ALTER TABLE db.t ALTER COLUMN a TYPE ", Dialect::Spark, ""),
            (
                "ALTER TABLE db.t ALTER COLUMN a SET DATA TYPE ",
                Dialect::Trino,
                "",
            ),
            (
                "ALTER TABLE db.t ADD COLUMN x struct<a: int, b: ",
                Dialect::Spark,
                "",
            ),
            (
                "ALTER TABLE db.t ADD COLUMN x map<string, array<",
                Dialect::Spark,
                "",
            ),
            (
                "ALTER TABLE db.t ADD COLUMN x row(a integer, b ",
                Dialect::Trino,
                "",
            ),
            ("ALTER TABLE db.t CHANGE COLUMN a a ", Dialect::Hive, ""),
            (
                "ALTER TABLE db.t REPLACE COLUMNS (a int, b ",
                Dialect::Hive,
                "",
            ),
        ];
        for (text, dialect, typed) in cases {
            let (_, found, written) = at_end(text, dialect).unwrap_or_else(|| panic!("{text}"));
            assert_eq!((found, written), (Want::Type, typed), "{text}");
        }
    }

    #[test]
    fn nothing_where_a_new_name_or_a_keyword_goes() {
        for text in [
            "ALTER TABLE db.t ADD COLUMN ",
            "ALTER TABLE db.t ADD COLUMNS (x int, ",
            "ALTER TABLE db.t RENAME COLUMN a TO ",
            "ALTER TABLE db.t ALTER COLUMN a ",
            "ALTER TABLE db.t ADD COLUMN x struct<a: int, ",
            "ALTER TABLE db.t ADD COLUMN x int COMMENT 'unterminated",
            "ALTER TABLE db.t DROP COLUMN a;",
            "CREATE TABLE db.t (a ",
            "ALTER TABLE db.t ADD COLUMN x struct<a: int>> ",
        ] {
            assert_eq!(at_end(text, Dialect::Spark), None, "{text}");
        }
    }

    #[test]
    fn a_cursor_inside_a_text_sees_only_what_is_before_it() {
        let text = "ALTER TABLE db.t DROP COLUMN cust;\nALTER TABLE db.u ADD COLUMN x int;\n";
        let at = text.find("st;").unwrap();
        let site = site_at(text, at, Dialect::Spark).unwrap();
        assert_eq!(site.table, "db.t");
        assert_eq!(&text[site.typed.offset..site.typed.end()], "cu");
    }

    #[test]
    fn every_type_offered_is_one_the_parser_takes() {
        for (dialect, names) in [
            (Dialect::Spark, SPARK_NAMES),
            (Dialect::Hive, HIVE_NAMES),
            (Dialect::Trino, TRINO_NAMES),
        ] {
            let offered = type_names(dialect);
            assert_eq!(offered.len(), names.len(), "{dialect:?}");
            let iceberg: Vec<&str> = offered.iter().map(|t| t.iceberg.as_str()).collect();
            assert!(
                iceberg.contains(&"long") && iceberg.contains(&"string"),
                "{iceberg:?}"
            );
        }
        let spark = type_names(Dialect::Spark);
        let timestamp = spark.iter().find(|t| t.written == "timestamp").unwrap();
        assert_eq!(timestamp.iceberg, "timestamptz");
    }
}
