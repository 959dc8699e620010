#!/usr/bin/env python3
"""Generate fieldgate's interop fixtures with the real pyiceberg writer.

fieldgate re-implements Iceberg's schema evolution (field-id assignment, schema-id reuse, name-mapping
upkeep) in Rust. Its tests compare against what pyiceberg actually writes, so every expected file here is
produced by pyiceberg itself and copied byte for byte; nothing is hand-written or re-serialised.

Flow: build a few base tables with real history in a sqlite-backed SqlCatalog, copy each table's
metadata sequence out in the Hadoop layout, then for every case register a fresh catalog entry that
points at the base table's current metadata file, apply one `update_schema()` commit per Spark DDL
statement, and copy the before/after metadata files out.

    .venv/bin/python tests/interop/make_fixtures.py --out tests/fixtures          # metadata only
    .venv/bin/python tests/interop/make_fixtures.py --out /tmp/fx --keep-data     # + warehouse in /tmp/fx
    .venv/bin/python tests/interop/make_fixtures.py --verify-out tests/fixtures/verify   # Parquet, for verify

Layout written under --out:
    cases/<case>/base.metadata.json      (absent for create_table)
    cases/<case>/change.sql              one Spark statement per pyiceberg commit
    cases/<case>/expected.metadata.json
    cases/<case>/case.json
    tables/<table>/metadata/v1..vN.metadata.json + version-hint.text
"""

from __future__ import annotations

import argparse
import importlib
import struct as struct_module
import datetime as dt
import json
import shutil
import sys
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Callable

import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.expressions import AlwaysTrue
from pyiceberg.io.pyarrow import ArrowScan
from pyiceberg.manifest import (
    DataFile,
    DataFileContent,
    FileFormat,
    ManifestContent,
    ManifestEntry,
    ManifestEntryStatus,
    ManifestWriterV2,
)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table import FileScanTask, StaticTable, Table
from pyiceberg.table.locations import LocationProvider
from pyiceberg.table.sorting import SortField, SortOrder
from pyiceberg.table.update.schema import UpdateSchema
from pyiceberg.typedef import Record
from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform, MonthTransform
from pyiceberg.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    IcebergType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestamptzType,
)

NAMESPACE = "db"
# A fixed warehouse path keeps every absolute location in the committed metadata stable across runs.
DEFAULT_WAREHOUSE = Path("/tmp/fieldgate-fixture-warehouse")
# Fixed properties on every base table, so their `properties` block is the same on every run.
BASE_PROPERTIES = {"owner": "fieldgate-fixtures", "write.parquet.compression-codec": "zstd"}
UTC = dt.timezone.utc


# --------------------------------------------------------------------------------------------------
# Small type helpers. Spark types are nullable unless NOT NULL, so nested fields, list elements and
# map values are optional; map keys are always required in Iceberg. The ids given here are
# placeholders: pyiceberg reassigns fresh ids both on create_table and on add_column.


def opt(name: str, field_type: IcebergType, doc: str | None = None) -> NestedField:
    return NestedField(0, name, field_type, required=False, doc=doc)


def struct(*fields: NestedField) -> StructType:
    return StructType(*fields)


def array(element: IcebergType) -> ListType:
    return ListType(0, element, element_required=False)


def map_of(key: IcebergType, value: IcebergType) -> MapType:
    return MapType(0, key, 0, value, value_required=False)


def xy() -> StructType:
    return struct(opt("x", DoubleType()), opt("y", DoubleType()))


def numbered(*fields: NestedField) -> list[NestedField]:
    """Give top-level fields distinct placeholder ids; pyiceberg's create_table renumbers them."""
    return [
        NestedField(i, f.name, f.field_type, required=f.required, doc=f.doc) for i, f in enumerate(fields, start=1)
    ]


# --------------------------------------------------------------------------------------------------
# Base tables. Each has several schemas, at least one snapshot and a sort order, so that the cases
# start from realistic metadata rather than from a freshly created table.


def ts(day: int) -> dt.datetime:
    return dt.datetime(2024, 1, day, 12, 0, tzinfo=UTC)


def append(table: Table, rows: list[dict]) -> None:
    """Append rows through pyarrow, typed by the table's current schema (required -> non-nullable)."""
    table.append(pa.Table.from_pylist(rows, schema=table.schema().as_arrow()))


def build_events(catalog: SqlCatalog) -> Table:
    """v2 table: nested types, identifier field, a replaced partition spec, four schemas, data."""
    schema = Schema(
        *numbered(
            NestedField(0, "id", LongType(), required=True),
            NestedField(0, "event_type", StringType(), required=True),
            opt("ts", TimestamptzType()),
            opt("status", StringType()),
            opt("data", StringType()),
            opt("cnt", IntegerType()),
            opt("ratio", FloatType()),
            opt("amount", DecimalType(9, 2)),
            opt("point", xy()),
            opt("location", struct(opt("lat", DoubleType()), opt("long", DoubleType()))),
        ),
        identifier_field_ids=[1],
    )
    table = catalog.create_table(
        f"{NAMESPACE}.events",
        schema,
        partition_spec=PartitionSpec(PartitionField(3, 1000, MonthTransform(), "ts_month")),
        sort_order=SortOrder(SortField(source_id=1)),
        properties={**BASE_PROPERTIES, "format-version": "2"},
    )

    def row(i: int, **extra: object) -> dict:
        return {
            "id": i,
            "event_type": "click" if i % 2 else "view",
            "ts": ts(i),
            "status": "new",
            "data": f"payload-{i}",
            "cnt": i * 10,
            "ratio": i / 4,
            "amount": Decimal(f"{i}.25"),
            "point": {"x": float(i), "y": -float(i)},
            "location": {"lat": 52.0 + i, "long": 4.0 + i},
            **extra,
        }

    append(table, [row(1), row(2)])

    # Schema 1: a measurement and a list of structs.
    with table.update_schema() as u:
        u.add_column("measurement", FloatType(), doc="unit is bytes")
        u.add_column("points", array(xy()))
    append(table, [row(3, measurement=1.5, points=[{"x": 1.0, "y": 2.0}, {"x": 3.0, "y": None}])])

    # Partition evolution: month(ts) is replaced, so spec 0 stays in history but is no longer default.
    with table.update_spec() as s:
        s.remove_field("ts_month")
        s.add_field("ts", DayTransform(), "ts_day")
        s.add_field("id", BucketTransform(4), "id_bucket")
    append(table, [row(4, measurement=2.5, points=[])])

    # Schema 2: a map whose value is a struct.
    with table.update_schema() as u:
        u.add_column("attrs", map_of(StringType(), struct(opt("a", IntegerType()))))

    # Schema 3: the newest top-level column (the highest field id) plus a doc change, so dropping
    # legacy_flag later does not land back on the identical schema 2.
    with table.update_schema() as u:
        u.add_column("legacy_flag", BooleanType())
        u.update_column("status", doc="lifecycle status")
    append(table, [row(5, measurement=3.5, points=None, attrs={"k": {"a": 1}}, legacy_flag=True)])
    return table


def write_id_less_parquet(table: Table, name: str, rows: list[dict]) -> str:
    """Write a Parquet file WITHOUT field ids, as an external writer would, for add_files()."""
    # Same names, types and nullability as the table's current schema, but no field-id metadata.
    with_ids = table.schema().as_arrow()
    schema = pa.schema([pa.field(f.name, f.type, nullable=f.nullable) for f in with_ids])
    local_dir = Path(table.location().removeprefix("file://")) / "data" / "imported"
    local_dir.mkdir(parents=True, exist_ok=True)
    path = local_dir / name
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return f"file://{path}"


def build_users(catalog: SqlCatalog) -> Table:
    """v2 table with `schema.name-mapping.default`: data imported by add_files() has no field ids."""
    schema = Schema(
        *numbered(
            NestedField(0, "user_id", LongType(), required=True),
            opt("email", StringType()),
            opt("country", StringType()),
        ),
        identifier_field_ids=[1],
    )
    table = catalog.create_table(
        f"{NAMESPACE}.users",
        schema,
        partition_spec=PartitionSpec(PartitionField(3, 1000, IdentityTransform(), "country")),
        sort_order=SortOrder(SortField(source_id=1)),
        properties={**BASE_PROPERTIES, "format-version": "2"},
    )
    # add_files() is what sets the name mapping (from the schema current at that moment).
    first = write_id_less_parquet(
        table,
        "users-nl.parquet",
        [
            {"user_id": 1, "email": "ann@example.com", "country": "NL"},
            {"user_id": 2, "email": "bob@example.com", "country": "NL"},
        ],
    )
    table.add_files([first])

    # Schema 1: pyiceberg adds the new column to the name mapping as it commits.
    with table.update_schema() as u:
        u.add_column("nickname", StringType())
    second = write_id_less_parquet(
        table,
        "users-de.parquet",
        [{"user_id": 3, "email": "cem@example.com", "country": "DE", "nickname": "cem"}],
    )
    table.add_files([second])
    # And one file written by pyiceberg itself, which carries field ids.
    append(table, [{"user_id": 4, "email": "dee@example.com", "country": "FR", "nickname": "dee"}])
    return table


def build_legacy(catalog: SqlCatalog) -> Table:
    """v1 table: two schemas, a partition spec, a sort order, data."""
    schema = Schema(
        *numbered(
            NestedField(0, "id", LongType(), required=True),
            opt("name", StringType()),
            opt("ts", TimestamptzType()),
        )
    )
    table = catalog.create_table(
        f"{NAMESPACE}.legacy",
        schema,
        partition_spec=PartitionSpec(PartitionField(3, 1000, DayTransform(), "ts_day")),
        sort_order=SortOrder(SortField(source_id=1)),
        properties={**BASE_PROPERTIES, "format-version": "1"},
    )
    append(table, [{"id": 1, "name": "one", "ts": ts(1)}])
    with table.update_schema() as u:
        u.add_column("score", IntegerType())
    append(table, [{"id": 2, "name": "two", "ts": ts(2), "score": 7}])
    return table


def build_orders(catalog: SqlCatalog) -> Table:
    """v2 table whose history the rules must read: `status` dropped in an earlier schema, `region`
    the source of a partition spec that is no longer the default, a sort order by `customer_id`."""
    schema = Schema(
        *numbered(
            NestedField(0, "order_id", LongType(), required=True),
            opt("order_ts", TimestamptzType()),
            opt("region", StringType()),
            opt("customer_id", LongType()),
            opt("status", StringType(), doc="user review state"),
            opt("total_units", LongType()),
            opt("prices", map_of(StringType(), struct(opt("amount", DoubleType()), opt("units", LongType())))),
        ),
        identifier_field_ids=[1],
    )
    table = catalog.create_table(
        f"{NAMESPACE}.orders",
        schema,
        partition_spec=PartitionSpec(PartitionField(3, 1000, IdentityTransform(), "region")),
        sort_order=SortOrder(SortField(source_id=4)),
        properties={**BASE_PROPERTIES, "format-version": "2"},
    )
    append(table, [{"order_id": 1, "order_ts": ts(1), "region": "eu", "customer_id": 7, "status": "ok",
                    "total_units": 3, "prices": {"list": {"amount": 9.5, "units": 3}}}])
    # Partition by day instead of region: spec 0 (identity(region)) stays in the table's history.
    with table.update_spec() as s:
        s.remove_field("region")
        s.add_field("order_ts", DayTransform(), "order_ts_day")
    # The seed's red line 2 starts here: `status` (user review state) is dropped...
    with table.update_schema() as u:
        u.delete_column("status")
    append(table, [{"order_id": 2, "order_ts": ts(2), "region": "us", "customer_id": 8, "total_units": 5,
                    "prices": None}])
    return table


def build_accounts(catalog: SqlCatalog) -> Table:
    """v2 table whose history marks a column deprecated before it may be dropped (`column-drop`'s
    `require-deprecation-days`): v1 as created, v2 with `legacy_score`'s doc marked deprecated."""
    schema = Schema(
        *numbered(
            NestedField(0, "account_id", LongType(), required=True),
            opt("email", StringType()),
            opt("legacy_score", IntegerType(), doc="risk score, old model"),
            opt("segment", StringType()),
        ),
        identifier_field_ids=[1],
    )
    table = catalog.create_table(
        f"{NAMESPACE}.accounts",
        schema,
        properties={**BASE_PROPERTIES, "format-version": "2"},
    )
    with table.update_schema() as u:
        u.update_column("legacy_score", doc="deprecated: use risk_score; risk score, old model")
    return table


BASE_TABLES: dict[str, Callable[[SqlCatalog], Table]] = {
    "events": build_events,
    "users": build_users,
    "legacy": build_legacy,
    "orders": build_orders,
    "accounts": build_accounts,
}


# --------------------------------------------------------------------------------------------------
# Cases: each statement is a Spark DDL text and the exact pyiceberg calls for it, committed as one
# `update_schema()` transaction.

Apply = Callable[[UpdateSchema], object]


@dataclass(frozen=True)
class Stmt:
    sql: str
    apply: Apply


@dataclass(frozen=True)
class Case:
    name: str
    table: str
    description: str
    statements: tuple[Stmt, ...]


def alter(table: str, clause: str, apply: Apply) -> Stmt:
    return Stmt(f"ALTER TABLE {NAMESPACE}.{table} {clause};", apply)


def case(name: str, table: str, description: str, *clauses: tuple[str, Apply]) -> Case:
    return Case(name, table, description, tuple(alter(table, c, a) for c, a in clauses))


def add_then_move_first(path: tuple[str, ...], field_type: IcebergType) -> Apply:
    return lambda u: u.add_column(path, field_type).move_first(".".join(path))


CASES: list[Case] = [
    case(
        "add_column", "events", "ADD COLUMN with a comment: new id = last-column-id + 1",
        ("ADD COLUMN priority int COMMENT 'queue priority'",
         lambda u: u.add_column("priority", IntegerType(), doc="queue priority")),
    ),
    case(
        "add_columns", "events", "ADD COLUMNS with two columns in one statement: one commit, ids in order",
        ("ADD COLUMNS (retries int, source string COMMENT 'producer system')",
         lambda u: u.add_column("retries", IntegerType()).add_column("source", StringType(), doc="producer system")),
    ),
    case(
        "add_struct", "events", "add a struct column: the struct, then its fields",
        ("ADD COLUMN origin struct<x: double, y: double>", lambda u: u.add_column("origin", xy())),
    ),
    case(
        "add_list_of_structs", "events", "add array<struct>: list, element, then the element's fields",
        ("ADD COLUMN path array<struct<x: double, y: double>>", lambda u: u.add_column("path", array(xy()))),
    ),
    case(
        "add_map_of_structs", "events", "add map<struct, struct>: map, key id, value id, key fields, value fields",
        ("ADD COLUMN regions map<struct<x: int>, struct<a: int, b: int>>",
         lambda u: u.add_column(
             "regions",
             map_of(struct(opt("x", IntegerType())), struct(opt("a", IntegerType()), opt("b", IntegerType()))),
         )),
    ),
    case(
        "add_map_of_lists", "events", "add map<string, array<int>>: map, key, value, then the value's element",
        ("ADD COLUMN buckets map<string, array<int>>",
         lambda u: u.add_column("buckets", map_of(StringType(), array(IntegerType())))),
    ),
    case(
        "add_struct_in_struct", "events", "add a struct holding a struct: breadth-first ids s, a, b, x, y",
        ("ADD COLUMN s struct<a: struct<x: int, y: int>, b: int>",
         lambda u: u.add_column(
             "s", struct(opt("a", struct(opt("x", IntegerType()), opt("y", IntegerType()))), opt("b", IntegerType()))
         )),
    ),
    case(
        "add_to_struct", "events", "add a field inside a struct column",
        ("ADD COLUMN point.z double", lambda u: u.add_column(("point", "z"), DoubleType())),
    ),
    case(
        "add_to_list_element", "events", "add a field inside a list's element struct",
        ("ADD COLUMN points.element.z double", lambda u: u.add_column(("points", "element", "z"), DoubleType())),
    ),
    case(
        "add_to_map_value", "events", "add a field inside a map's value struct",
        ("ADD COLUMN attrs.value.b int", lambda u: u.add_column(("attrs", "value", "b"), IntegerType())),
    ),
    case(
        "add_column_first", "events", "ADD COLUMN ... FIRST: add then move first",
        ("ADD COLUMN seq bigint FIRST", add_then_move_first(("seq",), LongType())),
    ),
    case(
        "add_column_after", "events", "ADD COLUMN ... AFTER: add then move after",
        ("ADD COLUMN seq bigint AFTER ts", lambda u: u.add_column("seq", LongType()).move_after("seq", "ts")),
    ),
    case(
        "add_nested_first", "events", "ADD COLUMN nested.c ... FIRST inside a struct",
        ("ADD COLUMN point.seq bigint FIRST", add_then_move_first(("point", "seq"), LongType())),
    ),
    case(
        "add_to_map_value_first", "events", "ADD COLUMN ... FIRST inside a map's value struct",
        ("ADD COLUMN attrs.value.b int FIRST", add_then_move_first(("attrs", "value", "b"), IntegerType())),
    ),
    case(
        "rename_column", "events", "rename a top-level column: id kept",
        ("RENAME COLUMN data TO payload", lambda u: u.rename_column("data", "payload")),
    ),
    case(
        "rename_nested", "events", "rename a nested field: only the leaf name changes",
        ("RENAME COLUMN location.lat TO latitude", lambda u: u.rename_column("location.lat", "latitude")),
    ),
    case(
        "rename_identifier", "events", "rename the identifier column: identifier-field-ids keep its id",
        ("RENAME COLUMN id TO event_id", lambda u: u.rename_column("id", "event_id")),
    ),
    case(
        "widen_int_to_long", "events", "type promotion int -> long",
        ("ALTER COLUMN cnt TYPE bigint", lambda u: u.update_column("cnt", field_type=LongType())),
    ),
    case(
        "widen_float_to_double", "events", "type promotion float -> double",
        ("ALTER COLUMN ratio TYPE double", lambda u: u.update_column("ratio", field_type=DoubleType())),
    ),
    case(
        "widen_decimal", "events", "type promotion decimal(9,2) -> decimal(18,2)",
        ("ALTER COLUMN amount TYPE decimal(18,2)", lambda u: u.update_column("amount", field_type=DecimalType(18, 2))),
    ),
    case(
        "update_comment", "events", "replace a column's doc",
        ("ALTER COLUMN measurement COMMENT 'unit is bytes per second'",
         lambda u: u.update_column("measurement", doc="unit is bytes per second")),
    ),
    case(
        "update_type_and_comment", "events", "promote float -> double and replace the doc in one statement",
        ("ALTER COLUMN measurement TYPE double, measurement COMMENT 'unit is bytes per second'",
         lambda u: u.update_column("measurement", field_type=DoubleType(), doc="unit is bytes per second")),
    ),
    case(
        "drop_not_null", "events", "make a required column optional",
        ("ALTER COLUMN event_type DROP NOT NULL", lambda u: u.make_column_optional("event_type")),
    ),
    case(
        "move_first", "events", "move a column first",
        ("ALTER COLUMN data FIRST", lambda u: u.move_first("data")),
    ),
    case(
        "move_after", "events", "move a column after another",
        ("ALTER COLUMN data AFTER id", lambda u: u.move_after("data", "id")),
    ),
    case(
        "move_nested_after", "events", "move a struct field after a sibling (Spark names the sibling by leaf)",
        ("ALTER COLUMN location.lat AFTER long", lambda u: u.move_after("location.lat", "location.long")),
    ),
    case(
        "move_in_list_element", "events", "move a field of a list's element struct first",
        ("ALTER COLUMN points.element.y FIRST", lambda u: u.move_first("points.element.y")),
    ),
    case(
        "drop_column", "events", "drop a top-level column",
        ("DROP COLUMN data", lambda u: u.delete_column("data")),
    ),
    case(
        "drop_nested", "events", "drop a field of a struct",
        ("DROP COLUMN point.y", lambda u: u.delete_column("point.y")),
    ),
    case(
        "drop_then_readd", "events", "drop status, then re-add status with another type: it gets a NEW id",
        ("DROP COLUMN status", lambda u: u.delete_column("status")),
        ("ADD COLUMN status int", lambda u: u.add_column("status", IntegerType())),
    ),
    case(
        "drop_highest_then_add", "events",
        "drop the column with the highest id, then add one: last-column-id does not go down, new id = old last + 1",
        ("DROP COLUMN legacy_flag", lambda u: u.delete_column("legacy_flag")),
        ("ADD COLUMN origin_system string", lambda u: u.add_column("origin_system", StringType())),
    ),
    case(
        "add_then_drop_reuses_schema", "events",
        "add a column, then drop it: pyiceberg finds the identical earlier schema and makes it current again "
        "(no new schema), while last-column-id keeps the burnt id",
        ("ADD COLUMN scratch boolean", lambda u: u.add_column("scratch", BooleanType())),
        ("DROP COLUMN scratch", lambda u: u.delete_column("scratch")),
    ),
    case(
        "name_mapping_rename_and_add", "users",
        "table with schema.name-mapping.default: rename keeps the old name as an alias, add appends an entry",
        ("RENAME COLUMN email TO contact_email", lambda u: u.rename_column("email", "contact_email")),
        ("ADD COLUMN phone string", lambda u: u.add_column("phone", StringType())),
    ),
    case(
        "name_mapping_drop_and_readd", "users",
        "name-mapped table: drop nickname, re-add nickname: the old mapping entry loses the name (and is removed), "
        "so id-less files no longer feed the new column",
        ("DROP COLUMN nickname", lambda u: u.delete_column("nickname")),
        ("ADD COLUMN nickname string", lambda u: u.add_column("nickname", StringType())),
    ),
    case(
        "name_mapping_rename_then_reuse_name", "users",
        "name-mapped table: rename email, then add a new email column: the name moves to the new id, so the "
        "renamed column reads NULL from id-less files",
        ("RENAME COLUMN email TO contact_email", lambda u: u.rename_column("email", "contact_email")),
        ("ADD COLUMN email string", lambda u: u.add_column("email", StringType())),
    ),
    case(
        "name_mapping_add_then_drop", "users",
        "name-mapped table: add then drop a column: the earlier schema becomes current again, but the mapping "
        "keeps the dropped column's entry",
        ("ADD COLUMN scratch string", lambda u: u.add_column("scratch", StringType())),
        ("DROP COLUMN scratch", lambda u: u.delete_column("scratch")),
    ),
    case(
        "v1_add_and_rename", "legacy", "format-version 1 table: add a column, then rename one",
        ("ADD COLUMN region string", lambda u: u.add_column("region", StringType())),
        ("RENAME COLUMN name TO full_name", lambda u: u.rename_column("name", "full_name")),
    ),
]

# Spark DDL that pyiceberg refuses. They are not cases; they run on throwaway copies every time so
# that tests/interop/NOTES.md, which quotes these messages, cannot silently go stale.
REJECTED: list[Case] = [
    case("set_not_null", "events", "", ("ALTER COLUMN data SET NOT NULL",
                                        lambda u: u.update_column("data", required=True))),
    case("add_not_null", "events", "", ("ADD COLUMN c int NOT NULL",
                                        lambda u: u.add_column("c", IntegerType(), required=True))),
    case("narrow_long_to_int", "events", "", ("ALTER COLUMN id TYPE int",
                                              lambda u: u.update_column("id", field_type=IntegerType()))),
    case("int_to_string", "events", "", ("ALTER COLUMN cnt TYPE string",
                                         lambda u: u.update_column("cnt", field_type=StringType()))),
    case("drop_identifier", "events", "", ("DROP COLUMN id", lambda u: u.delete_column("id"))),
    case("drop_current_partition_source", "events", "", ("DROP COLUMN ts", lambda u: u.delete_column("ts"))),
    case("move_to_other_struct", "events", "", ("ALTER COLUMN location.lat AFTER data",
                                                lambda u: u.move_after("location.lat", "data"))),
    case("add_old_partition_field_name", "events", "", ("ADD COLUMN ts_month int",
                                                        lambda u: u.add_column("ts_month", IntegerType()))),
    case("add_to_map_key", "events", "", ("ADD COLUMN attrs.key.z int",
                                          lambda u: u.add_column(("attrs", "key", "z"), IntegerType()))),
    case("rename_to_existing", "events", "", ("RENAME COLUMN data TO status",
                                              lambda u: u.rename_column("data", "status"))),
]

CREATE_TABLE_SQL = (
    f"CREATE TABLE {NAMESPACE}.created (id bigint NOT NULL, data string, point struct<x: double, y: double>, "
    "tags array<string>, attrs map<string, struct<a: int>>) USING iceberg;"
)


def created_schema() -> Schema:
    """The pyiceberg schema for CREATE_TABLE_SQL; its placeholder ids are deliberately not 1..N."""
    return Schema(
        NestedField(10, "id", LongType(), required=True),
        NestedField(20, "data", StringType(), required=False),
        NestedField(30, "point", StructType(
            NestedField(31, "x", DoubleType(), required=False), NestedField(32, "y", DoubleType(), required=False)
        ), required=False),
        NestedField(40, "tags", ListType(41, StringType(), element_required=False), required=False),
        NestedField(50, "attrs", MapType(
            51, StringType(), 52, StructType(NestedField(53, "a", IntegerType(), required=False)), value_required=False
        ), required=False),
    )


# --------------------------------------------------------------------------------------------------
# Writing the output. File bytes are copied through the table's FileIO: never re-serialised.


def read_bytes(table: Table, location: str) -> bytes:
    with table.io.new_input(location).open() as stream:
        return stream.read()


def metadata_sequence(table: Table) -> list[str]:
    """Every metadata file of the table, oldest first (the metadata-log plus the current file)."""
    return [entry.metadata_file for entry in table.metadata.metadata_log] + [table.metadata_location]


def write_hadoop_layout(table: Table, name: str, out: Path) -> None:
    metadata_dir = out / "tables" / name / "metadata"
    metadata_dir.mkdir(parents=True)
    sequence = metadata_sequence(table)
    for version, location in enumerate(sequence, start=1):
        (metadata_dir / f"v{version}.metadata.json").write_bytes(read_bytes(table, location))
    # No trailing newline: Hadoop writes just the number, and pyiceberg's StaticTable expects that.
    (metadata_dir / "version-hint.text").write_text(str(len(sequence)))


def write_case_json(case_dir: Path, table: str, format_version: int, description: str, statements: int) -> None:
    doc = {
        "table": f"{NAMESPACE}.{table}",
        "format_version": format_version,
        "description": description,
        "statements": statements,
    }
    (case_dir / "case.json").write_text(json.dumps(doc, indent=2) + "\n")


def run_case(catalog: SqlCatalog, base: Table, spec: Case, out: Path) -> None:
    """Apply the case's statements to a catalog copy of the base table, one commit per statement."""
    # register_table points a new catalog entry at the base's current metadata file, so the case starts
    # from exactly that file, and its commits never touch the base table's own history.
    table = catalog.register_table(f"{NAMESPACE}.{spec.table}__{spec.name}", base.metadata_location)
    before = table.metadata_location
    for stmt in spec.statements:
        with table.update_schema() as update:
            stmt.apply(update)

    case_dir = out / "cases" / spec.name
    case_dir.mkdir(parents=True)
    (case_dir / "base.metadata.json").write_bytes(read_bytes(table, before))
    (case_dir / "expected.metadata.json").write_bytes(read_bytes(table, table.metadata_location))
    (case_dir / "change.sql").write_text("".join(s.sql + "\n" for s in spec.statements))
    write_case_json(case_dir, spec.table, table.format_version, spec.description, len(spec.statements))


def probe_rejection(catalog: SqlCatalog, base: Table, spec: Case) -> str:
    """Run a form pyiceberg is expected to refuse; return its error, or fail if it was accepted."""
    table = catalog.register_table(f"{NAMESPACE}.{spec.table}__rejected_{spec.name}", base.metadata_location)
    try:
        for stmt in spec.statements:
            with table.update_schema() as update:
                stmt.apply(update)
    except Exception as error:  # noqa: BLE001 - any refusal is what we are recording
        return f"{type(error).__name__}: {str(error).splitlines()[0]}"
    raise SystemExit(f"pyiceberg now ACCEPTS {spec.statements[0].sql!r}: make it a case and update NOTES.md")


def v3_refusal(catalog: SqlCatalog) -> str:
    """pyiceberg 0.12 cannot write format-version 3 metadata; record the refusal, fail if that changed."""
    try:
        catalog.create_table(f"{NAMESPACE}.v3_probe", created_schema(), properties={"format-version": "3"})
    except NotImplementedError as error:
        return f"NotImplementedError: {error}"
    raise SystemExit("pyiceberg now writes format-version 3: add the v3 case and update NOTES.md")


def run_create_table(catalog: SqlCatalog, out: Path) -> None:
    table = catalog.create_table(f"{NAMESPACE}.created", created_schema())
    case_dir = out / "cases" / "create_table"
    case_dir.mkdir(parents=True)
    (case_dir / "expected.metadata.json").write_bytes(read_bytes(table, table.metadata_location))
    (case_dir / "change.sql").write_text(CREATE_TABLE_SQL + "\n")
    write_case_json(
        case_dir, "created", table.format_version,
        "CREATE TABLE: fresh ids from 1, breadth-first per struct, map key then value", 1,
    )


def open_catalog(warehouse: Path) -> SqlCatalog:
    # Start from nothing each time: leftovers would change metadata-log contents and table locations.
    if warehouse.exists():
        shutil.rmtree(warehouse)
    warehouse.mkdir(parents=True)
    catalog = SqlCatalog(
        "fixtures", uri=f"sqlite:///{warehouse}/catalog.db", warehouse=f"file://{warehouse}"
    )
    catalog.create_namespace(NAMESPACE)
    return catalog


# --------------------------------------------------------------------------------------------------
# Parquet fixtures for `fieldgate verify` (--verify-out). One v2 table, `db.people`, whose data files
# were written under three schemas: by pyiceberg itself (field ids in the Parquet schema) and by plain
# pyarrow, imported with add_files (no field ids: read through `schema.name-mapping.default`). Plus
# standalone files that are not in the table: one whose `age` column has an incompatible physical
# type. The expected rows are pyiceberg's own scan of every file under every schema of the table, so
# the Rust tests compare fieldgate with the reader, not with our idea of the reader.
#
# The table is built at a fixed path and copied out byte for byte (Parquet, Avro manifests; metadata
# JSON in the Hadoop layout). Paths inside the manifests stay absolute (/tmp/...): `fieldgate verify
# --sample` reads a path under the table's `location` from the local copy when the original is gone.

VERIFY_WAREHOUSE = Path("/tmp/fieldgate-verify-warehouse")


class FixtureLocations(LocationProvider):
    """Names each data file after what it holds (`data/s1-pyiceberg.parquet`) instead of a random
    uuid, so tests, the README and expected.json can name files. pyiceberg imports this class by
    its dotted name (`make_fixtures.FixtureLocations`), so `name_next_file` sets the name on that
    module's copy of the class."""

    next_name = "unnamed"

    def new_data_location(self, data_file_name: str, partition_key: object = None) -> str:
        return f"{self.data_path}/{FixtureLocations.next_name}.parquet"


def name_next_file(name: str) -> None:
    importlib.import_module("make_fixtures").FixtureLocations.next_name = name


def without_field_ids(arrow_type: pa.DataType) -> pa.DataType:
    """The same arrow type with no `PARQUET:field_id` metadata at any depth: what an external writer
    (Spark without Iceberg, Hive, a plain pyarrow job) puts in a file."""

    def strip(field: pa.Field) -> pa.Field:
        return pa.field(field.name, without_field_ids(field.type), nullable=field.nullable)

    if pa.types.is_struct(arrow_type):
        return pa.struct([strip(arrow_type.field(i)) for i in range(arrow_type.num_fields)])
    if pa.types.is_large_list(arrow_type):
        return pa.large_list(strip(arrow_type.value_field))
    if pa.types.is_list(arrow_type):
        return pa.list_(strip(arrow_type.value_field))
    if pa.types.is_map(arrow_type):
        return pa.map_(strip(arrow_type.key_field), strip(arrow_type.item_field))
    return arrow_type


def write_imported(table: Table, name: str, rows: list[dict], first: str | None = None) -> str:
    """A file without field ids for add_files(), in the table's current names and types. pyarrow's
    defaults store decimals as FIXED_LEN_BYTE_ARRAY, where pyiceberg stores them as INT32/INT64, so
    decimal widening is read over both encodings. `first` moves one column to the front: name
    mapping does not care about order, a positional reader does."""
    fields = [pa.field(f.name, without_field_ids(f.type), nullable=f.nullable) for f in table.schema().as_arrow()]
    if first is not None:
        fields.sort(key=lambda f: f.name != first)
    schema = pa.schema(fields)
    path = Path(table.location().removeprefix("file://")) / "data" / f"{name}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path, row_group_size=2)
    return f"file://{path}"


def people_row(i: int, schema_id: int) -> dict:
    """Row i as written under schema `schema_id`; nulls and empty collections on some rows."""
    row: dict = {
        "id": i,
        "name": f"user-{i}",
        "age": 20 + i,
        "score": i / 10,
        "amount": Decimal(f"{i}.25"),
        "address": None if i % 4 == 3 else {"city": f"city-{i}", "zip": 1000 + i},
        "points": [] if i % 4 == 2 else [{"x": float(i), "y": -float(i)}],
        "attrs": {} if i % 4 == 2 else {"k": i, "j": -i},
        "born": dt.date(1990, 1, i),
        "seen": ts(i),
    }
    phone = None if i % 4 == 0 else f"1380000000{i}"
    if schema_id == 0:
        row.update(phone=phone, legacy=f"old-{i}")
        return row
    # Schema 1: values that need the widened types.
    row.update(
        mobile=phone,
        age=3_000_000_000 + i,
        score=i + 0.1,
        amount=Decimal(f"1234567890.{i:02d}"),
        vip_level=i % 3,
        points=[] if i % 4 == 2 else [{"x": float(i), "z": i * 100.0}],
        attrs={} if i % 4 == 2 else {"k": 5_000_000_000 + i},
    )
    if row["address"] is not None:
        row["address"]["country"] = "NL"
    if schema_id >= 2:
        row["new_tag"] = f"tag-{i}"
    return row


def build_people(catalog: SqlCatalog) -> tuple[Table, dict[str, int]]:
    """v2 table with files under schemas 0, 1 and 2; returns the table and each file's schema id."""
    schema = Schema(
        *numbered(
            NestedField(0, "id", LongType(), required=True),
            opt("name", StringType()),
            opt("phone", StringType()),
            opt("age", IntegerType()),
            opt("score", FloatType()),
            opt("amount", DecimalType(9, 2)),
            opt("legacy", StringType()),
            opt("address", struct(opt("city", StringType()), opt("zip", IntegerType()))),
            opt("points", array(xy())),
            opt("attrs", map_of(StringType(), IntegerType())),
            opt("born", DateType()),
            opt("seen", TimestamptzType()),
        )
    )
    table = catalog.create_table(
        f"{NAMESPACE}.people",
        schema,
        properties={
            "owner": "fieldgate-fixtures",
            "format-version": "2",
            "write.parquet.compression-codec": "zstd",
            # Two rows per row group, so files have several and errors can name one.
            "write.parquet.row-group-limit": "2",
            "write.py-location-provider.impl": "make_fixtures.FixtureLocations",
        },
    )
    written: dict[str, int] = {}

    def append_named(name: str, rows: list[dict]) -> None:
        name_next_file(name)
        append(table, rows)
        written[name] = table.schema().schema_id

    def import_named(name: str, rows: list[dict], first: str | None = None) -> None:
        table.add_files([write_imported(table, name, rows, first)])
        written[name] = table.schema().schema_id

    append_named("s0-pyiceberg", [people_row(i, 0) for i in (1, 2, 3)])
    # add_files() sets the name mapping from the schema current at that moment.
    import_named("s0-imported", [people_row(i, 0) for i in (4, 5, 6)])

    # Schema 1: rename, three widenings, a drop, adds at the top and inside a struct, a nested drop and
    # add inside a list's element, and a widened map value.
    with table.update_schema() as u:
        u.rename_column("phone", "mobile")
        u.update_column("age", field_type=LongType())
        u.update_column("score", field_type=DoubleType())
        u.update_column("amount", field_type=DecimalType(12, 2))
        u.delete_column("legacy")
        u.add_column("vip_level", IntegerType())
        u.add_column(("address", "country"), StringType())
        u.delete_column("points.element.y")
        u.add_column(("points", "element", "z"), DoubleType())
        u.update_column("attrs.value", field_type=LongType())
    append_named("s1-pyiceberg", [people_row(i, 1) for i in (7, 8, 9)])
    import_named("s1-imported", [people_row(i, 1) for i in (10, 11)], first="name")

    # Schema 2: a new column placed right after `name`, where `phone` used to be: the seed's Hive disaster.
    with table.update_schema() as u:
        u.add_column("new_tag", StringType())
        u.move_after("new_tag", "name")
    append_named("s2-pyiceberg", [people_row(i, 2) for i in (12,)])
    return table, written


def write_with_column_as(table: Table, path: Path, column: str, arrow_type: pa.DataType, values: list) -> None:
    """A file with the table's field ids whose `column` is stored as `arrow_type` (rows 13 to 15 of
    the current schema, with `values` in that column). Not part of the table; verified by path."""
    column_id = table.schema().find_field(column).field_id
    fields = []
    for f in table.schema().as_arrow():
        if f.name == column:
            f = pa.field(column, arrow_type, nullable=True, metadata={b"PARQUET:field_id": str(column_id).encode()})
        fields.append(f)
    rows = [people_row(i, 2) | {column: v} for i, v in zip((13, 14, 15), values)]
    pq.write_table(pa.Table.from_pylist(rows, schema=pa.schema(fields)), path, row_group_size=2)


def write_age_as_string(table: Table, path: Path) -> None:
    """`age` (a long in the table) stored as strings: a writer bug no reader can resolve."""
    write_with_column_as(table, path, "age", pa.string(), [f"{20 + i} years" for i in (13, 14, 15)])


def write_seen_variants(table: Table, files: Path) -> list[Path]:
    """`seen` (a timestamptz) stored as nanoseconds, and as a timestamp without time zone: both are
    read by pyiceberg (nanoseconds truncated toward zero in a v2 table)."""
    nanos = files / "seen-as-nanos.parquet"
    write_with_column_as(table, nanos, "seen", pa.timestamp("ns", tz="UTC"),
                         [1_704_110_400_000_001_999, -1_999, None])
    local = files / "seen-without-zone.parquet"
    write_with_column_as(table, local, "seen", pa.timestamp("us"), [1_704_110_400_000_001, -1, None])
    return [nanos, local]


# `db.regions`: a v2 table partitioned by identity(region), for what a reader takes from manifests
# rather than from the data file. Hive-style imports leave the partition column out of the files
# (its value lives in the directory name); Iceberg readers fill it from the manifest entry's
# partition tuple (spec "Column Projection"). pyiceberg's add_files() accepts such a file but infers
# a null partition value (no column statistics to infer it from), so one file is registered the way a
# Hive migration registers it: pyiceberg's own append_data_file() with the partition value given.
# pyiceberg 0.12 cannot write delete files (`delete()` falls back to copy-on-write even with
# write.delete.mode=merge-on-read), so the position delete file is written by pyarrow in the spec's
# schema and committed in a delete manifest through pyiceberg's own manifest writer; pyiceberg's scan
# then applies it.

POS_DELETE_SCHEMA = pa.schema([
    pa.field("file_path", pa.string(), nullable=False, metadata={b"PARQUET:field_id": b"2147483546"}),
    pa.field("pos", pa.int64(), nullable=False, metadata={b"PARQUET:field_id": b"2147483545"}),
])


def write_region_less(table: Table, name: str, rows: list[dict], field_ids: bool = False) -> Path:
    """A file without the `region` column (a Hive partition's file), without field ids unless asked."""
    fields = [f if field_ids else pa.field(f.name, without_field_ids(f.type), nullable=f.nullable)
              for f in table.schema().as_arrow() if f.name != "region"]
    path = Path(table.location().removeprefix("file://")) / "data" / f"{name}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=pa.schema(fields)), path)
    return path


def register_with_partition(table: Table, path: Path, partition: Record) -> None:
    """Commits a data file through pyiceberg's fast append with the partition value a Hive migration
    takes from the directory name, instead of the null add_files() infers."""
    data_file = DataFile.from_args(
        content=DataFileContent.DATA,
        file_path=f"file://{path}",
        file_format=FileFormat.PARQUET,
        partition=partition,
        record_count=pq.ParquetFile(path).metadata.num_rows,
        file_size_in_bytes=path.stat().st_size,
    )
    data_file.spec_id = table.metadata.default_spec_id
    with table.transaction() as tx:
        with tx.update_snapshot().fast_append() as append:
            append.append_data_file(data_file)


class DeleteManifestWriter(ManifestWriterV2):
    """pyiceberg's v2 manifest writer, declaring its content as deletes."""

    def content(self) -> ManifestContent:
        return ManifestContent.DELETES

    @property
    def _meta(self) -> dict[str, str]:
        return {**super()._meta, "content": "deletes"}


def commit_position_delete(table: Table, data_file_path: str, positions: list[int], partition: Record) -> None:
    path = Path(table.location().removeprefix("file://")) / "data" / "eu-position-deletes.parquet"
    rows = [{"file_path": data_file_path, "pos": p} for p in positions]
    pq.write_table(pa.Table.from_pylist(rows, schema=POS_DELETE_SCHEMA), path)
    delete_file = DataFile.from_args(
        content=DataFileContent.POSITION_DELETES,
        file_path=f"file://{path}",
        file_format=FileFormat.PARQUET,
        partition=partition,
        record_count=len(rows),
        file_size_in_bytes=path.stat().st_size,
    )
    delete_file.spec_id = table.metadata.default_spec_id
    with table.transaction() as tx:
        with tx.update_snapshot().fast_append() as append:
            data_manifests = append._manifests

            def with_delete_manifest() -> list:
                writer = DeleteManifestWriter(
                    spec=table.metadata.spec(),
                    schema=table.schema(),
                    output_file=append.new_manifest_output(),
                    snapshot_id=append.snapshot_id,
                    avro_compression=append._compression,
                )
                with writer:
                    writer.add(ManifestEntry.from_args(
                        status=ManifestEntryStatus.ADDED, snapshot_id=append.snapshot_id, data_file=delete_file
                    ))
                return data_manifests() + [writer.to_manifest_file()]

            append._manifests = with_delete_manifest


def regions_table(catalog: SqlCatalog, name: str, region_required: bool) -> Table:
    schema = Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "region", StringType(), required=region_required),
        NestedField(3, "note", StringType(), required=False),
    )
    return catalog.create_table(
        f"{NAMESPACE}.{name}",
        schema,
        partition_spec=PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "region")),
        properties={
            "owner": "fieldgate-fixtures",
            "format-version": "2",
            "write.parquet.compression-codec": "zstd",
            "write.py-location-provider.impl": "make_fixtures.FixtureLocations",
        },
    )


def build_regions(catalog: SqlCatalog) -> Table:
    table = regions_table(catalog, "regions", region_required=False)
    name_next_file("eu-pyiceberg")
    append(table, [{"id": i, "region": "eu", "note": f"n-{i}"} for i in (1, 2, 3)])
    table.add_files([f"file://{write_region_less(table, 'null-imported', [{'id': 4, 'note': 'n-4'}])}"])
    register_with_partition(
        table, write_region_less(table, "us-imported", [{"id": i, "note": f"n-{i}"} for i in (5, 6)]), Record("us")
    )
    eu = next(t.file.file_path for t in table.scan().plan_files() if t.file.file_path.endswith("eu-pyiceberg.parquet"))
    commit_position_delete(table, eu, [1], Record("eu"))
    return table


def build_required_regions(catalog: SqlCatalog) -> Table:
    """`region` required: pyiceberg 0.12 refuses a file without it before it looks at the partition
    value (`ArrowProjectionVisitor.struct`), where Iceberg Java reads the partition value."""
    table = regions_table(catalog, "required_regions", region_required=True)
    path = write_region_less(table, "us-with-ids", [{"id": 7, "note": "n-7"}], field_ids=True)
    register_with_partition(table, path, Record("us"))
    return table


def copy_table(table: Table, out: Path) -> list[str]:
    """The table, byte for byte: data files, manifests and manifest lists; metadata in the Hadoop
    layout. Returns the metadata files written, oldest first."""
    table_dir = Path(table.location().removeprefix("file://"))
    for sub in ("data", "metadata"):
        (out / sub).mkdir(parents=True)
        for path in sorted((table_dir / sub).iterdir()):
            if not path.name.endswith(".metadata.json"):
                shutil.copyfile(path, out / sub / path.name)
    sequence = metadata_sequence(table)
    written = []
    for version, location in enumerate(sequence, start=1):
        (out / "metadata" / f"v{version}.metadata.json").write_bytes(read_bytes(table, location))
        written.append(f"v{version}.metadata.json")
    (out / "metadata" / "version-hint.text").write_text(str(len(sequence)))
    return written


def shortest_float32(value: float) -> float:
    """The shortest decimal that reads back as the same float32: how fieldgate prints `float`."""
    for digits in range(1, 18):
        text = f"{value:.{digits}g}"
        if struct_module.unpack("<f", struct_module.pack("<f", float(text)))[0] == value:
            return float(text)
    return value


def render(value: object, iceberg_type: IcebergType) -> object:
    """A value from pyarrow's to_pylist() in the JSON form of CLI.md (`verify --rows`)."""
    if value is None:
        return None
    if isinstance(iceberg_type, StructType):
        return {f.name: render(value.get(f.name), f.field_type) for f in iceberg_type.fields}
    if isinstance(iceberg_type, ListType):
        return [render(v, iceberg_type.element_type) for v in value]
    if isinstance(iceberg_type, MapType):
        return [{"key": render(k, iceberg_type.key_type), "value": render(v, iceberg_type.value_type)} for k, v in value]
    if isinstance(iceberg_type, DecimalType):
        return format(value, "f")
    if isinstance(iceberg_type, FloatType):
        return shortest_float32(value)
    if isinstance(value, (dt.date, dt.time, dt.datetime)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    return value


def scan_file(table: Table, data_file: DataFile, schema: Schema, metadata: object = None,
              delete_files: frozenset = frozenset()) -> dict:
    """pyiceberg's own read of one file under one schema: the rows, or the error it raised."""
    scan = ArrowScan(metadata or table.metadata, table.io, schema, AlwaysTrue())
    try:
        result = scan.to_table([FileScanTask(data_file, delete_files=set(delete_files))])
    except Exception as error:  # noqa: BLE001 - a refusal is an expected outcome here
        return {"error": f"{type(error).__name__}: {str(error).splitlines()[0]}"}
    return {"rows": [{f.name: render(row[f.name], f.field_type) for f in schema.fields} for row in result.to_pylist()]}


def standalone_data_file(path: Path) -> DataFile:
    data_file = DataFile.from_args(
        content=DataFileContent.DATA,
        file_path=f"file://{path}",
        file_format=FileFormat.PARQUET,
        partition=Record(),
        record_count=pq.ParquetFile(path).metadata.num_rows,
        file_size_in_bytes=path.stat().st_size,
    )
    data_file.spec_id = 0
    return data_file


def make_verify_fixtures(out: Path) -> None:
    for sub in ("people", "regions", "required_regions", "files"):
        shutil.rmtree(out / sub, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    catalog = open_catalog(VERIFY_WAREHOUSE)
    table, written = build_people(catalog)

    copy = out / "people"
    no_mapping = None
    for name in copy_table(table, copy):
        text = (copy / "metadata" / name).read_bytes()
        if no_mapping is None and b"schema.name-mapping.default" not in text and b'"snapshots":[{' in text:
            no_mapping = f"people/metadata/{name}"

    (out / "files").mkdir()
    age_as_string = out / "files" / "age-as-string.parquet"
    write_age_as_string(table, age_as_string)

    reads = []
    files = {}
    for task in table.scan().plan_files():
        name = Path(task.file.file_path).stem
        files[name] = {
            "path": f"people/data/{name}.parquet",
            "written_under_schema": written[name],
            "field_ids": not name.endswith("-imported"),
        }
        for schema in table.schemas().values():
            reads.append({"file": files[name]["path"], "metadata": "people", "schema_id": schema.schema_id}
                         | scan_file(table, task.file, schema))
    for path in [age_as_string, *write_seen_variants(table, out / "files")]:
        reads.append({"file": f"files/{path.name}", "metadata": "people", "schema_id": table.schema().schema_id}
                     | scan_file(table, standalone_data_file(path), table.schema()))
    # An id-less file against the table as it was before add_files() gave it a name mapping.
    if no_mapping is not None:
        before = StaticTable.from_metadata(f"file://{copy.parent / no_mapping}")
        imported = next(t.file for t in table.scan().plan_files() if t.file.file_path.endswith("s0-imported.parquet"))
        reads.append({"file": "people/data/s0-imported.parquet", "metadata": no_mapping, "schema_id": 0}
                     | scan_file(table, imported, before.schema(), before.metadata))

    # The partitioned table: the rows pyiceberg's scan returns for each data file, with the delete
    # files that apply to it (`position_deletes`: how many) and the rows it returns without them.
    regions = build_regions(catalog)
    copy_table(regions, out / "regions")
    for task in regions.scan().plan_files():
        name = Path(task.file.file_path).stem
        read = {"file": f"regions/data/{name}.parquet", "metadata": "regions", "schema_id": 0}
        read |= scan_file(regions, task.file, regions.schema(), delete_files=frozenset(task.delete_files))
        if task.delete_files:
            read["position_deletes"] = sum(d.content == DataFileContent.POSITION_DELETES for d in task.delete_files)
            read["rows_without_deletes"] = scan_file(regions, task.file, regions.schema())["rows"]
        reads.append(read)

    required = build_required_regions(catalog)
    copy_table(required, out / "required_regions")
    for task in required.scan().plan_files():
        name = Path(task.file.file_path).stem
        reads.append({"file": f"required_regions/data/{name}.parquet", "metadata": "required_regions", "schema_id": 0}
                     | scan_file(required, task.file, required.schema()))

    doc = {
        "generator": "tests/interop/make_fixtures.py --verify-out (pyiceberg 0.12.0, pyarrow 26.0.1)",
        "table_location": table.location(),
        "regions_location": regions.location(),
        "files": dict(sorted(files.items())),
        "reads": sorted(reads, key=lambda r: (r["file"], r["metadata"], r["schema_id"])),
    }
    (out / "expected.json").write_text(json.dumps(doc, indent=1) + "\n")
    shutil.rmtree(VERIFY_WAREHOUSE)
    print(f"wrote the verify fixtures ({len(files)} people files, {len(reads)} reads) to {out}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="directory to write cases/ and tables/ into")
    parser.add_argument(
        "--keep-data", action="store_true",
        help="put the warehouse (data, manifests) under OUT/warehouse and keep it, for check_live.py",
    )
    parser.add_argument(
        "--verify-out", type=Path,
        help="write only the Parquet fixtures of `fieldgate verify` into this directory (see make_verify_fixtures)",
    )
    args = parser.parse_args(argv)
    if args.verify_out is not None:
        make_verify_fixtures(args.verify_out.resolve())
        return 0
    if args.out is None:
        parser.error("give --out (schema-evolution fixtures) or --verify-out (Parquet fixtures)")
    out: Path = args.out.resolve()
    warehouse = out / "warehouse" if args.keep_data else DEFAULT_WAREHOUSE

    # Only our own subdirectories are replaced; anything else under OUT is left alone.
    for sub in ("cases", "tables"):
        shutil.rmtree(out / sub, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)

    catalog = open_catalog(warehouse)
    bases = {name: build(catalog) for name, build in BASE_TABLES.items()}
    for name, table in bases.items():
        write_hadoop_layout(table, name, out)
    for spec in CASES:
        run_case(catalog, bases[spec.table], spec, out)
        print(f"case {spec.name}: {len(spec.statements)} statement(s)")
    run_create_table(catalog, out)
    print("case create_table: 1 statement(s)")
    for spec in REJECTED:
        print(f"rejected {spec.statements[0].sql} -> {probe_rejection(catalog, bases[spec.table], spec)}")
    print(f"rejected format-version 3 -> {v3_refusal(catalog)}")

    if not args.keep_data:
        shutil.rmtree(warehouse)
    print(f"wrote {len(CASES) + 1} cases and {len(bases)} tables to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
