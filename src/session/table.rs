//! The path every judging command shares: read the table and the proposals, check they are all
//! about one table, find the table to start from (committed metadata, a describing schema file,
//! or a table the proposal creates), and judge.

use crate::change::{Span, Statement, StatementKind};
use crate::cli::{DialectArg, ProposalArgs};
use crate::evolve::Evolution;
use crate::evolve::new_table::new_table;
use crate::failure::{Failure, LocatedError};
use crate::finding::Finding;
use crate::frontend::ddl::Dialect;
use crate::iceberg::metadata::TableMetadata;
use crate::judge::Settings;
use crate::judge::{Judged, judge_proposals};
use crate::proposal::{FileProposal, Proposal};
use crate::repo::config::{code_name, same_table};
use crate::rules::Mapping;
use crate::rules::related::locate_in_metadata;
use crate::session::input::{
    LoadedTable, ReadProposal, describe, parse_proposal, read_proposals, schema_file_failure,
    state_after,
};
use crate::session::plan::routing::Item;
use crate::session::plan::settings::{Resolved, resolve};
use crate::session::source::{PathSource, TableSource};
use crate::suppress::{Suppressed, date_from_unix_days};
use crate::verify::gate::Verification;

pub struct Judgement {
    pub table: String,
    /// The table as it was; `None` when the proposal creates it.
    pub base: Option<LoadedTable>,
    pub evolution: Evolution,
    pub findings: Vec<Finding>,
    /// Findings silenced by a suppression comment, with its reason.
    pub suppressed: Vec<Suppressed>,
    /// Every statement of the proposals, in order.
    pub statements: Vec<Statement>,
    /// The proposal files, read, in order.
    pub proposals: Vec<ReadProposal>,
    /// The sample data files read under the new schema, when verification ran.
    pub verification: Option<Verification>,
    /// The rules of `rules::JUDGED_BY_SOME` this run judged for the table.
    pub judged_by_some: Vec<&'static str>,
}

impl Judgement {
    pub fn before(&self) -> Option<&TableMetadata> {
        self.base.as_ref().map(|b| &b.metadata)
    }
}

pub fn dialect(arg: DialectArg) -> Dialect {
    match arg {
        DialectArg::Spark => Dialect::Spark,
        DialectArg::Trino => Dialect::Trino,
        DialectArg::Hive => Dialect::Hive,
    }
}

/// `location` is where a table created by the proposal will live.
pub fn judge(args: &ProposalArgs, location: String, now_ms: i64) -> Result<Judgement, Failure> {
    let resolved = resolve(args)?;
    let source = args.metadata.as_deref().map(|path| PathSource { path });
    let base = match &source {
        Some(source) => source.load()?,
        None => None,
    };
    let proposals = read_proposals(
        &args.files,
        dialect(resolved.dialect),
        base.as_ref().map(|b| &b.metadata),
    )?;
    // Without `--table`, a `--metadata` that is a table of `fieldgate.yaml` names the table.
    let configured = || Some(resolved.table_at(args.metadata.as_deref()?)?.to_string());
    let target = Target {
        table: args.table.clone().or_else(configured),
        base,
        source: source.as_ref().map(|s| s as &dyn TableSource),
    };
    judge_read(&resolved, target, proposals, location, now_ms)
}

/// The table a run judges, as far as it is known before the proposals are read.
pub struct Target<'a> {
    /// The name statements must use; `None`: the first name the proposals give.
    pub table: Option<String>,
    /// The table as it is; `None` when the proposals create it.
    pub base: Option<LoadedTable>,
    /// Where `base` was read from, for its history.
    pub source: Option<&'a dyn TableSource>,
}

/// Judges proposals already read (in order, each against the table the ones before it left).
pub fn judge_read(
    resolved: &Resolved,
    target: Target<'_>,
    proposals: Vec<ReadProposal>,
    location: String,
    now_ms: i64,
) -> Result<Judgement, Failure> {
    let Target {
        table,
        base,
        source,
    } = target;
    let table = table_named(table, &proposals, base.as_ref())?;
    let statements: Vec<Statement> = proposals
        .iter()
        .flat_map(|p| p.proposal.statements())
        .cloned()
        .collect();
    let mut errors = other_tables(&table, &proposals, &statements, base.as_ref());

    let start = match &base {
        Some(loaded) => {
            errors.extend(creates_existing(
                &statements,
                &table,
                "",
                "drop --metadata to judge a new table, or write ALTER TABLE statements",
            ));
            let mut metadata = loaded.metadata.clone();
            if loaded.description.is_some() {
                // A described table has no location of its own: it lives where its output goes.
                metadata.location = location;
            }
            Some(metadata)
        }
        None => {
            let config = resolved.config_path.as_deref();
            let why = || no_table(&table, config);
            created(&proposals, &statements, location, now_ms, &mut errors, why)?
        }
    };
    if !errors.is_empty() {
        return Err(Failure::Located(errors));
    }
    let Some(start) = start else {
        return Err(Failure::Located(errors));
    };

    let stated_mapping = stated_mapping(&proposals, base.as_ref());
    let mut settings = resolved.settings_with_mapping(&table, stated_mapping);
    // The metadata file's git history, as `check` reads it, so name-reuse windows and
    // deprecation periods judge the same locally (a described table has no such history).
    if base.as_ref().is_some_and(|b| b.description.is_none()) {
        settings.file_history = match source {
            Some(source) => source.history(&settings.options)?,
            None => None,
        };
    }
    judge_from(table, base, &start, proposals, &settings, now_ms)
}

/// The first schema file that describes a new table on its own (it has no statement).
fn new_table_file(proposals: &[ReadProposal]) -> Option<&FileProposal> {
    proposals.iter().find_map(|p| match &p.proposal {
        Proposal::SchemaFile(f) if f.statement.is_none() => Some(f),
        _ => None,
    })
}

/// The table a run judges: `given`, else the first name the proposals give (a statement, a
/// schema file, the describing file), else the directory of the table given: a metadata
/// proposal names none, nor does a file of session statements only.
fn table_named(
    given: Option<String>,
    proposals: &[ReadProposal],
    base: Option<&LoadedTable>,
) -> Result<String, Failure> {
    let named = proposals
        .iter()
        .flat_map(|p| p.proposal.statements())
        .find(|s| s.names_table())
        .map(|s| s.table.clone())
        .or_else(|| new_table_file(proposals).map(|f| f.file.table.clone()))
        .or_else(|| {
            base.and_then(|b| b.description.as_ref())
                .map(|d| d.table.clone())
        })
        .or_else(|| base.map(|b| table_name_from_location(&b.metadata.location)));
    given.or(named).ok_or_else(|| {
        Failure::Message(
            "the proposal names no table (it holds no table statement, only statements about the session such as USE and SET, or none): give the table with --metadata".into(),
        )
    })
}

/// An error at every statement, schema file or table description about another table (a
/// statement that names none is about the table judged).
fn other_tables(
    table: &str,
    proposals: &[ReadProposal],
    statements: &[Statement],
    base: Option<&LoadedTable>,
) -> Vec<LocatedError> {
    let mut errors = Vec::new();
    let mut other_table = |source, span, what: &str, named: &str| {
        if !same_table(named, table) {
            errors.push(LocatedError::new(
                source,
                span,
                format!(
                    "this {what} is for {}, but this run judges {}",
                    code_name(named),
                    code_name(table)
                ),
                Some(
                    "judge one table per run: put each table's migrations in files of their own, and give --metadata that table's metadata"
                        .into(),
                ),
            ));
        }
    };
    for statement in statements.iter().filter(|s| s.names_table()) {
        let what = match statement.source.name.to_ascii_lowercase().ends_with(".sql") {
            true => "statement",
            false => "schema file",
        };
        other_table(
            &statement.source,
            statement.table_span,
            what,
            &statement.table,
        );
    }
    if let Some(file) = new_table_file(proposals) {
        other_table(
            &file.source,
            file.file.table_span,
            "schema file",
            &file.file.table,
        );
    }
    if let Some(base) = base
        && let Some(description) = &base.description
    {
        other_table(
            &base.source,
            Span::new(0, 0),
            "table description",
            &description.table,
        );
    }
    errors
}

/// How the table's readers find columns, as the schema files say it (the last proposal's, then
/// the description's), for when neither the flags nor the configuration do.
fn stated_mapping(proposals: &[ReadProposal], base: Option<&LoadedTable>) -> Option<Mapping> {
    proposals
        .iter()
        .rev()
        .find_map(|p| match &p.proposal {
            Proposal::SchemaFile(f) if f.file.stated.mapping.is_some() => Some(f.file.mapping),
            _ => None,
        })
        .or_else(|| base.and_then(|b| b.description.as_ref()).map(|d| d.mapping))
}

/// One table judged once its start is known: the proposals (read in order) evolved once and in
/// order, problems as findings, every rule, notes and suppressions. Every command judges a table
/// through here; `check` then adds its drift and verification findings. Statements that name
/// no table (a file's session statements) are given this one.
pub fn judge_from(
    table: String,
    base: Option<LoadedTable>,
    start: &TableMetadata,
    mut proposals: Vec<ReadProposal>,
    settings: &Settings,
    now_ms: i64,
) -> Result<Judgement, Failure> {
    for proposal in &mut proposals {
        proposal.proposal.name_unnamed(&table);
    }
    let statements: Vec<Statement> = proposals
        .iter()
        .flat_map(|p| p.proposal.statements())
        .cloned()
        .collect();
    let list: Vec<Proposal> = proposals.iter().map(|p| p.proposal.clone()).collect();
    let Judged {
        evolution,
        findings,
        suppressed,
    } = judge_proposals(&table, start, &list, settings, &today(now_ms))?;
    Ok(Judgement {
        table,
        base,
        evolution,
        findings,
        suppressed,
        statements,
        proposals,
        verification: None,
        judged_by_some: Vec::new(),
    })
}

/// A CREATE TABLE among `statements` for a table that already has metadata (`held` says where):
/// an error at each.
pub fn creates_existing<'s>(
    statements: impl IntoIterator<Item = &'s Statement>,
    table: &str,
    held: &str,
    help: &str,
) -> Vec<LocatedError> {
    statements
        .into_iter()
        .filter(|s| matches!(s.kind, StatementKind::CreateTable(_)))
        .map(|s| {
            LocatedError::new(
                &s.source,
                s.span,
                format!("CREATE TABLE for `{table}`, which already has metadata{held}"),
                Some(help.into()),
            )
        })
        .collect()
}

/// A table's routed proposals read in order, each schema file diffed against the table as the
/// proposals before it left it. Every item's located errors are collected before failing.
pub fn read_in_order(
    items: &[Item],
    dialect: Dialect,
    base: Option<&TableMetadata>,
) -> Result<Vec<ReadProposal>, Failure> {
    let mut state = base.cloned();
    let mut read = Vec::new();
    let mut errors = Vec::new();
    for item in items {
        let proposal = match item {
            Item::Ddl { statements, .. } => Ok(Proposal::Ddl(statements.clone())),
            Item::SchemaFile { source, .. } => {
                parse_proposal(source.clone(), dialect, state.as_ref())
            }
        };
        match proposal {
            Ok(proposal) => {
                state = state_after(state, &proposal);
                read.push(ReadProposal {
                    path: item.path().to_path_buf(),
                    proposal,
                    schema_after: state.as_ref().map(|s| s.current_schema().clone()),
                });
            }
            Err(Failure::Located(mut located)) => errors.append(&mut located),
            Err(other) => return Err(other),
        }
    }
    match errors.is_empty() {
        true => Ok(read),
        false => Err(Failure::Located(errors)),
    }
}

/// The table the proposals create when there is no `--metadata`: CREATE TABLE first, or a
/// schema file describing the new table.
fn created(
    proposals: &[ReadProposal],
    statements: &[Statement],
    location: String,
    now_ms: i64,
    errors: &mut Vec<LocatedError>,
    no_table: impl Fn() -> Failure,
) -> Result<Option<TableMetadata>, Failure> {
    let first_create = statements
        .iter()
        .position(|s| matches!(s.kind, StatementKind::CreateTable(_)));
    for statement in statements
        .iter()
        .enumerate()
        .filter(|(i, s)| {
            matches!(s.kind, StatementKind::CreateTable(_)) && Some(*i) != first_create
        })
        .map(|(_, s)| s)
    {
        errors.push(LocatedError::new(
            &statement.source,
            statement.span,
            format!("a second CREATE TABLE for `{}`", statement.table),
            None,
        ));
    }
    match proposals.first().map(|p| &p.proposal) {
        Some(Proposal::Ddl(list)) => match list.first() {
            Some(Statement {
                kind: StatementKind::CreateTable(create),
                source,
                span,
                ..
            }) => match new_table(create, location, now_ms) {
                Ok(metadata) => Ok(Some(metadata)),
                Err(e) => {
                    errors.push(LocatedError::new(source, *span, e.message, None));
                    Ok(None)
                }
            },
            _ => Err(no_table()),
        },
        Some(Proposal::SchemaFile(file)) if file.statement.is_none() => {
            for statement in statements
                .iter()
                .filter(|s| matches!(s.kind, StatementKind::CreateTable(_)))
            {
                errors.push(LocatedError::new(
                    &statement.source,
                    statement.span,
                    format!(
                        "CREATE TABLE for `{}`, which the schema file already describes",
                        statement.table
                    ),
                    None,
                ));
            }
            let description = describe(&file.file).map_err(|e| {
                let mut failure = schema_file_failure(&file.source, e);
                if let Failure::Located(errors) = &mut failure {
                    for error in errors.iter_mut() {
                        error.help = Some(
                            "without --metadata a schema file describes the table on its own: leave out every id for a new table (fieldgate numbers them as Iceberg does), or give every field its id; to judge a change, give the table with --metadata".into(),
                        );
                    }
                }
                failure
            })?;
            let mut metadata = description.metadata;
            metadata.location = location;
            metadata.last_updated_ms = now_ms;
            Ok(Some(metadata))
        }
        _ => Err(no_table()),
    }
}

/// Why there is no table to start from: without a configuration, nothing names the table's
/// metadata; with one (`config`, the file read), the table it names has none yet.
fn no_table(table: &str, config: Option<&std::path::Path>) -> Failure {
    const NOT_CREATED: &str =
        "the proposal does not create a table (CREATE TABLE first, or a schema file without ids)";
    Failure::Message(match config {
        None => format!(
            "no --metadata given, no fieldgate.yaml found (here or at the repository root), and {NOT_CREATED}: name the table's metadata with --metadata PATH, or run `fieldgate init` to write a fieldgate.yaml from which `lint` and `apply` find each statement's table"
        ),
        Some(config) => format!(
            "`{table}` has no metadata yet where `{}` keeps it, and {NOT_CREATED}: write the table's metadata at its `metadata:` path, name it with --metadata PATH, or start its proposals with CREATE TABLE",
            config.display()
        ),
    })
}

/// A metadata proposal does not name its table: Iceberg's `location` ends in the table's
/// directory, which is named after it.
fn table_name_from_location(location: &str) -> String {
    location
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or("table")
        .to_string()
}

/// The UTC date of a Unix time in milliseconds, for suppression expiry.
fn today(now_ms: i64) -> String {
    date_from_unix_days(now_ms.div_euclid(86_400_000))
}

/// Gives the related places rules named in the committed metadata their position in its text.
pub fn locate_related(judgement: &mut Judgement) {
    if let Some(base) = &judgement.base {
        let findings = judgement
            .findings
            .iter_mut()
            .chain(judgement.suppressed.iter_mut().map(|s| &mut s.finding));
        locate_in_metadata(findings, &base.source);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(failure: Failure) -> String {
        match failure {
            Failure::Message(m) => m,
            Failure::Located(_) => String::new(),
        }
    }

    #[test]
    fn no_table_names_the_configuration_it_read() {
        let none = message(no_table("db.t", None));
        assert!(none.contains("no fieldgate.yaml found"), "{none}");
        let read = message(no_table(
            "db.t",
            Some(std::path::Path::new("conf/lake.yaml")),
        ));
        assert!(!read.contains("no fieldgate.yaml found"), "{read}");
        assert!(
            read.starts_with("`db.t` has no metadata yet where `conf/lake.yaml` keeps it"),
            "{read}"
        );
    }
}
