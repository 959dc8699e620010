//! Helpers for rule unit tests: small tables from JSON, DDL run through the real front-end,
//! evolve and every rule.

use std::sync::Arc;

use crate::change::{SourceFile, StatementKind};
use crate::evolve::evolve;
use crate::frontend::ddl::{Dialect, parse_sql};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::schema::{Field, Schema};
use crate::rules::{Compatibility, Context, History, Mapping, RuleOptions, run};

/// Rules that fire on almost every change; most tests look past them.
const AMBIENT: [&str; 4] = [
    "column-drop",
    "column-rename",
    "missing-doc",
    "reader-cache-refresh",
];

/// A table as Iceberg Java would accept it: no specs is the unpartitioned spec, no orders the
/// unsorted order, and `last-partition-id` the highest partition field id.
pub fn metadata(version: u8, fields: &str, specs: &str, sort_orders: &str) -> TableMetadata {
    let specs = if specs == "[]" {
        r#"[{"spec-id":0,"fields":[]}]"#
    } else {
        specs
    };
    let sort_orders = if sort_orders == "[]" {
        r#"[{"order-id":0,"fields":[]}]"#
    } else {
        sort_orders
    };
    let last_partition_id = serde_json::from_str::<serde_json::Value>(specs)
        .ok()
        .and_then(|specs| {
            specs
                .as_array()?
                .iter()
                .flat_map(|spec| spec["fields"].as_array().cloned().unwrap_or_default())
                .filter_map(|field| field["field-id"].as_i64())
                .max()
        })
        .unwrap_or(999);
    let text = format!(
        r#"{{"format-version":{version},"table-uuid":"00000000-0000-4000-8000-000000000000","location":"/t","last-sequence-number":0,"next-row-id":0,"last-updated-ms":0,"last-column-id":100,"current-schema-id":0,
        "schemas":[{{"type":"struct","schema-id":0,"identifier-field-ids":[],"fields":{fields}}}],
        "partition-specs":{specs},"default-spec-id":0,"last-partition-id":{last_partition_id},"sort-orders":{sort_orders},"default-sort-order-id":1}}"#
    );
    let root = crate::json::parse(&text).expect("test metadata is JSON");
    let mut table = TableMetadata::from_json(&root).expect("test metadata is Iceberg");
    table.last_column_id = table.current_schema().highest_field_id();
    table
}

pub fn table_with(version: u8, fields: &str) -> TableMetadata {
    metadata(version, fields, "[]", "[]")
}

/// `id` (identifier), `ts` (source of the current spec), `region` (source of an older spec),
/// `note` (sorted by), `comment`, `qty`; `status` was dropped in an earlier schema.
pub fn table_with_history() -> TableMetadata {
    let fields = r#"[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"ts","required":false,"type":"timestamptz"},{"id":3,"name":"region","required":false,"type":"string"},{"id":4,"name":"status","required":false,"type":"string","doc":"user review state"},{"id":5,"name":"note","required":false,"type":"string"},{"id":6,"name":"comment","required":false,"type":"string"},{"id":7,"name":"qty","required":false,"type":"int"}]"#;
    let specs = r#"[{"spec-id":0,"fields":[{"source-id":3,"field-id":1000,"name":"region","transform":"identity"}]},{"spec-id":1,"fields":[{"source-id":2,"field-id":1001,"name":"ts_day","transform":"day"}]}]"#;
    let orders = r#"[{"order-id":1,"fields":[{"source-id":5,"transform":"identity","direction":"asc","null-order":"nulls-first"}]}]"#;
    let mut table = metadata(2, fields, specs, orders);
    table.default_spec_id = 1;
    let mut current = Schema::clone(&table.schemas[0]);
    current.schema_id = 1;
    current.identifier_field_ids = vec![1];
    current.fields.retain(|f| f.name != "status");
    table.schemas.push(Arc::new(current));
    table.current_schema_id = 1;
    table
}

/// `before` plus a new current schema made by editing every field of the current one.
pub fn with_new_schema(before: &TableMetadata, edit: impl Fn(&mut Field)) -> TableMetadata {
    let mut after = before.clone();
    let mut schema = before.current_schema().clone();
    schema.schema_id = before
        .schemas
        .iter()
        .map(|s| s.schema_id)
        .max()
        .unwrap_or(0)
        + 1;
    schema.fields.iter_mut().for_each(edit);
    after.current_schema_id = schema.schema_id;
    after.schemas.push(Arc::new(schema));
    after
}

fn rule_names(
    base: &TableMetadata,
    sql: &str,
    dialect: Dialect,
    mapping: Mapping,
    compatibility: Compatibility,
    keep_ambient: bool,
) -> Vec<&'static str> {
    names(
        findings(base, sql, dialect, mapping, compatibility),
        keep_ambient,
    )
}

/// Every finding of `sql`, ambient ones included: its rule and its message.
pub fn judged(
    base: &TableMetadata,
    sql: &str,
    compatibility: Compatibility,
) -> Vec<(&'static str, String)> {
    findings(base, sql, Dialect::Spark, Mapping::FieldId, compatibility)
        .into_iter()
        .map(|f| (f.rule, f.message))
        .collect()
}

fn findings(
    base: &TableMetadata,
    sql: &str,
    dialect: Dialect,
    mapping: Mapping,
    compatibility: Compatibility,
) -> Vec<crate::finding::Finding> {
    let source = Arc::new(SourceFile {
        name: "test.sql".into(),
        text: sql.to_string(),
    });
    let statements = parse_sql(source, dialect).expect("test SQL parses");
    let lists: Vec<&[crate::change::Change]> = statements
        .iter()
        .filter_map(|s| match &s.kind {
            StatementKind::Alter(changes) => Some(changes.as_slice()),
            StatementKind::CreateTable(_) => None,
        })
        .collect();
    let evolution = evolve(base, lists);
    assert!(
        evolution.problems.is_empty(),
        "{sql}: {:?}",
        evolution.problems
    );
    let history = History::of(base);
    let cx = Context {
        table: "t",
        before: base,
        after: &evolution.metadata,
        applied: &evolution.applied,
        mapping,
        compatibility,
        history: &history,
        options: &RuleOptions::default(),
        today: 0,
        anchors: &Default::default(),
    };
    run(&cx, &|_| Some(crate::finding::Severity::Error))
}

fn names(findings: Vec<crate::finding::Finding>, keep_ambient: bool) -> Vec<&'static str> {
    findings
        .into_iter()
        .map(|f| f.rule)
        .filter(|r| keep_ambient || !AMBIENT.contains(r))
        .collect()
}

pub fn fired(base: &TableMetadata, sql: &str) -> Vec<&'static str> {
    rule_names(
        base,
        sql,
        Dialect::Spark,
        Mapping::FieldId,
        Compatibility::BACKWARD,
        false,
    )
}

pub fn fired_all(base: &TableMetadata, sql: &str) -> Vec<&'static str> {
    rule_names(
        base,
        sql,
        Dialect::Spark,
        Mapping::FieldId,
        Compatibility::BACKWARD,
        true,
    )
}

pub fn fired_with(base: &TableMetadata, sql: &str, mapping: Mapping) -> Vec<&'static str> {
    rule_names(
        base,
        sql,
        Dialect::Spark,
        mapping,
        Compatibility::BACKWARD,
        false,
    )
}

pub fn fired_dialect(base: &TableMetadata, sql: &str, dialect: Dialect) -> Vec<&'static str> {
    rule_names(
        base,
        sql,
        dialect,
        Mapping::FieldId,
        Compatibility::BACKWARD,
        false,
    )
}

pub fn fired_compat(
    base: &TableMetadata,
    sql: &str,
    compatibility: Compatibility,
) -> Vec<&'static str> {
    rule_names(
        base,
        sql,
        Dialect::Spark,
        Mapping::FieldId,
        compatibility,
        false,
    )
}

/// Rules fired by comparing two metadata states directly (as a metadata-file proposal would).
pub fn findings_between(before: &TableMetadata, after: &TableMetadata) -> Vec<&'static str> {
    let history = History::of(before);
    let cx = Context {
        table: "t",
        before,
        after,
        applied: &[],
        mapping: Mapping::FieldId,
        compatibility: Compatibility::BACKWARD,
        history: &history,
        options: &RuleOptions::default(),
        today: 0,
        anchors: &Default::default(),
    };
    names(run(&cx, &|_| Some(crate::finding::Severity::Error)), false)
}

/// Every finding (rule, severity, message) of `sql` judged as `check` judges it: with rule
/// options and the metadata file's version history, on `today` (`YYYY-MM-DD`).
pub fn judged_in_history(
    base: &TableMetadata,
    sql: &str,
    options: RuleOptions,
    file: Option<crate::rules::FileHistory>,
    today: &str,
) -> Vec<(&'static str, crate::finding::Severity, String)> {
    let source = Arc::new(SourceFile {
        name: "test.sql".into(),
        text: sql.to_string(),
    });
    let statements = parse_sql(source, Dialect::Spark).expect("test SQL parses");
    let refs: Vec<&crate::change::Statement> = statements.iter().collect();
    let mut settings = crate::judge::Settings::new(Mapping::FieldId, Compatibility::BACKWARD);
    settings.options = options;
    settings.file_history = file;
    crate::judge::judge_table("t", base, &refs, &settings, today)
        .expect("test migrations are small")
        .findings
        .into_iter()
        .map(|f| (f.rule, f.severity, f.message))
        .collect()
}

/// A commit as git history would describe it, on `date` (`YYYY-MM-DD`).
pub fn commit(id: &str, date: &str, author: &str) -> crate::rules::CommitInfo {
    crate::rules::CommitInfo {
        id: id.into(),
        date: date.into(),
        day: crate::suppress::unix_days_from_date(date).expect("test date"),
        author: author.into(),
    }
}
