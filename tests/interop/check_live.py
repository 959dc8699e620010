#!/usr/bin/env python3
"""Live interop check: does metadata written by `fieldgate apply` read back in pyiceberg and in
DuckDB's iceberg extension exactly as pyiceberg's own result does?

For every case under FIXTURES/cases (a directory made by `make_fixtures.py --out FIXTURES --keep-data`,
so the manifests and data files its metadata points at exist), run

    FIELDGATE apply cases/<case>/change.sql --metadata cases/<case>/base.metadata.json -o OUT
    FIELDGATE apply cases/<case>/change.sql -o OUT                     (create_table: no base)

load OUT with pyiceberg's StaticTable and compare with cases/<case>/expected.metadata.json: the current
schema field by field (ids, names, types, required, doc, order, identifier fields), every schema id and
schema, last-column-id and the name mapping; then scan both tables and compare the rows. DuckDB
then scans OUT with `iceberg_scan`, and its columns (names and types) and rows are compared with
pyiceberg's scan of expected.metadata.json.

For every case with a base, the same migration is applied with `--write` to a copy of the base
table's directory (FIXTURES/tables/<table>: metadata/v1..vN.metadata.json and version-hint.text):
version-hint.text must then be the bare number N+1 (no line break), v(N+1).metadata.json's last
metadata-log entry must be vN.metadata.json, and the directory, read through its version hint by
StaticTable and by `iceberg_scan`, is compared as above.

A case DuckDB cannot read for a reason of its own is listed in duckdb_reader.DUCKDB_LIMITS with the
reason; the case fails if it passes under DuckDB after all, or if DuckDB reads pyiceberg's own
metadata of it.

Prints one line per case and finally `N passed, M failed`; exits 1 if any case failed, 2 if it could
not run at all.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
from pyiceberg.schema import Schema
from pyiceberg.table import StaticTable
from pyiceberg.types import IcebergType, ListType, MapType, NestedField, StructType

import duckdb_reader

# How many differences to print per reader (on the case's one line); the first few are what one
# needs to start, and every reader that disagrees is named.
MAX_DIFFS = 3
MAX_DIFF_CHARS = 400


# --------------------------------------------------------------------------------------------------
# Schema comparison. Schemas are flattened to rows in declaration order, so a mismatch can be named
# by its path instead of printing two whole schemas.


def type_label(field_type: IcebergType) -> str:
    if isinstance(field_type, StructType):
        return "struct"
    if isinstance(field_type, ListType):
        return "list"
    if isinstance(field_type, MapType):
        return "map"
    return str(field_type)


def field_rows(struct_type: StructType, prefix: str = "") -> list[tuple]:
    rows: list[tuple] = []
    for field in struct_type.fields:
        rows.extend(nested_field_rows(field, prefix + field.name))
    return rows


def nested_field_rows(field: NestedField, path: str) -> list[tuple]:
    row = (path, field.field_id, type_label(field.field_type), field.required, field.doc,
           field.initial_default, field.write_default)
    rows = [row]
    field_type = field.field_type
    if isinstance(field_type, StructType):
        rows.extend(field_rows(field_type, path + "."))
    elif isinstance(field_type, ListType):
        rows.extend(nested_field_rows(field_type.element_field, path + ".element"))
    elif isinstance(field_type, MapType):
        rows.extend(nested_field_rows(field_type.key_field, path + ".key"))
        rows.extend(nested_field_rows(field_type.value_field, path + ".value"))
    return rows


ROW_NAMES = ("path", "id", "type", "required", "doc", "initial-default", "write-default")


def describe_row(row: tuple | None) -> str:
    if row is None:
        return "<none>"
    return ", ".join(f"{name}={value!r}" for name, value in zip(ROW_NAMES, row) if value is not None)


def schema_diffs(label: str, actual: Schema, expected: Schema) -> list[str]:
    diffs: list[str] = []
    got, want = field_rows(actual.as_struct()), field_rows(expected.as_struct())
    for index in range(max(len(got), len(want))):
        g = got[index] if index < len(got) else None
        w = want[index] if index < len(want) else None
        if g != w:
            diffs.append(f"{label} field #{index}: got [{describe_row(g)}], expected [{describe_row(w)}]")
    if sorted(actual.identifier_field_ids) != sorted(expected.identifier_field_ids):
        diffs.append(
            f"{label} identifier-field-ids: got {sorted(actual.identifier_field_ids)}, "
            f"expected {sorted(expected.identifier_field_ids)}"
        )
    return diffs


def metadata_diffs(actual: StaticTable, expected: StaticTable) -> list[str]:
    am, em = actual.metadata, expected.metadata
    diffs: list[str] = []

    def same(label: str, got: object, want: object) -> None:
        if got != want:
            diffs.append(f"{label}: got {got!r}, expected {want!r}")

    same("format-version", am.format_version, em.format_version)
    same("current-schema-id", am.current_schema_id, em.current_schema_id)
    same("last-column-id", am.last_column_id, em.last_column_id)
    diffs.extend(schema_diffs("current schema", actual.schema(), expected.schema()))

    # Every schema in history, by id: fieldgate must keep old schemas and number new ones as pyiceberg does.
    got_schemas = {s.schema_id: s for s in am.schemas}
    want_schemas = {s.schema_id: s for s in em.schemas}
    same("schema ids", sorted(got_schemas), sorted(want_schemas))
    for schema_id in sorted(set(got_schemas) & set(want_schemas)):
        diffs.extend(schema_diffs(f"schema {schema_id}", got_schemas[schema_id], want_schemas[schema_id]))

    got_mapping, want_mapping = am.name_mapping(), em.name_mapping()
    same(
        "schema.name-mapping.default",
        without_nameless(got_mapping.model_dump()) if got_mapping else None,
        without_nameless(want_mapping.model_dump()) if want_mapping else None,
    )
    return diffs


def without_nameless(entries: list[dict]) -> list[dict]:
    """Drop mapping entries whose names were all reassigned to a new field.

    Iceberg Java (which fieldgate follows) keeps such an entry with an empty `names` list; PyIceberg
    removes it. Neither entry can match a column of a data file, so both mean the same to a reader.
    """
    kept = []
    for entry in entries:
        if not entry.get("names"):
            continue
        entry = dict(entry)
        if entry.get("fields"):
            entry["fields"] = without_nameless(entry["fields"])
        kept.append(entry)
    return kept


# --------------------------------------------------------------------------------------------------
# Data comparison: what a reader actually gets is the point of the whole exercise.


def canonical_rows(table: pa.Table) -> list[str]:
    """Rows as sorted JSON strings, so the comparison ignores file and row order."""
    return sorted(json.dumps(row, default=str, sort_keys=True) for row in table.to_pylist())


def describe_arrow_field(field: pa.Field | None) -> str:
    if field is None:
        return "<none>"
    metadata = {k.decode(): v.decode() for k, v in (field.metadata or {}).items()}
    return f"{field.name}: {field.type}{'' if field.nullable else ' not null'}{' ' + str(metadata) if metadata else ''}"


def arrow_schema_diff(got: pa.Schema, want: pa.Schema) -> str:
    """Name the first column whose Arrow field (type, nullability, field-id/doc metadata) differs."""
    for index in range(max(len(got), len(want))):
        g = got.field(index) if index < len(got) else None
        w = want.field(index) if index < len(want) else None
        if g is None or w is None or not g.equals(w, check_metadata=True):
            return f"scan column #{index}: got [{describe_arrow_field(g)}], expected [{describe_arrow_field(w)}]"
    return "scan schema: schema-level metadata differs"


def rows_diffs(label: str, got: pa.Table, want: pa.Table) -> list[str]:
    """The rows a reader got against pyiceberg's scan of its own evolution, ignoring row order."""
    got_rows, want_rows = canonical_rows(got), canonical_rows(want)
    if got_rows == want_rows:
        return []
    missing = [r for r in want_rows if r not in got_rows]
    extra = [r for r in got_rows if r not in want_rows]
    return [f"{label} rows: {len(got_rows)} read, {len(want_rows)} expected; "
            f"first missing {missing[:1]}, first unexpected {extra[:1]}"]


def pyiceberg_diffs(label: str, location: str, expected: StaticTable, want: pa.Table) -> list[str]:
    """Load LOCATION (a metadata file, or a table directory through its version hint) with
    StaticTable; compare its metadata with pyiceberg's and its scan with WANT."""
    try:
        actual = StaticTable.from_metadata(location)
    except Exception as error:  # noqa: BLE001 - any load failure is a failed case, reported as such
        return [f"{label}: pyiceberg cannot load fieldgate's output: {type(error).__name__}: {error}"]
    diffs = [f"{label}: {diff}" for diff in metadata_diffs(actual, expected)]
    try:
        got = actual.scan().to_arrow()
    except Exception as error:  # noqa: BLE001
        return diffs + [f"{label}: scan failed: {first_line(error)}"]
    if not got.schema.equals(want.schema, check_metadata=True):
        diffs.append(f"{label}: {arrow_schema_diff(got.schema, want.schema)}")
    return diffs + rows_diffs(f"{label}: scan", got, want)


def duckdb_diffs(label: str, con: object, location: str, want: pa.Table) -> list[str]:
    """Scan LOCATION with DuckDB's iceberg_scan; compare the columns (names and types, nested ones
    included) and the rows with WANT, pyiceberg's scan of its own evolution."""
    try:
        got = duckdb_reader.scan(con, location)
    except Exception as error:  # noqa: BLE001 - DuckDB refusing the table is a failed case
        return [f"{label}: iceberg_scan failed: {type(error).__name__}: {error}"]
    diffs = []
    got_columns, want_columns = duckdb_reader.column_shapes(got.schema), duckdb_reader.column_shapes(want.schema)
    if got_columns != want_columns:
        first = next(i for i, (g, w) in enumerate(zip(got_columns + [None], want_columns + [None])) if g != w)
        at = lambda columns: columns[first] if first < len(columns) else "<none>"  # noqa: E731
        diffs.append(f"{label}: column #{first}: got [{at(got_columns)}], expected [{at(want_columns)}]")
    return diffs + rows_diffs(f"{label}: scan", got, want)


def first_line(error: Exception) -> str:
    text = str(error)
    return text.splitlines()[0] if text else type(error).__name__


# --------------------------------------------------------------------------------------------------


def shorten(text: str, limit: int = MAX_DIFF_CHARS) -> str:
    text = " ".join(text.split())  # the report stays one line per case
    return text if len(text) <= limit else text[: limit - 3] + "..."


def run_fieldgate(fieldgate: str, case_dir: Path, metadata: Path | None, target: list[str],
                  written: Path, timeout: float) -> str | None:
    """Run `fieldgate apply` for one case; return an error text, or None when WRITTEN was written."""
    command = [fieldgate, "apply", str(case_dir / "change.sql")]
    if metadata is not None:
        command += ["--metadata", str(metadata)]
    # Some cases are unsafe on purpose (a dropped name re-added): fieldgate's rules fail the gate
    # (exit 1), and --force still writes, which is what the id assignment is compared on.
    command += [*target, "--force"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"fieldgate apply timed out after {timeout:.0f}s"
    except OSError as error:
        return f"could not start fieldgate: {error}"
    if result.returncode not in (0, 1):
        tail = (result.stderr.strip() or result.stdout.strip()).splitlines()[-3:]
        return f"fieldgate apply exited {result.returncode}: {' | '.join(tail)}"
    if not written.exists():
        return f"fieldgate apply exited {result.returncode} but wrote no {written.name}"
    return None


class Case:
    """One case's inputs, and pyiceberg's own result that every reader is compared with."""

    def __init__(self, case_dir: Path, fixtures: Path) -> None:
        self.dir = case_dir
        self.name = case_dir.name
        self.base = case_dir / "base.metadata.json"
        self.expected_file = str(case_dir / "expected.metadata.json")
        self.expected = StaticTable.from_metadata(self.expected_file)
        self.want = self.expected.scan().to_arrow()
        table = json.loads((case_dir / "case.json").read_text())["table"]
        self.table_dir = fixtures / "tables" / table.split(".")[-1]


def check_metadata_file(fieldgate: str, case: Case, con: object, work: Path,
                        timeout: float) -> tuple[list[str], list[str] | None]:
    """`apply -o OUT`, read by pyiceberg and by DuckDB: (pyiceberg's diffs, DuckDB's diffs, None
    when apply wrote nothing to read)."""
    # StaticTable only treats a path as a metadata file when it ends in .metadata.json.
    out = work / f"{case.name}.metadata.json"
    base = case.base if case.base.exists() else None
    if error := run_fieldgate(fieldgate, case.dir, base, ["-o", str(out)], out, timeout):
        return [error], None
    return (pyiceberg_diffs("pyiceberg", str(out), case.expected, case.want),
            duckdb_diffs("duckdb", con, str(out), case.want))


def check_table_directory(fieldgate: str, case: Case, con: object, work: Path,
                          timeout: float) -> tuple[list[str], list[str] | None]:
    """`apply --write` on a copy of the case's table directory (Hadoop layout), then the directory
    read through its version hint by pyiceberg and by DuckDB: (the directory's and pyiceberg's
    diffs, DuckDB's diffs, None when apply wrote nothing to read).

    Only metadata/ is copied: the manifests and data files stay in the warehouse, at the absolute
    paths the metadata names, so DuckDB reads them without `allow_moved_paths` (which would look
    for them under the copy).
    """
    table_dir = work / "tables" / case.name
    shutil.copytree(case.table_dir, table_dir)
    hint = table_dir / "metadata" / "version-hint.text"
    version = int(hint.read_text()) + 1
    new_file = table_dir / "metadata" / f"v{version}.metadata.json"
    if error := run_fieldgate(fieldgate, case.dir, table_dir, ["--write"], new_file, timeout):
        return [f"table directory: {error}"], None
    diffs = []
    if (text := hint.read_bytes()) != str(version).encode():
        diffs.append(f"table directory: version-hint.text is {text!r}, expected {str(version).encode()!r}")
    diffs += metadata_log_diffs(table_dir / "metadata" / f"v{version - 1}.metadata.json", new_file)
    return (diffs + pyiceberg_diffs("table directory: pyiceberg", str(table_dir), case.expected, case.want),
            duckdb_diffs("table directory: duckdb", con, str(table_dir), case.want))


def metadata_log_diffs(previous: Path, new_file: Path) -> list[str]:
    """The new file's last `metadata-log` entry is the file it replaces, as Java's
    HadoopTableOperations records it: under the table's location, with that file's
    last-updated-ms."""
    old, new = json.loads(previous.read_text()), json.loads(new_file.read_text())
    want = {"metadata-file": f"{old['location'].rstrip('/')}/metadata/{previous.name}",
            "timestamp-ms": old["last-updated-ms"]}
    log = new.get("metadata-log") or [None]
    if log[-1] != want:
        return [f"table directory: last metadata-log entry of {new_file.name} is {log[-1]}, expected {want}"]
    return []


def duckdb_verdict(con: object, case: Case, diffs: list[str]) -> tuple[list[str], str | None]:
    """Hold DuckDB's DIFFS for a case against DUCKDB_LIMITS: (what fails the case, a note)."""
    reason = duckdb_reader.DUCKDB_LIMITS.get(case.name)
    if reason is None:
        return diffs, None
    if not diffs:
        return [f"listed in DUCKDB_LIMITS ({reason}), but DuckDB now reads the case as pyiceberg does: "
                "remove it there and from NOTES.md"], None
    if not duckdb_diffs("duckdb", con, case.expected_file, case.want):
        return [f"listed in DUCKDB_LIMITS, but DuckDB reads pyiceberg's own metadata of the case, so the "
                f"failure is fieldgate's: {diffs[0]}"], None
    return [], f"DuckDB not compared: {reason}"


def check_case(fieldgate: str, case_dir: Path, fixtures: Path, con: object, work: Path,
               timeout: float) -> tuple[list[str], str | None]:
    """Every check of one case: (its differences, a note for a listed DuckDB limitation)."""
    try:
        case = Case(case_dir, fixtures)
    except Exception as error:  # noqa: BLE001 - a broken fixture fails its case, not the run
        return [f"pyiceberg's own result cannot be read: {type(error).__name__}: {error}"], None
    pyiceberg, duck = check_metadata_file(fieldgate, case, con, work, timeout)
    directory, directory_duck = [], []
    if case.base.exists():
        directory, directory_duck = check_table_directory(fieldgate, case, con, work, timeout)
    note = None
    if duck is not None and directory_duck is not None:
        duck, note = duckdb_verdict(con, case, duck + directory_duck)
    else:
        # apply wrote nothing for DuckDB to read: that is reported as apply's failure.
        duck = (duck or []) + (directory_duck or [])
    return [shown for diffs in (pyiceberg, directory, duck) for shown in first_few(diffs)], note


def first_few(diffs: list[str]) -> list[str]:
    more = [f"... and {len(diffs) - MAX_DIFFS} more"] if len(diffs) > MAX_DIFFS else []
    return [shorten(diff) for diff in diffs[:MAX_DIFFS]] + more


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Check fieldgate apply against pyiceberg, case by case.")
    parser.add_argument("--fieldgate", required=True, help="path to the fieldgate binary")
    parser.add_argument("--fixtures", required=True, type=Path,
                        help="directory made by make_fixtures.py --out DIR --keep-data")
    parser.add_argument("--case", action="append", default=[], help="run only this case (repeatable)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds allowed per fieldgate run")
    args = parser.parse_args(argv)

    cases_dir = args.fixtures / "cases"
    if not cases_dir.is_dir():
        print(f"no cases/ under {args.fixtures}", file=sys.stderr)
        return 2
    if not (args.fixtures / "warehouse").is_dir():
        # Without the warehouse the scans cannot read anything; say so instead of failing every case.
        print(f"{args.fixtures} has no warehouse/: generate it with make_fixtures.py --keep-data", file=sys.stderr)
        return 2

    case_dirs = sorted(p for p in cases_dir.iterdir() if (p / "change.sql").exists())
    if args.case:
        case_dirs = [p for p in case_dirs if p.name in set(args.case)]
    stale = sorted(set(duckdb_reader.DUCKDB_LIMITS) - {p.name for p in cases_dir.iterdir()})
    if stale:
        print(f"DUCKDB_LIMITS names cases that do not exist: {', '.join(stale)}", file=sys.stderr)
        return 2
    con = duckdb_reader.connect()
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="fieldgate-live-") as work:
        for case_dir in case_dirs:
            diffs, note = check_case(args.fieldgate, case_dir, args.fixtures, con, Path(work), args.timeout)
            if diffs:
                failed += 1
                print(f"FAIL {case_dir.name}: {'; '.join(diffs)}")
            else:
                passed += 1
                print(f"ok   {case_dir.name}{f' ({note})' if note else ''}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
