//! The DDL front-end on arbitrary text, in every dialect: located errors, never a panic.
#![no_main]

use std::sync::Arc;

use fieldgate::change::SourceFile;
use fieldgate::frontend::ddl::{Dialect, parse_sql};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for dialect in [Dialect::Spark, Dialect::Trino, Dialect::Hive] {
        let source = Arc::new(SourceFile { name: "fuzz.sql".into(), text: text.to_string() });
        if let Err(errors) = parse_sql(source, dialect) {
            for error in &errors.errors {
                assert!(error.span.end() <= text.len(), "span past the end");
            }
        }
    }
});
