//! The budgets of one run. A pull request writes every file the gate reads, so each read is
//! bounded, and the bounds that add up across files (input bytes, manifest records, Parquet
//! rows, values and decompressed bytes) are counted for the whole run, all tables together, so
//! that many files just under a limit cannot hold gigabytes between them. The defaults are
//! the README's; `fieldgate.yaml`'s `limits:` changes them (under `check --policy base`, the
//! base's file decides, so a pull request cannot raise its own limits).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// Every limit of a run, with the defaults the README states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of metadata, migrations and schema files one run reads (a compressed metadata
    /// file's inflated bytes counted too).
    pub input_bytes: u64,
    /// Records of manifest lists and manifests one run reads.
    pub manifest_records: u64,
    /// Bytes of one decoded Avro value (string, bytes, array, map) in a manifest.
    pub avro_value_bytes: u64,
    /// Fields in the new schemas of one proposal.
    pub schema_fields: u64,
    /// Statements in one migration file (those that are not empty): a file's statements are
    /// held and judged together, so their count bounds the memory and time of judging it.
    pub statements_per_file: u64,
    /// Previous metadata files of a live-only table's `metadata-log` read for its history.
    pub metadata_log_files: u64,
    pub parquet: ParquetLimits,
}

/// The limits of what one run reads of Parquet files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParquetLimits {
    /// Bytes of one file's footer (its Thrift metadata).
    pub footer_bytes: u64,
    /// Levels of nested groups in one file's schema.
    pub schema_depth: u64,
    /// Column chunks (row groups times leaf columns) in one file's footer.
    pub column_chunks: u64,
    /// Bytes one page declares decompressed (and so is allocated for it).
    pub page_bytes: u64,
    /// Rows read in one run.
    pub rows: u64,
    /// Values (definition levels) decoded in one run.
    pub values: u64,
    /// Page bytes decompressed in one run.
    pub decompressed_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            input_bytes: 1 << 30,
            manifest_records: 1_000_000,
            avro_value_bytes: 16 << 20,
            schema_fields: 2_500_000,
            statements_per_file: 100_000,
            metadata_log_files: 100,
            parquet: ParquetLimits::default(),
        }
    }
}

impl Default for ParquetLimits {
    fn default() -> ParquetLimits {
        ParquetLimits {
            footer_bytes: 16 << 20,
            schema_depth: 100,
            column_chunks: 1_000_000,
            page_bytes: 64 << 20,
            rows: 100_000_000,
            values: 100_000_000,
            decompressed_bytes: 4 << 30,
        }
    }
}

static LIMITS: OnceLock<Limits> = OnceLock::new();
static DEFAULTS: OnceLock<Limits> = OnceLock::new();

/// Sets this process's limits, once: the configuration that decides the run sets them as soon
/// as it is read (what was read before, the configuration itself, counts against them too).
/// `false` when they were set before; a long-lived process keeps its first.
pub fn configure(limits: Limits) -> bool {
    LIMITS.set(limits).is_ok()
}

/// This process's limits: what [`configure`] set, else the defaults.
pub fn get() -> &'static Limits {
    LIMITS
        .get()
        .unwrap_or_else(|| DEFAULTS.get_or_init(Limits::default))
}

/// What one run has used of a limit counted across files.
#[derive(Debug, Default)]
pub struct Counter {
    used: AtomicU64,
}

impl Counter {
    pub const fn new() -> Counter {
        Counter {
            used: AtomicU64::new(0),
        }
    }

    /// Adds `n` unless that crosses `limit`; on refusal, what was used before.
    pub fn take(&self, n: u64, limit: u64) -> Result<(), u64> {
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |before| {
                before.checked_add(n).filter(|after| *after <= limit)
            })
            .map(drop)
    }

    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Starts counting again: a long-lived process (the language server) judges many runs.
    pub fn reset(&self) {
        self.used.store(0, Ordering::Relaxed);
    }
}

/// The input bytes this process's run has read.
pub static INPUT: Counter = Counter::new();
/// The manifest records this process's run has read.
pub static MANIFEST_RECORDS: Counter = Counter::new();

/// Takes `bytes` of input read from `name` from the run's budget.
pub fn take_input(name: &str, bytes: u64) -> Result<(), String> {
    let limit = get().input_bytes;
    INPUT.take(bytes, limit).map_err(|used| {
        format!(
            "`{name}` is {bytes} bytes; with the {used} bytes read before, that is more than the {limit} bytes of input one run reads (`limits: input-bytes` in fieldgate.yaml)"
        )
    })
}

/// Starts a new run: the counters back at zero (the limits themselves stay).
pub fn new_run() {
    INPUT.reset();
    MANIFEST_RECORDS.reset();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counter_refuses_past_its_limit_and_keeps_what_it_had() {
        let counter = Counter::new();
        counter.take(6, 10).unwrap();
        assert_eq!(counter.take(5, 10), Err(6));
        counter.take(4, 10).unwrap();
        assert_eq!(counter.used(), 10);
        assert_eq!(counter.take(u64::MAX, u64::MAX), Err(10));
        counter.reset();
        assert_eq!(counter.used(), 0);
    }
}
