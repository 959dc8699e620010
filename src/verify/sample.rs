//! `verify --sample N`: data files of the table itself, from its current snapshot's manifest list
//! and manifests (Avro), preferring files written under different schema ids (old files are the
//! ones a schema change puts at risk).
//!
//! Paths in manifests are absolute. A local path or `file:` URI is read where it points; when that
//! file is gone and the path lies under the table's `location`, it is read from the same place
//! under the directory the metadata was loaded from, so a copied table (a fixture, a downloaded
//! snapshot) still verifies. Object-store URLs are read through the locator's
//! [`ObjectReader`] when it has one (`check --live` on a catalog table), else are a clear error.
//! `check` confines the reads to the repository: a path in committed metadata must not make the
//! gate read files of the CI runner.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use apache_avro::types::Value as Avro;

use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::partition::PartitionSpec;
use crate::storage::{ObjectReader, is_remote};
use crate::verify::avro::{Budget, records};
use crate::verify::deletes::{Deletes, PositionDeletes};
use crate::verify::partition_values::identity_values;
use crate::verify::resolve::PartitionValues;

/// A live data file of the current snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct DataFile {
    /// As the manifest names it.
    pub path: String,
    /// Where it is read from.
    pub local: PathBuf,
    /// The schema current when the snapshot that added it was committed.
    pub schema_id: Option<i32>,
    /// The identity-partition values of its manifest entry, by source field id.
    pub partition: PartitionValues,
    /// The snapshot's delete files that apply to it.
    pub deletes: Deletes,
}

/// Why the current snapshot's files are not known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManifestError {
    /// A manifest list, manifest or file they name resolves outside the directory the reads are
    /// confined to ([`Locator::inside`]).
    Outside(String),
    /// Missing or unreadable files, other schemes, malformed manifests.
    Unreadable(String),
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Outside(m) | ManifestError::Unreadable(m) => f.write_str(m),
        }
    }
}

impl From<String> for ManifestError {
    fn from(message: String) -> ManifestError {
        ManifestError::Unreadable(message)
    }
}

/// Where a table's files are found on this machine.
pub struct Locator<'a> {
    /// The table's `location` from its metadata.
    pub location: &'a str,
    /// The local table directory (the one holding `metadata/`).
    pub table_dir: &'a Path,
    /// The canonical directory every file read must really be in (`check`: the repository), or
    /// `None` to read wherever the paths point.
    pub inside: Option<&'a Path>,
    /// Where object-store URLs (`s3://...`) are read from; `None` refuses them.
    pub remote: Option<&'a ObjectReader>,
}

impl Locator<'_> {
    pub fn local(&self, path: &str) -> Result<PathBuf, ManifestError> {
        if let Some(remote) = self.remote.filter(|_| is_remote(path)) {
            return remote.local_copy(path).map_err(ManifestError::Unreadable);
        }
        let original = local_path(path)?;
        if original.exists() && self.allows(&original) {
            return Ok(original);
        }
        if let Ok(location) = local_path(self.location) {
            let location = location.to_string_lossy().trim_end_matches('/').to_string();
            if let Ok(rest) = original.strip_prefix(&location) {
                let copy = self.table_dir.join(rest);
                if copy.exists() {
                    return if self.allows(&copy) {
                        Ok(copy)
                    } else {
                        Err(self.outside(path, &copy))
                    };
                }
                if original.exists() {
                    return Err(self.outside(path, &original));
                }
                return Err(ManifestError::Unreadable(format!(
                    "`{path}` does not exist, nor does its copy under the table directory, `{}`",
                    copy.display()
                )));
            }
        }
        if original.exists() {
            return Err(self.outside(path, &original));
        }
        Err(ManifestError::Unreadable(format!(
            "`{path}` does not exist"
        )))
    }

    /// Where a data or delete file is read from, without reading it yet: an object-store file
    /// is fetched by [`Locator::fetch`] only once it is sampled.
    pub fn deferred(&self, path: &str) -> Result<PathBuf, ManifestError> {
        match self.remote.filter(|_| is_remote(path)) {
            Some(remote) => Ok(remote.planned(path)),
            None => self.local(path),
        }
    }

    /// Fetches a [`Locator::deferred`] file that lives in object storage.
    pub fn fetch(&self, path: &str) -> Result<(), ManifestError> {
        match self.remote.filter(|_| is_remote(path)) {
            Some(_) => self.local(path).map(drop),
            None => Ok(()),
        }
    }

    /// Whether `local` really (links followed) lies in the directory reads are confined to.
    fn allows(&self, local: &Path) -> bool {
        self.inside
            .is_none_or(|inside| fs::canonicalize(local).is_ok_and(|real| real.starts_with(inside)))
    }

    fn outside(&self, path: &str, local: &Path) -> ManifestError {
        let real = fs::canonicalize(local).unwrap_or_else(|_| local.to_path_buf());
        let link = if real == local {
            String::new()
        } else {
            format!(" (`{}` leads to `{}`)", local.display(), real.display())
        };
        ManifestError::Outside(format!(
            "`{path}` is outside the repository{link}: the gate reads only the repository's files"
        ))
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

/// Every live data file of the current snapshot, in manifest order, with its identity-partition
/// values and the delete files that apply to it.
pub fn current_files(
    metadata_text: &str,
    metadata: &TableMetadata,
    locator: &Locator<'_>,
) -> Result<Vec<DataFile>, ManifestError> {
    let mut budget = Budget::run();
    let manifests = snapshot_manifests(metadata_text, metadata, locator, &mut budget)?;
    let mut live = Live {
        metadata,
        locator,
        schema_of: snapshot_schemas(metadata),
        files: Vec::new(),
        data: Vec::new(),
        deletes: Vec::new(),
    };
    for manifest in &manifests {
        for record in records(&locator.local(&manifest.path)?, &manifest.path, &mut budget)? {
            live.add(&record, manifest)?;
        }
    }
    live.with_deletes()
}

/// The current snapshot's manifests: from its manifest list, or, in a v1 table, listed in the
/// snapshot itself.
fn snapshot_manifests(
    metadata_text: &str,
    metadata: &TableMetadata,
    locator: &Locator<'_>,
    budget: &mut Budget,
) -> Result<Vec<Manifest>, ManifestError> {
    let Some(current) = metadata.current_snapshot_id else {
        return Err(ManifestError::Unreadable(
            "the table has no current snapshot, so no data files to sample".into(),
        ));
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
    if let Some(list) = snapshot.get("manifest-list").and_then(|m| m.as_str()) {
        manifest_list(list, metadata.default_spec_id, locator, budget)
    } else if let Some(list) = snapshot.get("manifests").and_then(|m| m.as_array()) {
        Ok(list
            .iter()
            .filter_map(|m| m.as_str())
            .map(|path| Manifest {
                path: path.to_string(),
                deletes: false,
                added_by: None,
                spec_id: metadata.default_spec_id,
                sequence: 0,
            })
            .collect())
    } else {
        Err(ManifestError::Unreadable(format!(
            "snapshot {current} has neither `manifest-list` nor `manifests`"
        )))
    }
}

/// The manifests a manifest list names, each with what its entries inherit from it.
fn manifest_list(
    list: &str,
    default_spec_id: i32,
    locator: &Locator<'_>,
    budget: &mut Budget,
) -> Result<Vec<Manifest>, ManifestError> {
    let mut manifests = Vec::new();
    for record in records(&locator.local(list)?, list, budget)? {
        let path = string(field(&record, "manifest_path"))
            .ok_or_else(|| format!("`{list}`: a manifest entry without `manifest_path`"))?;
        manifests.push(Manifest {
            path,
            deletes: int(field(&record, "content")).unwrap_or(0) != 0,
            added_by: int(field(&record, "added_snapshot_id")),
            spec_id: int(field(&record, "partition_spec_id"))
                .and_then(|i| i32::try_from(i).ok())
                .unwrap_or(default_spec_id),
            sequence: int(field(&record, "sequence_number")).unwrap_or(0),
        });
    }
    Ok(manifests)
}

/// The live entries of the snapshot's manifests, as they are read: the Parquet data files to
/// sample (`files`, with their entries in `data`) and the delete files.
struct Live<'a> {
    metadata: &'a TableMetadata,
    locator: &'a Locator<'a>,
    schema_of: BTreeMap<i64, i32>,
    files: Vec<DataFile>,
    data: Vec<Entry>,
    deletes: Vec<Entry>,
}

impl Live<'_> {
    /// One manifest entry: deleted entries are skipped, delete files kept for later, and
    /// Parquet data files taken with their identity-partition values.
    fn add(&mut self, record: &Avro, manifest: &Manifest) -> Result<(), ManifestError> {
        // status: 0 existing, 1 added, 2 deleted
        if int(field(record, "status")) == Some(2) {
            return Ok(());
        }
        let Some(data_file) = field(record, "data_file") else {
            return Ok(());
        };
        let path = string(field(data_file, "file_path"))
            .ok_or_else(|| format!("`{}`: a file without `file_path`", manifest.path))?;
        let entry = Entry {
            path,
            content: int(field(data_file, "content")).unwrap_or(0),
            spec_id: manifest.spec_id,
            partition: field(data_file, "partition").cloned(),
            // A null sequence number is inherited from the manifest (spec "Sequence Number
            // Inheritance").
            sequence: int(field(record, "sequence_number")).unwrap_or(manifest.sequence),
            referenced: string(field(data_file, "referenced_data_file")),
            parquet: string(field(data_file, "file_format"))
                .is_some_and(|f| f.eq_ignore_ascii_case("parquet")),
        };
        if manifest.deletes || entry.content != 0 {
            self.deletes.push(entry);
            return Ok(());
        }
        if !entry.parquet {
            return Ok(());
        }
        let snapshot = int(field(record, "snapshot_id")).or(manifest.added_by);
        self.files.push(DataFile {
            local: self.locator.deferred(&entry.path)?,
            path: entry.path.clone(),
            schema_id: snapshot.and_then(|s| self.schema_of.get(&s).copied()),
            partition: identity_values(
                self.spec(entry.spec_id),
                entry.partition.as_ref(),
                self.metadata.current_schema(),
            ),
            deletes: Deletes::default(),
        });
        self.data.push(entry);
        Ok(())
    }

    fn spec(&self, spec_id: i32) -> Option<&PartitionSpec> {
        spec(self.metadata, spec_id)
    }

    /// The data files, each with the delete files that apply to it.
    fn with_deletes(self) -> Result<Vec<DataFile>, ManifestError> {
        let Live {
            metadata,
            locator,
            mut files,
            data,
            deletes,
            ..
        } = self;
        let unpartitioned =
            |spec_id: i32| spec(metadata, spec_id).is_none_or(PartitionSpec::is_unpartitioned);
        for (file, entry) in files.iter_mut().zip(&data) {
            let mut found = Deletes {
                data_file: entry.path.clone(),
                ..Deletes::default()
            };
            for delete in applying(entry, &deletes, unpartitioned) {
                match delete.content {
                    1 if delete.parquet => found.position.push(PositionDeletes {
                        local: locator.deferred(&delete.path)?,
                        path: delete.path.clone(),
                    }),
                    1 => found.other += 1,
                    _ => found.equality += 1,
                }
            }
            file.deletes = found;
        }
        Ok(files)
    }
}

fn spec(metadata: &TableMetadata, spec_id: i32) -> Option<&PartitionSpec> {
    metadata
        .partition_specs
        .iter()
        .find(|s| s.spec_id == spec_id)
}

/// The schema each snapshot was written with, by snapshot id, where the metadata records it.
fn snapshot_schemas(metadata: &TableMetadata) -> BTreeMap<i64, i32> {
    metadata
        .snapshots
        .iter()
        .filter_map(|s| Some((s.snapshot_id, s.schema_id?)))
        .collect()
}

/// The delete files that apply to a data file (spec "Scan Planning"): in its partition (or
/// in an unpartitioned spec), with a position delete no older and an equality delete newer
/// than the data file, and a position delete's `referenced_data_file`, if any, naming it.
fn applying<'a>(
    data: &Entry,
    deletes: &'a [Entry],
    unpartitioned: impl Fn(i32) -> bool,
) -> Vec<&'a Entry> {
    deletes
        .iter()
        .filter(|delete| {
            unpartitioned(delete.spec_id)
                || (delete.spec_id == data.spec_id && delete.partition == data.partition)
        })
        .filter(|delete| match delete.content {
            1 => {
                data.sequence <= delete.sequence
                    && delete.referenced.as_ref().is_none_or(|r| r == &data.path)
            }
            2 => data.sequence < delete.sequence,
            _ => false,
        })
        .collect()
}

/// A manifest of the snapshot, as its manifest list describes it.
struct Manifest {
    path: String,
    deletes: bool,
    added_by: Option<i64>,
    spec_id: i32,
    sequence: i64,
}

/// A live entry of a manifest: what deciding which deletes apply needs.
struct Entry {
    path: String,
    content: i64,
    spec_id: i32,
    partition: Option<Avro>,
    sequence: i64,
    referenced: Option<String>,
    parquet: bool,
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

/// A record's field by name, through a union.
pub fn field<'a>(record: &'a Avro, name: &str) -> Option<&'a Avro> {
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
            partition: PartitionValues::new(),
            deletes: Deletes::default(),
        }
    }

    fn entry(path: &str, content: i64, spec_id: i32, region: &str, sequence: i64) -> Entry {
        Entry {
            path: path.into(),
            content,
            spec_id,
            partition: Some(Avro::Record(vec![(
                "region".into(),
                Avro::Union(1, Box::new(Avro::String(region.into()))),
            )])),
            sequence,
            referenced: None,
            parquet: true,
        }
    }

    #[test]
    fn deletes_apply_by_partition_sequence_number_and_referenced_file() {
        let data = entry("d.parquet", 0, 1, "eu", 5);
        let unpartitioned = |spec: i32| spec == 0;
        let mut referencing_other = entry("references-another.parquet", 1, 1, "eu", 5);
        referencing_other.referenced = Some("other.parquet".into());
        let mut referencing_it = entry("references-it.parquet", 1, 1, "eu", 5);
        referencing_it.referenced = Some("d.parquet".into());
        let deletes = [
            entry("same-seq.parquet", 1, 1, "eu", 5),
            entry("older.parquet", 1, 1, "eu", 4),
            entry("other-partition.parquet", 1, 1, "us", 9),
            entry("unpartitioned.parquet", 1, 0, "us", 9),
            entry("eq-same-seq.parquet", 2, 1, "eu", 5),
            entry("eq-newer.parquet", 2, 1, "eu", 6),
            entry("other-spec.parquet", 1, 2, "eu", 9),
            referencing_other,
            referencing_it,
        ];
        let applied: Vec<&str> = applying(&data, &deletes, unpartitioned)
            .iter()
            .map(|d| d.path.as_str())
            .collect();
        assert_eq!(
            applied,
            [
                "same-seq.parquet",
                "unpartitioned.parquet",
                "eq-newer.parquet",
                "references-it.parquet"
            ]
        );
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
            inside: None,
            remote: None,
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

    #[test]
    fn confined_reads_stay_inside_whatever_the_paths_say() {
        let repo = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let repo_root = fs::canonicalize(repo.path()).unwrap();
        let table = repo_root.join("t");
        fs::create_dir_all(table.join("data")).unwrap();
        fs::write(table.join("data/x.parquet"), b"").unwrap();
        fs::write(outside.path().join("secret.avro"), b"").unwrap();
        let outside_uri = format!("file://{}", outside.path().join("secret.avro").display());
        let confined = Locator {
            location: "file:///nowhere/db/t",
            table_dir: &table,
            inside: Some(&repo_root),
            remote: None,
        };
        assert_eq!(
            confined.local("file:///nowhere/db/t/data/x.parquet"),
            Ok(table.join("data/x.parquet"))
        );
        assert!(matches!(
            confined.local(&outside_uri),
            Err(ManifestError::Outside(m)) if m.contains("outside the repository")
        ));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(
                outside.path().join("secret.avro"),
                table.join("data/link.avro"),
            )
            .unwrap();
            assert!(matches!(
                confined.local("file:///nowhere/db/t/data/link.avro"),
                Err(ManifestError::Outside(_))
            ));
        }
        let anywhere = Locator {
            inside: None,
            remote: None,
            ..confined
        };
        assert!(anywhere.local(&outside_uri).is_ok());
    }
}
