//! Whole-file tests of the DDL front-end: every form per dialect with its exact changes and
//! spans, files with many statements, error recovery, and robustness on arbitrary prefixes.

use std::sync::Arc;

use super::*;
use crate::change::{
    Change, ChangeKind, CreateTable, FieldPath, NewField, PartitionTerm, Position, SourceFile,
    StatementKind,
};
use crate::iceberg::types::{PrimitiveType as P, Type};

fn source(text: &str) -> Source {
    Arc::new(SourceFile {
        name: "migration.sql".into(),
        text: text.into(),
    })
}

fn parse(text: &str, dialect: Dialect) -> (Vec<Statement>, Vec<DdlError>) {
    parse_sql_recovering(&source(text), dialect)
}

/// Statements of a file that must parse without errors.
fn ok(text: &str, dialect: Dialect) -> Vec<Statement> {
    match parse_sql(source(text), dialect) {
        Ok(statements) => statements,
        Err(errors) => panic!("{text}\n{:#?}", errors.errors),
    }
}

/// The changes of a file holding one ALTER statement.
fn changes(text: &str, dialect: Dialect) -> Vec<Change> {
    let mut statements = ok(text, dialect);
    assert_eq!(statements.len(), 1, "{text}");
    match statements.remove(0).kind {
        StatementKind::Alter(changes) => changes,
        StatementKind::CreateTable(_) => panic!("not an ALTER: {text}"),
    }
}

fn kinds(text: &str, dialect: Dialect) -> Vec<ChangeKind> {
    changes(text, dialect).into_iter().map(|c| c.kind).collect()
}

/// The one change of a one-change statement, with the text its focus covers.
fn one(text: &str, dialect: Dialect) -> (ChangeKind, String) {
    let changes = changes(text, dialect);
    assert_eq!(changes.len(), 1, "{text}: {changes:#?}");
    let change = &changes[0];
    (change.kind.clone(), snippet(text, change.origin.focus))
}

/// The single error of a file.
fn error(text: &str, dialect: Dialect) -> (DdlError, String) {
    let (statements, errors) = parse(text, dialect);
    assert!(statements.is_empty(), "{text}: {statements:#?}");
    assert_eq!(errors.len(), 1, "{text}: {errors:#?}");
    let error = errors[0].clone();
    let snip = snippet(text, error.span);
    (error, snip)
}

fn snippet(text: &str, span: Span) -> String {
    text[span.offset..span.end()].to_string()
}

fn path(dotted: &str) -> FieldPath {
    if dotted.is_empty() {
        return FieldPath(vec![]);
    }
    FieldPath(dotted.split('.').map(String::from).collect())
}

fn prim(p: P) -> Type {
    Type::Primitive(p)
}

fn new_field(name: &str, field_type: Type) -> NewField {
    NewField {
        name: name.into(),
        field_type,
        required: false,
        doc: None,
    }
}

fn add(parent: &str, field: NewField, position: Option<Position>) -> ChangeKind {
    ChangeKind::AddField {
        parent: path(parent),
        field,
        position,
    }
}

use Dialect::{Hive, Spark, Trino};

// ---- Spark -------------------------------------------------------------------------------------

#[test]
fn spark_add_column_after_with_spans() {
    let text = "ALTER TABLE prod.db.sample ADD COLUMN new_column bigint AFTER other_column;";
    let statements = ok(text, Spark);
    let statement = &statements[0];
    assert_eq!(statement.table, "prod.db.sample");
    assert_eq!(snippet(text, statement.table_span), "prod.db.sample");
    assert_eq!(snippet(text, statement.span), &text[..text.len() - 1]);
    let (kind, focus) = one(text, Spark);
    assert_eq!(
        kind,
        add(
            "",
            new_field("new_column", prim(P::Long)),
            Some(Position::After("other_column".into()))
        )
    );
    assert_eq!(focus, "new_column bigint");
}

#[test]
fn spark_add_columns_with_comment_in_parentheses() {
    let text =
        "ALTER TABLE prod.db.sample ADD COLUMNS ( new_column string comment 'new_column docs' )";
    let (kind, focus) = one(text, Spark);
    let mut field = new_field("new_column", prim(P::String));
    field.doc = Some("new_column docs".into());
    assert_eq!(kind, add("", field, None));
    assert_eq!(focus, "new_column string");
}

#[test]
fn spark_add_columns_lists_with_and_without_parentheses() {
    for text in [
        "ALTER TABLE t ADD COLUMNS (a int, b string NOT NULL COMMENT 'b docs' FIRST)",
        "ALTER TABLE t ADD COLUMNS a int, b string NOT NULL COMMENT 'b docs' FIRST",
        "ALTER TABLE t ADD COLUMN a int, b string FIRST COMMENT 'b docs' NOT NULL",
    ] {
        let mut b = new_field("b", prim(P::String));
        b.required = true;
        b.doc = Some("b docs".into());
        assert_eq!(
            kinds(text, Spark),
            vec![
                add("", new_field("a", prim(P::Int)), None),
                add("", b, Some(Position::First)),
            ],
            "{text}"
        );
    }
    let (kind, focus) = one("ALTER TABLE t ADD COLUMNS c date", Spark);
    assert_eq!(focus, "c date");
    assert_eq!(kind, add("", new_field("c", prim(P::Date)), None));
    // Spark identifiers may start with digits.
    let (kind, _) = one(
        "ALTER TABLE t ADD COLUMN 2nd_score int AFTER 1st_score",
        Spark,
    );
    assert_eq!(
        kind,
        add(
            "",
            new_field("2nd_score", prim(P::Int)),
            Some(Position::After("1st_score".into()))
        )
    );
}

#[test]
fn spark_add_struct_and_nested_fields() {
    let struct_xy = Type::Struct(crate::iceberg::types::StructType {
        fields: vec![
            crate::iceberg::schema::Field::new(0, "x", false, prim(P::Double)),
            crate::iceberg::schema::Field::new(0, "y", false, prim(P::Double)),
        ],
    });
    let (kind, focus) = one(
        "ALTER TABLE prod.db.sample ADD COLUMN point struct<x: double, y: double>;",
        Spark,
    );
    assert_eq!(kind, add("", new_field("point", struct_xy.clone()), None));
    assert_eq!(focus, "point struct<x: double, y: double>");

    let (kind, focus) = one(
        "ALTER TABLE prod.db.sample ADD COLUMN point.z double",
        Spark,
    );
    assert_eq!(kind, add("point", new_field("z", prim(P::Double)), None));
    assert_eq!(focus, "point.z double");

    let (kind, focus) = one(
        "ALTER TABLE prod.db.sample ADD COLUMN points array<struct<x: double, y: double>>",
        Spark,
    );
    let list = Type::List(crate::iceberg::types::ListType {
        element_id: 0,
        element_required: false,
        element: Box::new(struct_xy),
    });
    assert_eq!(kind, add("", new_field("points", list), None));
    assert_eq!(focus, "points array<struct<x: double, y: double>>");

    let (kind, _) = one(
        "ALTER TABLE prod.db.sample ADD COLUMN points.element.z double",
        Spark,
    );
    assert_eq!(
        kind,
        add("points.element", new_field("z", prim(P::Double)), None)
    );

    let (kind, focus) = one(
        "ALTER TABLE prod.db.sample ADD COLUMN points map<struct<x: int>, struct<a: int>>",
        Spark,
    );
    let ChangeKind::AddField { field, .. } = kind else {
        panic!("not an add")
    };
    assert_eq!(
        field.field_type.to_string(),
        "map<struct<x: int>, struct<a: int>>"
    );
    assert_eq!(focus, "points map<struct<x: int>, struct<a: int>>");

    let (kind, _) = one(
        "ALTER TABLE prod.db.sample ADD COLUMN points.value.b int",
        Spark,
    );
    assert_eq!(
        kind,
        add("points.value", new_field("b", prim(P::Int)), None)
    );

    let (kind, _) = one(
        "ALTER TABLE prod.db.sample ADD COLUMN nested.new_column bigint FIRST",
        Spark,
    );
    assert_eq!(
        kind,
        add(
            "nested",
            new_field("new_column", prim(P::Long)),
            Some(Position::First)
        )
    );
}

#[test]
fn spark_struct_fields_take_not_null_and_comments_with_or_without_colon() {
    let (kind, _) = one(
        "ALTER TABLE t ADD COLUMN s struct<a: int NOT NULL COMMENT 'a doc', b string>",
        Spark,
    );
    let ChangeKind::AddField { field, .. } = kind else {
        panic!("not an add")
    };
    let Type::Struct(s) = field.field_type else {
        panic!("not a struct")
    };
    assert_eq!(s.fields.len(), 2);
    assert!(s.fields[0].required);
    assert_eq!(s.fields[0].doc.as_deref(), Some("a doc"));
    assert_eq!(
        (s.fields[1].name.as_str(), s.fields[1].required),
        ("b", false)
    );
}

#[test]
fn nested_closers_split_shift_right_tokens() {
    for (ty, shown) in [
        ("array<array<array<int>>>", "list<list<list<int>>>"),
        ("map<string, array<int>>", "map<string, list<int>>"),
        (
            "struct<a: struct<b: struct<c: int>>>",
            "struct<a: struct<b: struct<c: int>>>",
        ),
        ("array<struct<>>", "list<struct<>>"),
        ("struct<>", "struct<>"),
        ("array<map<int,array<int>>>", "list<map<int, list<int>>>"),
    ] {
        let text = format!("ALTER TABLE t ADD COLUMN c {ty} COMMENT 'x'");
        let (kind, focus) = one(&text, Spark);
        let ChangeKind::AddField { field, .. } = kind else {
            panic!("not an add")
        };
        assert_eq!(field.field_type.to_string(), shown, "{ty}");
        assert_eq!(focus, format!("c {ty}"));
    }
}

#[test]
fn spark_rename_renames_the_leaf() {
    let (kind, focus) = one(
        "ALTER TABLE prod.db.sample RENAME COLUMN location.lat TO latitude",
        Spark,
    );
    assert_eq!(
        kind,
        ChangeKind::Rename {
            path: path("location.lat"),
            new_name: "latitude".into()
        }
    );
    assert_eq!(focus, "location.lat");
}

#[test]
fn spark_alter_column_type_and_comment() {
    // Spark 4 takes several column actions in one statement, one action per column clause.
    let text = "ALTER TABLE prod.db.sample ALTER COLUMN measurement TYPE double, measurement COMMENT 'unit is bytes per second'";
    let changes = changes(text, Spark);
    assert_eq!(changes.len(), 2);
    assert_eq!(
        changes[0].kind,
        ChangeKind::UpdateType {
            path: path("measurement"),
            new_type: P::Double
        }
    );
    assert_eq!(snippet(text, changes[0].origin.focus), "double");
    assert_eq!(
        changes[1].kind,
        ChangeKind::UpdateDoc {
            path: path("measurement"),
            doc: Some("unit is bytes per second".into())
        }
    );
    assert_eq!(snippet(text, changes[1].origin.focus), "measurement");
    assert_eq!(snippet(text, changes[1].origin.statement), text);
    // A comment after the type is not Spark's grammar: it says how to write it.
    let (e, snip) = error(
        "ALTER TABLE t ALTER COLUMN m TYPE double COMMENT 'x'",
        Spark,
    );
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Syntax, "COMMENT"));
    assert!(e.help.unwrap_or_default().contains(", m COMMENT"));

    let (kind, focus) = one(
        "ALTER TABLE t ALTER COLUMN m COMMENT 'unit is kilobytes per second'",
        Spark,
    );
    assert_eq!(
        kind,
        ChangeKind::UpdateDoc {
            path: path("m"),
            doc: Some("unit is kilobytes per second".into())
        }
    );
    assert_eq!(focus, "m");

    let (kind, focus) = one(
        "ALTER TABLE t ALTER COLUMN price TYPE decimal(12, 2)",
        Spark,
    );
    assert_eq!(
        kind,
        ChangeKind::UpdateType {
            path: path("price"),
            new_type: P::Decimal {
                precision: 12,
                scale: 2
            }
        }
    );
    assert_eq!(focus, "decimal(12, 2)");
}

#[test]
fn spark_refuses_a_change_to_a_type_no_iceberg_column_casts_up_to() {
    for text in [
        "ALTER TABLE t ALTER COLUMN n TYPE smallint",
        "ALTER TABLE t ALTER COLUMN n TYPE TINYINT",
        "ALTER TABLE t ALTER COLUMN n TYPE short",
        "ALTER TABLE t CHANGE COLUMN n n byte",
    ] {
        let (error, at) = error(text, Spark);
        assert!(
            error.message.contains("NOT_SUPPORTED_CHANGE_COLUMN"),
            "{text}: {}",
            error.message
        );
        assert_eq!(at, text.rsplit(' ').next().unwrap_or_default(), "{text}");
    }
    // Hive's own CHANGE COLUMN and a new column's type are not Spark's ALTER COLUMN check.
    let (kind, _) = one("ALTER TABLE t CHANGE COLUMN n n smallint", Hive);
    assert!(matches!(
        kind,
        ChangeKind::UpdateType {
            new_type: P::Int,
            ..
        }
    ));
    assert_eq!(
        changes("ALTER TABLE t ADD COLUMN n smallint", Spark).len(),
        1
    );
}

#[test]
fn spark_moves_point_at_the_position_clause() {
    let (kind, focus) = one("ALTER TABLE t ALTER COLUMN col FIRST", Spark);
    assert_eq!(
        kind,
        ChangeKind::Move {
            path: path("col"),
            position: Position::First
        }
    );
    assert_eq!(focus, "FIRST");

    let expected = ChangeKind::Move {
        path: path("nested.col"),
        position: Position::After("other_col".into()),
    };
    let (kind, focus) = one(
        "ALTER TABLE t ALTER COLUMN nested.col AFTER other_col",
        Spark,
    );
    assert_eq!((kind, focus.as_str()), (expected, "AFTER other_col"));
    // COLUMN is optional in Spark.
    let (kind, _) = one("ALTER TABLE t ALTER col AFTER b", Spark);
    assert_eq!(
        kind,
        ChangeKind::Move {
            path: path("col"),
            position: Position::After("b".into())
        }
    );
}

#[test]
fn spark_after_must_name_a_sibling() {
    // Spark's grammar takes one identifier after AFTER; a path is a syntax error there.
    let text = "ALTER TABLE t ALTER COLUMN nested.col AFTER other.col";
    let (e, snip) = error(text, Spark);
    assert_eq!(e.kind, DdlErrorKind::Syntax);
    assert_eq!(snip, "other.col");
    assert_eq!(
        e.message,
        "Spark names the column after `AFTER` alone, not by its path"
    );
    assert_eq!(e.help.as_deref(), Some("write `AFTER col`"));
    let (e, snip) = error("ALTER TABLE t ADD COLUMN a.b int AFTER c.d", Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Syntax, "c.d"));
}

#[test]
fn spark_nullability_changes() {
    let (kind, focus) = one(
        "ALTER TABLE prod.db.sample ALTER COLUMN id DROP NOT NULL",
        Spark,
    );
    assert_eq!(
        kind,
        ChangeKind::SetRequired {
            path: path("id"),
            required: false
        }
    );
    assert_eq!(focus, "id");
    let (kind, _) = one("ALTER TABLE t ALTER COLUMN a.b SET NOT NULL", Spark);
    assert_eq!(
        kind,
        ChangeKind::SetRequired {
            path: path("a.b"),
            required: true
        }
    );
}

#[test]
fn spark_drops() {
    let (kind, focus) = one("ALTER TABLE prod.db.sample DROP COLUMN point.z", Spark);
    assert_eq!(
        kind,
        ChangeKind::Drop {
            path: path("point.z"),
            if_exists: false
        }
    );
    assert_eq!(focus, "point.z");
    let text = "ALTER TABLE t DROP COLUMNS IF EXISTS (a, b.c)";
    let changes = changes(text, Spark);
    let got: Vec<_> = changes
        .iter()
        .map(|c| (c.kind.clone(), snippet(text, c.origin.focus)))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                ChangeKind::Drop {
                    path: path("a"),
                    if_exists: true
                },
                "a".to_string()
            ),
            (
                ChangeKind::Drop {
                    path: path("b.c"),
                    if_exists: true
                },
                "b.c".to_string()
            ),
        ]
    );
    assert_eq!(kinds("ALTER TABLE t DROP COLUMN a, b", Spark).len(), 2);
}

#[test]
fn spark_identifier_fields() {
    let text = "ALTER TABLE prod.db.sample SET IDENTIFIER FIELDS id, data";
    let (kind, focus) = one(text, Spark);
    assert_eq!(
        kind,
        ChangeKind::SetIdentifierFields {
            paths: vec![path("id"), path("data")]
        }
    );
    assert_eq!(focus, "id, data");
    let (kind, _) = one("ALTER TABLE t DROP IDENTIFIER FIELDS id", Spark);
    assert_eq!(
        kind,
        ChangeKind::DropIdentifierFields {
            paths: vec![path("id")]
        }
    );
}

#[test]
fn spark_change_column() {
    assert_eq!(
        kinds("ALTER TABLE t CHANGE COLUMN c TYPE bigint", Spark),
        vec![ChangeKind::UpdateType {
            path: path("c"),
            new_type: P::Long
        }]
    );
    // Hive's form without a rename.
    assert_eq!(
        kinds("ALTER TABLE t CHANGE c c bigint COMMENT 'd' FIRST", Spark),
        vec![
            ChangeKind::UpdateType {
                path: path("c"),
                new_type: P::Long
            },
            ChangeKind::UpdateDoc {
                path: path("c"),
                doc: Some("d".into())
            },
            ChangeKind::Move {
                path: path("c"),
                position: Position::First
            },
        ]
    );
    let (e, snip) = error("ALTER TABLE t CHANGE COLUMN a b int", Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Invalid, "b"));
    assert!(e.help.unwrap_or_default().contains("RENAME COLUMN a TO b"));
}

#[test]
fn quoted_identifiers_keep_case_and_dots() {
    let text = "ALTER TABLE `my db`.t ADD COLUMN `Point`.`Z.z` int";
    let statements = ok(text, Spark);
    assert_eq!(statements[0].table, "`my db`.t");
    assert_eq!(snippet(text, statements[0].table_span), "`my db`.t");
    let (kind, focus) = one(text, Spark);
    assert_eq!(kind, add("Point", new_field("Z.z", prim(P::Int)), None));
    assert_eq!(focus, "`Point`.`Z.z` int");

    let text = r#"ALTER TABLE "Sales".orders RENAME COLUMN "a.b"."C" TO "New.Name""#;
    let (kind, focus) = one(text, Trino);
    assert_eq!(
        kind,
        ChangeKind::Rename {
            path: FieldPath(vec!["a.b".into(), "C".into()]),
            new_name: "New.Name".into()
        }
    );
    assert_eq!(focus, r#""a.b"."C""#);
    assert_eq!(ok(text, Trino)[0].table, r#""Sales".orders"#);
}

#[test]
fn spark_strings_take_double_quotes_and_backslash_escapes() {
    let (kind, _) = one(
        r#"ALTER TABLE t ALTER COLUMN a COMMENT "it's \"fine\"""#,
        Spark,
    );
    assert_eq!(
        kind,
        ChangeKind::UpdateDoc {
            path: path("a"),
            doc: Some(r#"it's "fine""#.into())
        }
    );
    let (kind, _) = one(r"ALTER TABLE t ALTER COLUMN a COMMENT 'it\'s'", Spark);
    assert_eq!(
        kind,
        ChangeKind::UpdateDoc {
            path: path("a"),
            doc: Some("it's".into())
        }
    );
}

#[test]
fn spark_create_table() {
    let text = "CREATE TABLE IF NOT EXISTS prod.db.events (
        id bigint NOT NULL COMMENT 'unique id',
        ts timestamp,
        s string,
        tags array<string>
    ) USING iceberg
    PARTITIONED BY (bucket(16, id), days(ts), truncate(4, s), s, years(ts), month(ts), hours(ts), date(ts), truncate(s, 2))
    LOCATION 's3://bucket/events'
    COMMENT 'all events'
    TBLPROPERTIES ('format-version'='2', write.format.default = 'parquet', 'x' 1)";
    let statements = ok(text, Spark);
    assert_eq!(statements.len(), 1);
    assert_eq!(statements[0].table, "prod.db.events");
    let StatementKind::CreateTable(create) = &statements[0].kind else {
        panic!("not a create")
    };
    let mut id = new_field("id", prim(P::Long));
    id.required = true;
    id.doc = Some("unique id".into());
    let term = |transform: &str, column: &str| PartitionTerm {
        transform: transform.into(),
        column: column.into(),
    };
    let expected = CreateTable {
        fields: vec![
            id,
            new_field("ts", prim(P::Timestamptz)),
            new_field("s", prim(P::String)),
            new_field(
                "tags",
                Type::List(crate::iceberg::types::ListType {
                    element_id: 0,
                    element_required: false,
                    element: Box::new(prim(P::String)),
                }),
            ),
        ],
        partition_by: vec![
            term("bucket[16]", "id"),
            term("day", "ts"),
            term("truncate[4]", "s"),
            term("identity", "s"),
            term("year", "ts"),
            term("month", "ts"),
            term("hour", "ts"),
            term("day", "ts"),
            term("truncate[2]", "s"),
        ],
        properties: vec![
            ("comment".into(), "all events".into()),
            ("format-version".into(), "2".into()),
            ("write.format.default".into(), "parquet".into()),
            ("x".into(), "1".into()),
        ],
        location: Some("s3://bucket/events".into()),
    };
    assert_eq!(create, &expected);
}

#[test]
fn create_table_errors() {
    let (e, snip) = error("CREATE TABLE t (a int) USING parquet", Spark);
    assert_eq!(
        (e.kind, snip.as_str()),
        (DdlErrorKind::Unsupported, "parquet")
    );
    let (e, snip) = error("CREATE TABLE t (a int) PARTITIONED BY (zorder(a))", Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Invalid, "zorder"));
    let (e, snip) = error("CREATE TABLE t (a int) PARTITIONED BY (bucket(a))", Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Syntax, "bucket(a)"));
    let (e, snip) = error("CREATE TABLE t AS SELECT 1", Spark);
    assert_eq!(
        (e.kind, snip.as_str()),
        (DdlErrorKind::Unsupported, "AS SELECT 1")
    );
    let (e, snip) = error(
        "CREATE TABLE t (a int) CLUSTERED BY (a) INTO 4 BUCKETS",
        Spark,
    );
    assert_eq!(e.kind, DdlErrorKind::Unsupported);
    assert_eq!(snip, "CLUSTERED BY (a) INTO 4 BUCKETS");
    assert_eq!(
        e.message,
        "fieldgate does not model the `CLUSTERED` clause of CREATE TABLE"
    );
}

// ---- Trino -------------------------------------------------------------------------------------

#[test]
fn trino_add_column_forms() {
    let text = "ALTER TABLE IF EXISTS lake.users ADD COLUMN IF NOT EXISTS nickname varchar COMMENT 'shown name'";
    let (kind, focus) = one(text, Trino);
    let mut field = new_field("nickname", prim(P::String));
    field.doc = Some("shown name".into());
    assert_eq!(kind, add("", field, None));
    assert_eq!(focus, "nickname varchar");
    assert_eq!(ok(text, Trino)[0].table, "lake.users");

    let text =
        "ALTER TABLE t ADD COLUMN \"Home.Address\" row(street varchar(200), zip integer) NOT NULL";
    let (kind, focus) = one(text, Trino);
    let ChangeKind::AddField { parent, field, .. } = kind else {
        panic!("not an add")
    };
    assert_eq!(parent, path(""));
    assert_eq!(field.name, "Home.Address");
    assert!(field.required);
    assert_eq!(
        field.field_type.to_string(),
        "struct<street: string, zip: int>"
    );
    assert_eq!(
        focus,
        "\"Home.Address\" row(street varchar(200), zip integer)"
    );

    let (kind, _) = one("ALTER TABLE t ADD COLUMN a.b bigint AFTER c", Trino);
    assert_eq!(
        kind,
        add(
            "a",
            new_field("b", prim(P::Long)),
            Some(Position::After("c".into()))
        )
    );
    let (kind, _) = one("ALTER TABLE t ADD COLUMN b bigint LAST", Trino);
    assert_eq!(kind, add("", new_field("b", prim(P::Long)), None));
    let (e, snip) = error("ALTER TABLE t ADD COLUMNS a int", Trino);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Syntax, "COLUMNS"));
    assert_eq!(e.message, "expected `COLUMN`, found `COLUMNS`");
    // Trino adds one column per statement.
    let (e, snip) = error("ALTER TABLE t ADD COLUMN a int, b int", Trino);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Syntax, ","));
}

#[test]
fn trino_alter_rename_drop() {
    let (kind, focus) = one(
        "ALTER TABLE users ALTER COLUMN id SET DATA TYPE bigint",
        Trino,
    );
    assert_eq!(
        kind,
        ChangeKind::UpdateType {
            path: path("id"),
            new_type: P::Long
        }
    );
    assert_eq!(focus, "bigint");
    let (kind, focus) = one(
        "ALTER TABLE t ALTER COLUMN ts SET DATA TYPE timestamp(6) with time zone",
        Trino,
    );
    assert_eq!(
        kind,
        ChangeKind::UpdateType {
            path: path("ts"),
            new_type: P::Timestamptz
        }
    );
    assert_eq!(focus, "timestamp(6) with time zone");
    let (kind, _) = one("ALTER TABLE t ALTER COLUMN id DROP NOT NULL", Trino);
    assert_eq!(
        kind,
        ChangeKind::SetRequired {
            path: path("id"),
            required: false
        }
    );
    let (kind, focus) = one("ALTER TABLE t RENAME COLUMN IF EXISTS a TO b", Trino);
    assert_eq!(
        kind,
        ChangeKind::Rename {
            path: path("a"),
            new_name: "b".into()
        }
    );
    assert_eq!(focus, "a");
    let (kind, focus) = one("ALTER TABLE t DROP COLUMN IF EXISTS r.f", Trino);
    assert_eq!(
        kind,
        ChangeKind::Drop {
            path: path("r.f"),
            if_exists: true
        }
    );
    assert_eq!(focus, "r.f");
    // A row type cannot be set with SET DATA TYPE through this model.
    let (e, snip) = error(
        "ALTER TABLE t ALTER COLUMN r SET DATA TYPE row(a int)",
        Trino,
    );
    assert_eq!(
        (e.kind, snip.as_str()),
        (DdlErrorKind::Invalid, "row(a int)")
    );
    // Iceberg's Spark extensions are not Trino.
    let (e, _) = error("ALTER TABLE t SET IDENTIFIER FIELDS id", Trino);
    assert_eq!(e.kind, DdlErrorKind::Unsupported);
}

#[test]
fn trino_comment_on_column() {
    let text = "COMMENT ON COLUMN lake.users.email IS 'primary contact'";
    let statements = ok(text, Trino);
    assert_eq!(statements[0].table, "lake.users");
    assert_eq!(snippet(text, statements[0].table_span), "lake.users");
    let (kind, focus) = one(text, Trino);
    assert_eq!(
        kind,
        ChangeKind::UpdateDoc {
            path: path("email"),
            doc: Some("primary contact".into())
        }
    );
    assert_eq!(focus, "email");
    let (kind, _) = one("COMMENT ON COLUMN t.c IS NULL", Trino);
    assert_eq!(
        kind,
        ChangeKind::UpdateDoc {
            path: path("c"),
            doc: None
        }
    );
}

#[test]
fn trino_create_table_with_properties() {
    let text = "CREATE TABLE IF NOT EXISTS lake.events (
        id bigint NOT NULL,
        ts timestamp(6) with time zone COMMENT 'event time',
        \"Kind\" varchar,
        tags array(varchar),
        attrs map(varchar, row(a integer, b double))
    )
    COMMENT 'events'
    WITH (
        format_version = 2,
        format = 'PARQUET',
        partitioning = ARRAY['bucket(id, 16)', 'day(ts)', '\"Kind\"', 'truncate(\"Kind\", 4)', 'void(id)'],
        sorted_by = ARRAY['ts'],
        location = 's3://lake/events'
    )";
    let statements = ok(text, Trino);
    let StatementKind::CreateTable(create) = &statements[0].kind else {
        panic!("not a create")
    };
    let names: Vec<_> = create.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["id", "ts", "Kind", "tags", "attrs"]);
    let types: Vec<_> = create
        .fields
        .iter()
        .map(|f| f.field_type.to_string())
        .collect();
    assert_eq!(
        types,
        [
            "long",
            "timestamptz",
            "string",
            "list<string>",
            "map<string, struct<a: int, b: double>>"
        ]
    );
    let terms: Vec<_> = create
        .partition_by
        .iter()
        .map(|t| format!("{}({})", t.transform, t.column))
        .collect();
    assert_eq!(
        terms,
        [
            "bucket[16](id)",
            "day(ts)",
            "identity(Kind)",
            "truncate[4](Kind)",
            "void(id)"
        ]
    );
    assert_eq!(
        create.properties,
        vec![
            ("comment".to_string(), "events".to_string()),
            ("format-version".into(), "2".into()),
            ("write.format.default".into(), "PARQUET".into()),
            ("sorted_by".into(), "ARRAY['ts']".into()),
        ]
    );
    assert_eq!(create.location.as_deref(), Some("s3://lake/events"));
}

#[test]
fn trino_partition_errors_point_inside_the_string() {
    let text =
        "CREATE TABLE t (id bigint) WITH (partitioning = ARRAY['bucket(id, 16)', 'zorder(id)'])";
    let (e, snip) = error(text, Trino);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Invalid, "zorder"));
    let (e, snip) = error(
        "CREATE TABLE t (id bigint) WITH (partitioning = ARRAY['day(id) x'])",
        Trino,
    );
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Syntax, "x"));
}

// ---- Hive --------------------------------------------------------------------------------------

#[test]
fn hive_change_column_renames_retypes_documents_and_moves() {
    let text = "ALTER TABLE db.t CHANGE COLUMN a b bigint COMMENT 'now b' AFTER c CASCADE";
    let changes = changes(text, Hive);
    let got: Vec<_> = changes
        .iter()
        .map(|c| (c.kind.clone(), snippet(text, c.origin.focus)))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                ChangeKind::Rename {
                    path: path("a"),
                    new_name: "b".into()
                },
                "a".to_string()
            ),
            (
                ChangeKind::UpdateType {
                    path: path("a"),
                    new_type: P::Long
                },
                "bigint".to_string()
            ),
            (
                ChangeKind::UpdateDoc {
                    path: path("a"),
                    doc: Some("now b".into())
                },
                "a".to_string()
            ),
            (
                ChangeKind::Move {
                    path: path("a"),
                    position: Position::After("c".into())
                },
                "AFTER c".to_string()
            ),
        ]
    );
    // No rename when the name stays.
    assert_eq!(
        kinds("ALTER TABLE t CHANGE a a int", Hive),
        vec![ChangeKind::UpdateType {
            path: path("a"),
            new_type: P::Int
        }]
    );
}

#[test]
fn hive_create_table_with_typed_partition_columns_and_timestamps() {
    let text = "CREATE EXTERNAL TABLE t (id int, ts timestamp, tz timestamp with local time zone)
        PARTITIONED BY (dt string COMMENT 'day') STORED BY ICEBERG STORED AS ORC";
    let statements = ok(text, Hive);
    let StatementKind::CreateTable(create) = &statements[0].kind else {
        panic!("not a create")
    };
    let types: Vec<_> = create
        .fields
        .iter()
        .map(|f| format!("{}: {}", f.name, f.field_type))
        .collect();
    assert_eq!(
        types,
        ["id: int", "ts: timestamp", "tz: timestamptz", "dt: string"]
    );
    assert_eq!(
        create.partition_by,
        vec![PartitionTerm {
            transform: "identity".into(),
            column: "dt".into()
        }]
    );
    assert_eq!(
        create.properties,
        vec![("write.format.default".to_string(), "orc".to_string())]
    );
    let text = "CREATE TABLE t (id int) PARTITIONED BY SPEC (bucket(4, id)) STORED BY ICEBERG";
    let StatementKind::CreateTable(create) = &ok(text, Hive)[0].kind else {
        panic!("not a create")
    };
    assert_eq!(create.partition_by[0].transform, "bucket[4]");
}

// ---- types -------------------------------------------------------------------------------------

/// The Iceberg type a column type string becomes, through ADD COLUMN.
fn type_of(ty: &str, dialect: Dialect) -> String {
    let (kind, _) = one(&format!("ALTER TABLE t ADD COLUMN c {ty}"), dialect);
    match kind {
        ChangeKind::AddField { field, .. } => field.field_type.to_string(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn spark_type_names() {
    for (ty, iceberg) in [
        ("boolean", "boolean"),
        ("TINYINT", "int"),
        ("byte", "int"),
        ("smallint", "int"),
        ("short", "int"),
        ("int", "int"),
        ("integer", "int"),
        ("bigint", "long"),
        ("long", "long"),
        ("float", "float"),
        ("real", "float"),
        ("double", "double"),
        ("decimal", "decimal(10, 0)"),
        ("dec(5)", "decimal(5, 0)"),
        ("numeric(38, 38)", "decimal(38, 38)"),
        ("date", "date"),
        ("timestamp", "timestamptz"),
        ("timestamp_ntz", "timestamp"),
        ("string", "string"),
        ("varchar(10)", "string"),
        ("char(3)", "string"),
        ("character(3)", "string"),
        ("timestamp(6)", "timestamptz"),
        ("timestamp_ltz(6)", "timestamptz"),
        ("timestamp_ntz(6)", "timestamp"),
        ("binary", "binary"),
        ("variant", "variant"),
        (
            "map<string, struct<a int, b: array<long>>>",
            "map<string, struct<a: int, b: list<long>>>",
        ),
    ] {
        assert_eq!(type_of(ty, Spark), iceberg, "{ty}");
    }
    assert_eq!(type_of("double precision", Hive), "double");
}

#[test]
fn spark_refuses_the_type_names_its_parser_refuses() {
    for (ty, kind, snip, help) in [
        ("text", DdlErrorKind::UnknownType, "text", "Spark types are"),
        (
            "double precision",
            DdlErrorKind::UnknownType,
            "double precision",
            "write `double`",
        ),
        (
            "varchar",
            DdlErrorKind::InvalidType,
            "varchar",
            "write `varchar(n)`",
        ),
        ("char", DdlErrorKind::InvalidType, "char", "write `char(n)`"),
        ("timestamp(3)", DdlErrorKind::InvalidType, "(3)", "`(6)`"),
        (
            "timestamp_ntz(9)",
            DdlErrorKind::InvalidType,
            "(9)",
            "`(6)`",
        ),
    ] {
        let (e, found) = error(&format!("ALTER TABLE t ADD COLUMN c {ty}"), Spark);
        assert_eq!((e.kind, found.as_str()), (kind, snip), "{ty}");
        assert!(e.help.unwrap_or_default().contains(help), "{ty}");
    }
    let (e, _) = error("ALTER TABLE t ADD COLUMN c varchar", Hive);
    assert_eq!(e.message, "Hive requires a length for `varchar`");
}

#[test]
fn trino_and_hive_type_names() {
    for (ty, iceberg) in [
        ("integer", "int"),
        ("real", "float"),
        ("double precision", "double"),
        ("decimal", "decimal(38, 0)"),
        ("decimal(10, 2)", "decimal(10, 2)"),
        ("varchar", "string"),
        ("varchar(255)", "string"),
        ("varbinary", "binary"),
        ("uuid", "uuid"),
        ("time(6)", "time"),
        ("timestamp", "timestamp"),
        ("timestamp(6)", "timestamp"),
        ("timestamp(3) without time zone", "timestamp"),
        ("timestamp(9)", "timestamp_ns"),
        ("timestamp(9) with time zone", "timestamptz_ns"),
        (
            "array(map(varchar, row(x integer)))",
            "list<map<string, struct<x: int>>>",
        ),
        ("array<bigint>", "list<long>"),
    ] {
        assert_eq!(type_of(ty, Trino), iceberg, "{ty}");
    }
    assert_eq!(type_of("timestamp", Hive), "timestamp");
    assert_eq!(type_of("array<timestamp>", Hive), "list<timestamp>");
}

#[test]
fn type_errors_are_located() {
    let (e, snip) = error("ALTER TABLE t ADD COLUMN c foo", Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::UnknownType, "foo"));
    assert_eq!(e.message, "unknown Spark type `foo`");
    assert!(
        e.help
            .unwrap_or_default()
            .starts_with("Spark types are: boolean")
    );

    let (e, snip) = error(
        "ALTER TABLE t ADD COLUMN c struct<a: int, b: whatever>",
        Spark,
    );
    assert_eq!(
        (e.kind, snip.as_str()),
        (DdlErrorKind::UnknownType, "whatever")
    );

    let (e, snip) = error("ALTER TABLE t ALTER COLUMN c TYPE decimal(40,2)", Spark);
    assert_eq!(
        (e.kind, snip.as_str()),
        (DdlErrorKind::InvalidType, "decimal(40,2)")
    );
    assert_eq!(e.message, "decimal precision 40 is out of range");

    let (e, snip) = error("ALTER TABLE t ALTER COLUMN c TYPE decimal(4, 5)", Spark);
    assert_eq!(
        (e.kind, snip.as_str()),
        (DdlErrorKind::InvalidType, "decimal(4, 5)")
    );

    let (e, snip) = error("ALTER TABLE t ADD COLUMN c uuid", Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::UnknownType, "uuid"));

    let (e, snip) = error("ALTER TABLE t ADD COLUMN c interval", Spark);
    assert_eq!(e.message, "type `interval` has no Iceberg equivalent");
    assert_eq!(snip, "interval");

    let (e, snip) = error("ALTER TABLE t ADD COLUMN c time(6) with time zone", Trino);
    assert_eq!(
        (e.kind, snip.as_str()),
        (DdlErrorKind::UnknownType, "time(6) with time zone")
    );

    // One closer too many: the second half of `>>` is a stray token.
    let (e, snip) = error(
        "ALTER TABLE t ADD COLUMN c map<int,int>> COMMENT 'x'",
        Spark,
    );
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Syntax, ">"));
    assert_eq!(e.message, "expected the end of the statement, found `>`");
    let text = "ALTER TABLE t ADD COLUMN c map<int,int>> COMMENT 'x'";
    assert_eq!(e.span.offset, text.find(">>").unwrap_or(0) + 1);

    let (e, snip) = error("ALTER TABLE t ADD COLUMN c array<int", Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Syntax, ""));
    assert_eq!(e.message, "expected `>`, found the end of the statement");

    // Deep nesting is an error, not a stack overflow.
    let deep = format!(
        "ALTER TABLE t ADD COLUMN c {}int{}",
        "array<".repeat(5000),
        ">".repeat(5000)
    );
    let (e, _) = error(&deep, Spark);
    assert_eq!(e.kind, DdlErrorKind::InvalidType);
}

// ---- files, errors and recovery ----------------------------------------------------------------

#[test]
fn files_with_comments_and_empty_statements() {
    let text = "-- migration 0042: widen ids
;;
/* a block
   comment */ ALTER TABLE db.t ALTER COLUMN id TYPE bigint; -- trailing

ALTER TABLE db.t ADD COLUMN note string -- no semicolon before this comment
;
/* only a comment */;
ALTER TABLE db.t DROP COLUMN old";
    let statements = ok(text, Spark);
    assert_eq!(statements.len(), 3);
    let spans: Vec<_> = statements.iter().map(|s| snippet(text, s.span)).collect();
    assert_eq!(
        spans,
        [
            "ALTER TABLE db.t ALTER COLUMN id TYPE bigint",
            "ALTER TABLE db.t ADD COLUMN note string",
            "ALTER TABLE db.t DROP COLUMN old"
        ]
    );
    assert!(ok("", Spark).is_empty());
    assert!(ok("  -- nothing\n", Trino).is_empty());
}

#[test]
fn spans_are_bytes_across_unicode_tabs_and_crlf() {
    let text = "-- größe\r\n\tALTER TABLE t\r\n\tADD COLUMN `größe`\tdécimal;\r\nALTER TABLE t ADD COLUMN `ñ` int";
    let (statements, errors) = parse(text, Spark);
    assert_eq!(errors.len(), 1);
    assert_eq!(snippet(text, errors[0].span), "décimal");
    assert_eq!(statements.len(), 1);
    let StatementKind::Alter(changes) = &statements[0].kind else {
        panic!("not an alter")
    };
    assert_eq!(snippet(text, changes[0].origin.focus), "`ñ` int");
    let text = "ALTER TABLE t\r\n  ADD COLUMN \"ä.b\" row(\"ü\" varchar)";
    let (_, focus) = one(text, Trino);
    assert_eq!(focus, "\"ä.b\" row(\"ü\" varchar)");
}

#[test]
fn unknown_statements_are_located_errors() {
    let text = "INSERT INTO t VALUES (1)";
    let (e, snip) = error(text, Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Unsupported, text));
    assert_eq!(
        e.message,
        "fieldgate does not model `INSERT INTO` statements"
    );

    for (text, action, from) in [
        (
            "ALTER TABLE prod.db.sample SET LOCATION 's3://b/t'",
            "SET LOCATION",
            "SET LOCATION 's3://b/t'",
        ),
        ("ALTER TABLE t RENAME TO u", "RENAME TO", "RENAME TO u"),
    ] {
        let (e, snip) = error(text, Spark);
        assert_eq!(e.kind, DdlErrorKind::Unsupported, "{text}");
        assert_eq!(
            e.message,
            format!("fieldgate does not model `ALTER TABLE ... {action}`")
        );
        assert_eq!(snip, from);
    }
    let (e, _) = error("ALTER TABLE t EXECUTE optimize", Trino);
    assert_eq!(
        e.message,
        "fieldgate does not model `ALTER TABLE ... EXECUTE OPTIMIZE`"
    );
    let (e, _) = error("DROP TABLE IF EXISTS t", Trino);
    assert_eq!(
        e.message,
        "fieldgate does not model `DROP TABLE` statements"
    );
}

#[test]
fn syntax_errors_are_located() {
    let (e, snip) = error("ALTER TABLE t RENAME COLUMN a b", Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Syntax, "b"));
    assert_eq!(e.message, "expected `TO`, found `b`");

    let (e, snip) = error("asdf qwer", Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Syntax, "asdf"));
    assert_eq!(e.message, "expected an SQL statement, found `asdf`");

    let (e, snip) = error("ALTER TABLE t ADD COLUMN 12 int", Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Syntax, "12"));
    assert_eq!(e.message, "expected a column name, found `12`");

    let (e, snip) = error("ALTER TABLE t ADD COLUMN", Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Syntax, ""));
    assert_eq!(e.span.offset, "ALTER TABLE t ADD COLUMN".len());

    let (e, snip) = error("ALTER TABLE t ALTER COLUMN a TYPE int extra", Spark);
    assert_eq!(
        (snip.as_str(), e.message.as_str()),
        ("extra", "expected the end of the statement, found `extra`")
    );

    let (e, snip) = error(
        "ALTER TABLE t ADD COLUMN a int COMMENT 'x' COMMENT 'y'",
        Spark,
    );
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Syntax, "COMMENT"));

    let (e, snip) = error("ALTER TABLE t ADD COLUMN a int DEFAULT 0", Spark);
    assert_eq!(
        (e.kind, snip.as_str()),
        (DdlErrorKind::Unsupported, "DEFAULT")
    );

    let (e, snip) = error("ALTER TABLE t ALTER COLUMN a SET DEFAULT 1", Spark);
    assert_eq!(
        (e.kind, snip.as_str()),
        (DdlErrorKind::Unsupported, "SET DEFAULT 1")
    );
    let (e, snip) = error("ALTER TABLE t ALTER COLUMN a SET foo", Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Syntax, "SET"));

    let (e, snip) = error("ALTER TABLE t RENAME COLUMN a TO b.c", Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Invalid, "b.c"));

    let (e, snip) = error("ALTER TABLE t ADD COLUMN `` int", Spark);
    assert_eq!((e.kind, snip.as_str()), (DdlErrorKind::Invalid, "``"));

    // sqlparser's own recursion limit guards the fallback.
    let (e, _) = error(
        &format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000)),
        Spark,
    );
    assert_eq!(e.kind, DdlErrorKind::Syntax);
}

#[test]
fn unterminated_string_is_reported_and_parsing_continues() {
    let text = "ALTER TABLE t ALTER COLUMN c COMMENT 'oops;\nALTER TABLE t DROP COLUMN d;";
    let (statements, errors) = parse(text, Spark);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].kind, DdlErrorKind::Lexical);
    assert_eq!(errors[0].message, "unterminated string literal");
    assert_eq!(snippet(text, errors[0].span), "'oops");
    assert_eq!(statements.len(), 1);
    assert_eq!(
        snippet(text, statements[0].span),
        "ALTER TABLE t DROP COLUMN d"
    );

    // An apostrophe inside a Trino string: the error is at the last quote, the help says how to
    // escape it.
    let text = "ALTER TABLE a ADD COLUMN x int;\nCOMMENT ON COLUMN t.c IS 'it's';\nALTER TABLE b DROP COLUMN y";
    let (statements, errors) = parse(text, Trino);
    assert_eq!(statements.len(), 2);
    assert_eq!(errors.len(), 1);
    assert_eq!(snippet(text, errors[0].span), "'");
    assert!(errors[0].help.as_deref().unwrap_or_default().contains("''"));

    // In Spark and Hive the help escapes the quote with a backslash, which both read as a
    // quote; `''` is one quote to Spark but nothing to Hive.
    for dialect in [Spark, Hive] {
        let (e, _) = error("ALTER TABLE t ALTER COLUMN c COMMENT 'it's'", dialect);
        assert!(
            e.help.as_deref().unwrap_or_default().contains(r"`\'`"),
            "{e:?}"
        );
    }

    // A raw string has no escapes: its help says what does hold the quote, as written where the
    // string is unterminated (a raw string never closed, or a quote meant inside one).
    for (text, quote, advice) in [
        (
            "ALTER TABLE t ALTER COLUMN c COMMENT r'abc",
            '\'',
            r#"`r"it's"`"#,
        ),
        (
            "ALTER TABLE t ALTER COLUMN c COMMENT r'it's'",
            '\'',
            r"`'it\'s'`",
        ),
        (
            "ALTER TABLE t ALTER COLUMN c COMMENT r'it''",
            '\'',
            r#"`r"it's"`"#,
        ),
        (
            r#"ALTER TABLE t ALTER COLUMN c COMMENT R"say "hi""#,
            '"',
            r#"`r'say "hi"'`"#,
        ),
    ] {
        let (e, _) = error(text, Spark);
        let help = e.help.unwrap_or_default();
        assert!(
            help.contains(&format!("ends at the first `{quote}`")) && help.contains(advice),
            "{text}: {help}"
        );
        assert!(!help.contains(r"`\'`"), "{text}: {help}");
    }
    // Hive has no raw strings: `r` is a word there, and the help is Hive's.
    let (e, _) = error("ALTER TABLE t CHANGE c c int COMMENT r'it's'", Hive);
    assert!(!e.help.unwrap_or_default().contains("raw"));

    // Unterminated at the end of the file.
    let (statements, errors) = parse(
        "ALTER TABLE t DROP COLUMN a; ALTER TABLE t ALTER COLUMN b COMMENT 'x",
        Spark,
    );
    assert_eq!((statements.len(), errors.len()), (1, 1));
    let (_, errors) = parse("ALTER TABLE t DROP COLUMN `a", Spark);
    assert_eq!(errors[0].kind, DdlErrorKind::Lexical);
    let (_, errors) = parse("/* never closed", Spark);
    assert_eq!(errors.len(), 1);
}

#[test]
fn a_bad_statement_between_good_ones() {
    let text = "ALTER TABLE t ADD COLUMN a int;\nALTER TABLE t ADD COLUMN b nosuchtype;\nALTER TABLE t DROP COLUMN c;";
    let (statements, errors) = parse(text, Spark);
    assert_eq!(statements.len(), 2);
    assert_eq!(errors.len(), 1);
    assert_eq!(snippet(text, errors[0].span), "nosuchtype");
    let spans: Vec<_> = statements.iter().map(|s| snippet(text, s.span)).collect();
    assert_eq!(
        spans,
        [
            "ALTER TABLE t ADD COLUMN a int",
            "ALTER TABLE t DROP COLUMN c"
        ]
    );
}

#[test]
fn all_errors_of_a_file_are_collected_in_order() {
    let text = "SELECT 1;\nALTER TABLE t ALTER COLUMN c COMMENT 'x;\nALTER TABLE t ADD COLUMN a bogus;\nALTER TABLE t RENAME COLUMN a b;\nALTER TABLE t DROP COLUMN ok";
    let Err(errors) = parse_sql(source(text), Spark) else {
        panic!("expected errors")
    };
    let got: Vec<_> = errors
        .errors
        .iter()
        .map(|e| (e.kind, snippet(text, e.span)))
        .collect();
    assert_eq!(
        got,
        vec![
            (DdlErrorKind::Unsupported, "SELECT 1".to_string()),
            (DdlErrorKind::Lexical, "'x".to_string()),
            (DdlErrorKind::UnknownType, "bogus".to_string()),
            (DdlErrorKind::Syntax, "b".to_string()),
        ]
    );
    assert_eq!(errors.to_string(), "4 DDL errors in migration.sql");
    use miette::Diagnostic;
    assert_eq!(errors.related().map(|r| r.count()), Some(4));
    assert!(errors.source_code().is_some());
}

#[test]
fn errors_render_with_miette() {
    let Err(errors) = parse_sql(source("ALTER TABLE t ADD COLUMN c foo"), Spark) else {
        panic!("expected errors")
    };
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .render_report(&mut out, &errors)
        .unwrap_or_default();
    assert!(out.contains("unknown Spark type `foo`"), "{out}");
    assert!(out.contains("fieldgate::ddl::unknown-type"), "{out}");
    assert!(out.contains("migration.sql:1:28"), "{out}");
}

/// A realistic migration, cut at every char boundary: parsing must never panic, and whatever
/// it returns must have spans inside the text.
#[test]
fn every_prefix_of_a_migration_parses_without_panicking() {
    let files = [
        (
            Spark,
            "-- 0007: évolution du schéma
ALTER TABLE prod.db.sample ADD COLUMNS (new_column string comment 'new_column docs', n2 int NOT NULL FIRST);
ALTER TABLE prod.db.sample ADD COLUMN points map<struct<x: int>, struct<a: array<struct<b: int>>>>;
ALTER TABLE prod.db.sample RENAME COLUMN location.lat TO latitude;
/* widen */ ALTER TABLE prod.db.sample ALTER COLUMN measurement TYPE decimal(12,2), measurement COMMENT 'it\\'s \"ok\"';
ALTER TABLE prod.db.sample ALTER COLUMN nested.col AFTER other_col;
ALTER TABLE `prod`.`db`.`sample` DROP COLUMNS IF EXISTS (`a.b`, c.d);
ALTER TABLE prod.db.sample SET IDENTIFIER FIELDS id, data;
ALTER TABLE prod.db.sample ADD PARTITION FIELD bucket(16, id);
CREATE TABLE t (id bigint NOT NULL, ts timestamp) USING iceberg PARTITIONED BY (days(ts)) TBLPROPERTIES ('format-version'='2');
INSERT INTO t VALUES (1, now());",
        ),
        (
            Trino,
            "ALTER TABLE IF EXISTS lake.users ADD COLUMN IF NOT EXISTS \"Nick.Name\" varchar(20) NOT NULL COMMENT 'ünïcode';
ALTER TABLE lake.users ALTER COLUMN id SET DATA TYPE bigint;
COMMENT ON COLUMN lake.users.email IS 'x';
CREATE TABLE e (id bigint, r row(a integer, b array(map(varchar, double)))) WITH (partitioning = ARRAY['bucket(id, 16)'], format_version = 2);",
        ),
        (
            Hive,
            "ALTER TABLE t ADD COLUMNS (s array<struct<c: timestamp>>) CASCADE;
ALTER TABLE t CHANGE COLUMN a b timestamp COMMENT 'x' AFTER c CASCADE;
ALTER TABLE t CHANGE a b bigint;",
        ),
    ];
    for (dialect, text) in files {
        for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let prefix = &text[..end];
            let (statements, errors) = parse(prefix, dialect);
            for span in statements
                .iter()
                .flat_map(|s| [s.span, s.table_span])
                .chain(errors.iter().map(|e| e.span))
            {
                assert!(
                    span.end() <= prefix.len() && prefix.is_char_boundary(span.offset),
                    "{dialect} prefix {end}: span {span:?}"
                );
            }
        }
        // The whole file: only the statements fieldgate does not model are errors.
        let (_, errors) = parse(text, dialect);
        assert!(
            errors.iter().all(|e| e.kind == DdlErrorKind::Unsupported),
            "{dialect}: {errors:#?}"
        );
    }
}

/// Garbage of every kind: random-ish byte soup built from SQL fragments must not panic.
#[test]
fn fragment_soup_never_panics() {
    let fragments = [
        "ALTER",
        "TABLE",
        "t",
        "ADD",
        "COLUMN",
        "COLUMNS",
        "(",
        ")",
        "<",
        ">",
        ">>",
        ",",
        ";",
        "'",
        "\"",
        "`",
        "struct",
        "array",
        "map",
        "row",
        ":",
        ".",
        "decimal(",
        "9",
        "NOT",
        "NULL",
        "FIRST",
        "AFTER",
        "--",
        "/*",
        "*/",
        "CREATE",
        "PARTITIONED",
        "BY",
        "WITH",
        "ARRAY[",
        "]",
        "=",
        "é",
        "\n",
        "CHANGE",
        "TYPE",
        "SET",
        "DATA",
        "DROP",
        "RENAME",
        "TO",
        "COMMENT",
        "ON",
        "IS",
        "IDENTIFIER",
        "FIELDS",
        "\\",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..400 {
        let mut text = String::new();
        for _ in 0..40 {
            // xorshift: deterministic, no dependency.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            text.push_str(fragments[(state % fragments.len() as u64) as usize]);
            text.push(' ');
        }
        for dialect in Dialect::ALL {
            let (statements, errors) = parse(&text, dialect);
            for span in statements
                .iter()
                .map(|s| s.span)
                .chain(errors.iter().map(|e| e.span))
            {
                assert!(span.end() <= text.len(), "{text}");
            }
        }
    }
}

/// The comment a one-change statement sets.
fn doc_of(text: &str, dialect: Dialect) -> Option<String> {
    match one(text, dialect).0 {
        ChangeKind::UpdateDoc { doc, .. } => doc,
        other => panic!("{text}: not a comment change: {other:?}"),
    }
}

#[test]
fn string_literals_read_as_each_engine_unescapes_them() {
    // What Spark 4.3's own parser reads (tests/spark/corpus.sql holds these and more).
    for (literal, value) in [
        (r"'\u00e9t\u00e9'", "été"),
        (r"'\U0001F600 \uD83D\uDE00'", "😀 😀"),
        (r"'\101\a\f\q'", "Aafq"),
        (r"'100\% \_'", r"100\% \_"),
        ("'it''s'", "it's"),
        (r#""d""q""#, "d\"q"),
        ("'a' 'b'\n  \"c\"", "abc"),
        (r"r'raw\n' R'\t'", r"raw\n\t"),
    ] {
        let text = format!("ALTER TABLE t ALTER COLUMN a COMMENT {literal}");
        assert_eq!(doc_of(&text, Spark).as_deref(), Some(value), "{literal}");
    }
    // Hive has no eight-digit escape and no raw strings; Trino has only `''`.
    let hive = changes(r"ALTER TABLE t CHANGE a a int COMMENT '\U0001F600'", Hive);
    assert_eq!(
        hive[1].kind,
        ChangeKind::UpdateDoc {
            path: path("a"),
            doc: Some("U0001F600".into())
        }
    );
    assert_eq!(
        doc_of(r"COMMENT ON COLUMN t.a IS 'a\n''b'", Trino).as_deref(),
        Some(r"a\n'b")
    );
    // A lone surrogate cannot be written to metadata: located, with what to write instead.
    let (e, snip) = error(r"ALTER TABLE t ALTER COLUMN a COMMENT 'x\uD83D'", Spark);
    assert_eq!(snip, r"'x\uD83D'");
    assert!(e.message.contains("surrogate"), "{}", e.message);
}

#[test]
fn hive_takes_one_string_literal_where_spark_joins_several() {
    // Hive's lexer makes one StringLiteral of quoted parts with nothing between them, and its
    // grammar takes one after COMMENT: a part after a space is a second literal, refused.
    let doc = |text: &str| match &changes(text, Hive)[1].kind {
        ChangeKind::UpdateDoc { doc, .. } => doc.clone(),
        other => panic!("{text}: {other:?}"),
    };
    assert_eq!(
        doc(r#"ALTER TABLE t CHANGE a a int COMMENT 'a'"b""#).as_deref(),
        Some("ab")
    );
    let (e, snip) = error("ALTER TABLE t CHANGE a a int COMMENT 'a' 'b'", Hive);
    assert_eq!(snip, "'b'");
    assert!(
        e.message.contains("Hive takes one string literal"),
        "{}",
        e.message
    );
    assert_eq!(e.help.as_deref(), Some("write the text as one literal"));
}

#[test]
fn spark_raw_strings_end_at_the_first_quote_as_spark_lexes_them() {
    // What Spark 4.3's own parser reads (tests/spark/corpus.sql): a raw string has no escapes,
    // so a backslash before its closing quote is part of the value, and a doubled quote ends it
    // next to another literal.
    for (literal, value) in [
        (r#"r'a\' R"b\""#, r"a\b\"),
        (r#"r'a''b' R"c""d""#, "abcd"),
        (r#"r'x\' 'y\'' r"z'\""#, r"x\y'z'\"),
        (r"r'a;\'", r"a;\"),
    ] {
        let text = format!("ALTER TABLE t ALTER COLUMN a COMMENT {literal}");
        assert_eq!(doc_of(&text, Spark).as_deref(), Some(value), "{literal}");
    }
    let two = changes(
        r"ALTER TABLE t ALTER COLUMN a COMMENT r'x\', b COMMENT 'y\''",
        Spark,
    );
    let docs: Vec<_> = two
        .iter()
        .map(|c| match &c.kind {
            ChangeKind::UpdateDoc { doc, .. } => doc.clone(),
            other => panic!("not a comment change: {other:?}"),
        })
        .collect();
    assert_eq!(docs, [Some(r"x\".to_string()), Some("y'".to_string())]);
    // The statement after a raw string is found, and its errors located, in the original text.
    let text = "ALTER TABLE t ALTER COLUMN a COMMENT r'x\\';\nALTER TABLE t ADD COLUMN b foo";
    let (statements, errors) = parse(text, Spark);
    assert_eq!(statements.len(), 1, "{errors:#?}");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(snippet(text, errors[0].span), "foo");
    // Spark refuses a raw string without its closing quote; Hive has no raw strings, so there
    // `\'` escapes the quote and the literal is unterminated.
    let (e, _) = error(r"ALTER TABLE t ALTER COLUMN a COMMENT r'x\", Spark);
    assert!(e.message.contains("nterminated"), "{}", e.message);
    let (_, errors) = parse(r"ALTER TABLE t CHANGE a a int COMMENT r'x\'", Hive);
    assert_eq!(errors.len(), 1, "{errors:#?}");
}

#[test]
fn spark_takes_several_columns_case_variants_and_comment_on() {
    let changes = changes(
        "ALTER TABLE t ALTER COLUMN a COMMENT 'x', b.c COMMENT 'y', d TYPE bigint",
        Spark,
    );
    assert_eq!(changes.len(), 3);
    assert_eq!(
        changes[1].kind,
        ChangeKind::UpdateDoc {
            path: path("b.c"),
            doc: Some("y".into())
        }
    );
    // The new name differs only in case: Spark's resolver reads no rename.
    let (kind, _) = one("ALTER TABLE t CHANGE COLUMN c C bigint", Spark);
    assert!(matches!(kind, ChangeKind::UpdateType { .. }), "{kind:?}");
    assert_eq!(
        doc_of("COMMENT ON COLUMN db.t.c IS 'x'", Spark).as_deref(),
        Some("x")
    );
}

#[test]
fn spark_refuses_what_its_parser_refuses_and_says_what_it_takes() {
    for (text, snip, says) in [
        (
            "ALTER TABLE t ALTER COLUMN a SET DATA TYPE bigint",
            "DATA",
            "`ALTER COLUMN a TYPE ...`",
        ),
        (
            "ALTER TABLE t ADD COLUMNS (a int) CASCADE",
            "CASCADE",
            "remove it",
        ),
        ("ALTER TABLE t ADD COLUMN été int", "été", "`été`"),
        (
            "ALTER /*+ REPARTITION(2) */ TABLE t ADD COLUMN a int",
            "/*+ REPARTITION(2) */",
            "/* ... */",
        ),
        (
            "ALTER TABLE t ADD COLUMN k int AFTER s.y",
            "s.y",
            "`AFTER y`",
        ),
    ] {
        let (e, found) = error(text, Spark);
        assert_eq!(found, snip, "{text}");
        assert!(e.help.unwrap_or_default().contains(says), "{text}");
    }
    // Hive keeps its own forms.
    assert_eq!(
        changes("ALTER TABLE t ADD COLUMNS (a int) CASCADE", Hive).len(),
        1
    );
    assert_eq!(
        changes("ALTER TABLE t ALTER COLUMN a SET DATA TYPE bigint", Trino).len(),
        1
    );
}
