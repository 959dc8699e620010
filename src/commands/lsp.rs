//! `fieldgate lsp`: the language server of `crate::lsp`, with a judge over
//! `session::buffers` (an open buffer judged as `lint` routes it), whose judgements it hands
//! the server as findings, errors, safer alternatives and the tables' states for hovers.

use std::path::Path;
use std::sync::Arc;

use crate::change::AppliedKind;
use crate::change::Span;
use crate::failure::Failure;
use crate::frontend::ddl::Dialect;
use crate::iceberg::types::{PrimitiveType, Type};
use crate::lsp::{self, Alternative, Buffers, Judge, Located, TableState, Verdict};
use crate::rules::CommittedDrop;
use crate::session::buffers::{Judged, configured_tables, judge_buffer};
use crate::session::table::Judgement;

/// Exit code 0 after `shutdown` then `exit`, 1 for an `exit` (or a closed connection) without
/// `shutdown`, as the protocol asks.
pub fn run() -> Result<bool, Failure> {
    lsp::serve(Arc::new(RoutedJudge)).map_err(Failure::Message)
}

/// Judges as `lint` routes, reading the file system and git for what is not open.
struct RoutedJudge;

impl Judge for RoutedJudge {
    fn judge(&self, path: &Path, buffers: &Buffers) -> Verdict {
        match judge_buffer(path, buffers) {
            Judged::Skipped(reason) => Verdict {
                skipped: Some(reason),
                ..Verdict::default()
            },
            Judged::Config { root } => Verdict {
                root,
                ..Verdict::default()
            },
            Judged::Proposal {
                root,
                relative,
                dialect,
                judged,
            } => {
                let mut verdict = Verdict {
                    root,
                    ..Verdict::default()
                };
                verdict.dialect = Some(dialect);
                for (mut judgement, settings) in judged {
                    verdict
                        .alternatives
                        .extend(new_columns(&judgement, dialect));
                    let drops = settings.file_history.map(|h| h.drops);
                    verdict.tables.extend(table_state(
                        &mut judgement,
                        &relative,
                        drops.unwrap_or_default(),
                    ));
                    verdict.findings.append(&mut judgement.findings);
                }
                verdict
            }
            Judged::Failed { root, failure } => Verdict {
                root,
                ..failed(failure)
            },
        }
    }

    fn forget(&self) {
        crate::session::kept::forget();
    }

    fn tables(&self, path: &Path, buffers: &Buffers) -> Vec<String> {
        configured_tables(path, buffers)
    }
}

/// What stopped judging, as located errors (shown where they are) or one message.
fn failed(failure: Failure) -> Verdict {
    let errors = match failure {
        Failure::Located(errors) => errors
            .into_iter()
            .map(|e| Located {
                source: Some(e.source.clone()),
                span: e.span,
                message: e.message,
                help: e.help,
            })
            .collect(),
        Failure::Message(message) => vec![Located {
            source: None,
            span: Span::default(),
            message,
            help: None,
        }],
    };
    Verdict {
        errors,
        ..Verdict::default()
    }
}

/// The table a judgement is of, as it is just before the file at `relative`, after each of its
/// statements and after it (the judgement's base table is moved out).
fn table_state(
    judgement: &mut Judgement,
    relative: &Path,
    drops: Vec<CommittedDrop>,
) -> Option<TableState> {
    let at = judgement
        .proposals
        .iter()
        .position(|p| p.path == relative)?;
    let before = match at {
        0 => judgement.before().map(|b| b.current_schema().clone()),
        _ => judgement.proposals[at - 1].schema_after.clone(),
    }?;
    let after = judgement.proposals[at].schema_after.clone();
    let schemas = &judgement.evolution.metadata.schemas;
    let steps = judgement
        .statements
        .iter()
        .zip(&judgement.evolution.schema_ids)
        .filter(|(s, _)| Path::new(&s.source.name) == relative)
        .filter_map(|(s, id)| {
            let schema = schemas.iter().find(|schema| schema.schema_id == *id)?;
            Some((s.span, Arc::clone(schema)))
        })
        .collect();
    let base = judgement.base.take()?;
    Some(TableState {
        table: judgement.table.clone(),
        metadata: Arc::new(base.metadata),
        before,
        after,
        steps,
        drops,
    })
}

/// For each narrowing, the safe alternative the rule's help describes: a new column of the
/// narrower type, added beside the old one (Spark and Hive DDL, whose `ADD COLUMNS` it is).
fn new_columns(judgement: &Judgement, dialect: Dialect) -> Vec<Alternative> {
    if dialect == Dialect::Trino {
        return Vec::new();
    }
    let narrowings = judgement
        .findings
        .iter()
        .filter(|f| f.rule == "type-narrowing");
    narrowings
        .filter_map(|finding| {
            let origin = finding.origin.as_ref()?;
            let change = judgement.evolution.applied.iter().find(|a| {
                a.kind == AppliedKind::UpdateType
                    && a.field_id == finding.field_id
                    && a.origin.as_ref().is_some_and(|o| o.statement == origin.statement)
            })?;
            let (before, after) = (change.before.as_ref()?, change.after.as_ref()?);
            let Type::Primitive(to) = &after.field_type else {
                return None;
            };
            let sql_type = spark_type(to)?;
            let name = format!("{}_{}", after.name, sql_type.to_ascii_lowercase().replace([' ', '(', ')', ','], "_").trim_end_matches('_'));
            let text = format!(
                "ALTER TABLE {} ADD COLUMNS ({name} {sql_type} COMMENT 'replaces {} ({}): backfill it, then move readers over')",
                judgement.table, before.path, before.field_type
            );
            Some(Alternative {
                rule: finding.rule,
                statement: origin.statement,
                title: format!("Add a new column `{name}` {sql_type} instead"),
                text,
            })
        })
        .collect()
}

/// The Spark SQL name of a primitive type a column can be added with.
fn spark_type(primitive: &PrimitiveType) -> Option<String> {
    Some(match primitive {
        PrimitiveType::Boolean => "BOOLEAN".into(),
        PrimitiveType::Int => "INT".into(),
        PrimitiveType::Long => "BIGINT".into(),
        PrimitiveType::Float => "FLOAT".into(),
        PrimitiveType::Double => "DOUBLE".into(),
        PrimitiveType::Decimal { precision, scale } => format!("DECIMAL({precision},{scale})"),
        PrimitiveType::Date => "DATE".into(),
        PrimitiveType::Timestamp => "TIMESTAMP_NTZ".into(),
        PrimitiveType::Timestamptz => "TIMESTAMP".into(),
        PrimitiveType::String => "STRING".into(),
        PrimitiveType::Binary => "BINARY".into(),
        _ => return None,
    })
}
