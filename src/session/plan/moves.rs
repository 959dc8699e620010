//! Where a change puts a table's metadata. A pull request that moves a table directory (and
//! points `fieldgate.yaml` at the new place) or deletes its version hint leaves metadata that
//! reads the same, so no drift shows, yet every reader that loads the table from where it was
//! (a catalog, a path in a job, the `location` inside the metadata and every manifest) or
//! through the hint (DuckDB's `iceberg_scan`, pyiceberg on a table directory) no longer finds
//! it. Either is refused (exit 2), located at the table's entry, naming what moved.

use std::path::Path;

use crate::failure::{Failure, LocatedError};
use crate::repo::config::{Config, repo_path};
use crate::repo::git::CommitFiles;
use crate::repo::location::Files;

const HINT: &str = "metadata/version-hint.text";

/// Refuses each table of `head` whose metadata the change moves away from where the base's
/// configuration had it, or whose version hint it deletes; `root` is the working tree.
pub fn refuse_moves(
    base: Option<&Config>,
    head: &Config,
    config_dir: &Path,
    base_files: &CommitFiles<'_>,
    base_id: &str,
    root: &Path,
) -> Result<(), Failure> {
    let mut errors = Vec::new();
    let based = base.map(Config::table_index);
    for table in &head.tables {
        let Some(path) = table.metadata.as_deref() else {
            continue;
        };
        let Ok(now) = repo_path(config_dir, path) else {
            continue;
        };
        let was = based
            .as_ref()
            .and_then(|index| index.table(&table.name))
            .and_then(|entry| entry.metadata.as_deref())
            .filter(|was| *was != path);
        let at_base = |p: &Path| base_files.is_file(p) || base_files.is_dir(p);
        let moved = was.and_then(|was| Some((was, repo_path(config_dir, was).ok()?)));
        let gone =
            |old: &Path| at_base(old) && !root.join(old).exists() && root.join(&now).exists();
        if let Some((was, old)) = moved.filter(|(_, old)| gone(old)) {
            errors.push(LocatedError::new(
                &table.source,
                table.metadata_span,
                format!(
                    "the change moves the metadata of `{}` from `{was}` to `{path}`: every reader and catalog that loads the table from `{was}`, and the `location` its metadata and manifests record, no longer find it",
                    table.name
                ),
                Some(format!(
                    "a table's files cannot move without rewriting its metadata and manifests: keep it at `{was}` (`git checkout {} -- {}`)",
                    base_id,
                    old.display()
                )),
            ));
            continue;
        }
        let hint = now.join(HINT);
        // Two stats first: the base's tree is looked up only for a hint the working tree lacks,
        // so a check of thousands of tables does not walk git trees for each of them.
        let missing = !root.join(&hint).exists() && root.join(&now).join("metadata").is_dir();
        if missing && base_files.is_file(&hint) {
            errors.push(LocatedError::new(
                &table.source,
                table.metadata_span,
                format!(
                    "the change deletes `{}`, the version hint of `{}`: readers that find a table directory's current version through it (DuckDB's `iceberg_scan`, pyiceberg) no longer find the table",
                    hint.display(),
                    table.name
                ),
                Some(format!(
                    "restore it: `git checkout {} -- {}`",
                    base_id,
                    hint.display()
                )),
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Failure::Located(errors))
    }
}
