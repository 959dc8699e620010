"""The pyiceberg (and pyarrow) side of the benchmark: one job per process, so its peak RSS is its
own. Prints {"seconds": ...} timed inside the process, from after the imports to the end of the
work, which leaves out the interpreter's start (in pyiceberg's favour).

    pyiceberg_work.py parse METADATA
    pyiceberg_work.py apply CATALOG_ROOT METADATA OPS_JSON
    pyiceberg_work.py scan METADATA
    pyiceberg_work.py arrow COLUMNS_JSON PARQUET...
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from pathlib import Path

import pyarrow.parquet as pq
from pyiceberg.table import StaticTable
from pyiceberg.types import StringType

import lake


def parse(metadata: str) -> dict:
    started = time.perf_counter()
    table = StaticTable.from_metadata(metadata)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "schemas": len(table.metadata.schemas)}


def apply(root: str, metadata: str, ops_file: str) -> dict:
    """Registers the table (not timed), then loads it and commits one schema update per op."""
    ops = json.loads(Path(ops_file).read_text())
    catalog = lake.catalog(Path(root))
    identifier = f"{lake.NAMESPACE}.t_{uuid.uuid4().hex}"
    catalog.register_table(identifier, metadata)
    started = time.perf_counter()
    table = catalog.load_table(identifier)
    for op, column, argument in ops:
        with table.update_schema() as update:
            if op == "add":
                update.add_column(column, StringType(), doc=argument)
            else:
                update.update_column(column, doc=argument)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "schemas": len(table.metadata.schemas)}


def scan(metadata: str) -> dict:
    started = time.perf_counter()
    rows = StaticTable.from_metadata(metadata).scan().to_arrow().num_rows
    return {"seconds": time.perf_counter() - started, "rows": rows}


def arrow(columns_json: str, files: list[str]) -> dict:
    columns = json.loads(columns_json)
    started = time.perf_counter()
    rows = sum(pq.read_table(path, columns=columns).num_rows for path in files)
    return {"seconds": time.perf_counter() - started, "rows": rows}


def main() -> None:
    job, *args = sys.argv[1:]
    jobs = {"parse": parse, "apply": apply, "scan": scan, "arrow": lambda c, *f: arrow(c, list(f))}
    print(json.dumps(jobs[job](*args)))


if __name__ == "__main__":
    main()
