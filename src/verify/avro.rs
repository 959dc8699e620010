//! The Avro files a table's manifests are kept in (the manifest list and the manifests), read
//! within budgets: a pull request writes them, and a 131-byte file can declare 2^40 records of an
//! empty record, or a string of 2^60 bytes. Every read is bounded; crossing a bound is an error
//! naming the file and the limit, never a hang or an out-of-memory kill.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use apache_avro::Reader;
use apache_avro::types::Value as Avro;

use crate::limits::{self, Counter};

/// What is left of a run's manifest record budget as manifests are read.
pub struct Budget<'a> {
    used: &'a Counter,
    limit: u64,
}

impl Budget<'static> {
    /// The run's: every table's manifest lists and manifests count against one limit.
    pub fn run() -> Budget<'static> {
        Budget::new(&limits::MANIFEST_RECORDS, limits::get().manifest_records)
    }
}

impl<'a> Budget<'a> {
    pub fn new(used: &'a Counter, limit: u64) -> Budget<'a> {
        Budget { used, limit }
    }
}

/// Every record of the Avro file at `local` (`name` as the metadata gives it), counted against
/// `budget`.
pub fn records(local: &Path, name: &str, budget: &mut Budget<'_>) -> Result<Vec<Avro>, String> {
    // Set once per process, before the first decode; later calls keep the first value. The
    // largest value apache-avro allocates is 512 MiB by default, per value.
    let value_bytes = limits::get().avro_value_bytes;
    apache_avro::util::max_allocation_bytes(usize::try_from(value_bytes).unwrap_or(usize::MAX));
    let file = File::open(local).map_err(|e| format!("cannot open `{name}`: {e}"))?;
    let reader = Reader::new(BufReader::new(file))
        .map_err(|e| format!("`{name}` is not a readable Avro file: {e}"))?;
    let mut out = Vec::new();
    for record in reader {
        if budget.used.take(1, budget.limit).is_err() {
            return Err(format!(
                "`{name}`: the manifest lists and manifests read hold more than {} records, the most one run reads (`limits: manifest-records` in fieldgate.yaml)",
                budget.limit
            ));
        }
        out.push(record.map_err(|e| format!("`{name}`: {e}"))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Avro's zig-zag varint.
    fn long(n: i64, out: &mut Vec<u8>) {
        let mut z = ((n << 1) ^ (n >> 63)) as u64;
        loop {
            let byte = (z & 0x7f) as u8;
            z >>= 7;
            if z == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        }
    }

    /// An object container file of `schema` with one block declaring `count` records in
    /// `data`.
    fn container(schema: &str, count: i64, data: &[u8]) -> Vec<u8> {
        let mut out = b"Obj\x01".to_vec();
        long(1, &mut out);
        for text in ["avro.schema", schema] {
            long(text.len() as i64, &mut out);
            out.extend_from_slice(text.as_bytes());
        }
        long(0, &mut out);
        let sync = [7u8; 16];
        out.extend_from_slice(&sync);
        long(count, &mut out);
        long(data.len() as i64, &mut out);
        out.extend_from_slice(data);
        out.extend_from_slice(&sync);
        out
    }

    fn read(bytes: &[u8]) -> Result<Vec<Avro>, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.avro");
        std::fs::write(&path, bytes).unwrap();
        records(
            &path,
            "m.avro",
            &mut Budget::new(&Counter::new(), 1_000_000),
        )
    }

    #[test]
    fn a_tiny_file_declaring_2_to_the_40_empty_records_stops_at_the_budget() {
        let file = container(r#"{"type":"record","name":"r","fields":[]}"#, 1 << 40, &[]);
        assert!(file.len() < 140, "{}", file.len());
        let started = std::time::Instant::now();
        let error = read(&file).unwrap_err();
        assert!(error.contains("more than 1000000 records"), "{error}");
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
    }

    #[test]
    fn a_string_declaring_an_exabyte_is_an_error_not_an_allocation() {
        let mut data = Vec::new();
        long(1 << 60, &mut data);
        let schema = r#"{"type":"record","name":"r","fields":[{"name":"s","type":"string"}]}"#;
        let error = read(&container(schema, 1, &data)).unwrap_err();
        assert!(error.starts_with("`m.avro`"), "{error}");
    }
}
