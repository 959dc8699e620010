//! Just enough of Thrift's compact protocol to read the few counts a Parquet footer and page
//! header declare (rows, row groups, schema shape, page sizes) before the parquet crate acts on
//! them: it allocates what a page header declares and rebuilds the schema recursively, so a
//! hostile file must be measured first. Skipping never allocates and nesting is bounded.

use std::io::Read;

/// Thrift structs nest this deep at most (Parquet's own nest a handful of levels).
const MAX_NESTING: usize = 32;

pub const STRUCT: u8 = 12;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;

pub struct Compact<R> {
    input: R,
    consumed: u64,
    limit: u64,
    over_limit: bool,
}

impl<R: Read> Compact<R> {
    /// Reads at most `limit` bytes from `input`.
    pub fn new(input: R, limit: u64) -> Compact<R> {
        Compact {
            input,
            consumed: 0,
            limit,
            over_limit: false,
        }
    }

    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Whether an error came from the limit given to [`Compact::new`], not from the bytes.
    pub fn over_limit(&self) -> bool {
        self.over_limit
    }

    fn byte(&mut self) -> Result<u8, String> {
        if self.consumed >= self.limit {
            self.over_limit = true;
            return Err(format!(
                "a Thrift structure longer than {} bytes",
                self.limit
            ));
        }
        let mut one = [0u8];
        self.input
            .read_exact(&mut one)
            .map_err(|e| format!("a Thrift structure is cut short ({e})"))?;
        self.consumed += 1;
        Ok(one[0])
    }

    fn skip_bytes(&mut self, mut n: u64) -> Result<(), String> {
        let mut scratch = [0u8; 4096];
        while n > 0 {
            let take = n.min(scratch.len() as u64) as usize;
            if self.consumed + take as u64 > self.limit {
                self.over_limit = true;
                return Err(format!(
                    "a Thrift structure longer than {} bytes",
                    self.limit
                ));
            }
            self.input
                .read_exact(&mut scratch[..take])
                .map_err(|e| format!("a Thrift structure is cut short ({e})"))?;
            self.consumed += take as u64;
            n -= take as u64;
        }
        Ok(())
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = self.byte()?;
            if shift < 64 {
                value |= u64::from(byte & 0x7f) << shift;
            }
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("a Thrift varint longer than ten bytes".into())
    }

    /// A zig-zag integer (i16, i32 and i64 alike).
    pub fn int(&mut self) -> Result<i64, String> {
        let z = self.varint()?;
        Ok((z >> 1) as i64 ^ -((z & 1) as i64))
    }

    /// The next field of a struct: its id and type, `None` at the struct's end. `last` is the
    /// previous field's id, from which the short form counts.
    pub fn field(&mut self, last: &mut i16) -> Result<Option<u8>, String> {
        let header = self.byte()?;
        let kind = header & 0x0f;
        if kind == 0 {
            return Ok(None);
        }
        let delta = header >> 4;
        *last = if delta == 0 {
            i16::try_from(self.int()?).map_err(|_| "a Thrift field id out of range")?
        } else {
            last.wrapping_add(i16::from(delta))
        };
        Ok(Some(kind))
    }

    /// A list's (or set's) element type and length.
    pub fn list(&mut self) -> Result<(u8, u64), String> {
        let header = self.byte()?;
        let short = u64::from(header >> 4);
        let len = if short == 15 { self.varint()? } else { short };
        Ok((header & 0x0f, len))
    }

    /// Skips a value of compact type `kind`.
    pub fn skip(&mut self, kind: u8) -> Result<(), String> {
        self.skip_nested(kind, 0)
    }

    fn skip_nested(&mut self, kind: u8, depth: usize) -> Result<(), String> {
        if depth > MAX_NESTING {
            return Err(format!("Thrift values nested more than {MAX_NESTING} deep"));
        }
        match kind {
            1 | 2 => Ok(()),
            3 => self.byte().map(drop),
            4..=6 => self.varint().map(drop),
            7 => self.skip_bytes(8),
            8 => {
                let len = self.varint()?;
                self.skip_bytes(len)
            }
            LIST | SET => {
                let (element, len) = self.list()?;
                self.skip_elements(element, len, depth)
            }
            MAP => {
                let len = self.varint()?;
                if len == 0 {
                    return Ok(());
                }
                let types = self.byte()?;
                for _ in 0..len {
                    self.skip_nested(types >> 4, depth + 1)?;
                    self.skip_nested(types & 0x0f, depth + 1)?;
                }
                Ok(())
            }
            STRUCT => self.skip_struct(depth),
            other => Err(format!("an unknown Thrift type {other}")),
        }
    }

    /// Skips `len` list elements of type `element`; a boolean element is one byte in a list.
    pub fn skip_elements(&mut self, element: u8, len: u64, depth: usize) -> Result<(), String> {
        for _ in 0..len {
            if matches!(element, 1 | 2) {
                self.byte()?;
            } else {
                self.skip_nested(element, depth + 1)?;
            }
        }
        Ok(())
    }

    fn skip_struct(&mut self, depth: usize) -> Result<(), String> {
        let mut last = 0;
        while let Some(kind) = self.field(&mut last)? {
            self.skip_nested(kind, depth + 1)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fields_and_skips_nested_values() {
        // struct { 1: i32 = -3, 3: list<binary> ["ab"], 5 (long form): struct { 1: true } }, stop
        let bytes = [
            0x15, 0x05, 0x29, 0x18, 0x02, b'a', b'b', 0x0c, 0x0a, 0x11, 0x00, 0x00,
        ];
        let mut c = Compact::new(&bytes[..], 64);
        let mut last = 0;
        assert_eq!(c.field(&mut last).unwrap(), Some(5));
        assert_eq!((last, c.int().unwrap()), (1, -3));
        assert_eq!(c.field(&mut last).unwrap(), Some(LIST));
        c.skip(LIST).unwrap();
        assert_eq!(c.field(&mut last).unwrap(), Some(STRUCT));
        assert_eq!(last, 5);
        c.skip(STRUCT).unwrap();
        assert_eq!(c.field(&mut last).unwrap(), None);
        assert_eq!(c.consumed(), bytes.len() as u64);
    }

    #[test]
    fn deep_nesting_and_overlong_input_are_errors() {
        let deep = vec![0x1c; 1000];
        let error = Compact::new(&deep[..], 10_000).skip(STRUCT).unwrap_err();
        assert!(error.contains("nested more than"), "{error}");
        // A binary declaring 2^40 bytes is refused at the limit, not allocated.
        let mut c = Compact::new(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x20][..], 100);
        assert!(c.skip(8).unwrap_err().contains("longer than 100 bytes"));
    }
}
