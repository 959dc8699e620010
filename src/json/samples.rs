//! Sample metadata files in each writer's exact style, shared by the tests of this module.
//!
//! Each `PATCHED_*` text is its sample after the same schema change (a field and a schema added,
//! an identifier field, a partition field, a property and a top-level key added, two ids bumped),
//! as the writer itself prints the changed document: checked with Jackson 2.14's
//! `DefaultPrettyPrinter` and Python's `json.dumps`, so a patch must be indistinguishable from a
//! rewrite by the original writer.

/// What Iceberg Java (Jackson `DefaultPrettyPrinter`) writes for a format-v2 table.
pub const JACKSON: &str = r#"{
  "format-version" : 2,
  "table-uuid" : "9c12d441-03fe-4693-9a96-a0705ddf69c1",
  "location" : "s3://warehouse/db/orders",
  "last-sequence-number" : 34,
  "last-updated-ms" : 1602638573590,
  "last-column-id" : 6,
  "current-schema-id" : 0,
  "schemas" : [ {
    "type" : "struct",
    "schema-id" : 0,
    "identifier-field-ids" : [ 1 ],
    "fields" : [ {
      "id" : 1,
      "name" : "order_id",
      "required" : true,
      "type" : "long"
    }, {
      "id" : 2,
      "name" : "price",
      "required" : false,
      "type" : "decimal(10, 2)",
      "doc" : "Preis in € — \"brutto\""
    }, {
      "id" : 3,
      "name" : "customer",
      "required" : false,
      "type" : {
        "type" : "struct",
        "fields" : [ {
          "id" : 4,
          "name" : "name",
          "required" : false,
          "type" : "string"
        }, {
          "id" : 5,
          "name" : "tags",
          "required" : false,
          "type" : {
            "type" : "list",
            "element-id" : 6,
            "element" : "string",
            "element-required" : false
          }
        } ]
      }
    } ]
  } ],
  "default-spec-id" : 0,
  "partition-specs" : [ {
    "spec-id" : 0,
    "fields" : [ ]
  } ],
  "last-partition-id" : 999,
  "default-sort-order-id" : 0,
  "sort-orders" : [ {
    "order-id" : 0,
    "fields" : [ ]
  } ],
  "properties" : { },
  "current-snapshot-id" : -1,
  "refs" : { },
  "snapshots" : [ ],
  "statistics" : [ ],
  "partition-statistics" : [ ],
  "snapshot-log" : [ ],
  "metadata-log" : [ ]
}"#;

/// The same table as Python `json.dumps(indent=2, ensure_ascii=False)` writes it.
pub const INDENTED: &str = r#"{
  "format-version": 2,
  "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1",
  "location": "s3://warehouse/db/orders",
  "last-sequence-number": 34,
  "last-updated-ms": 1602638573590,
  "last-column-id": 6,
  "current-schema-id": 0,
  "schemas": [
    {
      "type": "struct",
      "schema-id": 0,
      "identifier-field-ids": [
        1
      ],
      "fields": [
        {
          "id": 1,
          "name": "order_id",
          "required": true,
          "type": "long"
        },
        {
          "id": 2,
          "name": "price",
          "required": false,
          "type": "decimal(10, 2)",
          "doc": "Preis in € — \"brutto\""
        },
        {
          "id": 3,
          "name": "customer",
          "required": false,
          "type": {
            "type": "struct",
            "fields": [
              {
                "id": 4,
                "name": "name",
                "required": false,
                "type": "string"
              },
              {
                "id": 5,
                "name": "tags",
                "required": false,
                "type": {
                  "type": "list",
                  "element-id": 6,
                  "element": "string",
                  "element-required": false
                }
              }
            ]
          }
        }
      ]
    }
  ],
  "default-spec-id": 0,
  "partition-specs": [
    {
      "spec-id": 0,
      "fields": []
    }
  ],
  "last-partition-id": 999,
  "default-sort-order-id": 0,
  "sort-orders": [
    {
      "order-id": 0,
      "fields": []
    }
  ],
  "properties": {},
  "current-snapshot-id": -1,
  "refs": {},
  "snapshots": [],
  "statistics": [],
  "partition-statistics": [],
  "snapshot-log": [],
  "metadata-log": []
}"#;

/// What pyiceberg writes (pydantic `model_dump_json`): one line, no spaces.
pub const COMPACT: &str = r#"{"location":"s3://warehouse/db/orders","table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","last-updated-ms":1602638573590,"last-column-id":3,"schemas":[{"type":"struct","fields":[{"id":1,"name":"order_id","type":"long","required":true},{"id":2,"name":"price","type":"decimal(10, 2)","required":false,"doc":"Preis in € — \"brutto\""},{"id":3,"name":"ts","type":"timestamptz","required":false}],"schema-id":0,"identifier-field-ids":[1]}],"current-schema-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"default-spec-id":0,"last-partition-id":999,"properties":{},"snapshots":[],"snapshot-log":[],"metadata-log":[],"sort-orders":[{"order-id":0,"fields":[]}],"default-sort-order-id":0,"refs":{},"statistics":[],"partition-statistics":[],"format-version":2,"last-sequence-number":0}"#;

/// [`JACKSON`] after the schema change.
pub const PATCHED_JACKSON: &str = r#"{
  "format-version" : 2,
  "table-uuid" : "9c12d441-03fe-4693-9a96-a0705ddf69c1",
  "location" : "s3://warehouse/db/orders",
  "last-sequence-number" : 34,
  "last-updated-ms" : 1602638573590,
  "last-column-id" : 7,
  "current-schema-id" : 1,
  "schemas" : [ {
    "type" : "struct",
    "schema-id" : 0,
    "identifier-field-ids" : [ 1, 2 ],
    "fields" : [ {
      "id" : 1,
      "name" : "order_id",
      "required" : true,
      "type" : "long",
      "doc" : "Bestell-Nr."
    }, {
      "id" : 2,
      "name" : "price",
      "required" : false,
      "type" : "decimal(10, 2)",
      "doc" : "Preis in € — \"brutto\""
    }, {
      "id" : 3,
      "name" : "customer",
      "required" : false,
      "type" : {
        "type" : "struct",
        "fields" : [ {
          "id" : 4,
          "name" : "name",
          "required" : false,
          "type" : "string"
        }, {
          "id" : 5,
          "name" : "tags",
          "required" : false,
          "type" : {
            "type" : "list",
            "element-id" : 6,
            "element" : "string",
            "element-required" : false
          }
        } ]
      }
    }, {
      "id" : 7,
      "name" : "note",
      "required" : false,
      "type" : "string"
    } ]
  }, {
    "type" : "struct",
    "schema-id" : 1,
    "fields" : [ {
      "id" : 1,
      "name" : "order_id",
      "required" : true,
      "type" : "long"
    } ]
  } ],
  "default-spec-id" : 0,
  "partition-specs" : [ {
    "spec-id" : 0,
    "fields" : [ {
      "name" : "id_bucket",
      "transform" : "bucket[16]",
      "source-id" : 1,
      "field-id" : 1000
    } ]
  } ],
  "last-partition-id" : 999,
  "default-sort-order-id" : 0,
  "sort-orders" : [ {
    "order-id" : 0,
    "fields" : [ ]
  } ],
  "properties" : {
    "schema.name-mapping.default" : "[{\"field-id\":1,\"names\":[\"order_id\"]}]"
  },
  "current-snapshot-id" : -1,
  "refs" : { },
  "snapshots" : [ ],
  "statistics" : [ ],
  "partition-statistics" : [ ],
  "snapshot-log" : [ ],
  "metadata-log" : [ ],
  "next-row-id" : 0
}"#;

/// [`INDENTED`] after the schema change.
pub const PATCHED_INDENTED: &str = r#"{
  "format-version": 2,
  "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1",
  "location": "s3://warehouse/db/orders",
  "last-sequence-number": 34,
  "last-updated-ms": 1602638573590,
  "last-column-id": 7,
  "current-schema-id": 1,
  "schemas": [
    {
      "type": "struct",
      "schema-id": 0,
      "identifier-field-ids": [
        1,
        2
      ],
      "fields": [
        {
          "id": 1,
          "name": "order_id",
          "required": true,
          "type": "long",
          "doc": "Bestell-Nr."
        },
        {
          "id": 2,
          "name": "price",
          "required": false,
          "type": "decimal(10, 2)",
          "doc": "Preis in € — \"brutto\""
        },
        {
          "id": 3,
          "name": "customer",
          "required": false,
          "type": {
            "type": "struct",
            "fields": [
              {
                "id": 4,
                "name": "name",
                "required": false,
                "type": "string"
              },
              {
                "id": 5,
                "name": "tags",
                "required": false,
                "type": {
                  "type": "list",
                  "element-id": 6,
                  "element": "string",
                  "element-required": false
                }
              }
            ]
          }
        },
        {
          "id": 7,
          "name": "note",
          "required": false,
          "type": "string"
        }
      ]
    },
    {
      "type": "struct",
      "schema-id": 1,
      "fields": [
        {
          "id": 1,
          "name": "order_id",
          "required": true,
          "type": "long"
        }
      ]
    }
  ],
  "default-spec-id": 0,
  "partition-specs": [
    {
      "spec-id": 0,
      "fields": [
        {
          "name": "id_bucket",
          "transform": "bucket[16]",
          "source-id": 1,
          "field-id": 1000
        }
      ]
    }
  ],
  "last-partition-id": 999,
  "default-sort-order-id": 0,
  "sort-orders": [
    {
      "order-id": 0,
      "fields": []
    }
  ],
  "properties": {
    "schema.name-mapping.default": "[{\"field-id\":1,\"names\":[\"order_id\"]}]"
  },
  "current-snapshot-id": -1,
  "refs": {},
  "snapshots": [],
  "statistics": [],
  "partition-statistics": [],
  "snapshot-log": [],
  "metadata-log": [],
  "next-row-id": 0
}"#;

/// [`COMPACT`] after the schema change.
pub const PATCHED_COMPACT: &str = r#"{"location":"s3://warehouse/db/orders","table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","last-updated-ms":1602638573590,"last-column-id":7,"schemas":[{"type":"struct","fields":[{"id":1,"name":"order_id","type":"long","required":true,"doc":"Bestell-Nr."},{"id":2,"name":"price","type":"decimal(10, 2)","required":false,"doc":"Preis in € — \"brutto\""},{"id":3,"name":"ts","type":"timestamptz","required":false},{"id":7,"name":"note","required":false,"type":"string"}],"schema-id":0,"identifier-field-ids":[1,2]},{"type":"struct","schema-id":1,"fields":[{"id":1,"name":"order_id","required":true,"type":"long"}]}],"current-schema-id":1,"partition-specs":[{"spec-id":0,"fields":[{"name":"id_bucket","transform":"bucket[16]","source-id":1,"field-id":1000}]}],"default-spec-id":0,"last-partition-id":999,"properties":{"schema.name-mapping.default":"[{\"field-id\":1,\"names\":[\"order_id\"]}]"},"snapshots":[],"snapshot-log":[],"metadata-log":[],"sort-orders":[{"order-id":0,"fields":[]}],"default-sort-order-id":0,"refs":{},"statistics":[],"partition-statistics":[],"format-version":2,"last-sequence-number":0,"next-row-id":0}"#;
