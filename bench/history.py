"""A long table history on a pyiceberg-written table: many schemas and many snapshots.

The 16 MB table of the parse target is a 1,000-column table created by pyiceberg, whose schema
list is then rewritten as a history that grew to its 1,000 columns (schema k holds the first
columns of the current one, the last schema is pyiceberg's own), and whose snapshot list is
filled with appends as Spark writes them (Spark's summary keys, one manifest list each, one
snapshot-log entry each, sequence numbers and timestamps increasing), so every list the reader
walks is long and every value is what an engine would have written.
"""

from __future__ import annotations

import random

SPARK_APP = "local-1764547200000"


def grown_schemas(metadata: dict, schemas: int) -> dict:
    """Replaces the schema list by `schemas` schemas that grow to the current one's columns."""
    current = next(s for s in metadata["schemas"] if s["schema-id"] == metadata["current-schema-id"])
    fields = current["fields"]
    history = []
    for k in range(schemas - 1):
        width = max(1, len(fields) * (k + 1) // schemas)
        history.append({**current, "schema-id": k, "fields": fields[:width]})
    history.append({**current, "schema-id": schemas - 1})
    metadata["schemas"] = history
    metadata["current-schema-id"] = schemas - 1
    return metadata


def spark_summary(rng: random.Random, i: int, totals: dict) -> dict:
    files, records, size = rng.randint(1, 40), rng.randint(1_000, 5_000_000), rng.randint(10_000, 900_000_000)
    totals["files"] += files
    totals["records"] += records
    totals["size"] += size
    return {
        "operation": "append",
        "spark.app.id": f"{SPARK_APP}-{i % 97:04d}",
        "added-data-files": str(files),
        "added-records": str(records),
        "added-files-size": str(size),
        "changed-partition-count": str(rng.randint(1, 24)),
        "total-records": str(totals["records"]),
        "total-files-size": str(totals["size"]),
        "total-data-files": str(totals["files"]),
        "total-delete-files": "0",
        "total-position-deletes": "0",
        "total-equality-deletes": "0",
        "engine-version": "3.5.4",
        "app-id": f"{SPARK_APP}-{i % 97:04d}",
        "engine-name": "spark",
        "iceberg-version": "Apache Iceberg 1.9.2 (commit 071d5606bc6199a0be9b3f274ec7fbf111d88821)",
    }


def many_snapshots(metadata: dict, count: int, seed: int = 16) -> dict:
    """Replaces the snapshots by `count` Spark appends on the current schema, one after another."""
    rng = random.Random(seed)
    schema_id = metadata["current-schema-id"]
    location = metadata["location"]
    started = metadata["last-updated-ms"] - count * 60_000
    totals = {"files": 0, "records": 0, "size": 0}
    snapshots, log, parent = [], [], None
    for i in range(count):
        snapshot_id = rng.randrange(1, 1 << 63)
        timestamp = started + i * 60_000
        snapshot = {"snapshot-id": snapshot_id}
        if parent is not None:
            snapshot["parent-snapshot-id"] = parent
        snapshot.update(
            {
                "sequence-number": i + 1,
                "timestamp-ms": timestamp,
                "manifest-list": f"{location}/metadata/snap-{snapshot_id}-1-{rng.getrandbits(128):032x}.avro",
                "summary": spark_summary(rng, i, totals),
                "schema-id": schema_id,
            }
        )
        snapshots.append(snapshot)
        log.append({"snapshot-id": snapshot_id, "timestamp-ms": timestamp})
        parent = snapshot_id
    metadata["snapshots"] = snapshots
    metadata["snapshot-log"] = log
    metadata["current-snapshot-id"] = parent
    metadata["refs"] = {"main": {"snapshot-id": parent, "type": "branch"}}
    metadata["last-sequence-number"] = count
    metadata["last-updated-ms"] = started + count * 60_000
    return metadata
