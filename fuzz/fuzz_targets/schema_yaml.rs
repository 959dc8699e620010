//! Schema files on arbitrary text, as YAML and as JSON, and their description as a table.
#![no_main]

use fieldgate::frontend::schema_file::SchemaFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for file in [SchemaFile::parse_yaml(text), SchemaFile::parse_json(text)].into_iter().flatten() {
        let _ = file.to_table_metadata();
    }
});
