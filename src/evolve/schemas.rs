//! The table's schema list as a migration appends to it, one schema update per statement. Each
//! update must find out whether an identical schema already exists (Iceberg then reuses its id)
//! and which id a new one gets; done by scanning the list, both grow with the number of schemas
//! and a long migration becomes quadratic. This index keeps every step proportional to the size
//! of one schema, and counts what the migration adds to the metadata file.

use std::collections::HashMap;
use std::sync::Arc;

use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::schema::{Schema, member_count};
use crate::iceberg::schema_hash::shared_structure_hash;

pub(super) struct SchemaLog {
    /// Positions in `schemas` by `Schema::structure_hash`, oldest first. The table's own schemas
    /// are hashed once, not once per judgement (`shared_structure_hash`).
    by_structure: HashMap<u64, Vec<usize>>,
    /// Position of the current schema, as `TableMetadata::current_schema` finds it.
    current: Option<usize>,
    next_id: i32,
    /// Members (fields, elements, keys, values) of the schemas appended so far.
    pub(super) written: usize,
}

impl SchemaLog {
    pub(super) fn of(metadata: &TableMetadata) -> SchemaLog {
        let mut by_structure: HashMap<u64, Vec<usize>> = HashMap::new();
        for (position, schema) in metadata.schemas.iter().enumerate() {
            by_structure
                .entry(shared_structure_hash(schema))
                .or_default()
                .push(position);
        }
        let current = metadata
            .schemas
            .iter()
            .position(|s| s.schema_id == metadata.current_schema_id)
            .or_else(|| metadata.schemas.len().checked_sub(1));
        let next_id = metadata
            .schemas
            .iter()
            .map(|s| s.schema_id)
            .max()
            .map_or(0, |m| m + 1);
        SchemaLog {
            by_structure,
            current,
            next_id,
            written: 0,
        }
    }

    pub(super) fn current<'m>(&self, metadata: &'m TableMetadata) -> &'m Schema {
        self.current
            .and_then(|position| metadata.schemas.get(position))
            .map(|schema| &**schema)
            .unwrap_or_else(|| metadata.current_schema())
    }

    /// Makes `schema` current: unchanged if it is the current one, the id of the oldest identical
    /// schema if there is one, else appended with the next id.
    pub(super) fn commit(&mut self, metadata: &mut TableMetadata, mut schema: Schema) {
        if schema.same_structure(self.current(metadata)) {
            return;
        }
        let hash = schema.structure_hash();
        let twin = self.by_structure.get(&hash).and_then(|positions| {
            positions.iter().find_map(|&p| {
                let earlier = metadata.schemas.get(p)?;
                earlier
                    .same_structure(&schema)
                    .then_some((p, earlier.schema_id))
            })
        });
        if let Some((position, id)) = twin {
            metadata.current_schema_id = id;
            self.current = Some(position);
            return;
        }
        schema.schema_id = self.next_id;
        self.next_id += 1;
        self.written += member_count(&schema.fields);
        let position = metadata.schemas.len();
        self.by_structure.entry(hash).or_default().push(position);
        self.current = Some(position);
        metadata.current_schema_id = schema.schema_id;
        metadata.schemas.push(Arc::new(schema));
    }
}
