//! Structure hashes of shared schemas, computed once per schema. A table's schemas are parsed
//! once and shared (`Arc`) by every judgement of it, and the editor's server judges on every
//! keystroke: hashing all of a table's schemas again each time, to find a new schema's earlier
//! twin (`evolve`'s schema log), was the largest part of a judgement of a table of 100 schemas.
//!
//! Each hash is kept by the schema's allocation, with a `Weak` to it. While that `Weak` is kept
//! the allocation is not freed, so no other schema can take its address; and a shared schema is
//! never changed where it is: `Arc::get_mut` refuses while a `Weak` exists, and `Arc::make_mut`
//! moves the value to a new allocation first. So a hash found by address is the schema's.
//! Entries whose schema is gone are swept as the table grows.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use crate::iceberg::schema::Schema;

/// Entries kept before the first sweep of those whose schema is gone.
const FIRST_SWEEP: usize = 4096;

struct Hashes {
    by_address: HashMap<usize, (Weak<Schema>, u64)>,
    /// Swept when the table reaches this size: twice what was alive after the last sweep, so
    /// sweeps cost a constant share of the insertions.
    sweep_at: usize,
}

impl Hashes {
    fn new() -> Hashes {
        Hashes {
            by_address: HashMap::new(),
            sweep_at: FIRST_SWEEP,
        }
    }

    fn get(&self, schema: &Arc<Schema>) -> Option<u64> {
        let address = Arc::as_ptr(schema) as usize;
        self.by_address.get(&address).map(|(_, hash)| *hash)
    }

    fn insert(&mut self, schema: &Arc<Schema>, hash: u64) {
        if self.by_address.len() >= self.sweep_at {
            self.by_address
                .retain(|_, (weak, _)| weak.strong_count() > 0);
            self.sweep_at = FIRST_SWEEP.max(2 * self.by_address.len());
        }
        let address = Arc::as_ptr(schema) as usize;
        self.by_address
            .insert(address, (Arc::downgrade(schema), hash));
    }
}

static HASHES: Mutex<Option<Hashes>> = Mutex::new(None);

/// `schema.structure_hash()`, computed once for each shared schema.
pub fn shared_structure_hash(schema: &Arc<Schema>) -> u64 {
    if let Some(hash) = with_hashes(|hashes| hashes.get(schema)) {
        return hash;
    }
    // Hashed outside the lock: another thread's judgement need not wait for it.
    let hash = schema.structure_hash();
    with_hashes(|hashes| hashes.insert(schema, hash));
    hash
}

fn with_hashes<T>(f: impl FnOnce(&mut Hashes) -> T) -> T {
    let mut guard = HASHES.lock().unwrap_or_else(|p| p.into_inner());
    f(guard.get_or_insert_with(Hashes::new))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iceberg::schema::Field;
    use crate::iceberg::types::{PrimitiveType, Type};

    fn sample() -> Schema {
        Schema {
            schema_id: 0,
            identifier_field_ids: vec![1],
            fields: vec![
                Field::new(1, "id", true, Type::Primitive(PrimitiveType::Long)),
                Field::new(2, "name", false, Type::Primitive(PrimitiveType::String)),
            ],
        }
    }

    #[test]
    fn a_shared_schema_keeps_its_hash_and_a_changed_one_gets_its_own() {
        let schema = Arc::new(sample());
        let hash = shared_structure_hash(&schema);
        assert_eq!(hash, schema.structure_hash());
        assert_eq!(shared_structure_hash(&schema), hash);

        // Changed in place as far as `Arc` allows it: a new allocation, hashed anew.
        let mut changed = Arc::clone(&schema);
        drop(schema);
        Arc::make_mut(&mut changed).fields[0].name = "renamed".into();
        assert_ne!(changed.structure_hash(), hash);
        assert_eq!(shared_structure_hash(&changed), changed.structure_hash());
    }

    #[test]
    fn entries_of_schemas_that_are_gone_are_swept() {
        let mut hashes = Hashes::new();
        let kept: Vec<Arc<Schema>> = (0..10).map(|_| Arc::new(sample())).collect();
        for schema in &kept {
            hashes.insert(schema, 1);
        }
        for _ in 0..3 * FIRST_SWEEP {
            let gone = Arc::new(sample());
            hashes.insert(&gone, 2);
        }
        assert!(hashes.by_address.len() <= FIRST_SWEEP + 10);
        assert!(kept.iter().all(|s| hashes.get(s) == Some(1)));
    }
}
