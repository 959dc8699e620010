//! `ALTER TABLE` actions that change the table rather than its columns: partition evolution
//! (Iceberg's Spark SQL extensions, Trino's `SET PROPERTIES partitioning`), table properties,
//! and branches and tags, which change no schema and are listed as no-ops.

use sqlparser::tokenizer::Token;

use crate::change::{Change, ChangeKind, PartitionTerm, SortTerm, Span};
use crate::frontend::ddl::create::{
    SPARK_TRANSFORMS, scalar, spark_properties, string_array, transform, trino_partition_term,
};
use crate::frontend::ddl::cursor::PResult;
use crate::frontend::ddl::dialect::Dialect;
use crate::frontend::ddl::error::{DdlError, DdlErrorKind};
use crate::frontend::ddl::statement::Stmt;

/// The action at the cursor, if it is one of these; `None` leaves it to the caller.
pub(crate) fn table_action(cx: &mut Stmt) -> PResult<Option<Vec<Change>>> {
    let spark = cx.dialect() == Dialect::Spark;
    let cur = &cx.cur;
    let changes = if spark && cur.at_words(&["add", "partition", "field"]) {
        add_partition_field(cx)?
    } else if spark && cur.at_words(&["drop", "partition", "field"]) {
        drop_partition_field(cx)?
    } else if spark && cur.at_words(&["replace", "partition", "field"]) {
        replace_partition_field(cx)?
    } else if cx.dialect().is_spark_like() && cur.at_words(&["set", "tblproperties"]) {
        set_tblproperties(cx)?
    } else if cx.dialect().is_spark_like() && cur.at_words(&["unset", "tblproperties"]) {
        unset_tblproperties(cx)?
    } else if cx.dialect() == Dialect::Trino && cur.at_words(&["set", "properties"]) {
        trino_set_properties(cx)?
    } else if spark && cur.at_word("write") {
        write_order(cx)?
    } else if spark && is_branch_or_tag(cx) {
        branch_or_tag(cx)?
    } else {
        return Ok(None);
    };
    Ok(Some(changes))
}

/// A partition term as the Spark extensions write it: `col`, `a.b`, or `transform(args)`.
fn spark_term(cx: &mut Stmt) -> PResult<(PartitionTerm, Span)> {
    let head = cx.cur.path("a partition column or transform")?;
    if head.path.0.len() == 1 && cx.cur.at(&Token::LParen) {
        let term = transform(&mut cx.cur, &head, SPARK_TRANSFORMS)?;
        return Ok((term, cx.cur.since(head.span.offset)));
    }
    let term = PartitionTerm {
        transform: "identity".into(),
        column: head.path.dotted(),
    };
    Ok((term, head.span))
}

/// `AS name` after a partition term.
fn partition_name(cx: &mut Stmt) -> PResult<Option<String>> {
    if cx.cur.eat_word("as").is_none() {
        return Ok(None);
    }
    Ok(Some(cx.cur.name("a partition field name")?.value))
}

/// `ADD PARTITION FIELD term [AS name]`.
fn add_partition_field(cx: &mut Stmt) -> PResult<Vec<Change>> {
    cx.cur.eat_words(&["add", "partition", "field"]);
    let (term, focus) = spark_term(cx)?;
    let name = partition_name(cx)?;
    Ok(vec![cx.change(
        ChangeKind::AddPartitionField { term, name },
        focus,
    )])
}

/// `DROP PARTITION FIELD term` (a bare name may be the partition field's own name).
fn drop_partition_field(cx: &mut Stmt) -> PResult<Vec<Change>> {
    cx.cur.eat_words(&["drop", "partition", "field"]);
    let (term, focus) = spark_term(cx)?;
    Ok(vec![
        cx.change(ChangeKind::DropPartitionField { term }, focus),
    ])
}

/// `REPLACE PARTITION FIELD from WITH to [AS name]`.
fn replace_partition_field(cx: &mut Stmt) -> PResult<Vec<Change>> {
    cx.cur.eat_words(&["replace", "partition", "field"]);
    let (from, start) = spark_term(cx)?;
    cx.cur.expect_word("with")?;
    let (to, _) = spark_term(cx)?;
    let name = partition_name(cx)?;
    let focus = cx.cur.since(start.offset);
    Ok(vec![cx.change(
        ChangeKind::ReplacePartitionField { from, to, name },
        focus,
    )])
}

/// `SET TBLPROPERTIES ('k' = 'v', ...)`.
fn set_tblproperties(cx: &mut Stmt) -> PResult<Vec<Change>> {
    cx.cur.eat_words(&["set", "tblproperties"]);
    let start = cx.cur.next_start();
    let properties = spark_properties(cx)?;
    let focus = cx.cur.since(start);
    if properties.is_empty() {
        return Err(DdlError::syntax(focus, "expected at least one property"));
    }
    Ok(vec![
        cx.change(ChangeKind::SetProperties { properties }, focus),
    ])
}

/// `UNSET TBLPROPERTIES [IF EXISTS] ('k', ...)`.
fn unset_tblproperties(cx: &mut Stmt) -> PResult<Vec<Change>> {
    cx.cur.eat_words(&["unset", "tblproperties"]);
    let if_exists = cx.cur.eat_words(&["if", "exists"]).is_some();
    let start = cx.cur.next_start();
    cx.cur.expect(&Token::LParen)?;
    let mut keys = Vec::new();
    loop {
        let key = match cx.cur.string("a property key") {
            Ok((key, _)) => key,
            Err(_) => cx.cur.path("a property key")?.path.dotted(),
        };
        keys.push(key);
        if cx.cur.eat(&Token::Comma).is_none() {
            break;
        }
    }
    cx.cur.expect(&Token::RParen)?;
    let focus = cx.cur.since(start);
    Ok(vec![cx.change(
        ChangeKind::UnsetProperties { keys, if_exists },
        focus,
    )])
}

/// Trino's `SET PROPERTIES name = value, ...`: `partitioning` evolves the spec; `format_version`
/// and `format` are the Iceberg properties `format-version` and `write.format.default`.
fn trino_set_properties(cx: &mut Stmt) -> PResult<Vec<Change>> {
    cx.cur.eat_words(&["set", "properties"]);
    let mut changes = Vec::new();
    let mut properties = Vec::new();
    let mut properties_start = None;
    loop {
        let name = cx.cur.name("a table property name")?;
        cx.cur.expect(&Token::Eq)?;
        let start = name.span.offset;
        match name.value.to_ascii_lowercase().as_str() {
            "partitioning" => {
                let mut terms = Vec::new();
                for (text, span) in string_array(&mut cx.cur)? {
                    terms.push(trino_partition_term(cx, &text, span)?);
                }
                let focus = cx.cur.since(start);
                changes.push(cx.change(ChangeKind::SetPartitioning { terms }, focus));
            }
            key @ ("format_version" | "format") => {
                let iceberg = if key == "format" {
                    "write.format.default"
                } else {
                    "format-version"
                };
                properties_start.get_or_insert(start);
                properties.push((iceberg.to_string(), scalar(&mut cx.cur)?));
            }
            _ => {
                return Err(DdlError::new(
                    DdlErrorKind::Unsupported,
                    name.span,
                    format!(
                        "fieldgate does not model the Trino table property `{}`",
                        name.value
                    ),
                )
                .with_help(
                    "fieldgate models `partitioning`, `format_version` and `format` in Trino's \
                     SET PROPERTIES; set other Iceberg properties with Spark's SET TBLPROPERTIES",
                ));
            }
        }
        if cx.cur.eat(&Token::Comma).is_none() {
            break;
        }
    }
    if let Some(start) = properties_start {
        let focus = cx.cur.since(start);
        changes.push(cx.change(ChangeKind::SetProperties { properties }, focus));
    }
    Ok(changes)
}

/// `WRITE ORDERED BY ...` (range distribution), `WRITE LOCALLY ORDERED BY ...` (none),
/// `WRITE DISTRIBUTED BY PARTITION [LOCALLY ORDERED BY ...]` (hash), `WRITE UNORDERED` (none),
/// as Iceberg's Spark extensions set the sort order and `write.distribution-mode`.
fn write_order(cx: &mut Stmt) -> PResult<Vec<Change>> {
    let start = cx.cur.expect_word("write")?.offset;
    let (order, distribution) = if cx.cur.eat_word("unordered").is_some() {
        (Vec::new(), "none")
    } else if cx
        .cur
        .eat_words(&["distributed", "by", "partition"])
        .is_some()
    {
        let order = if cx.cur.eat_words(&["locally", "ordered", "by"]).is_some() {
            sort_terms(cx)?
        } else {
            Vec::new()
        };
        (order, "hash")
    } else if cx.cur.eat_words(&["locally", "ordered", "by"]).is_some() {
        (sort_terms(cx)?, "none")
    } else if cx.cur.eat_words(&["ordered", "by"]).is_some() {
        (sort_terms(cx)?, "range")
    } else {
        return Err(cx.cur.expected(
            "`ORDERED BY`, `LOCALLY ORDERED BY`, `DISTRIBUTED BY PARTITION` or `UNORDERED`",
        ));
    };
    let focus = cx.cur.since(start);
    let change = ChangeKind::SetWriteOrder {
        order,
        distribution: distribution.into(),
    };
    Ok(vec![cx.change(change, focus)])
}

/// `term [ASC | DESC] [NULLS FIRST | NULLS LAST], ...`, optionally in parentheses.
fn sort_terms(cx: &mut Stmt) -> PResult<Vec<SortTerm>> {
    let parens = cx.cur.eat(&Token::LParen).is_some();
    let mut terms = Vec::new();
    loop {
        let (term, _) = spark_term(cx)?;
        let descending = if cx.cur.eat_word("desc").is_some() {
            true
        } else {
            cx.cur.eat_word("asc");
            false
        };
        let nulls_first = if cx.cur.eat_words(&["nulls", "first"]).is_some() {
            true
        } else if cx.cur.eat_words(&["nulls", "last"]).is_some() {
            false
        } else {
            !descending
        };
        terms.push(SortTerm {
            term,
            descending,
            nulls_first,
        });
        if cx.cur.eat(&Token::Comma).is_none() {
            break;
        }
    }
    if parens {
        cx.cur.expect(&Token::RParen)?;
    }
    Ok(terms)
}

fn is_branch_or_tag(cx: &Stmt) -> bool {
    let cur = &cx.cur;
    let object = |n: usize| cur.peek_nth(n).is_word("branch") || cur.peek_nth(n).is_word("tag");
    ((cur.at_word("create") || cur.at_word("replace") || cur.at_word("drop")) && object(1))
        || (cur.at_words(&["create", "or", "replace"]) && object(3))
}

/// `CREATE [OR REPLACE] | REPLACE | DROP  BRANCH | TAG ...`: a reference to a snapshot, which
/// changes neither the schema nor the spec. The name is read; the retention and snapshot
/// clauses that follow only say which snapshot and for how long, so they are passed over.
fn branch_or_tag(cx: &mut Stmt) -> PResult<Vec<Change>> {
    let start = cx.cur.next_start();
    let verb = if cx.cur.eat_words(&["create", "or", "replace"]).is_some() {
        "CREATE OR REPLACE"
    } else if cx.cur.eat_word("create").is_some() {
        "CREATE"
    } else if cx.cur.eat_word("replace").is_some() {
        "REPLACE"
    } else {
        cx.cur.bump();
        "DROP"
    };
    let object = if cx.cur.eat_word("branch").is_some() {
        "BRANCH"
    } else {
        cx.cur.bump();
        "TAG"
    };
    if cx.cur.eat_words(&["if", "not", "exists"]).is_none() {
        cx.cur.eat_words(&["if", "exists"]);
    }
    let name = cx.cur.name("a branch or tag name")?;
    while !cx.cur.at_end() {
        cx.cur.bump();
    }
    let focus = Span::from_range(start, name.span.end());
    let statement = format!("{verb} {object} {}", name.value);
    Ok(vec![
        cx.change(ChangeKind::NoSchemaEffect { statement }, focus),
    ])
}
