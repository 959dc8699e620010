//! Delete files of a data file: which apply is decided from the manifests (`sample`); here the
//! Parquet position delete files are read into the row positions they delete from that file
//! (spec "Position Delete Files"), so the rows verify shows are the rows a reader returns.
//! Equality deletes and deletion vectors are counted, not applied.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::PathBuf;

use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_cast::cast;
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::verify::error::{VerifyError, no_panic};

/// The delete files of the snapshot that apply to a data file (spec "Scan Planning": by
/// partition, sequence number and, for position deletes, the referenced data file).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Deletes {
    /// The data file's path as the manifest and the delete files name it.
    pub data_file: String,
    /// Position delete files in Parquet: applied.
    pub position: Vec<PositionDeletes>,
    /// Equality delete files: not applied.
    pub equality: usize,
    /// Position deletes in another format (Puffin deletion vectors, Avro, ORC): not applied.
    pub other: usize,
    /// Why the delete files that apply are not known (the manifests could not be read).
    pub unknown: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PositionDeletes {
    pub path: String,
    pub local: PathBuf,
}

impl Deletes {
    pub fn any(&self) -> bool {
        !self.position.is_empty() || self.not_applied() > 0 || self.unknown.is_some()
    }

    pub fn not_applied(&self) -> usize {
        self.equality + self.other
    }

    /// The row positions of the data file that its Parquet position delete files delete (spec
    /// "Position Delete Files": `file_path` and `pos`, rows of other data files skipped).
    pub fn deleted_positions(&self) -> Result<BTreeSet<u64>, VerifyError> {
        let mut out = BTreeSet::new();
        for file in &self.position {
            let at = |message: String| {
                VerifyError::file(file.path.clone(), message).with_help(
                    "a position delete file of this data file cannot be read: neither can a reader",
                )
            };
            let handle = File::open(&file.local)
                .map_err(|e| at(format!("cannot open `{}`: {e}", file.local.display())))?;
            let rows = no_panic(|| {
                let reader = ParquetRecordBatchReaderBuilder::try_new(handle)
                    .and_then(|b| b.build())
                    .map_err(|e| e.to_string())?;
                let mut positions = Vec::new();
                for batch in reader {
                    let batch = batch.map_err(|e| e.to_string())?;
                    let column = |name: &str, t: &DataType| {
                        let c = batch.column_by_name(name).ok_or_else(|| {
                            format!("no `{name}` column: not a position delete file")
                        })?;
                        cast(c, t).map_err(|e| format!("`{name}`: {e}"))
                    };
                    let paths = column("file_path", &DataType::Utf8)?;
                    let pos = column("pos", &DataType::Int64)?;
                    let (paths, pos) = (paths.as_string::<i32>(), pos.as_primitive::<Int64Type>());
                    for i in 0..batch.num_rows() {
                        if paths.is_valid(i) && paths.value(i) == self.data_file && pos.is_valid(i)
                        {
                            positions.push(pos.value(i));
                        }
                    }
                }
                Ok(positions)
            })
            .map_err(|e| at(format!("not a readable position delete file: {e}")))?;
            out.extend(rows.into_iter().filter_map(|p| u64::try_from(p).ok()));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `regions` fixture's position delete file deletes row 1 of `eu-pyiceberg.parquet`.
    #[test]
    fn positions_of_this_data_file_only() {
        let fixtures =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify");
        let warehouse = "file:///tmp/fieldgate-verify-warehouse/db/regions/data";
        let deletes = |data_file: &str| Deletes {
            data_file: format!("{warehouse}/{data_file}"),
            position: vec![PositionDeletes {
                path: "eu-position-deletes.parquet".into(),
                local: fixtures.join("regions/data/eu-position-deletes.parquet"),
            }],
            equality: 0,
            other: 0,
            unknown: None,
        };
        assert_eq!(
            deletes("eu-pyiceberg.parquet").deleted_positions().unwrap(),
            BTreeSet::from([1])
        );
        assert!(
            deletes("us-imported.parquet")
                .deleted_positions()
                .unwrap()
                .is_empty()
        );
        let mut not_parquet = deletes("eu-pyiceberg.parquet");
        not_parquet.position[0].local = fixtures.join("expected.json");
        let e = not_parquet.deleted_positions().unwrap_err();
        assert!(
            e.to_string()
                .contains("not a readable position delete file"),
            "{e}"
        );
    }
}
