use super::*;
use crate::iceberg::codec::schema_from_json;
use crate::iceberg::schema::Schema;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::SchemaDescriptor;
use std::sync::Arc;

fn table(json: &str) -> Schema {
    let root = crate::json::parse(json).unwrap();
    schema_from_json(&root, 0).unwrap()
}

fn file(text: &str) -> FileSchema {
    let t = parse_message_type(text).unwrap();
    FileSchema::from_parquet(&SchemaDescriptor::new(Arc::new(t)), None)
}

fn statuses(r: &Resolution) -> Vec<(String, &'static str)> {
    r.columns
        .iter()
        .map(|c| (c.path.clone(), c.status.as_str()))
        .collect()
}

const TABLE: &str = r#"{"type":"struct","schema-id":3,"fields":[
    {"id":1,"name":"id","required":true,"type":"long"},
    {"id":2,"name":"mobile","required":false,"type":"string"},
    {"id":4,"name":"vip_level","required":false,"type":"int"},
    {"id":5,"name":"total","required":false,"type":"long"},
    {"id":6,"name":"amount","required":false,"type":"decimal(12, 2)"},
    {"id":7,"name":"point","required":false,"type":{"type":"struct","fields":[
        {"id":8,"name":"x","required":false,"type":"double"},
        {"id":9,"name":"z","required":false,"type":"double"}]}}]}"#;

#[test]
fn resolves_by_id_promotes_fills_and_prunes() {
    let f = file(
        "message m {
           required int64 id = 1;
           optional binary phone (STRING) = 2;
           optional binary dropped (STRING) = 3;
           optional int32 total = 5;
           optional int32 amount (DECIMAL(9,2)) = 6;
           optional group point = 7 { optional double x = 8; optional double y = 10; }
         }",
    );
    let r = resolve(&table(TABLE).fields, &f, 2, &PartitionValues::new()).unwrap();
    assert_eq!(
        statuses(&r),
        [
            ("id".into(), "resolved"),
            ("mobile".into(), "resolved"),
            ("vip_level".into(), "missing-null"),
            ("total".into(), "promoted"),
            ("amount".into(), "promoted"),
            ("point".into(), "resolved"),
            ("point.x".into(), "resolved"),
            ("point.z".into(), "missing-null"),
        ]
    );
    assert_eq!(r.columns[1].file_column.as_deref(), Some("phone"));
    assert_eq!(r.leaves, BTreeSet::from([0, 1, 3, 4, 5]));
    let pruned: Vec<_> = r.pruned.iter().map(|p| p.file_column.as_str()).collect();
    assert_eq!(pruned, ["dropped", "point.y"]);
    assert_eq!(
        r.sources,
        [Some(0), Some(1), None, Some(3), Some(4), Some(5)]
    );
    assert!(!r.fails());
}

#[test]
fn narrowing_other_types_and_missing_required_fail() {
    let f = file(
        "message m {
           optional binary total (STRING) = 5;
           optional int64 amount (DECIMAL(14,2)) = 6;
           optional int32 point = 7;
         }",
    );
    let r = resolve(&table(TABLE).fields, &f, 2, &PartitionValues::new()).unwrap();
    let st = statuses(&r);
    assert_eq!(st[0], ("id".into(), "missing-required"));
    assert_eq!(st[3], ("total".into(), "incompatible"));
    assert_eq!(st[4], ("amount".into(), "incompatible"));
    assert_eq!(st[5], ("point".into(), "incompatible"));
    assert!(r.fails());
    assert_eq!(
        r.columns[4].detail.as_deref(),
        Some(
            "the file stores decimal(14, 2) (INT64 (DECIMAL(14,2))); decimal(14, 2) -> decimal(12, 2) is not a type promotion Iceberg allows"
        )
    );
}

#[test]
fn decimal_widening_over_every_physical_encoding() {
    for physical in [
        "int32 amount (DECIMAL(9,2))",
        "int64 amount (DECIMAL(10,2))",
        "fixed_len_byte_array(5) amount (DECIMAL(9,2))",
        "binary amount (DECIMAL(9,2))",
    ] {
        let f = file(&format!(
            "message m {{ required int64 id = 1; optional {physical} = 6; }}"
        ));
        let r = resolve(&table(TABLE).fields, &f, 2, &PartitionValues::new()).unwrap();
        assert_eq!(r.columns[4].status, Status::Promoted, "{physical}");
    }
    let f = file("message m { optional int32 amount (DECIMAL(9,3)) = 6; }");
    let r = resolve(&table(TABLE).fields, &f, 2, &PartitionValues::new()).unwrap();
    assert_eq!(r.columns[4].status, Status::Incompatible, "scale change");
}

#[test]
fn defaults_unknown_and_nested_lists_and_maps() {
    let t = table(
        r#"{"type":"struct","schema-id":0,"fields":[
        {"id":1,"name":"id","required":true,"type":"long","initial-default":7},
        {"id":2,"name":"u","required":false,"type":"unknown"},
        {"id":3,"name":"pts","required":false,"type":{"type":"list","element-id":4,"element-required":false,
          "element":{"type":"struct","fields":[{"id":5,"name":"x","required":false,"type":"long"}]}}},
        {"id":6,"name":"m","required":false,"type":{"type":"map","key-id":7,"key":"string","value-id":8,
          "value-required":false,"value":"long"}}]}"#,
    );
    let f = file(
        "message m {
           optional int32 u = 2;
           optional group pts (LIST) = 3 { repeated group list { optional group element = 4 { optional int32 x = 5; optional int32 y = 9; } } }
           optional group m (MAP) = 6 { repeated group key_value { required binary key (STRING) = 7; optional int32 value = 8; } }
         }",
    );
    let r = resolve(&t.fields, &f, 3, &PartitionValues::new()).unwrap();
    assert_eq!(
        statuses(&r),
        [
            ("id".into(), "missing-default"),
            ("u".into(), "missing-null"),
            ("pts".into(), "resolved"),
            ("pts.element".into(), "resolved"),
            ("pts.element.x".into(), "promoted"),
            ("m".into(), "resolved"),
            ("m.key".into(), "resolved"),
            ("m.value".into(), "promoted"),
        ]
    );
    assert_eq!(r.plans[0], Plan::Fill(Some(serde_json::json!(7))));
    let pruned: Vec<_> = r.pruned.iter().map(|p| p.file_column.as_str()).collect();
    assert_eq!(pruned, ["u", "pts.element.y"]);
}

#[test]
fn a_struct_whose_children_are_all_missing_still_reads_one_leaf() {
    let t = table(
        r#"{"type":"struct","schema-id":0,"fields":[
        {"id":1,"name":"s","required":false,"type":{"type":"struct","fields":[
          {"id":3,"name":"new","required":false,"type":"int"}]}}]}"#,
    );
    let f = file("message m { optional group s = 1 { optional int32 old = 2; } }");
    let r = resolve(&t.fields, &f, 2, &PartitionValues::new()).unwrap();
    assert_eq!(r.leaves, BTreeSet::from([0]));
}

#[test]
fn an_incompatible_column_is_neither_pruned_nor_its_own_positional_source() {
    let f = file(
        "message m { required int64 id = 1; optional binary total (STRING) = 5; optional binary gone (STRING) = 3; }",
    );
    let r = resolve(&table(TABLE).fields, &f, 2, &PartitionValues::new()).unwrap();
    assert_eq!(r.columns[3].status, Status::Incompatible);
    let pruned: Vec<_> = r.pruned.iter().map(|p| p.file_column.as_str()).collect();
    assert_eq!(pruned, ["gone"], "`total` is unreadable, not dropped");
    assert_eq!(
        r.sources[3],
        Some(1),
        "a field-id reader takes `total` from `total`"
    );
}

fn partition(entries: &[(FieldId, Identity)]) -> PartitionValues {
    entries.iter().cloned().collect()
}

fn value(field: &str, v: Value) -> Identity {
    Identity::Value {
        partition_field: field.into(),
        value: v,
    }
}

#[test]
fn a_missing_identity_partition_source_reads_the_partition_value() {
    let t = table(
        r#"{"type":"struct","schema-id":0,"fields":[
        {"id":1,"name":"id","required":false,"type":"long"},
        {"id":2,"name":"region","required":false,"type":"string","initial-default":"xx"},
        {"id":3,"name":"tier","required":false,"type":"int"},
        {"id":4,"name":"zone","required":false,"type":"string"},
        {"id":5,"name":"key","required":true,"type":"int"},
        {"id":6,"name":"s","required":false,"type":{"type":"struct","fields":[
          {"id":7,"name":"city","required":false,"type":"string"}]}}]}"#,
    );
    let f = file("message m { optional int64 id = 1; }");
    let values = partition(&[
        (2, value("region", serde_json::json!("eu"))),
        (3, value("tier", Value::Null)),
        (4, Identity::Unknown("not in the manifests".into())),
        (5, value("key", serde_json::json!(4))),
        (7, value("city", serde_json::json!("Delft"))),
    ]);
    let r = resolve(&t.fields, &f, 3, &values).unwrap();
    assert_eq!(
        statuses(&r),
        [
            ("id".into(), "resolved"),
            ("region".into(), "partition-value"),
            ("tier".into(), "missing-null"),
            ("zone".into(), "missing-null"),
            ("key".into(), "missing-required"),
            ("s".into(), "missing-null"),
            ("s.city".into(), "missing-null"),
        ]
    );
    // The partition value wins over the initial-default, as in pyiceberg.
    assert_eq!(r.plans[1], Plan::Fill(Some(serde_json::json!("eu"))));
    assert_eq!(
        r.columns[1].detail.as_deref(),
        Some("identity partition `region` = \"eu\"")
    );
    assert_eq!(r.plans[2], Plan::Fill(None));
    assert!(
        r.columns[2]
            .detail
            .as_deref()
            .unwrap()
            .contains("is null in the manifest")
    );
    assert_eq!(r.columns[3].detail.as_deref(), Some("not in the manifests"));
    // pyiceberg 0.12 refuses a required field the file lacks before it looks at partitions.
    assert!(
        r.columns[4]
            .detail
            .as_deref()
            .unwrap()
            .contains("pyiceberg 0.12 refuses")
    );
    // Under a missing struct, the partition value is not used: the struct is null.
    assert_eq!(r.plans[5], Plan::Fill(None));
}

#[test]
fn variant_geometry_and_geography_columns_are_not_read_nor_pruned() {
    let t = table(
        r#"{"type":"struct","schema-id":0,"fields":[
        {"id":1,"name":"v","required":false,"type":"variant"},
        {"id":2,"name":"g","required":false,"type":"geometry(srid:4326)"},
        {"id":3,"name":"h","required":false,"type":"geography(OGC:CRS84, spherical)"},
        {"id":4,"name":"s","required":false,"type":{"type":"struct","fields":[
          {"id":5,"name":"x","required":false,"type":"int"},
          {"id":6,"name":"inner","required":false,"type":"variant"}]}},
        {"id":7,"name":"n","required":false,"type":"long"}]}"#,
    );
    let f = file(
        "message m {
           optional group v = 1 { required binary metadata; required binary value; }
           optional binary g = 2;
           optional group s = 4 { optional int32 x = 5; optional binary inner = 6; }
           optional int64 n = 7;
         }",
    );
    let r = resolve(&t.fields, &f, 3, &PartitionValues::new()).unwrap();
    assert_eq!(
        statuses(&r),
        [
            ("v".into(), "not-read"),
            ("g".into(), "not-read"),
            ("h".into(), "not-read"),
            ("s".into(), "not-read"),
            ("s.x".into(), "not-read"),
            ("s.inner".into(), "not-read"),
            ("n".into(), "resolved"),
        ]
    );
    assert_eq!(
        r.columns[0].detail.as_deref(),
        Some("not verified: fieldgate does not read variant values")
    );
    assert_eq!(r.columns[0].file_column.as_deref(), Some("v"));
    assert!(r.pruned.is_empty(), "{:?}", r.pruned);
    assert!(!r.fails());
    assert_eq!(r.leaves, BTreeSet::from([5]));
}

#[test]
fn timestamp_ns_resolves_and_nested_defaults_fill_or_say_why_not() {
    let t = table(
        r#"{"type":"struct","schema-id":0,"fields":[
        {"id":1,"name":"at","required":false,"type":"timestamp_ns"},
        {"id":2,"name":"s","required":false,"type":{"type":"struct","fields":[
          {"id":3,"name":"a","required":false,"type":"int","initial-default":5},
          {"id":4,"name":"b","required":false,"type":"string"}]},"initial-default":{}},
        {"id":5,"name":"l","required":false,"type":{"type":"list","element-id":6,
          "element-required":false,"element":"int"},"initial-default":[1]},
        {"id":7,"name":"at_default","required":false,"type":"timestamptz_ns",
          "initial-default":"2017-11-16T22:31:08.123456789+00:00"}]}"#,
    );
    let f = file("message m { optional int64 at (TIMESTAMP(NANOS,false)) = 1; }");
    let r = resolve(&t.fields, &f, 3, &PartitionValues::new()).unwrap();
    assert_eq!(
        statuses(&r),
        [
            ("at".into(), "resolved"),
            ("s".into(), "missing-default"),
            ("s.a".into(), "missing-default"),
            ("s.b".into(), "missing-null"),
            ("l".into(), "not-read"),
            ("l.element".into(), "not-read"),
            ("at_default".into(), "missing-default"),
        ]
    );
    assert_eq!(r.plans[1], Plan::Fill(Some(serde_json::json!({}))));
    assert!(
        r.columns[4]
            .detail
            .as_deref()
            .unwrap()
            .contains("only null defaults of lists and maps are read")
    );
}

#[test]
fn an_invalid_initial_default_is_an_error_not_a_value() {
    let t = table(
        r#"{"type":"struct","schema-id":0,"fields":[
        {"id":1,"name":"n","required":false,"type":"int","initial-default":"seven"}]}"#,
    );
    let f = file("message m { optional int64 other = 2; }");
    let e = resolve(&t.fields, &f, 3, &PartitionValues::new()).unwrap_err();
    assert_eq!(e.0, "`n`: initial-default \"seven\" is not a valid int");
}

#[test]
fn timestamps_read_across_time_zones_and_nanoseconds_only_before_v3() {
    let t = table(
        r#"{"type":"struct","schema-id":0,"fields":[
        {"id":1,"name":"ts","required":false,"type":"timestamp"},
        {"id":2,"name":"tz","required":false,"type":"timestamptz"}]}"#,
    );
    let swapped = file(
        "message m {
           optional int64 ts (TIMESTAMP(MICROS,true)) = 1;
           optional int64 tz (TIMESTAMP(MICROS,false)) = 2;
         }",
    );
    let r = resolve(&t.fields, &swapped, 2, &PartitionValues::new()).unwrap();
    assert_eq!(
        statuses(&r),
        [("ts".into(), "resolved"), ("tz".into(), "resolved")]
    );
    assert_eq!(r.columns[0].file_type.as_deref(), Some("timestamptz"));
    let nanos = file(
        "message m {
           optional int64 ts (TIMESTAMP(NANOS,false)) = 1;
           optional int64 tz (TIMESTAMP(NANOS,true)) = 2;
         }",
    );
    let v2 = resolve(&t.fields, &nanos, 2, &PartitionValues::new()).unwrap();
    assert_eq!(
        statuses(&v2),
        [("ts".into(), "promoted"), ("tz".into(), "promoted")]
    );
    let v3 = resolve(&t.fields, &nanos, 3, &PartitionValues::new()).unwrap();
    assert_eq!(
        statuses(&v3),
        [("ts".into(), "incompatible"), ("tz".into(), "incompatible")]
    );
}
