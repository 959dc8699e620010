//! The session of `fieldgate lint` without `--metadata`, in a repository with `fieldgate.yaml`: the files given
//! that are proposals (they match `proposals`) are routed statement by statement to the
//! configured table each names, every touched table is read from the working tree and judged on
//! its own, for one report that holds them all, as `check` writes it. This is what the pre-commit hook
//! runs on the staged files.

use std::fs;
use std::path::{Path, PathBuf};

use crate::change::StatementKind;
use crate::cli::ProposalArgs;
use crate::failure::Failure;
use crate::frontend::ddl::Dialect;
use crate::iceberg::metadata::TableMetadata;
use crate::judge::Settings;
use crate::proposal::Proposal;
use crate::repo::config::repo_path;
use crate::repo::work_tree::RepoWorkTree;
use crate::session::input::{ReadProposal, parse_proposal, state_after};
use crate::session::plan::repo_config::{RepoConfig, config_failure};
use crate::session::plan::routing::{Item, is_proposal, parse_all, route};
use crate::session::plan::settings::resolve_with;
use crate::session::source::{HeadOrWorkTree, TableSource};
use crate::session::table::{self, Judgement, Target, judge_read, locate_related};

/// Every touched table judged, in the configuration's order, and how many files were proposals.
pub fn judge_all(
    args: &ProposalArgs,
    repo: &RepoConfig,
    cwd: &Path,
    now_ms: i64,
) -> Result<(Vec<(Judgement, Settings)>, usize), Failure> {
    let RepoConfig {
        config, dir, root, ..
    } = repo;
    let resolved = resolve_with(args, Some(config.clone()), Some(repo.file.clone()));
    let dialect = table::dialect(resolved.dialect);
    let files = proposal_files(repo, cwd, &args.files)?;
    let file_refs: Vec<&PathBuf> = files.iter().collect();
    let items = parse_all(&file_refs, dialect, |file| Ok(file.to_path_buf()))?;
    let routed = route(config, items)?;
    // A table whose first proposal creates it needs no metadata on disk yet.
    let created: Vec<PathBuf> = config
        .tables
        .iter()
        .zip(&routed)
        .filter(|(_, items)| items.first().is_some_and(Item::may_create))
        .filter_map(|(table, _)| repo_path(dir, table.metadata.as_deref()?).ok())
        .collect();
    let locations = config
        .locations(dir, &|path| {
            root.join(path).exists() || created.iter().any(|c| c == path)
        })
        .map_err(|errors| config_failure(config, errors))?;

    let canonical = |p: &Path| {
        fs::canonicalize(p)
            .map_err(|e| Failure::Message(format!("cannot resolve `{}`: {e}", p.display())))
    };
    let (root, here) = (canonical(root)?, canonical(cwd)?);
    let work_tree = RepoWorkTree::new(&root)?;
    let mut judged = Vec::new();
    let mut errors = Vec::new();
    for ((table, path), items) in config.tables.iter().zip(&locations).zip(&routed) {
        if items.is_empty() {
            continue;
        }
        let source = HeadOrWorkTree {
            git: repo.git.as_ref(),
            work_tree: &work_tree,
            table,
            path,
            root: &root,
            here: &here,
            created: items.first().is_some_and(creates_table),
        };
        let base = source.load()?;
        let read = read_in_order(items, dialect, base.as_ref().map(|b| &b.metadata));
        let judgement = read.and_then(|proposals| {
            let target = Target {
                table: Some(args.table.clone().unwrap_or(table.name.clone())),
                base,
                source: Some(&source),
            };
            let location = source.shown(path).display().to_string();
            judge_read(&resolved, target, proposals, location, now_ms)
        });
        match judgement {
            Ok(mut judgement) => {
                locate_related(&mut judgement);
                let settings = resolved.settings_for(&judgement.table);
                judged.push((judgement, settings));
            }
            // Every table's located errors together, as one run over one table reports them.
            Err(Failure::Located(mut located)) => errors.append(&mut located),
            Err(other) => return Err(other),
        }
    }
    if !errors.is_empty() {
        return Err(Failure::Located(errors));
    }
    Ok((judged, files.len()))
}

/// The files given that are proposals, as given, in path order. The rest are named on stderr
/// and left out: a file no `proposals` glob matches (a hook passes every staged YAML file,
/// workflows included), the configuration itself, and a configured table's own metadata
/// (committed next to its migration after `apply --write`). Without `proposals` in the
/// configuration every other file is a proposal.
fn proposal_files(
    repo: &RepoConfig,
    cwd: &Path,
    files: &[PathBuf],
) -> Result<Vec<PathBuf>, Failure> {
    let root = fs::canonicalize(&repo.root)
        .map_err(|e| Failure::Message(format!("cannot resolve `{}`: {e}", repo.root.display())))?;
    let globs = repo
        .config
        .proposal_globs(&repo.dir)
        .map_err(|errors| config_failure(&repo.config, errors))?;
    let mut proposals = Vec::new();
    for file in files {
        let canonical = fs::canonicalize(cwd.join(file))
            .map_err(|e| Failure::Message(format!("cannot read `{}`: {e}", file.display())))?;
        match skip_reason(repo, &globs, canonical.strip_prefix(&root).ok(), &canonical) {
            Some(reason) => eprintln!("note: `{}` is not judged: {reason}", file.display()),
            None => proposals.push((canonical, file.clone())),
        }
    }
    // In path order, as `check` judges them, whatever order a hook or a shell gives.
    proposals.sort();
    Ok(proposals.into_iter().map(|(_, file)| file).collect())
}

/// Why a file (canonical, and relative to the root when inside it) is not a proposal.
fn skip_reason(
    repo: &RepoConfig,
    globs: &[String],
    relative: Option<&Path>,
    canonical: &Path,
) -> Option<String> {
    let config = &repo.config;
    if canonical == repo.file {
        return Some("it is the configuration".into());
    }
    if let Some(relative) = relative
        && let Some(table) = config.tables.iter().find(|t| {
            t.metadata
                .as_deref()
                .and_then(|m| repo_path(&repo.dir, m).ok())
                .is_some_and(|m| relative.starts_with(m))
        })
    {
        return Some(format!("it is the metadata of `{}`", table.name));
    }
    let matches = relative.is_some_and(|r| is_proposal(globs, &[], r));
    if config.proposals.is_empty() || matches {
        return None;
    }
    Some(format!(
        "no `proposals` glob of `{}` matches it (give --metadata PATH to judge it against one table)",
        config.source.name
    ))
}

/// A table's routed proposals read in order, each schema file diffed against the table as the
/// proposals before it left it. Every item's located errors are collected before failing.
fn read_in_order(
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

/// Whether the item starts with CREATE TABLE.
fn creates_table(item: &Item) -> bool {
    match item {
        Item::Ddl { statements, .. } => statements
            .first()
            .is_some_and(|s| matches!(s.kind, StatementKind::CreateTable(_))),
        Item::SchemaFile { .. } => false,
    }
}
