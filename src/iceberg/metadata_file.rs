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

    /// The file name Java's `HadoopTableOperations` commits version `version` under.
    pub fn version_file_name(self, version: u64) -> String {
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
pub fn version_file_names(version: u64) -> [String; 3] {
    [
        Codec::None.version_file_name(version),
        Codec::Gzip.version_file_name(version),
        format!("v{version}{SUFFIX}{GZIP_EXTENSION}"),
    ]
}

/// The version a metadata directory entry is named for, as Java's `HadoopTableOperations`
/// reads it while listing: `v`, then up to the first `.` a number `Integer.parseInt` accepts,
/// then anything.
pub fn listed_version(name: &str) -> Option<i32> {
    let (version, _) = name.strip_prefix('v')?.split_once('.')?;
    java_parse_int(version)
}

/// Java's `Integer.parseInt` on ASCII text: an optional sign, then decimal digits only (no
/// spaces), within `int`'s range.
pub fn java_parse_int(text: &str) -> Option<i32> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<i32>().ok()
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
            ("２", None),
        ] {
            assert_eq!(java_parse_int(text), parsed, "{text:?}");
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
