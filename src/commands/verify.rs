//! `fieldgate verify`: read sample Parquet files as the table would be read by a field-id reader
//! (its current schema, or `--schema-id`), and report per file and column how each field resolved,
//! with the rows read (`--rows`). Exit 0 when every file reads correctly, 1 when a reader would
//! fail or fill a required column, 2 when a file is not readable Parquet at all. What it reads is
//! bounded by the limits of the `fieldgate.yaml` it finds (else the defaults).

use std::io::Write;

use crate::cli::{FormatArg, RowsArg, VerifyArgs};
use crate::failure::Failure;
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::schema::Schema;
use crate::session::input::{LoadedTable, load_table};
use crate::session::plan::settings::configure_limits;
use crate::verify::budget::RunBudget;
use crate::verify::listed::{look_up, manifest_entries};
use crate::verify::read::{FileReport, Request, Sink, TableView, verify_file};
use crate::verify::report::Summary;
use crate::verify::report::human::Human;
use crate::verify::report::json::Json;
use crate::verify::resolve::unreadable;
use crate::verify::sample::{DataFile, Locator, current_files, local_path, pick, table_dir};

pub fn run(args: &VerifyArgs, out: &mut dyn Write) -> Result<bool, Failure> {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::Message(format!("cannot read the current directory: {e}")))?;
    configure_limits(args.config.as_deref(), &cwd)?;
    let loaded = load_table(&args.metadata)?;
    let metadata = &loaded.metadata;
    let schema = verified_schema(args, metadata)?;
    let files = files_to_read(args, &loaded)?;
    let view = TableView {
        fields: &schema.fields,
        format_version: metadata.format_version,
        name_mapping: metadata.name_mapping.as_ref(),
    };
    let rows = match args.rows {
        None => Some(0),
        Some(RowsArg::All) => None,
        Some(RowsArg::First(n)) => Some(n),
    };
    let metadata_name = args.metadata.display().to_string();
    let mut summary = Summary {
        metadata: &metadata_name,
        schema_id: schema.schema_id,
        format_version: metadata.format_version,
        columns: schema
            .fields
            .iter()
            .filter(|f| unreadable(&f.field_type).is_none())
            .map(|f| f.name.clone())
            .collect(),
        files: Vec::new(),
    };
    let failed = |e: String| Failure::Message(format!("cannot write the report: {e}"));
    let outcome = match args.format {
        FormatArg::Human => {
            let mut human = Human::new(out);
            human
                .header(&summary, files.len())
                .map_err(failed)
                .and_then(|()| read_all(&view, &files, rows, &mut human))
                .and_then(|reports| {
                    summary.files = reports;
                    human.verdict(&summary).map_err(failed)
                })
        }
        FormatArg::Json => {
            let mut json = Json::new().map_err(Failure::Message)?;
            read_all(&view, &files, rows, &mut json).and_then(|reports| {
                summary.files = reports;
                json.write(&summary, out).map_err(failed)
            })
        }
    };
    outcome.map(|()| summary.passed())
}

/// The schema the files are read with: `--schema-id`'s, else the current one.
fn verified_schema<'m>(
    args: &VerifyArgs,
    metadata: &'m TableMetadata,
) -> Result<&'m Schema, Failure> {
    let Some(id) = args.schema_id else {
        return Ok(metadata.current_schema());
    };
    metadata.schema(id).ok_or_else(|| {
        let known: Vec<String> = metadata
            .schemas
            .iter()
            .map(|s| s.schema_id.to_string())
            .collect();
        Failure::Message(format!(
            "`{}` has no schema {id} (it has {})",
            args.metadata.display(),
            known.join(", ")
        ))
    })
}

/// The data files to read: `--sample N` of the current snapshot's, or the files given, each
/// looked up in the manifests for its partition values and deletes.
fn files_to_read(args: &VerifyArgs, loaded: &LoadedTable) -> Result<Vec<DataFile>, Failure> {
    let metadata = &loaded.metadata;
    let table_dir = table_dir(&loaded.location.metadata_file);
    let locator = Locator {
        location: &metadata.location,
        table_dir: &table_dir,
        inside: None,
        remote: None,
    };
    match args.sample {
        Some(n) => {
            let all = current_files(&loaded.source.text, metadata, &locator)
                .map_err(|e| Failure::Message(format!("{}: {e}", args.metadata.display())))?;
            Ok(pick(all, n))
        }
        None => {
            let known = manifest_entries(&loaded.source.text, metadata, &locator);
            args.files
                .iter()
                .map(|f| local_path(f).map(|local| look_up(f, local, &known, metadata)))
                .collect::<Result<_, _>>()
                .map_err(Failure::Message)
        }
    }
}

fn read_all(
    view: &TableView<'_>,
    files: &[DataFile],
    rows: Option<usize>,
    sink: &mut dyn Sink,
) -> Result<Vec<FileReport>, Failure> {
    files
        .iter()
        .map(|f| {
            let request = Request {
                path: f.path.clone(),
                local: &f.local,
                rows,
                partition: &f.partition,
                deletes: &f.deletes,
                budget: RunBudget::process(),
            };
            verify_file(view, &request, sink).map_err(|e| Failure::Message(e.to_string()))
        })
        .collect()
}
