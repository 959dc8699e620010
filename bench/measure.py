"""Running a command under GNU time: wall seconds (median of repeats), peak RSS (max), and the
exit code, which must be one the caller expects: a benchmark of a failing run measures nothing."""

from __future__ import annotations

import json
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

GNU_TIME = "/usr/bin/time"


@dataclass
class Measured:
    seconds: float
    # User + system CPU time (median): what the machine's other load distorts least.
    cpu_seconds: float
    peak_rss_mb: float
    stdout: str
    # For jobs that time themselves (pyiceberg_work.py): the median of their own timings.
    inner_seconds: float | None = None


def run(command: list[str], repeat: int, ok_codes=(0,), cwd: Path | None = None, setup=None) -> Measured:
    """Runs `command` `repeat` times (`setup()` before each run, not timed)."""
    walls, cpu, rss, inner = [], [], [], []
    stdout = ""
    for _ in range(repeat):
        if setup is not None:
            setup()
        with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
            started = time.perf_counter()
            done = subprocess.run(
                [GNU_TIME, "-v", "-o", report.name, *command], cwd=cwd, capture_output=True, text=True
            )
            walls.append(time.perf_counter() - started)
            if done.returncode not in ok_codes:
                raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-3000:]}")
            text = Path(report.name).read_text()
            rss.append(float(field(text, "Maximum resident set size")) / 1024)
            cpu.append(float(field(text, "User time (seconds)")) + float(field(text, "System time (seconds)")))
        stdout = done.stdout
        if command[0].endswith("python") and stdout.strip().startswith("{"):
            inner.append(json.loads(stdout)["seconds"])
    return Measured(
        seconds=statistics.median(walls),
        cpu_seconds=statistics.median(cpu),
        peak_rss_mb=max(rss),
        stdout=stdout,
        inner_seconds=statistics.median(inner) if inner else None,
    )


def field(report: str, name: str) -> str:
    """A value of GNU time's verbose report."""
    for line in report.splitlines():
        if line.strip().startswith(name):
            return line.rsplit(":", 1)[1].strip()
    raise SystemExit(f"no {name!r} in GNU time's report:\n{report}")
