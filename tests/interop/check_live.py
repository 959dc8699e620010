#!/usr/bin/env python3
"""Live interop check: does metadata written by `fieldgate apply` read back in pyiceberg exactly as
pyiceberg's own result does?

For every case under FIXTURES/cases (a directory made by `make_fixtures.py --out FIXTURES --keep-data`,
so the manifests and data files its metadata points at exist), run

    FIELDGATE apply cases/<case>/change.sql --metadata cases/<case>/base.metadata.json -o OUT
    FIELDGATE apply cases/<case>/change.sql -o OUT                     (create_table: no base)

load OUT with pyiceberg's StaticTable and compare with cases/<case>/expected.metadata.json: the current
schema field by field (ids, names, types, required, doc, order, identifier fields), every schema id and
schema, last-column-id and the name mapping; then scan both tables and compare the rows.

Prints one line per case and finally `N passed, M failed`; exits 1 if any case failed, 2 if it could
not run at all.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
from pyiceberg.schema import Schema
from pyiceberg.table import StaticTable
from pyiceberg.types import IcebergType, ListType, MapType, NestedField, StructType

# How many differences to print (on the case's one line); the first few are what one needs to start.
MAX_DIFFS = 5
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


def scan_diffs(actual: StaticTable, expected: StaticTable) -> list[str]:
    got, want = actual.scan().to_arrow(), expected.scan().to_arrow()
    diffs: list[str] = []
    if not got.schema.equals(want.schema, check_metadata=True):
        diffs.append(arrow_schema_diff(got.schema, want.schema))
    got_rows, want_rows = canonical_rows(got), canonical_rows(want)
    if got_rows != want_rows:
        missing = [r for r in want_rows if r not in got_rows]
        extra = [r for r in got_rows if r not in want_rows]
        diffs.append(f"scan rows: {len(got_rows)} read, {len(want_rows)} expected; "
                     f"first missing {missing[:1]}, first unexpected {extra[:1]}")
    return diffs


# --------------------------------------------------------------------------------------------------


def shorten(text: str, limit: int = MAX_DIFF_CHARS) -> str:
    text = " ".join(text.split())  # the report stays one line per case
    return text if len(text) <= limit else text[: limit - 3] + "..."


def run_fieldgate(fieldgate: str, case_dir: Path, out: Path, timeout: float) -> str | None:
    """Run `fieldgate apply` for one case; return an error text, or None when OUT was written."""
    command = [fieldgate, "apply", str(case_dir / "change.sql")]
    base = case_dir / "base.metadata.json"
    if base.exists():
        command += ["--metadata", str(base)]
    # Some cases are unsafe on purpose (a dropped name re-added): fieldgate's rules fail the gate
    # (exit 1), and --force still writes, which is what the id assignment is compared on.
    command += ["-o", str(out), "--force"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"fieldgate apply timed out after {timeout:.0f}s"
    except OSError as error:
        return f"could not start fieldgate: {error}"
    if result.returncode not in (0, 1):
        tail = (result.stderr.strip() or result.stdout.strip()).splitlines()[-3:]
        return f"fieldgate apply exited {result.returncode}: {' | '.join(tail)}"
    if not out.exists():
        return f"fieldgate apply exited {result.returncode} but wrote no output file"
    return None


def check_case(fieldgate: str, case_dir: Path, work: Path, timeout: float) -> list[str]:
    # StaticTable only treats a path as a metadata file when it ends in .metadata.json.
    out = work / f"{case_dir.name}.metadata.json"
    if error := run_fieldgate(fieldgate, case_dir, out, timeout):
        return [error]
    try:
        actual = StaticTable.from_metadata(str(out))
    except Exception as error:  # noqa: BLE001 - any load failure is a failed case, reported as such
        return [f"pyiceberg cannot load fieldgate's output: {type(error).__name__}: {error}"]
    expected = StaticTable.from_metadata(str(case_dir / "expected.metadata.json"))
    diffs = metadata_diffs(actual, expected)
    try:
        diffs += scan_diffs(actual, expected)
    except Exception as error:  # noqa: BLE001
        diffs.append(f"scan failed: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
    return diffs


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
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="fieldgate-live-") as work:
        for case_dir in case_dirs:
            diffs = check_case(args.fieldgate, case_dir, Path(work), args.timeout)
            if diffs:
                failed += 1
                more = f"; ... and {len(diffs) - MAX_DIFFS} more" if len(diffs) > MAX_DIFFS else ""
                shown = "; ".join(shorten(d) for d in diffs[:MAX_DIFFS])
                print(f"FAIL {case_dir.name}: {shown}{more}")
            else:
                passed += 1
                print(f"ok   {case_dir.name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
