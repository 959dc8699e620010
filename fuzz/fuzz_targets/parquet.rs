//! Parquet files on arbitrary bytes, verified against a real table schema: footers, pages and
//! the projection path must fail with an error, never a panic.
#![no_main]

use std::io::Write;

use fieldgate::iceberg::metadata::TableMetadata;
use fieldgate::limits::ParquetLimits;
use fieldgate::verify::budget::RunBudget;
use fieldgate::verify::read::{FileReport, Request, Sink, TableView, verify_file};
use fieldgate::verify::resolve::PartitionValues;
use fieldgate::verify::deletes::Deletes;
use libfuzzer_sys::fuzz_target;

const METADATA: &str = include_str!("../../tests/fixtures/verify/people/metadata/v8.metadata.json");

struct Discard;

impl Sink for Discard {
    fn resolved(&mut self, _: &FileReport) -> Result<(), String> {
        Ok(())
    }
    fn row(&mut self, _: serde_json::Value) -> Result<(), String> {
        Ok(())
    }
    fn finished(&mut self, _: &FileReport) -> Result<(), String> {
        Ok(())
    }
}

fuzz_target!(|data: &[u8]| {
    let root = fieldgate::json::parse(METADATA).expect("fixture metadata parses");
    let table = TableMetadata::from_json(&root).expect("fixture metadata is Iceberg");
    let view = TableView {
        fields: &table.current_schema().fields,
        format_version: table.format_version,
        name_mapping: table.name_mapping.as_ref(),
    };
    let Ok(mut file) = tempfile::NamedTempFile::new() else {
        return;
    };
    if file.write_all(data).is_err() {
        return;
    }
    let request = Request {
        path: "fuzz.parquet".into(),
        local: file.path(),
        rows: None,
        partition: &PartitionValues::new(),
        deletes: &Deletes::default(),
        // Each input is a run of its own, within the default limits.
        budget: &RunBudget::new(ParquetLimits::default()),
    };
    let _ = verify_file(&view, &request, &mut Discard);
});
