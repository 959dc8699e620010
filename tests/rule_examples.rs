//! Every example of every rule in `rules/*.yaml` runs here: each `fail` proposal must raise the
//! rule at its declared severity, each `pass` proposal must not raise it. The docs users read
//! with `fieldgate explain` are therefore the behaviour the tests pin.

use std::sync::Arc;

use fieldgate::change::{SourceFile, Statement};
use fieldgate::finding::Severity;
use fieldgate::frontend::ddl::{Dialect, parse_sql};
use fieldgate::frontend::schema_file::SchemaFile;
use fieldgate::judge::{Settings, judge_table};
use fieldgate::rules::Compatibility;
use fieldgate::rules::catalogue::{RuleDoc, catalogue};

/// The rule's findings for one example proposal.
fn raised(doc: &RuleDoc, base: &str, compatibility: Option<&str>, sql: &str) -> Vec<Severity> {
    let described = SchemaFile::parse_yaml(base)
        .and_then(|file| file.to_table_metadata())
        .unwrap_or_else(|e| panic!("{}: example base does not parse: {e:?}", doc.name));
    let mapping = described.mapping;
    let compatibility = compatibility
        .map(|c| {
            Compatibility::parse(c)
                .unwrap_or_else(|| panic!("{}: unknown compatibility {c}", doc.name))
        })
        .unwrap_or(Compatibility::BACKWARD);
    let mut settings = Settings::new(mapping, compatibility);
    // A rule that is off by default is switched on to run its own examples.
    settings.severities.insert(
        doc.name.clone(),
        Some(doc.severity.unwrap_or(Severity::Warning)),
    );
    let source = Arc::new(SourceFile {
        name: format!("rules/{}.yaml", doc.name),
        text: sql.to_string(),
    });
    let statements = parse_sql(source, Dialect::Spark)
        .unwrap_or_else(|e| panic!("{}: example does not parse: {sql}\n{e:?}", doc.name));
    let statements: Vec<&Statement> = statements.iter().collect();
    let judged = judge_table(
        &described.table,
        &described.metadata,
        &statements,
        &settings,
        "2026-11-30",
    );
    judged
        .findings
        .iter()
        .filter(|f| f.rule == doc.name)
        .map(|f| f.severity)
        .collect()
}

#[test]
fn every_rule_example_behaves_as_documented() {
    let docs = catalogue().expect("the catalogue parses");
    let mut checked = 0;
    let mut failures = Vec::new();
    for doc in docs {
        let expected = doc.severity.unwrap_or(Severity::Warning);
        for example in &doc.examples {
            let compatibility = example.compatibility.as_deref();
            for sql in &example.fail {
                let severities = raised(doc, &example.base, compatibility, sql);
                if severities.is_empty() || severities.iter().any(|s| *s != expected) {
                    failures.push(format!(
                        "{}: should raise it at {expected}, got {severities:?}:\n  {sql}",
                        doc.name
                    ));
                }
                checked += 1;
            }
            for sql in &example.pass {
                let severities = raised(doc, &example.base, compatibility, sql);
                if !severities.is_empty() {
                    failures.push(format!(
                        "{}: should pass, raised {severities:?}:\n  {sql}",
                        doc.name
                    ));
                }
                checked += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} example(s) disagree with their rule:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 60, "only {checked} examples ran");
}
