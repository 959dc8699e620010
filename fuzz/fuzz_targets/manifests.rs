//! A table's manifest list and manifests (Avro) on arbitrary bytes, read as `sample: N` reads
//! them: the first input byte picks which of the `people` table's manifest files the rest
//! replaces (even: the current manifest list; odd: one of the manifests). Every read must end in
//! the data files or an error, never a panic, a hang or an unbounded allocation.
#![no_main]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use fieldgate::iceberg::metadata::TableMetadata;
use fieldgate::verify::sample::{Locator, current_files};
use libfuzzer_sys::fuzz_target;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/verify/people");
const METADATA: &str = include_str!("../../tests/fixtures/verify/people/metadata/v8.metadata.json");
const LIST: &str = "snap-292792116607982847-0-fde7e8f4-5654-4438-99e9-1dfcd6d09050.avro";

/// A copy of the table's metadata directory, made once, and its manifests' names.
fn table() -> &'static (tempfile::TempDir, Vec<String>) {
    static TABLE: OnceLock<(tempfile::TempDir, Vec<String>)> = OnceLock::new();
    TABLE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a scratch directory");
        let metadata = dir.path().join("metadata");
        fs::create_dir_all(&metadata).expect("a metadata directory");
        let mut manifests = Vec::new();
        for entry in fs::read_dir(Path::new(FIXTURE).join("metadata")).expect("the fixture") {
            let entry = entry.expect("a fixture file");
            let name = entry.file_name().to_string_lossy().into_owned();
            fs::copy(entry.path(), metadata.join(&name)).expect("a copy");
            if name.ends_with("-m0.avro") {
                manifests.push(name);
            }
        }
        manifests.sort();
        (dir, manifests)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let (dir, manifests) = table();
    let name = match pick % 2 {
        0 => LIST,
        _ => &manifests[usize::from(pick / 2) % manifests.len()],
    };
    let file: PathBuf = dir.path().join("metadata").join(name);
    let original = fs::read(&file).expect("the fixture file");
    if fs::write(&file, bytes).is_err() {
        return;
    }
    let root = fieldgate::json::parse(METADATA).expect("fixture metadata parses");
    let metadata = TableMetadata::from_json(&root).expect("fixture metadata is Iceberg");
    let locator = Locator {
        location: &metadata.location,
        table_dir: dir.path(),
        inside: None,
        remote: None,
    };
    // Each input is a run of its own: its records count against a fresh budget.
    fieldgate::limits::new_run();
    let _ = current_files(METADATA, &metadata, &locator);
    fs::write(&file, original).expect("the fixture file restored");
});
