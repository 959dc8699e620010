"""The benchmark of issue #8: fieldgate and pyiceberg side by side on one synthetic lake, in one run.

Generates the lake under --work (pyiceberg writes the tables, pyarrow the data), measures every
fieldgate command with GNU time (median wall over --repeat runs, peak RSS), runs the same work
through pyiceberg / pyarrow, and prints a Markdown report (also written to WORK/results.md, with
the raw numbers in WORK/results.json). See the README's Performance section.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq

import lake
import lsp_latency
import measure
import targets
from report import markdown, targets_markdown

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable

# Scales: (columns, schemas in history) of the tables lint and apply run on; migrations as
# (columns, statements, kind, run pyiceberg too); the check repository's size; Parquet sizes.
# A migration whose schemas exceed fieldgate's size limit (evolve::MAX_WRITTEN_MEMBERS) is
# measured as the located error it gets.
SCALES = {
    "full": {
        "tables": [(50, 300), (1000, 300)],
        "migrations": [
            (50, 1, "mixed", True),
            (50, 10, "mixed", True),
            (50, 100, "mixed", True),
            (50, 1_000, "mixed", False),
            (50, 10_000, "doc", False),
            (50, 100_000, "mixed", False),
            (1000, 1, "mixed", True),
            (1000, 1_000, "doc", False),
        ],
        "check_tables": 10_000,
        "parquet_mb": [1, 100, 500],
        "lsp": (1000, 100, 30),
        "repeat": 3,
    },
    "quick": {
        "tables": [(50, 20), (200, 20)],
        "migrations": [
            (50, 1, "mixed", True),
            (50, 10, "mixed", True),
            (50, 1_000, "doc", False),
            (200, 1, "mixed", True),
        ],
        "check_tables": 50,
        "parquet_mb": [1],
        "lsp": (200, 20, 3),
        "repeat": 1,
    },
}

CHECK_TOUCHED = 4242


def table_name(columns: int) -> str:
    return f"t{columns}"


def build_tables(work: Path, scale: dict) -> dict[int, Path]:
    paths = {}
    for columns, schemas in scale["tables"]:
        metadata = lake.scale_history(lake.template_table(work / "pyiceberg", table_name(columns), columns), schemas)
        paths[columns] = lake.write_hadoop_table(work / "tables" / table_name(columns), metadata)
    return paths


def mb(size: float) -> float:
    return size / 1_000_000


def bench_migrations(binary: str, work: Path, tables: dict[int, Path], scale: dict, repeat: int) -> list[dict]:
    rows = []
    for columns, statements, kind, with_pyiceberg in scale["migrations"]:
        table = f"{lake.NAMESPACE}.{table_name(columns)}"
        ops = lake.migration_ops(statements, columns, kind)
        case = work / "migrations" / f"{table_name(columns)}-{statements}-{kind}"
        case.mkdir(parents=True, exist_ok=True)
        sql = case / "migration.sql"
        sql.write_text(lake.migration_sql(table, ops))
        metadata = tables[columns]
        common = [str(sql), "--metadata", str(metadata), "--table", table, "--format", "json"]
        lint = measure.run([binary, "lint", *common], repeat, ok_codes=(0, 1, 2))
        out = case / "out.metadata.json"
        apply = measure.run([binary, "apply", *common, "-o", str(out), "--force"], repeat, ok_codes=(0, 1, 2))
        row = {
            "columns": columns,
            "statements": statements,
            "kind": kind,
            "metadata_in_mb": mb(metadata.stat().st_size),
            "metadata_out_mb": mb(out.stat().st_size) if out.exists() else None,
            "refused": refusal(apply.stdout),
            "lint_s": lint.seconds,
            "lint_rss_mb": lint.peak_rss_mb,
            "apply_s": apply.seconds,
            "apply_cpu_s": apply.cpu_seconds,
            "apply_rss_mb": apply.peak_rss_mb,
        }
        if with_pyiceberg:
            (case / "ops.json").write_text(json.dumps(ops))
            fresh = case / "pyiceberg-base.metadata.json"

            def copy_base() -> None:
                shutil.copyfile(metadata, fresh)

            # One run: pyiceberg takes seconds to minutes here, far beyond the noise.
            py = measure.run(
                [PYTHON, str(HERE / "pyiceberg_work.py"), "apply", str(work / "pyiceberg"), str(fresh), str(case / "ops.json")],
                1,
                cwd=HERE,
                setup=copy_base,
            )
            row.update(pyiceberg_s=py.inner_seconds, pyiceberg_wall_s=py.seconds, pyiceberg_rss_mb=py.peak_rss_mb)
        rows.append(row)
        print(f"  {table_name(columns)} x {statements} {kind}: apply {apply.seconds:.3f} s", file=sys.stderr)
    return rows


def refusal(report: str) -> str | None:
    """The message of a run fieldgate could not do (exit 2), from its JSON report."""
    errors = json.loads(report).get("errors") or []
    return errors[0]["message"] if errors else None


def bench_parse(binary: str, work: Path, tables: dict[int, Path], repeat: int) -> dict:
    """Metadata parsing, measured as a whole `lint` of a one-statement migration on the largest
    table (read, parse, typed view, evolve, rules, report): a lower bound on the parse rate."""
    columns = max(tables)
    metadata = tables[columns]
    table = f"{lake.NAMESPACE}.{table_name(columns)}"
    sql = work / "migrations" / "parse.sql"
    sql.write_text(lake.migration_sql(table, lake.migration_ops(1, columns, "doc")))
    ours = measure.run([binary, "lint", str(sql), "--metadata", str(metadata), "--table", table], repeat, ok_codes=(0, 1))
    theirs = measure.run([PYTHON, str(HERE / "pyiceberg_work.py"), "parse", str(metadata)], repeat, cwd=HERE)
    size = mb(metadata.stat().st_size)
    return {
        "metadata_mb": size,
        "fieldgate_s": ours.seconds,
        "fieldgate_cpu_s": ours.cpu_seconds,
        "fieldgate_rss_mb": ours.peak_rss_mb,
        "pyiceberg_s": theirs.inner_seconds,
        "pyiceberg_rss_mb": theirs.peak_rss_mb,
    }


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@fieldgate.invalid", *args], cwd=repo, check=True, capture_output=True)


def bench_check(binary: str, work: Path, tables: dict[int, Path], count: int, repeat: int) -> list[dict]:
    """A repository of `count` tables (pyiceberg-written metadata, each its own file) and one
    pull request per touched table: one migration, with the metadata `apply --write` wrote. The
    touched table is a small one, then the largest of the benchmark."""
    repo = work / "check-repo"
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    small = lake.template_table(work / "pyiceberg", "check_template", 50)
    small_text = json.dumps(small, separators=(",", ":"))
    big = min(CHECK_TOUCHED, count - 1)
    big_columns = max(tables)
    config = ["proposals:", "  - migrations/**/*.sql", "tables:"]
    for i in range(count):
        name = f"t{i:05d}"
        directory = repo / "warehouse" / lake.NAMESPACE / name
        if i == big:
            metadata = json.loads(tables[big_columns].read_text())
        else:
            metadata = json.loads(small_text.replace(small["table-uuid"], f"00000000-0000-4000-8000-{i:012d}"))
        metadata["location"] = f"file:///lake/{lake.NAMESPACE}/{name}"
        lake.write_hadoop_table(directory, metadata)
        config.append(f"  {lake.NAMESPACE}.{name}:\n    metadata: warehouse/{lake.NAMESPACE}/{name}")
    (repo / "fieldgate.yaml").write_text("\n".join(config) + "\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "lake")
    rows = []
    for touched, columns in [(1, 50), (big, big_columns)]:
        name = f"t{touched:05d}"
        git(repo, "checkout", "-q", "-b", f"pr-{name}", "main")
        migration = repo / "migrations" / f"0001_{name}.sql"
        migration.parent.mkdir(exist_ok=True)
        table = f"{lake.NAMESPACE}.{name}"
        migration.write_text(lake.migration_sql(table, lake.migration_ops(3, columns, "mixed")))
        subprocess.run(
            [binary, "apply", str(migration), "--metadata", f"warehouse/{lake.NAMESPACE}/{name}", "--table", table, "--write"],
            cwd=repo,
            check=True,
            capture_output=True,
        )
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"add columns to {name}")
        result = measure.run([binary, "check", "--base", "main"], repeat, cwd=repo)
        metadata_mb = mb((repo / "warehouse" / lake.NAMESPACE / name / "metadata" / "v1.metadata.json").stat().st_size)
        rows.append(
            {
                "tables": count,
                "touched_columns": columns,
                "touched_metadata_mb": metadata_mb,
                "seconds": result.seconds,
                "cpu_s": result.cpu_seconds,
                "rss_mb": result.peak_rss_mb,
            }
        )
    return rows


PROJECTED = ["id", "user_id", "amount", "qty", "ts", "country", "label", "score"]


def projected_bytes(files: list[Path]) -> int:
    total = 0
    for path in files:
        meta = pq.ParquetFile(path).metadata
        for group in range(meta.num_row_groups):
            row_group = meta.row_group(group)
            for column in range(row_group.num_columns):
                chunk = row_group.column(column)
                if chunk.path_in_schema in PROJECTED:
                    total += chunk.total_compressed_size
    return total


def bench_verify(binary: str, work: Path, sizes: list[int], repeat: int) -> list[dict]:
    rows = []
    for size in sizes:
        metadata, files = lake.data_table(work / "pyiceberg", f"data_{size}mb", size)
        paths = [str(f) for f in files]
        ours = measure.run([binary, "verify", "--metadata", str(metadata), *paths, "--format", "json"], repeat)
        report = json.loads(ours.stdout)
        read = sum(f["bytes_read"] for f in report["files"])
        arrow = measure.run([PYTHON, str(HERE / "pyiceberg_work.py"), "arrow", json.dumps(PROJECTED), *paths], repeat, cwd=HERE)
        scan = measure.run([PYTHON, str(HERE / "pyiceberg_work.py"), "scan", str(metadata)], repeat, cwd=HERE)
        rows.append(
            {
                "file_mb": mb(sum(f.stat().st_size for f in files)),
                "projected_mb": mb(projected_bytes(files)),
                "read_mb": mb(read),
                "fieldgate_s": ours.seconds,
                "fieldgate_cpu_s": ours.cpu_seconds,
                "fieldgate_rss_mb": ours.peak_rss_mb,
                "pyarrow_s": arrow.inner_seconds,
                "pyarrow_rss_mb": arrow.peak_rss_mb,
                "pyiceberg_s": scan.inner_seconds,
                "pyiceberg_rss_mb": scan.peak_rss_mb,
            }
        )
        print(f"  verify {size} MB: {ours.seconds:.3f} s", file=sys.stderr)
    return rows


def conditions() -> dict:
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{os.cpu_count()} cores, {platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        "load": Path("/proc/loadavg").read_text().split()[:3],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smoke-test scale that runs in about a minute")
    parser.add_argument("--bin", required=True, help="the fieldgate binary (a release build for real numbers)")
    parser.add_argument("--work", required=True, type=Path, help="where the lake is generated (emptied first)")
    parser.add_argument("--repeat", type=int, help="runs per measurement (median wall, max RSS)")
    parser.add_argument("--targets", action="store_true", help="measure only the four targets (see the README)")
    parser.add_argument("--lsp", action="store_true", help="measure only the language server's latency (see the README)")
    parser.add_argument("--no-instructions", action="store_true", help="skip the callgrind counts (bench/guard.py makes them)")
    args = parser.parse_args()
    scale = SCALES["quick" if args.quick else "full"]
    repeat = args.repeat or scale["repeat"]
    binary = str(Path(args.bin).resolve())
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    work = args.work.resolve()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True).stdout.strip()
    results = {
        "scale": "quick" if args.quick else "full",
        "repeat": repeat,
        "binary": binary,
        "commit": commit,
        "before": conditions(),
    }
    if args.lsp:
        bench_lsp(binary, work, scale, results)
        finish(work, results)
        return
    print("targets", file=sys.stderr)
    results["targets"] = [targets.measure_case(case, repeat, not args.no_instructions) for case in targets.cases(binary, work, PYTHON, results["scale"])]
    if args.targets:
        finish(work, results)
        return
    print("generating tables", file=sys.stderr)
    tables = build_tables(work, scale)
    print("lint / apply", file=sys.stderr)
    results["migrations"] = bench_migrations(binary, work, tables, scale, repeat)
    print("metadata parsing", file=sys.stderr)
    results["parse"] = bench_parse(binary, work, tables, repeat)
    print(f"check over {scale['check_tables']} tables", file=sys.stderr)
    results["check"] = bench_check(binary, work, tables, scale["check_tables"], repeat)
    print("verify", file=sys.stderr)
    results["verify"] = bench_verify(binary, work, scale["parquet_mb"], repeat)
    bench_lsp(binary, work, scale, results)
    finish(work, results)


def bench_lsp(binary: str, work: Path, scale: dict, results: dict) -> None:
    columns, schemas, edits = scale["lsp"]
    print(f"lsp latency on {columns} columns, {schemas} schemas", file=sys.stderr)
    results["lsp"] = lsp_latency.measure(binary, work, columns, schemas, edits)


def finish(work: Path, results: dict) -> None:
    results["after"] = conditions()
    (work / "results.json").write_text(json.dumps(results, indent=2))
    text = markdown(results)
    (work / "results.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
