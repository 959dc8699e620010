//! What one run reads of Parquet files, bounded: a pull request writes the sample files, and a
//! footer can claim 2^62 rows, a schema nested a million levels deep (rebuilt recursively by the
//! parquet crate), or a zstd page of run-length blocks declaring 512 MiB (allocated up front).
//! Every count that drives an allocation or a loop is measured from the raw footer and page
//! headers before the parquet crate acts on it, and rows, values and decompressed bytes are
//! counted against one budget for the whole run (all files of all tables), so many files just
//! under a limit cannot add up to gigabytes. Crossing a limit is an error naming the file, where
//! in it, and the limit.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::sync::OnceLock;

use parquet::file::metadata::ParquetMetaData;

use crate::limits::{self, Counter, ParquetLimits};
use crate::verify::error::VerifyError;
use crate::verify::thrift::{Compact, STRUCT};

/// What is left of one run's limits; shared by every file the run reads.
#[derive(Debug)]
pub struct RunBudget {
    limits: ParquetLimits,
    rows: Counter,
    values: Counter,
    decompressed: Counter,
}

const HELP: &str = "fieldgate bounds what one run reads of Parquet files; a file this large or \
    this shaped is not read (verify fewer or smaller files, or raise the limit under `limits:` in \
    fieldgate.yaml)";

impl RunBudget {
    pub fn new(limits: ParquetLimits) -> RunBudget {
        RunBudget {
            limits,
            rows: Counter::new(),
            values: Counter::new(),
            decompressed: Counter::new(),
        }
    }

    /// The budget of this process, with its configured limits: one command is one run.
    pub fn process() -> &'static RunBudget {
        static RUN: OnceLock<RunBudget> = OnceLock::new();
        RUN.get_or_init(|| RunBudget::new(limits::get().parquet.clone()))
    }

    pub fn limits(&self) -> &ParquetLimits {
        &self.limits
    }

    /// Measures the raw footer before the parquet crate decodes it: its size, the schema's
    /// nesting and the number of column chunks. A file that is not plain Parquet at its end is
    /// left to the crate, which refuses it.
    pub fn check_footer(&self, path: &str, file: &mut File) -> Result<(), VerifyError> {
        let at = |message: String| VerifyError::file(path, message).with_help(HELP);
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let mut tail = [0u8; 8];
        let tail_read = len >= 8
            && file.seek(SeekFrom::Start(len - 8)).is_ok()
            && file.read_exact(&mut tail).is_ok();
        if !tail_read || &tail[4..] != b"PAR1" {
            return Ok(());
        }
        let footer = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
        if footer > self.limits.footer_bytes {
            return Err(at(format!(
                "the footer is {footer} bytes, more than the {}-byte limit",
                self.limits.footer_bytes
            )));
        }
        if footer + 8 > len || file.seek(SeekFrom::Start(len - 8 - footer)).is_err() {
            return Ok(());
        }
        let reader = BufReader::new(file.take(footer));
        let depth = usize::try_from(self.limits.schema_depth).unwrap_or(usize::MAX);
        let Ok(shape) = footer_shape(Compact::new(reader, footer), depth) else {
            // A footer that is not Thrift is the parquet crate's to refuse: it reads no more than
            // the footer's bytes, and its error says the file is not readable Parquet.
            return Ok(());
        };
        if shape.depth > depth {
            return Err(at(format!(
                "the footer: the schema nests groups more than {depth} levels deep"
            )));
        }
        let chunks = shape.leaves.saturating_mul(shape.row_groups);
        if chunks > self.limits.column_chunks {
            return Err(at(format!(
                "the footer declares {} row groups of {} leaf columns, {chunks} column chunks, more than the limit of {}",
                shape.row_groups, shape.leaves, self.limits.column_chunks
            )));
        }
        Ok(())
    }

    /// Takes the rows the decoded footer declares from the run's budget.
    pub fn take_rows(&self, path: &str, meta: &ParquetMetaData) -> Result<u64, VerifyError> {
        let mut claimed = meta.file_metadata().num_rows().max(0) as u64;
        let mut groups = 0u64;
        for (i, group) in meta.row_groups().iter().enumerate() {
            let rows = u64::try_from(group.num_rows()).map_err(|_| {
                let mut e = VerifyError::file(
                    path,
                    format!(
                        "the footer gives row group {i} a negative row count ({})",
                        group.num_rows()
                    ),
                );
                e.row_group = Some(i);
                e
            })?;
            groups = groups.saturating_add(rows);
        }
        claimed = claimed.max(groups);
        self.rows.take(claimed, self.limits.rows).map_err(|used| {
            VerifyError::file(
                path,
                format!(
                    "the footer declares {claimed} rows; with the {used} rows read before, that is more than the {} rows one run reads",
                    self.limits.rows
                ),
            )
            .with_help(HELP)
        })?;
        Ok(claimed)
    }

    /// Walks the page headers of the `leaves` column chunks in every row group, before any page
    /// is decompressed: each page's declared size is within the page limit and, when `charge`,
    /// the values and decompressed bytes of them all are taken from the run's budget.
    pub fn check_pages(
        &self,
        path: &str,
        file: &File,
        meta: &ParquetMetaData,
        leaves: &[usize],
        charge: bool,
    ) -> Result<(), VerifyError> {
        let mut total = Pages::default();
        for (group, row_group) in meta.row_groups().iter().enumerate() {
            for &leaf in leaves {
                let Some(chunk) = row_group.columns().get(leaf) else {
                    continue;
                };
                let start = chunk
                    .dictionary_page_offset()
                    .unwrap_or(chunk.data_page_offset());
                let end = start.saturating_add(chunk.compressed_size());
                let pages = self
                    .chunk_pages(file, start.max(0) as u64, end.max(0) as u64)
                    .map_err(|message| {
                        let mut e = VerifyError::file(path, message).with_help(HELP);
                        e.row_group = Some(group);
                        e.column = Some(chunk.column_path().string());
                        e
                    })?;
                total.values = total.values.saturating_add(pages.values);
                total.bytes = total.bytes.saturating_add(pages.bytes);
            }
        }
        if !charge {
            return Ok(());
        }
        let over = |what: &str, n: u64, used: u64, limit: u64| {
            VerifyError::file(
                path,
                format!("its pages declare {n} {what}; with the {used} read before, that is more than the {limit} {what} one run decodes"),
            )
            .with_help(HELP)
        };
        self.values
            .take(total.values, self.limits.values)
            .map_err(|used| over("values", total.values, used, self.limits.values))?;
        self.decompressed
            .take(total.bytes, self.limits.decompressed_bytes)
            .map_err(|used| {
                over(
                    "decompressed bytes",
                    total.bytes,
                    used,
                    self.limits.decompressed_bytes,
                )
            })
    }

    fn chunk_pages(&self, file: &File, start: u64, end: u64) -> Result<Pages, String> {
        let mut reader = BufReader::new(file);
        let mut at = start;
        let mut total = Pages::default();
        while at < end {
            reader
                .seek(SeekFrom::Start(at))
                .map_err(|e| format!("cannot read the page at byte {at}: {e}"))?;
            // A header (with its statistics) is bounded like a page, and by at least 1 MiB.
            let header_limit = self.limits.page_bytes.max(1 << 20);
            let mut header = Compact::new(&mut reader, header_limit.min(end - at));
            let page = match page_header(&mut header) {
                Ok(page) => page,
                Err(e) if header.over_limit() && header_limit < end - at => {
                    return Err(format!("the page header at byte {at}: {e}"));
                }
                // A header that is not Thrift, or runs past its chunk, is left to the parquet
                // crate: it refuses the same bytes before decompressing anything, and its error
                // is located by the reader's own search for the failing column.
                Err(_) => break,
            };
            if page.bytes > self.limits.page_bytes {
                return Err(format!(
                    "the page at byte {at} declares {} bytes decompressed, more than the {}-byte page limit",
                    page.bytes, self.limits.page_bytes
                ));
            }
            total.values = total.values.saturating_add(page.values);
            total.bytes = total.bytes.saturating_add(page.bytes);
            // A page running past its chunk is the parquet crate's to refuse, as above.
            at = at
                .saturating_add(header.consumed())
                .saturating_add(page.compressed);
        }
        Ok(total)
    }
}

#[derive(Debug, Default)]
struct Pages {
    values: u64,
    bytes: u64,
}

struct Page {
    bytes: u64,
    compressed: u64,
    values: u64,
}

/// PageHeader: 2 uncompressed_page_size, 3 compressed_page_size, and the num_values (field 1)
/// of its data (5), dictionary (7) or data v2 (8) header.
fn page_header<R: Read>(c: &mut Compact<R>) -> Result<Page, String> {
    let mut page = Page {
        bytes: 0,
        compressed: 0,
        values: 0,
    };
    let size =
        |n: i64, what: &str| u64::try_from(n).map_err(|_| format!("a negative {what} ({n})"));
    let mut last = 0;
    while let Some(kind) = c.field(&mut last)? {
        match (last, kind) {
            (2, 5) => page.bytes = size(c.int()?, "decompressed size")?,
            (3, 5) => page.compressed = size(c.int()?, "compressed size")?,
            (5 | 7 | 8, STRUCT) => page.values = size(num_values(c)?, "value count")?,
            _ => c.skip(kind)?,
        }
    }
    Ok(page)
}

fn num_values<R: Read>(c: &mut Compact<R>) -> Result<i64, String> {
    let mut values = 0;
    let mut last = 0;
    while let Some(kind) = c.field(&mut last)? {
        match (last, kind) {
            (1, 5) => values = c.int()?,
            _ => c.skip(kind)?,
        }
    }
    Ok(values)
}

struct Shape {
    leaves: u64,
    row_groups: u64,
    /// The schema's nesting, measured up to one past the limit.
    depth: usize,
}

/// FileMetaData: 2 the schema (flattened depth first, each group giving its children's count in
/// field 5) and 4 the row groups; everything else is skipped. A schema nested past `max_depth`
/// ends the walk. An error is a footer that is not Thrift.
fn footer_shape<R: Read>(mut c: Compact<R>, max_depth: usize) -> Result<Shape, String> {
    let mut shape = Shape {
        leaves: 0,
        row_groups: 0,
        depth: 0,
    };
    let mut last = 0;
    while let Some(kind) = c.field(&mut last)? {
        match (last, kind) {
            (2, 9) => {
                let (element, len) = c.list()?;
                if element != STRUCT {
                    return Err("the schema is not a list of elements".into());
                }
                (shape.leaves, shape.depth) = schema_leaves(&mut c, len, max_depth)?;
                if shape.depth > max_depth {
                    return Ok(shape);
                }
            }
            (4, 9) => {
                let (element, len) = c.list()?;
                shape.row_groups = len;
                c.skip_elements(element, len, 0)?;
            }
            _ => c.skip(kind)?,
        }
    }
    Ok(shape)
}

/// Counts the leaf columns of a schema of `len` elements and its depth, stopping at nesting
/// deeper than `max_depth`, which the parquet crate's recursive rebuild would not survive.
fn schema_leaves<R: Read>(
    c: &mut Compact<R>,
    len: u64,
    max_depth: usize,
) -> Result<(u64, usize), String> {
    // Children still to come of each open group, the root first.
    let mut open: Vec<i64> = Vec::new();
    let (mut leaves, mut depth) = (0, 0);
    for _ in 0..len {
        let mut children = 0;
        let mut last = 0;
        while let Some(kind) = c.field(&mut last)? {
            match (last, kind) {
                (5, 5) => children = c.int()?,
                _ => c.skip(kind)?,
            }
        }
        if let Some(parent) = open.last_mut() {
            *parent -= 1;
        }
        if children > 0 {
            open.push(children);
            // The root is a group of no level.
            depth = depth.max(open.len() - 1);
            if depth > max_depth {
                return Ok((leaves, depth));
            }
        } else if !open.is_empty() {
            leaves += 1;
        }
        while open.last() == Some(&0) {
            open.pop();
        }
    }
    Ok((leaves, depth))
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::metadata::ParquetMetaDataReader;
    use std::path::Path;

    const PEOPLE: &str = "tests/fixtures/verify/people/data/s0-pyiceberg.parquet";

    fn fixture() -> (File, ParquetMetaData) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(PEOPLE);
        let file = File::open(path).unwrap();
        let meta = ParquetMetaDataReader::new()
            .parse_and_finish(&file)
            .unwrap();
        (file, meta)
    }

    fn all_leaves(meta: &ParquetMetaData) -> Vec<usize> {
        (0..meta.file_metadata().schema_descr().num_columns()).collect()
    }

    #[test]
    fn a_real_file_is_within_the_defaults_and_its_pages_are_counted() {
        let (mut file, meta) = fixture();
        let run = RunBudget::new(ParquetLimits::default());
        run.check_footer("f", &mut file).unwrap();
        assert_eq!(run.take_rows("f", &meta).unwrap(), 3);
        run.check_pages("f", &file, &meta, &all_leaves(&meta), true)
            .unwrap();
        let declared: i64 = meta
            .row_groups()
            .iter()
            .flat_map(|g| g.columns())
            .map(|c| c.uncompressed_size())
            .sum();
        let decompressed = run.decompressed.used();
        // The footer's sizes include the page headers; the pages' own exclude them.
        assert!(
            decompressed > 0 && decompressed as i64 <= declared,
            "{decompressed} {declared}"
        );
        assert!(run.values.used() >= 3);
    }

    #[test]
    fn each_limit_is_a_located_error() {
        let (mut file, meta) = fixture();
        let tight = |f: fn(&mut ParquetLimits)| {
            let mut limits = ParquetLimits::default();
            f(&mut limits);
            RunBudget::new(limits)
        };
        let e = tight(|l| l.footer_bytes = 100)
            .check_footer("f", &mut file)
            .unwrap_err();
        assert!(e.message.contains("more than the 100-byte limit"), "{e}");
        let e = tight(|l| l.schema_depth = 1)
            .check_footer("f", &mut file)
            .unwrap_err();
        assert!(e.message.contains("more than 1 levels deep"), "{e}");
        let e = tight(|l| l.column_chunks = 3)
            .check_footer("f", &mut file)
            .unwrap_err();
        assert!(
            e.message
                .contains("column chunks, more than the limit of 3"),
            "{e}"
        );
        let e = tight(|l| l.rows = 2).take_rows("f", &meta).unwrap_err();
        assert!(
            e.message.contains("more than the 2 rows one run reads"),
            "{e}"
        );
        let leaves = all_leaves(&meta);
        let e = tight(|l| l.page_bytes = 8)
            .check_pages("f", &file, &meta, &leaves, false)
            .unwrap_err();
        assert_eq!(e.row_group, Some(0));
        assert!(
            e.column.is_some() && e.message.contains("page limit"),
            "{e}"
        );
        let e = tight(|l| l.values = 1)
            .check_pages("f", &file, &meta, &leaves, true)
            .unwrap_err();
        assert!(e.message.contains("one run decodes"), "{e}");
    }

    #[test]
    fn a_header_that_is_not_thrift_is_left_to_the_crate_and_an_overlong_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let garbage = dir.path().join("garbage");
        std::fs::write(&garbage, [0xA5; 100]).unwrap();
        let run = RunBudget::new(ParquetLimits::default());
        let pages = run
            .chunk_pages(&File::open(&garbage).unwrap(), 0, 100)
            .unwrap();
        assert_eq!((pages.values, pages.bytes), (0, 0));

        // Field 9 (binary) declaring 1.5 MiB of statistics in a 2 MiB chunk: past the 1 MiB a
        // header may take when pages are limited to 8 bytes.
        let mut long = vec![0x98, 0x80, 0x80, 0x60];
        long.resize(2 << 20, 0);
        let overlong = dir.path().join("overlong");
        std::fs::write(&overlong, &long).unwrap();
        let tight = RunBudget::new(ParquetLimits {
            page_bytes: 8,
            ..ParquetLimits::default()
        });
        let error = tight
            .chunk_pages(&File::open(&overlong).unwrap(), 0, long.len() as u64)
            .unwrap_err();
        assert!(error.contains("longer than 1048576 bytes"), "{error}");
    }

    #[test]
    fn the_budget_is_one_for_the_whole_run() {
        let (_, meta) = fixture();
        let run = RunBudget::new(ParquetLimits {
            rows: 7,
            ..ParquetLimits::default()
        });
        run.take_rows("a", &meta).unwrap();
        run.take_rows("b", &meta).unwrap();
        let e = run.take_rows("c", &meta).unwrap_err();
        assert!(e.message.contains("with the 6 rows read before"), "{e}");
    }
}
