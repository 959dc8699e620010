//! Object storage: the files a catalog table's metadata names (manifest lists, manifests, data
//! files) read from `s3://` (also `s3a://`, `s3n://`) with the properties engines use, vended by
//! the catalog or set on it, else the standard AWS environment. Each object is fetched once into
//! a private temporary directory, so the readers above keep reading local files.

pub mod s3;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use crate::catalog::redact::Redactor;
use crate::storage::s3::S3;

/// Whether `path` is an object-store URL rather than a local path or `file:` URI.
pub fn is_remote(path: &str) -> bool {
    path.split_once("://")
        .is_some_and(|(scheme, _)| !scheme.is_empty() && !scheme.contains('/') && scheme != "file")
}

/// Reads objects into local copies, each at most once per run.
pub struct ObjectReader {
    s3: S3,
    redactor: Redactor,
    dir: tempfile::TempDir,
    /// Each object's local path, by URL.
    planned: RefCell<HashMap<String, PathBuf>>,
    fetched: RefCell<HashSet<String>>,
}

impl ObjectReader {
    /// A reader configured by `properties` (the catalog's, then the table's LoadTable `config`
    /// on top, as engines merge them) and `env` for what they leave unset. `redactor` already
    /// knows the catalog's secrets; the vended ones are added to it.
    pub fn new(
        properties: &[(String, String)],
        env: &dyn Fn(&str) -> Option<String>,
        mut redactor: Redactor,
    ) -> Result<ObjectReader, String> {
        let s3 = S3::new(properties, env, &mut redactor)?;
        let dir = tempfile::Builder::new()
            .prefix("fieldgate-objects-")
            .tempdir()
            .map_err(|e| format!("cannot make a temporary directory for object copies: {e}"))?;
        Ok(ObjectReader {
            s3,
            redactor,
            dir,
            planned: RefCell::new(HashMap::new()),
            fetched: RefCell::new(HashSet::new()),
        })
    }

    /// Where the copy of the object at `url` is (or will be) kept, without reading it: a
    /// snapshot lists every data file, and only the sampled ones are fetched.
    pub fn planned(&self, url: &str) -> PathBuf {
        let mut planned = self.planned.borrow_mut();
        let next = planned.len();
        planned
            .entry(url.to_string())
            .or_insert_with(|| self.dir.path().join(next.to_string()))
            .clone()
    }

    /// A local copy of the object at `url`, fetched on the first call.
    pub fn local_copy(&self, url: &str) -> Result<PathBuf, String> {
        let local = self.planned(url);
        if self.fetched.borrow().contains(url) {
            return Ok(local);
        }
        let bytes = match url.split_once("://") {
            Some(("s3" | "s3a" | "s3n", rest)) => self.s3.get(url, rest),
            Some((scheme, _)) => Err(format!(
                "`{url}`: {scheme}:// is not read yet, only s3:// (and s3a://, s3n://) object storage"
            )),
            None => Err(format!("`{url}` is not an object-store URL")),
        }
        .map_err(|e| self.redactor.clean(&e))?;
        std::fs::write(&local, bytes)
            .map_err(|e| format!("cannot keep a copy of `{url}` in a temporary file: {e}"))?;
        self.fetched.borrow_mut().insert(url.to_string());
        Ok(local)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_urls_are_remote_and_local_paths_are_not() {
        assert!(is_remote("s3://bucket/key"));
        assert!(is_remote("gs://bucket/key"));
        assert!(is_remote("abfss://c@a.dfs.core.windows.net/p"));
        assert!(!is_remote("file:///tmp/a"));
        assert!(!is_remote("/tmp/a"));
        assert!(!is_remote("data/a://b"));
    }

    #[test]
    fn other_schemes_are_a_clear_error() {
        let reader = ObjectReader::new(&[], &|_| None, Redactor::default()).unwrap();
        let error = reader.local_copy("gs://bucket/a.parquet").unwrap_err();
        assert!(error.contains("gs:// is not read yet"), "{error}");
    }
}
