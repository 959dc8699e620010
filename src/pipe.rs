//! Standard output for the commands, where a reader that went away (`fieldgate rules | head -1`)
//! ends the output quietly instead of failing the run: the verdict stays the exit code, as it
//! would had the reader read everything, and nothing is printed about the pipe.

use std::io::{self, Write};

/// A line for the user on stderr (`note: ...`, `fieldgate: wrote ...`). Unlike `eprintln!`, which
/// panics when stderr is a closed pipe (`fieldgate lint ... 2>&1 | head -1`), a failed write is
/// dropped: the line was for a reader that is gone.
pub fn to_stderr(line: &str) {
    let _ = writeln!(io::stderr(), "{line}");
}

/// A writer that turns a broken pipe into a sink: the first `BrokenPipe` and every write after
/// it succeed without writing. Any other error is passed on unchanged.
pub struct QuietPipe<W: Write> {
    inner: W,
    closed: bool,
}

impl<W: Write> QuietPipe<W> {
    pub fn new(inner: W) -> QuietPipe<W> {
        QuietPipe {
            inner,
            closed: false,
        }
    }

    /// Whether the reader went away during the run.
    pub fn closed(&self) -> bool {
        self.closed
    }

    fn absorb<T>(&mut self, result: io::Result<T>, quiet: T) -> io::Result<T> {
        match result {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(quiet)
            }
            other => other,
        }
    }
}

impl<W: Write> Write for QuietPipe<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        let result = self.inner.write(buf);
        self.absorb(result, buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let result = self.inner.flush();
        self.absorb(result, ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Accepts `room` bytes, then fails every write with `kind`.
    struct Reader {
        room: usize,
        kind: io::ErrorKind,
        got: Vec<u8>,
    }

    impl Write for Reader {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.got.len() >= self.room {
                return Err(self.kind.into());
            }
            let n = buf.len().min(self.room - self.got.len());
            self.got.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn reader(room: usize, kind: io::ErrorKind) -> Reader {
        Reader {
            room,
            kind,
            got: Vec::new(),
        }
    }

    #[test]
    fn a_closed_pipe_swallows_the_rest() {
        let mut out = QuietPipe::new(reader(4, io::ErrorKind::BrokenPipe));
        assert!(writeln!(out, "first line").is_ok());
        assert!(writeln!(out, "second line").is_ok());
        assert!(out.flush().is_ok());
        assert!(out.closed());
        assert_eq!(out.inner.got, b"firs");
    }

    #[test]
    fn other_errors_still_fail() {
        let mut out = QuietPipe::new(reader(0, io::ErrorKind::StorageFull));
        let written = writeln!(out, "x").map_err(|e| e.kind());
        assert_eq!(written, Err(io::ErrorKind::StorageFull));
        assert!(!out.closed());
    }

    #[test]
    fn an_open_pipe_passes_everything() {
        let mut out = QuietPipe::new(reader(100, io::ErrorKind::BrokenPipe));
        assert!(writeln!(out, "all of it").is_ok());
        assert!(!out.closed());
        assert_eq!(out.inner.got, b"all of it\n");
    }
}
