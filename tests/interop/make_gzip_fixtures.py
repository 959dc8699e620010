#!/usr/bin/env python3
"""Generate tests/fixtures/gzip: Hadoop-layout tables whose metadata is gzip-compressed, written
by pyiceberg's own metadata writer (`ToOutputFile.table_metadata`, which compresses a file whose
name ends in `.gz.metadata.json`, as Iceberg Java does).

The metadata is the example lake's `fact_orders` history (examples/lake, pyiceberg-written),
read with pyiceberg and written again:

- `orders_gz/metadata/`: `v1.metadata.json` plain, `v2.gz.metadata.json` gzip with
  `write.metadata.compression-codec=gzip` (a table Java commits gzip-compressed), and a
  version hint `1` that the roll-forward must pass.
- `orders_old_gz/metadata/`: `v1.metadata.json.gz`, the older name Java still reads, without the
  property (its next commit is plain), and no version hint (the directory is listed).

    .venv/bin/python tests/interop/make_gzip_fixtures.py --out tests/fixtures/gzip
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.serializers import FromInputFile, ToOutputFile

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "examples/lake/warehouse/lake_prod/fact_orders/metadata"
CODEC = "write.metadata.compression-codec"


def read(io: PyArrowFileIO, name: str):
    return FromInputFile.table_metadata(io.new_input(str(SOURCE / name)))


def write(io: PyArrowFileIO, metadata, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    ToOutputFile.table_metadata(metadata, io.new_output(str(path)), overwrite=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    out = parser.parse_args().out
    shutil.rmtree(out, ignore_errors=True)
    io = PyArrowFileIO()

    v1, v2 = read(io, "v1.metadata.json"), read(io, "v2.metadata.json")
    gz = out / "orders_gz/metadata"
    write(io, v1, gz / "v1.metadata.json")
    compressed = v2.model_copy(update={"properties": {**v2.properties, CODEC: "gzip"}})
    write(io, compressed, gz / "v2.gz.metadata.json")
    (gz / "version-hint.text").write_text("1")

    old = out / "orders_old_gz/metadata"
    write(io, v2, old / "v1.gz.metadata.json")
    (old / "v1.gz.metadata.json").rename(old / "v1.metadata.json.gz")

    # Each file reads back through pyiceberg's own reader (which knows `.gz.metadata.json` only).
    assert FromInputFile.table_metadata(io.new_input(str(gz / "v2.gz.metadata.json"))).properties[CODEC] == "gzip"


if __name__ == "__main__":
    main()
