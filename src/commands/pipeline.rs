//! The path every judging command shares: read the table and the proposal, route statements to
//! the table, evolve, and turn problems into findings.

use crate::change::{Statement, StatementKind};
use crate::cli::ProposalArgs;
use crate::commands::failure::{Failure, LocatedError};
use crate::commands::input::{LoadedTable, load_table, parse_proposals};
use crate::commands::settings::resolve;
use crate::evolve::Evolution;
use crate::finding::Finding;
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::new_table::new_table;
use crate::judge::{Judged, judge_table};
use crate::repo::config::same_table;
use crate::suppress::{Suppressed, date_from_unix_days};

pub struct Judgement {
    pub table: String,
    /// The committed table; `None` when the proposal creates it.
    pub base: Option<LoadedTable>,
    pub evolution: Evolution,
    pub findings: Vec<Finding>,
    /// Findings silenced by a suppression comment, with its reason.
    pub suppressed: Vec<Suppressed>,
    pub statements: Vec<Statement>,
}

impl Judgement {
    pub fn before(&self) -> Option<&TableMetadata> {
        self.base.as_ref().map(|b| &b.metadata)
    }
}

/// `location` is where a table created by the proposal will live.
pub fn judge(args: &ProposalArgs, location: String, now_ms: i64) -> Result<Judgement, Failure> {
    let resolved = resolve(args)?;
    let statements = parse_proposals(&args.files, resolved.dialect)?;
    let Some(first) = statements.first() else {
        return Err(Failure::Message("the proposal holds no statement".into()));
    };
    let table = args.table.clone().unwrap_or_else(|| first.table.clone());
    let mut errors = Vec::new();
    for statement in &statements {
        if !same_table(&statement.table, &table) {
            errors.push(LocatedError::new(
                &statement.source,
                statement.table_span,
                format!(
                    "this statement is for `{}`, but this run judges `{table}`",
                    statement.table
                ),
                Some(
                    "judge one table per run: put each table's migrations in files of their own"
                        .into(),
                ),
            ));
        }
    }

    let base = args.metadata.as_deref().map(load_table).transpose()?;
    let mut alters = statements.iter().peekable();
    let start = match &base {
        Some(loaded) => {
            for statement in &statements {
                if matches!(statement.kind, StatementKind::CreateTable(_)) {
                    errors.push(LocatedError::new(
                        &statement.source,
                        statement.span,
                        format!("CREATE TABLE for `{table}`, which already has metadata"),
                        Some(
                            "drop --metadata to judge a new table, or write ALTER TABLE statements"
                                .into(),
                        ),
                    ));
                }
            }
            Some(loaded.metadata.clone())
        }
        None => match alters.next() {
            Some(Statement {
                kind: StatementKind::CreateTable(create),
                source,
                span,
                ..
            }) => match new_table(create, location, now_ms) {
                Ok(metadata) => Some(metadata),
                Err(e) => {
                    errors.push(LocatedError::new(source, *span, e.message, None));
                    None
                }
            },
            _ => {
                return Err(Failure::Message(
                    "no --metadata given and the proposal does not start with CREATE TABLE: name the table's metadata with --metadata PATH".into(),
                ));
            }
        },
    };
    if !errors.is_empty() {
        return Err(Failure::Located(errors));
    }
    let Some(start) = start else {
        return Err(Failure::Located(errors));
    };
    let alters: Vec<&Statement> = alters.collect();
    for statement in alters
        .iter()
        .filter(|s| matches!(s.kind, StatementKind::CreateTable(_)))
    {
        errors.push(LocatedError::new(
            &statement.source,
            statement.span,
            format!("a second CREATE TABLE for `{table}`"),
            None,
        ));
    }
    if !errors.is_empty() {
        return Err(Failure::Located(errors));
    }
    let settings = resolved.settings_for(&table);
    let Judged {
        evolution,
        findings,
        suppressed,
    } = judge_table(&table, &start, &alters, &settings, &today(now_ms));
    Ok(Judgement {
        table,
        base,
        evolution,
        findings,
        suppressed,
        statements,
    })
}

/// The UTC date of a Unix time in milliseconds, for suppression expiry.
fn today(now_ms: i64) -> String {
    date_from_unix_days(now_ms.div_euclid(86_400_000))
}
