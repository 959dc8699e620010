//! The statements beside column changes: partition fields, properties, branches and tags, and
//! the session statements (`USE`, `SET`, `CALL`).

use std::sync::Arc;

use super::*;
use crate::change::{ChangeKind, PartitionTerm, SortTerm, SourceFile, StatementKind};

fn source(text: &str) -> Source {
    Arc::new(SourceFile {
        name: "migration.sql".into(),
        text: text.into(),
    })
}

fn kinds(text: &str, dialect: Dialect) -> Vec<(String, ChangeKind)> {
    match parse_sql(source(text), dialect) {
        Ok(statements) => statements
            .into_iter()
            .flat_map(|s| match s.kind {
                StatementKind::Alter(changes) => changes
                    .into_iter()
                    .map(|c| (s.table.clone(), c.kind))
                    .collect::<Vec<_>>(),
                StatementKind::CreateTable(_) => panic!("not an ALTER: {text}"),
            })
            .collect(),
        Err(errors) => panic!("{text}\n{:#?}", errors.errors),
    }
}

fn error(text: &str, dialect: Dialect) -> String {
    match parse_sql(source(text), dialect) {
        Ok(statements) => panic!("{text} parsed: {statements:#?}"),
        Err(errors) => errors
            .errors
            .iter()
            .map(|e| e.message.clone())
            .collect::<Vec<_>>()
            .join("; "),
    }
}

fn term(transform: &str, column: &str) -> PartitionTerm {
    PartitionTerm {
        transform: transform.into(),
        column: column.into(),
    }
}

#[test]
fn partition_fields_take_every_spark_transform() {
    let sql = "ALTER TABLE db.t ADD PARTITION FIELD bucket(16, id);
        ALTER TABLE db.t ADD PARTITION FIELD truncate(4, name) AS short;
        ALTER TABLE db.t ADD PARTITION FIELD years(ts);
        ALTER TABLE db.t ADD PARTITION FIELD hours(ts);
        ALTER TABLE db.t ADD PARTITION FIELD region;
        ALTER TABLE db.t DROP PARTITION FIELD ts_day;
        ALTER TABLE db.t DROP PARTITION FIELD days(ts);
        ALTER TABLE db.t REPLACE PARTITION FIELD months(ts) WITH days(ts) AS day";
    let got: Vec<ChangeKind> = kinds(sql, Dialect::Spark)
        .into_iter()
        .map(|(_, k)| k)
        .collect();
    assert_eq!(
        got,
        vec![
            ChangeKind::AddPartitionField {
                term: term("bucket[16]", "id"),
                name: None
            },
            ChangeKind::AddPartitionField {
                term: term("truncate[4]", "name"),
                name: Some("short".into())
            },
            ChangeKind::AddPartitionField {
                term: term("year", "ts"),
                name: None
            },
            ChangeKind::AddPartitionField {
                term: term("hour", "ts"),
                name: None
            },
            ChangeKind::AddPartitionField {
                term: term("identity", "region"),
                name: None
            },
            ChangeKind::DropPartitionField {
                term: term("identity", "ts_day")
            },
            ChangeKind::DropPartitionField {
                term: term("day", "ts")
            },
            ChangeKind::ReplacePartitionField {
                from: term("month", "ts"),
                to: term("day", "ts"),
                name: Some("day".into())
            },
        ]
    );
}

#[test]
fn trino_partitioning_and_properties() {
    let got = kinds(
        "ALTER TABLE t SET PROPERTIES partitioning = ARRAY['day(ts)', 'bucket(id, 8)'], format_version = 2",
        Dialect::Trino,
    );
    assert_eq!(
        got.into_iter().map(|(_, k)| k).collect::<Vec<_>>(),
        vec![
            ChangeKind::SetPartitioning {
                terms: vec![term("day", "ts"), term("bucket[8]", "id")]
            },
            ChangeKind::SetProperties {
                properties: vec![("format-version".into(), "2".into())]
            },
        ]
    );
    assert!(
        error(
            "ALTER TABLE t SET PROPERTIES sorted_by = ARRAY['id']",
            Dialect::Trino
        )
        .contains("Trino table property `sorted_by`")
    );
}

#[test]
fn tblproperties_set_and_unset() {
    let got = kinds(
        "ALTER TABLE t SET TBLPROPERTIES ('read.split.target-size' = '1', comment = 'x');
         ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS ('a', b.c)",
        Dialect::Spark,
    );
    assert_eq!(
        got.into_iter().map(|(_, k)| k).collect::<Vec<_>>(),
        vec![
            ChangeKind::SetProperties {
                properties: vec![
                    ("read.split.target-size".into(), "1".into()),
                    ("comment".into(), "x".into())
                ]
            },
            ChangeKind::UnsetProperties {
                keys: vec!["a".into(), "b.c".into()],
                if_exists: true
            },
        ]
    );
}

#[test]
fn use_qualifies_later_tables_and_session_statements_are_no_ops() {
    let got = kinds(
        "USE lake_prod; SET spark.sql.ansi.enabled = true;
         ALTER TABLE dim_users CREATE BRANCH IF NOT EXISTS audit RETAIN 7 DAYS;
         ALTER TABLE other.t DROP TAG v1;
         CALL spark_catalog.system.expire_snapshots(table => 'lake_prod.dim_users', retain_last => 5);
         CALL system.remove_orphan_files('lake_prod.dim_users');
         CALL system.rewrite_manifests(table => 'x'); RESET",
        Dialect::Spark,
    );
    let listed: Vec<(&str, &str)> = got
        .iter()
        .map(|(t, kind)| match kind {
            ChangeKind::NoSchemaEffect { statement } => (t.as_str(), statement.as_str()),
            other => panic!("{other:?}"),
        })
        .collect();
    // Each session statement is listed with the table statement after it, the last ones with
    // the last table statement.
    assert_eq!(
        listed,
        vec![
            ("lake_prod.dim_users", "USE lake_prod"),
            ("lake_prod.dim_users", "SET spark.sql.ansi.enabled = true"),
            ("lake_prod.dim_users", "CREATE BRANCH audit"),
            ("other.t", "DROP TAG v1"),
            ("lake_prod.dim_users", "CALL system.expire_snapshots"),
            ("lake_prod.dim_users", "CALL system.remove_orphan_files"),
            ("x", "CALL system.rewrite_manifests"),
            ("x", "RESET"),
        ]
    );
}

#[test]
fn session_statements_no_alter_carries_are_one_last_statement_naming_no_table() {
    let text = "USE lake_prod;\nSET a = b;\n";
    let statements = parse_sql(source(text), Dialect::Spark).unwrap();
    assert_eq!(statements.len(), 1, "{statements:#?}");
    let only = &statements[0];
    assert!(!only.names_table());
    assert_eq!(
        &text[only.span.offset..only.span.end()],
        "USE lake_prod;\nSET a = b"
    );
    let StatementKind::Alter(changes) = &only.kind else {
        panic!("{only:#?}")
    };
    let listed: Vec<&ChangeKind> = changes.iter().map(|c| &c.kind).collect();
    assert_eq!(
        listed,
        [
            &ChangeKind::NoSchemaEffect {
                statement: "USE lake_prod".into()
            },
            &ChangeKind::NoSchemaEffect {
                statement: "SET a = b".into()
            }
        ]
    );

    // Beside a CREATE TABLE, after it: the table judged takes them, as it takes the CREATE's.
    let text = "SET a = b;\nCREATE TABLE db.t (id bigint);\nRESET;\n";
    let statements = parse_sql(source(text), Dialect::Spark).unwrap();
    assert_eq!(statements.len(), 2, "{statements:#?}");
    assert!(matches!(statements[0].kind, StatementKind::CreateTable(_)));
    assert!(!statements[1].names_table());
    let StatementKind::Alter(changes) = &statements[1].kind else {
        panic!("{statements:#?}")
    };
    assert_eq!(changes.len(), 2);

    // An ALTER anywhere in the file carries them, and every statement names its table.
    let text = "SET a = b;\nALTER TABLE db.t DROP TAG v1;\nCREATE TABLE db.u (id bigint);\n";
    let statements = parse_sql(source(text), Dialect::Spark).unwrap();
    assert!(
        statements.iter().all(|s| s.names_table()),
        "{statements:#?}"
    );
    assert!(
        parse_sql(source("-- nothing\n"), Dialect::Spark)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn refresh_table_changes_nothing_and_is_spark_s() {
    let got = kinds("REFRESH TABLE `lake_prod`.dim_users", Dialect::Spark);
    assert_eq!(got[0].0, "`lake_prod`.dim_users");
    assert_eq!(
        got[0].1,
        ChangeKind::NoSchemaEffect {
            statement: "REFRESH TABLE".into()
        }
    );
    assert!(
        error("REFRESH TABLE lake_prod.dim_users", Dialect::Trino).contains("does not model"),
        "Trino has no REFRESH TABLE"
    );
}

#[test]
fn a_long_session_statement_is_listed_cut_and_on_one_line() {
    let setting = format!("SET spark.sql.x =\n   {};", "v".repeat(500));
    let got = kinds(
        &format!("{setting}\nCALL system.expire_snapshots();\nALTER TABLE db.t DROP TAG v1"),
        Dialect::Spark,
    );
    let ChangeKind::NoSchemaEffect { statement } = &got[0].1 else {
        panic!("{got:?}")
    };
    assert!(
        statement.starts_with("SET spark.sql.x = vvv"),
        "{statement}"
    );
    assert_eq!(statement.chars().count(), 123, "{statement}");
    assert!(statement.ends_with("v..."), "{statement}");
    assert_eq!(
        got[1].1,
        ChangeKind::NoSchemaEffect {
            statement: "CALL system.expire_snapshots".into()
        }
    );
}

#[test]
fn procedures_that_rewrite_or_are_unknown_are_refused_by_name() {
    let message = error(
        "CALL system.rewrite_data_files(table => 'db.t')",
        Dialect::Spark,
    );
    assert!(
        message.contains("`CALL system.rewrite_data_files`: it rewrites the table's data files"),
        "{message}"
    );
    let message = error("CALL system.frobnicate('db.t')", Dialect::Spark);
    assert!(
        message.contains("does not model the procedure `system.frobnicate`"),
        "{message}"
    );
    assert!(error("CALL system.expire_snapshots(", Dialect::Spark).contains("expected"));
}

#[test]
fn write_orders_set_the_sort_order_and_the_distribution() {
    let got: Vec<ChangeKind> = kinds(
        "ALTER TABLE t WRITE ORDERED BY id DESC, bucket(4, name) NULLS LAST;
         ALTER TABLE t WRITE LOCALLY ORDERED BY (id ASC NULLS LAST);
         ALTER TABLE t WRITE DISTRIBUTED BY PARTITION;
         ALTER TABLE t WRITE DISTRIBUTED BY PARTITION LOCALLY ORDERED BY days(ts);
         ALTER TABLE t WRITE UNORDERED",
        Dialect::Spark,
    )
    .into_iter()
    .map(|(_, k)| k)
    .collect();
    let sort = |transform: &str, column: &str, descending: bool, nulls_first: bool| SortTerm {
        term: term(transform, column),
        descending,
        nulls_first,
    };
    let order = |order: Vec<SortTerm>, distribution: &str| ChangeKind::SetWriteOrder {
        order,
        distribution: distribution.into(),
    };
    assert_eq!(
        got,
        vec![
            order(
                vec![
                    sort("identity", "id", true, false),
                    sort("bucket[4]", "name", false, false)
                ],
                "range"
            ),
            order(vec![sort("identity", "id", false, false)], "none"),
            order(vec![], "hash"),
            order(vec![sort("day", "ts", false, true)], "hash"),
            order(vec![], "none"),
        ]
    );
    assert!(error("ALTER TABLE t WRITE SORTED BY id", Dialect::Spark).contains("`ORDERED BY`"));
}
