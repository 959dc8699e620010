"""The four speed targets, each fieldgate beside its yardstick in the same run, with fieldgate's
instruction count (callgrind) beside its wall time:

- `apply`: one ADD COLUMN on a 200-column, 35-schema table, the whole fieldgate process against
  pyiceberg's in-process load + `update_schema()` + commit (target: 200x);
- `parse`: a one-statement `lint` of a metadata file with 100 schemas of up to 1,000 columns and
  10,000 Spark snapshots (16 MB) against `orjson.loads` of the same bytes (target: as fast, and a
  peak RSS of at most twice the file);
- `migration`: `lint` of 10,000 comment changes on a 50-column table (target: under 1 s, linear:
  the instructions per statement of the long migration at most 1.25x those of one a tenth as long);
- `check`: a pull request touching 1 of 10,000 tables against `git status --porcelain` in the same
  repository (target: 0.3x).

`cases()` builds the inputs and the commands; `run.py` times them and `guard.py` counts them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import callgrind
import history
import lake
import measure

HERE = Path(__file__).resolve().parent

SCALES = {
    "full": {"apply": (200, 35), "parse": (1000, 100, 10_000), "migration": (50, 10_000), "check": 10_000},
    "quick": {"apply": (200, 35), "parse": (200, 20, 500), "migration": (50, 300), "check": 300},
}


@dataclass
class Case:
    """One target: fieldgate's command (`ours`), the yardstick's (`theirs`), and what the report
    needs to state the target."""

    name: str
    ours: list[str]
    theirs: list[str]
    ok_codes: tuple = (0,)
    cwd: Path | None = None
    setup: object = None
    # Bytes (metadata) or statements the work is about, for per-unit figures.
    units: int = 0
    unit: str = ""
    # A second, shorter run of the same command whose per-unit instructions show linearity.
    short: list[str] | None = None
    short_units: int = 0
    facts: dict = field(default_factory=dict)


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@fieldgate.invalid", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def apply_case(binary: str, work: Path, python: str, columns: int, schemas: int) -> Case:
    name = f"apply{columns}"
    metadata_dict = lake.scale_history(lake.template_table(work / "pyiceberg", name, columns), schemas)
    metadata = lake.write_hadoop_table(work / "tables" / name, metadata_dict)
    ops = [("add", "added_by_bench", "one new column")]
    case = work / "targets" / "apply"
    case.mkdir(parents=True, exist_ok=True)
    sql = case / "migration.sql"
    sql.write_text(lake.migration_sql(f"{lake.NAMESPACE}.{name}", ops))
    (case / "ops.json").write_text(json.dumps(ops))
    fresh = case / "pyiceberg-base.metadata.json"

    def copy_base() -> None:
        shutil.copyfile(metadata, fresh)

    table = f"{lake.NAMESPACE}.{name}"
    return Case(
        name="apply",
        ours=[binary, "apply", str(sql), "--metadata", str(metadata), "--table", table, "-o", str(case / "out.metadata.json"), "--force"],
        theirs=[python, str(HERE / "pyiceberg_work.py"), "apply", str(work / "pyiceberg"), str(fresh), str(case / "ops.json")],
        setup=copy_base,
        units=metadata.stat().st_size,
        unit="metadata byte",
        facts={"columns": columns, "schemas": schemas},
    )


def parse_case(binary: str, work: Path, python: str, columns: int, schemas: int, snapshots: int) -> Case:
    name = f"history{columns}"
    metadata_dict = lake.template_table(work / "pyiceberg", name, columns)
    metadata_dict = history.many_snapshots(history.grown_schemas(metadata_dict, schemas), snapshots)
    metadata = lake.write_hadoop_table(work / "tables" / name, metadata_dict)
    table = f"{lake.NAMESPACE}.{name}"
    sql = work / "targets" / "parse.sql"
    sql.parent.mkdir(parents=True, exist_ok=True)
    sql.write_text(lake.migration_sql(table, lake.migration_ops(1, columns, "doc")))
    return Case(
        name="parse",
        ours=[binary, "lint", str(sql), "--metadata", str(metadata), "--table", table],
        theirs=[python, str(HERE / "json_work.py"), str(metadata)],
        ok_codes=(0, 1),
        units=metadata.stat().st_size,
        unit="metadata byte",
        facts={"columns": columns, "schemas": schemas, "snapshots": snapshots},
    )


def migration_case(binary: str, work: Path, columns: int, statements: int) -> Case:
    name = f"comments{columns}"
    metadata = lake.write_hadoop_table(work / "tables" / name, lake.template_table(work / "pyiceberg", name, columns))
    table = f"{lake.NAMESPACE}.{name}"
    case = work / "targets" / "migration"
    case.mkdir(parents=True, exist_ok=True)

    def lint(count: int) -> list[str]:
        sql = case / f"{count}.sql"
        sql.write_text(lake.migration_sql(table, lake.migration_ops(count, columns, "doc")))
        return [binary, "lint", str(sql), "--metadata", str(metadata), "--table", table, "--format", "json"]

    short = max(1, statements // 10)
    return Case(
        name="migration",
        ours=lint(statements),
        theirs=[],
        ok_codes=(0, 1),
        units=statements,
        unit="statement",
        short=lint(short),
        short_units=short,
        facts={"columns": columns, "statements": statements},
    )


def check_case(binary: str, work: Path, count: int) -> Case:
    """A repository of `count` pyiceberg tables, each its own metadata file, and a pull request
    that adds a migration to one of them with the metadata `apply --write` wrote."""
    repo = work / "targets" / "check-repo"
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    # Its own name in the run's pyiceberg catalog: the full run's `check` rows make "check_template".
    template = lake.template_table(work / "pyiceberg", "targets_check_template", 50)
    text = json.dumps(template, separators=(",", ":"))
    config = ["proposals:", "  - migrations/**/*.sql", "tables:"]
    for i in range(count):
        name = f"t{i:05d}"
        metadata = json.loads(text.replace(template["table-uuid"], f"00000000-0000-4000-8000-{i:012d}"))
        metadata["location"] = f"file:///lake/{lake.NAMESPACE}/{name}"
        lake.write_hadoop_table(repo / "warehouse" / lake.NAMESPACE / name, metadata)
        config.append(f"  {lake.NAMESPACE}.{name}:\n    metadata: warehouse/{lake.NAMESPACE}/{name}")
    (repo / "fieldgate.yaml").write_text("\n".join(config) + "\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "lake")
    name = f"t{count // 2:05d}"
    table = f"{lake.NAMESPACE}.{name}"
    git(repo, "checkout", "-q", "-b", "pr")
    migration = repo / "migrations" / f"0001_{name}.sql"
    migration.parent.mkdir()
    migration.write_text(lake.migration_sql(table, lake.migration_ops(3, 50, "mixed")))
    subprocess.run(
        [binary, "apply", str(migration), "--metadata", f"warehouse/{lake.NAMESPACE}/{name}", "--table", table, "--write"],
        cwd=repo,
        check=True,
        capture_output=True,
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"add columns to {name}")
    # git's index is written racily clean by the commit; a first status refreshes it, as a
    # runner's checkout would have, so both sides start from the same settled index.
    git(repo, "status", "--porcelain")
    return Case(
        name="check",
        ours=[binary, "check", "--base", "main"],
        theirs=["git", "status", "--porcelain"],
        cwd=repo,
        units=count,
        unit="table",
        facts={"tables": count},
    )


def cases(binary: str, work: Path, python: str, scale: str) -> list[Case]:
    sizes = SCALES[scale]
    print("targets: generating", file=sys.stderr)
    return [
        apply_case(binary, work, python, *sizes["apply"]),
        parse_case(binary, work, python, *sizes["parse"]),
        migration_case(binary, work, *sizes["migration"]),
        check_case(binary, work, sizes["check"]),
    ]


def count(case: Case) -> dict:
    """The case's instruction counts (the long and, for linearity, the short run)."""
    counted = {"instructions": callgrind.instructions(case.ours, case.ok_codes, case.cwd)}
    if case.short:
        counted["short_instructions"] = callgrind.instructions(case.short, case.ok_codes, case.cwd)
    return counted


def measure_case(case: Case, repeat: int, instructions: bool = True) -> dict:
    """Wall and CPU time and peak RSS of both sides, and fieldgate's instructions."""
    ours = measure.run(case.ours, repeat, ok_codes=case.ok_codes, cwd=case.cwd)
    row = {
        "name": case.name,
        **case.facts,
        "units": case.units,
        "unit": case.unit,
        "seconds": ours.seconds,
        "cpu_s": ours.cpu_seconds,
        "rss_mb": ours.peak_rss_mb,
    }
    if case.short:
        short = measure.run(case.short, repeat, ok_codes=case.ok_codes, cwd=case.cwd)
        row.update(short_units=case.short_units, short_seconds=short.seconds)
    if case.theirs:
        # pyiceberg's apply takes seconds, far beyond the noise: one run of it.
        theirs = measure.run(case.theirs, 1 if case.name == "apply" else repeat, cwd=case.cwd or HERE, setup=case.setup)
        row.update(
            theirs_s=theirs.inner_seconds if theirs.inner_seconds is not None else theirs.seconds,
            theirs_rss_mb=theirs.peak_rss_mb,
        )
    if instructions and callgrind.available():
        row.update(count(case))
    return row
