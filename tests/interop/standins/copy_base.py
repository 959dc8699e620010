#!/usr/bin/env python3
"""Stand-in for `fieldgate apply` that copies --metadata BASE unchanged to -o OUT (a no-op migration).

Used only to test check_live.py before fieldgate exists: every case must fail with it (create_table
has no base, so this stand-in exits 2 there, as fieldgate does when it cannot run).
"""
import shutil
import sys

args = sys.argv[1:]
if "--metadata" not in args:
    print("copy_base stand-in: no --metadata given", file=sys.stderr)
    sys.exit(2)
shutil.copyfile(args[args.index("--metadata") + 1], args[args.index("-o") + 1])
