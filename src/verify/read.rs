//! Verifying one Parquet file: read its footer through a counting handle, resolve the table schema
//! against it, then really read every row through the arrow reader with a projection mask of only
//! the resolved leaf columns, building the table's values batch by batch (memory stays at one batch
//! and one page per projected column, whatever the file size). Rows go to a sink as they are built.
//! Afterwards, where the file's top-level column order differs from the table's, a second, separate
//! small read shows what a reader resolving by position would have put in each column.
//!
//! Malformed data is an error naming the file and, when a data page fails, the row group and
//! column (found by re-reading the projected columns one row group and column at a time).

use std::collections::BTreeSet;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData};
use serde_json::{Map, Value};

use crate::iceberg::name_mapping::NameMapping;
use crate::iceberg::schema::Field;
use crate::verify::budget::RunBudget;
use crate::verify::counting::CountingFile;
use crate::verify::deletes::Deletes;
use crate::verify::error::{VerifyError, no_panic};
use crate::verify::file_schema::{FileSchema, IdSource};
use crate::verify::positional::{ById, Positional, positional};
use crate::verify::project::Projector;
use crate::verify::resolve::{
    ColumnReport, PartitionValues, Plan, Resolution, Status, resolve, unreadable,
};
use crate::verify::values::value;

const BATCH_ROWS: usize = 1024;

/// The table side of a verification: the schema files are read as, and how ids are found.
pub struct TableView<'a> {
    pub fields: &'a [Field],
    pub format_version: u8,
    pub name_mapping: Option<&'a NameMapping>,
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq)]
pub struct FileReport {
    /// The path as the user or the manifest named it.
    pub path: String,
    /// The local path read, when it differs (a relocated table copy).
    pub read_from: Option<String>,
    pub rows: u64,
    pub bytes_read: u64,
    pub file_bytes: u64,
    pub ids: IdSource,
    pub columns: Vec<ColumnReport>,
    pub pruned: Vec<PrunedColumn>,
    pub positional: Vec<Positional>,
    /// Bytes the positional sample read, counted apart from `bytes_read`.
    pub positional_bytes_read: u64,
    /// Why no field-id reader can read this file at all.
    pub problem: Option<String>,
    /// Delete files of the snapshot that apply to this file.
    pub deletes: Deletes,
    /// Rows the position delete files deleted (not in `rows`, not printed).
    pub rows_deleted: u64,
    pub rows_printed: usize,
    /// The byte ranges of the file the verification read (not the positional sample).
    pub ranges_read: Vec<std::ops::Range<u64>>,
}

impl FileReport {
    pub fn passed(&self) -> bool {
        self.problem.is_none() && !self.columns.iter().any(|c| c.status.fails())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct PrunedColumn {
    pub file_column: String,
    pub field_id: Option<i32>,
    /// The compressed size of its column chunks (from the footer): bytes never read.
    pub chunk_bytes: u64,
}

/// Receives a file's report as soon as its columns are resolved, each row as it is built, and
/// the finished report.
pub trait Sink {
    fn resolved(&mut self, report: &FileReport) -> Result<(), String>;
    fn row(&mut self, row: Value) -> Result<(), String>;
    fn finished(&mut self, report: &FileReport) -> Result<(), String>;
}

pub struct Request<'a> {
    /// The path to show.
    pub path: String,
    /// The local file to read.
    pub local: &'a Path,
    /// Rows to print from this file (`None`: all).
    pub rows: Option<usize>,
    /// What the file's manifest entry says of identity-partition source fields.
    pub partition: &'a PartitionValues,
    pub deletes: &'a Deletes,
    /// What is left of the run's Parquet budget.
    pub budget: &'a RunBudget,
}

pub fn verify_file(
    table: &TableView<'_>,
    request: &Request<'_>,
    sink: &mut dyn Sink,
) -> Result<FileReport, VerifyError> {
    let opened = Opened::open(request)?;
    let file_schema =
        FileSchema::from_parquet(opened.metadata.parquet_schema(), table.name_mapping);
    let mut report = opened.report(request, file_schema.ids);
    if file_schema.ids == IdSource::None {
        return unmatched(table, &opened, &file_schema, report, sink);
    }
    let resolution = resolve(
        table.fields,
        &file_schema,
        table.format_version,
        request.partition,
    )
    .map_err(|e| opened.at(e.0))?;
    describe(&mut report, &resolution, opened.metadata.metadata());
    sink.resolved(&report).map_err(|e| opened.at(e))?;

    let scan = Scan {
        table,
        file_schema: &file_schema,
        resolution: &resolution,
        deleted: request.deletes.deleted_positions()?,
        print: report.passed(),
        limit: request.rows.unwrap_or(usize::MAX),
    };
    scan.read(&opened, &mut report, sink)?;
    report.bytes_read = opened.file.bytes_read();
    report.ranges_read = opened.file.ranges_read();

    let by_id: Vec<ById> = resolution
        .sources
        .iter()
        .zip(&resolution.plans)
        .map(|(column, plan)| ById {
            column: *column,
            fill: match plan {
                Plan::Fill(value) => value.clone(),
                Plan::Read(_) => None,
            },
        })
        .collect();
    let (positional, bytes) = positional(table, &file_schema, &by_id, &opened)?;
    report.positional = positional;
    report.positional_bytes_read = bytes;
    sink.finished(&report).map_err(|e| opened.at(e))?;
    Ok(report)
}

/// One file opened for verification: its footer measured against the run's budget, decoded,
/// and its rows taken from the budget.
pub struct Opened<'a> {
    pub path: String,
    local: &'a Path,
    budget: &'a RunBudget,
    /// The handle page headers are measured through, so that what the report says was read
    /// stays what the reader read.
    raw: File,
    pub file: CountingFile,
    pub metadata: ArrowReaderMetadata,
    /// The rows the footer declares, within the run's budget.
    pub rows: u64,
}

impl<'a> Opened<'a> {
    fn open(request: &Request<'a>) -> Result<Opened<'a>, VerifyError> {
        let path = request.path.clone();
        let at = |message: String| VerifyError::file(path.clone(), message);
        let mut raw = File::open(request.local)
            .map_err(|e| at(format!("cannot open `{}`: {e}", request.local.display())))?;
        request.budget.check_footer(&path, &mut raw)?;
        let file = counting(&path, request.local)?;
        let options = ArrowReaderOptions::new()
            .with_skip_arrow_metadata(true)
            .with_page_index_policy(PageIndexPolicy::Skip);
        let metadata = no_panic(|| {
            ArrowReaderMetadata::load(&file, options.clone()).map_err(|e| e.to_string())
        })
        .map_err(|e| {
            at(format!("not a readable Parquet file: {e}"))
                .with_help("the file is truncated, corrupt, or not Parquet: no reader can open it")
        })?;
        check_chunk_ranges(metadata.metadata()).map_err(|e| {
            at(format!("not a readable Parquet file: {e}"))
                .with_help("the footer is corrupt: no reader can locate this column's data")
        })?;
        file.set_chunks(metadata.metadata());
        let rows = request.budget.take_rows(&path, metadata.metadata())?;
        Ok(Opened {
            path,
            local: request.local,
            budget: request.budget,
            raw,
            file,
            metadata,
            rows,
        })
    }

    pub fn at(&self, message: String) -> VerifyError {
        VerifyError::file(self.path.clone(), message)
    }

    /// A fresh counting handle on the same file, for a read counted apart.
    pub fn reopen(&self) -> Result<CountingFile, VerifyError> {
        counting(&self.path, self.local)
    }

    /// Bounds the pages of `leaves` before they are read; `charge` takes them from the run's
    /// totals too.
    pub fn guard(&self, leaves: &[usize], charge: bool) -> Result<(), VerifyError> {
        let meta = self.metadata.metadata();
        self.budget
            .check_pages(&self.path, &self.raw, meta, leaves, charge)
    }

    fn report(&self, request: &Request<'_>, ids: IdSource) -> FileReport {
        FileReport {
            path: self.path.clone(),
            read_from: (Path::new(&self.path) != request.local)
                .then(|| request.local.display().to_string()),
            rows: 0,
            bytes_read: 0,
            file_bytes: self.file.file_len(),
            ids,
            columns: Vec::new(),
            pruned: Vec::new(),
            positional: Vec::new(),
            positional_bytes_read: 0,
            problem: None,
            deletes: request.deletes.clone(),
            rows_deleted: 0,
            rows_printed: 0,
            ranges_read: Vec::new(),
        }
    }
}

fn counting(path: &str, local: &Path) -> Result<CountingFile, VerifyError> {
    let at = |message: String| VerifyError::file(path, message);
    let handle =
        File::open(local).map_err(|e| at(format!("cannot open `{}`: {e}", local.display())))?;
    CountingFile::new(handle).map_err(|e| at(format!("cannot read: {e}")))
}

/// A file without field ids in a table without a name mapping: no field-id reader matches its
/// columns, so only what a reader resolving by position would read is shown.
fn unmatched(
    table: &TableView<'_>,
    opened: &Opened<'_>,
    file_schema: &FileSchema,
    mut report: FileReport,
    sink: &mut dyn Sink,
) -> Result<FileReport, VerifyError> {
    report.problem = Some(
        "the file has no field ids and the table has no name mapping (`schema.name-mapping.default`): \
         a field-id reader cannot match its columns. PyIceberg refuses the file; Iceberg Java reads \
         it by position, as shown below"
            .into(),
    );
    sink.resolved(&report).map_err(|e| opened.at(e))?;
    report.rows = opened.rows;
    let none = vec![ById::default(); table.fields.len()];
    let (positional, bytes) = positional(table, file_schema, &none, opened)?;
    report.positional = positional;
    report.positional_bytes_read = bytes;
    report.bytes_read = opened.file.bytes_read();
    report.ranges_read = opened.file.ranges_read();
    sink.finished(&report).map_err(|e| opened.at(e))?;
    Ok(report)
}

/// The resolved columns, and the pruned ones with the bytes never read.
fn describe(report: &mut FileReport, resolution: &Resolution, meta: &ParquetMetaData) {
    let first_row_group = meta
        .row_groups()
        .iter()
        .position(|rg| rg.num_rows() > 0)
        .unwrap_or(0);
    report.columns = resolution.columns.clone();
    for c in &mut report.columns {
        if c.status == Status::Incompatible {
            c.row_group = Some(first_row_group);
        }
    }
    report.pruned = resolution
        .pruned
        .iter()
        .map(|p| PrunedColumn {
            file_column: p.file_column.clone(),
            field_id: p.field_id,
            chunk_bytes: chunk_bytes(meta, p.leaves.clone()),
        })
        .collect();
}

/// Reading every row of the resolved columns, batch by batch.
struct Scan<'a> {
    table: &'a TableView<'a>,
    file_schema: &'a FileSchema,
    resolution: &'a Resolution,
    deleted: BTreeSet<u64>,
    /// Whether rows are shown (a failing file's are not).
    print: bool,
    limit: usize,
}

impl Scan<'_> {
    fn read(
        &self,
        opened: &Opened<'_>,
        report: &mut FileReport,
        sink: &mut dyn Sink,
    ) -> Result<(), VerifyError> {
        let leaves: Vec<usize> = self.resolution.leaves.iter().copied().collect();
        opened.guard(&leaves, true)?;
        let projector = Projector {
            file_columns: &self.file_schema.columns,
            leaves: &self.resolution.leaves,
            fields: self.table.fields,
            plans: &self.resolution.plans,
        };
        let mut scanned: u64 = 0;
        let mut on_batch = |batch: &RecordBatch| -> Result<(), String> {
            let first = scanned;
            scanned += batch.num_rows() as u64;
            if scanned > opened.rows {
                return Err(format!(
                    "the column chunks hold more rows than the {} the footer promises",
                    opened.rows
                ));
            }
            self.rows(
                &projector.project(batch)?,
                first,
                batch.num_rows(),
                report,
                sink,
            )
        };
        let read = no_panic(|| {
            if leaves.is_empty() {
                filled_batches(opened.rows, &mut on_batch)
            } else {
                self.batches(opened, &mut on_batch)
            }
        });
        if let Err(message) = read {
            let reopen = || opened.reopen();
            let (metadata, path) = (&opened.metadata, &opened.path);
            return Err(locate(
                &message,
                path,
                metadata,
                self.resolution,
                self.file_schema,
                reopen,
            ));
        }
        if scanned != opened.rows {
            return Err(opened.at(format!(
                "the footer promises {} rows, the column chunks held {scanned}",
                opened.rows
            )));
        }
        Ok(())
    }

    fn batches(
        &self,
        opened: &Opened<'_>,
        on_batch: &mut dyn FnMut(&RecordBatch) -> Result<(), String>,
    ) -> Result<(), String> {
        let descr = opened.metadata.parquet_schema();
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(
            opened.file.clone(),
            opened.metadata.clone(),
        )
        .with_projection(ProjectionMask::leaves(
            descr,
            self.resolution.leaves.iter().copied(),
        ))
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|e| e.to_string())?;
        for batch in reader {
            on_batch(&batch.map_err(|e| e.to_string())?)?;
        }
        Ok(())
    }

    /// The `count` rows of one batch whose first row is the file's row `first`.
    fn rows(
        &self,
        columns: &[ArrayRef],
        first: u64,
        count: usize,
        report: &mut FileReport,
        sink: &mut dyn Sink,
    ) -> Result<(), String> {
        for row in 0..count {
            if self.deleted.contains(&(first + row as u64)) {
                report.rows_deleted += 1;
                continue;
            }
            report.rows += 1;
            if !self.print || report.rows_printed >= self.limit {
                continue;
            }
            let mut object = Map::new();
            let shown = self.table.fields.iter().zip(columns);
            for (field, column) in shown.filter(|(f, _)| unreadable(&f.field_type).is_none()) {
                object.insert(
                    field.name.clone(),
                    value(column.as_ref(), row, Some(&field.field_type)),
                );
            }
            sink.row(Value::Object(object))?;
            report.rows_printed += 1;
        }
        Ok(())
    }
}

/// Nothing to read: every column is filled, and the rows are the footer's count, which the
/// run's budget bounds.
fn filled_batches(
    rows: u64,
    on_batch: &mut dyn FnMut(&RecordBatch) -> Result<(), String>,
) -> Result<(), String> {
    let mut left = usize::try_from(rows).unwrap_or(usize::MAX);
    while left > 0 {
        let n = left.min(BATCH_ROWS);
        let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(n));
        let batch = RecordBatch::try_new_with_options(
            Arc::new(arrow_schema::Schema::empty()),
            vec![],
            &options,
        )
        .map_err(|e| e.to_string())?;
        on_batch(&batch)?;
        left -= n;
    }
    Ok(())
}

/// Every column chunk's range in the footer must be non-negative: the parquet crate's
/// `byte_range` asserts (panics) otherwise, and a corrupt footer can say anything (found by the
/// `parquet` fuzz target). Checked once here, so the code after may use `byte_range`.
fn check_chunk_ranges(meta: &ParquetMetaData) -> Result<(), String> {
    for (group, row_group) in meta.row_groups().iter().enumerate() {
        for chunk in row_group.columns() {
            let start = chunk
                .dictionary_page_offset()
                .unwrap_or(chunk.data_page_offset());
            if start < 0 || chunk.compressed_size() < 0 {
                return Err(format!(
                    "row group {group}, column `{}`: the footer gives a negative offset ({start}) or size ({})",
                    chunk.column_path().string(),
                    chunk.compressed_size()
                ));
            }
        }
    }
    Ok(())
}

fn chunk_bytes(meta: &ParquetMetaData, leaves: std::ops::Range<usize>) -> u64 {
    meta.row_groups()
        .iter()
        .flat_map(|rg| leaves.clone().filter_map(move |i| rg.columns().get(i)))
        .map(|c| c.byte_range().1)
        .sum()
}

/// Finds the row group and top-level column a read failed in, by reading the projected leaves of
/// one column of one row group at a time.
fn locate(
    message: &str,
    path: &str,
    metadata: &ArrowReaderMetadata,
    resolution: &Resolution,
    file_schema: &FileSchema,
    open: impl Fn() -> Result<CountingFile, VerifyError>,
) -> VerifyError {
    let mut error = VerifyError::file(path, format!("cannot read the data: {message}"))
        .with_help("the file is corrupt: a reader of this table fails on it");
    let descr = metadata.parquet_schema();
    for rg in 0..metadata.metadata().num_row_groups() {
        for column in &file_schema.columns {
            let leaves: Vec<usize> = resolution
                .leaves
                .range(column.leaves.clone())
                .copied()
                .collect();
            if leaves.is_empty() {
                continue;
            }
            let Ok(file) = open() else {
                return error;
            };
            let attempt = no_panic(|| {
                let reader =
                    ParquetRecordBatchReaderBuilder::new_with_metadata(file, metadata.clone())
                        .with_projection(ProjectionMask::leaves(descr, leaves))
                        .with_row_groups(vec![rg])
                        .build()
                        .map_err(|e| e.to_string())?;
                for batch in reader {
                    batch.map_err(|e| e.to_string())?;
                }
                Ok(())
            });
            if let Err(e) = attempt {
                error.row_group = Some(rg);
                error.column = Some(column.path.clone());
                error.message = format!("cannot read the data: {e}");
                return error;
            }
        }
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::input::load_table;

    struct Rows(Vec<Value>);

    impl Sink for Rows {
        fn resolved(&mut self, _: &FileReport) -> Result<(), String> {
            Ok(())
        }
        fn row(&mut self, row: Value) -> Result<(), String> {
            self.0.push(row);
            Ok(())
        }
        fn finished(&mut self, _: &FileReport) -> Result<(), String> {
            Ok(())
        }
    }

    /// The chunks of a dropped column are never touched: no range the handle read overlaps them.
    #[test]
    fn pruned_column_chunks_are_never_read() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify");
        let table = load_table(&fixtures.join("people")).unwrap();
        let schema = table.metadata.current_schema();
        let view = TableView {
            fields: &schema.fields,
            format_version: table.metadata.format_version,
            name_mapping: table.metadata.name_mapping.as_ref(),
        };
        let local = fixtures.join("people/data/s0-pyiceberg.parquet");
        let request = Request {
            path: "s0".into(),
            local: &local,
            rows: Some(1),
            partition: &PartitionValues::new(),
            deletes: &Deletes::default(),
            budget: &RunBudget::new(Default::default()),
        };
        let mut rows = Rows(Vec::new());
        let report = verify_file(&view, &request, &mut rows).unwrap();
        assert_eq!((report.rows, rows.0.len()), (3, 1));

        let file = File::open(&local).unwrap();
        let meta = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new()).unwrap();
        let descr = meta.parquet_schema();
        let pruned: Vec<std::ops::Range<u64>> = meta
            .metadata()
            .row_groups()
            .iter()
            .flat_map(|rg| rg.columns().iter())
            .filter(|c| {
                let path = c.column_path().string();
                path == "legacy" || path == "points.list.element.y"
            })
            .map(|c| {
                let (start, len) = c.byte_range();
                start..start + len
            })
            .collect();
        assert_eq!(pruned.len(), 4, "two columns in two row groups: {descr:?}");
        for read in &report.ranges_read {
            for chunk in &pruned {
                assert!(
                    read.end <= chunk.start || chunk.end <= read.start,
                    "read {read:?} overlaps pruned chunk {chunk:?}"
                );
            }
        }
        let never_read: u64 = pruned.iter().map(|r| r.end - r.start).sum();
        assert!(report.bytes_read + never_read <= report.file_bytes);
    }
}
