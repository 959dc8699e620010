//! `limits:` in `fieldgate.yaml`: the budgets of one run (see `crate::limits`), each a whole
//! number, a byte size also written with a unit (`512 MiB`, `4 GiB`). A limit left out keeps its
//! default; an unknown key, a zero, a negative or an unreadable size is a located error.

use super::{ConfigError, error, unknown_key};
use crate::limits::Limits;
use crate::yaml::YamlNode;

/// Where one limit's value goes in [`Limits`].
type Place = fn(&mut Limits) -> &mut u64;

/// The keys, whether each is a byte size, and where each value goes.
const KEYS: &[(&str, bool, Place)] = &[
    ("input-bytes", true, |l| &mut l.input_bytes),
    ("manifest-records", false, |l| &mut l.manifest_records),
    ("avro-value-bytes", true, |l| &mut l.avro_value_bytes),
    ("schema-fields", false, |l| &mut l.schema_fields),
    ("statements-per-file", false, |l| &mut l.statements_per_file),
    ("metadata-log-files", false, |l| &mut l.metadata_log_files),
    ("parquet-footer-bytes", true, |l| {
        &mut l.parquet.footer_bytes
    }),
    ("parquet-schema-depth", false, |l| {
        &mut l.parquet.schema_depth
    }),
    ("parquet-column-chunks", false, |l| {
        &mut l.parquet.column_chunks
    }),
    ("parquet-page-bytes", true, |l| &mut l.parquet.page_bytes),
    ("parquet-rows", false, |l| &mut l.parquet.rows),
    ("parquet-values", false, |l| &mut l.parquet.values),
    ("parquet-decompressed-bytes", true, |l| {
        &mut l.parquet.decompressed_bytes
    }),
];

/// The names of the limits, as `fieldgate.yaml` writes them, with their values in `limits`.
pub fn named(limits: &Limits) -> Vec<(&'static str, u64)> {
    let mut copy = limits.clone();
    KEYS.iter()
        .map(|(key, _, at)| (*key, *at(&mut copy)))
        .collect()
}

pub(super) fn limits(node: &YamlNode, errors: &mut Vec<ConfigError>) -> Limits {
    let mut limits = Limits::default();
    let Some(entries) = node.as_map() else {
        if !node.is_null() {
            errors.push(error(
                node,
                format!("`limits` must be a mapping, found {}", node.kind_name()),
                Some("for example `limits: {input-bytes: 2 GiB}`".into()),
            ));
        }
        return limits;
    };
    let names: Vec<&str> = KEYS.iter().map(|(key, _, _)| *key).collect();
    for entry in entries {
        let Some((key, bytes, at)) = KEYS.iter().find(|(key, _, _)| *key == entry.key) else {
            errors.push(unknown_key(entry.key_span, &entry.key, &names));
            continue;
        };
        match value(&entry.value, *bytes) {
            Ok(n) => *at(&mut limits) = n,
            Err(found) => {
                let want = if *bytes {
                    "a number of bytes (at least 1), optionally with a unit: KiB, MiB, GiB or TiB"
                } else {
                    "a whole number, at least 1"
                };
                errors.push(error(
                    &entry.value,
                    format!("`limits: {key}` must be {want}, found {found}"),
                    None,
                ));
            }
        }
    }
    limits
}

/// A limit's value, or what was found instead.
fn value(node: &YamlNode, bytes: bool) -> Result<u64, String> {
    if let Some(n) = node.as_i64() {
        return u64::try_from(n)
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("`{n}`"));
    }
    let Some(text) = node.as_str() else {
        return Err(node.kind_name().to_string());
    };
    let found = || format!("`{text}`");
    if !bytes {
        return Err(found());
    }
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let shift = match unit.trim() {
        "" | "B" => 0,
        "KiB" => 10,
        "MiB" => 20,
        "GiB" => 30,
        "TiB" => 40,
        _ => return Err(found()),
    };
    number
        .parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml;

    fn parse(text: &str) -> (Limits, Vec<String>) {
        let root = yaml::parse(text).unwrap();
        let mut errors = Vec::new();
        let limits = limits(&root, &mut errors);
        (limits, errors.into_iter().map(|e| e.message).collect())
    }

    #[test]
    fn sizes_with_units_and_counts_set_their_limits_and_the_rest_keep_defaults() {
        let (limits, errors) =
            parse("input-bytes: 2 GiB\nparquet-rows: 5000\nparquet-page-bytes: 1048576\n");
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(limits.input_bytes, 2 << 30);
        assert_eq!(limits.parquet.rows, 5000);
        assert_eq!(limits.parquet.page_bytes, 1 << 20);
        assert_eq!(limits.manifest_records, Limits::default().manifest_records);
        let named = named(&limits);
        assert_eq!(named.len(), KEYS.len());
        assert!(named.contains(&("input-bytes", 2 << 30)));
    }

    #[test]
    fn bad_values_are_errors_naming_the_key() {
        let (_, errors) = parse(
            "input-bytes: 0\nparquet-rows: 2 GiB\nparquet-values: -1\navro-value-bytes: 3 parsecs\nmanifest-records: [1]\nparquet-page-bytes: 99999999999 TiB\n",
        );
        assert_eq!(errors.len(), 6, "{errors:?}");
        assert!(errors[0].contains("`limits: input-bytes` must be a number of bytes"));
        assert!(errors[1].contains("`limits: parquet-rows` must be a whole number"));
        assert!(errors[2].contains("found `-1`"));
        assert!(errors[3].contains("found `3 parsecs`"));
        assert!(errors[4].contains("found a sequence") || errors[4].contains("found"));
        assert!(errors[5].contains("99999999999 TiB"));
    }
}
