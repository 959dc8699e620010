use std::sync::Arc;

use super::walk::placeholder_type;
use super::*;
use crate::change::{FieldPath, SourceFile, StatementKind};
use crate::evolve::evolve;

const BASE: &str = r#"
table: db.users
fields:
  - {id: 1, name: id, type: long, required: true}
  - {id: 2, name: phone, type: string, doc: mobile}
  - {id: 3, name: qty, type: int}
  - id: 4
    name: address
    type: {struct: [{id: 5, name: city, type: string}, {id: 6, name: zip, type: string}]}
  - {id: 7, name: tags, type: {list: string, element-id: 8}}
  - {id: 9, name: attrs, type: {map: [string, {struct: [{id: 12, name: a, type: int}]}], key-id: 10, value-id: 11}}
identifier-fields: [id]
dropped:
  - {id: 13, name: status, type: string}
"#;

fn base() -> TableMetadata {
    SchemaFile::parse_yaml(BASE)
        .and_then(|f| f.to_table_metadata())
        .map(|d| d.metadata)
        .unwrap()
}

/// The diff of `proposal` against [`BASE`]: each change as a short line, and the problems.
fn diff(proposal: &str) -> (Vec<String>, Vec<String>, SchemaDiff) {
    let source = Arc::new(SourceFile {
        name: "p.yaml".into(),
        text: proposal.to_string(),
    });
    let file = SchemaFile::parse_yaml(proposal).unwrap();
    let diff = file.diff(&source, &base());
    let StatementKind::Alter(changes) = &diff.statement.kind else {
        panic!("an alter statement")
    };
    let lines = changes
        .iter()
        .map(|c| {
            let focus = &proposal[c.origin.focus.offset..c.origin.focus.end()];
            let what = match &c.kind {
                ChangeKind::AddField {
                    parent,
                    field,
                    position,
                } => format!("add {}/{} {position:?}", parent.dotted(), field.name),
                ChangeKind::Rename { path, new_name } => {
                    format!("rename {} -> {new_name}", path.dotted())
                }
                ChangeKind::UpdateType { path, new_type } => {
                    format!("type {} {new_type}", path.dotted())
                }
                ChangeKind::SetRequired { path, required } => {
                    format!("required {} {required}", path.dotted())
                }
                ChangeKind::UpdateDoc { path, doc } => format!("doc {} {doc:?}", path.dotted()),
                ChangeKind::Move { path, position } => {
                    format!("move {} {position:?}", path.dotted())
                }
                ChangeKind::Drop { path, .. } => format!("drop {}", path.dotted()),
                ChangeKind::SetIdentifierFields { paths } => format!(
                    "identifiers {:?}",
                    paths.iter().map(FieldPath::dotted).collect::<Vec<_>>()
                ),
                ChangeKind::DropIdentifierFields { paths } => format!(
                    "drop identifiers {:?}",
                    paths.iter().map(FieldPath::dotted).collect::<Vec<_>>()
                ),
                other => format!("{other:?}"),
            };
            format!("{what} @{focus}")
        })
        .collect();
    let problems = diff
        .problems
        .iter()
        .map(|p| format!("{:?}: {}", p.kind, p.message))
        .collect();
    (lines, problems, diff)
}

/// Applies the diff and requires the result to be exactly the table the file describes.
fn applies_to_the_file(proposal: &str) {
    let (_, problems, diff) = diff(proposal);
    assert!(problems.is_empty(), "{problems:?}");
    let StatementKind::Alter(changes) = &diff.statement.kind else {
        panic!()
    };
    let evolution = evolve(&base(), [changes.as_slice()]);
    assert!(evolution.problems.is_empty(), "{:?}", evolution.problems);
    let after = evolution.metadata.current_schema();
    let file = SchemaFile::parse_yaml(proposal).unwrap();
    // Same names, order, types and flags; ids compared where the file has them.
    let described: Vec<(String, String, bool)> = file
        .fields
        .iter()
        .map(|f| {
            (
                f.name.clone(),
                placeholder_type(&f.field_type).to_string(),
                f.required,
            )
        })
        .collect();
    let applied: Vec<(String, String, bool)> = after
        .fields
        .iter()
        .map(|f| (f.name.clone(), f.field_type.to_string(), f.required))
        .collect();
    assert_eq!(applied, described);
    for field in &file.fields {
        if let Some(id) = field.id {
            assert_eq!(
                after
                    .fields
                    .iter()
                    .find(|f| f.name == field.name)
                    .map(|f| f.id),
                Some(id)
            );
        }
    }
}

#[test]
fn the_same_table_is_no_change() {
    let (lines, problems, _) = diff(BASE);
    assert!(
        lines.is_empty() && problems.is_empty(),
        "{lines:?} {problems:?}"
    );
}

#[test]
fn every_change_kind_points_at_its_text() {
    let proposal = r#"
table: db.users
fields:
  - {id: 2, name: mobile_phone, type: string}
  - {id: 1, name: id, type: long, required: true}
  - {id: 3, name: qty, type: long, required: true, doc: units}
  - id: 4
    name: address
    type: {struct: [{id: 6, name: zip, type: string}, {name: street, type: string}, {id: 5, name: town, type: string}]}
  - {id: 7, name: tags, type: {list: string, element-required: true}}
  - {id: 9, name: attrs, type: {map: [string, {struct: [{id: 12, name: a, type: long}, {name: b, type: int}]}], key-id: 10, value-id: 11}}
  - {name: vip_level, type: int}
"#;
    let (lines, problems, _) = diff(proposal);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        lines,
        [
            "rename phone -> mobile_phone @mobile_phone",
            "rename address.city -> town @town",
            "doc mobile_phone None @mobile_phone",
            "required qty true @true",
            "doc qty Some(\"units\") @units",
            "type qty long @long",
            "required tags.element true @string",
            "type attrs.value.a long @long",
            "move mobile_phone First @mobile_phone",
            "move address.zip First @zip",
            "add address/street Some(After(\"zip\")) @street",
            "add attrs.value/b None @b",
            "add /vip_level None @vip_level",
        ]
    );
    applies_to_the_file(proposal);
}

#[test]
fn a_missing_id_is_a_drop_and_the_drop_points_at_its_struct() {
    let proposal = "table: db.users\nfields:\n  - {id: 1, name: id, type: long, required: true}\n  - {id: 3, name: qty, type: int}\n  - {id: 4, name: address, type: {struct: [{id: 5, name: city, type: string}]}}\n  - {id: 7, name: tags, type: {list: string, element-id: 8}}\n  - {id: 9, name: attrs, type: {map: [string, {struct: [{id: 12, name: a, type: int}]}], key-id: 10, value-id: 11}}\n";
    let (lines, _, _) = diff(proposal);
    assert_eq!(lines, ["drop phone @fields", "drop address.zip @address"]);
    applies_to_the_file(proposal);
}

#[test]
fn new_fields_take_ids_in_file_order_and_keep_their_place() {
    let proposal = r#"
table: db.users
fields:
  - {name: first, type: int}
  - {id: 1, name: id, type: long, required: true}
  - {id: 2, name: phone, type: string, doc: mobile}
  - {name: middle, type: "struct<a: int, b: array<string>>"}
  - {id: 3, name: qty, type: int}
  - {id: 4, name: address, type: {struct: [{id: 5, name: city, type: string}, {id: 6, name: zip, type: string}]}}
  - {id: 7, name: tags, type: {list: string, element-id: 8}}
  - {id: 9, name: attrs, type: {map: [string, {struct: [{id: 12, name: a, type: int}]}], key-id: 10, value-id: 11}}
  - {name: last, type: "map<string, int>"}
identifier-fields: [id]
"#;
    let (lines, _, diff) = diff(proposal);
    assert_eq!(
        lines,
        [
            "add /first Some(First) @first",
            "add /middle Some(After(\"phone\")) @middle",
            "add /last None @last",
        ]
    );
    applies_to_the_file(proposal);
    let StatementKind::Alter(changes) = &diff.statement.kind else {
        panic!()
    };
    let evolution = evolve(&base(), [changes.as_slice()]);
    let ids: Vec<(String, FieldId)> = evolution
        .assigned
        .iter()
        .map(|a| (a.path.clone(), a.field_id))
        .collect();
    let expected = [
        ("first", 14),
        ("middle", 15),
        ("middle.a", 16),
        ("middle.b", 17),
        ("middle.b.element", 18),
        ("last", 19),
        ("last.key", 20),
        ("last.value", 21),
    ];
    let expected: Vec<(String, FieldId)> =
        expected.iter().map(|(p, i)| (p.to_string(), *i)).collect();
    assert_eq!(ids, expected);
}

#[test]
fn fields_of_a_type_string_pair_by_name() {
    let proposal = BASE.replace(
        "type: {struct: [{id: 5, name: city, type: string}, {id: 6, name: zip, type: string}]}",
        "type: \"struct<city: string, zip: int, street: string>\"",
    );
    let (lines, problems, _) = diff(&proposal);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        lines,
        [
            "type address.zip int @int",
            "add address/street None @street"
        ]
    );
}

#[test]
fn a_re_added_name_without_id_is_explained() {
    let proposal = BASE.replace(
        "{id: 2, name: phone, type: string, doc: mobile}",
        "{name: phone, type: string, doc: mobile}",
    );
    let (lines, _, diff) = diff(&proposal);
    assert_eq!(
        lines,
        [
            "drop phone @fields",
            "add /phone Some(After(\"id\")) @phone"
        ]
    );
    assert_eq!(diff.notes.len(), 1);
    assert_eq!(diff.notes[0].paths, ["phone", "phone"]);
    assert!(
        diff.notes[0].text.contains("write `id: 2`"),
        "{:?}",
        diff.notes
    );
    // The same with a new field's id (14 is what apply assigns): still explained.
    let renumbered = BASE.replace(
        "{id: 2, name: phone, type: string, doc: mobile}",
        "{id: 14, name: phone, type: string, doc: mobile}",
    );
    let (lines, problems, found) = self::diff(&renumbered);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(found.notes.len(), 1);
    assert!(
        found.notes[0]
            .text
            .starts_with("`phone` has id 14, a new field's, in the file"),
        "{:?}",
        found.notes
    );
}

#[test]
fn ids_the_table_retired_or_never_had_are_problems() {
    // (Without the file's own `dropped`, which would catch id 13 on reading.)
    let proposal = BASE
        .replace(
            "  - {id: 3, name: qty, type: int}\n",
            "  - {id: 3, name: qty, type: int}\n  - {id: 13, name: state, type: string}\n  - {id: 99, name: extra, type: int}\n",
        )
        .replace("dropped:\n  - {id: 13, name: status, type: string}\n", "");
    let (lines, problems, _) = diff(&proposal);
    assert_eq!(
        lines,
        [
            "add /state Some(After(\"qty\")) @state",
            "add /extra Some(After(\"state\")) @extra",
        ]
    );
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].starts_with("IdReuse: `state` has id 13, which belonged to `status`"));
    // `state` is judged as a new field too, so it takes 14 and `extra` 15.
    assert!(
        problems[1].starts_with("UnknownField")
            && problems[1].contains(
                ": `extra` has id 99, but the table has no field with that id, and `apply` assigns this new field id 15"
            ),
        "{problems:?}"
    );
    // An id at or below last-column-id that no schema has (its schema expired) is not a
    // new field's.
    let mut expired = base();
    expired.last_column_id = 20;
    let below = BASE.replace(
        "  - {id: 3, name: qty, type: int}\n",
        "  - {id: 3, name: qty, type: int}\n  - {id: 16, name: gone, type: int}\n",
    );
    let source = Arc::new(SourceFile {
        name: "p.yaml".into(),
        text: below.clone(),
    });
    let problems = SchemaFile::parse_yaml(&below)
        .unwrap()
        .diff(&source, &expired)
        .problems;
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].message.contains(
            "has id 16, but the table has no field with that id (its last-column-id is 20)"
        ),
        "{problems:?}"
    );
}

/// `proposal` with the ids `apply` assigns written in, as `apply --write` leaves it.
fn written_back(proposal: &str) -> String {
    let (_, problems, diff) = diff(proposal);
    assert!(problems.is_empty(), "{problems:?}");
    let StatementKind::Alter(changes) = &diff.statement.kind else {
        panic!()
    };
    let evolution = evolve(&base(), [changes.as_slice()]);
    super::super::fill_ids(
        proposal,
        super::super::Format::Yaml,
        evolution.metadata.current_schema(),
    )
    .unwrap()
}

const NEW_FIELDS: &str = r#"
table: db.users
fields:
  - {name: first, type: int}
  - {id: 1, name: id, type: long, required: true}
  - {id: 2, name: phone, type: string, doc: mobile}
  - {id: 3, name: qty, type: int}
  - id: 4
    name: address
    type: {struct: [{id: 5, name: city, type: string}, {id: 6, name: zip, type: string}, {name: street, type: string}]}
  - {id: 7, name: tags, type: {list: string, element-id: 8}}
  - {id: 9, name: attrs, type: {map: [string, {struct: [{id: 12, name: a, type: int}]}], key-id: 10, value-id: 11}}
  - {name: points, type: {list: {struct: [{name: x, type: double}, {name: m, type: {map: [string, int]}}]}}}
identifier-fields: [id]
"#;

#[test]
fn ids_apply_wrote_back_are_the_new_fields_they_name() {
    let filled = written_back(NEW_FIELDS);
    assert!(filled.contains("{id: 14, name: first"), "{filled}");
    assert!(filled.contains("element-id: 17"), "{filled}");
    let (before, _, _) = diff(NEW_FIELDS);
    let (after, problems, found) = diff(&filled);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(after, before);
    assert!(found.notes.is_empty(), "{:?}", found.notes);
    applies_to_the_file(&filled);
}

#[test]
fn a_new_id_that_is_not_the_one_apply_assigns_names_the_one_it_does() {
    let filled = written_back(NEW_FIELDS);
    // Two new fields swapped, and a map's key id changed.
    let tampered = filled
        .replace("{id: 14, name: first", "{id: 15, name: first")
        .replace("{id: 15, name: street", "{id: 14, name: street")
        .replace("key-id: 20", "key-id: 30");
    assert_ne!(tampered, filled);
    let (lines, problems, found) = diff(&tampered);
    assert_eq!(lines, diff(NEW_FIELDS).0, "judged as the same new fields");
    assert_eq!(problems.len(), 3, "{problems:?}");
    let first = found
        .problems
        .iter()
        .find(|p| p.path.as_deref() == Some("first"))
        .unwrap();
    assert!(
        first
            .message
            .contains("`first` has id 15, but the table has no field with that id, and `apply` assigns this new field id 14"),
        "{}",
        first.message
    );
    assert_eq!(
        first
            .help
            .as_deref()
            .map(|h| h.starts_with("write `id: 14`")),
        Some(true)
    );
    assert_eq!(
        &tampered[first.origin.focus.offset..first.origin.focus.end()],
        "15"
    );
    let key = found
        .problems
        .iter()
        .find(|p| p.path.as_deref() == Some("points.element.m.key"))
        .unwrap();
    assert!(
        key.message.contains("id 30") && key.message.contains("id 20"),
        "{}",
        key.message
    );
    assert!(
        key.help
            .as_deref()
            .unwrap_or_default()
            .starts_with("write `key-id: 20`")
    );
}

#[test]
fn reshaping_nested_types_is_a_problem_not_a_change() {
    let moved = BASE
        .replace(
            "  - {id: 3, name: qty, type: int}\n",
            "  - {id: 3, name: qty, type: int}\n  - {id: 5, name: city, type: string}\n",
        )
        .replace("{id: 5, name: city, type: string}, {id: 6", "{id: 6");
    let (lines, problems, _) = diff(&moved);
    assert!(lines.is_empty(), "{lines:?}");
    assert!(problems[0].starts_with("NestedStructure: `city` has id 5, which is `address.city`"));

    let element = BASE.replace("element-id: 8", "element-id: 30");
    let (_, problems, _) = diff(&element);
    assert!(problems[0].contains("`tags.element` has id 8 in the table, but the file gives it 30"));

    let kind = BASE.replace(
        "{id: 3, name: qty, type: int}",
        "{id: 3, name: qty, type: \"array<int>\"}",
    );
    let (lines, problems, _) = diff(&kind);
    assert!(lines.is_empty(), "{lines:?}");
    assert!(problems[0].starts_with(
        "InvalidChange: Cannot change the type of `qty` (field id 3) from int to list<int>"
    ));
}

#[test]
fn identifier_fields_change_only_when_stated() {
    let unstated = BASE.replace("identifier-fields: [id]\n", "");
    assert!(diff(&unstated).0.is_empty());
    let dropped = BASE
        .replace("identifier-fields: [id]", "identifier-fields: []")
        .replace("  - {id: 1, name: id, type: long, required: true}\n", "");
    let (lines, _, _) = diff(&dropped);
    assert_eq!(lines, ["drop identifiers [\"id\"] @[]", "drop id @fields",]);
    let set = BASE.replace(
        "identifier-fields: [id]",
        "identifier-fields: [id, address.city]",
    );
    let (lines, _, _) = diff(&set);
    assert_eq!(
        lines,
        ["identifiers [\"id\", \"address.city\"] @[id, address.city]"]
    );
}

#[test]
fn partition_sort_order_and_format_version_are_restated_not_changed() {
    let table = {
        let mut t = base();
        t.partition_specs[0]
            .fields
            .push(crate::iceberg::partition::PartitionField {
                source_ids: vec![1],
                field_id: Some(1000),
                name: "id_bucket".into(),
                transform: "bucket[16]".into(),
            });
        t
    };
    let check = |text: &str| {
        let source = Arc::new(SourceFile {
            name: "p.yaml".into(),
            text: text.to_string(),
        });
        let file = SchemaFile::parse_yaml(text).unwrap();
        file.diff(&source, &table)
            .problems
            .into_iter()
            .map(|p| p.message)
            .collect::<Vec<_>>()
    };
    assert!(check(&format!("{BASE}partition: [bucket(16, id)]\n")).is_empty());
    let changed = check(&format!(
        "{BASE}partition: [day(id)]\nformat-version: 3\nsort-order: [id]\n"
    ));
    assert_eq!(changed.len(), 3, "{changed:?}");
    assert!(changed[0].contains("format version 3, but the table is format version 2"));
    assert!(
        changed[1].contains("partition spec [bucket(16, id)]"),
        "{changed:?}"
    );
    assert!(changed[2].contains("sort order []"), "{changed:?}");
}

#[test]
fn swapped_names_are_left_to_evolve_and_chains_are_ordered() {
    // qty takes phone's name after phone has moved on to mobile.
    let chain = BASE
        .replace("name: phone,", "name: mobile,")
        .replace("name: qty,", "name: phone,");
    let (lines, _, _) = diff(&chain);
    assert_eq!(
        lines,
        [
            "rename phone -> mobile @mobile",
            "rename qty -> phone @phone"
        ]
    );
    applies_to_the_file(&chain);
}

#[test]
fn a_suppression_covers_the_entry_below_it() {
    let covers = |proposal: &str| {
        let (_, _, found) = diff(proposal);
        let StatementKind::Alter(changes) = &found.statement.kind else {
            panic!()
        };
        assert_eq!(found.suppressions.len(), 1, "{proposal}");
        let entry = found.suppressions[0].statement;
        let focus = changes[0].origin.focus;
        entry.offset <= focus.offset && focus.end() <= entry.end()
    };
    // Above `address`: its whole entry, the nested rename included.
    let above_address = BASE.replace(
        "  - id: 4\n    name: address\n    type: {struct: [{id: 5, name: city,",
        "  # fieldgate: allow column-rename -- the city is a town now\n  - id: 4\n    name: address\n    type: {struct: [{id: 5, name: town,",
    );
    assert!(covers(&above_address));
    // Above `city` itself, in a block list.
    let above_city = BASE.replace(
        "    type: {struct: [{id: 5, name: city, type: string}, {id: 6, name: zip, type: string}]}",
        "    type:\n      struct:\n        # fieldgate: allow column-rename -- the city is a town now\n        - {id: 5, name: town, type: string}\n        - {id: 6, name: zip, type: string}",
    );
    assert!(covers(&above_city));
    // Above `zip`: not the rename of city.
    let above_zip = above_city.replace(
        "        # fieldgate: allow column-rename -- the city is a town now\n        - {id: 5, name: town, type: string}\n        - {id: 6,",
        "        - {id: 5, name: town, type: string}\n        # fieldgate: allow column-rename -- the city is a town now\n        - {id: 6,",
    );
    assert!(!covers(&above_zip));
}
