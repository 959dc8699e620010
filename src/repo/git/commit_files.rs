//! A commit's tree read as files, with symbolic links followed inside it only.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use git2::{ObjectType, Oid, Repository, Tree};

use crate::repo::location::Files;

/// A commit's tree seen as files. Symbolic links are followed inside the tree, as a checkout
/// would follow them, and never out of it.
pub struct CommitFiles<'r> {
    repo: &'r Repository,
    tree: Tree<'r>,
    /// The directories looked into, by path: libgit2 caches no tree over 4 KB, so a lookup from
    /// the root would read a directory of 10,000 tables again for every path under it.
    trees: RefCell<HashMap<PathBuf, Tree<'r>>>,
}

/// What a commit's tree holds at a path.
pub(super) struct Entry {
    pub(super) id: Oid,
    mode: i32,
    kind: Option<ObjectType>,
}

/// Git's file mode of a symbolic link; its blob holds the target path.
pub(in crate::repo) const LINK_MODE: i32 = 0o120000;

/// More links than this in one path is a loop (Linux's limit).
const MAX_LINKS: usize = 40;

impl<'r> CommitFiles<'r> {
    pub(super) fn new(repo: &'r Repository, tree: Tree<'r>) -> CommitFiles<'r> {
        CommitFiles {
            repo,
            tree,
            trees: RefCell::new(HashMap::new()),
        }
    }

    /// The entry at `path` (no links followed), looked up in its directory's cached tree.
    pub(super) fn entry(&self, path: &Path) -> Option<Entry> {
        let name = path.file_name()?;
        let parent = path.parent().unwrap_or(Path::new(""));
        let found = |tree: &Tree<'r>| {
            tree.get_name_bytes(name.as_encoded_bytes()).map(|e| Entry {
                id: e.id(),
                mode: e.filemode(),
                kind: e.kind(),
            })
        };
        if parent.as_os_str().is_empty() {
            return found(&self.tree);
        }
        if let Some(tree) = self.trees.borrow().get(parent) {
            return found(tree);
        }
        let directory = self
            .entry(parent)
            .filter(|e| e.kind == Some(ObjectType::Tree))?;
        let tree = self.repo.find_tree(directory.id).ok()?;
        let entry = found(&tree);
        self.trees.borrow_mut().insert(parent.to_path_buf(), tree);
        entry
    }

    /// The id of the object at `path`, links followed: what a blob's content is known by, so a
    /// reader can tell it has read this version before without reading it again.
    pub fn object_id(&self, path: &Path) -> Option<Oid> {
        let real = self.resolve(path).ok()?;
        self.entry(&real).map(|e| e.id)
    }

    fn kind(&self, path: &Path) -> Option<ObjectType> {
        let real = self.resolve(path).ok()?;
        self.entry(&real)?.kind
    }

    /// `path` with every symbolic link on it replaced by its target, within the tree. A target
    /// that is absolute or climbs above the root leaves the repository: an error that says so.
    pub fn resolve(&self, path: &Path) -> Result<PathBuf, String> {
        let outside = |target: &str| {
            format!(
                "`{}` leads outside the repository, to `{target}`, through a symbolic link in the base commit: `fieldgate check` reads only files inside the repository",
                path.display()
            )
        };
        let mut pending: Vec<String> = path
            .components()
            .rev()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let mut resolved = PathBuf::new();
        let mut links = 0;
        // The target of the last link followed: where a `..` that climbs above the root came from.
        let mut via = path.display().to_string();
        while let Some(part) = pending.pop() {
            match part.as_str() {
                "" | "." => {}
                ".." => {
                    if !resolved.pop() {
                        return Err(outside(&via));
                    }
                }
                name => {
                    let candidate = resolved.join(name);
                    let link = self.entry(&candidate).filter(|e| e.mode == LINK_MODE);
                    let Some(link) = link else {
                        resolved = candidate;
                        continue;
                    };
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(format!(
                            "`{}` has symbolic links in a loop in the base commit",
                            path.display()
                        ));
                    }
                    let blob = self.repo.find_blob(link.id).map_err(|e| {
                        format!("cannot read `{}`: {}", candidate.display(), e.message())
                    })?;
                    let target = String::from_utf8_lossy(blob.content()).into_owned();
                    if target.starts_with('/') || target.starts_with('\\') {
                        return Err(outside(&target));
                    }
                    pending.extend(target.rsplit('/').map(str::to_string));
                    via = target;
                }
            }
        }
        Ok(resolved)
    }
}

impl Files for CommitFiles<'_> {
    fn is_file(&self, path: &Path) -> bool {
        self.kind(path) == Some(ObjectType::Blob)
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.kind(path) == Some(ObjectType::Tree)
    }

    fn confine(&self, path: &Path) -> Result<(), String> {
        self.resolve(path).map(drop)
    }

    fn read(&self, path: &Path) -> Result<Vec<u8>, String> {
        let real = self.resolve(path)?;
        let entry = self
            .entry(&real)
            .ok_or_else(|| format!("`{}` is not in the commit", path.display()))?;
        let fail = |e: git2::Error| format!("cannot read `{}`: {}", path.display(), e.message());
        let odb = self.repo.odb().map_err(fail)?; // its header: sized before inflated
        let (size, _) = odb.read_header(entry.id).map_err(fail)?;
        crate::limits::take_input(&path.display().to_string(), size as u64)?;
        let blob = self.repo.find_blob(entry.id).map_err(fail)?;
        Ok(blob.content().to_vec())
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>, String> {
        let real = self.resolve(dir)?;
        let entry = self
            .entry(&real)
            .ok_or_else(|| format!("`{}` is not in the commit", dir.display()))?;
        let tree = self
            .repo
            .find_tree(entry.id)
            .map_err(|e| format!("cannot list `{}`: {}", dir.display(), e.message()))?;
        Ok(tree
            .iter()
            .filter_map(|e| e.name().ok().map(str::to_string))
            .collect())
    }
}
