//! What `metadata-drift` compares outside the schemas: the format version, the partition specs
//! and sort orders, and the counters Java keeps beside them. Specs and orders are compared as
//! Iceberg Java identifies them, by `spec-id` and `order-id` (the list's order means nothing to
//! a reader), so a spec or order changed in place, removed, added or given another id is named
//! with its id and both versions.

use std::cell::OnceCell;
use std::collections::HashMap;

use crate::evolve::last_partition_id;
use crate::iceberg::metadata::TableMetadata;
use crate::iceberg::partition::PARTITION_DATA_ID_START;
use crate::iceberg::sort::SortField;
use crate::iceberg::types::FieldId;

/// Every difference outside the schemas, in words, expected (from the proposals) against
/// committed. `last-partition-id` is compared as Java reads it (derived from the specs where a
/// v1 table omits it): a counter set past or below what the specs give changes the ids the next
/// partition field receives, so every later spec would differ from what an engine writes.
pub fn layout_differences(expected: &TableMetadata, committed: &TableMetadata) -> Vec<String> {
    let mut out = Vec::new();
    let counters = [
        (
            "format-version",
            i64::from(expected.format_version),
            i64::from(committed.format_version),
        ),
        (
            "default-spec-id",
            i64::from(expected.default_spec_id),
            i64::from(committed.default_spec_id),
        ),
        (
            "last-partition-id",
            i64::from(last_partition_id(expected)),
            i64::from(last_partition_id(committed)),
        ),
        (
            "default-sort-order-id",
            i64::from(expected.default_sort_order_id),
            i64::from(committed.default_sort_order_id),
        ),
    ];
    for (key, want, have) in counters {
        if want != have {
            out.push(format!(
                "`{key}` is {have} in the metadata, {want} from the migrations"
            ));
        }
    }
    let columns = (Columns::of(expected), Columns::of(committed));
    out.extend(by_id(
        "partition spec",
        (&specs(expected), &specs(committed)),
        &columns,
        |fields: &Vec<SpecField>, c| describe_spec(fields, c),
    ));
    out.extend(by_id(
        "sort order",
        (&orders(expected), &orders(committed)),
        &columns,
        |fields: &Vec<SortField>, c| describe_order(fields, c),
    ));
    out
}

/// Whether the two agree on everything [`layout_differences`] compares, without putting a
/// difference into words.
pub fn same_layout(a: &TableMetadata, b: &TableMetadata) -> bool {
    a.format_version == b.format_version
        && a.default_spec_id == b.default_spec_id
        && last_partition_id(a) == last_partition_id(b)
        && a.default_sort_order_id == b.default_sort_order_id
        && same_by_id(&specs(a), &specs(b))
        && same_by_id(&orders(a), &orders(b))
}

/// An entry of a list Java indexes by id, with its id.
type Keyed<T> = (i32, T);

/// Each entry by its id. The reader refuses a list that holds an id twice, as Java does, so
/// every entry is found under its id.
fn index<T>(list: &[(i32, T)]) -> HashMap<i32, &T> {
    list.iter().map(|(id, entry)| (*id, entry)).collect()
}

/// Two lists holding the same entry under each id.
fn same_by_id<T: PartialEq>(a: &[(i32, T)], b: &[(i32, T)]) -> bool {
    a.len() == b.len() && index(a) == index(b)
}

fn orders(m: &TableMetadata) -> Vec<(i32, Vec<SortField>)> {
    m.sort_orders
        .iter()
        .map(|order| (order.order_id, order.fields.clone()))
        .collect()
}

/// A partition field as compared: source ids, field id, name, transform.
type SpecField = (Vec<i32>, i32, String, String);

/// The partition specs with v1's implied field ids made explicit, so a writer that spells them
/// out is no drift from one that does not.
fn specs(m: &TableMetadata) -> Vec<(i32, Vec<SpecField>)> {
    m.partition_specs
        .iter()
        .map(|spec| {
            let fields = spec
                .fields
                .iter()
                .zip(PARTITION_DATA_ID_START..)
                .map(|(f, implied)| {
                    let id = f.field_id.unwrap_or(implied);
                    (
                        f.source_ids.clone(),
                        id,
                        f.name.clone(),
                        f.transform.clone(),
                    )
                })
                .collect();
            (spec.spec_id, fields)
        })
        .collect()
}

/// Two lists of `what` (a spec or an order) compared by id: each expected id missing, changed
/// or found under another id in the committed list, and each committed id no migration makes.
/// `describe` puts an entry into words with its own metadata's `columns`. Indexed by id, so a
/// list of many thousands costs one pass, not one per entry.
fn by_id<T: PartialEq>(
    what: &str,
    (expected, committed): (&[Keyed<T>], &[Keyed<T>]),
    columns: &(Columns, Columns),
    describe: impl Fn(&T, &Columns) -> String,
) -> Vec<String> {
    let expected_words = |entry: &T| describe(entry, &columns.0);
    let committed_words = |entry: &T| describe(entry, &columns.1);
    let mut out = Vec::new();
    let wanted = index(expected);
    let held = index(committed);
    // Committed entries under an id no migration makes, in the file's order: where an expected
    // entry that is missing under its own id may have gone.
    let mut extra: Vec<(i32, &T)> = committed
        .iter()
        .filter(|(id, _)| !wanted.contains_key(id))
        .map(|(id, entry)| (*id, entry))
        .collect();
    for (id, want) in expected {
        match held.get(id) {
            Some(have) if *have == want => {}
            Some(have) => out.push(format!(
                "{what} {id} is `{}` in the metadata, `{}` from the migrations",
                committed_words(have),
                expected_words(want)
            )),
            None => match extra.iter().position(|(_, have)| *have == want) {
                Some(at) => {
                    let (other, _) = extra.remove(at);
                    out.push(format!(
                        "{what} {id} (`{}`) is {what} {other} in the metadata",
                        expected_words(want)
                    ));
                }
                None => out.push(format!(
                    "{what} {id} (`{}`) is missing from the metadata",
                    expected_words(want)
                )),
            },
        }
    }
    for (id, have) in extra {
        out.push(format!(
            "{what} {id} (`{}`) is in the metadata, but no migration makes it",
            committed_words(have)
        ));
    }
    out
}

/// Columns as a difference names them: by the path in the newest schema that holds the id,
/// else by the id. Indexed once, on the first name asked, so describing many specs or orders
/// costs one walk of the schemas.
struct Columns<'m> {
    metadata: &'m TableMetadata,
    names: OnceCell<HashMap<FieldId, String>>,
}

impl<'m> Columns<'m> {
    fn of(metadata: &'m TableMetadata) -> Columns<'m> {
        Columns {
            metadata,
            names: OnceCell::new(),
        }
    }

    fn name(&self, id: FieldId) -> String {
        let names = self.names.get_or_init(|| {
            let mut names = HashMap::new();
            for schema in &self.metadata.schemas {
                for field in schema.walk() {
                    names.insert(field.id, field.path);
                }
            }
            names
        });
        names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("field {id}"))
    }
}

/// `transform(sources)`, as Iceberg writes a term: `identity` shows the column alone.
fn term(transform: &str, sources: &[FieldId], name: impl Fn(FieldId) -> String) -> String {
    let sources: Vec<String> = sources.iter().map(|id| name(*id)).collect();
    match transform {
        "identity" => sources.join(", "),
        other => format!("{other}({})", sources.join(", ")),
    }
}

fn describe_spec(fields: &[SpecField], columns: &Columns) -> String {
    let name = |id| columns.name(id);
    if fields.is_empty() {
        return "unpartitioned".into();
    }
    fields
        .iter()
        .map(|(sources, id, field, transform)| {
            format!("{field}={} (id {id})", term(transform, sources, name))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn describe_order(fields: &[SortField], columns: &Columns) -> String {
    let name = |id| columns.name(id);
    if fields.is_empty() {
        return "unsorted".into();
    }
    fields
        .iter()
        .map(|f| {
            format!(
                "{} {} {}",
                term(&f.transform, &f.source_ids, name),
                f.direction,
                f.null_order
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::{Columns, by_id};
    use crate::iceberg::metadata::TableMetadata;

    fn compared(expected: &[(i32, &str)], committed: &[(i32, &str)]) -> Vec<String> {
        let text = r#"{"format-version":2,"table-uuid":"00000000-0000-4000-8000-000000000000","last-sequence-number":0,"partition-specs":[{"spec-id":0,"fields":[]}],"default-spec-id":0,"last-partition-id":999,"sort-orders":[{"order-id":0,"fields":[]}],"default-sort-order-id":0,"location":"/t","last-updated-ms":0,"last-column-id":1,"current-schema-id":0,
            "schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}]}"#;
        let table = TableMetadata::from_json(&crate::json::parse(text).unwrap()).unwrap();
        let columns = (Columns::of(&table), Columns::of(&table));
        let words = |t: &&str, _: &Columns| t.to_string();
        by_id("sort order", (expected, committed), &columns, words)
    }

    #[test]
    fn orders_are_named_by_id_changed_removed_added_or_renumbered() {
        let expected = [(0, "unsorted"), (1, "id asc nulls-first")];
        assert!(compared(&expected, &[(1, "id asc nulls-first"), (0, "unsorted")]).is_empty());
        assert_eq!(
            compared(&expected, &[(0, "unsorted"), (1, "id desc nulls-last")]),
            [
                "sort order 1 is `id desc nulls-last` in the metadata, `id asc nulls-first` from the migrations"
            ]
        );
        assert_eq!(
            compared(&expected, &[(0, "unsorted")]),
            ["sort order 1 (`id asc nulls-first`) is missing from the metadata"]
        );
        assert_eq!(
            compared(&expected, &[(0, "unsorted"), (3, "id asc nulls-first")]),
            ["sort order 1 (`id asc nulls-first`) is sort order 3 in the metadata"]
        );
        assert_eq!(
            compared(
                &expected,
                &[
                    (0, "unsorted"),
                    (1, "id asc nulls-first"),
                    (2, "ts asc nulls-first")
                ]
            ),
            ["sort order 2 (`ts asc nulls-first`) is in the metadata, but no migration makes it"]
        );
    }
}
