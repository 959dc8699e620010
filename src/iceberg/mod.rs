//! The Iceberg table model, pure: types, schemas, metadata, partition specs, sort orders and name
//! mappings, with the spec's JSON forms. Nothing here touches the file system.

pub mod schema;
pub mod types;
