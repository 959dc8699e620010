//! Hostile Parquet files given to `fieldgate verify`, the real binary: a tiny zstd page that
//! declares more than the page limit decompressed, a footer claiming 2^62 rows, and a schema
//! nested past the depth limit. Each is exit 2 naming the file, where in it and the limit, under
//! a wall-time and memory cap, and the input is left as it was. The files are written here by the
//! parquet crate's own writer, and the footers rewritten by its metadata writer.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Repetition, ZstdLevel};
use parquet::file::metadata::{
    FileMetaData, ParquetMetaData, ParquetMetaDataReader, ParquetMetaDataWriter,
};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::{SchemaDescriptor, Type};

fn table() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify/people")
}

/// `fieldgate verify` under a 2 GiB address-space cap (prlimit, where it exists) and a 60 s
/// wall-time budget.
fn verify(file: &Path) -> Output {
    let capped = Command::new("prlimit").arg("--version").output().is_ok();
    let mut command = if capped {
        let mut c = Command::new("prlimit");
        c.args(["--as=2147483648", "--"]);
        c.arg(env!("CARGO_BIN_EXE_fieldgate"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_fieldgate"))
    };
    let started = Instant::now();
    let out = command
        .arg("verify")
        .arg("--metadata")
        .arg(table())
        .arg(file)
        .env("NO_COLOR", "1")
        .output()
        .expect("fieldgate runs");
    assert!(started.elapsed() < Duration::from_secs(60));
    out
}

fn people_schema() -> Arc<Schema> {
    let with_id = |name: &str, t: DataType, nullable: bool, id: &str| {
        Field::new(name, t, nullable).with_metadata(
            [("PARQUET:field_id".to_string(), id.to_string())]
                .into_iter()
                .collect::<std::collections::HashMap<_, _>>(),
        )
    };
    Arc::new(Schema::new(vec![
        with_id("id", DataType::Int64, false, "1"),
        with_id("name", DataType::Utf8, true, "2"),
    ]))
}

fn write(path: &Path, name: String, props: WriterProperties) {
    let schema = people_schema();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(vec![1])),
        Arc::new(StringArray::from(vec![name])),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let mut writer =
        ArrowWriter::try_new(File::create(path).unwrap(), schema, Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// The file's data pages followed by `metadata` as its footer.
fn with_footer(path: &Path, metadata: &ParquetMetaData) {
    let bytes = fs::read(path).unwrap();
    let footer = u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap());
    let mut out = bytes[..bytes.len() - 8 - footer as usize].to_vec();
    ParquetMetaDataWriter::new(&mut out, metadata)
        .finish()
        .unwrap();
    fs::write(path, out).unwrap();
}

fn assert_refused(out: &Output, file: &Path, expected: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let name = file.file_name().unwrap().to_string_lossy();
    assert!(stderr.contains(&*name), "{stderr}");
    for part in expected {
        assert!(stderr.contains(part), "{part} not in {stderr}");
    }
}

#[test]
fn a_tiny_zstd_page_declaring_more_than_the_page_limit_is_refused_before_decompression() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bomb.parquet");
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap()))
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::None)
        .build();
    write(&file, "a".repeat(65 << 20), props);
    let before = fs::read(&file).unwrap();
    assert!(before.len() < 64 << 10, "{} bytes", before.len());
    let out = verify(&file);
    assert_refused(
        &out,
        &file,
        &[
            "row group 0, column `name`",
            "bytes decompressed, more than the 67108864-byte page limit",
        ],
    );
    assert_eq!(fs::read(&file).unwrap(), before, "the input is untouched");
}

#[test]
fn a_footer_claiming_2_to_the_62_rows_is_refused_before_any_row_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rows.parquet");
    write(&file, "x".into(), WriterProperties::default());
    let meta = ParquetMetaDataReader::new()
        .parse_and_finish(&File::open(&file).unwrap())
        .unwrap();
    let f = meta.file_metadata();
    let claimed = FileMetaData::new(
        f.version(),
        1 << 62,
        f.created_by().map(str::to_string),
        f.key_value_metadata().cloned(),
        f.schema_descr_ptr(),
        f.column_orders().cloned(),
    );
    // The metadata writer sums the row groups' counts into the file's, so the row group claims.
    let group = meta.row_groups()[0]
        .clone()
        .into_builder()
        .set_num_rows(1 << 62)
        .build()
        .unwrap();
    with_footer(&file, &ParquetMetaData::new(claimed, vec![group]));
    let out = verify(&file);
    assert_refused(
        &out,
        &file,
        &[
            "the footer declares 4611686018427387904 rows",
            "more than the 100000000 rows one run reads",
        ],
    );
}

#[test]
fn a_schema_nested_past_the_depth_limit_is_refused_before_it_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deep.parquet");
    write(&file, "x".into(), WriterProperties::default());
    let meta = ParquetMetaDataReader::new()
        .parse_and_finish(&File::open(&file).unwrap())
        .unwrap();
    let mut node = Type::primitive_type_builder("leaf", parquet::basic::Type::INT32)
        .with_repetition(Repetition::OPTIONAL)
        .build()
        .unwrap();
    for level in 0..150 {
        node = Type::group_type_builder(&format!("g{level}"))
            .with_repetition(Repetition::OPTIONAL)
            .with_fields(vec![Arc::new(node)])
            .build()
            .unwrap();
    }
    let root = Type::group_type_builder("schema")
        .with_fields(vec![Arc::new(node)])
        .build()
        .unwrap();
    let schema = Arc::new(SchemaDescriptor::new(Arc::new(root)));
    let f = meta.file_metadata();
    let deep = FileMetaData::new(f.version(), 0, None, None, schema, None);
    with_footer(&file, &ParquetMetaData::new(deep, Vec::new()));
    let out = verify(&file);
    assert_refused(
        &out,
        &file,
        &["the schema nests groups more than 100 levels deep"],
    );
}
