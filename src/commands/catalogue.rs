//! `fieldgate rules` and `fieldgate explain RULE`: the catalogue of `rules/*.yaml`, as embedded.

use std::io::Write;

use serde_json::json;

use crate::cli::{CatalogueFormat, ExplainArgs, RulesArgs};
use crate::failure::Failure;
use crate::rules::catalogue::{RuleDoc, catalogue};
use crate::suggest::closest;

fn severity_name(doc: &RuleDoc) -> &'static str {
    doc.severity.map_or("off", |s| s.as_str())
}

fn docs() -> Result<&'static [RuleDoc], Failure> {
    catalogue().map_err(|e| Failure::Message(format!("the embedded rule catalogue is broken: {e}")))
}

fn write_failed(e: std::io::Error) -> Failure {
    Failure::Message(format!("cannot write the output: {e}"))
}

pub fn list(args: &RulesArgs, out: &mut dyn Write) -> Result<bool, Failure> {
    let docs = docs()?;
    match args.format {
        CatalogueFormat::Json => {
            let rules: Vec<_> = docs
                .iter()
                .map(|d| json!({"name": d.name, "severity": severity_name(d), "summary": d.summary, "why": d.why, "fix": d.fix}))
                .collect();
            serde_json::to_writer_pretty(&mut *out, &json!({"version": 1, "rules": rules}))
                .map_err(|e| write_failed(e.into()))?;
            writeln!(out).map_err(write_failed)?;
        }
        CatalogueFormat::Human => {
            let width = docs.iter().map(|d| d.name.len()).max().unwrap_or(0);
            for doc in docs {
                writeln!(
                    out,
                    "{:width$}  {:7}  {}",
                    doc.name,
                    severity_name(doc),
                    doc.summary
                )
                .map_err(write_failed)?;
            }
            writeln!(
                out,
                "\n`fieldgate explain <rule>` tells more about one rule."
            )
            .map_err(write_failed)?;
        }
    }
    Ok(true)
}

pub fn explain(args: &ExplainArgs, out: &mut dyn Write) -> Result<bool, Failure> {
    let docs = docs()?;
    let Some(doc) = docs.iter().find(|d| d.name == args.rule) else {
        let hint = closest(&args.rule, docs.iter().map(|d| d.name.as_str()))
            .map(|c| format!(" (did you mean `{c}`?)"))
            .unwrap_or_default();
        return Err(Failure::Message(format!(
            "no rule named `{}`{hint}; `fieldgate rules` lists them all",
            args.rule
        )));
    };
    let mut text = format!(
        "{} ({} by default)\n\n{}\n\nWhy\n{}\n\nWhat to do instead\n{}\n",
        doc.name,
        severity_name(doc),
        doc.summary,
        indent(&doc.why),
        indent(&doc.fix)
    );
    if let Some(note) = &doc.examples_note {
        text.push_str(&format!("\nExamples\n{}\n", indent(note)));
    }
    for example in &doc.examples {
        text.push_str(&format!("\nExample table\n{}\n", indent(&example.base)));
        if let Some(mode) = &example.compatibility {
            text.push_str(&format!("  (compatibility: {mode})\n"));
        }
        for sql in &example.fail {
            text.push_str(&format!(
                "  fails: {}\n",
                sql.trim().replace('\n', "\n         ")
            ));
        }
        for sql in &example.pass {
            text.push_str(&format!(
                "  passes: {}\n",
                sql.trim().replace('\n', "\n          ")
            ));
        }
        for (verdict, files) in [
            ("fails", &example.fail_schema),
            ("passes", &example.pass_schema),
        ] {
            for file in files {
                text.push_str(&format!(
                    "  {verdict} as a schema file:\n{}\n",
                    indent(&indent(file))
                ));
            }
        }
    }
    if let Some(note) = &doc.schema_examples_note {
        text.push_str(&format!("\nAs a schema file\n{}\n", indent(note)));
    }
    out.write_all(text.as_bytes()).map_err(write_failed)?;
    Ok(true)
}

fn indent(text: &str) -> String {
    text.trim_end()
        .lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
