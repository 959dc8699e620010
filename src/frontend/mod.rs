//! Front-ends turn proposal text into [`crate::change::Statement`]s.

pub mod ddl;
pub mod schema_file;
