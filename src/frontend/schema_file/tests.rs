//! The schema file end to end: the design's example, its JSON twin, every error kind with its
//! place, and the metadata a table description becomes.

use super::*;
use crate::iceberg::types::{ListType, MapType, PrimitiveType as P, StructType, Type};

/// The example of `SCHEMA_FILE.md`, verbatim.
const EXAMPLE: &str = r#"table: lake_prod.dim_users
format-version: 2              # Iceberg format version the promotion rules follow (default 2)
mapping: field-id              # how readers find columns in data files: field-id | name | position
fields:
  - {id: 1, name: id, type: long, required: true, doc: user id}
  - {id: 2, name: mobile_phone, type: string}          # id kept -> a rename of field 2
  - {name: vip_level, type: int, doc: member level 1-5} # no id -> a new field; apply assigns one
  - id: 4
    name: address
    type:
      struct:
        - {id: 5, name: city, type: string}
        - {id: 6, name: zip, type: string}
  - id: 7
    name: tags
    type: {list: string, element-id: 8, element-required: false}
  - id: 9
    name: attrs
    type: {map: [string, string], key-id: 10, value-id: 11, value-required: false}
identifier-fields: [id]
partition: [bucket(16, id)]     # Iceberg transforms: identity, bucket[N], truncate[W], year, month, day, hour
sort-order: [id]
dropped:                        # history: fields dropped earlier (ids are retired forever)
  - {id: 3, name: status, type: string, doc: user review state}
"#;

/// The same table in JSON.
const EXAMPLE_JSON: &str = r#"{
  "table": "lake_prod.dim_users",
  "format-version": 2,
  "mapping": "field-id",
  "fields": [
    {"id": 1, "name": "id", "type": "long", "required": true, "doc": "user id"},
    {"id": 2, "name": "mobile_phone", "type": "string"},
    {"name": "vip_level", "type": "int", "doc": "member level 1-5"},
    {"id": 4, "name": "address", "type": {"struct": [
      {"id": 5, "name": "city", "type": "string"},
      {"id": 6, "name": "zip", "type": "string"}
    ]}},
    {"id": 7, "name": "tags", "type": {"list": "string", "element-id": 8, "element-required": false}},
    {"id": 9, "name": "attrs",
     "type": {"map": ["string", "string"], "key-id": 10, "value-id": 11, "value-required": false}}
  ],
  "identifier-fields": ["id"],
  "partition": ["bucket(16, id)"],
  "sort-order": ["id"],
  "dropped": [{"id": 3, "name": "status", "type": "string", "doc": "user review state"}]
}"#;

fn z() -> Span {
    Span::default()
}

fn column(name: &str) -> ColumnRef {
    ColumnRef {
        name: name.into(),
        span: z(),
    }
}

fn field(id: Option<FieldId>, name: &str, field_type: FileType) -> FileField {
    FileField {
        id,
        name: name.into(),
        field_type,
        required: false,
        doc: None,
        span: z(),
        name_span: z(),
        type_span: z(),
        id_span: z(),
        required_span: None,
        doc_span: None,
        in_type_string: false,
    }
}

fn prim(p: P) -> FileType {
    FileType::Primitive(p)
}

fn strip_field(f: &mut FileField) {
    f.span = z();
    f.name_span = z();
    f.type_span = z();
    f.id_span = z();
    f.required_span = None;
    f.doc_span = None;
    f.in_type_string = false;
    strip_type(&mut f.field_type);
}

fn strip_type(ty: &mut FileType) {
    match ty {
        FileType::Primitive(_) => {}
        FileType::Struct(fields) => fields.iter_mut().for_each(strip_field),
        FileType::List(list) => {
            list.element_id_span = z();
            list.element_span = z();
            strip_type(&mut list.element);
        }
        FileType::Map(map) => {
            map.key_id_span = z();
            map.value_id_span = z();
            map.key_span = z();
            map.value_span = z();
            strip_type(&mut map.key);
            strip_type(&mut map.value);
        }
    }
}

/// The model without its spans, to compare what was read regardless of where.
fn strip(mut file: SchemaFile) -> SchemaFile {
    file.table_span = z();
    file.stated = Stated::default();
    file.fields.iter_mut().for_each(strip_field);
    file.dropped.iter_mut().for_each(strip_field);
    file.identifier_fields.iter_mut().for_each(|c| c.span = z());
    for p in &mut file.partition {
        p.span = z();
        p.column.span = z();
    }
    for s in &mut file.sort_order {
        s.span = z();
        s.column.span = z();
    }
    file
}

fn expected_example() -> SchemaFile {
    let mut id = field(Some(1), "id", prim(P::Long));
    id.required = true;
    id.doc = Some("user id".into());
    let mut vip = field(None, "vip_level", prim(P::Int));
    vip.doc = Some("member level 1-5".into());
    let mut status = field(Some(3), "status", prim(P::String));
    status.doc = Some("user review state".into());
    SchemaFile {
        table: "lake_prod.dim_users".into(),
        table_span: z(),
        format_version: 2,
        mapping: Mapping::FieldId,
        fields: vec![
            id,
            field(Some(2), "mobile_phone", prim(P::String)),
            vip,
            field(
                Some(4),
                "address",
                FileType::Struct(vec![
                    field(Some(5), "city", prim(P::String)),
                    field(Some(6), "zip", prim(P::String)),
                ]),
            ),
            field(
                Some(7),
                "tags",
                FileType::List(Box::new(FileList {
                    element_id: Some(8),
                    element_id_span: z(),
                    element_required: false,
                    element: prim(P::String),
                    element_span: z(),
                })),
            ),
            field(
                Some(9),
                "attrs",
                FileType::Map(Box::new(FileMap {
                    key_id: Some(10),
                    key_id_span: z(),
                    value_id: Some(11),
                    value_id_span: z(),
                    value_required: false,
                    key: prim(P::String),
                    key_span: z(),
                    value: prim(P::String),
                    value_span: z(),
                })),
            ),
        ],
        identifier_fields: vec![column("id")],
        partition: vec![FilePartitionField {
            transform: Transform::Bucket(16),
            column: column("id"),
            span: z(),
        }],
        sort_order: vec![FileSortField {
            column: column("id"),
            direction: SortDirection::Asc,
            null_order: NullOrder::NullsFirst,
            span: z(),
        }],
        properties: Vec::new(),
        dropped: vec![status],
        stated: Stated::default(),
    }
}

fn parse_ok(text: &str) -> SchemaFile {
    match SchemaFile::parse_yaml(text) {
        Ok(file) => file,
        Err(e) => panic!("{:#?}", e.errors),
    }
}

fn errors(text: &str, format: Format) -> Vec<SchemaFileError> {
    match SchemaFile::parse(text, format) {
        Ok(file) => panic!("{text:?} parsed as {file:?}"),
        Err(e) => e.errors,
    }
}

fn at(text: &str, span: Span) -> &str {
    &text[span.offset..span.end()]
}

#[test]
fn the_design_example_parses_to_the_expected_model() {
    let file = parse_ok(EXAMPLE);
    assert_eq!(strip(file), expected_example());
}

#[test]
fn json_of_the_same_shape_gives_the_same_model() {
    let file = SchemaFile::parse_json(EXAMPLE_JSON).unwrap();
    assert_eq!(strip(file.clone()), expected_example());
    assert_eq!(at(EXAMPLE_JSON, file.fields[0].name_span), "\"id\"");
    assert_eq!(at(EXAMPLE_JSON, file.partition[0].column.span), "id");
    assert_eq!(Format::from_path(Path::new("t/users.JSON")), Format::Json);
    assert_eq!(Format::from_path(Path::new("t/users.yml")), Format::Yaml);
}

#[test]
fn spans_point_at_the_text() {
    let file = parse_ok(EXAMPLE);
    let t = EXAMPLE;
    assert_eq!(at(t, file.table_span), "lake_prod.dim_users");
    let id = &file.fields[0];
    assert_eq!(
        at(t, id.span),
        "{id: 1, name: id, type: long, required: true, doc: user id}"
    );
    assert_eq!(at(t, id.name_span), "id");
    assert_eq!(at(t, id.type_span), "long");
    assert_eq!(at(t, id.id_span), "1");
    assert_eq!(id.required_span.map(|s| at(t, s)), Some("true"));
    assert_eq!(id.doc_span.map(|s| at(t, s)), Some("user id"));

    // No id: the insertion point is before the first key, where `id: N, ` goes.
    let vip = &file.fields[2];
    assert_eq!(vip.id_span.len, 0);
    assert!(t[vip.id_span.offset..].starts_with("name: vip_level"));
    assert_eq!(at(t, vip.span).chars().next(), Some('{'));

    let address = &file.fields[3];
    assert!(at(t, address.span).starts_with("id: 4\n    name: address"));
    assert!(at(t, address.type_span).starts_with("struct:"));
    let FileType::Struct(nested) = &address.field_type else {
        panic!()
    };
    assert_eq!(at(t, nested[1].name_span), "zip");

    let FileType::List(tags) = &file.fields[4].field_type else {
        panic!()
    };
    assert_eq!(at(t, tags.element_span), "string");
    assert_eq!(at(t, tags.element_id_span), "8");
    let FileType::Map(attrs) = &file.fields[5].field_type else {
        panic!()
    };
    assert_eq!(at(t, attrs.value_id_span), "11");

    // The partition term YAML splits at its comma is read whole, and located inside.
    assert_eq!(at(t, file.partition[0].span), "bucket(16, id)");
    assert_eq!(at(t, file.partition[0].column.span), "id");
    assert_eq!(at(t, file.identifier_fields[0].span), "id");
    assert_eq!(at(t, file.dropped[0].name_span), "status");
}

#[test]
fn defaults_and_options() {
    let text = "\
table: t
fields:
  - {name: ts, type: TIMESTAMP}
  - {name: price, type: decimal(10,2)}
  - {name: m, type: {map: [string, {list: long}]}}
  - {name: s, type: 'STRUCT<a: INT NOT NULL, b: ARRAY<BIGINT>>'}
  - name: region
    type: string
    id:
partition: [day(ts), region, identity(region), truncate(4, region), hours(ts)]
sort-order: [ts desc, region ASC nulls last, price nulls-last, 's.a']
identifier-fields: []
dropped:
";
    let file = parse_ok(text);
    assert_eq!(file.format_version, DEFAULT_FORMAT_VERSION);
    assert_eq!(file.mapping, Mapping::FieldId);
    assert!(file.dropped.is_empty() && file.identifier_fields.is_empty());
    let types: Vec<String> = file
        .fields
        .iter()
        .map(|f| format!("{:?}", f.field_type))
        .collect();
    assert_eq!(types[0], "Primitive(Timestamptz)");
    assert_eq!(types[1], "Primitive(Decimal { precision: 10, scale: 2 })");
    let FileType::Map(m) = &file.fields[2].field_type else {
        panic!()
    };
    assert!(
        matches!(&m.value, FileType::List(l) if l.element == prim(P::Long) && l.element_id.is_none())
    );
    assert_eq!(
        (m.key_id, m.value_id, m.value_required),
        (None, None, false)
    );
    let FileType::Struct(s) = &file.fields[3].field_type else {
        panic!()
    };
    assert!(s[0].required && !s[1].required);
    assert_eq!(at(text, s[1].name_span), "b");
    assert_eq!(file.fields[4].id, None);

    let transforms: Vec<String> = file
        .partition
        .iter()
        .map(|p| format!("{}({})", p.transform, p.column.name))
        .collect();
    assert_eq!(
        transforms,
        [
            "day(ts)",
            "identity(region)",
            "identity(region)",
            "truncate[4](region)",
            "hour(ts)"
        ]
    );
    let sorts: Vec<_> = file
        .sort_order
        .iter()
        .map(|s| (s.column.name.as_str(), s.direction, s.null_order))
        .collect();
    assert_eq!(
        sorts,
        [
            ("ts", SortDirection::Desc, NullOrder::NullsLast),
            ("region", SortDirection::Asc, NullOrder::NullsLast),
            ("price", SortDirection::Asc, NullOrder::NullsLast),
            ("s.a", SortDirection::Asc, NullOrder::NullsFirst),
        ]
    );
    assert_eq!(at(text, file.sort_order[3].column.span), "s.a");
}

/// One case per error kind and place: the file, then (kind, the text the error points at, the
/// message).
#[test]
fn each_error_is_located() {
    use SchemaFileErrorKind as K;
    type Expected<'a> = &'a [(K, &'a str, &'a str)];
    let cases: &[(&str, Expected)] = &[
        (
            "table: [x\n",
            &[(
                K::Syntax,
                "",
                "malformed YAML: while parsing a flow sequence, expected ',' or ']'",
            )],
        ),
        ("", &[(K::MissingKey, "", "the schema file is empty")]),
        (
            "- a\n",
            &[(
                K::WrongKind,
                "- a",
                "expected a mapping with `table` and `fields`, found a sequence",
            )],
        ),
        (
            "table: t\nfields: []\nformat_version: 2\n",
            &[(
                K::UnknownKey,
                "format_version",
                "unknown key `format_version` in a schema file",
            )],
        ),
        (
            "fields: []\n",
            &[(K::MissingKey, "", "the schema file has no `table`")],
        ),
        (
            "table: t\n",
            &[(K::MissingKey, "", "the schema file has no `fields`")],
        ),
        (
            "table: 12\nfields: []\n",
            &[(
                K::WrongKind,
                "12",
                "expected `table` to be a string, found an integer",
            )],
        ),
        (
            "table: t\nformat-version: 7\nfields: []\n",
            &[(
                K::InvalidValue,
                "7",
                "format version 7 is not supported (fieldgate reads v1 to v3)",
            )],
        ),
        (
            "table: t\nformat-version: '2'\nfields: []\n",
            &[(
                K::WrongKind,
                "'2'",
                "expected `format-version` to be a number from 1 to 3, found a string",
            )],
        ),
        (
            "table: t\nmapping: postion\nfields: []\n",
            &[(K::InvalidValue, "postion", "unknown mapping `postion`")],
        ),
        (
            "table: t\nfields: {a: 1}\n",
            &[(
                K::WrongKind,
                "{a: 1}",
                "expected `fields` to be a sequence, found a mapping",
            )],
        ),
        (
            "table: t\nfields: [id]\n",
            &[(
                K::WrongKind,
                "id",
                "expected a field (a mapping with `name` and `type`), found a string",
            )],
        ),
        (
            "table: t\nfields:\n  - {nmae: id, type: long}\n",
            &[
                (
                    K::MissingKey,
                    "{nmae: id, type: long}",
                    "this field has no `name`",
                ),
                (K::UnknownKey, "nmae", "unknown key `nmae` in a field"),
            ],
        ),
        (
            "table: t\nfields:\n  - {name: id}\n",
            &[(K::MissingKey, "{name: id}", "this field has no `type`")],
        ),
        (
            "table: t\nfields:\n  - {name: 1, type: long}\n",
            &[(
                K::WrongKind,
                "1",
                "expected a field's `name` to be a string, found an integer",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: '', type: long}\n",
            &[(K::InvalidValue, "''", "a field name cannot be empty")],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: long, id: '1'}\n",
            &[(
                K::WrongKind,
                "'1'",
                "expected `id` to be an integer, found a string",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: long, id: 0}\n",
            &[(
                K::InvalidValue,
                "0",
                "field id 0 is out of range: ids are 1 to 2147483447",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: long, id: 1.0}\n",
            &[(
                K::WrongKind,
                "1.0",
                "expected `id` to be an integer, found a float",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: long, required: yes}\n",
            &[(
                K::WrongKind,
                "yes",
                "expected `required` to be `true` or `false`, found a string",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: lnog}\n",
            &[(K::UnknownType, "lnog", "unknown type `lnog`")],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: 'ARRAY<lnog>'}\n",
            &[(K::UnknownType, "lnog", "unknown type `lnog`")],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: 5}\n",
            &[(
                K::WrongKind,
                "5",
                "expected a type (a name such as `long`, or a `struct`, `list` or `map` mapping), found an integer",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: {lst: int}}\n",
            &[
                (
                    K::MissingKey,
                    "{lst: int}",
                    "a type mapping needs one of `struct`, `list` or `map`",
                ),
                (K::UnknownKey, "lst", "unknown key `lst` in a type"),
            ],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: {list: int, map: [int, int]}}\n",
            &[(
                K::InvalidValue,
                "map",
                "a type is one of `struct`, `list` or `map`, not both `list` and `map`",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: {list: int, element-required: 1}}\n",
            &[(
                K::WrongKind,
                "1",
                "expected `element-required` to be `true` or `false`, found an integer",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: {list: int, key-id: 3}}\n",
            &[(
                K::UnknownKey,
                "key-id",
                "unknown key `key-id` in a list type",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: {map: [int]}}\n",
            &[(
                K::WrongKind,
                "[int]",
                "expected `map` to be `[key type, value type]`, found a sequence",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: {struct: [{name: b, type: int}, {name: b, type: int}]}}\n",
            &[(
                K::DuplicateName,
                "b",
                "duplicate field name `b` in struct `a`",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: int}\n  - {name: a, type: long}\n",
            &[(
                K::DuplicateName,
                "a",
                "duplicate field name `a` in the table",
            )],
        ),
        (
            "table: t\nfields:\n  - {id: 1, name: a, type: int}\n  - {id: 2, name: b, type: {list: int, element-id: 1}}\n",
            &[(
                K::DuplicateId,
                "1",
                "field id 1 is used twice: by field `a` and by the element of `b`",
            )],
        ),
        (
            "table: t\nfields:\n  - {id: 3, name: a, type: int}\ndropped:\n  - {id: 3, name: old, type: int}\n",
            &[(
                K::RetiredId,
                "3",
                "field `a` has id 3, which belonged to dropped field `old`",
            )],
        ),
        (
            "table: t\nfields: []\ndropped:\n  - {id: 3, name: a, type: int}\n  - {id: 3, name: b, type: int}\n",
            &[(
                K::DuplicateId,
                "3",
                "field id 3 is used twice: by field `a` and by field `b`",
            )],
        ),
        (
            "table: t\nfields: []\ndropped:\n  - {name: old, type: int}\n",
            &[(K::MissingId, "old", "dropped field `old` has no id")],
        ),
        (
            "table: t\nfields:\n  - {name: id, type: long}\nidentifier-fields: [idd]\n",
            &[(
                K::UnknownColumn,
                "idd",
                "`identifier-fields` names `idd`, which is not a column of the table",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: id, type: long}\npartition: ['bucket(16, di)']\n",
            &[(
                K::UnknownColumn,
                "di",
                "`partition` names `di`, which is not a column of the table",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: a, type: {struct: [{name: b, type: int}]}}\nsort-order: [a.c desc]\n",
            &[(
                K::UnknownColumn,
                "a.c",
                "`sort-order` names `a.c`, which is not a column of the table",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: id, type: long}\npartition: [buckt(16, id)]\n",
            &[(
                K::InvalidValue,
                "buckt",
                "unknown partition transform `buckt`",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: id, type: long}\npartition: [bucket(id)]\n",
            &[(
                K::InvalidValue,
                "bucket(id)",
                "`bucket` takes a number and a column: bucket(N, column)",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: id, type: long}\npartition: [bucket(0, id)]\n",
            &[(
                K::InvalidValue,
                "0",
                "the bucket count of `bucket` must be a positive integer",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: id, type: long}\npartition: ['day(id, 2)']\n",
            &[(K::InvalidValue, "day(id, 2)", "`day` takes one column")],
        ),
        (
            "table: t\nfields:\n  - {name: id, type: long}\npartition: ['day(id']\n",
            &[(
                K::InvalidValue,
                "day(id",
                "expected `)` at the end of `day(id`",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: id, type: long}\nsort-order: [id descending]\n",
            &[(
                K::InvalidValue,
                "descending",
                "unknown sort option `descending`",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: id, type: long}\nsort-order: [id asc desc]\n",
            &[(
                K::InvalidValue,
                "desc",
                "a second sort direction in `id asc desc`",
            )],
        ),
        (
            "table: t\nfields:\n  - {name: id, type: long}\nsort-order: [id nulls]\n",
            &[(K::InvalidValue, "nulls", "unknown sort option `nulls`")],
        ),
    ];
    for (text, expected) in cases {
        let found: Vec<_> = errors(text, Format::Yaml)
            .into_iter()
            .map(|e| (e.kind, at(text, e.span).to_owned(), e.message))
            .collect();
        let expected: Vec<_> = expected
            .iter()
            .map(|(k, s, m)| (*k, s.to_string(), m.to_string()))
            .collect();
        assert_eq!(found, expected, "{text:?}");
    }
}

#[test]
fn helps_suggest_the_fix() {
    let help = |text: &str| {
        errors(text, Format::Yaml)
            .into_iter()
            .map(|e| e.help.unwrap_or_default())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        help("table: t\nfields:\n  - {nmae: id, type: long}\n")[1],
        "did you mean `name`?"
    );
    assert_eq!(
        help("table: t\nmapping: postion\nfields: []\n"),
        ["did you mean `position`?"]
    );
    assert_eq!(
        help("table: t\nfields:\n  - {name: 1, type: long}\n"),
        ["quote it to make it a string: \"1\""]
    );
    assert_eq!(
        help("table: t\nfields:\n  - {name: id, type: long}\nidentifier-fields: [idd]\n"),
        ["did you mean `id`?"]
    );
    assert!(
        help("table: t\nfields:\n  - {name: a, type: lnog}\n")[0]
            .starts_with("did you mean `long`?")
    );
    assert!(
        help("table: t\nfields: []\nfoo: 1\n")[0].starts_with("a schema file has the keys `table`")
    );
}

#[test]
fn all_errors_of_a_file_come_back_in_file_order() {
    let text = "\
table: t
fields:
  - {id: 1, name: id, type: strng}
  - {id: 1, name: id, type: long}
  - {name: x, type: int, doc: 5}
identifier-fields: [nope]
";
    let found: Vec<_> = errors(text, Format::Yaml)
        .into_iter()
        .map(|e| (e.kind, at(text, e.span).to_owned()))
        .collect();
    use SchemaFileErrorKind as K;
    assert_eq!(
        found,
        [
            (K::UnknownType, "strng".into()),
            (K::DuplicateId, "1".into()),
            (K::DuplicateName, "id".into()),
            (K::WrongKind, "5".into()),
            (K::UnknownColumn, "nope".into()),
        ]
    );
    // The duplicate points back at the first use.
    let e = &errors(text, Format::Yaml)[1];
    let related = e.related.as_ref().unwrap();
    assert_eq!(related.span.offset, text.find("1,").unwrap());
    assert_eq!(related.label, "first used here");
}

#[test]
fn syntax_errors_of_both_formats_are_located() {
    let e = &errors("table: t\ntable: u\nfields: []\n", Format::Yaml)[0];
    assert_eq!(
        e.message,
        "malformed YAML: duplicate key \"table\" in one mapping"
    );
    assert_eq!(e.span, Span::new(9, 5));
    assert_eq!(e.related.as_ref().map(|r| r.span), Some(Span::new(0, 5)));
    let e = &errors("table: &t x\nfields: []\n", Format::Yaml)[0];
    assert_eq!(
        e.message,
        "malformed YAML: YAML anchors (`&name`) are not supported"
    );
    let e = &errors("{\"table\": \"t\",}", Format::Json)[0];
    assert_eq!(e.kind, SchemaFileErrorKind::Syntax);
    assert_eq!(
        e.message,
        "malformed JSON: trailing comma is not allowed in JSON"
    );
    assert_eq!(e.span, Span::new(13, 1));
    // JSON errors of the model are the same as YAML's.
    let e = &errors(
        "{\"table\": \"t\", \"fields\": [{\"name\": \"a\", \"type\": \"lnog\"}]}",
        Format::Json,
    )[0];
    assert_eq!(
        (e.kind, e.span),
        (SchemaFileErrorKind::UnknownType, Span::new(49, 4))
    );
}

#[test]
fn flow_values_split_at_a_comma_are_read_whole_only_when_unambiguous() {
    let text = "table: t\nfields:\n  - {name: p, type: decimal(10,2), doc: x}\n  - {name: m, type: map<string, int>}\npartition: [truncate(4, p), bucket(8, p)]\n";
    let file = parse_ok(text);
    assert_eq!(
        file.fields[0].field_type,
        prim(P::Decimal {
            precision: 10,
            scale: 2
        })
    );
    assert_eq!(file.fields[0].doc.as_deref(), Some("x"));
    assert_eq!(at(text, file.fields[0].type_span), "decimal(10,2)");
    assert!(matches!(file.fields[1].field_type, FileType::Map(_)));
    assert_eq!(file.partition.len(), 2);
    assert_eq!(at(text, file.partition[1].span), "bucket(8, p)");
    // A piece that has a value of its own is not glued on: the unknown type is reported.
    let text = "table: t\nfields:\n  - {name: p, type: decimal(10, x: y)}\n";
    let found = errors(text, Format::Yaml);
    assert_eq!(found[0].kind, SchemaFileErrorKind::UnknownType);
    assert_eq!(at(text, found[0].span), "");
    assert!(
        found[0]
            .help
            .as_deref()
            .unwrap_or_default()
            .contains("quote the type")
    );
}

#[test]
fn a_table_description_becomes_metadata() {
    let text = EXAMPLE.replace("{name: vip_level,", "{id: 12, name: vip_level,");
    let file = parse_ok(&text);
    let described = file.to_table_metadata().unwrap();
    assert_eq!(described.table, "lake_prod.dim_users");
    assert_eq!(described.mapping, Mapping::FieldId);
    let m = &described.metadata;
    assert_eq!(m.format_version, 2);
    assert_eq!(m.last_column_id, 12);

    // History: schema 0 has the dropped field, schema 1 (current) does not.
    assert_eq!(m.schemas.len(), 2);
    assert_eq!(m.current_schema_id, 1);
    let names = |i: usize| -> Vec<&str> {
        m.schemas[i]
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .collect()
    };
    assert_eq!(
        names(0),
        [
            "id",
            "mobile_phone",
            "vip_level",
            "address",
            "tags",
            "attrs",
            "status"
        ]
    );
    assert_eq!(
        names(1),
        [
            "id",
            "mobile_phone",
            "vip_level",
            "address",
            "tags",
            "attrs"
        ]
    );
    let current = m.current_schema();
    assert_eq!(current.schema_id, 1);
    assert_eq!(current.identifier_field_ids, [1]);
    assert_eq!(
        m.schemas[0].field_by_id(3).map(|f| f.path),
        Some("status".into())
    );
    assert_eq!(current.field_by_id(3), None);

    let id = &current.fields[0];
    assert_eq!(
        (id.id, id.required, id.doc.as_deref()),
        (1, true, Some("user id"))
    );
    assert_eq!(
        current.fields[3].field_type,
        Type::Struct(StructType {
            fields: vec![
                crate::iceberg::schema::Field::new(5, "city", false, Type::Primitive(P::String)),
                crate::iceberg::schema::Field::new(6, "zip", false, Type::Primitive(P::String)),
            ]
        })
    );
    assert_eq!(
        current.fields[4].field_type,
        Type::List(ListType {
            element_id: 8,
            element_required: false,
            element: Box::new(Type::Primitive(P::String)),
        })
    );
    assert_eq!(
        current.fields[5].field_type,
        Type::Map(MapType {
            key_id: 10,
            key: Box::new(Type::Primitive(P::String)),
            value_id: 11,
            value_required: false,
            value: Box::new(Type::Primitive(P::String)),
        })
    );

    // One partition spec, ids from 1000, named as Iceberg names them.
    assert_eq!(m.partition_specs.len(), 1);
    assert_eq!(m.default_spec_id, 0);
    let spec = &m.partition_specs[0];
    assert_eq!(spec.spec_id, 0);
    assert_eq!(spec.fields.len(), 1);
    let pf = &spec.fields[0];
    assert_eq!(
        (
            pf.source_ids.as_slice(),
            pf.field_id,
            pf.name.as_str(),
            pf.transform.as_str()
        ),
        (&[1][..], Some(1000), "id_bucket", "bucket[16]")
    );

    // Sort order 1 next to the unsorted order 0, and it is the default.
    assert_eq!(m.default_sort_order_id, 1);
    assert_eq!(m.sort_orders.len(), 2);
    assert!(m.sort_orders[0].fields.is_empty());
    let sf = &m.sort_orders[1].fields[0];
    assert_eq!(
        (
            sf.source_ids.as_slice(),
            sf.transform.as_str(),
            sf.direction.as_str(),
            sf.null_order.as_str()
        ),
        (&[1][..], "identity", "asc", "nulls-first")
    );
}

#[test]
fn a_table_without_history_partition_or_sort_has_one_of_each() {
    let file = parse_ok(
        "table: t\nformat-version: 3\nmapping: position\nfields:\n  - {id: 1, name: a, type: timestamp_ns}\n",
    );
    let described = file.to_table_metadata().unwrap();
    assert_eq!(described.mapping, Mapping::Position);
    let m = &described.metadata;
    assert_eq!(
        (m.format_version, m.current_schema_id, m.last_column_id),
        (3, 0, 1)
    );
    assert_eq!(m.schemas.len(), 1);
    assert!(m.partition_specs[0].fields.is_empty());
    assert_eq!((m.sort_orders.len(), m.default_sort_order_id), (1, 0));
}

#[test]
fn dropped_names_reused_later_get_their_own_history_schema() {
    let text = "\
table: t
fields:
  - {id: 1, name: id, type: long}
  - {id: 9, name: status, type: int}
identifier-fields: [id]
partition: [day(ts_old)]
dropped:
  - {id: 2, name: status, type: string}
  - {id: 3, name: status, type: string}
  - {id: 4, name: ts_old, type: timestamp}
";
    // A partition may not name a dropped column.
    let found = errors(text, Format::Yaml);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, SchemaFileErrorKind::UnknownColumn);

    let file = parse_ok(&text.replace("partition: [day(ts_old)]\n", ""));
    let m = file.to_table_metadata().unwrap().metadata;
    let fields = |i: usize| -> Vec<(i32, &str)> {
        m.schemas[i]
            .fields
            .iter()
            .map(|f| (f.id, f.name.as_str()))
            .collect()
    };
    assert_eq!(m.schemas.len(), 3);
    assert_eq!(fields(0), [(1, "id"), (2, "status"), (4, "ts_old")]);
    assert_eq!(fields(1), [(1, "id"), (3, "status")]);
    assert_eq!(fields(2), [(1, "id"), (9, "status")]);
    assert_eq!(m.current_schema_id, 2);
    assert_eq!(m.last_column_id, 9);
    assert!(m.schemas.iter().all(|s| s.identifier_field_ids == [1]));
}

#[test]
fn a_table_description_needs_every_id() {
    let file = parse_ok(EXAMPLE);
    let e = file.to_table_metadata().unwrap_err().errors;
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].kind, SchemaFileErrorKind::MissingId);
    assert_eq!(at(EXAMPLE, e[0].span), "vip_level");
    assert_eq!(e[0].message, "field `vip_level` has no id");
    assert_eq!(
        e[0].help.as_deref(),
        Some("give every field an id in a table description; only proposals may omit them")
    );

    let text = "table: t\nfields:\n  - {id: 1, name: a, type: 'ARRAY<MAP<STRING, INT>>'}\n  - {id: 2, name: s, type: {struct: [{name: x, type: int}]}}\n";
    let e = parse_ok(text).to_table_metadata().unwrap_err().errors;
    let found: Vec<_> = e
        .iter()
        .map(|e| (at(text, e.span), e.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("MAP<STRING, INT>", "the element of `a` has no id"),
            ("STRING", "the key of `a.element` has no id"),
            ("INT", "the value of `a.element` has no id"),
            ("x", "field `s.x` has no id"),
        ]
    );
}

#[test]
fn errors_render_with_miette() {
    let text =
        "table: t\nfields:\n  - {id: 1, name: a, type: int}\n  - {id: 1, name: b, type: int}\n";
    let e = SchemaFile::parse_yaml(text).unwrap_err();
    assert_eq!(e.to_string(), "1 error in the schema file");
    let report = miette::Report::new(e).with_source_code(text.to_owned());
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .render_report(&mut out, report.as_ref())
        .unwrap();
    assert!(out.contains("field id 1 is used twice"), "{out}");
    assert!(out.contains("first used here"), "{out}");
    assert!(
        out.contains("fieldgate::schema-file::duplicate-id"),
        "{out}"
    );
}

/// Every prefix of the example, in both formats, is an error or a file, never a panic.
#[test]
fn no_input_panics() {
    for text in [EXAMPLE, EXAMPLE_JSON] {
        for (cut, _) in text.char_indices() {
            let _ = SchemaFile::parse_yaml(&text[..cut]).map(|f| f.to_table_metadata());
            let _ = SchemaFile::parse_json(&text[..cut]);
        }
    }
}

/// Random edits of the example in the characters that matter to YAML and to type, partition
/// and sort strings: every result is a file or located errors, never a panic, and every span
/// lies on char boundaries inside the text.
#[test]
fn mutated_files_never_panic() {
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let alphabet: Vec<char> = " \n{}[](),<>:-'\"#`&*!.0123é_abdfilmnstuxNOTL"
        .chars()
        .collect();
    for _ in 0..3000 {
        let mut chars: Vec<char> = EXAMPLE.chars().collect();
        for _ in 0..=(next() % 4) {
            let at = (next() as usize) % chars.len();
            let c = alphabet[(next() as usize) % alphabet.len()];
            match next() % 3 {
                0 => chars[at] = c,
                1 => chars.insert(at, c),
                _ => {
                    chars.remove(at);
                }
            }
        }
        let text: String = chars.into_iter().collect();
        let result = SchemaFile::parse_yaml(&text).and_then(|f| f.to_table_metadata().map(|_| ()));
        if let Err(e) = result {
            for error in e.errors {
                let range = error.span.offset..error.span.end();
                assert!(text.get(range).is_some(), "{text:?}: {error:?}");
            }
        }
    }
}

#[test]
fn suggestions_are_typos_not_guesses() {
    use crate::suggest::closest_key;
    let keys = ["name", "type", "id", "doc"];
    assert_eq!(closest_key("nmae", keys), Some("name"));
    assert_eq!(closest_key("Type", keys), Some("type"));
    assert_eq!(closest_key("idd", keys), Some("id"));
    assert_eq!(closest_key("c", ["a", "b"]), None);
    assert_eq!(closest_key("comment", keys), None);
    assert_eq!(
        closest_key("format_version", ["format-version"]),
        Some("format-version")
    );
}

#[test]
fn properties_are_strings_or_null_and_reserved_keys_and_bad_mappings_are_located() {
    let head = "table: t\nfields:\n  - {id: 1, name: id, type: long}\n";
    let file = parse_ok(&format!(
        "{head}properties:\n  write.format.default: orc\n  gone: null\n"
    ));
    let stated: Vec<(&str, Option<&str>)> = file
        .properties
        .iter()
        .map(|p| (p.key.as_str(), p.value.as_deref()))
        .collect();
    assert_eq!(
        stated,
        [("write.format.default", Some("orc")), ("gone", None)]
    );
    let text = format!(
        "{head}properties:\n  format-version: '3'\n  n: 12\n  schema.name-mapping.default: '[{{\"names\": 1}}]'\n"
    );
    let found = errors(&text, Format::Yaml);
    let places: Vec<&str> = found.iter().map(|e| at(&text, e.span)).collect();
    assert_eq!(
        places,
        ["format-version", "12", "'[{\"names\": 1}]'"],
        "{found:#?}"
    );
    assert!(
        found[0]
            .help
            .as_deref()
            .is_some_and(|h| h.contains("top-level"))
    );
}
