//! Every example of every rule in `rules/*.yaml` runs here: each `fail` proposal must raise the
//! rule at its declared severity, each `pass` proposal must not raise it, whether it is written
//! as DDL (`fail`, `pass`) or as a schema file (`fail-schema`, `pass-schema`, read through the
//! same dispatcher and judge as `fieldgate lint`). The docs users read with `fieldgate explain`
//! are therefore the behaviour the tests pin.

use std::sync::Arc;

use fieldgate::change::{SourceFile, Statement};
use fieldgate::finding::Severity;
use fieldgate::frontend::ddl::{Dialect, parse_sql};
use fieldgate::frontend::schema_file::SchemaFile;
use fieldgate::judge::{Settings, judge_proposals, judge_table};
use fieldgate::proposal::Proposal;
use fieldgate::rules::Compatibility;
use fieldgate::rules::catalogue::{RuleDoc, catalogue};
use fieldgate::session::input::parse_proposal;

/// How an example proposal is written.
#[derive(Clone, Copy)]
enum Written {
    Ddl,
    SchemaFile,
}

/// The rule's findings for one example proposal.
fn raised(
    doc: &RuleDoc,
    base: &str,
    compatibility: Option<&str>,
    proposal: &str,
    written: Written,
) -> Vec<Severity> {
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
    if let Written::SchemaFile = written {
        // Named like a schema file, so the dispatcher reads it as one.
        let source = Arc::new(SourceFile {
            name: format!("rules/{}.example.yaml", doc.name),
            text: proposal.to_string(),
        });
        let parsed = parse_proposal(source, Dialect::Spark, Some(&described.metadata))
            .unwrap_or_else(|e| {
                panic!(
                    "{}: schema-file example does not read: {proposal}\n{e:?}",
                    doc.name
                )
            });
        if let Proposal::SchemaFile(file) = &parsed
            && file.file.stated.mapping.is_some()
        {
            settings.mapping = file.file.mapping;
        }
        let judged = judge_proposals(
            &described.table,
            &described.metadata,
            &[parsed],
            &settings,
            "2026-11-30",
        )
        .expect("examples are small");
        // A schema file that cannot apply at all proves nothing about the rule, unless the
        // rule is about exactly that.
        let about_problems = judged.findings.iter().any(|f| f.rule == doc.name);
        assert!(
            judged.evolution.problems.is_empty() || about_problems,
            "{}: schema-file example does not apply: {:?}\n{proposal}",
            doc.name,
            judged.evolution.problems
        );
        return judged
            .findings
            .iter()
            .filter(|f| f.rule == doc.name)
            .map(|f| f.severity)
            .collect();
    }
    let source = Arc::new(SourceFile {
        name: format!("rules/{}.yaml", doc.name),
        text: proposal.to_string(),
    });
    let statements = parse_sql(source, Dialect::Spark)
        .unwrap_or_else(|e| panic!("{}: example does not parse: {proposal}\n{e:?}", doc.name));
    let statements: Vec<&Statement> = statements.iter().collect();
    let judged = judge_table(
        &described.table,
        &described.metadata,
        &statements,
        &settings,
        "2026-11-30",
    )
    .expect("examples are small");
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
    let mut schema_checked = 0;
    let mut failures = Vec::new();
    for doc in docs {
        let expected = doc.severity.unwrap_or(Severity::Warning);
        for example in &doc.examples {
            let compatibility = example.compatibility.as_deref();
            let cases = [
                (&example.fail, true, Written::Ddl),
                (&example.pass, false, Written::Ddl),
                (&example.fail_schema, true, Written::SchemaFile),
                (&example.pass_schema, false, Written::SchemaFile),
            ];
            for (proposals, fails, written) in cases {
                for proposal in proposals {
                    let severities = raised(doc, &example.base, compatibility, proposal, written);
                    if fails && (severities.is_empty() || severities.iter().any(|s| *s != expected))
                    {
                        failures.push(format!(
                            "{}: should raise it at {expected}, got {severities:?}:\n  {proposal}",
                            doc.name
                        ));
                    }
                    if !fails && !severities.is_empty() {
                        failures.push(format!(
                            "{}: should pass, raised {severities:?}:\n  {proposal}",
                            doc.name
                        ));
                    }
                    checked += 1;
                    if let Written::SchemaFile = written {
                        schema_checked += 1;
                    }
                }
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
    assert!(
        schema_checked > 40,
        "only {schema_checked} schema-file examples ran"
    );
}
