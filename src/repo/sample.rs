//! A table's `sample:` list resolved to files of the working tree: each entry is a path or a
//! glob (the `proposals` syntax) relative to fieldgate.yaml. Data files are usually not committed,
//! so they are looked up on disk, never in git. An entry that leaves the repository, lexically or
//! through a symbolic link, or that names no file, is a located error.

use std::fs;
use std::path::{Path, PathBuf};

use crate::change::Span;
use crate::repo::config::{CONFIG_FILE, ConfigError, repo_path};
use crate::repo::glob;

/// One file of the sample, relative to the repository root, with the entry that named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampledFile {
    pub path: PathBuf,
    pub entry: Span,
}

/// The files `entries` name, in entry order (a glob's matches sorted), each once. `dir` is the
/// configuration's directory relative to `root`.
pub fn resolve(
    entries: &[(String, Span)],
    dir: &Path,
    root: &Path,
) -> Result<Vec<SampledFile>, Vec<ConfigError>> {
    let canonical_root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut files: Vec<SampledFile> = Vec::new();
    let mut errors = Vec::new();
    for (entry, span) in entries {
        let at = |message: String, help: Option<String>| ConfigError {
            span: *span,
            message,
            help,
        };
        let relative = match repo_path(dir, entry) {
            Ok(relative) => relative,
            Err(message) => {
                errors.push(at(message, None));
                continue;
            }
        };
        let found = matching(root, &relative);
        if found.is_empty() {
            errors.push(at(
                format!(
                    "`{entry}` names no file in the working tree (looked for `{}`)",
                    slashed(&relative)
                ),
                Some(format!(
                    "sample paths are relative to {CONFIG_FILE}; data files are read from the working tree, so fetch or generate them before fieldgate runs"
                )),
            ));
        }
        for path in found {
            let inside = fs::canonicalize(root.join(&path))
                .is_ok_and(|real| real.starts_with(&canonical_root));
            if !inside {
                errors.push(at(
                    format!(
                        "`{}` points outside the repository through a symbolic link",
                        slashed(&path)
                    ),
                    None,
                ));
            } else if !files.iter().any(|f| f.path == path) {
                files.push(SampledFile { path, entry: *span });
            }
        }
    }
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(errors)
    }
}

/// The files in the working tree a repository-relative entry names: the file itself, or every
/// file its glob matches, in order.
fn matching(root: &Path, relative: &Path) -> Vec<PathBuf> {
    if is_glob(relative) {
        let mut found = Vec::new();
        walk(
            root,
            &literal_prefix(relative),
            &slashed(relative),
            &mut found,
        );
        found.sort();
        found
    } else if root.join(relative).is_file() {
        vec![relative.to_path_buf()]
    } else {
        Vec::new()
    }
}

fn is_glob(path: &Path) -> bool {
    path.to_string_lossy().contains(['*', '?', '[', '{'])
}

/// The directories before the first segment with a glob character: where the walk starts.
fn literal_prefix(pattern: &Path) -> PathBuf {
    pattern
        .components()
        .take_while(|c| !is_glob(Path::new(c.as_os_str())))
        .collect()
}

fn slashed(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Every file under `dir` (relative to `root`) matching `pattern`, outside `.git`. Symbolic links
/// to directories are not followed, so a link cannot loop the walk or lead it out of the
/// repository.
fn walk(root: &Path, dir: &Path, pattern: &str, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(root.join(dir)) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = dir.join(entry.file_name());
        if kind.is_dir() && entry.file_name() == ".git" {
            // Git's own objects: never data, and the largest tree a `**` could wander into.
            continue;
        } else if kind.is_dir() {
            walk(root, &path, pattern, found);
        } else if (kind.is_file() || kind.is_symlink())
            && root.join(&path).is_file()
            && glob::matches(pattern, &slashed(&path))
        {
            found.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(text: &str, paths: &[&str]) -> Vec<(String, Span)> {
        paths
            .iter()
            .map(|p| {
                let at = text.find(p).unwrap();
                (p.to_string(), Span::new(at, p.len()))
            })
            .collect()
    }

    #[test]
    fn paths_and_globs_resolve_to_files_once_in_order() {
        let root = tempfile::tempdir().unwrap();
        for file in [
            "conf/data/b.parquet",
            "conf/data/a.parquet",
            "conf/data/x/c.parquet",
        ] {
            let path = root.path().join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, b"").unwrap();
        }
        let text = "data/x/c.parquet data/**/*.parquet ./data/../data/a.parquet";
        let list = entries(
            text,
            &[
                "data/x/c.parquet",
                "data/**/*.parquet",
                "./data/../data/a.parquet",
            ],
        );
        let files = resolve(&list, Path::new("conf"), root.path()).unwrap();
        let names: Vec<String> = files.iter().map(|f| slashed(&f.path)).collect();
        assert_eq!(
            names,
            [
                "conf/data/x/c.parquet",
                "conf/data/a.parquet",
                "conf/data/b.parquet"
            ]
        );
        assert_eq!(files[1].entry, list[1].1);
    }

    #[test]
    fn missing_files_and_paths_outside_are_located_errors() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.parquet"), b"").unwrap();
        fs::create_dir_all(root.path().join("data")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            outside.path().join("secret.parquet"),
            root.path().join("data/link.parquet"),
        )
        .unwrap();
        let text = "../x.parquet /etc/passwd data/none.parquet data/*.orc data/link.parquet";
        let list = entries(
            text,
            &[
                "../x.parquet",
                "/etc/passwd",
                "data/none.parquet",
                "data/*.orc",
                "data/link.parquet",
            ],
        );
        let errors = resolve(&list, Path::new(""), root.path()).unwrap_err();
        let found: Vec<(&str, &str)> = errors
            .iter()
            .map(|e| (&text[e.span.offset..e.span.end()], e.message.as_str()))
            .collect();
        let mut expected = vec![
            (
                "../x.parquet",
                "`../x.parquet` points outside the repository",
            ),
            (
                "/etc/passwd",
                "`/etc/passwd` is an absolute path: write it relative to fieldgate.yaml, inside the repository",
            ),
            (
                "data/none.parquet",
                "`data/none.parquet` names no file in the working tree (looked for `data/none.parquet`)",
            ),
            (
                "data/*.orc",
                "`data/*.orc` names no file in the working tree (looked for `data/*.orc`)",
            ),
        ];
        if cfg!(unix) {
            expected.push((
                "data/link.parquet",
                "`data/link.parquet` points outside the repository through a symbolic link",
            ));
        }
        assert_eq!(found, expected);
    }
}
