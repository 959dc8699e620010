//! The human `verify` report: per file, how each table column resolved, the file columns left
//! unread, the rows (with `--rows`), the bytes read against the file size, and what a reader
//! resolving by position would have read instead; a verdict line at the end.

use std::io::Write;

use serde_json::Value;

use crate::plural::counted;
use crate::verify::file_schema::IdSource;
use crate::verify::read::{FileReport, Sink};
use crate::verify::report::{Summary, bytes, io_error};
use crate::verify::resolve::{ColumnReport, Status};

pub struct Human<'a> {
    out: &'a mut dyn Write,
    rows_started: bool,
}

impl<'a> Human<'a> {
    pub fn new(out: &'a mut dyn Write) -> Human<'a> {
        Human {
            out,
            rows_started: false,
        }
    }

    pub fn header(&mut self, summary: &Summary<'_>, files: usize) -> Result<(), String> {
        writeln!(
            self.out,
            "verify {} as schema {} of `{}` (format v{})",
            counted(files, "file"),
            summary.schema_id,
            summary.metadata,
            summary.format_version
        )
        .map_err(io_error)
    }

    pub fn verdict(&mut self, summary: &Summary<'_>) -> Result<(), String> {
        let failed = summary.files.iter().filter(|f| !f.passed()).count();
        let verdict = if failed == 0 { "passed" } else { "failed" };
        let mut not_read: Vec<&str> = Vec::new();
        let not_read_roots = summary.files.iter().flat_map(|f| &f.columns).filter(|c| {
            c.status == Status::NotRead
                && !c
                    .detail
                    .as_deref()
                    .is_some_and(|d| d.starts_with("part of"))
        });
        for c in not_read_roots {
            if !not_read.contains(&c.path.as_str()) {
                not_read.push(&c.path);
            }
        }
        let unverified = if not_read.is_empty() {
            String::new()
        } else {
            format!(
                "; not verified (not read): {}",
                not_read
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        writeln!(
            self.out,
            "\n{verdict}: {}, {} read as schema {}, {} a reader cannot read correctly{unverified}",
            counted(summary.files.len(), "file"),
            counted(summary.rows(), "row"),
            summary.schema_id,
            counted(failed, "file")
        )
        .map_err(io_error)
    }
}

/// The delete files that apply to a data file but are not applied, by kind, with the verb
/// agreeing: "1 equality delete file applies and is NOT applied".
fn not_applied(equality: usize, other: usize) -> String {
    let kinds: Vec<String> = [
        (equality, "equality delete file"),
        (other, "deletion-vector or non-Parquet position delete file"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, kind)| counted(n, kind))
    .collect();
    let verb = match equality + other {
        1 => "applies and is",
        _ => "apply and are",
    };
    format!("{} {verb} NOT applied", kinds.join(" and "))
}

fn column_line(c: &ColumnReport, width: usize) -> String {
    let id = format!("({})", c.field_id);
    let what = match c.status {
        Status::Resolved => {
            let from = match &c.file_column {
                Some(file) if file != &c.path => format!("resolved from `{file}`"),
                _ => "resolved".into(),
            };
            match (&c.file_type, &c.detail) {
                (Some(file_type), Some(why)) => format!("{from}, stored as {file_type}: {why}"),
                _ => from,
            }
        }
        Status::Promoted => format!(
            "promoted {} -> {}{}{}",
            c.file_type.as_deref().unwrap_or("?"),
            c.table_type,
            match &c.file_column {
                Some(file) if file != &c.path => format!(", from `{file}`"),
                _ => String::new(),
            },
            c.detail
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default()
        ),
        Status::MissingNull => match &c.detail {
            Some(d) => format!("not in the file: null ({d})"),
            None => "not in the file: null".into(),
        },
        Status::MissingDefault => format!(
            "not in the file: {}",
            c.detail.as_deref().unwrap_or("its initial-default")
        ),
        Status::PartitionValue => format!(
            "not in the file: {}",
            c.detail
                .as_deref()
                .unwrap_or("its identity-partition value")
        ),
        Status::NotRead => format!(
            "not read: {}",
            c.detail.as_deref().unwrap_or("not verified")
        ),
        Status::Incompatible => format!(
            "INCOMPATIBLE as {}: {}{}",
            c.table_type,
            c.detail.as_deref().unwrap_or(""),
            c.row_group
                .map(|rg| format!(" (a reader fails at row group {rg})"))
                .unwrap_or_default()
        ),
        Status::MissingRequired => format!(
            "MISSING, but required: {}",
            c.detail.as_deref().unwrap_or("")
        ),
    };
    format!("  {:<width$} {id:>6}  {what}", c.path)
}

fn values(values: &[Value]) -> String {
    let shown: Vec<String> = values.iter().map(Value::to_string).collect();
    if shown.is_empty() {
        "no rows".into()
    } else {
        format!("{} ...", shown.join(", "))
    }
}

impl Sink for Human<'_> {
    fn resolved(&mut self, report: &FileReport) -> Result<(), String> {
        let how = match report.ids {
            IdSource::FieldIds => "matched by field id",
            IdSource::NameMapping => "no field ids: matched through the table's name mapping",
            IdSource::None => "no field ids and no name mapping",
        };
        let mut text = format!("\n{}: {how}\n", report.path);
        if let Some(local) = &report.read_from {
            text.push_str(&format!("  (read from `{local}`)\n"));
        }
        if let Some(problem) = &report.problem {
            text.push_str(&format!("  FAILS: {problem}\n"));
        }
        let width = report
            .columns
            .iter()
            .map(|c| c.path.len())
            .max()
            .unwrap_or(0);
        for c in &report.columns {
            text.push_str(&column_line(c, width));
            text.push('\n');
        }
        for p in &report.pruned {
            let id = p
                .field_id
                .map(|id| format!("field {id}, "))
                .unwrap_or_default();
            text.push_str(&format!(
                "  pruned: `{}` ({id}{} of column chunks never read)\n",
                p.file_column,
                bytes(p.chunk_bytes)
            ));
        }
        self.rows_started = false;
        self.out.write_all(text.as_bytes()).map_err(io_error)
    }

    fn row(&mut self, row: Value) -> Result<(), String> {
        if !self.rows_started {
            self.rows_started = true;
            writeln!(self.out, "  rows:").map_err(io_error)?;
        }
        writeln!(self.out, "    {row}").map_err(io_error)
    }

    fn finished(&mut self, report: &FileReport) -> Result<(), String> {
        let mut text = String::new();
        if report.problem.is_none() {
            let share = if report.file_bytes == 0 {
                0.0
            } else {
                100.0 * report.bytes_read as f64 / report.file_bytes as f64
            };
            text.push_str(&format!(
                "  read {}: {} of {} ({share:.0}%)\n",
                counted(report.rows, "row"),
                bytes(report.bytes_read),
                bytes(report.file_bytes),
            ));
        }
        let deletes = &report.deletes;
        // A file no field-id reader can match is not read, so no delete is applied to it either.
        if !deletes.position.is_empty() && report.problem.is_none() {
            text.push_str(&format!(
                "  deletes: {} applied, {} deleted\n",
                counted(deletes.position.len(), "position delete file"),
                counted(report.rows_deleted, "row")
            ));
        }
        if let Some(why) = &deletes.unknown {
            text.push_str(&format!("  deletes: {why}\n"));
        }
        if deletes.not_applied() > 0 {
            text.push_str(&format!(
                "  deletes: {}: these rows include those they delete (Iceberg Java drops them; \
                 pyiceberg 0.12 refuses to scan a table with equality deletes)\n",
                not_applied(deletes.equality, deletes.other)
            ));
        }
        for p in &report.positional {
            let instead = match (&p.by_id, &p.by_id_fill) {
                (Some(file), _) => format!("by field id it reads `{file}`"),
                (None, Some(value)) => format!("by field id it reads {value}"),
                (None, None) => "by field id it reads null".into(),
            };
            let line = match (&p.file_column, &p.file_type) {
                (Some(file), Some(file_type)) => format!(
                    "  by position, `{}` ({}) would read `{file}` ({file_type}) values: {}; {instead}\n",
                    p.table_column,
                    p.table_type,
                    values(&p.values)
                ),
                _ => format!(
                    "  by position, `{}` would read nothing (the file has only {}); {instead}\n",
                    p.table_column,
                    counted(p.position, "column")
                ),
            };
            text.push_str(&line);
        }
        self.out.write_all(text.as_bytes()).map_err(io_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::deletes::{Deletes, PositionDeletes};

    fn report(deletes: Deletes) -> FileReport {
        FileReport {
            path: "d.parquet".into(),
            read_from: None,
            rows: 2,
            bytes_read: 10,
            file_bytes: 20,
            ids: IdSource::FieldIds,
            columns: Vec::new(),
            pruned: Vec::new(),
            positional: Vec::new(),
            positional_bytes_read: 0,
            problem: None,
            deletes,
            rows_deleted: 1,
            rows_printed: 0,
            ranges_read: Vec::new(),
        }
    }

    fn finished(report: &FileReport) -> String {
        let mut out = Vec::new();
        Human::new(&mut out).finished(report).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn deletes_say_what_was_applied_and_what_was_not() {
        let applied = report(Deletes {
            data_file: "d.parquet".into(),
            position: vec![PositionDeletes {
                path: "p.parquet".into(),
                local: "p.parquet".into(),
            }],
            equality: 0,
            other: 0,
            unknown: None,
        });
        let text = finished(&applied);
        assert!(text.contains("deletes: 1 position delete file applied, 1 row deleted"));
        assert!(!text.contains("NOT applied"), "{text}");

        let not_applied = report(Deletes {
            data_file: "d.parquet".into(),
            position: Vec::new(),
            equality: 2,
            other: 1,
            unknown: None,
        });
        let text = finished(&not_applied);
        assert!(
            text.contains("deletes: 2 equality delete files and 1 deletion-vector or non-Parquet position delete file apply and are NOT applied"),
            "{text}"
        );
        assert!(!text.contains("deleted\n"), "{text}");
        assert_eq!(
            super::not_applied(1, 0),
            "1 equality delete file applies and is NOT applied"
        );
    }
}
