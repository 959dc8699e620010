//! The JSON report, version 1. Field order is fixed by construction (serde_json keeps
//! insertion order). Extensions to the documented shape are additive: `related` on a diagnostic
//! that has related places, `table` on suppressed findings, `verification` on a table whose
//! sample data files were read (the `files` of the `verify` document), `applied_migrations` (each
//! migration a routed run left out because HEAD has it applied, with its table), and `errors` (with the located
//! problems) only when the run could not judge, so a script gets a document to parse even with
//! exit code 2.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::finding::{Finding, Location};
use crate::report::{Reporter, Run};
use crate::session::plan::routing::slashed;
use crate::verify::report::json as verify_json;

pub struct Json;

impl Reporter for Json {
    fn write(&self, run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &document(run))?;
        writeln!(out)
    }
}

fn location(l: &Location) -> Value {
    json!({"file": l.file, "line": l.line, "column": l.column, "offset": l.span.offset, "length": l.span.len})
}

fn diagnostic(f: &Finding) -> Value {
    let mut d = Map::new();
    d.insert("rule".into(), f.rule.into());
    d.insert("severity".into(), f.severity.as_str().into());
    d.insert("message".into(), f.message.clone().into());
    d.insert("table".into(), f.table.clone().into());
    d.insert("field".into(), f.field.clone().into());
    d.insert("field_id".into(), f.field_id.into());
    if let Some(l) = f.location() {
        d.insert("location".into(), location(&l));
    }
    d.insert("help".into(), f.help.clone().into());
    if !f.related.is_empty() {
        let related = f
            .related
            .iter()
            .map(|r| {
                let mut m = Map::new();
                m.insert("message".into(), r.message.clone().into());
                if let Some(o) = &r.origin {
                    m.insert("location".into(), location(&crate::finding::locate(o)));
                }
                Value::Object(m)
            })
            .collect();
        d.insert("related".into(), Value::Array(related));
    }
    Value::Object(d)
}

fn document(run: &Run<'_>) -> Value {
    let diagnostics: Vec<Value> = run.findings().into_iter().map(diagnostic).collect();
    let suppressed: Vec<Value> = run
        .suppressed()
        .into_iter()
        .map(|s| {
            let location = s
                .finding
                .location()
                .map(|l| json!({"file": l.file, "line": l.line, "column": l.column}));
            json!({"rule": s.finding.rule, "table": s.finding.table, "message": s.finding.message, "reason": s.reason, "until": s.until, "location": location})
        })
        .collect();
    let mut changes = Vec::new();
    let mut tables = Vec::new();
    for table in &run.tables {
        let judgement = table.judgement;
        for c in &judgement.evolution.applied {
            changes.push(json!({"table": judgement.table, "kind": c.kind.as_str(), "field_id": c.field_id, "path": c.path, "from": c.from, "to": c.to}));
        }
        let metadata = &judgement.evolution.metadata;
        let assigned: Vec<Value> = judgement
            .evolution
            .assigned
            .iter()
            .map(|a| json!({"path": a.path, "field_id": a.field_id}))
            .collect();
        let mut entry = Map::new();
        entry.insert("table".into(), judgement.table.clone().into());
        entry.insert("schema_id".into(), metadata.current_schema_id.into());
        entry.insert("last_column_id".into(), metadata.last_column_id.into());
        entry.insert("assigned".into(), assigned.into());
        if let Some(v) = &judgement.verification {
            let files: Vec<Value> = v.files.iter().map(verify_json::file).collect();
            entry.insert(
                "verification".into(),
                json!({"passed": v.passed(), "schema_id": v.schema_id, "rows": v.rows(), "files": files}),
            );
        }
        tables.push(Value::Object(entry));
    }
    let mut report = Map::new();
    report.insert("version".into(), 1.into());
    report.insert("passed".into(), run.passed.into());
    report.insert("diagnostics".into(), diagnostics.into());
    report.insert("suppressed".into(), suppressed.into());
    report.insert("changes".into(), changes.into());
    report.insert("tables".into(), tables.into());
    if !run.applied.is_empty() {
        let applied: Vec<Value> = run
            .applied
            .iter()
            .map(|a| json!({"file": slashed(&a.path), "table": a.table}))
            .collect();
        report.insert("applied_migrations".into(), applied.into());
    }
    if run.failure.is_some() {
        let errors: Vec<Value> = run
            .errors()
            .iter()
            .map(|e| {
                let mut m = Map::new();
                m.insert("message".into(), e.message.clone().into());
                if let Some(l) = e.location() {
                    m.insert("location".into(), location(&l));
                }
                m.insert("help".into(), e.help.clone().into());
                Value::Object(m)
            })
            .collect();
        report.insert("errors".into(), errors.into());
    }
    Value::Object(report)
}
