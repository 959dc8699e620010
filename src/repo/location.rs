//! Finding a table's current metadata file: a `*.metadata.json` path as given, or a table
//! directory in the Hadoop layout (`metadata/version-hint.text`, else the newest
//! `vN.metadata.json`).
//!
//! Where the files come from is a [`Files`]: the file system as the user points at it (`lint
//! --metadata` reads wherever it is told), or, for `check`, a repository's working tree or a
//! commit, both confined to the repository: a symbolic link that leads out of it is an error,
//! never a read.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::iceberg::metadata_file::{
    Codec, MAX_DECOMPRESSED_BYTES, hint_version, listed_version, version_file_names,
};
use crate::limits;

/// The metadata file to read, and, for a table directory, how to write the next version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableLocation {
    pub metadata_file: PathBuf,
    pub hadoop: Option<HadoopTable>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HadoopTable {
    pub metadata_dir: PathBuf,
    /// Java's `int`: a hint may name a negative version, and the next after `i32::MAX` wraps,
    /// as Java's `ver + 1` does.
    pub version: i32,
    /// The current version's file name: `vN.metadata.json`, or one of its gzip names.
    pub file_name: String,
}

impl HadoopTable {
    /// Where Java's `HadoopTableOperations` commits the next version written with `codec`.
    pub fn next_file(&self, codec: Codec) -> PathBuf {
        self.metadata_dir
            .join(codec.version_file_name(self.next_version()))
    }

    /// The version Java's `HadoopTableOperations.commit` writes next.
    pub fn next_version(&self) -> i32 {
        self.version.wrapping_add(1)
    }

    /// Where Iceberg Java's `HadoopTableOperations` says the current version lives, for the
    /// `metadata-log` of the next file: under the table's `location`.
    pub fn logged_file(&self, table_location: &str) -> String {
        format!(
            "{}/metadata/{}",
            table_location.trim_end_matches('/'),
            self.file_name
        )
    }

    /// The version hint's text as Java writes it: the bare number, no line break (readers
    /// such as pyiceberg's `StaticTable` and DuckDB's `iceberg_scan` parse it whole).
    pub fn hint_text(version: i32) -> String {
        version.to_string()
    }

    pub fn hint_file(&self) -> PathBuf {
        self.metadata_dir.join("version-hint.text")
    }

    /// The metadata file of another `version` of this table, when `files` hold one (its names
    /// looked for as [`locate_in`] looks for the current one's).
    pub fn version_file(&self, files: &dyn Files, version: i32) -> Option<PathBuf> {
        let versions = Versions {
            files,
            dir: &self.metadata_dir,
        };
        let name = versions.file_of(version).ok().flatten()?;
        Some(self.metadata_dir.join(name))
    }
}

impl TableLocation {
    /// The same location with its paths under `root`: a repository's paths as the file system's.
    pub fn under(&self, root: &Path) -> TableLocation {
        TableLocation {
            metadata_file: root.join(&self.metadata_file),
            hadoop: self.hadoop.as_ref().map(|h| HadoopTable {
                metadata_dir: root.join(&h.metadata_dir),
                ..h.clone()
            }),
        }
    }
}

/// Where a table at `path` (its metadata file, or its directory in the Hadoop layout) gets its
/// first metadata file: the file itself, else `metadata/v1.metadata.json` in the directory.
pub fn first_metadata_file(path: &Path) -> PathBuf {
    if path.to_string_lossy().ends_with(".json") {
        path.to_path_buf()
    } else {
        path.join("metadata/v1.metadata.json")
    }
}

/// The `location` of a new table whose metadata goes to `metadata_file`: the directory above
/// `metadata/` if the file is in one, else the file's directory (the current directory without
/// a file). A `file://` URI, as Iceberg's `location` is everywhere: a bare path is a relative
/// reference to readers that resolve it as a URI.
pub fn new_table_uri(metadata_file: Option<&Path>) -> String {
    let dir = metadata_file
        .and_then(Path::parent)
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let dir = std::path::absolute(&dir).unwrap_or(dir);
    let table_dir = if dir.file_name().is_some_and(|n| n == "metadata") {
        dir.parent().map(Path::to_path_buf).unwrap_or(dir)
    } else {
        dir
    };
    format!("file://{}", table_dir.display())
}

/// Where table files are read from: the working tree, or a commit's tree in git. Paths use `/`
/// and are relative to the repository for a commit, as given for the file system.
pub trait Files {
    fn is_file(&self, path: &Path) -> bool;
    fn is_dir(&self, path: &Path) -> bool;
    fn read(&self, path: &Path) -> Result<Vec<u8>, String>;
    fn read_to_string(&self, path: &Path) -> Result<String, String> {
        utf8(path, self.read(path)?)
    }
    /// A metadata file's text: inflated first when its name says gzip, as Java reads it.
    fn read_metadata(&self, path: &Path) -> Result<String, String> {
        utf8(path, decode_metadata(path, self.read(path)?)?)
    }
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

    fn read(&self, path: &Path) -> Result<Vec<u8>, String> {
        read_input(path, path)
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

/// The file at `real` (`shown` in messages), its size taken from the run's input budget
/// before it is read, and read no further than that size, so a file growing meanwhile cannot
/// take more.
pub fn read_input(real: &Path, shown: &Path) -> Result<Vec<u8>, String> {
    let fail = |e: std::io::Error| format!("cannot read `{}`: {e}", shown.display());
    let file = fs::File::open(real).map_err(fail)?;
    let len = file.metadata().map_err(fail)?.len();
    limits::take_input(&shown.display().to_string(), len)?;
    let mut bytes = Vec::new();
    file.take(len).read_to_end(&mut bytes).map_err(fail)?;
    Ok(bytes)
}

/// `bytes` read from `path` as its name says they are stored: a gzip metadata file inflated,
/// within [`MAX_DECOMPRESSED_BYTES`], the inflated bytes taken from the run's input budget too.
pub fn decode_metadata(path: &Path, bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    let name = path.file_name().map(|n| n.to_string_lossy());
    let codec = Codec::of_file_name(name.as_deref().unwrap_or_default());
    let decoded = codec
        .decode(bytes, MAX_DECOMPRESSED_BYTES)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    if codec != Codec::None {
        let inflated = format!("{} (inflated)", path.display());
        limits::take_input(&inflated, decoded.len() as u64)?;
    }
    Ok(decoded)
}

fn utf8(path: &Path, bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|_| format!("`{}` is not UTF-8 text", path.display()))
}

pub fn locate(path: &Path) -> Result<TableLocation, String> {
    if let Err(e) = fs::metadata(path) {
        return Err(
            not_local(path).unwrap_or_else(|| format!("cannot read `{}`: {e}", path.display()))
        );
    }
    locate_in(&WorkingTree, path).map_err(|e| e.to_string())
}

/// Why a path that could not be read is not a file here: it is a URL (`s3://bucket/key`,
/// `gs://...`, `https://...`), and only local files are read. `None` for a path that is not one.
pub fn not_local(path: &Path) -> Option<String> {
    let (text, what) = url_kind(path)?;
    Some(format!(
        "`{text}` is {what}: fieldgate reads local files only, not object stores or URLs; copy the file (for a table, its current metadata file) to a local path and give that"
    ))
}

/// Why a path to write (`-o OUT`, `--summary FILE`) is not one: written as given, `s3://b/k`
/// would be a local directory named `s3:`. `None` for a path that is not a URL.
pub fn not_local_output(path: &Path) -> Option<String> {
    let (text, what) = url_kind(path)?;
    Some(format!(
        "`{text}` is {what}: fieldgate writes local files only, not object stores or URLs; give a local path, and copy the file from there"
    ))
}

/// The path as text and what kind of URL it is, when it is one.
fn url_kind(path: &Path) -> Option<(&str, &'static str)> {
    let text = path.to_str()?;
    let (scheme, _) = text.split_once("://")?;
    let is_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c));
    if !is_scheme {
        return None;
    }
    let what = match scheme.to_ascii_lowercase().as_str() {
        "s3" | "s3a" | "s3n" => "an S3 object",
        "gs" => "a Google Cloud Storage object",
        "abfs" | "abfss" | "wasb" | "wasbs" => "an Azure Storage object",
        "http" | "https" => "a web address",
        _ => "a URL",
    };
    Some((text, what))
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
    // As Iceberg Java's `HadoopTableOperations`: the version the hint names (a negative one
    // too), else (no hint, or one Java cannot read) the newest version in the directory.
    let hinted = files
        .is_file(&hint)
        .then(|| files.read(&hint).ok())
        .flatten()
        .and_then(|bytes| hint_version(&bytes));
    let versions = Versions {
        files,
        dir: &metadata_dir,
    };
    let mut version = match hinted {
        Some(version) => version,
        None => versions.newest()?,
    };
    let Some(mut file_name) = versions.file_of(version)? else {
        return Err(NotATable(match (hinted, version) {
            (None, 0) => format!(
                "`{}` is a directory without Iceberg metadata: expected metadata/version-hint.text or metadata/vN.metadata.json (or its gzip form, vN.gz.metadata.json)",
                path.display()
            ),
            _ => format!(
                "the metadata file for version {version} (`{}`, or its gzip form) is missing",
                metadata_dir
                    .join(Codec::None.version_file_name(version))
                    .display()
            ),
        }));
    };
    // A commit that wrote `vN+1` but not the hint is still the table's current state.
    while let Some(next) = versions.file_of(version.wrapping_add(1))? {
        version = version.wrapping_add(1);
        file_name = next;
    }
    Ok(TableLocation {
        metadata_file: metadata_dir.join(&file_name),
        hadoop: Some(HadoopTable {
            metadata_dir,
            version,
            file_name,
        }),
    })
}

/// A Hadoop table's metadata directory, looked through as Java's `HadoopTableOperations` does.
struct Versions<'a> {
    files: &'a dyn Files,
    dir: &'a Path,
}

impl Versions<'_> {
    /// The file that holds `version`: the first of its names that exists, in Java's order
    /// (plain, then gzip, then the older gzip suffix). Each is confined before it is looked at.
    fn file_of(&self, version: i32) -> Result<Option<String>, LocateError> {
        for name in version_file_names(version) {
            let file = self.dir.join(&name);
            self.files.confine(&file).map_err(LocateError::Outside)?;
            if self.files.is_file(&file) {
                return Ok(Some(name));
            }
        }
        Ok(None)
    }

    /// The highest version listed that has a metadata file, 0 if there is none. Java lists
    /// every `v<number>.*` entry, then keeps the versions [`Self::file_of`] finds.
    fn newest(&self) -> Result<i32, LocateError> {
        let names = self.files.list(self.dir).map_err(LocateError::NotATable)?;
        let mut listed: Vec<i32> = names
            .iter()
            .filter_map(|name| listed_version(name))
            .filter(|v| *v > 0)
            .collect();
        listed.sort_unstable_by(|a, b| b.cmp(a));
        listed.dedup();
        for version in listed {
            if self.file_of(version)?.is_some() {
                return Ok(version);
            }
        }
        Ok(0)
    }
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
    fn reads_the_hint_as_java_integer_parse_int_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let meta = dir.path().join("metadata");
        fs::create_dir(&meta).unwrap();
        for v in [1, 2, 3] {
            fs::write(meta.join(format!("v{v}.metadata.json")), "{}").unwrap();
        }
        let read = |hint: &str| {
            fs::write(meta.join("version-hint.text"), hint).unwrap();
            let hadoop = locate(dir.path()).unwrap().hadoop.unwrap();
            (hadoop.version, hadoop.file_name)
        };
        // Digits of any script Java's `Character.digit` knows; rolled forward from there.
        assert_eq!(read("\u{662}"), (3, "v3.metadata.json".into()));
        fs::remove_file(meta.join("v3.metadata.json")).unwrap();
        assert_eq!(read("\u{FF12}\n"), (2, "v2.metadata.json".into()));
        // Beyond `int`: Java's parse fails, and the listing's newest version is read.
        assert_eq!(read("4294967297"), (2, "v2.metadata.json".into()));
        // A negative version is a version to Java: `v-1.metadata.json`, then forward to v2.
        fs::write(meta.join("v-1.metadata.json"), "{}").unwrap();
        assert_eq!(read("-1"), (-1, "v-1.metadata.json".into()));
        fs::write(meta.join("v0.metadata.json"), "{}").unwrap();
        let (version, file) = read("-1");
        assert_eq!((version, file.as_str()), (2, "v2.metadata.json"));
        fs::remove_file(meta.join("v-1.metadata.json")).unwrap();
        fs::write(meta.join("version-hint.text"), "-1").unwrap();
        let err = locate(dir.path()).unwrap_err();
        assert!(
            err.contains("v-1.metadata.json") && err.contains("missing"),
            "{err}"
        );
    }

    #[test]
    fn the_next_version_after_java_s_largest_int_wraps_as_java_s_does() {
        let table = HadoopTable {
            metadata_dir: PathBuf::from("m"),
            version: i32::MAX,
            file_name: "v2147483647.metadata.json".into(),
        };
        assert_eq!(
            table.next_file(Codec::None),
            Path::new("m/v-2147483648.metadata.json")
        );
        assert_eq!(HadoopTable::hint_text(table.next_version()), "-2147483648");
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

    #[test]
    fn finds_gzip_versions_in_java_order() {
        let dir = tempfile::tempdir().unwrap();
        let meta = dir.path().join("metadata");
        fs::create_dir(&meta).unwrap();
        fs::write(meta.join("v1.metadata.json"), "{}").unwrap();
        fs::write(meta.join("v2.metadata.json.gz"), "").unwrap();
        fs::write(meta.join("v3.gz.metadata.json"), "").unwrap();
        // Listed, not hinted: the highest version with a file of any of the three names.
        let location = locate(dir.path()).unwrap();
        assert_eq!(location.metadata_file, meta.join("v3.gz.metadata.json"));
        let hadoop = location.hadoop.unwrap();
        assert_eq!(
            (hadoop.version, hadoop.file_name.as_str()),
            (3, "v3.gz.metadata.json")
        );
        assert_eq!(
            hadoop.logged_file("file:///t/"),
            "file:///t/metadata/v3.gz.metadata.json"
        );
        assert_eq!(hadoop.next_file(Codec::None), meta.join("v4.metadata.json"));
        // Hinted at 1: rolled forward through the older gzip name to the newer one.
        fs::write(meta.join("version-hint.text"), "1").unwrap();
        assert_eq!(
            locate(dir.path()).unwrap().metadata_file,
            meta.join("v3.gz.metadata.json")
        );
        // Where a version has a plain and a gzip file, Java takes the plain one.
        fs::write(meta.join("v3.metadata.json"), "{}").unwrap();
        assert_eq!(
            locate(dir.path()).unwrap().metadata_file,
            meta.join("v3.metadata.json")
        );
    }

    #[test]
    fn lists_only_versions_that_have_a_metadata_file() {
        let dir = tempfile::tempdir().unwrap();
        let meta = dir.path().join("metadata");
        fs::create_dir(&meta).unwrap();
        fs::write(meta.join("v2.metadata.json"), "{}").unwrap();
        // `v9.x` matches Java's listing pattern but is no metadata file of version 9.
        fs::write(meta.join("v9.avro"), "").unwrap();
        assert_eq!(
            locate(dir.path()).unwrap().metadata_file,
            meta.join("v2.metadata.json")
        );
    }

    #[test]
    fn reads_a_gzip_metadata_file_by_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let gz = dir.path().join("t.gz.metadata.json");
        fs::write(&gz, Codec::Gzip.encode("{\"a\": 1}").unwrap()).unwrap();
        assert_eq!(WorkingTree.read_metadata(&gz).unwrap(), "{\"a\": 1}");
        let plain = dir.path().join("gz.json");
        fs::write(&plain, Codec::Gzip.encode("{}").unwrap()).unwrap();
        assert!(WorkingTree.read_metadata(&plain).is_err());
        fs::write(&gz, "{}").unwrap();
        let err = WorkingTree.read_metadata(&gz).unwrap_err();
        assert!(
            err.contains("t.gz.metadata.json") && err.contains("not gzip"),
            "{err}"
        );
    }
}
