#!/usr/bin/env python3
"""Stand-in for `fieldgate apply` that writes --metadata BASE unchanged (a no-op migration).

Used only to test check_live.py without fieldgate: every case must fail with it (create_table has
no base, so this stand-in exits 2 there, as fieldgate does when it cannot run). With `-o OUT` it
copies BASE to OUT; with `--write` on a table directory it copies the current version to the next
one and writes the version hint as `N\\n` (a line break pyiceberg and DuckDB both refuse).
"""
import shutil
import sys
from pathlib import Path

args = sys.argv[1:]
if "--metadata" not in args:
    print("copy_base stand-in: no --metadata given", file=sys.stderr)
    sys.exit(2)
base = Path(args[args.index("--metadata") + 1])
if "-o" in args:
    shutil.copyfile(base, args[args.index("-o") + 1])
    sys.exit(0)
hint = base / "metadata" / "version-hint.text"
version = int(hint.read_text())
shutil.copyfile(base / "metadata" / f"v{version}.metadata.json", base / "metadata" / f"v{version + 1}.metadata.json")
hint.write_text(f"{version + 1}\n")
