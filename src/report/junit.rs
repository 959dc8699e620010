//! JUnit XML for CI dashboards: a test suite per table and a test case per rule, so a dashboard
//! shows which invariants each table kept. A rule with a finding at or above `--fail-on` fails;
//! its findings below that level are kept as the case's output; a rule that is off for the
//! table, or that this run did not judge (`metadata-drift` in `lint`), is skipped. Migrations a
//! routed run left out as applied at HEAD are skipped cases of an `applied at HEAD` suite. A run
//! that could not judge is one suite with an `<error>` per problem, as JUnit marks a test that
//! could not run.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::finding::{Finding, Severity};
use crate::report::{INPUT_ERROR, Reporter, Run, TableRun, sorted_findings};
use crate::session::plan::policy::RULE as POLICY;

pub struct Junit;

impl Reporter for Junit {
    fn write(&self, run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
        let mut suites = String::new();
        let (mut tests, mut failures, mut errors, mut skipped) = (0, 0, 0, 0);
        // The policy's findings are about the configuration, not a table: their own suite below.
        let findings = sorted_findings(run.tables.iter().flat_map(|t| &t.judgement.findings));
        for table in &run.tables {
            let suite = table_suite(table, &findings, run.fail_on);
            let _ = write!(
                suites,
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n{}  </testsuite>\n",
                xml(&table.judgement.table),
                suite.tests,
                suite.failures,
                suite.skipped,
                suite.cases
            );
            tests += suite.tests;
            failures += suite.failures;
            skipped += suite.skipped;
        }
        if let Some(first) = run.policy.first() {
            let failing = run.policy.iter().any(|x| x.severity >= run.fail_on);
            let body: Vec<String> = run.policy.iter().map(describe).collect();
            let body = xml_text(&body.join("\n\n"));
            let case = if failing {
                format!(
                    "<failure type=\"{}\" message=\"{}\">{body}</failure>",
                    first.severity,
                    xml(&crate::report::one_line(&first.message))
                )
            } else {
                format!("<system-out>{body}</system-out>")
            };
            let f = usize::from(failing);
            let _ = write!(
                suites,
                "  <testsuite name=\"policy\" tests=\"1\" failures=\"{f}\" errors=\"0\" skipped=\"0\">\n    <testcase name=\"{}\" classname=\"policy\">\n      {case}\n    </testcase>\n  </testsuite>\n",
                first.rule
            );
            tests += 1;
            failures += f;
        }
        if let Some(suite) = applied_suite(run) {
            suites.push_str(&suite.cases);
            tests += suite.tests;
            skipped += suite.skipped;
        }
        let input_errors = run.errors();
        if !input_errors.is_empty() {
            let mut cases = String::new();
            for e in &input_errors {
                let place = e
                    .location()
                    .map(|l| format!("{}:{}:{}: ", l.file, l.line, l.column))
                    .unwrap_or_default();
                let help = e
                    .help
                    .as_ref()
                    .map(|h| format!("\nhelp: {h}"))
                    .unwrap_or_default();
                let _ = write!(
                    cases,
                    "    <testcase name=\"{INPUT_ERROR}\" classname=\"fieldgate\">\n      <error type=\"{INPUT_ERROR}\" message=\"{}\">{}</error>\n    </testcase>\n",
                    xml(&crate::report::one_line(&e.message)),
                    xml_text(&format!("{place}{}{help}", e.message))
                );
            }
            let n = input_errors.len();
            let _ = write!(
                suites,
                "  <testsuite name=\"fieldgate\" tests=\"{n}\" failures=\"0\" errors=\"{n}\" skipped=\"0\">\n{cases}  </testsuite>\n"
            );
            tests += n;
            errors += n;
        }
        writeln!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
        writeln!(
            out,
            "<testsuites name=\"fieldgate\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">"
        )?;
        write!(out, "{suites}")?;
        writeln!(out, "</testsuites>")
    }
}

/// The migrations a routed run left out as applied at HEAD: a suite of its own, a skipped case
/// per file (it was not run again), named by the file and classed by its tables.
fn applied_suite(run: &Run<'_>) -> Option<Suite> {
    let files = run.applied_files();
    if files.is_empty() {
        return None;
    }
    let mut cases = String::new();
    for (file, tables) in &files {
        let _ = write!(
            cases,
            "    <testcase name=\"{}\" classname=\"{}\">\n      <skipped message=\"already applied at HEAD: not judged again\"/>\n    </testcase>\n",
            xml(file),
            xml(&tables.join(", "))
        );
    }
    let n = files.len();
    Some(Suite {
        cases: format!(
            "  <testsuite name=\"applied at HEAD\" tests=\"{n}\" failures=\"0\" errors=\"0\" skipped=\"{n}\">\n{cases}  </testsuite>\n"
        ),
        tests: n,
        failures: 0,
        skipped: n,
    })
}

/// One table's test cases, and how many passed, failed and were skipped.
struct Suite {
    cases: String,
    tests: usize,
    failures: usize,
    skipped: usize,
}

/// A case per rule: failed at a finding at or above `fail_on`, skipped when the rule is off or
/// this run did not judge it, else passed (with its findings below `fail_on` as output).
fn table_suite(table: &TableRun<'_>, findings: &[&Finding], fail_on: Severity) -> Suite {
    let name = &table.judgement.table;
    let mut suite = Suite {
        cases: String::new(),
        tests: 0,
        failures: 0,
        skipped: 0,
    };
    let cases = &mut suite.cases;
    // The policy is judged once per run, in its own suite, not per table.
    for (rule, severity) in table.rules.iter().filter(|(rule, _)| *rule != POLICY) {
        suite.tests += 1;
        let _ = write!(
            cases,
            "    <testcase name=\"{}\" classname=\"{}\"",
            xml(rule),
            xml(name)
        );
        let of_rule: Vec<&Finding> = findings
            .iter()
            .copied()
            .filter(|x| x.rule == *rule && &x.table == name)
            .collect();
        let failing = of_rule.iter().find(|x| x.severity >= fail_on);
        let not_judged = table.not_judged.iter().find(|(r, _)| r == rule);
        let body = || {
            let body: Vec<String> = of_rule.iter().map(|x| describe(x)).collect();
            xml_text(&body.join("\n\n"))
        };
        if severity.is_none() && of_rule.is_empty() {
            suite.skipped += 1;
            cases.push_str(">\n      <skipped message=\"off for this table\"/>\n    </testcase>\n");
        } else if let Some((_, who)) = not_judged.filter(|_| of_rule.is_empty()) {
            suite.skipped += 1;
            let _ = write!(
                cases,
                ">\n      <skipped message=\"not judged in this run: {}\"/>\n    </testcase>\n",
                xml(who)
            );
        } else if let Some(first) = failing {
            suite.failures += 1;
            let _ = write!(
                cases,
                ">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
                first.severity,
                xml(&crate::report::one_line(&first.message)),
                body()
            );
        } else if !of_rule.is_empty() {
            let _ = write!(
                cases,
                ">\n      <system-out>{}</system-out>\n    </testcase>\n",
                body()
            );
        } else {
            cases.push_str("/>\n");
        }
    }
    suite
}

/// A finding as the plain text of a failure or output element.
fn describe(f: &Finding) -> String {
    let place = f
        .location()
        .map(|l| format!("{}:{}:{}: ", l.file, l.line, l.column))
        .unwrap_or_default();
    let mut text = format!("{place}{}: {}", f.severity, f.message);
    if let Some(help) = &f.help {
        text.push_str(&format!("\nhelp: {help}"));
    }
    for r in &f.related {
        let at = r
            .origin
            .as_ref()
            .map(|o| {
                let l = crate::finding::locate(o);
                format!(" ({}:{}:{})", l.file, l.line, l.column)
            })
            .unwrap_or_default();
        text.push_str(&format!("\nnote: {}{at}", r.message));
    }
    text
}

/// Text for an XML 1.0 attribute value: markup characters escaped, line breaks as character
/// references (a parser would otherwise fold them to spaces), and control characters XML 1.0
/// cannot hold at all replaced.
pub fn xml(text: &str) -> String {
    escape(text, true)
}

/// Text for XML element content: as [`xml`], with line breaks kept as they are.
pub fn xml_text(text: &str) -> String {
    escape(text, false)
}

fn escape(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' if attribute => out.push_str("&#13;"),
            '\n' | '\r' => out.push(c),
            '\t' => out.push('\t'),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_xml() {
        assert_eq!(
            xml("a<b & \"c\"\nd\u{1}"),
            "a&lt;b &amp; &quot;c&quot;&#10;d\u{FFFD}"
        );
        assert_eq!(xml_text("a\nb"), "a\nb");
    }
}
