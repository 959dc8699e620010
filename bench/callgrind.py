"""Instruction counts of a command under valgrind's callgrind: repeatable on a loaded machine,
where wall time is not. The count is of the whole process (every thread, start to exit)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path


def available() -> bool:
    return shutil.which("valgrind") is not None


def instructions(command: list[str], ok_codes=(0,), cwd: Path | None = None) -> int:
    """Instructions executed by `command` (callgrind's `totals:` line); its exit code must be one
    of `ok_codes`, so a failing run is never taken for a fast one."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "callgrind.out"
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
            cwd=cwd,
            capture_output=True,
            text=True,
        )
        if done.returncode not in ok_codes:
            raise SystemExit(f"callgrind of {' '.join(command)} exited {done.returncode}:\n{done.stderr[-3000:]}")
        for line in out.read_text().splitlines():
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    raise SystemExit(f"callgrind wrote no totals for {' '.join(command)}")
