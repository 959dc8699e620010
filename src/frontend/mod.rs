//! Front-ends turn proposal text into what the judge reads: [`crate::change::Statement`]s from
//! DDL (`ddl`) and from schema files (`schema_file`, diffed against the table), and the changes
//! of a metadata file proposed as the table's next state (`metadata_diff`).

pub mod ddl;
pub mod metadata_diff;
pub mod schema_file;
