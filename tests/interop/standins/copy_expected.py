#!/usr/bin/env python3
"""Stand-in for `fieldgate apply` that writes the case's expected.metadata.json.

Used only to test check_live.py without fieldgate: every case must pass with it. The case directory
is CHANGE.SQL's directory. It writes pyiceberg's result where fieldgate would write its own, as
fieldgate writes it:

- `apply CHANGE.SQL [--metadata BASE] -o OUT`: the file at OUT (gzip when its name ends in
  `.gz.metadata.json`); its metadata-log is BASE's, plus BASE itself where its place in the table
  is known (BASE is a table directory's current version, or lies in the table's own `metadata/`
  directory); from a v3 BASE, format-version 3 and next-row-id 0;
- `apply CHANGE.SQL --metadata TABLE_DIR --write`: the directory's next version (gzip when the
  current one sets `write.metadata.compression-codec` to gzip), logging the current one, and the
  version hint moved to it;
- `apply CHANGE.SQL --write` (a new table): where fieldgate.yaml in the current directory keeps it,
  `metadata/v1.metadata.json` with the directory's `file://` URI as its location, and a hint of 1.
"""
import gzip
import json
import sys
from pathlib import Path

args = sys.argv[1:]
expected = json.loads((Path(args[1]).parent / "expected.metadata.json").read_text())


def logged(previous: Path, previous_doc: dict) -> dict:
    return {"metadata-file": f"{previous_doc['location'].rstrip('/')}/metadata/{previous.name}",
            "timestamp-ms": previous_doc["last-updated-ms"]}


def write(path: Path, document: dict) -> None:
    text = json.dumps(document).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text) if path.name.endswith(".gz.metadata.json") else text)


if "--metadata" not in args and "-o" in args:
    write(Path(args[args.index("-o") + 1]), expected)
    sys.exit(0)
if "--metadata" not in args:
    table = Path(next(line.split(":", 1)[1].strip() for line in Path("fieldgate.yaml").read_text().splitlines()
                      if line.strip().startswith("metadata:"))).resolve()
    write(table / "metadata" / "v1.metadata.json", {**expected, "location": f"file://{table}"})
    (table / "metadata" / "version-hint.text").write_text("1")
    sys.exit(0)
base = Path(args[args.index("--metadata") + 1])
hint = base / "metadata" / "version-hint.text"
version = int(hint.read_text()) if base.is_dir() else None
previous = base / "metadata" / f"v{version}.metadata.json" if base.is_dir() else base
previous_doc = json.loads(previous.read_text())
document = dict(expected)
document["metadata-log"] = list(previous_doc.get("metadata-log", []))
location = previous_doc["location"].removeprefix("file://")
if base.is_dir() or previous.resolve() == (Path(location) / "metadata" / previous.name).resolve():
    document["metadata-log"].append(logged(previous, previous_doc))
if previous_doc["format-version"] == 3:
    document.update({"format-version": 3, "next-row-id": previous_doc["next-row-id"]})
if "-o" in args:
    write(Path(args[args.index("-o") + 1]), document)
    sys.exit(0)
codec = previous_doc.get("properties", {}).get("write.metadata.compression-codec", "none")
suffix = ".gz.metadata.json" if codec == "gzip" else ".metadata.json"
write(base / "metadata" / f"v{version + 1}{suffix}", document)
hint.write_text(str(version + 1))
