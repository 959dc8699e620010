//! Judging one table: apply the proposal's statements, turn what could not be applied into
//! findings, and run every rule on the result. Pure: the commands do the reading and writing.

use std::collections::HashMap;

use crate::change::{Change, Origin, Span, Statement, StatementKind};
use crate::change::{Problem, ProblemKind};
use crate::evolve::{Evolution, TooLarge, evolve};
use crate::finding::{Finding, Severity};
use crate::iceberg::metadata::TableMetadata;
use crate::proposal::{MetadataProposal, Note, Proposal};
use crate::rules::catalogue::default_severity;
use crate::rules::context::Anchors;
use crate::rules::{self, Compatibility, Context, FileHistory, History, Mapping, RuleOptions};
use crate::suppress::{self, Suppressed, Suppression, unix_days_from_date};

/// How one table is judged: reader model, compatibility mode and rule severities.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub mapping: Mapping,
    pub compatibility: Compatibility,
    /// Overrides of the catalogue's default severities (`None`: the rule is off).
    pub severities: HashMap<String, Option<Severity>>,
    /// Options of individual rules (windows in days, the deprecation mark).
    pub options: RuleOptions,
    /// What the version history of the table's metadata file shows (who dropped which field
    /// when, since when fields are marked deprecated), when the table lives in a git repository.
    /// Per table like everything here; `check`, `lint` and `apply` read it from git.
    pub file_history: Option<FileHistory>,
}

impl Settings {
    pub fn new(mapping: Mapping, compatibility: Compatibility) -> Settings {
        Settings {
            mapping,
            compatibility,
            severities: HashMap::new(),
            options: RuleOptions::default(),
            file_history: None,
        }
    }

    /// The severity a rule's findings get: configured, else the catalogue's default. Under
    /// forward compatibility, stale reader caches are how old readers meet new files, so the
    /// cache note becomes a warning.
    pub fn severity(&self, rule: &str) -> Option<Severity> {
        if let Some(configured) = self.severities.get(rule) {
            return *configured;
        }
        let default = default_severity(rule)?;
        if rule == "reader-cache-refresh" && self.compatibility.forward {
            return default.map(|s| s.max(Severity::Warning));
        }
        default
    }

    /// Whether every rule has the same severity under `self` and `other`, without asking each:
    /// the same overrides, and the same compatibility mode where it moves a default.
    pub fn same_severities(&self, other: &Settings) -> bool {
        self.severities == other.severities
            && self.compatibility.forward == other.compatibility.forward
    }
}

pub struct Judged {
    pub evolution: Evolution,
    pub findings: Vec<Finding>,
    pub suppressed: Vec<Suppressed>,
}

/// Judges `statements` (ALTER statements; a CREATE TABLE has been turned into `base` already)
/// against `base`. `today` (`YYYY-MM-DD`) decides which suppressions have expired. A proposal
/// too large to write is not judged.
pub fn judge_table(
    table: &str,
    base: &TableMetadata,
    statements: &[&Statement],
    settings: &Settings,
    today: &str,
) -> Result<Judged, Box<TooLarge>> {
    judge_changes(
        table,
        base,
        statements,
        &FrontEnd::default(),
        settings,
        today,
    )
}

/// What a front-end found besides its statements: `problems` fail the proposal like changes
/// Iceberg cannot apply (and keep `apply` from writing), `notes` are added to the help of every
/// finding about the fields they name, `suppressions` silence findings like SQL comments do.
#[derive(Debug, Clone, Copy, Default)]
pub struct FrontEnd<'a> {
    pub problems: &'a [Problem],
    pub notes: &'a [Note],
    pub suppressions: &'a [Suppression],
}

/// [`judge_table`] with what a front-end found besides its statements.
pub fn judge_changes(
    table: &str,
    base: &TableMetadata,
    statements: &[&Statement],
    front_end: &FrontEnd<'_>,
    settings: &Settings,
    today: &str,
) -> Result<Judged, Box<TooLarge>> {
    let change_lists: Vec<&[Change]> = statements
        .iter()
        .map(|s| match &s.kind {
            StatementKind::Alter(changes) => changes.as_slice(),
            StatementKind::CreateTable(_) => &[],
        })
        .collect();
    let mut evolution = evolve(base, change_lists);
    if let Some(too_large) = evolution.too_large.take() {
        return Err(Box::new(too_large));
    }
    // The front-end's problems are about the proposal as written: they come first.
    evolution
        .problems
        .splice(0..0, front_end.problems.iter().cloned());
    Ok(conclude(
        table,
        base,
        evolution,
        statements,
        front_end,
        &Anchors::default(),
        settings,
        today,
    ))
}

/// Judges a metadata file proposed as the table's next state: the rules compare `base` with the
/// file itself (not with anything fieldgate computes), through the changes the diff derived.
pub fn judge_metadata(
    table: &str,
    base: &TableMetadata,
    proposal: &MetadataProposal,
    settings: &Settings,
    today: &str,
) -> Judged {
    let evolution = Evolution {
        metadata: proposal.metadata.clone(),
        assigned: proposal.assigned.clone(),
        applied: proposal.applied.clone(),
        problems: proposal.problems.clone(),
        schema_ids: Vec::new(),
        too_large: None,
    };
    conclude(
        table,
        base,
        evolution,
        &[],
        &FrontEnd::default(),
        &proposal.anchors,
        settings,
        today,
    )
}

/// Judges one table's proposals, in order, whatever they were written as. A metadata proposal
/// is the table's whole next state, so it is judged alone; next to other proposals it is an
/// `invalid-change` finding and the others are judged without it.
pub fn judge_proposals(
    table: &str,
    base: &TableMetadata,
    proposals: &[Proposal],
    settings: &Settings,
    today: &str,
) -> Result<Judged, Box<TooLarge>> {
    if let [Proposal::Metadata(metadata)] = proposals {
        return Ok(judge_metadata(table, base, metadata, settings, today));
    }
    let mut statements = Vec::new();
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    let mut suppressions = Vec::new();
    for proposal in proposals {
        match proposal {
            Proposal::Ddl(_) => statements.extend(proposal.statements()),
            Proposal::SchemaFile(file) => {
                statements.extend(proposal.statements());
                problems.extend(file.problems.iter().cloned());
                notes.extend(file.notes.iter().cloned());
                suppressions.extend(file.suppressions.iter().cloned());
            }
            Proposal::Metadata(metadata) => problems.push(Problem {
                kind: ProblemKind::InvalidChange,
                message: "a metadata file proposes the table's whole next state, so it cannot be judged together with other proposals".into(),
                help: Some("judge the metadata file on its own".into()),
                origin: Origin {
                    source: metadata.source.clone(),
                    statement: Span::new(0, metadata.source.text.len()),
                    focus: Span::new(0, 0),
                },
                field_id: None,
                path: None,
            }),
        }
    }
    let front_end = FrontEnd {
        problems: &problems,
        notes: &notes,
        suppressions: &suppressions,
    };
    judge_changes(table, base, &statements, &front_end, settings, today)
}

/// Findings from the problems, the rules and the notes, then suppressions.
#[allow(clippy::too_many_arguments)]
fn conclude(
    table: &str,
    base: &TableMetadata,
    evolution: Evolution,
    statements: &[&Statement],
    front_end: &FrontEnd<'_>,
    anchors: &Anchors,
    settings: &Settings,
    today: &str,
) -> Judged {
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
    history.file = settings.file_history.clone();
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
        anchors,
    };
    findings.extend(rules::run(&cx, &|rule| settings.severity(rule)));
    annotate(&mut findings, front_end.notes);
    let mut suppressions = suppress::find(statements);
    suppressions.extend(front_end.suppressions.iter().cloned());
    let severity = settings.severity("suppression");
    let (findings, suppressed) = suppress::apply(findings, &suppressions, today, table, severity);
    Judged {
        evolution,
        findings,
        suppressed,
    }
}

/// Adds each note to the help of the findings about a field it names.
fn annotate(findings: &mut [Finding], notes: &[Note]) {
    for finding in findings.iter_mut() {
        let Some(field) = &finding.field else {
            continue;
        };
        for note in notes.iter().filter(|n| n.paths.contains(field)) {
            finding.help = Some(match finding.help.take() {
                Some(help) => format!("{help}\nnote: {}", note.text),
                None => format!("note: {}", note.text),
            });
        }
    }
}

fn problem_rule(problem: &Problem) -> &'static str {
    match problem.kind {
        ProblemKind::UnknownField { .. } => "unknown-field",
        ProblemKind::DuplicateName { .. } => "duplicate-name",
        ProblemKind::NestedStructure => "nested-structure-change",
        ProblemKind::InvalidChange => "invalid-change",
        ProblemKind::IdReuse => "field-id-reuse",
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
