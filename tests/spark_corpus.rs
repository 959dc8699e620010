//! fieldgate reads the Spark corpus (tests/spark/corpus.sql) as Spark's own parser does: it
//! accepts exactly the statements Spark accepts, and reads the same comment values from them.
//! What Spark reads is recorded in tests/spark/spark_reads.jsonl by tests/spark/spark_reads.py,
//! which `.ci/run` runs against pyspark to prove the record is still Spark's.

use std::fs;
use std::path::PathBuf;
use std::sync::Arc;

use fieldgate::change::{ChangeKind, SourceFile, StatementKind};
use fieldgate::frontend::ddl::{Dialect, parse_sql};

fn spark_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/spark")
}

/// Whether fieldgate accepts `sql` under the Spark dialect, and the comments it reads.
fn fieldgate_reads(sql: &str) -> (bool, Vec<String>) {
    let source = Arc::new(SourceFile {
        name: "corpus.sql".into(),
        text: sql.into(),
    });
    let Ok(statements) = parse_sql(source, Dialect::Spark) else {
        return (false, Vec::new());
    };
    let mut comments = Vec::new();
    for statement in statements {
        match statement.kind {
            StatementKind::Alter(changes) => {
                for change in changes {
                    match change.kind {
                        ChangeKind::UpdateDoc { doc: Some(doc), .. } => comments.push(doc),
                        ChangeKind::AddField { field, .. } => comments.extend(field.doc),
                        _ => {}
                    }
                }
            }
            StatementKind::CreateTable(create) => {
                comments.extend(create.fields.into_iter().filter_map(|f| f.doc));
            }
        }
    }
    (true, comments)
}

#[test]
fn fieldgate_reads_the_corpus_as_spark_reads_it() {
    let corpus = fs::read_to_string(spark_dir().join("corpus.sql")).unwrap();
    let statements: Vec<&str> = corpus
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("--"))
        .collect();
    let reads = fs::read_to_string(spark_dir().join("spark_reads.jsonl")).unwrap();
    let records: Vec<serde_json::Value> = reads
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        statements.len(),
        records.len(),
        "spark_reads.jsonl is stale: regenerate it with tests/spark/spark_reads.py --write"
    );
    let mut disagreements = Vec::new();
    for (sql, record) in statements.iter().zip(&records) {
        assert_eq!(record["sql"], *sql, "spark_reads.jsonl is stale");
        let spark_accepts = record["accepted"].as_bool().unwrap();
        let spark_comments: Vec<String> = record["comments"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c.as_str().map(String::from))
            .collect();
        let (accepts, comments) = fieldgate_reads(sql);
        if accepts != spark_accepts || (accepts && comments != spark_comments) {
            disagreements.push(format!(
                "{sql}\n  Spark: accepted {spark_accepts}, comments {spark_comments:?}\n  fieldgate: accepted {accepts}, comments {comments:?}"
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} statements read differently:\n{}",
        disagreements.len(),
        statements.len(),
        disagreements.join("\n")
    );
}
