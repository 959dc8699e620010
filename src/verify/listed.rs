//! Data files named by path (`verify FILES`, `apply --verify`, a `sample:` list) looked up in the
//! current snapshot's manifests, so a file of the table is read with what its manifest entry says
//! (identity-partition values, the delete files that apply), as a reader reads it. A file that is
//! not there, or manifests that cannot be read, leave those unknown, and the reports say why.

use std::fs;
use std::path::{Path, PathBuf};

use crate::iceberg::metadata::TableMetadata;
use crate::verify::deletes::Deletes;
use crate::verify::resolve::Identity;
use crate::verify::sample::{DataFile, Locator, ManifestError, current_files};

/// The current snapshot's live data files, or why they are not known.
pub fn manifest_entries(
    metadata_text: &str,
    metadata: &TableMetadata,
    locator: &Locator<'_>,
) -> Result<Vec<DataFile>, ManifestError> {
    match metadata.current_snapshot_id {
        Some(_) => current_files(metadata_text, metadata, locator),
        None => Err(ManifestError::Unreadable(
            "the table has no snapshot".into(),
        )),
    }
}

/// A file given by path (`given`, read from `local`), with what the manifests (`known`, from
/// [`manifest_entries`]) say of it when it is one of the snapshot's data files: the same file,
/// whatever path names it.
pub fn look_up(
    given: &str,
    local: PathBuf,
    known: &Result<Vec<DataFile>, ManifestError>,
    metadata: &TableMetadata,
) -> DataFile {
    let same = |other: &Path| match (fs::canonicalize(&local), fs::canonicalize(other)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    let found = known
        .as_ref()
        .ok()
        .and_then(|files| files.iter().find(|f| same(&f.local)));
    if let Some(entry) = found {
        return DataFile {
            path: given.to_string(),
            local,
            ..entry.clone()
        };
    }
    let why = match known {
        Ok(_) => "the file is not in the current snapshot's manifests, which hold the partition value a reader uses".to_string(),
        Err(e) => format!("the partition value a reader uses is in the manifests, which could not be read ({e})"),
    };
    let partition = metadata
        .partition_specs
        .iter()
        .filter(|s| s.spec_id == metadata.default_spec_id)
        .flat_map(|s| &s.fields)
        .filter(|f| f.transform == "identity")
        .filter_map(|f| match f.source_ids.as_slice() {
            [source] => Some((*source, Identity::Unknown(why.clone()))),
            _ => None,
        })
        .collect();
    let unknown_deletes = match known {
        Err(e) if metadata.current_snapshot_id.is_some() => Some(format!(
            "the current snapshot's manifests could not be read ({e}), so the delete files that may apply are unknown"
        )),
        _ => None,
    };
    DataFile {
        path: given.to_string(),
        local,
        schema_id: None,
        partition,
        deletes: Deletes {
            unknown: unknown_deletes,
            ..Deletes::default()
        },
    }
}
