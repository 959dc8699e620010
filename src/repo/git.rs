//! The repository `check` runs in, through libgit2: which commit is the base, which files changed
//! since it (committed, staged or only in the working tree), the files of a commit's tree, and the
//! versions a table's metadata went through. Every failure is a message that says what to do,
//! because `check` runs in CI where nobody can poke around.

use std::path::{Path, PathBuf};

use git2::{Commit, Delta, DiffOptions, Index, Oid, Repository, Tree};

pub use crate::repo::commit_files::CommitFiles;
use crate::repo::index_stat::{entry_path, stat_matches};
use crate::repo::location::{Files, locate_in};
use crate::rules::CommitInfo;

/// The branches tried, in order, when neither `--base` nor `GITHUB_BASE_REF` names one.
const DEFAULT_BRANCHES: [&str; 4] = ["origin/main", "origin/master", "main", "master"];

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

    /// The merge base of HEAD with `given`, else with the branch CI names (`GITHUB_BASE_REF`),
    /// else with the upstream default branch (`origin/HEAD`, `origin/main`, `origin/master`,
    /// `main`, `master`). A base that is not in the clone is an error that says how to fetch it,
    /// never a fallback to a wrong base.
    pub fn base(&self, given: Option<&str>, ci_base_ref: Option<&str>) -> Result<Base, String> {
        let head = self
            .repo
            .head()
            .and_then(|h| h.peel_to_commit())
            .map_err(|e| format!("HEAD has no commit: {}", e.message()))?;
        let candidates: Vec<String> = match (given, ci_base_ref.filter(|r| !r.is_empty())) {
            (Some(given), _) => vec![given.to_string()],
            (None, Some(branch)) => vec![format!("origin/{branch}"), branch.to_string()],
            (None, None) => self
                .origin_head()
                .into_iter()
                .chain(DEFAULT_BRANCHES.iter().map(|b| b.to_string()))
                .collect(),
        };
        let found = candidates.iter().find_map(|name| {
            let commit = self
                .repo
                .revparse_single(name)
                .ok()?
                .peel_to_commit()
                .ok()?;
            Some((name.clone(), commit))
        });
        let Some((against, base)) = found else {
            return Err(self.missing_base(&candidates));
        };
        let merge_base = self
            .repo
            .merge_base(head.id(), base.id())
            .map_err(|_| self.no_common_history(&against))?;
        let commit = self
            .repo
            .find_commit(merge_base)
            .map_err(|e| format!("cannot read the base commit {merge_base}: {}", e.message()))?;
        Ok(Base {
            commit: merge_base,
            against,
            info: commit_info(&commit),
        })
    }

    /// `origin/HEAD`'s target as a short name (`origin/main`), if the clone recorded one.
    fn origin_head(&self) -> Option<String> {
        let reference = self.repo.find_reference("refs/remotes/origin/HEAD").ok()?;
        let target = reference.symbolic_target().ok()??;
        Some(
            target
                .strip_prefix("refs/remotes/")
                .unwrap_or(target)
                .to_string(),
        )
    }

    fn missing_base(&self, candidates: &[String]) -> String {
        let tried = candidates
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let branch = candidates
            .first()
            .map(|c| c.strip_prefix("origin/").unwrap_or(c).to_string())
            .unwrap_or_else(|| "main".into());
        let mut message = format!(
            "the base branch is not in this clone (tried {tried}), so there is nothing to compare the change with"
        );
        if self.repo.is_shallow() {
            message.push_str(
                ": this is a shallow clone (GitHub's actions/checkout fetches a single commit by default)",
            );
        }
        message.push_str(&format!(
            ". Fetch the history: set `fetch-depth: 0` on actions/checkout, or run `git fetch origin {branch}` before `fieldgate check`; or name the base with `--base REF`"
        ));
        message
    }

    fn no_common_history(&self, against: &str) -> String {
        let branch = against.strip_prefix("origin/").unwrap_or(against);
        if self.repo.is_shallow() {
            format!(
                "HEAD and `{against}` share no commit in this shallow clone, so the base of the change is unknown. Fetch the history: set `fetch-depth: 0` on actions/checkout, or run `git fetch --unshallow origin {branch}` (or `git fetch origin {branch}` with enough depth) before `fieldgate check`"
            )
        } else {
            format!(
                "HEAD and `{against}` have no common history, so the change has no base: give the branch this change starts from with `--base REF`"
            )
        }
    }

    /// Files added, modified, renamed or copied since `base`: committed, staged, or only in the
    /// working tree, as the working tree compared with `base` shows them (untracked files
    /// included, ignored ones not). Paths relative to the root.
    ///
    /// Without a status of the whole working tree, whose stat of every file and ignore lookups
    /// per directory cost most of a run on a large lake: committed and staged changes come from
    /// tree and index diffs (identical subtrees skipped), tracked files from a stat per index
    /// entry, and untracked files are looked for only where one can change what `check` judges:
    /// under `proposal_prefixes` (every file a `proposals` glob matches lies under its literal
    /// prefix) and in the directories of `tables` where the located metadata could change (see
    /// [`Repo::untracked_roots`]). Deleted files of `tables` count: they change the table.
    pub fn changed_files(
        &self,
        base: Oid,
        proposal_prefixes: &[PathBuf],
        tables: &[PathBuf],
    ) -> Result<Vec<PathBuf>, String> {
        let failed = |e: git2::Error| {
            format!(
                "cannot compare the working tree with the base: {}",
                e.message()
            )
        };
        let base_tree = self.tree(base)?;
        let head_tree = self
            .repo
            .head()
            .and_then(|h| h.peel_to_tree())
            .map_err(failed)?;
        let index = self.repo.index().map_err(failed)?;
        let mut options = DiffOptions::new();
        options.include_typechange(true);
        let committed = self
            .repo
            .diff_tree_to_tree(Some(&base_tree), Some(&head_tree), Some(&mut options))
            .map_err(failed)?;
        let staged = self
            .repo
            .diff_tree_to_index(Some(&head_tree), Some(&index), Some(&mut options))
            .map_err(failed)?;
        let maybe_edited = self.maybe_edited(&index);
        let mut in_work_tree_options = DiffOptions::new();
        in_work_tree_options.include_typechange(true);
        if maybe_edited.len() <= MAX_PATHSPECS {
            in_work_tree_options.disable_pathspec_match(true);
            for path in &maybe_edited {
                in_work_tree_options.pathspec(path);
            }
        }
        // No pathspec would mean every file: nothing to compare is no diff.
        let in_work_tree = (!maybe_edited.is_empty())
            .then(|| {
                self.repo
                    .diff_index_to_workdir(Some(&index), Some(&mut in_work_tree_options))
            })
            .transpose()
            .map_err(failed)?;
        let mut deleted: Vec<PathBuf> = Vec::new();
        let mut candidates: Vec<PathBuf> = Vec::new();
        for diff in [Some(&committed), Some(&staged), in_work_tree.as_ref()]
            .into_iter()
            .flatten()
        {
            for delta in diff.deltas() {
                match delta.status() {
                    Delta::Deleted => {
                        deleted.extend(delta.old_file().path().map(Path::to_path_buf))
                    }
                    status if is_change(status) => {
                        candidates.extend(delta.new_file().path().map(Path::to_path_buf))
                    }
                    _ => {}
                }
            }
        }
        let mut edited: Vec<&Path> = Vec::new();
        let mut gone: Vec<&Path> = Vec::new();
        for delta in in_work_tree.iter().flat_map(|diff| diff.deltas()) {
            match delta.status() {
                Delta::Deleted => gone.extend(delta.old_file().path()),
                status if is_change(status) => edited.extend(delta.new_file().path()),
                _ => {}
            }
        }
        edited.sort();
        gone.sort();
        candidates.sort();
        candidates.dedup();
        let mut files = Vec::new();
        for path in candidates {
            if gone.binary_search(&path.as_path()).is_err()
                && self.differs_from_base(&base_tree, &index, &edited, &path)?
            {
                files.push(path);
            }
        }
        for root in self.untracked_roots(&index, proposal_prefixes, tables, &deleted) {
            self.untracked_under(&index, &root, &mut files);
        }
        // `git rm -r` of a table's metadata must be judged, not passed as untouched.
        files.extend(
            deleted
                .into_iter()
                .filter(|p| tables.iter().any(|t| p.starts_with(t) || t.starts_with(p))),
        );
        files.sort();
        files.dedup();
        Ok(files)
    }

    /// The index entries whose file may differ from what the index recorded, by one stat each:
    /// a stat that does not match the entry's, or a file modified no earlier than the index was
    /// written (git's racy case). libgit2 decides about these, with their contents.
    fn maybe_edited(&self, index: &Index) -> Vec<PathBuf> {
        let index_written = std::fs::metadata(self.repo.path().join("index"))
            .and_then(|m| m.modified())
            .ok();
        index
            .iter()
            .filter_map(|entry| {
                let path = entry_path(&entry.path);
                let unchanged =
                    std::fs::symlink_metadata(self.root.join(&path)).is_ok_and(|file| {
                        stat_matches(&entry, &file)
                            && index_written.is_some_and(|w| file.modified().is_ok_and(|m| m < w))
                    });
                (!unchanged).then_some(path)
            })
            .collect()
    }

    /// Whether the working tree's `path`, changed in one of the steps from `base` to it and still
    /// there, ends up other than at `base`: a change committed and reverted in the index or the
    /// working tree is none. Its final content is the index entry's, unless it was edited in the working tree
    /// since, then a diff of that one path decides.
    fn differs_from_base(
        &self,
        base_tree: &Tree<'_>,
        index: &Index,
        edited: &[&Path],
        path: &Path,
    ) -> Result<bool, String> {
        let at_base = base_tree.get_path(path).ok();
        if edited.binary_search(&path).is_ok() {
            if at_base.is_none() {
                return Ok(true);
            }
            let mut options = DiffOptions::new();
            options
                .include_typechange(true)
                .disable_pathspec_match(true)
                .pathspec(path);
            let diff = self
                .repo
                .diff_tree_to_workdir_with_index(Some(base_tree), Some(&mut options))
                .map_err(|e| {
                    format!(
                        "cannot compare `{}` with the base: {}",
                        path.display(),
                        e.message()
                    )
                })?;
            return Ok(diff.deltas().any(|d| is_change(d.status())));
        }
        // Not in the index (removed from it): the untracked-file search decides.
        let Some(entry) = index.get_path(path, 0) else {
            return Ok(false);
        };
        Ok(at_base.is_none_or(|b| b.id() != entry.id || b.filemode() as u32 != entry.mode))
    }

    /// Where an untracked file can matter: under the proposals' prefixes, and in a table's
    /// directory unless its `metadata/version-hint.text` is tracked and nothing under it was
    /// deleted. With the hint tracked (a change to it is seen), an untracked file does not
    /// change which metadata file the table's location names, so the table stays untouched;
    /// without one, the newest `vN.metadata.json` is the table's, so a hand-written one must be
    /// seen (a `metadata-drift` finding).
    fn untracked_roots(
        &self,
        index: &Index,
        proposal_prefixes: &[PathBuf],
        tables: &[PathBuf],
        deleted: &[PathBuf],
    ) -> Vec<PathBuf> {
        let hinted = |table: &Path| {
            index
                .get_path(&table.join("metadata/version-hint.text"), 0)
                .is_some()
                && !deleted.iter().any(|d| d.starts_with(table))
        };
        let mut roots: Vec<PathBuf> = proposal_prefixes
            .iter()
            .cloned()
            .chain(tables.iter().filter(|t| !hinted(t)).cloned())
            .collect();
        roots.sort();
        roots.dedup();
        // A root inside another is walked with it.
        let mut outer: Vec<PathBuf> = Vec::new();
        for root in roots {
            if !outer.last().is_some_and(|o| root.starts_with(o)) {
                outer.push(root);
            }
        }
        outer
    }

    /// The files under `root` (relative to the root; it may be a file) that are neither in the
    /// index nor ignored, found as `git status` finds them: a symbolic link is a file, never
    /// followed, so a link on the way to `root` is the only path seen there.
    fn untracked_under(&self, index: &Index, root: &Path, files: &mut Vec<PathBuf>) {
        let mut on_the_way = PathBuf::new();
        for part in root.components() {
            on_the_way.push(part);
            if on_the_way == root {
                break;
            }
            match std::fs::symlink_metadata(self.root.join(&on_the_way)) {
                Ok(metadata) if metadata.is_dir() => {}
                Ok(_) => return self.if_untracked(index, on_the_way, files),
                Err(_) => return,
            }
        }
        let mut pending = vec![root.to_path_buf()];
        while let Some(path) = pending.pop() {
            let Ok(metadata) = std::fs::symlink_metadata(self.root.join(&path)) else {
                continue;
            };
            if !metadata.is_dir() {
                self.if_untracked(index, path, files);
                continue;
            }
            if path.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            // An unreadable directory shows nothing, as it would to git.
            let Ok(entries) = std::fs::read_dir(self.root.join(&path)) else {
                continue;
            };
            pending.extend(entries.flatten().map(|e| path.join(e.file_name())));
        }
    }

    fn if_untracked(&self, index: &Index, path: PathBuf, files: &mut Vec<PathBuf>) {
        let tracked = index.get_path(&path, 0).is_some();
        if !tracked && !self.repo.status_should_ignore(&path).unwrap_or(false) {
            files.push(path);
        }
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

    /// Every version of the table at `path` (a metadata file or table directory, relative to the
    /// root) along the first-parent history ending at `base`, oldest first: one per commit that
    /// changed it. First parents only, so a change merged from a branch is dated when it landed.
    /// A shallow clone's history simply ends early.
    pub fn versions(&self, base: Oid, path: &Path) -> Result<Vec<Version>, String> {
        let mut chain: Vec<(Commit<'_>, Option<Oid>)> = Vec::new();
        let mut next = self.repo.find_commit(base).ok();
        while let Some(commit) = next {
            // Through links, so a table reached by one changes when its files do.
            let entry = commit
                .tree()
                .ok()
                .and_then(|tree| CommitFiles::new(&self.repo, tree).object_id(path));
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

/// libgit2 matches every path against every pathspec: past this many, one walk of the whole
/// working tree costs less than the matching.
const MAX_PATHSPECS: usize = 256;

/// A delta that leaves a file to read: what `check` counts as changed.
fn is_change(status: Delta) -> bool {
    matches!(
        status,
        Delta::Added
            | Delta::Modified
            | Delta::Renamed
            | Delta::Copied
            | Delta::Untracked
            | Delta::Typechange
    )
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
