#!/usr/bin/env python3
"""Stand-in for `fieldgate apply` that copies the case's expected.metadata.json to -o OUT.

Used only to test check_live.py before fieldgate exists: every case must pass with it.
Accepts `apply CHANGE.SQL [--metadata BASE] -o OUT`; the case directory is CHANGE.SQL's directory.
"""
import shutil
import sys
from pathlib import Path

args = sys.argv[1:]
sql = Path(args[1])
out = args[args.index("-o") + 1]
shutil.copyfile(sql.parent / "expected.metadata.json", out)
