#!/usr/bin/env python3
"""Generate partition-evolution and table-property fixtures with the real pyiceberg writer.

Each case starts from a table pyiceberg creates (v1 or v2), makes one pyiceberg commit per Spark
statement of its `change.sql` (`update_spec()` for partition fields, `transaction().set_properties`
/ `remove_properties` for properties, `update_sort_order()` for WRITE ... ORDERED BY with the
`write.distribution-mode` Spark sets), and keeps the metadata before and after, byte for byte.
`tests/partition_interop.rs` applies `change.sql` to `base.metadata.json` with fieldgate and
compares spec ids, partition field ids and names, `default-spec-id`, `last-partition-id`, sort
orders and the properties with `expected.metadata.json`.

    target/interop-venv/bin/python tests/interop/make_partition_fixtures.py --out tests/fixtures/partition_cases

Layout: <out>/<case>/{base.metadata.json, change.sql, expected.metadata.json}

One more case starts from the example lake's `lake_prod.fact_orders` (registered as committed in
`examples/lake`, not created here) and runs the statements of its migration
`examples/lake/migrations/fact_orders/0003_partition_by_order_day.sql`, which the test checks
are that file's.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table import Table
from pyiceberg.table.sorting import NullOrder
from pyiceberg.transforms import (
    BucketTransform,
    DayTransform,
    HourTransform,
    IdentityTransform,
    MonthTransform,
    TruncateTransform,
    YearTransform,
)
from pyiceberg.types import LongType, NestedField, StringType, TimestamptzType

TABLE = "db.t"
# A fixed warehouse path keeps the locations in the committed metadata stable across runs.
WAREHOUSE = Path("/tmp/fieldgate-partition-fixture-warehouse")
PROPERTIES = {"owner": "fieldgate-fixtures"}


def schema() -> Schema:
    return Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "ts", TimestamptzType(), required=False),
        NestedField(3, "region", StringType(), required=False),
        NestedField(4, "name", StringType(), required=False),
    )


def month_spec() -> PartitionSpec:
    return PartitionSpec(PartitionField(2, 1000, MonthTransform(), "ts_month"))


@dataclass
class Case:
    name: str
    format_version: int
    spec: PartitionSpec
    # One (Spark statement, pyiceberg commit) per step.
    steps: list[tuple[str, Callable[[Table], None]]]


def spec_update(fn: Callable) -> Callable[[Table], None]:
    def run(table: Table) -> None:
        with table.update_spec() as update:
            fn(update)

    return run


def set_props(**props: str) -> Callable[[Table], None]:
    def run(table: Table) -> None:
        with table.transaction() as tx:
            tx.set_properties(**props)

    return run


def unset_props(*keys: str) -> Callable[[Table], None]:
    def run(table: Table) -> None:
        with table.transaction() as tx:
            tx.remove_properties(*keys)

    return run


def sort_order(fn: Callable, distribution: str) -> Callable[[Table], None]:
    """One transaction: the new sort order and the distribution mode Spark's WRITE sets."""

    def run(table: Table) -> None:
        with table.transaction() as tx:
            with tx.update_sort_order() as update:
                fn(update)
            tx.set_properties(**{"write.distribution-mode": distribution})

    return run


def cases() -> list[Case]:
    add_day = ("ALTER TABLE db.t ADD PARTITION FIELD days(ts)", spec_update(lambda u: u.add_field("ts", DayTransform())))
    drop_month = ("ALTER TABLE db.t DROP PARTITION FIELD ts_month", spec_update(lambda u: u.remove_field("ts_month")))
    every_transform = [
        ("ALTER TABLE db.t ADD PARTITION FIELD bucket(16, id)", spec_update(lambda u: u.add_field("id", BucketTransform(16)))),
        ("ALTER TABLE db.t ADD PARTITION FIELD truncate(4, name)", spec_update(lambda u: u.add_field("name", TruncateTransform(4)))),
        ("ALTER TABLE db.t ADD PARTITION FIELD region AS area", spec_update(lambda u: u.add_field("region", IdentityTransform(), "area"))),
    ]
    return [
        Case("v2_add_every_transform", 2, PartitionSpec(), every_transform
             + [("ALTER TABLE db.t ADD PARTITION FIELD years(ts)", spec_update(lambda u: u.add_field("ts", YearTransform())))]),
        Case("v2_drop_then_add", 2, month_spec(), [drop_month, add_day]),
        Case("v1_drop_becomes_void", 1, month_spec(), [drop_month, add_day]),
        Case("v2_replace_granularity", 2, month_spec(), [
            ("ALTER TABLE db.t REPLACE PARTITION FIELD ts_month WITH days(ts) AS day",
             spec_update(lambda u: u.remove_field("ts_month").add_field("ts", DayTransform(), "day"))),
            ("ALTER TABLE db.t ADD PARTITION FIELD hours(ts)", spec_update(lambda u: u.add_field("ts", HourTransform()))),
        ]),
        Case("v2_readd_recycles_id", 2, month_spec(), [
            drop_month,
            ("ALTER TABLE db.t ADD PARTITION FIELD bucket(8, id)", spec_update(lambda u: u.add_field("id", BucketTransform(8)))),
            ("ALTER TABLE db.t ADD PARTITION FIELD months(ts)", spec_update(lambda u: u.add_field("ts", MonthTransform()))),
        ]),
        Case("v2_back_to_an_earlier_spec", 2, month_spec(), [drop_month,
            ("ALTER TABLE db.t ADD PARTITION FIELD months(ts)", spec_update(lambda u: u.add_field("ts", MonthTransform())))]),
        Case("v2_sort_orders", 2, month_spec(), [
            ("ALTER TABLE db.t WRITE ORDERED BY id, days(ts) DESC NULLS LAST",
             sort_order(lambda u: u.asc("id", IdentityTransform(), NullOrder.NULLS_FIRST)
                        .desc("ts", DayTransform(), NullOrder.NULLS_LAST), "range")),
            ("ALTER TABLE db.t WRITE LOCALLY ORDERED BY bucket(4, region) ASC NULLS LAST",
             sort_order(lambda u: u.asc("region", BucketTransform(4), NullOrder.NULLS_LAST), "none")),
            ("ALTER TABLE db.t WRITE DISTRIBUTED BY PARTITION LOCALLY ORDERED BY id, days(ts) DESC NULLS LAST",
             sort_order(lambda u: u.asc("id", IdentityTransform(), NullOrder.NULLS_FIRST)
                        .desc("ts", DayTransform(), NullOrder.NULLS_LAST), "hash")),
        ]),
        Case("v2_properties", 2, month_spec(), [
            ("ALTER TABLE db.t SET TBLPROPERTIES ('write.target-file-size-bytes' = '134217728', 'owner' = 'lake-team')",
             set_props(**{"write.target-file-size-bytes": "134217728", "owner": "lake-team"})),
            ("ALTER TABLE db.t UNSET TBLPROPERTIES ('owner')", unset_props("owner")),
        ]),
    ]


EXAMPLE_TABLE = Path(__file__).resolve().parents[2] / "examples/lake/warehouse/lake_prod/fact_orders"


def example_case() -> Case:
    """The example lake's partition-and-properties migration, on the example's `fact_orders`."""
    return Case("example_lake_fact_orders", 2, PartitionSpec(), [
        ("ALTER TABLE lake_prod.fact_orders ADD PARTITION FIELD days(order_ts) AS order_day",
         spec_update(lambda u: u.add_field("order_ts", DayTransform(), "order_day"))),
        ("ALTER TABLE lake_prod.fact_orders SET TBLPROPERTIES ('write.target-file-size-bytes' = '268435456', 'commit.retry.num-retries' = '10')",
         set_props(**{"write.target-file-size-bytes": "268435456", "commit.retry.num-retries": "10"})),
    ])


def example_table(catalog: SqlCatalog, name: str, work: Path) -> Table:
    """The example's `fact_orders` as committed, registered under `name`: its current metadata
    file copied aside, so the commits write next to the copy's location, not into the example."""
    hint = (EXAMPLE_TABLE / "metadata/version-hint.text").read_text().strip()
    copy = work / f"v{hint}.metadata.json"
    shutil.copyfile(EXAMPLE_TABLE / f"metadata/v{hint}.metadata.json", copy)
    return catalog.register_table(name, f"file://{copy}")


def run_case(catalog: SqlCatalog, case: Case, out: Path, work: Path) -> None:
    name = f"{TABLE}_{case.name}"
    if case.name == example_case().name:
        table = example_table(catalog, name, work)
    else:
        table = catalog.create_table(
            name,
            schema(),
            partition_spec=case.spec,
            properties={**PROPERTIES, "format-version": str(case.format_version)},
        )
    base = table.metadata_location
    for _, commit in case.steps:
        commit(table)
        table = catalog.load_table(name)
    target = out / case.name
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(base.removeprefix("file://"), target / "base.metadata.json")
    shutil.copyfile(table.metadata_location.removeprefix("file://"), target / "expected.metadata.json")
    sql = "".join(f"{statement};\n" for statement, _ in case.steps)
    (target / "change.sql").write_text(sql)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    shutil.rmtree(WAREHOUSE, ignore_errors=True)
    WAREHOUSE.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as work:
        catalog = SqlCatalog(
            "fixtures",
            uri=f"sqlite:///{work}/catalog.db",
            warehouse=f"file://{WAREHOUSE}",
        )
        catalog.create_namespace("db")
        if args.out.exists():
            shutil.rmtree(args.out)
        every = cases() + [example_case()]
        for case in every:
            run_case(catalog, case, args.out, Path(work))
    print(f"wrote {len(every)} cases to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
