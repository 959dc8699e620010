//! The `verify` JSON document (`"version": 1`). Rows are spilled to an anonymous
//! temporary file as they are read and copied into the document at the end, so the keys keep the
//! contract's order (`passed` first, `rows` last) and memory stays bounded.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};

use serde_json::{Map, Value, json};

use crate::verify::file_schema::IdSource;
use crate::verify::positional::Positional;
use crate::verify::read::{FileReport, Sink};
use crate::verify::report::{Summary, io_error};
use crate::verify::resolve::{ColumnReport, Status};

pub struct Json {
    spill: BufWriter<File>,
    rows: u64,
}

impl Json {
    pub fn new() -> Result<Json, String> {
        let file =
            tempfile::tempfile().map_err(|e| format!("cannot create a temporary file: {e}"))?;
        Ok(Json {
            spill: BufWriter::new(file),
            rows: 0,
        })
    }

    pub fn write(self, summary: &Summary<'_>, out: &mut dyn Write) -> Result<(), String> {
        let head = json!({
            "version": 1,
            "passed": summary.passed(),
            "schema_id": summary.schema_id,
            "files": summary.files.iter().map(file).collect::<Vec<_>>(),
            "columns": summary.columns,
            "rows": [],
        });
        let text = serde_json::to_string_pretty(&head).map_err(|e| e.to_string())?;
        let io = io_error;
        if self.rows == 0 {
            return writeln!(out, "{text}").map_err(io);
        }
        let Some(without_rows) = text.strip_suffix("\"rows\": []\n}") else {
            return Err("unexpected JSON layout".into());
        };
        write!(out, "{without_rows}\"rows\": [").map_err(io)?;
        let mut spill = self
            .spill
            .into_inner()
            .map_err(|e| io_error(e.into_error()))?;
        spill.seek(SeekFrom::Start(0)).map_err(io)?;
        for (i, line) in BufReader::new(spill).lines().enumerate() {
            let separator = if i == 0 { "" } else { "," };
            write!(out, "{separator}\n    {}", line.map_err(io)?).map_err(io)?;
        }
        writeln!(out, "\n  ]\n}}").map_err(io)
    }
}

impl Sink for Json {
    fn resolved(&mut self, _report: &FileReport) -> Result<(), String> {
        Ok(())
    }

    fn row(&mut self, row: Value) -> Result<(), String> {
        self.rows += 1;
        writeln!(self.spill, "{row}").map_err(io_error)
    }

    fn finished(&mut self, _report: &FileReport) -> Result<(), String> {
        Ok(())
    }
}

/// One file's report as the document's `files` hold it (also embedded in `apply`'s and
/// `check`'s JSON report).
pub fn file(f: &FileReport) -> Value {
    let mut m = Map::new();
    m.insert("path".into(), f.path.clone().into());
    if let Some(local) = &f.read_from {
        m.insert("read_from".into(), local.clone().into());
    }
    m.insert("rows".into(), f.rows.into());
    m.insert("bytes_read".into(), f.bytes_read.into());
    m.insert("file_bytes".into(), f.file_bytes.into());
    let ids = match f.ids {
        IdSource::FieldIds => "field-ids",
        IdSource::NameMapping => "name-mapping",
        IdSource::None => "none",
    };
    m.insert("ids".into(), ids.into());
    if let Some(problem) = &f.problem {
        m.insert("problem".into(), problem.clone().into());
    }
    if f.deletes.any() {
        m.insert("deletes".into(), deletes(f));
    }
    m.insert(
        "columns".into(),
        f.columns.iter().map(column).collect::<Vec<_>>().into(),
    );
    m.insert(
        "pruned".into(),
        f.pruned
            .iter()
            .map(|p| json!({"field_id": p.field_id, "file_column": p.file_column, "chunk_bytes": p.chunk_bytes}))
            .collect::<Vec<_>>()
            .into(),
    );
    m.insert(
        "positional".into(),
        f.positional
            .iter()
            .map(positional)
            .collect::<Vec<_>>()
            .into(),
    );
    m.insert(
        "positional_bytes_read".into(),
        f.positional_bytes_read.into(),
    );
    m.insert("rows_printed".into(), f.rows_printed.into());
    Value::Object(m)
}

/// The file's delete files: how many rows the position deletes removed, and what was not applied.
fn deletes(f: &FileReport) -> Value {
    json!({
        "position_files": f.deletes.position.len(),
        "rows_deleted": f.rows_deleted,
        "not_applied": {"equality_files": f.deletes.equality, "other_files": f.deletes.other},
        "unknown": f.deletes.unknown,
    })
}

/// A column a reader resolving by position would read differently.
fn positional(p: &Positional) -> Value {
    let mut entry = json!({
        "position": p.position,
        "column": p.table_column,
        "table_type": p.table_type,
        "file_column": p.file_column,
        "file_type": p.file_type,
        "by_id": p.by_id,
        "values": p.values,
    });
    if let (Some(value), Some(object)) = (&p.by_id_fill, entry.as_object_mut()) {
        object.insert("by_id_value".into(), value.clone());
    }
    entry
}

fn column(c: &ColumnReport) -> Value {
    let mut m = Map::new();
    m.insert("path".into(), c.path.clone().into());
    m.insert("field_id".into(), c.field_id.into());
    m.insert("status".into(), c.status.as_str().into());
    if let Some(file) = &c.file_column {
        m.insert("file_column".into(), file.clone().into());
    }
    if let Some(file_type) = &c.file_type {
        m.insert("file_type".into(), file_type.clone().into());
    }
    if matches!(c.status, Status::Promoted | Status::Incompatible) {
        m.insert("table_type".into(), c.table_type.clone().into());
    }
    if let Some(detail) = &c.detail {
        m.insert("detail".into(), detail.clone().into());
    }
    if let Some(rg) = c.row_group {
        m.insert("row_group".into(), rg.into());
    }
    Value::Object(m)
}
