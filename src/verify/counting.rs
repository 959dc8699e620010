//! The file handle every Parquet byte goes through, counting what is actually read.
//!
//! The parquet crate reads a page header through a sequential reader and then the page body
//! through `get_bytes`. `File`'s own implementation wraps the sequential reader in an 8 KiB
//! `BufReader`, which reads ahead past the end of a column chunk into the next one (a pruned
//! column would then be partly read) and reads the page body twice. Here a sequential reader never
//! reads past the end of the column chunk it starts in (chunk ranges come from the footer once it
//! is loaded), and the last block read is kept, so a page body whose start came in with its header
//! is not read again. A column chunk that is not projected is never touched, and the count is what
//! the handle really delivered.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;
use parquet::errors::ParquetError;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::{ChunkReader, Length};

/// How much a sequential (header) read fetches at once, at most.
const BLOCK: u64 = 1024;

#[derive(Clone)]
pub struct CountingFile {
    inner: Arc<Inner>,
}

struct Inner {
    file: Mutex<File>,
    len: u64,
    read: AtomicU64,
    /// Column chunk byte ranges, sorted by start; set once the footer is known.
    chunks: OnceLock<Vec<Range<u64>>>,
    /// The last block read (start, bytes): headers and bodies are served from it first.
    recent: Mutex<Option<(u64, Bytes)>>,
    /// Every range read, in order, for tests that prove a chunk was never touched.
    log: Mutex<Vec<Range<u64>>>,
}

impl CountingFile {
    pub fn new(file: File) -> io::Result<CountingFile> {
        let len = file.metadata()?.len();
        Ok(CountingFile {
            inner: Arc::new(Inner {
                file: Mutex::new(file),
                len,
                read: AtomicU64::new(0),
                chunks: OnceLock::new(),
                recent: Mutex::new(None),
                log: Mutex::new(Vec::new()),
            }),
        })
    }

    pub fn bytes_read(&self) -> u64 {
        self.inner.read.load(Ordering::Relaxed)
    }

    pub fn file_len(&self) -> u64 {
        self.inner.len
    }

    /// The ranges read from the file so far.
    pub fn ranges_read(&self) -> Vec<Range<u64>> {
        self.inner.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Learns the column chunk ranges from the footer, so sequential reads stop at chunk ends.
    pub fn set_chunks(&self, metadata: &ParquetMetaData) {
        let mut chunks: Vec<Range<u64>> = metadata
            .row_groups()
            .iter()
            .flat_map(|rg| rg.columns().iter())
            .map(|c| {
                let (start, len) = c.byte_range();
                start..start.saturating_add(len)
            })
            .collect();
        chunks.sort_by_key(|r| r.start);
        let _ = self.inner.chunks.set(chunks);
    }

    fn end_of_chunk(&self, start: u64) -> u64 {
        self.inner
            .chunks
            .get()
            .and_then(|chunks| {
                let i = chunks.partition_point(|r| r.start <= start);
                i.checked_sub(1)
                    .and_then(|i| chunks.get(i))
                    .filter(|r| start < r.end)
                    .map(|r| r.end)
            })
            .unwrap_or(self.inner.len)
            .min(self.inner.len)
    }

    /// Reads `len` bytes at `offset` from the file (fewer at its end), counting them.
    fn fetch(&self, offset: u64, len: u64) -> io::Result<Vec<u8>> {
        let mut buffer = vec![0u8; usize::try_from(len).map_err(io::Error::other)?];
        let mut filled = 0;
        {
            let mut file = self
                .inner
                .file
                .lock()
                .map_err(|_| io::Error::other("file handle poisoned"))?;
            file.seek(SeekFrom::Start(offset))?;
            while filled < buffer.len() {
                let n = file.read(&mut buffer[filled..])?;
                if n == 0 {
                    break;
                }
                filled += n;
            }
        }
        buffer.truncate(filled);
        self.inner.read.fetch_add(filled as u64, Ordering::Relaxed);
        if filled > 0
            && let Ok(mut log) = self.inner.log.lock()
        {
            log.push(offset..offset + filled as u64);
        }
        Ok(buffer)
    }

    /// What the last block holds from `start` on, if it covers `start`.
    fn cached(&self, start: u64) -> Option<Bytes> {
        let recent = self.inner.recent.lock().ok()?;
        let (at, bytes) = recent.as_ref()?;
        let skip = usize::try_from(start.checked_sub(*at)?).ok()?;
        (skip < bytes.len()).then(|| bytes.slice(skip..))
    }

    fn remember(&self, start: u64, bytes: &Bytes) {
        if let Ok(mut recent) = self.inner.recent.lock() {
            *recent = Some((start, bytes.clone()));
        }
    }

    /// `len` bytes at `start`: what the last block already holds, the rest from the file.
    fn range(&self, start: u64, len: u64) -> io::Result<Bytes> {
        let have = self.cached(start).unwrap_or_default();
        if have.len() as u64 >= len {
            return Ok(have.slice(..len as usize));
        }
        let mut bytes = have.to_vec();
        bytes.extend(self.fetch(start + have.len() as u64, len - have.len() as u64)?);
        let bytes = Bytes::from(bytes);
        self.remember(start, &bytes);
        Ok(bytes)
    }
}

impl Length for CountingFile {
    fn len(&self) -> u64 {
        self.inner.len
    }
}

/// A sequential reader that stops at the end of its column chunk.
pub struct ChunkRead {
    file: CountingFile,
    pos: u64,
    end: u64,
}

impl Read for ChunkRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.end.saturating_sub(self.pos);
        if left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let block = match self.file.cached(self.pos) {
            Some(block) => block,
            None => self.file.range(self.pos, left.min(BLOCK))?,
        };
        let n = buf.len().min(block.len()).min(left as usize);
        buf[..n].copy_from_slice(&block[..n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl ChunkReader for CountingFile {
    type T = ChunkRead;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(ChunkRead {
            file: self.clone(),
            pos: start,
            end: self.end_of_chunk(start),
        })
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        let fits = start
            .checked_add(length as u64)
            .is_some_and(|end| end <= self.inner.len);
        if !fits {
            return Err(ParquetError::EOF(format!(
                "{length} bytes at offset {start} run past the end of the file ({} bytes)",
                self.inner.len
            )));
        }
        let bytes = self
            .range(start, length as u64)
            .map_err(|e| ParquetError::External(Box::new(e)))?;
        if bytes.len() != length {
            return Err(ParquetError::EOF(format!(
                "the file ended after {} of {length} bytes at offset {start}",
                bytes.len()
            )));
        }
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn counts_what_is_read_and_stops_at_the_file_end() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(b"0123456789").unwrap();
        let file = CountingFile::new(f).unwrap();
        assert_eq!(&file.get_bytes(2, 3).unwrap()[..], b"234");
        assert!(file.get_bytes(8, 3).is_err());
        let mut rest = String::new();
        file.get_read(7).unwrap().read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "789");
        // Bytes already read are served again without touching the file.
        assert_eq!(&file.get_bytes(8, 2).unwrap()[..], b"89");
        assert_eq!(&file.get_bytes(3, 2).unwrap()[..], b"34");
        assert_eq!(file.bytes_read(), 8);
        assert_eq!(file.ranges_read(), vec![2..5, 7..10, 3..5]);
    }
}
