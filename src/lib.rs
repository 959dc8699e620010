//! fieldgate: a schema-migration linter and CI gate for Apache Iceberg tables.

pub mod json;
