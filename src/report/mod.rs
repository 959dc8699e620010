//! Output formats: each a view of one run (the judged tables, their findings, applied changes and
//! new table states, or why the run could not judge at all), in one file per format behind
//! [`Reporter`], writing to any `Write` so tests render into a buffer.
//!
//! A run holds any number of tables, so `check` (many tables per run) and `lint` (one) share
//! every format. Findings are always listed in one order, by file, position, then rule, with
//! findings that have no place in the text last, by table and rule; nothing depends on hash-map
//! order.

pub mod github;
pub mod gitlab;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod sarif;
mod snippet;
pub mod terminal;
pub mod wrap;

use std::io::{self, Write};

use crate::change::Origin;
use crate::failure::Failure;
use crate::finding::{Finding, Location, Severity, locate};
use crate::judge::Settings;
use crate::plural::counted;
use crate::rules::{JUDGED_BY_SOME, registry};
use crate::session::applied::AppliedMigration;
use crate::session::table::Judgement;

/// The formats of `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// miette diagnostics; `colour` only for a terminal without `NO_COLOR`, wrapped at `width`.
    Human {
        colour: bool,
        width: usize,
    },
    Json,
    Github,
    Sarif,
    Markdown,
    Gitlab,
    Junit,
}

/// One output format.
pub trait Reporter {
    fn write(&self, run: &Run<'_>, out: &mut dyn Write) -> io::Result<()>;
}

pub fn reporter(format: Format) -> Box<dyn Reporter> {
    match format {
        Format::Human { colour, width } => Box::new(human::Human { colour, width }),
        Format::Json => Box::new(json::Json),
        Format::Github => Box::new(github::Github),
        Format::Sarif => Box::new(sarif::Sarif),
        Format::Markdown => Box::new(markdown::Markdown),
        Format::Gitlab => Box::new(gitlab::Gitlab),
        Format::Junit => Box::new(junit::Junit),
    }
}

/// What a report shows: the tables judged and the verdict, or why nothing could be judged.
pub struct Run<'a> {
    pub tables: Vec<TableRun<'a>>,
    /// Findings about the configuration the run judged by rather than about one table
    /// (`policy-relaxation`).
    pub policy: Vec<Finding>,
    /// Set when the run could not judge (exit code 2): machine formats report it in-band, so a
    /// consumer always gets a document it can parse.
    pub failure: Option<&'a Failure>,
    pub passed: bool,
    /// The lowest severity that fails the gate.
    pub fail_on: Severity,
    /// The migrations a routed run left out because HEAD has them applied, by path.
    pub applied: Vec<&'a AppliedMigration>,
}

/// One judged table and the severity each rule ran at for it.
pub struct TableRun<'a> {
    pub judgement: &'a Judgement,
    /// Every registered rule with its severity for this table (`None`: off), in registry order.
    pub rules: Vec<(&'static str, Option<Severity>)>,
    /// The rules this run did not judge for the table (only some commands judge them), each
    /// with who does.
    pub not_judged: Vec<(&'static str, &'static str)>,
}

impl<'a> TableRun<'a> {
    pub fn new(judgement: &'a Judgement, settings: &Settings) -> TableRun<'a> {
        let rules = registry()
            .iter()
            .map(|r| (r.name(), settings.severity(r.name())))
            .collect();
        let not_judged = JUDGED_BY_SOME
            .iter()
            .copied()
            .filter(|(rule, _)| !judgement.judged_by_some.contains(rule))
            .collect();
        TableRun {
            judgement,
            rules,
            not_judged,
        }
    }

    /// Whether no finding of this table reaches `fail_on`.
    pub fn passes(&self, fail_on: Severity) -> bool {
        self.judgement.findings.iter().all(|f| f.severity < fail_on)
    }
}

impl<'a> Run<'a> {
    /// A run that judged `tables`; it passes when no finding reaches `fail_on`.
    pub fn judged(tables: Vec<TableRun<'a>>, fail_on: Severity) -> Run<'a> {
        let passed = tables.iter().all(|t| t.passes(fail_on));
        Run {
            tables,
            policy: Vec::new(),
            failure: None,
            passed,
            fail_on,
            applied: Vec::new(),
        }
    }

    /// The run with the migrations it left out as applied at HEAD, which machine formats list.
    pub fn with_applied(mut self, applied: &'a [AppliedMigration]) -> Run<'a> {
        self.applied = applied.iter().collect();
        self.applied
            .sort_by(|a, b| (&a.path, &a.table).cmp(&(&b.path, &b.table)));
        self
    }

    /// The files left out as applied, each once, in path order, with the tables they are for.
    pub fn applied_files(&self) -> Vec<(String, Vec<&'a str>)> {
        let mut files: Vec<(String, Vec<&'a str>)> = Vec::new();
        for applied in &self.applied {
            let file = crate::session::plan::routing::slashed(&applied.path);
            match files.last_mut() {
                Some((last, tables)) if *last == file => tables.push(&applied.table),
                _ => files.push((file, vec![&applied.table])),
            }
        }
        files
    }

    /// The run with findings about its configuration, which count towards the verdict.
    pub fn with_policy(mut self, findings: Vec<Finding>) -> Run<'a> {
        self.passed &= findings.iter().all(|f| f.severity < self.fail_on);
        self.policy = findings;
        self
    }

    /// A run that could not judge anything.
    pub fn failed(failure: &'a Failure, fail_on: Severity) -> Run<'a> {
        Run {
            tables: Vec::new(),
            policy: Vec::new(),
            failure: Some(failure),
            passed: false,
            fail_on,
            applied: Vec::new(),
        }
    }

    /// Every finding of every table, in report order.
    pub fn findings(&self) -> Vec<&Finding> {
        sorted_findings(
            self.tables
                .iter()
                .flat_map(|t| &t.judgement.findings)
                .chain(&self.policy),
        )
    }

    /// Every silenced finding with its reason, in report order.
    pub fn suppressed(&self) -> Vec<&'a crate::suppress::Suppressed> {
        let mut all: Vec<_> = self
            .tables
            .iter()
            .flat_map(|t| &t.judgement.suppressed)
            .collect();
        all.sort_by_key(|s| order_key(&s.finding));
        all
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.tables
            .iter()
            .flat_map(|t| &t.judgement.findings)
            .chain(&self.policy)
            .filter(|f| f.severity == severity)
            .count()
    }

    /// `passed: 0 errors, 1 warning, 0 notes`, the closing line of text formats.
    pub fn verdict(&self) -> String {
        if self.failure.is_some() {
            let n = self.errors().len();
            let errors = counted(n, "input error");
            return format!("failed: the proposal could not be judged, {errors}");
        }
        format!(
            "{}: {}, {}, {}",
            if self.passed { "passed" } else { "failed" },
            counted(self.count(Severity::Error), "error"),
            counted(self.count(Severity::Warning), "warning"),
            counted(self.count(Severity::Note), "note")
        )
    }

    /// The place formats that need a file for every result (SARIF, GitLab) give a finding that
    /// has none in the proposal: the start of its table's metadata file, which is what the
    /// finding is about, else of the table's first proposal file.
    pub fn fallback_origin(&self, finding: &Finding) -> Option<Origin> {
        let judgement = self
            .tables
            .iter()
            .map(|t| t.judgement)
            .find(|j| j.table == finding.table)?;
        let source = match &judgement.base {
            Some(base) => base.source.clone(),
            None => judgement.proposals.first()?.proposal.source()?.clone(),
        };
        Some(Origin {
            source,
            statement: crate::change::Span::new(0, 0),
            focus: crate::change::Span::new(0, 0),
        })
    }

    /// Why the run could not judge, one entry per located problem.
    pub fn errors(&self) -> Vec<InputError> {
        match self.failure {
            None => Vec::new(),
            Some(Failure::Message(message)) => vec![InputError {
                message: message.clone(),
                help: None,
                origin: None,
            }],
            Some(Failure::Located(errors)) => errors
                .iter()
                .map(|e| InputError {
                    message: e.message.clone(),
                    help: e.help.clone(),
                    origin: Some(Origin {
                        source: e.source.clone(),
                        statement: e.span,
                        focus: e.span,
                    }),
                })
                .collect(),
        }
    }
}

/// A problem that stopped the run (malformed SQL or JSON, an unreadable file).
pub struct InputError {
    pub message: String,
    pub help: Option<String>,
    pub origin: Option<Origin>,
}

impl InputError {
    pub fn location(&self) -> Option<Location> {
        self.origin.as_ref().map(locate)
    }
}

/// The name machine formats give input errors where they need a rule-like id.
pub const INPUT_ERROR: &str = "input-error";

/// Findings in report order: file, position, rule; findings with no place in the text last.
pub fn sorted_findings<'f>(findings: impl IntoIterator<Item = &'f Finding>) -> Vec<&'f Finding> {
    let mut sorted: Vec<&Finding> = findings.into_iter().collect();
    sorted.sort_by_key(|f| order_key(f));
    sorted
}

type OrderKey = (
    bool,
    Option<(String, usize)>,
    String,
    &'static str,
    std::cmp::Reverse<Severity>,
);

fn order_key(f: &Finding) -> OrderKey {
    let location = f
        .origin
        .as_ref()
        .map(|o| (o.source.name.clone(), o.focus.offset));
    (
        location.is_none(),
        location,
        f.table.clone(),
        f.rule,
        std::cmp::Reverse(f.severity),
    )
}

/// A message as one line: machine formats that show a single line (titles, table cells) get
/// the text with its line breaks folded.
pub fn one_line(text: &str) -> String {
    text.split(['\r', '\n'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
