"""How soon `fieldgate lsp` publishes diagnostics after a change, as an editor sees it.

A repository holds one table of `columns` columns and `schemas` schemas (written by pyiceberg,
history scaled by `lake.scale_history`) and an uncommitted migration. The server is driven over
its stdio as an editor drives it: the migration is opened, then edited; each measurement is the
wall time from writing a `didChange` to reading the `publishDiagnostics` for that version, so it
includes the server's debounce. A burst of keystrokes (one change every 10 ms) must publish once,
for the last version, and the time counts from the last keystroke. While a 50 MB buffer is being
judged, a hover on the migration must still be answered at once.
"""

from __future__ import annotations

import json
import math
import queue
import statistics
import subprocess
import threading
import time
from pathlib import Path

import lake

TABLE = "bench.lsp"


class Server:
    """`fieldgate lsp` as a child process; messages read on a thread into a queue."""

    def __init__(self, binary: str, cache: Path):
        env = {"PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": str(cache)}
        self.process = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.messages: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.process.stdout
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                return
            self.messages.put(json.loads(out.read(length)))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def request(self, method: str, params) -> dict:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == self.next_id and "method" not in m)

    def notify(self, method: str, params) -> None:
        self.send({"method": method, "params": params})

    def wait(self, wanted, timeout: float = 120.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            message = self.messages.get(timeout=max(deadline - time.monotonic(), 0.001))
            if wanted(message):
                return message

    def published(self, uri: str, version: int, timeout: float = 120.0) -> dict:
        return self.wait(
            lambda m: m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri
            and m["params"].get("version") == version,
            timeout,
        )

    def close(self) -> None:
        self.request("shutdown", None)
        self.notify("exit", None)
        self.process.wait(timeout=30)


def percentile(values: list[float], p: int) -> float:
    """The nearest-rank percentile: the smallest value that p% of the values do not exceed."""
    ranked = sorted(values)
    return ranked[max(math.ceil(len(ranked) * p / 100) - 1, 0)]


def repository(work: Path, columns: int, schemas: int) -> tuple[Path, Path]:
    """A git repository with fieldgate.yaml and the table: the migration's path, the metadata's."""
    repo = work / "lsp-repo"
    metadata = lake.scale_history(lake.template_table(work / "pyiceberg", "lsp", columns), schemas)
    written = lake.write_hadoop_table(repo / "warehouse" / "lsp", metadata)
    (repo / "fieldgate.yaml").write_text(f"tables:\n  {TABLE}:\n    metadata: warehouse/lsp\nproposals:\n  - migrations/*.sql\n")
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-qm", "lake"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    (repo / "migrations").mkdir()
    return repo / "migrations" / "0001_change.sql", written


def statement(i: int) -> str:
    return f"ALTER TABLE {TABLE} ALTER COLUMN {lake.column_name(i % 50)} COMMENT 'revision {i}';\n"


def measure(binary: str, work: Path, columns: int, schemas: int, edits: int) -> dict:
    migration, metadata = repository(work, columns, schemas)
    metadata_mb = metadata.stat().st_size / 1_000_000
    uri = migration.resolve().as_uri()
    server = Server(binary, work / "lsp-cache")
    server.request("initialize", {"processId": None, "capabilities": {}})
    server.notify("initialized", {})
    text = statement(0)
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "sql", "version": 1, "text": text}})
    first = server.published(uri, 1)
    if not any(d.get("code") == "reader-cache-refresh" for d in first["params"]["diagnostics"]):
        raise SystemExit(f"the migration was not judged: {first}")

    single = []
    for version in range(2, 2 + edits):
        line = text.count("\n")
        change = {"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}, "text": statement(version)}
        text += statement(version)
        started = time.perf_counter()
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})
        server.published(uri, version)
        single.append((time.perf_counter() - started) * 1000)

    # Typing: ten keystrokes 10 ms apart; only the last version may be published.
    version = 2 + edits
    for key in range(10):
        line = text.count("\n")
        server.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version + key}, "contentChanges": [{"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}, "text": "-"}]},
        )
        text += "-"
        if key < 9:
            time.sleep(0.01)
    last_key = time.perf_counter()
    published = server.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)
    burst_ms = (time.perf_counter() - last_key) * 1000
    burst_version = published["params"].get("version")

    # A 50 MB buffer opened beside it: a hover is answered while it is judged.
    huge_uri = (migration.parent / "0002_huge.sql").resolve().as_uri()
    huge = statement(1) * (50_000_000 // len(statement(1)))
    server.notify("textDocument/didOpen", {"textDocument": {"uri": huge_uri, "languageId": "sql", "version": 1, "text": huge}})
    time.sleep(0.2)
    started = time.perf_counter()
    server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 3}})
    hover_ms = (time.perf_counter() - started) * 1000
    server.close()
    return {
        "columns": columns,
        "schemas": schemas,
        "edits": edits,
        "metadata_mb": metadata_mb,
        "median_ms": statistics.median(single),
        "p90_ms": percentile(single, 90),
        "p95_ms": percentile(single, 95),
        "max_ms": max(single),
        "burst_ms": burst_ms,
        "burst_published_last_only": burst_version == version + 9,
        "hover_during_50mb_ms": hover_ms,
    }
