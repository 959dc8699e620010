//! Where a table's committed state comes from. A [`TableSource`] is bound to one table and
//! answers two questions: what the table is now (its metadata, or a schema file describing it;
//! `None` when it has none yet and the proposals create it), and what its history says (who
//! dropped which field when). The judge of one table (`session::table`) asks only these, so a
//! new place tables live (a catalog) is one more implementation.
//!
//! Every source that reads a repository a pull request controls confines each path before
//! reading it: `Outside` from `locate_in` is an error at the table's configuration entry.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::change::SourceFile;
use crate::failure::Failure;
use crate::repo::config::TableConfig;
use crate::repo::git::{Base, Repo};
use crate::repo::location::{Files, LocateError, TableLocation, locate_in};
use crate::repo::work_tree::RepoWorkTree;
use crate::rules::{FileHistory, RuleOptions};
use crate::session::input::{
    FileKind, LoadedTable, file_history, history_on_disk, iceberg_table, load_table,
    read_source_named, table_from_source,
};
use crate::session::kept::{self, Key, ReadFrom};
use crate::session::plan::routing::metadata_outside;

/// One table's committed state.
pub trait TableSource {
    /// The table as the source holds it; `None` when there is nothing there yet.
    fn load(&self) -> Result<Option<LoadedTable>, Failure>;

    /// The table's history, for name-reuse windows and deprecation periods; `None` when the
    /// source keeps none. Asked only for a table read from Iceberg metadata.
    fn history(&self, options: &RuleOptions) -> Result<Option<FileHistory>, Failure>;
}

/// A table given by path on the command line (`--metadata`): read where the user points; its
/// history is the git history of that file, when it lives in a repository.
pub struct PathSource<'a> {
    pub path: &'a Path,
}

impl TableSource for PathSource<'_> {
    fn load(&self) -> Result<Option<LoadedTable>, Failure> {
        load_table(self.path).map(Some)
    }

    fn history(&self, options: &RuleOptions) -> Result<Option<FileHistory>, Failure> {
        Ok(history_on_disk(self.path, options))
    }
}

/// A configured table as of the base commit of `check`, read from git objects, never from the
/// working tree; its history is its metadata's versions along the base's first parents.
pub struct GitBase<'a> {
    pub repo: &'a Repo,
    pub base: &'a Base,
    /// The base commit's files.
    pub files: &'a dyn Files,
    pub table: &'a TableConfig,
    /// The table's metadata file or directory, relative to the root.
    pub path: &'a Path,
}

impl TableSource for GitBase<'_> {
    fn load(&self) -> Result<Option<LoadedTable>, Failure> {
        let location = match locate_in(self.files, self.path) {
            Ok(location) => location,
            Err(LocateError::NotATable(_)) => return Ok(None),
            Err(LocateError::Outside(message)) => {
                return Err(metadata_outside(self.table, message));
            }
        };
        let text = self.files.read_metadata(&location.metadata_file)?;
        // Named by its path alone, so annotations and code scanning can place findings in it.
        let source = Arc::new(SourceFile {
            name: location.metadata_file.display().to_string(),
            text,
        });
        iceberg_table(location, source).map(Some)
    }

    fn history(&self, options: &RuleOptions) -> Result<Option<FileHistory>, Failure> {
        file_history(self.repo, self.base.commit, self.path, options).map(Some)
    }
}

/// A configured table as `lint` without `--metadata` reads it: the metadata committed at HEAD,
/// else the working tree's (read only inside the repository, since `fieldgate.yaml` may come
/// with the change under review). A change is judged against HEAD rather than the working
/// tree, where `apply --write` may already have applied the very migrations being judged (the
/// pre-commit hook's case: migration and new metadata staged together).
pub struct HeadOrWorkTree<'a> {
    pub git: Option<&'a Repo>,
    pub work_tree: &'a RepoWorkTree,
    pub table: &'a TableConfig,
    /// The table's metadata file or directory, relative to the root.
    pub path: &'a Path,
    /// The repository root and the current directory, both canonical: paths are shown
    /// relative to the current directory when inside it, as paths on the command line are.
    pub root: &'a Path,
    pub here: &'a Path,
    /// The first proposal creates the table: the working tree's metadata (which `apply -o` may
    /// already have written) is not its start.
    pub created: bool,
    /// Tables parsed once are kept (`session::kept`), for a process that judges again and again.
    pub kept: bool,
}

impl HeadOrWorkTree<'_> {
    /// A repository path as reports show it.
    pub fn shown(&self, path: &Path) -> PathBuf {
        let full = self.root.join(path);
        full.strip_prefix(self.here)
            .map_or(full.clone(), Path::to_path_buf)
    }

    /// The table's Iceberg metadata as committed at HEAD; `None` when HEAD has no such table, or
    /// a schema file describes it.
    fn at_head(&self, git: &Repo) -> Result<Option<LoadedTable>, Failure> {
        let Some(head) = git.head() else {
            return Ok(None);
        };
        let files = git.files_at(head)?;
        let Ok(location) = locate_in(&files, self.path) else {
            return Ok(None);
        };
        let prefix = self.shown(Path::new(""));
        let name = prefix.join(&location.metadata_file).display().to_string();
        let blob = files.object_id(&location.metadata_file).map(ReadFrom::Blob);
        self.kept_or(blob, name.clone(), location, |location| {
            let text = files.read_metadata(&location.metadata_file)?;
            if FileKind::of(&name, &text) != Some(FileKind::Metadata) {
                return Ok(None);
            }
            let source = Arc::new(SourceFile { name, text });
            iceberg_table(location, source).map(Some)
        })
    }

    /// The table as the working tree holds it; `None` when nothing is there yet.
    fn in_work_tree(&self) -> Result<Option<LoadedTable>, Failure> {
        let work_tree = self.work_tree;
        let location = match locate_in(work_tree, self.path) {
            Ok(location) => location,
            Err(LocateError::Outside(message)) => {
                return Err(metadata_outside(self.table, message));
            }
            Err(LocateError::NotATable(_))
                if !work_tree.is_file(self.path) && !work_tree.is_dir(self.path) =>
            {
                return Ok(None);
            }
            Err(LocateError::NotATable(message)) => return Err(Failure::Message(message)),
        };
        let real = work_tree
            .resolve(&location.metadata_file)
            .map_err(|message| metadata_outside(self.table, message))?;
        let name = self.shown(&location.metadata_file).display().to_string();
        let file = ReadFrom::file(real.clone());
        self.kept_or(file, name.clone(), location, |location| {
            table_from_source(location, read_source_named(&real, name)?).map(Some)
        })
    }

    /// What `read` reads, or when tables are kept, the table kept from the same blob or file
    /// under the same `name`.
    fn kept_or(
        &self,
        from: Option<ReadFrom>,
        name: String,
        location: TableLocation,
        read: impl FnOnce(TableLocation) -> Result<Option<LoadedTable>, Failure>,
    ) -> Result<Option<LoadedTable>, Failure> {
        match from.filter(|_| self.kept) {
            Some(from) => kept::table(Key { from, name }, location, read),
            None => read(location),
        }
    }
}

impl TableSource for HeadOrWorkTree<'_> {
    fn load(&self) -> Result<Option<LoadedTable>, Failure> {
        let committed = match self.git {
            Some(git) => self.at_head(git)?,
            None => None,
        };
        match committed {
            Some(table) => Ok(Some(table)),
            // Judged from nothing, even when `apply -o` already wrote the new table's metadata.
            None if self.created => Ok(None),
            None => self.in_work_tree(),
        }
    }

    fn history(&self, options: &RuleOptions) -> Result<Option<FileHistory>, Failure> {
        // By its full path: the process's directory need not be the one paths are shown from
        // (the editor's server shows them from the root).
        Ok(history_on_disk(&self.root.join(self.path), options))
    }
}
