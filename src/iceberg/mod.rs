//! The Iceberg table model, pure: types, schemas, metadata, partition specs, sort orders and name
//! mappings, with the spec's JSON forms. Nothing here touches the file system.

pub mod codec;
pub mod geospatial;
pub mod mapping;
pub mod metadata;
pub mod metadata_file;
pub mod metadata_log;
pub mod name_mapping;
pub mod names;
pub mod pair;
pub mod partition;
pub mod pinned;
pub mod schema;
pub mod schema_hash;
pub mod sort;
pub mod table_patch;
pub mod types;
pub mod validate;
