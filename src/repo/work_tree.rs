//! A repository's working tree as `check` and routed `lint` read it: paths relative to the root, and nothing read
//! whose real path is outside the repository. A symbolic link (to a file, to a directory, or a
//! directory on the way) that leads out of the repository would let a pull request make the CI
//! gate read, and quote in its report, any file of the runner: it is an error that says where it
//! leads. A link that stays inside the repository is followed, as git and the engines follow it.

use std::fs;
use std::path::{Path, PathBuf};

use crate::repo::location::{Files, read_input};

pub struct RepoWorkTree {
    /// The root, canonical, so a real path can be compared with it.
    root: PathBuf,
}

impl RepoWorkTree {
    pub fn new(root: &Path) -> Result<RepoWorkTree, String> {
        let root = fs::canonicalize(root)
            .map_err(|e| format!("cannot resolve `{}`: {e}", root.display()))?;
        Ok(RepoWorkTree { root })
    }

    /// The root, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where `relative` really is, when that is inside the repository. A path that does not
    /// resolve (missing, or a dangling link) is returned as is: reading it fails on its own.
    pub fn resolve(&self, relative: &Path) -> Result<PathBuf, String> {
        let joined = self.root.join(relative);
        match fs::canonicalize(&joined) {
            Ok(real) if real.starts_with(&self.root) => Ok(real),
            Ok(real) => Err(format!(
                "`{}` leads outside the repository, to `{}`, through a symbolic link: fieldgate reads a repository's tables and proposals only from inside it",
                relative.display(),
                real.display()
            )),
            Err(_) => Ok(joined),
        }
    }
}

impl Files for RepoWorkTree {
    fn is_file(&self, path: &Path) -> bool {
        self.root.join(path).is_file()
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.root.join(path).is_dir()
    }

    fn read(&self, path: &Path) -> Result<Vec<u8>, String> {
        let real = self.resolve(path)?;
        read_input(&real, path)
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>, String> {
        let real = self.resolve(dir)?;
        let entries =
            fs::read_dir(real).map_err(|e| format!("cannot list `{}`: {e}", dir.display()))?;
        Ok(entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect())
    }

    fn confine(&self, path: &Path) -> Result<(), String> {
        self.resolve(path).map(drop)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::repo::location::{LocateError, locate_in};

    #[test]
    fn links_inside_are_followed_and_links_out_are_errors() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.metadata.json"), "{}").unwrap();
        fs::create_dir(outside.path().join("metadata")).unwrap();
        fs::write(outside.path().join("metadata/v1.metadata.json"), "{}").unwrap();
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        fs::create_dir_all(root.join("t/metadata")).unwrap();
        fs::write(root.join("t/metadata/v1.metadata.json"), "{\"a\": 1}").unwrap();
        std::os::unix::fs::symlink("t/metadata/v1.metadata.json", root.join("current.json"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.metadata.json"), root.join("s"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("far")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("metadata/v1.metadata.json"),
            root.join("t/metadata/v2.metadata.json"),
        )
        .unwrap();
        let tree = RepoWorkTree::new(root).unwrap();

        assert_eq!(
            tree.read_to_string(Path::new("current.json")).unwrap(),
            "{\"a\": 1}"
        );
        let err = tree.read_to_string(Path::new("s")).unwrap_err();
        assert!(err.contains("`s` leads outside the repository"), "{err}");
        for table in ["s", "far", "t"] {
            assert!(
                matches!(
                    locate_in(&tree, Path::new(table)),
                    Err(LocateError::Outside(_))
                ),
                "{table}"
            );
        }
        assert!(tree.list(Path::new("far/metadata")).is_err());
        assert!(tree.resolve(Path::new("missing")).is_ok());
    }
}
