//! fieldgate: a schema-migration linter and CI gate for Apache Iceberg tables.
//!
//! Data flows one way: committed metadata becomes a [`iceberg::metadata::TableMetadata`]; a
//! proposal becomes [`change::Statement`]s through a [`frontend`]; [`evolve`] applies them and
//! assigns field ids as Iceberg does; [`finding::Finding`]s and the new metadata come out at the
//! end, through [`report`] and [`commands`].

pub mod aws;
pub mod catalog;
pub mod change;
pub mod cli;
pub mod commands;
pub mod evolve;
pub mod failure;
pub mod finding;
pub mod frontend;
pub mod iceberg;
pub mod json;
pub mod judge;
pub mod limits;
pub mod lsp;
pub mod pipe;
pub mod plural;
pub mod proposal;
pub mod repo;
pub mod report;
pub mod rules;
pub mod session;
pub mod span;
pub mod storage;
pub mod suggest;
pub mod suppress;
pub mod verify;
pub mod yaml;
