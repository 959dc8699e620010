//! How readers find a column of an old data file. Iceberg's readers match field ids; tables
//! without them (Hive, plain Parquet, Delta without column mapping) are the same model read by
//! name or by position, so the same rules can say what a change does to each.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mapping {
    /// Iceberg's own: by field id, so renames and reorders are safe.
    #[default]
    FieldId,
    /// By column name (Parquet read by name, files without ids and no name mapping): a rename
    /// orphans data, a re-added name resurrects it.
    Name,
    /// By ordinal position (Hive/Impala/Presto reading ORC or Parquet by index): any add in the
    /// middle, reorder or middle drop shifts data.
    Position,
}

impl Mapping {
    pub const ALL: [Mapping; 3] = [Mapping::FieldId, Mapping::Name, Mapping::Position];

    pub fn parse(text: &str) -> Option<Mapping> {
        Mapping::ALL.into_iter().find(|m| m.as_str() == text)
    }

    /// The spelling in configuration and schema files: `field-id`, `name`, `position`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mapping::FieldId => "field-id",
            Mapping::Name => "name",
            Mapping::Position => "position",
        }
    }
}

impl fmt::Display for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
