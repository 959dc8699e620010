//! `verify --sample N`: data files of the table itself, from its current snapshot's manifest list
//! and manifests (Avro), preferring files written under different schema ids (old files are the
//! ones a schema change puts at risk).
//!
//! Paths in manifests are absolute. A local path or `file:` URI is read where it points; when that
//! file is gone and the path lies under the table's `location`, it is read from the same place
//! under the directory the metadata was loaded from, so a copied table (a fixture, a downloaded
//! snapshot) still verifies. Other schemes (s3:, gs:, hdfs:, ...) are a clear error for now.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use apache_avro::Reader;
use apache_avro::types::Value as Avro;

use crate::iceberg::metadata::TableMetadata;

/// A live data file of the current snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct DataFile {
    /// As the manifest names it.
    pub path: String,
    /// Where it is read from.
    pub local: PathBuf,
    /// The schema current when the snapshot that added it was committed.
    pub schema_id: Option<i32>,
}

/// Where a table's files are found on this machine.
pub struct Locator<'a> {
    /// The table's `location` from its metadata.
    pub location: &'a str,
    /// The local table directory (the one holding `metadata/`).
    pub table_dir: &'a Path,
}

impl Locator<'_> {
    pub fn local(&self, path: &str) -> Result<PathBuf, String> {
        let original = local_path(path)?;
        if original.exists() {
            return Ok(original);
        }
        if let Ok(location) = local_path(self.location) {
            let location = location.to_string_lossy().trim_end_matches('/').to_string();
            if let Ok(rest) = original.strip_prefix(&location) {
                let copy = self.table_dir.join(rest);
                if copy.exists() {
                    return Ok(copy);
                }
                return Err(format!(
                    "`{path}` does not exist, nor does its copy under the table directory, `{}`",
                    copy.display()
                ));
            }
        }
        Err(format!("`{path}` does not exist"))
    }
}

/// The table directory of a metadata file: the parent of `metadata/` when the file is in one.
pub fn table_dir(metadata_file: &Path) -> PathBuf {
    let dir = metadata_file.parent().unwrap_or(Path::new("."));
    if dir.file_name().is_some_and(|n| n == "metadata") {
        dir.parent().unwrap_or(dir).to_path_buf()
    } else {
        dir.to_path_buf()
    }
}

/// A local path from a plain path or a `file:` URI.
pub fn local_path(path: &str) -> Result<PathBuf, String> {
    if let Some(rest) = path.strip_prefix("file:") {
        // file:///abs, file:/abs (Hadoop's form), file://localhost/abs
        let rest = rest
            .strip_prefix("//localhost")
            .or_else(|| rest.strip_prefix("//"))
            .unwrap_or(rest);
        return Ok(PathBuf::from(rest));
    }
    match path.split_once("://") {
        Some((scheme, _)) if !scheme.contains('/') => Err(format!(
            "`{path}`: only local files and file: URIs are read so far, not {scheme}: (copy the files, or give them by path)"
        )),
        _ => Ok(PathBuf::from(path)),
    }
}

/// Every live data file of the current snapshot, in manifest order.
pub fn current_files(
    metadata_text: &str,
    metadata: &TableMetadata,
    locator: &Locator<'_>,
) -> Result<Vec<DataFile>, String> {
    let Some(current) = metadata.current_snapshot_id else {
        return Err("the table has no current snapshot, so no data files to sample".into());
    };
    let root = crate::json::parse(metadata_text).map_err(|e| e.to_string())?;
    let snapshot = root
        .get("snapshots")
        .and_then(|s| s.as_array())
        .and_then(|list| {
            list.iter()
                .find(|s| s.get("snapshot-id").and_then(|i| i.as_i64()) == Some(current))
        })
        .ok_or_else(|| format!("current snapshot {current} is not in `snapshots`"))?;
    let schema_of: BTreeMap<i64, i32> = metadata
        .snapshots
        .iter()
        .filter_map(|s| Some((s.snapshot_id, s.schema_id?)))
        .collect();

    // (manifest path, the snapshot that added it)
    let mut manifests: Vec<(String, Option<i64>)> = Vec::new();
    if let Some(list) = snapshot.get("manifest-list").and_then(|m| m.as_str()) {
        for record in records(&locator.local(list)?, list)? {
            if int(field(&record, "content")).unwrap_or(0) != 0 {
                continue; // delete manifests
            }
            let path = string(field(&record, "manifest_path"))
                .ok_or_else(|| format!("`{list}`: a manifest entry without `manifest_path`"))?;
            manifests.push((path, int(field(&record, "added_snapshot_id"))));
        }
    } else if let Some(list) = snapshot.get("manifests").and_then(|m| m.as_array()) {
        // v1 tables may list manifests in the snapshot itself.
        for m in list {
            if let Some(path) = m.as_str() {
                manifests.push((path.to_string(), None));
            }
        }
    } else {
        return Err(format!(
            "snapshot {current} has neither `manifest-list` nor `manifests`"
        ));
    }

    let mut files = Vec::new();
    for (manifest, added_by) in manifests {
        for entry in records(&locator.local(&manifest)?, &manifest)? {
            // status: 0 existing, 1 added, 2 deleted
            if int(field(&entry, "status")) == Some(2) {
                continue;
            }
            let Some(data_file) = field(&entry, "data_file") else {
                continue;
            };
            if int(field(data_file, "content")).unwrap_or(0) != 0 {
                continue;
            }
            let format = string(field(data_file, "file_format")).unwrap_or_default();
            if !format.eq_ignore_ascii_case("parquet") {
                continue;
            }
            let path = string(field(data_file, "file_path"))
                .ok_or_else(|| format!("`{manifest}`: a data file without `file_path`"))?;
            let snapshot = int(field(&entry, "snapshot_id")).or(added_by);
            files.push(DataFile {
                local: locator.local(&path)?,
                path,
                schema_id: snapshot.and_then(|s| schema_of.get(&s).copied()),
            });
        }
    }
    Ok(files)
}

/// Up to `n` files, one per schema id in turn (oldest schema first), then the next of each.
pub fn pick(files: Vec<DataFile>, n: usize) -> Vec<DataFile> {
    let mut groups: BTreeMap<Option<i32>, std::collections::VecDeque<DataFile>> = BTreeMap::new();
    for f in files {
        groups.entry(f.schema_id).or_default().push_back(f);
    }
    let mut out = Vec::new();
    while out.len() < n && groups.values().any(|g| !g.is_empty()) {
        for group in groups.values_mut() {
            if out.len() >= n {
                break;
            }
            if let Some(f) = group.pop_front() {
                out.push(f);
            }
        }
    }
    out
}

fn records(local: &Path, name: &str) -> Result<Vec<Avro>, String> {
    let file = File::open(local).map_err(|e| format!("cannot open `{name}`: {e}"))?;
    let reader = Reader::new(BufReader::new(file))
        .map_err(|e| format!("`{name}` is not a readable Avro file: {e}"))?;
    reader
        .map(|r| r.map_err(|e| format!("`{name}`: {e}")))
        .collect()
}

fn field<'a>(record: &'a Avro, name: &str) -> Option<&'a Avro> {
    let Avro::Record(fields) = record else {
        return None;
    };
    let found = fields.iter().find(|(n, _)| n == name).map(|(_, v)| v)?;
    match found {
        Avro::Union(_, inner) => Some(inner),
        other => Some(other),
    }
}

fn int(v: Option<&Avro>) -> Option<i64> {
    match v? {
        Avro::Int(i) => Some(i64::from(*i)),
        Avro::Long(l) => Some(*l),
        Avro::Union(_, inner) => int(Some(inner)),
        _ => None,
    }
}

fn string(v: Option<&Avro>) -> Option<String> {
    match v? {
        Avro::String(s) => Some(s.clone()),
        Avro::Enum(_, s) => Some(s.clone()),
        Avro::Union(_, inner) => string(Some(inner)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, schema: i32) -> DataFile {
        DataFile {
            path: name.into(),
            local: name.into(),
            schema_id: Some(schema),
        }
    }

    #[test]
    fn picks_across_schema_ids_first() {
        let files = vec![f("a", 2), f("b", 2), f("c", 0), f("d", 1), f("e", 0)];
        let names: Vec<_> = pick(files.clone(), 4).into_iter().map(|f| f.path).collect();
        assert_eq!(names, ["c", "d", "a", "e"]);
        assert_eq!(pick(files, 10).len(), 5);
    }

    #[test]
    fn file_uris_and_other_schemes() {
        assert_eq!(
            local_path("file:///tmp/a").unwrap(),
            PathBuf::from("/tmp/a")
        );
        assert_eq!(local_path("file:/tmp/a").unwrap(), PathBuf::from("/tmp/a"));
        assert_eq!(local_path("/tmp/a").unwrap(), PathBuf::from("/tmp/a"));
        assert!(local_path("s3://bucket/a").unwrap_err().contains("not s3:"));
    }

    #[test]
    fn a_copied_table_reads_from_its_own_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("data")).unwrap();
        std::fs::write(dir.path().join("data/x.parquet"), b"").unwrap();
        let locator = Locator {
            location: "file:///nowhere/db/t",
            table_dir: dir.path(),
        };
        assert_eq!(
            locator
                .local("file:///nowhere/db/t/data/x.parquet")
                .unwrap(),
            dir.path().join("data/x.parquet")
        );
        assert!(
            locator
                .local("file:///nowhere/db/t/data/y.parquet")
                .is_err()
        );
        assert!(locator.local("file:///elsewhere/y.parquet").is_err());
    }
}
