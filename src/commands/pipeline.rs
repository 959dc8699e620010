//! The path every judging command shares: read the table and the proposal, route statements to
//! the table, evolve, and turn problems into findings.

use crate::change::{Change, Source, Statement, StatementKind};
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

pub struct Judgement {
    pub table: String,
    /// The committed table; `None` when the proposal creates it.
    pub base: Option<LoadedTable>,
    pub evolution: Evolution,
    pub findings: Vec<Finding>,
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
    let mut change_lists: Vec<&[Change]> = Vec::new();
    for statement in alters {
        match &statement.kind {
            StatementKind::Alter(changes) => change_lists.push(changes),
            StatementKind::CreateTable(_) => {
                errors.push(located_statement(&statement.source, statement, &table))
            }
        }
    }
    if !errors.is_empty() {
        return Err(Failure::Located(errors));
    }
    let settings = resolved.settings_for(&table);
    let Judged {
        evolution,
        findings,
    } = judge_table(&table, &start, &change_lists, &settings);
    Ok(Judgement {
        table,
        base,
        evolution,
        findings,
        statements,
    })
}

fn located_statement(source: &Source, statement: &Statement, table: &str) -> LocatedError {
    LocatedError::new(
        source,
        statement.span,
        format!("a second CREATE TABLE for `{table}`"),
        None,
    )
}
