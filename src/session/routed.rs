//! The session of `fieldgate lint` without `--metadata`, in a repository with `fieldgate.yaml`: the files given
//! that are proposals (they match `proposals`) are routed statement by statement to the
//! configured table each names, every touched table is read from the working tree and judged on
//! its own, for one report that holds them all, as `check` writes it. This is what the pre-commit hook
//! runs on the staged files.

use std::cell::RefCell;
use std::fs;
use std::path::{Path, PathBuf};

use crate::change::{Source, StatementKind};
use crate::cli::ProposalArgs;
use crate::failure::Failure;
use crate::judge::Settings;
use crate::repo::config::{TableConfig, repo_path};
use crate::repo::location::{first_metadata_file, new_table_uri};
use crate::repo::work_tree::RepoWorkTree;
use crate::session::applied::{AppliedMigration, History, applied_at_head};
use crate::session::catalog_source::CatalogSource;
use crate::session::input::read_source_named;
use crate::session::live::Catalogs;
use crate::session::plan::repo_config::{RepoConfig, config_failure};
use crate::session::plan::routing::{
    Item, is_proposal, name_unnamed, parse_sources, route, slashed,
};
use crate::session::plan::settings::{Resolved, resolve_with};
use crate::session::source::{HeadOrWorkTree, TableSource};
use crate::session::table::{self, Judgement, Target, judge_read, locate_related, read_in_order};

/// Where a routed run reads each touched table from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TablesFrom {
    /// As committed at `HEAD`, else the working tree (`lint`, the hook, the editor): migrations
    /// staged with the metadata `apply --write` made of them are not applied twice. A table the
    /// proposals create is named by its path.
    Head,
    /// As `Head`, each table's parse kept while what it was read from is unchanged
    /// (`session::kept`): the editor's server, which judges on every keystroke.
    HeadKept,
    /// The working tree only (`apply`): the table it writes is the table it starts from, so
    /// nothing uncommitted is overwritten. A table the proposals create lives at its
    /// configured path, as a `file://` URI.
    WorkTree,
}

/// What a routed run judged: every touched table in the configuration's order, and the
/// migrations it left out because HEAD has them applied (in a git repository).
pub struct Routed {
    pub judged: Vec<(Judgement, Settings)>,
    pub applied: Vec<AppliedMigration>,
    /// Files of statements about the session only (`USE`, `SET`, ...), which name no table,
    /// without `--table` to give them one: they touch no table.
    pub tableless: Vec<PathBuf>,
}

impl Routed {
    /// How many files were left out as applied (a file may be applied for several tables).
    pub fn applied_files(&self) -> usize {
        let mut files: Vec<&Path> = self.applied.iter().map(|a| a.path.as_path()).collect();
        files.sort();
        files.dedup();
        files.len()
    }
}

/// Every touched table judged, and how many files were proposals.
pub fn judge_all(
    args: &ProposalArgs,
    repo: &RepoConfig,
    cwd: &Path,
    now_ms: i64,
    from: TablesFrom,
) -> Result<(Routed, usize), Failure> {
    let resolved = resolve_with(args, Some(repo.config.clone()), Some(repo.file.clone()));
    let files = proposal_files(repo, cwd, &args.files)?;
    let mut sources = Vec::new();
    for file in &files {
        sources.push((file.clone(), read_source_named(file, slashed(file))?));
    }
    let table = args.table.as_deref();
    let mut routed = judge_sources(repo, &resolved, table, sources, cwd, now_ms, from)?;
    routed.applied.sort_by(|a, b| a.path.cmp(&b.path));
    for file in &routed.tableless {
        crate::pipe::to_stderr(&format!(
            "note: `{}` touches no table: it holds only statements about the session (`USE`, `SET`, ...), which change none (give --table NAME to list them with that table)",
            file.display()
        ));
    }
    for applied in &routed.applied {
        crate::pipe::to_stderr(&format!(
            "note: `{}` is not judged for `{}`: it is applied (HEAD has it unchanged, and the table's committed metadata holds its changes)",
            applied.path.display(),
            applied.table
        ));
    }
    Ok((routed, files.len()))
}

/// What every touched table is judged with.
struct Routing<'a> {
    repo: &'a RepoConfig,
    resolved: &'a Resolved,
    /// `--table`.
    named: Option<&'a str>,
    dialect: crate::frontend::ddl::Dialect,
    root: PathBuf,
    here: PathBuf,
    work_tree: RepoWorkTree,
    now_ms: i64,
    from: TablesFrom,
}

/// Proposal texts (each with its path relative to `cwd`, in path order) routed to their tables
/// and judged, every touched table in the configuration's order, without the migrations HEAD
/// has applied: what `lint` and `apply` do with the files they read, and what the language
/// server does with unsaved buffers. `named` is `--table`, the name every statement must use.
pub fn judge_sources(
    repo: &RepoConfig,
    resolved: &Resolved,
    named: Option<&str>,
    sources: Vec<(PathBuf, Source)>,
    cwd: &Path,
    now_ms: i64,
    from: TablesFrom,
) -> Result<Routed, Failure> {
    let RepoConfig {
        config, dir, root, ..
    } = repo;
    let dialect = table::dialect(resolved.dialect);
    let mut items = parse_sources(sources, dialect)?;
    let tableless = name_unnamed(&mut items, named);
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
    let run = Routing {
        repo,
        resolved,
        named,
        dialect,
        work_tree: RepoWorkTree::new(&root)?,
        root,
        here,
        now_ms,
        from,
    };
    let mut out = Routed {
        judged: Vec::new(),
        applied: Vec::new(),
        tableless,
    };
    let mut errors = Vec::new();
    let tables = config.tables.iter().zip(&locations).zip(routed);
    for (index, ((table, path), items)) in tables.enumerate() {
        let items = match path {
            Some(path) => run.unapplied(index, table, path, items, &mut out.applied)?,
            None => items,
        };
        if items.is_empty() {
            continue;
        }
        let judged = match path {
            Some(path) => run.judge_table(table, path, &items),
            None => run.judge_live(table, &items),
        };
        match judged {
            Ok(judged) => out.judged.push(judged),
            // Every table's located errors together, as one run over one table reports them.
            Err(Failure::Located(mut located)) => errors.append(&mut located),
            Err(other) => return Err(other),
        }
    }
    if !errors.is_empty() {
        return Err(Failure::Located(errors));
    }
    Ok(out)
}

impl Routing<'_> {
    /// The table's items without the migrations HEAD has applied (each added to `applied`).
    /// Whatever the table is read from: `lint` judges what is not history yet, the editor
    /// does the same, and `apply`, which reads the working tree, must not apply a migration
    /// a second time onto the table that already holds it.
    fn unapplied(
        &self,
        index: usize,
        table: &TableConfig,
        path: &Path,
        items: Vec<Item>,
        applied: &mut Vec<AppliedMigration>,
    ) -> Result<Vec<Item>, Failure> {
        if items.is_empty() {
            return Ok(items);
        }
        let Some(git) = &self.repo.git else {
            return Ok(items);
        };
        let history = History {
            git,
            config: &self.repo.config,
            dialect: self.dialect,
            root: &self.root,
            here: &self.here,
        };
        let flags = applied_at_head(&history, index, path, &items)?;
        let mut kept = Vec::new();
        for (item, left_out) in items.into_iter().zip(flags) {
            match left_out {
                true => applied.push(AppliedMigration {
                    path: item.path().to_path_buf(),
                    table: table.name.clone(),
                }),
                false => kept.push(item),
            }
        }
        Ok(kept)
    }

    /// A table that lives only in its catalog, judged against the live table with the history
    /// its `metadata-log` holds. `lint` reaches the catalog of the configuration it routes by;
    /// the editor, which judges on every keystroke, and `apply`, which has no metadata to write,
    /// do not.
    fn judge_live(
        &self,
        table: &TableConfig,
        items: &[Item],
    ) -> Result<(Judgement, Settings), Failure> {
        if self.from != TablesFrom::Head {
            let why = match self.from {
                TablesFrom::WorkTree => {
                    "there is no metadata in the repository to write: the engine that runs the migration commits it to the catalog"
                }
                _ => "the editor does not reach catalogs: `fieldgate lint` and `check` judge it",
            };
            return Err(Failure::Message(format!(
                "`{}` lives only in its catalog (`catalog:` without `metadata:`): {why}",
                table.name
            )));
        }
        let mut catalogs = Catalogs::default();
        let source = CatalogSource {
            catalogs: RefCell::new(&mut catalogs),
            config: &self.repo.config,
            table,
            log_files: crate::limits::get().metadata_log_files,
        };
        let base = source.load()?;
        let proposals = read_in_order(items, self.dialect, base.as_ref().map(|b| &b.metadata))?;
        let target = Target {
            table: Some(self.named.map_or(table.name.clone(), str::to_string)),
            base,
            source: Some(&source),
        };
        let location = format!("catalog table `{}`", table.name);
        let mut judgement = judge_read(self.resolved, target, proposals, location, self.now_ms)?;
        locate_related(&mut judgement);
        let settings = self.resolved.settings_for(&judgement.table);
        Ok((judgement, settings))
    }

    /// One touched table read from where `from` says and judged with its items.
    fn judge_table(
        &self,
        table: &TableConfig,
        path: &Path,
        items: &[Item],
    ) -> Result<(Judgement, Settings), Failure> {
        let from = self.from;
        let source = HeadOrWorkTree {
            git: self
                .repo
                .git
                .as_ref()
                .filter(|_| from != TablesFrom::WorkTree),
            work_tree: &self.work_tree,
            table,
            path,
            root: &self.root,
            here: &self.here,
            created: items.first().is_some_and(creates_table),
            kept: from == TablesFrom::HeadKept,
        };
        let base = source.load()?;
        let proposals = read_in_order(items, self.dialect, base.as_ref().map(|b| &b.metadata))?;
        let target = Target {
            table: Some(self.named.map_or(table.name.clone(), str::to_string)),
            base,
            source: Some(&source),
        };
        let location = match from {
            TablesFrom::Head | TablesFrom::HeadKept => source.shown(path).display().to_string(),
            TablesFrom::WorkTree => {
                new_table_uri(Some(&first_metadata_file(&self.root.join(path))))
            }
        };
        let mut judgement = judge_read(self.resolved, target, proposals, location, self.now_ms)?;
        locate_related(&mut judgement);
        let mut settings = self.resolved.settings_for(&judgement.table);
        // The history judging read (kept per HEAD), for what callers show of it.
        if judgement
            .base
            .as_ref()
            .is_some_and(|b| b.description.is_none())
        {
            settings.file_history = source.history(&settings.options)?;
        }
        Ok((judgement, settings))
    }
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
            Some(reason) => crate::pipe::to_stderr(&format!(
                "note: `{}` is not judged: {reason}",
                file.display()
            )),
            None => proposals.push((canonical, file.clone())),
        }
    }
    // In path order, as `check` judges them, whatever order a hook or a shell gives.
    proposals.sort();
    Ok(proposals.into_iter().map(|(_, file)| file).collect())
}

/// Why a file (canonical, and relative to the root when inside it) is not one of the
/// configuration's proposals; `None` when it is.
pub fn skip_reason_of(
    repo: &RepoConfig,
    relative: Option<&Path>,
    canonical: &Path,
) -> Result<Option<String>, Failure> {
    let globs = repo
        .config
        .proposal_globs(&repo.dir)
        .map_err(|errors| config_failure(&repo.config, errors))?;
    Ok(skip_reason(repo, &globs, relative, canonical))
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

/// Whether the item starts with CREATE TABLE.
fn creates_table(item: &Item) -> bool {
    match item {
        Item::Ddl { statements, .. } => statements
            .first()
            .is_some_and(|s| matches!(s.kind, StatementKind::CreateTable(_))),
        Item::SchemaFile { .. } => false,
    }
}
