//! The path every judging command shares: read the table and the proposal, route statements to
//! the table, evolve, and turn problems into findings.

use crate::change::{Change, Source, Statement, StatementKind};
use crate::cli::ProposalArgs;
use crate::commands::failure::{Failure, LocatedError};
use crate::commands::input::{LoadedTable, load_table, parse_proposals};
use crate::evolve::{Evolution, Problem, ProblemKind, evolve};
use crate::finding::{Finding, Severity};
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::new_table::new_table;

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
    let statements = parse_proposals(&args.files, args.dialect)?;
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
    let evolution = evolve(&start, change_lists);
    let findings = evolution
        .problems
        .iter()
        .map(|p| finding_from_problem(p, &table))
        .collect();
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

/// Two spellings name the same table when they are equal ignoring case, or one is a qualified
/// form of the other (`db.users` and `users`).
fn same_table(a: &str, b: &str) -> bool {
    let (a, b) = (a.to_ascii_lowercase(), b.to_ascii_lowercase());
    a == b || a.ends_with(&format!(".{b}")) || b.ends_with(&format!(".{a}"))
}

fn finding_from_problem(problem: &Problem, table: &str) -> Finding {
    let rule = match problem.kind {
        ProblemKind::UnknownField { .. } => "unknown-field",
        ProblemKind::DuplicateName { .. } => "duplicate-name",
        ProblemKind::NestedStructure => "nested-structure-change",
        ProblemKind::InvalidChange => "invalid-change",
    };
    Finding {
        rule,
        severity: Severity::Error,
        message: format!("{table}: {}", problem.message),
        table: table.to_string(),
        field: problem.path.clone(),
        field_id: problem.field_id,
        origin: Some(problem.origin.clone()),
        help: problem.help.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::same_table;

    #[test]
    fn qualified_and_bare_names_match() {
        assert!(same_table("lake_prod.dim_users", "DIM_USERS"));
        assert!(same_table("cat.lake_prod.dim_users", "lake_prod.dim_users"));
        assert!(!same_table("lake_prod.dim_users", "users"));
    }
}
