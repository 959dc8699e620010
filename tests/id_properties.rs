//! Property tests of field-id assignment: whatever sequence of changes a proposal makes, ids stay
//! unique, a retired id never comes back, new ids are always above the old `last-column-id`, and
//! `last-column-id` never goes down.

use std::collections::HashSet;
use std::sync::Arc;

use fieldgate::change::{
    Change, ChangeKind, FieldPath, NewField, Origin, Position, SourceFile, Span,
};
use fieldgate::evolve::evolve;
use fieldgate::iceberg::metadata::TableMetadata;
use fieldgate::iceberg::schema::{Field, Schema};
use fieldgate::iceberg::types::{FieldId, ListType, PrimitiveType, StructType, Type};
use proptest::prelude::*;

mod common;
use common::{one_schema_table, prim};

const NAMES: [&str; 6] = ["a", "b", "c", "status", "phone", "amount"];

#[derive(Debug, Clone)]
enum Op {
    Add {
        name: usize,
        nested: u8,
        first: bool,
    },
    Drop {
        pick: usize,
    },
    Rename {
        pick: usize,
        name: usize,
    },
    Widen {
        pick: usize,
    },
    AddIntoStruct {
        pick: usize,
        name: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..NAMES.len(), 0u8..3, any::<bool>()).prop_map(|(name, nested, first)| Op::Add {
            name,
            nested,
            first
        }),
        any::<usize>().prop_map(|pick| Op::Drop { pick }),
        (any::<usize>(), 0..NAMES.len()).prop_map(|(pick, name)| Op::Rename { pick, name }),
        any::<usize>().prop_map(|pick| Op::Widen { pick }),
        (any::<usize>(), 0..NAMES.len()).prop_map(|(pick, name)| Op::AddIntoStruct { pick, name }),
    ]
}

fn new_type(nested: u8) -> Type {
    match nested {
        0 => prim(PrimitiveType::Int),
        1 => Type::Struct(StructType {
            fields: vec![
                Field::new(0, "x", false, prim(PrimitiveType::Int)),
                Field::new(0, "y", false, prim(PrimitiveType::String)),
            ],
        }),
        _ => Type::List(ListType {
            element_id: 0,
            element_required: false,
            element: Box::new(Type::Struct(StructType {
                fields: vec![Field::new(0, "z", false, prim(PrimitiveType::Long))],
            })),
        }),
    }
}

fn base() -> TableMetadata {
    let fields = vec![
        Field::new(1, "id", true, prim(PrimitiveType::Long)),
        Field::new(2, "phone", false, prim(PrimitiveType::String)),
    ];
    one_schema_table(fields, 2)
}

/// Turns an abstract op into a change against the table's current top-level fields.
fn change(op: &Op, table: &TableMetadata) -> Change {
    let fields = &table.current_schema().fields;
    // With every column dropped, the op names a missing column, which the model refuses.
    let pick = |i: usize| {
        fields
            .get(i % fields.len().max(1))
            .map_or_else(|| "gone".to_string(), |f| f.name.clone())
    };
    let path = |name: String| FieldPath(vec![name]);
    let kind = match op {
        Op::Add {
            name,
            nested,
            first,
        } => ChangeKind::AddField {
            parent: FieldPath(Vec::new()),
            field: NewField {
                name: NAMES[*name].into(),
                field_type: new_type(*nested),
                required: false,
                doc: None,
            },
            position: first.then_some(Position::First),
        },
        Op::Drop { pick: i } => ChangeKind::Drop {
            path: path(pick(*i)),
            if_exists: false,
        },
        Op::Rename { pick: i, name } => ChangeKind::Rename {
            path: path(pick(*i)),
            new_name: NAMES[*name].into(),
        },
        Op::Widen { pick: i } => ChangeKind::UpdateType {
            path: path(pick(*i)),
            new_type: PrimitiveType::Long,
        },
        Op::AddIntoStruct { pick: i, name } => ChangeKind::AddField {
            parent: path(pick(*i)),
            field: NewField {
                name: NAMES[*name].into(),
                field_type: prim(PrimitiveType::Int),
                required: false,
                doc: None,
            },
            position: None,
        },
    };
    let source = Arc::new(SourceFile {
        name: "p.sql".into(),
        text: String::new(),
    });
    Change {
        kind,
        origin: Origin {
            source,
            statement: Span::default(),
            focus: Span::default(),
        },
    }
}

fn ids(schema: &Schema) -> Vec<FieldId> {
    schema.walk().into_iter().map(|f| f.id).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn ids_are_unique_never_reused_and_last_column_id_never_drops(ops in proptest::collection::vec(op(), 1..25)) {
        let mut table = base();
        let mut seen: HashSet<FieldId> = ids(table.current_schema()).into_iter().collect();
        let mut retired: HashSet<FieldId> = HashSet::new();
        for op in &ops {
            let before_last = table.last_column_id;
            let before_ids: HashSet<FieldId> = ids(table.current_schema()).into_iter().collect();
            // One op per statement; changes the model refuses are simply not applied.
            let evolution = evolve(&table, [vec![change(op, &table)].as_slice()]);
            table = evolution.metadata;
            let current = ids(table.current_schema());
            let unique: HashSet<FieldId> = current.iter().copied().collect();
            prop_assert_eq!(unique.len(), current.len(), "duplicate ids in {:?}", current);
            prop_assert!(table.last_column_id >= before_last);
            prop_assert!(table.last_column_id >= table.current_schema().highest_field_id());
            for id in &current {
                prop_assert!(!retired.contains(id), "retired id {} came back", id);
                if !seen.contains(id) {
                    prop_assert!(*id > before_last, "new id {} not above {}", id, before_last);
                }
            }
            retired.extend(before_ids.difference(&unique));
            seen.extend(current);
            // Every schema in the history stays unique by id.
            let schema_ids: HashSet<i32> = table.schemas.iter().map(|s| s.schema_id).collect();
            prop_assert_eq!(schema_ids.len(), table.schemas.len());
        }
    }
}
