//! The Avro files a table's manifests are kept in (the manifest list and the manifests), read
//! within budgets: a pull request writes them, and a 131-byte file can declare 2^40 records of an
//! empty record, or a string of 2^60 bytes. Every read is bounded; crossing a bound is an error
//! naming the file and the limit, never a hang or an out-of-memory kill.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use apache_avro::Reader;
use apache_avro::types::Value as Avro;

/// The records one table's manifest list and manifests may hold together.
pub const MAX_MANIFEST_RECORDS: usize = 1_000_000;

/// The largest single value (string, bytes, array, map) decoded from a manifest. apache-avro's
/// own default is 512 MiB, per value.
pub const MAX_AVRO_VALUE_BYTES: usize = 16 << 20;

/// What is left of a table's record budget as its manifests are read.
pub struct Budget {
    left: usize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            left: MAX_MANIFEST_RECORDS,
        }
    }
}

/// Every record of the Avro file at `local` (`name` as the metadata gives it), counted against
/// `budget`.
pub fn records(local: &Path, name: &str, budget: &mut Budget) -> Result<Vec<Avro>, String> {
    // Set once per process, before the first decode; later calls keep the first value.
    apache_avro::util::max_allocation_bytes(MAX_AVRO_VALUE_BYTES);
    let file = File::open(local).map_err(|e| format!("cannot open `{name}`: {e}"))?;
    let reader = Reader::new(BufReader::new(file))
        .map_err(|e| format!("`{name}` is not a readable Avro file: {e}"))?;
    let mut out = Vec::new();
    for record in reader {
        if budget.left == 0 {
            return Err(format!(
                "`{name}`: the table's manifest list and manifests hold more than {MAX_MANIFEST_RECORDS} records, the most fieldgate reads for one table"
            ));
        }
        budget.left -= 1;
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
        records(&path, "m.avro", &mut Budget::default())
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
