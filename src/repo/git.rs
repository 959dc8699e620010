//! The repository `check` runs in, through libgit2: which commit is the base, which files changed
//! since it (committed, staged or only in the working tree), the files of a commit's tree, and the
//! versions a table's metadata went through. Every failure is a message that says what to do,
//! because `check` runs in CI where nobody can poke around.

mod base;
mod changed;
mod commit_files;

use std::path::{Path, PathBuf};

use git2::{Commit, Oid, Repository, Tree};

use crate::repo::location::{Files, locate_in};
use crate::rules::CommitInfo;

pub use commit_files::CommitFiles;
pub(super) use commit_files::LINK_MODE;

pub struct Repo {
    repo: Repository,
    root: PathBuf,
}

/// The commit the proposals are judged against.
pub struct Base {
    pub commit: Oid,
    /// The ref it was found from (`origin/main`), for messages.
    pub against: String,
    pub info: CommitInfo,
}

/// One version of a table's metadata along the base's first-parent history.
pub struct Version {
    pub commit: CommitInfo,
    /// The metadata file, relative to the repository root.
    pub file: PathBuf,
    pub text: String,
}

impl Repo {
    /// The repository around `dir`.
    pub fn discover(dir: &Path) -> Result<Repo, String> {
        let repo = Repository::discover(dir).map_err(|e| {
            format!(
                "`{}` is not inside a git repository ({}): `fieldgate check` compares a branch with its base; use `fieldgate lint` outside git",
                dir.display(),
                e.message()
            )
        })?;
        let root = repo
            .workdir()
            .ok_or("the repository is bare: `fieldgate check` needs a working tree")?
            .to_path_buf();
        Ok(Repo { repo, root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The commit HEAD points at; `None` in a repository without commits.
    pub fn head(&self) -> Option<Oid> {
        self.repo.head().ok()?.peel_to_commit().ok().map(|c| c.id())
    }

    /// `path` (on disk) relative to the root, if it is inside the working tree.
    pub fn relative(&self, path: &Path) -> Option<PathBuf> {
        let path = std::fs::canonicalize(path).ok()?;
        let root = std::fs::canonicalize(&self.root).ok()?;
        path.strip_prefix(root).ok().map(Path::to_path_buf)
    }

    fn tree(&self, commit: Oid) -> Result<Tree<'_>, String> {
        self.repo
            .find_commit(commit)
            .and_then(|c| c.tree())
            .map_err(|e| format!("cannot read commit {commit}: {}", e.message()))
    }

    /// The files of `commit`, for reading the base.
    pub fn files_at(&self, commit: Oid) -> Result<CommitFiles<'_>, String> {
        Ok(CommitFiles::new(&self.repo, self.tree(commit)?))
    }

    /// The first-parent ancestor of `head` at which none of `paths` (files relative to the
    /// root) has the content it has at `head` yet: the commit before the oldest of them got that
    /// content. `None` when the history (or a shallow clone's part of it) starts with one of them.
    pub fn before_all(&self, head: Oid, paths: &[PathBuf]) -> Result<Option<Oid>, String> {
        let mut commit = self
            .repo
            .find_commit(head)
            .map_err(|e| format!("cannot read commit {head}: {}", e.message()))?;
        let at_head = files_of(&self.repo, &commit)?;
        let wanted: Vec<Option<Oid>> = paths.iter().map(|p| at_head.object_id(p)).collect();
        let mut alive: Vec<usize> = (0..paths.len()).collect();
        while !alive.is_empty() {
            let Ok(parent) = commit.parent(0) else {
                return Ok(None);
            };
            let files = files_of(&self.repo, &parent)?;
            alive.retain(|&i| files.object_id(&paths[i]) == wanted[i]);
            commit = parent;
        }
        Ok(Some(commit.id()))
    }

    /// The first-parent ancestor of `at` (or `at` itself) where `path` got the content it has at
    /// `at` and kept it since: the commit that merged that text. `None` when `at` has no such
    /// file. A shallow clone's history ends early, at its oldest commit.
    pub fn merged_in(&self, at: Oid, path: &Path) -> Result<Option<CommitInfo>, String> {
        let mut commit = self
            .repo
            .find_commit(at)
            .map_err(|e| format!("cannot read commit {at}: {}", e.message()))?;
        let Some(wanted) = files_of(&self.repo, &commit)?.object_id(path) else {
            return Ok(None);
        };
        while let Ok(parent) = commit.parent(0) {
            if files_of(&self.repo, &parent)?.object_id(path) != Some(wanted) {
                break;
            }
            commit = parent;
        }
        Ok(Some(commit_info(&commit)))
    }

    /// Every version of the table at `path` (a metadata file or table directory, relative to the
    /// root) along the first-parent history ending at `base`, oldest first: one per commit that
    /// changed it. First parents only, so a change merged from a branch is dated when it landed.
    /// A shallow clone's history simply ends early.
    pub fn versions(&self, base: Oid, path: &Path) -> Result<Vec<Version>, String> {
        let mut chain: Vec<(Commit<'_>, Option<Oid>)> = Vec::new();
        let mut next = self.repo.find_commit(base).ok();
        while let Some(commit) = next {
            // Through links, so a table reached by one changes when its files do.
            let entry = commit.tree().ok().and_then(|tree| {
                let files = CommitFiles::new(&self.repo, tree);
                let real = files.resolve(path).ok()?;
                files.entry(&real).map(|e| e.id)
            });
            next = commit.parent(0).ok();
            chain.push((commit, entry));
        }
        let mut versions = Vec::new();
        let mut previous: Option<Oid> = None;
        for (commit, entry) in chain.into_iter().rev() {
            if entry == previous {
                continue;
            }
            previous = entry;
            if entry.is_none() {
                continue;
            }
            let Ok(tree) = commit.tree() else { continue };
            let files = CommitFiles::new(&self.repo, tree);
            // An old version that cannot be read is skipped: history informs findings, it must
            // not make the gate fail.
            let Ok(location) = locate_in(&files, path) else {
                continue;
            };
            let Ok(text) = files.read_metadata(&location.metadata_file) else {
                continue;
            };
            versions.push(Version {
                commit: commit_info(&commit),
                file: location.metadata_file,
                text,
            });
        }
        Ok(versions)
    }
}

fn files_of<'r>(repo: &'r Repository, commit: &Commit<'r>) -> Result<CommitFiles<'r>, String> {
    commit
        .tree()
        .map(|tree| CommitFiles::new(repo, tree))
        .map_err(|e| format!("cannot read commit {}: {}", commit.id(), e.message()))
}

fn commit_info(commit: &Commit<'_>) -> CommitInfo {
    let seconds = commit.time().seconds();
    let day = seconds.div_euclid(86_400);
    let id = commit.id().to_string();
    CommitInfo {
        id: id.get(..7).unwrap_or(&id).to_string(),
        date: crate::suppress::date_from_unix_days(day),
        day,
        author: commit
            .author()
            .name()
            .map_or_else(|_| "unknown".to_string(), str::to_string),
    }
}
