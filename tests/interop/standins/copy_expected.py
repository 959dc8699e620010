#!/usr/bin/env python3
"""Stand-in for `fieldgate apply` that writes the case's expected.metadata.json.

Used only to test check_live.py without fieldgate: every case must pass with it.
Accepts `apply CHANGE.SQL [--metadata BASE] -o OUT` (copies the file to OUT) and
`apply CHANGE.SQL --metadata TABLE_DIR --write` (writes it as the directory's next version, with the
previous file in its metadata-log, and moves the version hint, as Java's HadoopTableOperations does).
The case directory is CHANGE.SQL's directory.
"""
import json
import shutil
import sys
from pathlib import Path

args = sys.argv[1:]
expected = Path(args[1]).parent / "expected.metadata.json"
if "-o" in args:
    shutil.copyfile(expected, args[args.index("-o") + 1])
    sys.exit(0)
metadata = Path(args[args.index("--metadata") + 1]) / "metadata"
version = int((metadata / "version-hint.text").read_text())
previous = json.loads((metadata / f"v{version}.metadata.json").read_text())
document = json.loads(expected.read_text())
document["metadata-log"] = document.get("metadata-log", []) + [{
    "metadata-file": f"{previous['location'].rstrip('/')}/metadata/v{version}.metadata.json",
    "timestamp-ms": previous["last-updated-ms"],
}]
(metadata / f"v{version + 1}.metadata.json").write_text(json.dumps(document))
(metadata / "version-hint.text").write_text(str(version + 1))
