//! Output formats: each a view of the findings, the applied changes and the new table state.

pub mod human;
pub mod json;

use crate::commands::pipeline::Judgement;
use crate::finding::{Finding, Severity};

/// What a report shows: the judgement and the verdict it led to.
pub struct Run<'a> {
    pub judgement: &'a Judgement,
    pub passed: bool,
}

/// Findings in a stable order: file, position, rule.
pub fn sorted_findings(findings: &[Finding]) -> Vec<&Finding> {
    let mut sorted: Vec<&Finding> = findings.iter().collect();
    sorted.sort_by_key(|f| {
        let location = f
            .origin
            .as_ref()
            .map(|o| (o.source.name.clone(), o.focus.offset));
        (location, f.rule, std::cmp::Reverse(f.severity))
    });
    sorted
}

pub fn count(findings: &[Finding], severity: Severity) -> usize {
    findings.iter().filter(|f| f.severity == severity).count()
}
