"""DuckDB's iceberg extension as a second reader of the metadata `fieldgate apply` writes.

The extension comes from PyPI (`duckdb-extension-iceberg`, and `duckdb-extension-avro`, which the
iceberg extension loads when it starts, to read manifests): both `.duckdb_extension` files are loaded
from site-packages, and the connection is set so that DuckDB can neither download nor autoload an
extension, so what is read is exactly the pinned build.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import ModuleType

import duckdb
import duckdb_extension_avro
import duckdb_extension_iceberg
import pyarrow as pa

# Cases DuckDB cannot read as pyiceberg does for a reason outside fieldgate, with the reason. A case
# listed here must still fail under DuckDB, and DuckDB must fail on pyiceberg's own metadata of the
# same case too (so the limitation is DuckDB's); a listed case that passes, or an unlisted case that
# fails, fails the check. Keep tests/interop/NOTES.md in step.
DUCKDB_LIMITS: dict[str, str] = {}


def extension_file(package: ModuleType, name: str) -> Path:
    """The `.duckdb_extension` file a PyPI extension package ships for the installed duckdb."""
    root = Path(package.__file__).parent / "extensions" / f"v{duckdb.__version__}"
    path = root / f"{name}.duckdb_extension"
    if not path.is_file():
        found = sorted(str(p) for p in root.parent.glob(f"*/{name}.duckdb_extension"))
        raise RuntimeError(f"no {path} for duckdb {duckdb.__version__} (the package has {found or 'none'}): "
                           f"pin {package.__name__} to duckdb's version")
    return path


def connect() -> duckdb.DuckDBPyConnection:
    """An in-memory connection with the pinned avro and iceberg extensions loaded, and nothing else."""
    config = {
        "autoinstall_known_extensions": "false",
        "autoload_known_extensions": "false",
        "allow_community_extensions": "false",
        # An empty extension directory: nothing installed under ~/.duckdb can be picked up instead.
        "extension_directory": tempfile.mkdtemp(prefix="fieldgate-duckdb-ext-"),
    }
    con = duckdb.connect(config=config)
    con.load_extension(str(extension_file(duckdb_extension_avro, "avro")))
    con.load_extension(str(extension_file(duckdb_extension_iceberg, "iceberg")))
    # TIMESTAMPTZ columns come out in the session's time zone; pyiceberg's come out in UTC.
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET lock_configuration = true")
    return con


def scan(con: duckdb.DuckDBPyConnection, location: str, gzip: bool = False) -> pa.Table:
    """Every row of the table at LOCATION (a metadata file, or a table directory read through its
    `metadata/version-hint.text`), as Arrow. GZIP: the directory's current version is
    `vN.gz.metadata.json`, where iceberg_scan looks only when told the codec (it reads a
    `.gz.metadata.json` file it is given without being told)."""
    if gzip:
        result = con.execute("SELECT * FROM iceberg_scan(?, metadata_compression_codec => 'gzip')", [location])
    else:
        result = con.execute("SELECT * FROM iceberg_scan(?)", [location])
    return result.to_arrow_table()


def type_shape(arrow_type: pa.DataType) -> str:
    """An Arrow type with what differs between the two readers' Arrow output and not between what
    they read taken out: string vs large_string, list vs large_list, the list item's field name."""
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "string"
    if pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type):
        return "binary"
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return f"list<{type_shape(arrow_type.value_type)}>"
    if pa.types.is_map(arrow_type):
        return f"map<{type_shape(arrow_type.key_type)}, {type_shape(arrow_type.item_type)}>"
    if pa.types.is_struct(arrow_type):
        fields = ", ".join(f"{field.name}: {type_shape(field.type)}" for field in arrow_type)
        return f"struct<{fields}>"
    return str(arrow_type)


def column_shapes(schema: pa.Schema) -> list[str]:
    """Each top-level column as `name: type`, nested names and types included (not nullability:
    DuckDB marks every column it returns nullable)."""
    return [f"{field.name}: {type_shape(field.type)}" for field in schema]
