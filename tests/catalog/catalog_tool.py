"""What the catalog tests do to the catalog with pyiceberg, as engines and scripts outside a
repository would: make the lake, change a table behind the repository's back, and prove the REST
server faithful with pyiceberg's own RestCatalog client.

    catalog_tool.py make --db DB --warehouse-uri URI [--prop KEY VALUE]...
    catalog_tool.py make-bucket --endpoint URL BUCKET       (in moto's S3 server)
    catalog_tool.py delete-dir --endpoint URL BUCKET/PREFIX  (every object under it)
    catalog_tool.py append --db DB --warehouse-uri URI TABLE
    catalog_tool.py add-column --db DB --warehouse-uri URI TABLE NAME
    catalog_tool.py show --uri URI --token TOKEN TABLE      (the table as RestCatalog loads it, JSON)
    catalog_tool.py prove --uri URI --token TOKEN
"""

import argparse
import json
import sys

import pyarrow as pa
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import CommitFailedException, ForbiddenError, OAuthError, UnauthorizedError
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import DayTransform, IdentityTransform
from pyiceberg.types import (
    DoubleType,
    LongType,
    NestedField,
    StringType,
    StructType,
    TimestamptzType,
)


def sql_catalog(args):
    return SqlCatalog(
        "default", uri=f"sqlite:///{args.db}", warehouse=args.warehouse_uri, **dict(args.prop)
    )


def s3(args):
    """pyarrow's S3 client on moto's server."""
    from pyarrow import fs

    scheme, host = args.endpoint.split("://", 1)
    return fs.S3FileSystem(
        endpoint_override=host,
        scheme=scheme,
        access_key="maker",
        secret_key="maker-secret",
        region="us-east-1",
        allow_bucket_creation=True,
        allow_bucket_deletion=True,
    )


def make_bucket(args):
    s3(args).create_dir(args.path)


def delete_dir(args):
    s3(args).delete_dir(args.path)


EVENTS = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "ts", TimestamptzType(), required=False),
    NestedField(3, "kind", StringType(), required=False),
    NestedField(
        4,
        "payload",
        StructType(
            NestedField(5, "amount", DoubleType(), required=False),
            NestedField(6, "note", StringType(), required=False),
        ),
        required=False,
    ),
    identifier_field_ids=[1],
)


def events_rows(start):
    import datetime

    base = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    return pa.Table.from_pylist(
        [
            {
                "id": start + i,
                "ts": base + datetime.timedelta(days=i),
                "kind": "click" if i % 2 else "view",
                "payload": {"amount": float(i), "note": f"n{i}"},
            }
            for i in range(3)
        ],
        schema=EVENTS.as_arrow(),
    )


def make(args):
    catalog = sql_catalog(args)
    catalog.create_namespace("db")
    events = catalog.create_table(
        "db.events",
        schema=EVENTS,
        partition_spec=PartitionSpec(
            PartitionField(source_id=2, field_id=1000, transform=DayTransform(), name="ts_day")
        ),
        properties={"format-version": "2"},
    )
    events.append(events_rows(0))
    with events.update_schema() as update:
        update.add_column("source", StringType(), doc="where the event came from")
    events = catalog.load_table("db.events")
    with events.update_spec() as spec:
        spec.add_field("kind", IdentityTransform(), "kind")
    catalog.create_namespace("legacy")
    legacy_schema = Schema(
        NestedField(1, "user_id", LongType(), required=False),
        NestedField(2, "email", StringType(), required=False),
    )
    legacy = catalog.create_table(
        "legacy.users", schema=legacy_schema, properties={"format-version": "1"}
    )
    legacy.append(
        pa.Table.from_pylist(
            [{"user_id": 1, "email": "a@example.com"}], schema=legacy_schema.as_arrow()
        )
    )


def create(args):
    """A small table at `args.table` (`a.b.t`), its namespace levels made as needed."""
    catalog = sql_catalog(args)
    levels = args.table.split(".")[:-1]
    for depth in range(1, len(levels) + 1):
        catalog.create_namespace_if_not_exists(tuple(levels[:depth]))
    schema = Schema(NestedField(1, "id", LongType(), required=False))
    catalog.create_table(tuple(args.table.split(".")), schema=schema)


def append(args):
    table = sql_catalog(args).load_table(args.table)
    rows = events_rows(100) if "payload" in table.schema().column_names else None
    if rows is None:
        rows = pa.Table.from_pylist([{"user_id": 2, "email": "b@example.com"}], schema=table.schema().as_arrow())
    else:
        rows = rows.append_column("source", pa.array(["app"] * 3, pa.large_string()))
    table.append(rows)


def add_column(args):
    table = sql_catalog(args).load_table(args.table)
    with table.update_schema() as update:
        update.add_column(args.name, StringType())


def drop_column(args):
    table = sql_catalog(args).load_table(args.table)
    with table.update_schema() as update:
        update.delete_column(args.name)


def set_doc(args):
    table = sql_catalog(args).load_table(args.table)
    with table.update_schema() as update:
        update.update_column(args.name, doc=args.doc)


def rest(args, token=None):
    return RestCatalog("rest", uri=args.uri, token=token or args.token)


def show(args):
    table = rest(args).load_table(args.table)
    schema = table.schema()
    print(
        json.dumps(
            {
                "schema-id": schema.schema_id,
                "fields": {f.name: f.field_id for f in schema.fields},
                "identifier-field-ids": list(schema.identifier_field_ids),
                "last-column-id": table.metadata.last_column_id,
                "rows": table.scan().to_arrow().num_rows,
            }
        )
    )


def prove(args):
    """pyiceberg's RestCatalog against the server: load, scan, commit, a stale commit, a bad token."""
    catalog = rest(args)
    assert ("db",) in catalog.list_namespaces(), catalog.list_namespaces()
    table = catalog.load_table("db.events")
    rows = table.scan().to_arrow().num_rows
    assert rows == 3, rows
    stale = catalog.load_table("db.events")
    with table.update_schema() as update:
        update.add_column("proved", StringType())
    reloaded = catalog.load_table("db.events")
    assert "proved" in reloaded.schema().column_names
    assert reloaded.scan().to_arrow().num_rows == 3
    try:
        with stale.update_schema() as update:
            update.add_column("stale", StringType())
    except CommitFailedException:
        pass
    else:
        raise AssertionError("a stale commit was accepted")
    assert "stale" not in catalog.load_table("db.events").schema().column_names
    try:
        rest(args, token="wrong-token").load_table("db.events")
    except (UnauthorizedError, ForbiddenError, OAuthError):
        pass
    else:
        raise AssertionError("a wrong token was accepted")
    print("faithful")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("make", "create", "append", "add-column", "drop-column", "set-doc"):
        command = sub.add_parser(name)
        command.add_argument("--db", required=True)
        command.add_argument("--warehouse-uri", required=True)
        command.add_argument("--prop", nargs=2, action="append", default=[], help="a catalog property")
        if name != "make":
            command.add_argument("table")
        if name in ("add-column", "drop-column", "set-doc"):
            command.add_argument("name")
        if name == "set-doc":
            command.add_argument("doc")
    for name in ("make-bucket", "delete-dir"):
        command = sub.add_parser(name)
        command.add_argument("--endpoint", required=True)
        command.add_argument("path")
    for name in ("show", "prove"):
        command = sub.add_parser(name)
        command.add_argument("--uri", required=True)
        command.add_argument("--token", required=True)
        if name == "show":
            command.add_argument("table")
    args = parser.parse_args()
    {"make": make, "create": create, "drop-column": drop_column, "set-doc": set_doc, "make-bucket": make_bucket, "delete-dir": delete_dir, "append": append, "add-column": add_column, "show": show, "prove": prove}[
        args.command
    ](args)


if __name__ == "__main__":
    sys.exit(main())
