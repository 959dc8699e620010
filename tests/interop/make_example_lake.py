#!/usr/bin/env python3
"""Generate examples/lake: two example tables, written by the real pyiceberg writer.

`lake_prod.dim_users` (id, phone, amount, and a `status` column holding the user review state that
was dropped later) and `lake_prod.fact_orders` (partitioned by region, with an INT `total_units`
and a `legacy_discount_code` nobody reads). Each table is copied out byte for byte into
warehouse/lake_prod/<table>/: its metadata history in the Hadoop layout (metadata/vN.metadata.json
+ version-hint.text), its manifest lists and manifests beside them, and its Parquet data files in
data/. The paths inside the manifests stay under the table's original location, which fieldgate
maps to the table directory, so `verify --sample` and the gate's `sample:` read the repository's
copy. The migrations next to them are hand-written SQL; only metadata and data come from here.

uuids (and so file names and snapshot ids) come from a seeded generator, so a regeneration
changes only timestamps.

    .venv/bin/python tests/interop/make_example_lake.py --out examples/lake
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import uuid
from decimal import Decimal
from pathlib import Path

# Before pyiceberg is imported: its metadata model takes `uuid.uuid4` as a default factory then.
_UUIDS = random.Random(20241130)
uuid.uuid4 = lambda: uuid.UUID(int=_UUIDS.getrandbits(128), version=4)

from make_fixtures import append, metadata_sequence, numbered, opt, read_bytes, ts  # noqa: E402
from pyiceberg.catalog.sql import SqlCatalog  # noqa: E402
from pyiceberg.partitioning import PartitionField, PartitionSpec  # noqa: E402
from pyiceberg.schema import Schema  # noqa: E402
from pyiceberg.table import Table  # noqa: E402
from pyiceberg.table.sorting import SortField, SortOrder  # noqa: E402
from pyiceberg.transforms import BucketTransform, IdentityTransform  # noqa: E402
from pyiceberg.types import DecimalType, IntegerType, LongType, NestedField, StringType, TimestamptzType  # noqa: E402

NAMESPACE = "lake_prod"
# A fixed place, so the locations inside the metadata and manifests are the same on every run.
WAREHOUSE = Path("/tmp/fieldgate-example-lake")
PROPERTIES = {"owner": "data-platform", "format-version": "2"}


def build_dim_users(catalog: SqlCatalog) -> Table:
    schema = Schema(
        *numbered(
            NestedField(0, "id", LongType(), required=True, doc="user id"),
            opt("phone", StringType(), "E.164 phone number"),
            opt("amount", DecimalType(10, 2), "lifetime spend"),
            opt("status", StringType(), "user review state"),
        ),
        identifier_field_ids=[1],
    )
    table = catalog.create_table(
        f"{NAMESPACE}.dim_users",
        schema,
        partition_spec=PartitionSpec(PartitionField(1, 1000, BucketTransform(8), "id_bucket")),
        properties=PROPERTIES,
    )
    append(table, [
        {"id": 1, "phone": "13800000000", "amount": Decimal("120.50"), "status": "approved"},
        {"id": 2, "phone": "13900000001", "amount": Decimal("8.00"), "status": "pending"},
    ])
    # The review workflow was retired: `status` (user review state) is dropped, its id sealed.
    with table.update_schema() as update:
        update.delete_column("status")
    append(table, [{"id": 3, "phone": "13700000002", "amount": Decimal("42.10")}])
    return table


def build_fact_orders(catalog: SqlCatalog) -> Table:
    schema = Schema(
        *numbered(
            NestedField(0, "order_id", LongType(), required=True),
            opt("order_ts", TimestamptzType()),
            opt("region", StringType(), "sales region"),
            opt("customer_id", LongType()),
            opt("total_units", IntegerType()),
            opt("legacy_discount_code", StringType(), "deprecated: no reader since 2025"),
        ),
        identifier_field_ids=[1],
    )
    table = catalog.create_table(
        f"{NAMESPACE}.fact_orders",
        schema,
        partition_spec=PartitionSpec(PartitionField(3, 1000, IdentityTransform(), "region")),
        sort_order=SortOrder(SortField(source_id=2)),
        properties=PROPERTIES,
    )
    append(table, [
        {"order_id": 10, "order_ts": ts(1), "region": "eu", "customer_id": 1, "total_units": 3,
         "legacy_discount_code": "SPRING"},
        {"order_id": 11, "order_ts": ts(2), "region": "apac", "customer_id": 2, "total_units": 7,
         "legacy_discount_code": None},
    ])
    return table


def copy_table(table: Table, out: Path) -> None:
    """The table directory byte for byte (partitioned data files in their partition directories,
    manifest lists and manifests), with its metadata history in the Hadoop layout."""
    shutil.copytree(
        Path(table.location().removeprefix("file://")),
        out,
        ignore=shutil.ignore_patterns("*.metadata.json"),
    )
    sequence = metadata_sequence(table)
    for version, location in enumerate(sequence, start=1):
        (out / "metadata" / f"v{version}.metadata.json").write_bytes(read_bytes(table, location))
    (out / "metadata" / "version-hint.text").write_text(str(len(sequence)))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path)
    out: Path = parser.parse_args(argv).out.resolve()
    for sub in ("warehouse", "data"):
        shutil.rmtree(out / sub, ignore_errors=True)
    shutil.rmtree(WAREHOUSE, ignore_errors=True)
    WAREHOUSE.mkdir(parents=True)
    catalog = SqlCatalog("example", uri=f"sqlite:///{WAREHOUSE}/catalog.db", warehouse=f"file://{WAREHOUSE}")
    catalog.create_namespace(NAMESPACE)
    for name, build in {"dim_users": build_dim_users, "fact_orders": build_fact_orders}.items():
        copy_table(build(catalog), out / "warehouse" / NAMESPACE / name)
    shutil.rmtree(WAREHOUSE)
    print(f"wrote examples to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
