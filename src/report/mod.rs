//! Output formats: each a view of the findings, the applied changes and the new table state.

pub mod human;
pub mod json;

use crate::commands::pipeline::Judgement;
use crate::finding::{Finding, Severity};

/// What a report shows: the judgement of each table (one for `lint` and `apply`, each table the
/// change touches for `check`) and the verdict they led to.
pub struct Run<'a> {
    pub judgements: &'a [Judgement],
    pub passed: bool,
}

impl<'a> Run<'a> {
    /// Every table's findings, in the stable order of [`sorted_findings`].
    pub fn findings(&self) -> Vec<&'a Finding> {
        sorted_findings(self.judgements.iter().flat_map(|j| &j.findings))
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.judgements
            .iter()
            .map(|j| count(&j.findings, severity))
            .sum()
    }
}

/// Findings in a stable order: file, position, rule.
pub fn sorted_findings<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> Vec<&'a Finding> {
    let mut sorted: Vec<&Finding> = findings.into_iter().collect();
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
