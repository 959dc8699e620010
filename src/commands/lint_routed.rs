//! `fieldgate lint` without `--metadata`, in a repository with `fieldgate.yaml`: the files given
//! that are proposals (they match `proposals`) are routed statement by statement to the
//! configured table each names, every touched table is read from the working tree and judged on
//! its own, and one report holds them all, as `check` writes it. This is what the pre-commit hook
//! runs on the staged files.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::change::{Source, SourceFile, StatementKind};
use crate::cli::{LintArgs, ReportFormatArg};
use crate::commands::check::{config_failure, load_repo_config, repo_config_path};
use crate::commands::failure::Failure;
use crate::commands::input::{
    FileKind, LoadedTable, ReadProposal, iceberg_table, parse_proposal, read_source_named,
    state_after, table_from_source,
};
use crate::commands::lint::{locate_related, threshold, write_report};
use crate::commands::pipeline::{self, Judgement, Target, judge_read};
use crate::commands::routing::{
    Item, is_proposal, metadata_outside, parse_sources, route, slashed,
};
use crate::commands::settings::{Resolved, resolve_with};
use crate::frontend::ddl::Dialect;
use crate::iceberg::metadata::TableMetadata;
use crate::judge::Settings;
use crate::proposal::Proposal;
use crate::repo::config::{Config, TableConfig, repo_path};
use crate::repo::git::Repo;
use crate::repo::location::{Files, LocateError, locate_in};
use crate::repo::work_tree::RepoWorkTree;
use crate::report::{Run, TableRun};

/// `fieldgate.yaml` as routing needs it.
pub struct RepoConfig {
    config: Config,
    /// The git repository around the current directory, if any.
    git: Option<Repo>,
    /// The configuration's directory, relative to `root`.
    dir: PathBuf,
    /// The repository root (the configuration's directory outside git).
    root: PathBuf,
    /// The configuration file itself, canonical, so it is never taken for a proposal.
    file: PathBuf,
}

impl RepoConfig {
    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The configuration's directory, relative to the root.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn git(&self) -> Option<&Repo> {
        self.git.as_ref()
    }

    /// Why `canonical` (a file's real path, `relative` to the root when inside it) is not one
    /// of the configuration's proposals; `None` when it is.
    pub fn skip_reason(
        &self,
        relative: Option<&Path>,
        canonical: &Path,
    ) -> Result<Option<String>, Failure> {
        let globs = self
            .config
            .proposal_globs(&self.dir)
            .map_err(|errors| config_failure(&self.config, errors))?;
        Ok(skip_reason(self, &globs, relative, canonical))
    }
}

/// The configuration `lint` routes by: `--config`, else `./fieldgate.yaml`, else the one at the
/// root of the git repository around `cwd`. `None` when there is none.
pub fn find_config(given: Option<&Path>, cwd: &Path) -> Result<Option<RepoConfig>, Failure> {
    let git = Repo::discover(cwd).ok();
    let path = repo_config_path(given, cwd, git.as_ref().map_or(cwd, Repo::root));
    if given.is_none() && !path.is_file() {
        return Ok(None);
    }
    let root = match &git {
        Some(git) => git.root().to_path_buf(),
        None => path.parent().map(Path::to_path_buf).unwrap_or_default(),
    };
    let (config, dir) = load_repo_config(given, cwd, &root)?;
    let file = fs::canonicalize(&path)
        .map_err(|e| Failure::Message(format!("cannot resolve `{}`: {e}", path.display())))?;
    Ok(Some(RepoConfig {
        config,
        git,
        dir,
        root,
        file,
    }))
}

/// Judges and reports; returns whether the gate passed. When nothing could be judged, machine
/// formats still get a document saying why (main prints the diagnostics and exits 2).
pub fn run(
    args: &LintArgs,
    repo: RepoConfig,
    cwd: &Path,
    now_ms: i64,
    out: &mut dyn Write,
) -> Result<bool, Failure> {
    let fail_on = threshold(args.fail_on);
    let (judged, proposals) = match judge_all(args, &repo, cwd, now_ms) {
        Ok(judged) => judged,
        Err(failure) => {
            if args.format != ReportFormatArg::Human {
                // The run already failed; a report that cannot be written changes nothing.
                let _ = write_report(&Run::failed(&failure, fail_on), args.format, out);
            }
            return Err(failure);
        }
    };
    let tables = judged
        .iter()
        .map(|(judgement, settings)| TableRun::new(judgement, settings))
        .collect();
    let run = Run::judged(tables, fail_on);
    let header = match args.format {
        ReportFormatArg::Human => writeln!(
            out,
            "{} proposal file(s) of {} given; {} of {} table(s) of `{}` touched\n",
            proposals,
            args.proposal.files.len(),
            run.tables.len(),
            repo.config.tables.len(),
            repo.config.source.name
        ),
        _ => Ok(()),
    };
    match header.and_then(|()| write_report(&run, args.format, out)) {
        Ok(()) => {}
        // A reader that stopped early (`| head`) is not a failure of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(Failure::Message(format!("cannot write the report: {e}"))),
    }
    Ok(run.passed)
}

/// Every touched table judged, in the configuration's order, and how many files were proposals.
fn judge_all(
    args: &LintArgs,
    repo: &RepoConfig,
    cwd: &Path,
    now_ms: i64,
) -> Result<(Vec<(Judgement, Settings)>, usize), Failure> {
    let resolved = resolve_with(
        &args.proposal,
        Some(repo.config.clone()),
        Some(repo.file.clone()),
    );
    let files = proposal_files(repo, cwd, &args.proposal.files)?;
    let mut sources = Vec::new();
    for file in &files {
        sources.push((file.clone(), read_source_named(file, slashed(file))?));
    }
    let table = args.proposal.table.as_deref();
    let judged = judge_sources(repo, &resolved, table, sources, cwd, now_ms)?;
    Ok((judged, files.len()))
}

/// Proposal texts (each with its path, relative to `cwd`, in path order) routed to their tables
/// and judged, every touched table in the configuration's order: what `lint` does with the files
/// it reads, and what the language server does with unsaved buffers. `table` is `--table`.
pub fn judge_sources(
    repo: &RepoConfig,
    resolved: &Resolved,
    table: Option<&str>,
    sources: Vec<(PathBuf, Source)>,
    cwd: &Path,
    now_ms: i64,
) -> Result<Vec<(Judgement, Settings)>, Failure> {
    let RepoConfig {
        config, dir, root, ..
    } = repo;
    let dialect = pipeline::dialect(resolved.dialect);
    let items = parse_sources(sources, dialect)?;
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
    let table_name = table;
    for ((table, path), items) in config.tables.iter().zip(&locations).zip(&routed) {
        if items.is_empty() {
            continue;
        }
        let metadata = shown(&root, &here, path);
        let committed = match &repo.git {
            Some(git) => committed_table(git, path, &shown(&root, &here, Path::new("")))?,
            None => None,
        };
        let base = match committed {
            Some(table) => Some(table),
            // Judged from nothing, even when `apply -o` already wrote the new table's metadata.
            None if items.first().is_some_and(creates_table) => None,
            None => working_tree_table(&work_tree, table, path, &|p| shown(&root, &here, p))?,
        };
        let read = read_in_order(items, dialect, base.as_ref().map(|b| &b.metadata));
        let judgement = read.and_then(|proposals| {
            let target = Target {
                table: Some(table_name.map_or(table.name.clone(), str::to_string)),
                base,
                metadata: Some(&metadata),
            };
            let location = metadata.display().to_string();
            judge_read(resolved, target, proposals, location, now_ms)
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
    Ok(judged)
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

/// The table as the working tree holds it (`path` relative to the root; `shown` names a root
/// path as reports show it), read only inside the repository as `check` reads it: `fieldgate.yaml`
/// may come with the change under review, and a link out would make lint read and quote any file.
/// `None` when nothing is there yet.
fn working_tree_table(
    work_tree: &RepoWorkTree,
    table: &TableConfig,
    path: &Path,
    shown: &dyn Fn(&Path) -> PathBuf,
) -> Result<Option<LoadedTable>, Failure> {
    let location = match locate_in(work_tree, path) {
        Ok(location) => location,
        Err(LocateError::Outside(message)) => return Err(metadata_outside(table, message)),
        Err(LocateError::NotATable(_)) if !work_tree.is_file(path) && !work_tree.is_dir(path) => {
            return Ok(None);
        }
        Err(LocateError::NotATable(message)) => return Err(Failure::Message(message)),
    };
    let real = work_tree
        .resolve(&location.metadata_file)
        .map_err(|message| metadata_outside(table, message))?;
    let name = shown(&location.metadata_file).display().to_string();
    table_from_source(location, read_source_named(&real, name)?).map(Some)
}

/// A repository path as reports show it: relative to the current directory when inside it, as
/// paths given on the command line are.
fn shown(root: &Path, here: &Path, path: &Path) -> PathBuf {
    let full = root.join(path);
    full.strip_prefix(here)
        .map_or(full.clone(), Path::to_path_buf)
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

/// The table's Iceberg metadata as committed at HEAD (`path` relative to the root; `prefix` is
/// how reports show the root). A change is judged against it rather than the working tree, where
/// `apply --write` may already have applied the very migrations being judged (the hook's case:
/// migration and new metadata staged together). `None` when HEAD has no such table, or a schema
/// file describes it: then the working tree's is read.
fn committed_table(git: &Repo, path: &Path, prefix: &Path) -> Result<Option<LoadedTable>, Failure> {
    let Some(head) = git.head() else {
        return Ok(None);
    };
    let files = git.files_at(head)?;
    let Ok(location) = locate_in(&files, path) else {
        return Ok(None);
    };
    let text = files.read_to_string(&location.metadata_file)?;
    let name = prefix.join(&location.metadata_file).display().to_string();
    if FileKind::of(&name, &text) != Some(FileKind::Metadata) {
        return Ok(None);
    }
    let source = Arc::new(SourceFile { name, text });
    iceberg_table(location, source).map(Some)
}
