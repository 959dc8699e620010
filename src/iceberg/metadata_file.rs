//! Metadata files as Iceberg Java names, compresses and finds them (`TableMetadataParser.Codec`,
//! `HadoopTableOperations`): a name says whether the file is gzip-compressed (`.gz.metadata.json`,
//! or the older `.metadata.json.gz`), the table property `write.metadata.compression-codec` says
//! how the next one is written, and a Hadoop table's version `N` is the first of
//! `vN.metadata.json`, `vN.gz.metadata.json` and `vN.metadata.json.gz` that exists.
//!
//! A pull request can commit a gzip file of a few kilobytes that inflates to gigabytes, so
//! decompression stops at [`MAX_DECOMPRESSED_BYTES`].

use std::io::{self, Read, Write};

/// The most a compressed metadata file may inflate to. Table metadata of a large, long-lived
/// table is tens of megabytes; anything near this is a bomb, not a table.
pub const MAX_DECOMPRESSED_BYTES: u64 = 256 << 20;

/// The table property naming the codec of the metadata files a commit writes.
pub const COMPRESSION_PROPERTY: &str = "write.metadata.compression-codec";

const SUFFIX: &str = ".metadata.json";
const GZIP_EXTENSION: &str = ".gz";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    None,
    Gzip,
}

impl Codec {
    /// The codec a file's name says, as Java's `Codec.fromFileName`: gzip for a name ending in
    /// `.metadata.json.gz`, or with `.gz` just before its last `.metadata.json`. A name without
    /// `.metadata.json` (a schema file, a hand-named copy) is read as it is.
    pub fn of_file_name(name: &str) -> Codec {
        if name.ends_with(".metadata.json.gz") {
            return Codec::Gzip;
        }
        match name.rfind(SUFFIX) {
            Some(at) if name[..at].ends_with(GZIP_EXTENSION) => Codec::Gzip,
            _ => Codec::None,
        }
    }

    /// The codec a table's `write.metadata.compression-codec` names, as Java's `Codec.fromName`
    /// reads it (upper-cased as `toUpperCase(Locale.ROOT)` does, then `NONE` or `GZIP`);
    /// `None` (no compression) when the property is absent.
    pub fn of_property(value: Option<&str>) -> Result<Codec, String> {
        let Some(value) = value else {
            return Ok(Codec::None);
        };
        match value.to_uppercase().as_str() {
            "NONE" => Ok(Codec::None),
            "GZIP" => Ok(Codec::Gzip),
            _ => Err(format!(
                "`{COMPRESSION_PROPERTY}` is `{value}`, which Iceberg does not know (Java: \"Invalid codec name\"): use `none` or `gzip`"
            )),
        }
    }

    /// The file name Java's `HadoopTableOperations` commits version `version` under (`v-1...`
    /// for a negative one, as Java's string concatenation writes an `int`).
    pub fn version_file_name(self, version: i32) -> String {
        match self {
            Codec::None => format!("v{version}{SUFFIX}"),
            Codec::Gzip => format!("v{version}{GZIP_EXTENSION}{SUFFIX}"),
        }
    }

    /// `text` as a file of this codec holds it.
    pub fn encode(self, text: &str) -> Result<Vec<u8>, String> {
        match self {
            Codec::None => Ok(text.as_bytes().to_vec()),
            Codec::Gzip => {
                let mut encoder =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                encoder
                    .write_all(text.as_bytes())
                    .and_then(|()| encoder.finish())
                    .map_err(|e| format!("cannot compress the metadata: {e}"))
            }
        }
    }

    /// A file's bytes as the text they hold: gzip members inflated, within `limit` bytes.
    pub fn decode(self, bytes: Vec<u8>, limit: u64) -> Result<Vec<u8>, String> {
        match self {
            Codec::None => Ok(bytes),
            Codec::Gzip => gunzip(&bytes, limit),
        }
    }
}

/// The names version `version` of a Hadoop table may have, in the order Java looks for them.
pub fn version_file_names(version: i32) -> [String; 3] {
    [
        Codec::None.version_file_name(version),
        Codec::Gzip.version_file_name(version),
        format!("v{version}{SUFFIX}{GZIP_EXTENSION}"),
    ]
}

/// The version a metadata directory entry is named for, as Java's `HadoopTableOperations`
/// reads it while listing: the name matches `v([^.]*)\..*` (whose `.` matches no line
/// terminator) and the group is a number `Integer.parseInt` accepts.
pub fn listed_version(name: &str) -> Option<i32> {
    let (version, rest) = name.strip_prefix('v')?.split_once('.')?;
    if rest.contains(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']) {
        return None;
    }
    java_parse_int(version)
}

/// The version a Hadoop table's `version-hint.text` holding `bytes` names, as Java's
/// `HadoopTableOperations.findVersion` reads it: decoded as UTF-8 with malformed bytes replaced,
/// the first line as `BufferedReader.readLine` ends it (at `\n`, `\r` or `\r\n`), parsed by
/// `Integer.parseInt`. `None` where Java's read throws (an empty file, `2 `, a number beyond
/// `int`), and Java lists the directory instead.
pub fn hint_version(bytes: &[u8]) -> Option<i32> {
    let text = String::from_utf8_lossy(bytes);
    java_parse_int(text.split(['\n', '\r']).next().unwrap_or_default())
}

/// Java's `Integer.parseInt(text)`: an optional `+` or `-`, then one or more digits as
/// `Character.digit(ch, 10)` reads them (any decimal digit of the Basic Multilingual Plane:
/// `٣` and `３` are 3; a digit outside it is two UTF-16 units, neither a digit), within `int`'s
/// range. No spaces.
pub fn java_parse_int(text: &str) -> Option<i32> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() {
        return None;
    }
    // Accumulated negatively, as Java does, so that `-2147483648` fits.
    let mut value: i32 = 0;
    for c in digits.chars() {
        let digit = java_decimal_digit(c)?;
        value = value.checked_mul(10)?.checked_sub(digit)?;
    }
    if negative {
        Some(value)
    } else {
        value.checked_neg()
    }
}

/// The first code point of each run of ten decimal digits (`0` to `9`) in the Basic
/// Multilingual Plane: the characters Java 17's `Character.digit(ch, 10)` reads as digits (the
/// same in Java 25). Unicode assigns decimal digits only in such runs; `tests/java_digits.rs`
/// compares every BMP character with the JVM's answer.
const BMP_DIGIT_ZEROS: [u32; 37] = [
    0x0030, 0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
    0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80,
    0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0,
    0xFF10,
];

/// `c`'s value as Java's `Character.digit(c, 10)` reads it.
fn java_decimal_digit(c: char) -> Option<i32> {
    let code = u32::from(c);
    let at = BMP_DIGIT_ZEROS.partition_point(|&zero| zero <= code);
    let zero = BMP_DIGIT_ZEROS.get(at.checked_sub(1)?)?;
    let digit = code - zero;
    (digit < 10).then_some(digit as i32)
}

/// Every gzip member of `bytes`, inflated and concatenated, as Java's `GZIPInputStream` reads
/// them: bytes after a member that do not start a valid gzip header are ignored, as Java
/// ignores them; a corrupt member is an error.
fn gunzip(bytes: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut rest = bytes;
    let mut first = true;
    loop {
        let mut member = flate2::bufread::GzDecoder::new(rest);
        if member.header().is_none() {
            if first {
                return Err("not gzip data, though the file's name says gzip (`.gz`)".into());
            }
            return Ok(out);
        }
        let room = limit.saturating_sub(out.len() as u64);
        let read = (&mut member)
            .take(room.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(|e| corrupt(&e))?;
        if read as u64 > room {
            return Err(format!(
                "it inflates to more than {} MiB, the most fieldgate reads from a compressed metadata file",
                limit >> 20
            ));
        }
        rest = member.into_inner();
        first = false;
        if rest.is_empty() {
            return Ok(out);
        }
    }
}

fn corrupt(e: &io::Error) -> String {
    format!("the gzip data is corrupt or cut short ({e})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_the_codec_as_java_reads_them() {
        for (name, codec) in [
            ("v3.metadata.json", Codec::None),
            ("v3.gz.metadata.json", Codec::Gzip),
            ("v3.metadata.json.gz", Codec::Gzip),
            ("00001-a.gz.metadata.json", Codec::Gzip),
            ("t/metadata/x.gz.metadata.json.metadata.json", Codec::None),
            ("gz.metadata.json", Codec::None),
            ("schema.json.gz", Codec::None),
            ("table.yaml", Codec::None),
        ] {
            assert_eq!(Codec::of_file_name(name), codec, "{name}");
        }
        assert_eq!(
            version_file_names(7),
            [
                "v7.metadata.json",
                "v7.gz.metadata.json",
                "v7.metadata.json.gz"
            ]
        );
    }

    #[test]
    fn the_property_is_read_as_java_upper_cases_it() {
        assert_eq!(Codec::of_property(None), Ok(Codec::None));
        assert_eq!(Codec::of_property(Some("gzip")), Ok(Codec::Gzip));
        assert_eq!(Codec::of_property(Some("None")), Ok(Codec::None));
        // Dotless i upper-cases to I under Locale.ROOT, as in Rust.
        assert_eq!(Codec::of_property(Some("gz\u{131}p")), Ok(Codec::Gzip));
        let err = Codec::of_property(Some("zstd")).unwrap_err();
        assert!(
            err.contains("Invalid codec name") && err.contains("gzip"),
            "{err}"
        );
    }

    #[test]
    fn lists_versions_as_java_matches_them() {
        for (name, version) in [
            ("v12.metadata.json", Some(12)),
            ("v3.gz.metadata.json", Some(3)),
            ("v4.metadata.json.gz", Some(4)),
            ("v+5.anything", Some(5)),
            ("v\u{664}.metadata.json", Some(4)),
            ("v-2.metadata.json", Some(-2)),
            ("v6.metadata\njson", None),
            ("v6.\u{2028}", None),
            ("v5", None),
            ("v.metadata.json", None),
            ("vx.metadata.json", None),
            ("version-hint.text", None),
        ] {
            assert_eq!(listed_version(name), version, "{name}");
        }
    }

    #[test]
    fn parses_as_java_integer_parse_int() {
        for (text, parsed) in [
            ("2", Some(2)),
            ("+2", Some(2)),
            ("-3", Some(-3)),
            ("007", Some(7)),
            ("2 ", None),
            (" 2", None),
            ("", None),
            ("+", None),
            ("2147483648", None),
            ("2147483647", Some(i32::MAX)),
            ("-2147483648", Some(i32::MIN)),
            ("-2147483649", None),
            ("-", None),
            // Any decimal digit Java's `Character.digit` reads: Arabic-Indic, fullwidth, mixed.
            ("\u{663}", Some(3)),
            ("+\u{FF11}\u{FF12}", Some(12)),
            ("-1\u{967}", Some(-11)),
            (
                "\u{FF12}\u{FF11}\u{FF14}\u{FF17}\u{FF14}\u{FF18}\u{FF13}\u{FF16}\u{FF14}\u{FF18}",
                None,
            ),
            // Other numerals are not decimal digits; a digit outside the BMP is two UTF-16 units.
            ("\u{2163}", None),
            ("\u{B2}", None),
            ("\u{1D7CF}", None),
            ("\u{FF21}", None),
        ] {
            assert_eq!(java_parse_int(text), parsed, "{text:?}");
        }
    }

    #[test]
    fn reads_the_hint_s_first_line_as_java_read_line() {
        for (bytes, version) in [
            (&b"4\r\nrest"[..], Some(4)),
            (b"4\rrest", Some(4)),
            (b"", None),
            (b"\n4", None),
            (b"4\n\xff", Some(4)),
            (b"\xff4", None),
            (b"\xd9\xa4", Some(4)),
        ] {
            assert_eq!(hint_version(bytes), version, "{bytes:?}");
        }
    }

    #[test]
    fn round_trips_and_reads_concatenated_members() {
        let one = Codec::Gzip.encode("{\"a\":").unwrap();
        let two = Codec::Gzip.encode("1}").unwrap();
        let mut both = [one.clone(), two].concat();
        assert_eq!(
            Codec::Gzip.decode(both.clone(), 1 << 20).unwrap(),
            b"{\"a\":1}"
        );
        // Trailing bytes that are no gzip header are ignored, as GZIPInputStream ignores them.
        both.extend_from_slice(b"\n\0junk");
        assert_eq!(Codec::Gzip.decode(both, 1 << 20).unwrap(), b"{\"a\":1}");
        assert_eq!(Codec::None.decode(one.clone(), 1).unwrap(), one);
    }

    #[test]
    fn refuses_what_is_not_gzip_or_is_cut_short() {
        let err = Codec::Gzip.decode(b"{}".to_vec(), 1 << 20).unwrap_err();
        assert!(err.contains("not gzip"), "{err}");
        let whole = Codec::Gzip.encode(&"x".repeat(10_000)).unwrap();
        let err = Codec::Gzip
            .decode(whole[..whole.len() - 4].to_vec(), 1 << 20)
            .unwrap_err();
        assert!(err.contains("corrupt or cut short"), "{err}");
    }

    #[test]
    fn a_bomb_stops_at_the_limit() {
        // 16 MiB of zeros compress to about 16 KiB; a limit of 1 MiB stops the inflation there.
        let zeros = vec![0u8; 16 << 20];
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(&zeros).unwrap();
        let bomb = encoder.finish().unwrap();
        assert!(bomb.len() < 1 << 20);
        let err = Codec::Gzip.decode(bomb, 1 << 20).unwrap_err();
        assert!(err.contains("more than 1 MiB"), "{err}");
        let exact = Codec::Gzip.encode(&"y".repeat(1 << 20)).unwrap();
        assert_eq!(Codec::Gzip.decode(exact, 1 << 20).unwrap().len(), 1 << 20);
    }
}
