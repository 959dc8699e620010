//! Reader verification inside the gate: once the rules pass, `apply` and `check` read the table's
//! sample data files as a field-id reader reads them under the schema the change produces (the
//! same reads as `fieldgate verify`, rows counted but not printed), and every column a reader
//! would fail on, or a file no reader can match, becomes a `reader-verification` finding.

use std::path::PathBuf;

use serde_json::Value;

use crate::change::Origin;
use crate::finding::{Finding, Severity};
use crate::iceberg::metadata::TableMetadata;
use crate::verify::budget::RunBudget;
use crate::verify::deletes::Deletes;
use crate::verify::error::VerifyError;
use crate::verify::listed::{look_up, manifest_entries};
use crate::verify::read::{FileReport, Request, Sink, TableView, verify_file};
use crate::verify::resolve::{ColumnReport, PartitionValues, Status};
use crate::verify::sample::{DataFile, Locator, ManifestError, current_files, pick};

pub const RULE: &str = "reader-verification";

/// A data file to verify.
#[derive(Debug, Clone)]
pub struct SampleFile {
    /// The path reports show (repository-relative, as given, or as the manifest names it).
    pub path: String,
    /// Where it is read from.
    pub local: PathBuf,
    /// What asked for it (its `sample:` entry in fieldgate.yaml), where findings about it point.
    pub origin: Option<Origin>,
    /// From its manifest entry (sampled from the manifests, or a listed file looked up in them):
    /// identity-partition values and the delete files that apply.
    pub partition: PartitionValues,
    pub deletes: Deletes,
}

impl SampleFile {
    /// A file named by path, before it is [`looked_up`] in the manifests.
    pub fn listed(path: String, local: PathBuf, origin: Option<Origin>) -> SampleFile {
        SampleFile {
            path,
            local,
            origin,
            partition: PartitionValues::new(),
            deletes: Deletes::default(),
        }
    }

    fn from_manifest(file: DataFile, origin: Option<Origin>) -> SampleFile {
        SampleFile {
            path: file.path,
            local: file.local,
            origin,
            partition: file.partition,
            deletes: file.deletes,
        }
    }
}

/// The sample read under the new schema.
#[derive(Debug, Clone)]
pub struct Verification {
    pub schema_id: i32,
    pub files: Vec<FileReport>,
}

impl Verification {
    pub fn passed(&self) -> bool {
        self.files.iter().all(FileReport::passed)
    }

    pub fn rows(&self) -> u64 {
        self.files.iter().map(|f| f.rows).sum()
    }
}

/// Up to `n` data files of the table's current snapshot, from its manifests, one per schema id
/// they were written under first (see `verify --sample`); none when the table has no snapshot yet.
pub fn from_manifests(
    metadata_text: &str,
    metadata: &TableMetadata,
    locator: &Locator<'_>,
    n: usize,
    origin: Option<&Origin>,
) -> Result<Vec<SampleFile>, ManifestError> {
    if metadata.current_snapshot_id.is_none() {
        return Ok(Vec::new());
    }
    let files = pick(current_files(metadata_text, metadata, locator)?, n);
    for file in &files {
        locator.fetch(&file.path)?;
        for delete in &file.deletes.position {
            locator.fetch(&delete.path)?;
        }
    }
    Ok(files
        .into_iter()
        .map(|f| SampleFile::from_manifest(f, origin.cloned()))
        .collect())
}

/// Files named by path, each with what the current snapshot's manifests say of it, exactly as
/// `fieldgate verify FILES` reads them. Manifests that cannot be read leave that unknown; a path
/// leading outside the locator's confinement is an error.
pub fn looked_up(
    files: Vec<SampleFile>,
    metadata_text: &str,
    metadata: &TableMetadata,
    locator: &Locator<'_>,
) -> Result<Vec<SampleFile>, ManifestError> {
    let known = manifest_entries(metadata_text, metadata, locator);
    if let Err(outside @ ManifestError::Outside(_)) = known {
        return Err(outside);
    }
    Ok(files
        .into_iter()
        .map(|f| SampleFile::from_manifest(look_up(&f.path, f.local, &known, metadata), f.origin))
        .collect())
}

/// Reads every file of `sample` under the current schema of `new`; the findings are at
/// `severity`, about `table`. An unreadable file (truncated, corrupt) is an error, not a finding.
pub fn verify(
    table: &str,
    new: &TableMetadata,
    sample: &[SampleFile],
    severity: Severity,
) -> Result<(Verification, Vec<Finding>), VerifyError> {
    let schema = new.current_schema();
    let view = TableView {
        fields: &schema.fields,
        format_version: new.format_version,
        name_mapping: new.name_mapping.as_ref(),
    };
    let mut files = Vec::new();
    let mut findings = Vec::new();
    for file in sample {
        let request = Request {
            path: file.path.clone(),
            local: &file.local,
            rows: Some(0),
            partition: &file.partition,
            deletes: &file.deletes,
            budget: RunBudget::process(),
        };
        let report = verify_file(&view, &request, &mut Quiet)?;
        findings.extend(file_findings(
            table,
            schema.schema_id,
            &report,
            file.origin.as_ref(),
            severity,
        ));
        files.push(report);
    }
    Ok((
        Verification {
            schema_id: schema.schema_id,
            files,
        },
        findings,
    ))
}

/// The reports of a gate need no rows: they are read and counted, not kept.
struct Quiet;

impl Sink for Quiet {
    fn resolved(&mut self, _: &FileReport) -> Result<(), String> {
        Ok(())
    }
    fn row(&mut self, _: Value) -> Result<(), String> {
        Ok(())
    }
    fn finished(&mut self, _: &FileReport) -> Result<(), String> {
        Ok(())
    }
}

fn file_findings(
    table: &str,
    schema_id: i32,
    report: &FileReport,
    origin: Option<&Origin>,
    severity: Severity,
) -> Vec<Finding> {
    let finding = |message: String, help: &str, column: Option<&ColumnReport>| Finding {
        rule: RULE,
        severity,
        message: format!(
            "{table}: `{}` does not read as schema {schema_id}: {message}",
            report.path
        ),
        table: table.to_string(),
        field: column.map(|c| c.path.clone()),
        field_id: column.map(|c| c.field_id),
        origin: origin.cloned(),
        help: Some(help.to_string()),
        related: Vec::new(),
    };
    let mut out = Vec::new();
    if let Some(problem) = &report.problem {
        out.push(finding(
            problem.clone(),
            "set the table's name mapping (`schema.name-mapping.default`), or rewrite the file with field ids",
            None,
        ));
    }
    for column in report.columns.iter().filter(|c| c.status.fails()) {
        let field = format!("`{}` (field id {})", column.path, column.field_id);
        let (message, help) = match column.status {
            Status::Incompatible => (
                format!(
                    "{field} is {} in the table, but {}{}",
                    column.table_type,
                    column
                        .detail
                        .as_deref()
                        .unwrap_or("the file stores another type"),
                    column
                        .row_group
                        .map(|rg| format!(" (a reader fails at row group {rg})"))
                        .unwrap_or_default()
                ),
                "keep the type the data files hold, or add a new column and backfill it",
            ),
            _ => (
                format!(
                    "{field} is required, but the file does not hold it and no initial-default fills it"
                ),
                "keep the field optional until every data file holds it, or give it an initial-default (format v3)",
            ),
        };
        out.push(finding(message, help, Some(column)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::file_schema::IdSource;

    fn column(path: &str, id: i32, status: Status, detail: Option<&str>) -> ColumnReport {
        ColumnReport {
            path: path.into(),
            field_id: id,
            status,
            table_type: "int".into(),
            file_column: None,
            file_type: None,
            detail: detail.map(str::to_string),
            row_group: Some(2).filter(|_| status == Status::Incompatible),
        }
    }

    fn report(columns: Vec<ColumnReport>, problem: Option<&str>) -> FileReport {
        FileReport {
            path: "data/a.parquet".into(),
            read_from: None,
            rows: 3,
            bytes_read: 10,
            file_bytes: 20,
            ids: IdSource::FieldIds,
            columns,
            pruned: Vec::new(),
            positional: Vec::new(),
            positional_bytes_read: 0,
            problem: problem.map(str::to_string),
            deletes: Deletes::default(),
            rows_deleted: 0,
            rows_printed: 0,
            ranges_read: Vec::new(),
        }
    }

    #[test]
    fn every_failing_column_and_file_problem_is_a_finding() {
        let file = report(
            vec![
                column("id", 1, Status::Resolved, None),
                column(
                    "age",
                    2,
                    Status::Incompatible,
                    Some("the file stores string"),
                ),
                column("tier", 3, Status::MissingRequired, None),
                column("vip", 4, Status::MissingNull, None),
            ],
            None,
        );
        let findings = file_findings("db.t", 7, &file, None, Severity::Warning);
        let seen: Vec<(Option<&str>, Option<i32>, &str)> = findings
            .iter()
            .map(|f| (f.field.as_deref(), f.field_id, f.message.as_str()))
            .collect();
        assert_eq!(
            seen,
            [
                (
                    Some("age"),
                    Some(2),
                    "db.t: `data/a.parquet` does not read as schema 7: `age` (field id 2) is int in the table, but the file stores string (a reader fails at row group 2)"
                ),
                (
                    Some("tier"),
                    Some(3),
                    "db.t: `data/a.parquet` does not read as schema 7: `tier` (field id 3) is required, but the file does not hold it and no initial-default fills it"
                ),
            ]
        );
        assert!(
            findings
                .iter()
                .all(|f| f.rule == RULE && f.severity == Severity::Warning)
        );

        let unmatched = report(Vec::new(), Some("no field ids"));
        let findings = file_findings("db.t", 7, &unmatched, None, Severity::Error);
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].field, None);
        assert!(findings[0].message.ends_with("schema 7: no field ids"));
        assert!(
            file_findings("db.t", 7, &report(Vec::new(), None), None, Severity::Error).is_empty()
        );
    }
}
