//! A schema file's `properties`: table properties by name, each a string, or null for a
//! property the table must not have. A table description takes them as its properties; a
//! proposal sets (or unsets) those it states, and leaves the others as they are.

use super::{Kind, Reader};
use crate::frontend::schema_file::{FileProperty, SchemaFileError, node_span, span_of};
use crate::iceberg::metadata::RESERVED_PROPERTIES;
use crate::iceberg::name_mapping::{NAME_MAPPING_PROPERTY, NameMapping};
use crate::yaml::YamlNode;

impl Reader<'_> {
    /// The file's `properties`, none when it leaves them out.
    pub(super) fn properties(&mut self, root: &YamlNode) -> Vec<FileProperty> {
        let Some(node) = root.get("properties") else {
            return Vec::new();
        };
        let Some(entries) = node.as_map() else {
            let error = self.wrong_kind(node, "`properties` to be a mapping of names to strings");
            self.push(error);
            return Vec::new();
        };
        let mut out = Vec::new();
        for entry in entries {
            let key_span = span_of(entry.key_span);
            if RESERVED_PROPERTIES.contains(&entry.key.as_str()) {
                let help = match entry.key.as_str() {
                    "format-version" => {
                        "write the table's format version as the top-level `format-version`"
                    }
                    _ => "Iceberg keeps it in the metadata itself, outside `properties`",
                };
                self.push(
                    SchemaFileError::new(
                        Kind::InvalidValue,
                        key_span,
                        format!("`{}` is reserved: it is not a table property", entry.key),
                    )
                    .with_help(help),
                );
                continue;
            }
            let value = if entry.value.is_null() {
                None
            } else {
                match self.string(&entry.value, &format!("property `{}`", entry.key)) {
                    Some(value) => Some(value),
                    None => continue,
                }
            };
            if entry.key == NAME_MAPPING_PROPERTY
                && let Some(Err(e)) = value.as_deref().map(NameMapping::parse_value)
            {
                self.push(SchemaFileError::new(
                    Kind::InvalidValue,
                    node_span(&entry.value),
                    e,
                ));
                continue;
            }
            out.push(FileProperty {
                key: entry.key.clone(),
                key_span,
                value,
                value_span: node_span(&entry.value),
            });
        }
        out
    }
}
