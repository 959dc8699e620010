//! Table metadata on arbitrary bytes: the JSON parser, the typed view and a no-op rewrite, which
//! must give back the same bytes.
#![no_main]

use fieldgate::iceberg::metadata::{TableMetadata, patch};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(root) = fieldgate::json::parse_bytes(data) else {
        return;
    };
    let Ok(table) = TableMetadata::from_json(&root) else {
        return;
    };
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let written =
        patch(text, &table, &table, 0, None).expect("a no-op patch of a parsed file succeeds");
    assert_eq!(written, text);
});
