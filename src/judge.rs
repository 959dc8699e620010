//! Judging one table: apply the proposal's statements, turn what could not be applied into
//! findings, and run every rule on the result. Pure: the commands do the reading and writing.

use std::collections::HashMap;

use crate::change::{Change, Statement, StatementKind};
use crate::evolve::{Evolution, Problem, ProblemKind, evolve};
use crate::finding::{Finding, Severity};
use crate::iceberg::metadata::TableMetadata;
use crate::rules::catalogue::catalogue;
use crate::rules::{self, Compatibility, Context, FileHistory, History, Mapping, RuleOptions};
use crate::suppress::{self, Suppressed, unix_days_from_date};

/// How one table is judged: reader model, compatibility mode and rule severities.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub mapping: Mapping,
    pub compatibility: Compatibility,
    /// Overrides of the catalogue's default severities (`None`: the rule is off).
    pub severities: HashMap<String, Option<Severity>>,
    /// Options of individual rules (windows in days, the deprecation mark).
    pub options: RuleOptions,
}

impl Settings {
    pub fn new(mapping: Mapping, compatibility: Compatibility) -> Settings {
        Settings {
            mapping,
            compatibility,
            severities: HashMap::new(),
            options: RuleOptions::default(),
        }
    }

    /// The severity a rule's findings get: configured, else the catalogue's default. Under
    /// forward compatibility, stale reader caches are how old readers meet new files, so the
    /// cache note becomes a warning.
    pub fn severity(&self, rule: &str) -> Option<Severity> {
        if let Some(configured) = self.severities.get(rule) {
            return *configured;
        }
        let default = catalogue().ok()?.iter().find(|d| d.name == rule)?.severity;
        if rule == "reader-cache-refresh" && self.compatibility.forward {
            return default.map(|s| s.max(Severity::Warning));
        }
        default
    }
}

pub struct Judged {
    pub evolution: Evolution,
    pub findings: Vec<Finding>,
    pub suppressed: Vec<Suppressed>,
}

/// Judges `statements` (ALTER statements; a CREATE TABLE has been turned into `base` already)
/// against `base`. `today` (`YYYY-MM-DD`) decides which suppressions have expired.
pub fn judge_table(
    table: &str,
    base: &TableMetadata,
    statements: &[&Statement],
    settings: &Settings,
    today: &str,
) -> Judged {
    judge_table_with_history(table, base, statements, settings, today, None)
}

/// [`judge_table`] with what the metadata file's version history shows (who dropped which field
/// when, since when a field is marked deprecated), which `check` reads from git.
pub fn judge_table_with_history(
    table: &str,
    base: &TableMetadata,
    statements: &[&Statement],
    settings: &Settings,
    today: &str,
    file_history: Option<FileHistory>,
) -> Judged {
    let change_lists: Vec<&[Change]> = statements
        .iter()
        .map(|s| match &s.kind {
            StatementKind::Alter(changes) => changes.as_slice(),
            StatementKind::CreateTable(_) => &[],
        })
        .collect();
    let evolution = evolve(base, change_lists);
    let mut findings: Vec<Finding> = evolution
        .problems
        .iter()
        .filter_map(|p| {
            let rule = problem_rule(p);
            settings
                .severity(rule)
                .map(|severity| finding_from_problem(p, rule, severity, table))
        })
        .collect();
    let mut history = History::of(base);
    history.file = file_history;
    let cx = Context {
        table,
        before: base,
        after: &evolution.metadata,
        applied: &evolution.applied,
        mapping: settings.mapping,
        compatibility: settings.compatibility,
        history: &history,
        options: &settings.options,
        today: unix_days_from_date(today).unwrap_or_default(),
    };
    findings.extend(rules::run(&cx, &|rule| settings.severity(rule)));
    let suppressions = suppress::find(statements);
    let severity = settings.severity("suppression");
    let (findings, suppressed) = suppress::apply(findings, &suppressions, today, table, severity);
    Judged {
        evolution,
        findings,
        suppressed,
    }
}

fn problem_rule(problem: &Problem) -> &'static str {
    match problem.kind {
        ProblemKind::UnknownField { .. } => "unknown-field",
        ProblemKind::DuplicateName { .. } => "duplicate-name",
        ProblemKind::NestedStructure => "nested-structure-change",
        ProblemKind::InvalidChange => "invalid-change",
    }
}

fn finding_from_problem(
    problem: &Problem,
    rule: &'static str,
    severity: Severity,
    table: &str,
) -> Finding {
    Finding {
        rule,
        severity,
        message: format!("{table}: {}", problem.message),
        table: table.to_string(),
        field: problem.path.clone(),
        field_id: problem.field_id,
        origin: Some(problem.origin.clone()),
        help: problem.help.clone(),
        related: Vec::new(),
    }
}
