//! fieldgate: a schema-migration linter and CI gate for Apache Iceberg tables.
//!
//! Data flows one way: committed metadata becomes a [`iceberg::metadata::TableMetadata`]; a
//! proposal becomes [`change::Statement`]s through a [`frontend`]; [`evolve`] applies them and
//! assigns field ids as Iceberg does; findings and the new metadata come out at the end.

pub mod change;
pub mod frontend;
pub mod iceberg;
pub mod json;
pub mod yaml;
