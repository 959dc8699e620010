//! Tables `fieldgate.yaml` reaches through a symbolic link inside the repository. A pull request
//! can edit (or delete) the files such a link resolves to by their real paths, which are not
//! under the path the configuration gives: those paths belong to the table too, so a change
//! there touches it, and is judged, instead of passing unseen.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::repo::config::{Config, repo_path};
use crate::repo::git::CommitFiles;
use crate::repo::work_tree::RepoWorkTree;

/// The tables' paths and the real paths their links reach.
pub struct Reached {
    real: HashMap<PathBuf, Vec<PathBuf>>,
    /// Every path a table's files are at: the configured ones, then the real ones.
    pub watched: Vec<PathBuf>,
}

impl Reached {
    /// The tables of `config` (in `config_dir`, relative to `root`) whose path is valid.
    pub fn new(
        config: &Config,
        config_dir: &Path,
        root: &Path,
        work_tree: &RepoWorkTree,
        base_files: &CommitFiles<'_>,
    ) -> Reached {
        let paths: Vec<PathBuf> = config
            .tables
            .iter()
            .filter_map(|table| repo_path(config_dir, table.metadata.as_deref()?).ok())
            .collect();
        let paths = &paths;
        let real = real_paths(paths, root, work_tree, base_files);
        let watched = paths.iter().chain(real.iter().flatten()).cloned().collect();
        Reached {
            real: paths.iter().cloned().zip(real).collect(),
            watched,
        }
    }

    /// Whether one of `changed` is a file of the table at `path`, or a link on the way to it.
    pub fn touched(&self, changed: &[PathBuf], path: &Path) -> bool {
        let real = self.real.get(path).map_or(&[][..], Vec::as_slice);
        changed.iter().any(|file| {
            file.starts_with(path)
                || path.starts_with(file)
                || real.iter().any(|r| file.starts_with(r))
        })
    }
}

/// For each table path (relative to `root`), the other paths its files really are at: where
/// its links resolve in the working tree and at the base (a change may have deleted the target,
/// leaving the working tree's link dangling). Empty for a table reached by no link, which costs
/// one `lstat` per path and ancestor directory, each directory looked at once.
fn real_paths(
    paths: &[PathBuf],
    root: &Path,
    work_tree: &RepoWorkTree,
    base_files: &CommitFiles<'_>,
) -> Vec<Vec<PathBuf>> {
    let mut is_link: HashMap<PathBuf, bool> = HashMap::new();
    let mut linked = |path: &Path| -> bool {
        path.ancestors()
            .filter(|p| !p.as_os_str().is_empty())
            .any(|p| {
                *is_link.entry(p.to_path_buf()).or_insert_with(|| {
                    fs::symlink_metadata(root.join(p)).is_ok_and(|m| m.file_type().is_symlink())
                })
            })
    };
    paths
        .iter()
        .map(|path| {
            if !linked(path) {
                return Vec::new();
            }
            let in_work_tree = work_tree
                .resolve(path)
                .ok()
                .and_then(|real| Some(real.strip_prefix(work_tree.root()).ok()?.to_path_buf()));
            let at_base = base_files.resolve(path).ok();
            let mut real: Vec<PathBuf> = [in_work_tree, at_base]
                .into_iter()
                .flatten()
                .filter(|real| real != path)
                .collect();
            real.dedup();
            real
        })
        .collect()
}
