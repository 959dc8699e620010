//! `fieldgate lsp`: the language server of `crate::lsp`, judging an open buffer as `lint`
//! routes it. The file's `fieldgate.yaml` is the nearest one in its directory or above (inside
//! its git repository); the proposals judged are the ones `lint` would be given for a commit of
//! everything not yet committed (the working tree's changed and new proposal files, and every
//! open buffer that is a proposal) up to this file in path order, with the buffers' unsaved
//! texts, against the table as committed at `HEAD`. The configuration itself is checked
//! (parse errors, globs and metadata locations) at its spans.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::change::{Source, SourceFile, Span};
use crate::cli::ProposalArgs;
use crate::commands::failure::Failure;
use crate::commands::input::read_source_named;
use crate::commands::lint::now_ms;
use crate::commands::lint_routed::{RepoConfig, find_config, judge_sources};
use crate::commands::pipeline::{self, Judgement};
use crate::commands::routing::{is_proposal, slashed};
use crate::commands::settings::{config_failure_in, resolve_with};
use crate::evolve::AppliedKind;
use crate::frontend::ddl::Dialect;
use crate::iceberg::types::{PrimitiveType, Type};
use crate::lsp::{self, Alternative, Buffers, Judge, Located, TableState, Verdict};
use crate::repo::config::{CONFIG_FILE, Config, repo_path};
use crate::repo::git::Repo;
use crate::repo::glob;

pub fn run() -> Result<bool, Failure> {
    lsp::serve(Arc::new(RoutedJudge)).map_err(Failure::Message)?;
    Ok(true)
}

/// Judges as `lint` routes, reading the file system and git for what is not open.
struct RoutedJudge;

impl Judge for RoutedJudge {
    fn judge(&self, path: &Path, buffers: &Buffers) -> Verdict {
        let Some(config) = nearest_config(path) else {
            return skipped(format!("no {CONFIG_FILE} in its directory or above"));
        };
        let outcome = if config == path {
            judge_config(path, buffers)
        } else {
            judge_proposal(&config, path, buffers)
        };
        outcome.unwrap_or_else(failed)
    }
}

fn skipped(reason: String) -> Verdict {
    Verdict {
        skipped: Some(reason),
        ..Verdict::default()
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

/// The `fieldgate.yaml` nearest to `path`: in its directory or above, not above its git
/// repository's root.
fn nearest_config(path: &Path) -> Option<PathBuf> {
    let dir = path.parent()?;
    let top = Repo::discover(dir).ok().map(|git| git.root().to_path_buf());
    for ancestor in dir.ancestors() {
        let candidate = ancestor.join(CONFIG_FILE);
        if candidate.is_file() {
            return candidate.canonicalize().ok();
        }
        if top.as_deref().is_some_and(|top| ancestor == top) {
            break;
        }
    }
    None
}

/// The text of `path`: the open buffer's, else the file's.
fn text_of(path: &Path, name: String, buffers: &Buffers) -> Result<Source, Failure> {
    match buffers.get(path) {
        Some(text) => Ok(Arc::new(SourceFile {
            name,
            text: text.to_string(),
        })),
        None => read_source_named(path, name),
    }
}

/// The configuration as the buffer holds it: parsed, its globs and its tables' locations.
fn judge_config(path: &Path, buffers: &Buffers) -> Result<Verdict, Failure> {
    let dir = path.parent().unwrap_or(Path::new(""));
    let root = Repo::discover(dir).map_or(dir.to_path_buf(), |git| git.root().to_path_buf());
    let root = root.canonicalize().unwrap_or(root);
    let relative = path.strip_prefix(&root).unwrap_or(path);
    let source = text_of(path, slashed(relative), buffers)?;
    let config = Config::parse(source.clone()).map_err(|e| config_failure_in(&source, e))?;
    let config_dir = relative.parent().unwrap_or(Path::new(""));
    let mut errors = Vec::new();
    if let Err(mut bad) = config.proposal_globs(config_dir) {
        errors.append(&mut bad);
    }
    if let Err(mut bad) = config.locations(config_dir, &|p| root.join(p).exists()) {
        errors.append(&mut bad);
    }
    if !errors.is_empty() {
        return Err(config_failure_in(&source, errors));
    }
    Ok(Verdict {
        root,
        ..Verdict::default()
    })
}

fn judge_proposal(config: &Path, path: &Path, buffers: &Buffers) -> Result<Verdict, Failure> {
    let dir = config.parent().unwrap_or(Path::new(""));
    let Some(repo) = find_config(Some(config), dir)? else {
        return Ok(skipped(format!("`{}` cannot be read", config.display())));
    };
    let root = repo
        .root()
        .canonicalize()
        .unwrap_or(repo.root().to_path_buf());
    let Ok(relative) = path.strip_prefix(&root) else {
        return Ok(skipped("it is outside the repository".into()));
    };
    if let Some(reason) = repo.skip_reason(Some(relative), path)? {
        return Ok(skipped(reason));
    }
    let mut files = uncommitted_proposals(&repo)?;
    files.extend(
        buffers
            .keys()
            .filter_map(|p| p.strip_prefix(&root).ok())
            .map(Path::to_path_buf),
    );
    files.retain(|f| f.as_path() < relative && is_routed(&repo, &root, f));
    files.push(relative.to_path_buf());
    files.sort();
    files.dedup();
    let mut sources = Vec::new();
    for file in files {
        let source = text_of(&root.join(&file), slashed(&file), buffers)?;
        sources.push((file, source));
    }
    let args = ProposalArgs {
        files: Vec::new(),
        metadata: None,
        table: None,
        dialect: None,
        config: Some(config.to_path_buf()),
        mapping: None,
        compatibility: None,
    };
    let resolved = resolve_with(
        &args,
        Some(repo.config().clone()),
        Some(config.to_path_buf()),
    );
    let judged = judge_sources(&repo, &resolved, None, sources, &root, now_ms())?;
    let dialect = pipeline::dialect(resolved.dialect);
    let mut verdict = Verdict {
        root,
        ..Verdict::default()
    };
    for (mut judgement, _) in judged {
        verdict
            .alternatives
            .extend(new_columns(&judgement, dialect));
        verdict.tables.extend(table_state(&mut judgement, relative));
        verdict.findings.append(&mut judgement.findings);
    }
    Ok(verdict)
}

/// The table a judgement is of, as it is just before the file at `relative` and just after
/// (the judgement's base table is moved out).
fn table_state(judgement: &mut Judgement, relative: &Path) -> Option<TableState> {
    let at = judgement
        .proposals
        .iter()
        .position(|p| p.path == relative)?;
    let before = match at {
        0 => judgement.before().map(|b| b.current_schema().clone()),
        _ => judgement.proposals[at - 1].schema_after.clone(),
    }?;
    let after = judgement.proposals[at].schema_after.clone();
    let base = judgement.base.take()?;
    Some(TableState {
        table: judgement.table.clone(),
        metadata: Arc::new(base.metadata),
        before,
        after,
    })
}

/// Whether a repository file (relative to the root) is one of the configuration's proposals.
fn is_routed(repo: &RepoConfig, root: &Path, file: &Path) -> bool {
    let real = root.join(file);
    matches!(repo.skip_reason(Some(file), &real), Ok(None))
}

/// The proposal files the working tree has changed or added since `HEAD` (none outside git).
fn uncommitted_proposals(repo: &RepoConfig) -> Result<Vec<PathBuf>, Failure> {
    let Some(git) = repo.git() else {
        return Ok(Vec::new());
    };
    let Some(head) = git.head() else {
        return Ok(Vec::new());
    };
    let config = repo.config();
    let globs = config.proposal_globs(repo.dir()).unwrap_or_default();
    let tables: Vec<PathBuf> = config
        .tables
        .iter()
        .filter_map(|t| repo_path(repo.dir(), t.metadata.as_deref()?).ok())
        .collect();
    let prefixes: Vec<PathBuf> = globs.iter().map(|g| glob::literal_prefix(g)).collect();
    let changed = git.changed_files(head, &prefixes, &tables)?;
    Ok(changed
        .into_iter()
        .filter(|file| is_proposal(&globs, &tables, file))
        .collect())
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
