//! The session of an editor's open buffer (`fieldgate lsp`): the file judged as `lint` routes
//! it, with unsaved texts in place of the files. Its `fieldgate.yaml` is the nearest one in its
//! directory or above (inside its git repository); the proposals judged are the ones `lint`
//! would be given for a commit of everything not yet committed (the working tree's changed and
//! new proposal files, and every open buffer that is a proposal) up to this file in path order,
//! against the table as committed at `HEAD` (else the working tree's), without the migrations
//! `HEAD` holds applied (a buffer that is one is not judged, as `lint` leaves it out). An open `fieldgate.yaml`
//! routes by its unsaved text (the one on disk must still parse: it finds the repository). The
//! configuration itself is checked at its spans: parse errors, globs, the tables' locations.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::change::{Source, SourceFile};
use crate::cli::ProposalArgs;
use crate::failure::Failure;
use crate::frontend::ddl::Dialect;
use crate::judge::Settings;
use crate::repo::config::{CONFIG_FILE, Config, repo_path};
use crate::repo::git::Repo;
use crate::repo::glob;
use crate::session::input::read_source_named;
use crate::session::now_ms;
use crate::session::plan::repo_config::{RepoConfig, find_config};
use crate::session::plan::routing::{is_proposal, slashed};
use crate::session::plan::settings::{config_failure_in, resolve_with};
use crate::session::routed::{Routed, TablesFrom, judge_sources, skip_reason_of};
use crate::session::table::{self, Judgement};

/// The open buffers' texts by absolute path.
pub type Texts = HashMap<PathBuf, Arc<String>>;

/// What became of one buffer. Source names in findings and errors are relative to `root`.
pub enum Judged {
    /// Not judged, and why (no `fieldgate.yaml`, not a proposal, outside the repository).
    Skipped(String),
    /// `fieldgate.yaml` itself, with nothing wrong in it.
    Config { root: PathBuf },
    /// A proposal: every table it touched, judged with the proposals before it.
    Proposal {
        root: PathBuf,
        /// The file, relative to the root, as judgements name their proposals.
        relative: PathBuf,
        dialect: Dialect,
        judged: Vec<(Judgement, Settings)>,
    },
    /// What stopped judging, located in the buffer or the files before it.
    Failed { root: PathBuf, failure: Failure },
}

/// Judges the buffer of `path` (absolute, links resolved).
pub fn judge_buffer(path: &Path, texts: &Texts) -> Judged {
    // Each judgement is a run of its own: its reads count against fresh budgets.
    crate::limits::new_run();
    let Some(config) = nearest_config(path) else {
        return Judged::Skipped(format!("no {CONFIG_FILE} in its directory or above"));
    };
    let dir = config.parent().unwrap_or(Path::new(""));
    let root = Repo::discover(dir).map_or(dir.to_path_buf(), |git| git.root().to_path_buf());
    let root = root.canonicalize().unwrap_or(root);
    let judged = match config == path {
        true => judge_config(path, &root, texts),
        false => judge_proposal(path, &config, texts),
    };
    judged.unwrap_or_else(|failure| Judged::Failed { root, failure })
}

/// The tables listed by the configuration that routes `path` (none when it has none, or it
/// does not parse).
pub fn configured_tables(path: &Path, texts: &Texts) -> Vec<String> {
    let routing = nearest_config(path).map(|config| routing_config(&config, texts));
    match routing {
        Some(Ok(Some((repo, _)))) => repo.config.tables.into_iter().map(|t| t.name).collect(),
        _ => Vec::new(),
    }
}

/// The repository `config` is the configuration of, routed by the open buffer's text when it
/// is open, and its root (canonical); `None` when the file cannot be read.
fn routing_config(config: &Path, texts: &Texts) -> Result<Option<(RepoConfig, PathBuf)>, Failure> {
    let dir = config.parent().unwrap_or(Path::new(""));
    let Some(mut repo) = find_config(Some(config), dir)? else {
        return Ok(None);
    };
    let root = repo.root.canonicalize().unwrap_or(repo.root.clone());
    if texts.contains_key(config) {
        let name = slashed(config.strip_prefix(&root).unwrap_or(config));
        let source = text_of(config, name, texts)?;
        repo.config = Config::parse(source.clone()).map_err(|e| config_failure_in(&source, e))?;
    }
    Ok(Some((repo, root)))
}

fn judge_proposal(path: &Path, config: &Path, texts: &Texts) -> Result<Judged, Failure> {
    let Some((repo, root)) = routing_config(config, texts)? else {
        return Ok(Judged::Skipped(format!(
            "`{}` cannot be read",
            config.display()
        )));
    };
    let Ok(relative) = path.strip_prefix(&root) else {
        return Ok(Judged::Skipped("it is outside the repository".into()));
    };
    if let Some(reason) = skip_reason_of(&repo, Some(relative), path)? {
        return Ok(Judged::Skipped(reason));
    }
    let mut files = uncommitted_proposals(&repo)?;
    files.extend(
        texts
            .keys()
            .filter_map(|p| Some(p.strip_prefix(&root).ok()?.to_path_buf())),
    );
    files.retain(|f| f.as_path() < relative && is_routed(&repo, &root, f));
    files.push(relative.to_path_buf());
    files.sort();
    files.dedup();
    let mut sources = Vec::new();
    for file in files {
        let source = text_of(&root.join(&file), slashed(&file), texts)?;
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
    let resolved = resolve_with(&args, Some(repo.config.clone()), Some(config.to_path_buf()));
    let routed = judge_sources(
        &repo,
        &resolved,
        None,
        sources,
        &root,
        now_ms(),
        TablesFrom::HeadKept,
    )?;
    if let Some(why) = applied(&routed, relative) {
        return Ok(Judged::Skipped(why));
    }
    Ok(Judged::Proposal {
        relative: relative.to_path_buf(),
        root,
        dialect: table::dialect(resolved.dialect),
        judged: routed.judged,
    })
}

/// Why the file at `relative` is not judged when HEAD holds it applied: it is history, as
/// `lint` leaves it out (unless it also changes a table for which it is not).
fn applied(routed: &Routed, relative: &Path) -> Option<String> {
    let judged_here = routed
        .judged
        .iter()
        .any(|(j, _)| j.proposals.iter().any(|p| p.path == relative));
    let table = routed.applied.iter().find(|a| a.path == relative)?;
    (!judged_here).then(|| {
        format!(
            "it is applied: HEAD has it unchanged, and the committed metadata of `{}` holds its changes",
            table.table
        )
    })
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
fn text_of(path: &Path, name: String, texts: &Texts) -> Result<Source, Failure> {
    match texts.get(path) {
        Some(text) => Ok(Arc::new(SourceFile {
            name,
            text: text.to_string(),
        })),
        None => read_source_named(path, name),
    }
}

/// The configuration as the buffer holds it: parsed, its globs and its tables' locations.
fn judge_config(path: &Path, root: &Path, texts: &Texts) -> Result<Judged, Failure> {
    let relative = path.strip_prefix(root).unwrap_or(path);
    let source = text_of(path, slashed(relative), texts)?;
    let config = Config::parse(source.clone()).map_err(|e| config_failure_in(&source, e))?;
    let config_dir = relative.parent().unwrap_or(Path::new(""));
    let mut errors = Vec::new();
    if let Err(mut bad) = config.proposal_globs(config_dir) {
        errors.append(&mut bad);
    }
    if let Err(mut bad) = config.locations(config_dir, &|p| root.join(p).exists()) {
        errors.append(&mut bad);
    }
    match errors.is_empty() {
        true => Ok(Judged::Config {
            root: root.to_path_buf(),
        }),
        false => Err(config_failure_in(&source, errors)),
    }
}

/// Whether a repository file (relative to the root) is one of the configuration's proposals.
fn is_routed(repo: &RepoConfig, root: &Path, file: &Path) -> bool {
    matches!(skip_reason_of(repo, Some(file), &root.join(file)), Ok(None))
}

/// The proposal files the working tree has changed or added since `HEAD` (none outside git).
fn uncommitted_proposals(repo: &RepoConfig) -> Result<Vec<PathBuf>, Failure> {
    let Some(git) = &repo.git else {
        return Ok(Vec::new());
    };
    let Some(head) = git.head() else {
        return Ok(Vec::new());
    };
    let config = &repo.config;
    let globs = config.proposal_globs(&repo.dir).unwrap_or_default();
    let tables: Vec<PathBuf> = config
        .tables
        .iter()
        .filter_map(|t| repo_path(&repo.dir, t.metadata.as_deref()?).ok())
        .collect();
    let prefixes: Vec<PathBuf> = globs.iter().map(|g| glob::literal_prefix(g)).collect();
    let changed = git.changed_files(head, &prefixes, &tables)?;
    Ok(changed
        .into_iter()
        .filter(|file| is_proposal(&globs, &tables, file))
        .collect())
}
