//! The JSON report of CLI.md, version 1. Field order is fixed by construction.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::report::{Run, sorted_findings};

pub fn write(run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
    let judgement = run.judgement;
    let diagnostics: Vec<Value> = sorted_findings(&judgement.findings)
        .into_iter()
        .map(|f| {
            let mut d = Map::new();
            d.insert("rule".into(), f.rule.into());
            d.insert("severity".into(), f.severity.as_str().into());
            d.insert("message".into(), f.message.clone().into());
            d.insert("table".into(), f.table.clone().into());
            d.insert("field".into(), f.field.clone().into());
            d.insert("field_id".into(), f.field_id.into());
            if let Some(l) = f.location() {
                d.insert(
                    "location".into(),
                    json!({"file": l.file, "line": l.line, "column": l.column, "offset": l.span.offset, "length": l.span.len}),
                );
            }
            d.insert("help".into(), f.help.clone().into());
            Value::Object(d)
        })
        .collect();
    let suppressed: Vec<Value> = judgement
        .suppressed
        .iter()
        .map(|s| {
            let location = s.finding.location().map(|l| json!({"file": l.file, "line": l.line, "column": l.column}));
            json!({"rule": s.finding.rule, "message": s.finding.message, "reason": s.reason, "until": s.until, "location": location})
        })
        .collect();
    let changes: Vec<Value> = judgement
        .evolution
        .applied
        .iter()
        .map(|c| {
            json!({"table": judgement.table, "kind": c.kind.as_str(), "field_id": c.field_id, "path": c.path, "from": c.from, "to": c.to})
        })
        .collect();
    let metadata = &judgement.evolution.metadata;
    let assigned: Vec<Value> = judgement
        .evolution
        .assigned
        .iter()
        .map(|a| json!({"path": a.path, "field_id": a.field_id}))
        .collect();
    let report = json!({
        "version": 1,
        "passed": run.passed,
        "diagnostics": diagnostics,
        "suppressed": suppressed,
        "changes": changes,
        "tables": [{
            "table": judgement.table,
            "schema_id": metadata.current_schema_id,
            "last_column_id": metadata.last_column_id,
            "assigned": assigned,
        }],
    });
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}
