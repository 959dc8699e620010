//! Finding a table's current metadata file: a `*.metadata.json` path as given, or a table
//! directory in the Hadoop layout (`metadata/version-hint.text`, else the newest
//! `vN.metadata.json`).
//!
//! Where the files come from is a [`Files`]: the file system as the user points at it (`lint
//! --metadata` reads wherever it is told), or, for `check`, a repository's working tree or a
//! commit, both confined to the repository: a symbolic link that leads out of it is an error,
//! never a read.

use std::fs;
use std::path::{Path, PathBuf};

/// The metadata file to read, and, for a table directory, how to write the next version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableLocation {
    pub metadata_file: PathBuf,
    pub hadoop: Option<HadoopTable>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HadoopTable {
    pub metadata_dir: PathBuf,
    pub version: u64,
}

impl HadoopTable {
    pub fn version_file(&self, version: u64) -> PathBuf {
        self.metadata_dir.join(version_file_name(version))
    }

    /// Where Iceberg Java's `HadoopTableOperations` says version `version` lives, for the
    /// `metadata-log` of the next file: under the table's `location`.
    pub fn logged_file(&self, table_location: &str, version: u64) -> String {
        format!(
            "{}/metadata/{}",
            table_location.trim_end_matches('/'),
            version_file_name(version)
        )
    }

    /// The version hint's text as Java writes it: the bare number, no line break (readers
    /// such as pyiceberg's `StaticTable` and DuckDB's `iceberg_scan` parse it whole).
    pub fn hint_text(version: u64) -> String {
        version.to_string()
    }

    pub fn hint_file(&self) -> PathBuf {
        self.metadata_dir.join("version-hint.text")
    }
}

/// Where table files are read from: the working tree, or a commit's tree in git. Paths use `/`
/// and are relative to the repository for a commit, as given for the file system.
pub trait Files {
    fn is_file(&self, path: &Path) -> bool;
    fn is_dir(&self, path: &Path) -> bool;
    fn read_to_string(&self, path: &Path) -> Result<String, String>;
    /// The names of a directory's entries.
    fn list(&self, dir: &Path) -> Result<Vec<String>, String>;
    /// Whether reading `path` stays where these files may be read: an error saying where a
    /// symbolic link leads otherwise. The plain file system reads wherever it is pointed.
    fn confine(&self, _path: &Path) -> Result<(), String> {
        Ok(())
    }
}

/// Why a path is not a table's metadata.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocateError {
    /// Nothing there, a directory without Iceberg metadata, or a version hint to nowhere.
    #[error("{0}")]
    NotATable(String),
    /// Reading it would leave the repository through a symbolic link.
    #[error("{0}")]
    Outside(String),
}

/// The file system as it is now.
pub struct WorkingTree;

impl Files for WorkingTree {
    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }

    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }

    fn read_to_string(&self, path: &Path) -> Result<String, String> {
        fs::read_to_string(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>, String> {
        let entries =
            fs::read_dir(dir).map_err(|e| format!("cannot list `{}`: {e}", dir.display()))?;
        Ok(entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect())
    }
}

pub fn locate(path: &Path) -> Result<TableLocation, String> {
    if let Err(e) = fs::metadata(path) {
        return Err(format!("cannot read `{}`: {e}", path.display()));
    }
    locate_in(&WorkingTree, path).map_err(|e| e.to_string())
}

/// [`locate`] over any [`Files`]: the same rules for the working tree and for a git commit.
/// Every path it reads is confined first (the table's path, its `metadata` directory, the
/// version hint and the metadata file), so a link out of the repository at any of them is
/// [`LocateError::Outside`], not a read.
pub fn locate_in(files: &dyn Files, path: &Path) -> Result<TableLocation, LocateError> {
    use LocateError::NotATable;
    let confine = |path: &Path| files.confine(path).map_err(LocateError::Outside);
    confine(path)?;
    if files.is_file(path) {
        return Ok(TableLocation {
            metadata_file: path.to_path_buf(),
            hadoop: None,
        });
    }
    if !files.is_dir(path) {
        return Err(NotATable(format!("`{}` does not exist", path.display())));
    }
    confine(&path.join("metadata"))?;
    let metadata_dir = if files.is_dir(&path.join("metadata")) {
        path.join("metadata")
    } else {
        path.to_path_buf()
    };
    let hint = metadata_dir.join("version-hint.text");
    confine(&hint)?;
    // As Iceberg Java's `HadoopTableOperations`: the hint's first line is the version if
    // `Integer.parseInt` reads it; otherwise (no hint, `2 `, an empty file) the newest version
    // in the directory.
    let hinted = files
        .is_file(&hint)
        .then(|| files.read_to_string(&hint).ok())
        .flatten()
        .and_then(|text| java_parse_int(first_line(&text)));
    let listed = match hinted {
        Some(version) => version,
        None => newest_version(files, &metadata_dir).map_err(NotATable)?,
    };
    let Ok(mut version) = u64::try_from(listed) else {
        return Err(NotATable(format!(
            "`{}` holds version {listed}, which has no metadata file",
            hint.display()
        )));
    };
    let exists = |version: u64| -> Result<bool, LocateError> {
        let file = metadata_dir.join(version_file_name(version));
        confine(&file)?;
        Ok(files.is_file(&file))
    };
    if !exists(version)? {
        return Err(NotATable(match (hinted, version) {
            (None, 0) => format!(
                "`{}` is a directory without Iceberg metadata: expected metadata/version-hint.text or metadata/vN.metadata.json",
                path.display()
            ),
            _ => format!(
                "the metadata file for version {version} (`{}`) is missing",
                metadata_dir.join(version_file_name(version)).display()
            ),
        }));
    }
    // A commit that wrote `vN+1` but not the hint is still the table's current state.
    while exists(version + 1)? {
        version += 1;
    }
    let table = HadoopTable {
        metadata_dir,
        version,
    };
    Ok(TableLocation {
        metadata_file: table.version_file(version),
        hadoop: Some(table),
    })
}

fn version_file_name(version: u64) -> String {
    format!("v{version}.metadata.json")
}

/// The text up to the first line break, as Java's `BufferedReader.readLine` returns it.
fn first_line(text: &str) -> &str {
    text.split(['\n', '\r']).next().unwrap_or_default()
}

/// Java's `Integer.parseInt` on ASCII text: an optional sign, then decimal digits only (no
/// spaces), within `int`'s range.
fn java_parse_int(text: &str) -> Option<i32> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<i32>().ok()
}

/// The highest version among the directory's `vN.metadata.json` files, 0 if there is none.
fn newest_version(files: &dyn Files, dir: &Path) -> Result<i32, String> {
    Ok(files
        .list(dir)?
        .iter()
        .filter_map(|name| {
            let version = name.strip_prefix('v')?.strip_suffix(".metadata.json")?;
            java_parse_int(version).filter(|v| *v > 0)
        })
        .max()
        .unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_hint_then_the_newest_version() {
        let dir = tempfile::tempdir().unwrap();
        let meta = dir.path().join("metadata");
        fs::create_dir(&meta).unwrap();
        for v in [1, 2, 10] {
            fs::write(meta.join(format!("v{v}.metadata.json")), "{}").unwrap();
        }
        assert_eq!(
            locate(dir.path()).unwrap().metadata_file,
            meta.join("v10.metadata.json")
        );
        fs::write(meta.join("version-hint.text"), "2\n").unwrap();
        let location = locate(dir.path()).unwrap();
        assert_eq!(location.metadata_file, meta.join("v2.metadata.json"));
        assert_eq!(location.hadoop.unwrap().version, 2);
    }

    #[test]
    fn explains_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let err = locate(dir.path()).unwrap_err();
        assert!(err.contains("without Iceberg metadata"), "{err}");
        fs::create_dir(dir.path().join("metadata")).unwrap();
        fs::write(dir.path().join("metadata/version-hint.text"), "7").unwrap();
        let err = locate(dir.path()).unwrap_err();
        assert!(
            err.contains("version 7") && err.contains("is missing"),
            "{err}"
        );
    }

    #[test]
    fn parses_the_hint_as_java_integer_parse_int() {
        for (text, parsed) in [
            ("2", Some(2)),
            ("+2", Some(2)),
            ("-3", Some(-3)),
            ("007", Some(7)),
            ("2 ", None),
            (" 2", None),
            ("", None),
            ("+", None),
            ("2147483648", None),
            ("２", None),
        ] {
            assert_eq!(java_parse_int(text), parsed, "{text:?}");
        }
        assert_eq!(first_line("4\r\nrest"), "4");
    }

    #[test]
    fn rolls_forward_past_the_hint_through_consecutive_versions() {
        let dir = tempfile::tempdir().unwrap();
        let meta = dir.path().join("metadata");
        fs::create_dir(&meta).unwrap();
        for v in [1, 2, 3, 4, 6] {
            fs::write(meta.join(format!("v{v}.metadata.json")), "{}").unwrap();
        }
        fs::write(meta.join("version-hint.text"), "2").unwrap();
        let location = locate(dir.path()).unwrap();
        // v5 is missing: Java stops at v4, as it does here.
        assert_eq!(location.metadata_file, meta.join("v4.metadata.json"));
        assert_eq!(location.hadoop.unwrap().version, 4);
    }
}
