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
StaticTable and by `iceberg_scan`, is compared as above. Beside those, for every case with a base:

- the metadata-log of each `-o OUT`, as a Java commit logs the file its base was read from where
  that file's place in the table is known: OUT from the case's copy of the base logs nothing new;
  OUT from the table directory logs vN.metadata.json; OUT from the base as the warehouse keeps it
  (under the table's `location`) logs that file exactly as pyiceberg's own first commit on it did;
- gzip metadata: `-o OUT.gz.metadata.json`, and `--write` on a copy of the table directory whose
  current version sets `write.metadata.compression-codec=gzip` (v(N+1).gz.metadata.json, gzip, no
  plain file beside it, the hint and the log as above), read by both readers (DuckDB's iceberg_scan
  told the codec; pyiceberg given the gzip file, as it cannot follow a hint to one: PYICEBERG_LIMITS,
  checked to still fail);
- format v3 (the v2 cases): the base upgraded as Java's `upgradeFormatVersion(3)` leaves it, `-o OUT`,
  OUT still v3 with its next-row-id, read by both readers and compared with pyiceberg's own (v2)
  evolution.

The CREATE TABLE case is also applied with `--write` where a fieldgate.yaml in a scratch directory
keeps the new table (a directory): metadata/v1.metadata.json, a hint of 1 and a `file://` location,
read through the hint by both readers.

A case DuckDB cannot read for a reason of its own is listed in duckdb_reader.DUCKDB_LIMITS with the
reason; the case fails if it passes under DuckDB after all, or if DuckDB reads pyiceberg's own
metadata of it.

Prints one line per case and finally `N passed, M failed`; exits 1 if any case failed, 2 if it could
not run at all.
"""

from __future__ import annotations

import argparse
import gzip
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


def metadata_diffs(actual: StaticTable, expected: StaticTable, format_version: int | None = None) -> list[str]:
    """FORMAT_VERSION: the one ACTUAL must have where it is not EXPECTED's (an upgraded table)."""
    am, em = actual.metadata, expected.metadata
    diffs: list[str] = []

    def same(label: str, got: object, want: object) -> None:
        if got != want:
            diffs.append(f"{label}: got {got!r}, expected {want!r}")

    same("format-version", am.format_version, format_version or em.format_version)
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


def pyiceberg_diffs(label: str, location: str, expected: StaticTable, want: pa.Table,
                    format_version: int | None = None) -> list[str]:
    """Load LOCATION (a metadata file, or a table directory through its version hint) with
    StaticTable; compare its metadata with pyiceberg's and its scan with WANT."""
    try:
        actual = StaticTable.from_metadata(location)
    except Exception as error:  # noqa: BLE001 - any load failure is a failed case, reported as such
        return [f"{label}: pyiceberg cannot load fieldgate's output: {type(error).__name__}: {error}"]
    diffs = [f"{label}: {diff}" for diff in metadata_diffs(actual, expected, format_version)]
    try:
        got = actual.scan().to_arrow()
    except Exception as error:  # noqa: BLE001
        return diffs + [f"{label}: scan failed: {first_line(error)}"]
    if not got.schema.equals(want.schema, check_metadata=True):
        diffs.append(f"{label}: {arrow_schema_diff(got.schema, want.schema)}")
    return diffs + rows_diffs(f"{label}: scan", got, want)


def duckdb_diffs(label: str, con: object, location: str, want: pa.Table, gzip: bool = False) -> list[str]:
    """Scan LOCATION with DuckDB's iceberg_scan (GZIP: a directory whose current version is gzip);
    compare the columns (names and types, nested ones included) and the rows with WANT, pyiceberg's
    scan of its own evolution."""
    try:
        got = duckdb_reader.scan(con, location, gzip)
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
                  written: Path, timeout: float, cwd: Path | None = None) -> str | None:
    """Run `fieldgate apply` for one case (in CWD); return an error text, or None when WRITTEN was
    written."""
    command = [fieldgate, "apply", str(case_dir / "change.sql")]
    if metadata is not None:
        command += ["--metadata", str(metadata)]
    # Some cases are unsafe on purpose (a dropped name re-added): fieldgate's rules fail the gate
    # (exit 1), and --force still writes, which is what the id assignment is compared on.
    command += [*target, "--force"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=cwd)
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

    def __init__(self, case_dir: Path, fixtures: Path, own_files: dict[bytes, Path]) -> None:
        self.dir = case_dir.resolve()
        self.name = case_dir.name
        self.base = self.dir / "base.metadata.json"
        self.expected_file = str(self.dir / "expected.metadata.json")
        self.expected = StaticTable.from_metadata(self.expected_file)
        self.want = self.expected.scan().to_arrow()
        described = json.loads((case_dir / "case.json").read_text())
        self.table = described["table"]
        self.format_version = described["format_version"]
        self.table_dir = fixtures / "tables" / self.table.split(".")[-1]
        # The base as the table keeps it in the warehouse: the file pyiceberg's commits log.
        self.own_base = own_files.get(self.base.read_bytes()) if self.base.exists() else None


def own_metadata_files(fixtures: Path) -> dict[bytes, Path]:
    """Every metadata file in the warehouse, by its bytes: where each case's base lives in its table."""
    return {path.read_bytes(): path for path in (fixtures / "warehouse").glob("**/metadata/*.metadata.json")}


def check_metadata_file(fieldgate: str, case: Case, con: object, work: Path,
                        timeout: float) -> tuple[list[str], list[str] | None]:
    """`apply -o OUT`, read by pyiceberg and by DuckDB: (pyiceberg's diffs, DuckDB's diffs, None
    when apply wrote nothing to read)."""
    # StaticTable only treats a path as a metadata file when it ends in .metadata.json.
    out = work / f"{case.name}.metadata.json"
    base = case.base if case.base.exists() else None
    if error := run_fieldgate(fieldgate, case.dir, base, ["-o", str(out)], out, timeout):
        return [error], None
    diffs = []
    if base is not None and (log := json.loads(out.read_text()).get("metadata-log")) != \
            (want := json.loads(base.read_text()).get("metadata-log")):
        diffs.append(f"metadata-log: got {shorten(str(log), 120)}, expected the base's own "
                     f"{shorten(str(want), 120)}: a copy's place in its table is not known, so nothing is logged")
    return (diffs + pyiceberg_diffs("pyiceberg", str(out), case.expected, case.want),
            duckdb_diffs("duckdb", con, str(out), case.want))


def check_own_file_logged(fieldgate: str, case: Case, work: Path, timeout: float) -> list[str]:
    """`apply -o OUT` from the base as its table keeps it (the warehouse's own metadata file, under
    the table's `location`): OUT logs that file as pyiceberg's own first commit on it did, with the
    same location and timestamp."""
    if case.own_base is None:
        return [f"no metadata file in the warehouse is the base of {case.name}"]
    out = work / f"{case.name}.own.metadata.json"
    if error := run_fieldgate(fieldgate, case.dir, case.own_base, ["-o", str(out)], out, timeout):
        return [f"from the table's own file: {error}"]
    base_log = json.loads(case.base.read_text()).get("metadata-log") or []
    want = json.loads(Path(case.expected_file).read_text())["metadata-log"][len(base_log)]
    log = json.loads(out.read_text()).get("metadata-log") or [None]
    if log[-1] != want:
        return [f"from the table's own file: last metadata-log entry {log[-1]}, pyiceberg logged {want}"]
    return []


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
    current = table_dir / "metadata" / f"v{version - 1}.metadata.json"
    # `-o` from the directory first: a new file made from the current version logs it too.
    out = work / f"{case.name}.from-directory.metadata.json"
    if error := run_fieldgate(fieldgate, case.dir, table_dir, ["-o", str(out)], out, timeout):
        return [f"table directory -o: {error}"], None
    diffs = metadata_log_diffs("table directory -o", current, out.read_bytes())
    new_file = table_dir / "metadata" / f"v{version}.metadata.json"
    if error := run_fieldgate(fieldgate, case.dir, table_dir, ["--write"], new_file, timeout):
        return [f"table directory: {error}"], None
    diffs += hint_diffs("table directory", hint, version)
    diffs += metadata_log_diffs("table directory", current, new_file.read_bytes())
    return (diffs + pyiceberg_diffs("table directory: pyiceberg", str(table_dir), case.expected, case.want),
            duckdb_diffs("table directory: duckdb", con, str(table_dir), case.want))


def hint_diffs(label: str, hint: Path, version: int) -> list[str]:
    """version-hint.text holds the bare number VERSION, as Java writes it."""
    if (text := hint.read_bytes()) != str(version).encode():
        return [f"{label}: version-hint.text is {text!r}, expected {str(version).encode()!r}"]
    return []


def metadata_log_diffs(label: str, previous: Path, new_text: bytes) -> list[str]:
    """The new file's last `metadata-log` entry is the file it replaces, as Java's
    HadoopTableOperations records it: under the table's location, with that file's
    last-updated-ms."""
    old, new = json.loads(previous.read_text()), json.loads(new_text)
    want = {"metadata-file": f"{old['location'].rstrip('/')}/metadata/{previous.name}",
            "timestamp-ms": old["last-updated-ms"]}
    log = new.get("metadata-log") or [None]
    if log[-1] != want:
        return [f"{label}: last metadata-log entry is {log[-1]}, expected {want}"]
    return []


GZIP_MAGIC = b"\x1f\x8b"

# What pyiceberg 0.12 cannot read of what apply writes, for a reason of its own; each is checked to
# still fail so (pyiceberg_limit_diffs). Keep tests/interop/NOTES.md in step.
PYICEBERG_LIMITS = {
    "gzip table directory": "StaticTable follows version-hint.text `N` to metadata/vN.metadata.json only, "
                            "so it cannot find vN.gz.metadata.json: the file is read directly instead",
}


def check_gzip(fieldgate: str, case: Case, con: object, work: Path,
               timeout: float) -> tuple[list[str], list[str] | None]:
    """Gzip metadata, as Java writes it: `apply -o OUT.gz.metadata.json`, and `apply --write` on a
    copy of the table directory whose current version sets `write.metadata.compression-codec` to
    gzip (the next version is `vN+1.gz.metadata.json`). Each read by pyiceberg and by DuckDB:
    (pyiceberg's and the files' diffs, DuckDB's diffs, None when apply wrote nothing to read).

    pyiceberg's StaticTable follows a version hint to `vN.metadata.json` only, so it is given the
    gzip file itself, and its read of the directory must still fail that way (PYICEBERG_LIMITS)."""
    out = work / f"{case.name}.gz.metadata.json"
    if error := run_fieldgate(fieldgate, case.dir, case.base, ["-o", str(out)], out, timeout):
        return [f"gzip -o: {error}"], None
    diffs = [] if out.read_bytes()[:2] == GZIP_MAGIC else [f"gzip -o: {out.name} is not gzip"]
    diffs += pyiceberg_diffs("gzip -o: pyiceberg", str(out), case.expected, case.want)
    duck = duckdb_diffs("gzip -o: duckdb", con, str(out), case.want)
    table_dir = work / "gzip-tables" / case.name
    shutil.copytree(case.table_dir, table_dir, ignore=shutil.ignore_patterns("version-hint.text"))
    version = int((case.table_dir / "metadata" / "version-hint.text").read_text())
    current = table_dir / "metadata" / f"v{version}.metadata.json"
    document = json.loads(current.read_text())
    document.setdefault("properties", {})["write.metadata.compression-codec"] = "gzip"
    current.write_text(json.dumps(document))
    hint = table_dir / "metadata" / "version-hint.text"
    hint.write_text(str(version))
    new_file = table_dir / "metadata" / f"v{version + 1}.gz.metadata.json"
    if error := run_fieldgate(fieldgate, case.dir, table_dir, ["--write"], new_file, timeout):
        return diffs + [f"gzip table directory: {error}"], None
    if (plain := new_file.with_name(f"v{version + 1}.metadata.json")).exists():
        diffs.append(f"gzip table directory: {plain.name} was written beside {new_file.name}")
    if (text := new_file.read_bytes())[:2] != GZIP_MAGIC:
        diffs.append(f"gzip table directory: {new_file.name} is not gzip")
    else:
        diffs += metadata_log_diffs("gzip table directory", current, gzip.decompress(text))
    diffs += hint_diffs("gzip table directory", hint, version + 1)
    diffs += pyiceberg_diffs("gzip table directory: pyiceberg", str(new_file), case.expected, case.want)
    diffs += pyiceberg_limit_diffs(table_dir, version + 1)
    duck += duckdb_diffs("gzip table directory: duckdb", con, str(table_dir), case.want, gzip=True)
    return diffs, duck


def pyiceberg_limit_diffs(table_dir: Path, version: int) -> list[str]:
    """pyiceberg 0.12's StaticTable reads a version hint `N` as `metadata/vN.metadata.json`, never
    `vN.gz.metadata.json` (PYICEBERG_LIMITS): its read of a gzip table directory must still fail
    so, or the limit is gone and the directory is to be read."""
    label = "gzip table directory"
    try:
        StaticTable.from_metadata(str(table_dir))
    except Exception as error:  # noqa: BLE001 - any other failure is not the limit listed
        if isinstance(error, FileNotFoundError) and f"v{version}.metadata.json" in str(error):
            return []
        return [f"{label}: pyiceberg failed otherwise than PYICEBERG_LIMITS says "
                f"({PYICEBERG_LIMITS[label]}): {first_line(error)}"]
    return [f"{label}: pyiceberg now reads it through the version hint: read the directory, and drop "
            "the limit from PYICEBERG_LIMITS, NOTES.md and the README"]




def check_v3(fieldgate: str, case: Case, con: object, work: Path,
             timeout: float) -> tuple[list[str], list[str] | None]:
    """Format v3: the case's v2 base as Iceberg Java's `upgradeFormatVersion(3)` leaves it
    (format-version 3, next-row-id 0; pyiceberg cannot write v3), `apply -o OUT` from it, OUT
    read by pyiceberg and DuckDB and compared with pyiceberg's own (v2) evolution of the table,
    whose schemas, ids and rows are the same in v3. OUT stays v3 and keeps next-row-id."""
    base = work / f"{case.name}.v3-base.metadata.json"
    document = json.loads(case.base.read_text())
    document["format-version"] = 3
    document["next-row-id"] = 0
    base.write_text(json.dumps(document))
    out = work / f"{case.name}.v3.metadata.json"
    if error := run_fieldgate(fieldgate, case.dir, base, ["-o", str(out)], out, timeout):
        return [f"v3: {error}"], None
    written = json.loads(out.read_text())
    diffs = [] if written.get("next-row-id") == 0 else [f"v3: next-row-id is {written.get('next-row-id')!r}, expected 0"]
    diffs += pyiceberg_diffs("v3: pyiceberg", str(out), case.expected, case.want, format_version=3)
    return diffs, duckdb_diffs("v3: duckdb", con, str(out), case.want)


def check_created_directory(fieldgate: str, case: Case, con: object, work: Path,
                            timeout: float) -> tuple[list[str], list[str] | None]:
    """A CREATE TABLE written by `apply --write` where fieldgate.yaml keeps the table, a directory:
    `metadata/v1.metadata.json`, a version hint of `1`, a `location` that is the directory's
    `file://` URI; the directory read through its hint by pyiceberg and DuckDB."""
    scratch = work / "created" / case.name
    scratch.mkdir(parents=True)
    (scratch / "fieldgate.yaml").write_text(f"tables:\n  {case.table}:\n    metadata: tables/created\n")
    table_dir = scratch / "tables" / "created"
    new_file = table_dir / "metadata" / "v1.metadata.json"
    if error := run_fieldgate(fieldgate, case.dir, None, ["--write"], new_file, timeout, cwd=scratch):
        return [f"created directory: {error}"], None
    diffs = hint_diffs("created directory", table_dir / "metadata" / "version-hint.text", 1)
    if (location := json.loads(new_file.read_text())["location"]) != f"file://{table_dir.resolve()}":
        diffs.append(f"created directory: location is {location!r}, expected file://{table_dir.resolve()}")
    return (diffs + pyiceberg_diffs("created directory: pyiceberg", str(table_dir), case.expected, case.want),
            duckdb_diffs("created directory: duckdb", con, str(table_dir), case.want))


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


def check_case(fieldgate: str, case_dir: Path, fixtures: Path, own_files: dict[bytes, Path], con: object,
               work: Path, timeout: float) -> tuple[list[str], str | None]:
    """Every check of one case: (its differences, a note for a listed DuckDB limitation)."""
    try:
        case = Case(case_dir, fixtures, own_files)
    except Exception as error:  # noqa: BLE001 - a broken fixture fails its case, not the run
        return [f"pyiceberg's own result cannot be read: {type(error).__name__}: {error}"], None
    checks = [check_metadata_file]
    if case.base.exists():
        checks += [check_table_directory, check_gzip]
        if case.format_version == 2:
            checks.append(check_v3)
    else:
        checks.append(check_created_directory)
    found = [check(fieldgate, case, con, work, timeout) for check in checks]
    if case.base.exists():
        found.append((check_own_file_logged(fieldgate, case, work, timeout), []))
    readers = [diff for diffs, _ in found for diff in diffs]
    ducks = [duck for _, duck in found]
    note = None
    if all(duck is not None for duck in ducks):
        duck, note = duckdb_verdict(con, case, [diff for diffs in ducks for diff in diffs])
    else:
        # apply wrote nothing for DuckDB to read: that is reported as apply's failure.
        duck = [diff for diffs in ducks if diffs for diff in diffs]
    return [shown for diffs in (readers, duck) for shown in first_few(diffs)], note


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

    # Some runs are in a scratch directory of their own: a relative path would not reach it.
    if Path(args.fieldgate).exists():
        args.fieldgate = str(Path(args.fieldgate).resolve())
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
    own_files = own_metadata_files(args.fixtures)
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="fieldgate-live-") as work:
        for case_dir in case_dirs:
            diffs, note = check_case(args.fieldgate, case_dir, args.fixtures, own_files, con, Path(work),
                                     args.timeout)
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
