"""Synthetic lakes for the benchmark: tables written by pyiceberg, then scaled; data by pyarrow.

A template table is created and evolved by pyiceberg's own writer in a sqlite SqlCatalog, so its
metadata is real pyiceberg output. Its schema history is then scaled to hundreds of schemas by
appending schemas of the same shape (each a doc revision of one column plus a scratch column that
the next schema drops, so ids are retired as real history retires them). Migrations are Spark
DDL that pyiceberg can run statement by statement too (`migration_ops` gives both forms).
"""

from __future__ import annotations

import json
import random
from array import array
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import (
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestamptzType,
)

NAMESPACE = "bench"
COLUMN_TYPES = [LongType(), StringType(), IntegerType(), DoubleType(), DateType(), TimestamptzType(), DecimalType(12, 2)]


def catalog(root: Path) -> SqlCatalog:
    root.mkdir(parents=True, exist_ok=True)
    created = SqlCatalog("bench", uri=f"sqlite:///{root}/catalog.db", warehouse=f"file://{root}/warehouse")
    if (NAMESPACE,) not in created.list_namespaces():
        created.create_namespace(NAMESPACE)
    return created


def column_name(i: int) -> str:
    return f"c{i:04d}"


def template_table(root: Path, name: str, columns: int) -> dict:
    """A table of `columns` columns with a little real history, written by pyiceberg; its metadata."""
    fields = [
        NestedField(i + 1, column_name(i), COLUMN_TYPES[i % len(COLUMN_TYPES)], required=(i == 0), doc=f"column {i}")
        for i in range(columns)
    ]
    table = catalog(root).create_table(
        f"{NAMESPACE}.{name}", Schema(*fields, identifier_field_ids=[1]), properties={"format-version": "2"}
    )
    with table.update_schema() as update:
        update.add_column("scratch", StringType())
    with table.update_schema() as update:
        update.delete_column("scratch")
    with table.update_schema() as update:
        update.update_column(column_name(1), doc="column 1, revised")
    return json.loads(Path(table.metadata_location.removeprefix("file://")).read_text())


def scale_history(metadata: dict, schemas: int) -> dict:
    """Appends schemas until the table has `schemas`; the current schema stays current."""
    current = next(s for s in metadata["schemas"] if s["schema-id"] == metadata["current-schema-id"])
    next_schema_id = max(s["schema-id"] for s in metadata["schemas"]) + 1
    last_column_id = metadata["last-column-id"]
    base_fields = current["fields"]
    for revision in range(schemas - len(metadata["schemas"])):
        fields = [dict(f) for f in base_fields]
        revised = fields[revision % len(fields)]
        revised["doc"] = f"{revised.get('doc', '')} (revision {revision})"
        last_column_id += 1
        fields.append({"id": last_column_id, "name": f"scratch_{revision}", "required": False, "type": "string"})
        metadata["schemas"].append(
            {"type": "struct", "schema-id": next_schema_id, "identifier-field-ids": current.get("identifier-field-ids", []), "fields": fields}
        )
        next_schema_id += 1
    metadata["last-column-id"] = last_column_id
    return metadata


def write_hadoop_table(directory: Path, metadata: dict) -> Path:
    """The table in the Hadoop layout fieldgate reads: metadata/v1.metadata.json + version-hint."""
    metadata_dir = directory / "metadata"
    metadata_dir.mkdir(parents=True, exist_ok=True)
    path = metadata_dir / "v1.metadata.json"
    # pyiceberg writes compact JSON; keep its style.
    path.write_text(json.dumps(metadata, separators=(",", ":")))
    (metadata_dir / "version-hint.text").write_text("1")
    return path


def migration_ops(statements: int, columns: int, kind: str) -> list[tuple[str, str, str]]:
    """(op, column, argument) triples: `add` a string column or `doc` (set a column's comment).

    `mixed`: every tenth statement adds a column, the others revise a comment; `doc`: comments
    only (the schema keeps its size, so the output grows linearly); `add`: adds only.
    """
    ops = []
    for i in range(statements):
        adds = kind == "add" or (kind == "mixed" and i % 10 == 0)
        if adds:
            ops.append(("add", f"m{i:06d}", f"added by statement {i}"))
        else:
            ops.append(("doc", column_name(i % columns), f"revision {i}"))
    return ops


def migration_sql(table: str, ops: list[tuple[str, str, str]]) -> str:
    lines = []
    for op, column, argument in ops:
        if op == "add":
            lines.append(f"ALTER TABLE {table} ADD COLUMN {column} string COMMENT '{argument}';")
        else:
            lines.append(f"ALTER TABLE {table} ALTER COLUMN {column} COMMENT '{argument}';")
    return "\n".join(lines) + "\n"


DATA_COLUMNS = 12
# Columns the benchmark drops from the data table after writing: verify must never read them.
DROPPED = ["payload_a", "payload_b", "payload_c", "payload_d"]


def data_schema() -> pa.Schema:
    return pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("user_id", pa.int64()),
            pa.field("amount", pa.float64()),
            pa.field("qty", pa.int32()),
            pa.field("ts", pa.timestamp("us", tz="UTC")),
            pa.field("country", pa.string()),
            pa.field("label", pa.string()),
            pa.field("score", pa.float64()),
        ]
        + [pa.field(name, pa.string()) for name in DROPPED]
    )


LETTERS = bytes(ord("a") + b % 26 for b in range(256))


def data_batch(rows: int, start: int, rng: random.Random) -> pa.RecordBatch:
    """`rows` rows of random values; text is random letters, so it hardly compresses."""

    def text(length: int) -> pa.Array:
        letters = rng.randbytes(rows * length).translate(LETTERS)
        offsets = array("i", range(0, (rows + 1) * length, length))
        return pa.StringArray.from_buffers(rows, pa.py_buffer(offsets), pa.py_buffer(letters))

    def doubles(scale: float) -> pa.Array:
        return pc.multiply(pc.random(rows, initializer=rng.randrange(1 << 62)), scale)

    ids = pa.array(range(start, start + rows), pa.int64())
    return pa.RecordBatch.from_arrays(
        [
            ids,
            pc.cast(pc.floor(pc.multiply(pc.random(rows, initializer=rng.randrange(1 << 62)), 1e6)), pa.int64()),
            doubles(1000),
            pc.cast(pc.floor(pc.multiply(pc.random(rows, initializer=rng.randrange(1 << 62)), 100)), pa.int32()),
            pc.cast(pc.add(pc.multiply(ids, 1_000_000), 1_700_000_000_000_000), pa.timestamp("us", tz="UTC")),
            pc.take(pa.array(["DE", "FR", "US", "CN", "BR"]), pc.cast(pc.floor(pc.multiply(pc.random(rows, initializer=rng.randrange(1 << 62)), 5)), pa.int32())),
            text(12),
            doubles(1),
        ]
        + [text(24) for _ in DROPPED],
        schema=data_schema(),
    )


def data_table(root: Path, name: str, megabytes: int) -> tuple[Path, list[Path]]:
    """A pyiceberg table whose one data file (written through pyiceberg's append, by pyarrow) is
    about `megabytes` MB; then `DROPPED` are dropped and `label` renamed, so a reader under the
    current schema projects 8 of the file's 12 columns. Returns (metadata file, data files)."""
    rng = random.Random(megabytes)
    # About 110 bytes a row once written (random text barely compresses); the size is measured
    # afterwards, not trusted.
    rows = max(1, megabytes * 1_000_000 // 110)
    batches = [data_batch(min(50_000, rows - start), start, rng) for start in range(0, rows, 50_000)]
    arrow_table = pa.Table.from_batches(batches)
    table = catalog(root).create_table(
        f"{NAMESPACE}.{name}",
        Schema(*[NestedField(i + 1, f.name, t, required=not f.nullable) for i, (f, t) in enumerate(zip(data_schema(), DATA_TYPES))]),
        properties={"format-version": "2", "write.target-file-size-bytes": str(2 << 30)},
    )
    table.append(arrow_table)
    with table.update_schema() as update:
        for column in DROPPED:
            update.delete_column(column)
        update.rename_column("label", "tag")
    table = table.refresh()
    files = [Path(task.file.file_path.removeprefix("file://")) for task in table.scan().plan_files()]
    return Path(table.metadata_location.removeprefix("file://")), files


DATA_TYPES = [LongType(), LongType(), DoubleType(), IntegerType(), TimestamptzType(), StringType(), StringType(), DoubleType()] + [
    StringType() for _ in DROPPED
]
