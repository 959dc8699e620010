//! Which files a change touches since its base: committed, staged or only in the working tree,
//! found without a status of the whole working tree.

use std::path::{Path, PathBuf};

use git2::{Delta, DiffOptions, Index, Oid, Tree};

use super::Repo;
use crate::iceberg::metadata_file::{hint_version, listed_version, version_file_names};
use crate::repo::index_stat::{entry_path, stat_matches};

/// The largest version hint read to find what Java rolls forward to; a larger one (a number
/// with that many leading zeros) has the table's version files listed instead.
const MAX_HINT_BYTES: u64 = 4096;

impl Repo {
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
    /// [`Repo::untracked_roots`]). Deleted files of `tables` count: they change the table; so do
    /// deleted files under `proposal_prefixes` (a migration the base holds, deleted).
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
        // `git rm -r` of a table's metadata must be judged, not passed as untouched, and a
        // deleted migration the base holds is an edit of history.
        files.extend(deleted.into_iter().filter(|p| {
            tables.iter().any(|t| p.starts_with(t) || t.starts_with(p))
                || proposal_prefixes.iter().any(|prefix| p.starts_with(prefix))
        }));
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
    /// deleted. With the hint tracked (a change to it is seen), an untracked file changes what
    /// is read only if Java rolls forward to it past the hint (`vN+1.metadata.json`, or a gzip
    /// name), so those files are roots, and nothing else of the table is walked. Without a hint, the newest `vN.metadata.json` is
    /// the table's, so a hand-written one anywhere under it must be seen (a `metadata-drift`
    /// finding).
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
        let (hinted, unhinted): (Vec<&PathBuf>, Vec<&PathBuf>) =
            tables.iter().partition(|t| hinted(t));
        let mut roots: Vec<PathBuf> = proposal_prefixes
            .iter()
            .chain(unhinted)
            .cloned()
            .chain(hinted.into_iter().flat_map(|t| self.rolled_forward(t)))
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

    /// The metadata files Java's `HadoopTableOperations` rolls forward through from `table`'s
    /// version hint `N`: `v(N+1)` (the first of its names that exists), `v(N+2)`, ... while one
    /// exists, a stat or three each (usually none exists). Each is a root: an untracked one is
    /// what Java reads. Where Java cannot read the hint and lists the directory instead (or it
    /// is no small regular file), every version's metadata file there.
    fn rolled_forward(&self, table: &Path) -> Vec<PathBuf> {
        let dir = table.join("metadata");
        let hint = self.root.join(dir.join("version-hint.text"));
        let small_file = std::fs::symlink_metadata(&hint)
            .is_ok_and(|m| m.is_file() && m.len() <= MAX_HINT_BYTES);
        let hinted = small_file
            .then(|| std::fs::read(&hint).ok())
            .flatten()
            .and_then(|bytes| hint_version(&bytes));
        let Some(mut version) = hinted else {
            return self.version_files(table);
        };
        let mut files = Vec::new();
        loop {
            version = version.wrapping_add(1);
            let exists = |name: &String| std::fs::symlink_metadata(self.root.join(dir.join(name)));
            let Some(name) = version_file_names(version)
                .into_iter()
                .find(|name| exists(name).is_ok())
            else {
                return files;
            };
            files.push(dir.join(name));
        }
    }

    /// The entries of `table`'s `metadata/` directory named as a version's metadata file
    /// (`vN.metadata.json`, `vN.gz.metadata.json`, `vN.metadata.json.gz`): one listing of one
    /// directory, tracked entries included (the index decides later).
    fn version_files(&self, table: &Path) -> Vec<PathBuf> {
        let dir = table.join("metadata");
        let Ok(entries) = std::fs::read_dir(self.root.join(&dir)) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                // Manifests and the hint sit here too: a suffix test passes them cheaply.
                if !name.ends_with(".metadata.json") && !name.ends_with(".metadata.json.gz") {
                    return None;
                }
                let version = listed_version(&name)?;
                version_file_names(version)
                    .contains(&name)
                    .then(|| dir.join(name))
            })
            .collect()
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
