//! The positional counterfactual of a verification: per top-level table column, the file column
//! a reader resolving by position (Iceberg Java on a file without field ids, or any reader that
//! ignores them) would read, where that is not the one the field-id reader reads, with the first
//! few values it would show. It is read through its own counting handle, apart from the rows.

use arrow_array::RecordBatch;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;

use crate::verify::error::{VerifyError, no_panic};
use crate::verify::file_schema::{FileNode, FileSchema};
use crate::verify::read::{Opened, TableView};
use crate::verify::values::value;

/// Values shown per column in the positional counterfactual.
pub const POSITIONAL_SAMPLE: usize = 3;

/// One top-level table column that a reader resolving by position reads from another file column.
#[derive(Debug, Clone, PartialEq)]
pub struct Positional {
    pub position: usize,
    pub table_column: String,
    pub table_type: String,
    /// The file column at the same position (`None`: the file has fewer columns).
    pub file_column: Option<String>,
    pub file_type: Option<String>,
    /// The file column the field-id reader reads instead (`None`: it reads `by_id_fill`).
    pub by_id: Option<String>,
    /// What the field-id reader puts in every row when it reads no column (`None`: null).
    pub by_id_fill: Option<Value>,
    pub values: Vec<Value>,
}

/// What a field-id reader gives a top-level table field: a file column, or else one value (a
/// default or a partition value; `None`: null) for every row.
#[derive(Debug, Clone, Default)]
pub struct ById {
    pub column: Option<usize>,
    pub fill: Option<Value>,
}

/// The columns read differently by position, with their sample values, and the bytes the
/// sample read.
pub fn positional(
    table: &TableView<'_>,
    file_schema: &FileSchema,
    sources: &[ById],
    opened: &Opened<'_>,
) -> Result<(Vec<Positional>, u64), VerifyError> {
    let columns = &file_schema.columns;
    let mut out = differences(table, file_schema, sources);
    let roots: Vec<usize> = out
        .iter()
        .filter(|p| p.file_column.is_some())
        .map(|p| p.position)
        .collect();
    if roots.is_empty() {
        return Ok((out, 0));
    }
    let leaves: Vec<usize> = roots
        .iter()
        .filter_map(|r| columns.get(*r))
        .flat_map(|c| c.leaves.clone())
        .collect();
    // A few rows only: each page is bounded, the run's totals are not charged.
    opened.guard(&leaves, false)?;
    let file = opened.reopen()?;
    let sample = no_panic(|| {
        let descr = opened.metadata.parquet_schema();
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(
            file.clone(),
            opened.metadata.clone(),
        )
        .with_projection(ProjectionMask::roots(descr, roots.iter().copied()))
        .with_batch_size(POSITIONAL_SAMPLE)
        .with_limit(POSITIONAL_SAMPLE)
        .build()
        .map_err(|e| e.to_string())?;
        reader
            .map(|batch| batch.map_err(|e| e.to_string()))
            .collect::<Result<Vec<RecordBatch>, String>>()
    })
    .map_err(|e| opened.at(format!("cannot read the data: {e}")))?;
    for (k, root) in roots.iter().enumerate() {
        let file_type = columns.get(*root).and_then(FileNode::iceberg_type);
        let values: Vec<Value> = sample
            .iter()
            .flat_map(|batch| {
                let column = batch.column(k).clone();
                let file_type = file_type.clone();
                (0..batch.num_rows()).map(move |r| value(column.as_ref(), r, file_type.as_ref()))
            })
            .take(POSITIONAL_SAMPLE)
            .collect();
        if let Some(p) = out.iter_mut().find(|p| p.position == *root) {
            p.values = values;
        }
    }
    Ok((out, file.bytes_read()))
}

/// The top-level table columns whose file column at the same position is not what the field-id
/// reader reads for them.
fn differences(
    table: &TableView<'_>,
    file_schema: &FileSchema,
    sources: &[ById],
) -> Vec<Positional> {
    let columns = &file_schema.columns;
    let mut out = Vec::new();
    for (i, (field, by_id)) in table.fields.iter().zip(sources).enumerate() {
        let source = by_id.column;
        let at_position = columns.get(i).filter(|c| !c.leaves.is_empty());
        if at_position.map(|_| i) == source || (at_position.is_none() && source.is_none()) {
            continue;
        }
        out.push(Positional {
            position: i,
            table_column: field.name.clone(),
            table_type: field.field_type.to_string(),
            file_column: at_position.map(|c| c.path.clone()),
            file_type: at_position.map(FileNode::type_name),
            by_id: source.and_then(|s| columns.get(s)).map(|c| c.path.clone()),
            by_id_fill: by_id.fill.clone().filter(|_| source.is_none()),
            values: Vec::new(),
        });
    }
    out
}
