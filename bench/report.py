"""The benchmark's results as Markdown: one table per measurement, fieldgate beside pyiceberg."""

from __future__ import annotations


def ratio(theirs: float | None, ours: float) -> str:
    return f"{theirs / ours:.0f}x" if theirs else "—"


def rate(amount: float, seconds: float) -> str:
    return f"{amount / seconds:,.0f}" if seconds > 0 else "—"


def seconds(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def markdown(results: dict) -> str:
    before, after = results["before"], results["after"]
    out = [
        f"Run: {before['date']}, fieldgate {results['commit']} (`{results['binary']}`), {before['machine']}, "
        f"scale `{results['scale']}`, median of {results['repeat']} run(s); "
        f"load average {' '.join(before['load'])} before, {' '.join(after['load'])} after.",
        "Times are wall-clock medians; CPU is user + system time (GNU time, 10 ms resolution), which the machine's "
        "other load distorts least. pyiceberg and pyarrow are timed inside their process, after imports.",
        "",
    ]
    if "targets" in results:
        out.append(targets_markdown(results["targets"]))
    if "migrations" not in results:
        if "lsp" in results:
            out.append(lsp_markdown(results["lsp"]))
        return "\n".join(out) + "\n"
    out += [
        "**lint / apply** (a migration of N statements, each one schema update; pyiceberg: load the table from a "
        "SqlCatalog, one `update_schema()` commit per statement, timed in-process, one run)",
        "",
        "| table | statements | metadata in → out | lint | apply (CPU) | statements/s (apply) | metadata MB/s (apply, in+out) | peak RSS (apply) | pyiceberg | pyiceberg RSS | pyiceberg / fieldgate (apply) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in results["migrations"]:
        output = f"{row['metadata_out_mb']:.1f} MB" if row["metadata_out_mb"] is not None else "refused"
        pyiceberg = (
            f"{seconds(row['pyiceberg_s'])} | {row['pyiceberg_rss_mb']:.0f} MB | {ratio(row['pyiceberg_s'], row['apply_s'])}"
            if "pyiceberg_s" in row
            else "— | — | —"
        )
        moved = row["metadata_in_mb"] + (row["metadata_out_mb"] or 0)
        out.append(
            f"| {row['columns']} columns | {row['statements']:,} {row['kind']} | {row['metadata_in_mb']:.1f} MB → {output} "
            f"| {seconds(row['lint_s'])} | {seconds(row['apply_s'])} ({row['apply_cpu_s']:.2f} s) | {rate(row['statements'], row['apply_s'])} "
            f"| {rate(moved, row['apply_s'])} | {row['apply_rss_mb']:.0f} MB | {pyiceberg} |"
        )
    refused = [row for row in results["migrations"] if row["refused"]]
    for row in refused:
        out += ["", f"Refused ({row['statements']:,} {row['kind']} statements on {row['columns']} columns, exit 2): {row['refused']}"]
    parse = results["parse"]
    out += [
        "",
        "**metadata parsing** (fieldgate: a whole `lint` of one statement; pyiceberg: `StaticTable.from_metadata`, in-process)",
        "",
        "| metadata | fieldgate (CPU) | MB/s | peak RSS | pyiceberg | MB/s | peak RSS | pyiceberg / fieldgate |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        f"| {parse['metadata_mb']:.1f} MB | {seconds(parse['fieldgate_s'])} ({parse['fieldgate_cpu_s']:.2f} s) | {rate(parse['metadata_mb'], parse['fieldgate_s'])} "
        f"| {parse['fieldgate_rss_mb']:.0f} MB | {seconds(parse['pyiceberg_s'])} | {rate(parse['metadata_mb'], parse['pyiceberg_s'])} "
        f"| {parse['pyiceberg_rss_mb']:.0f} MB | {ratio(parse['pyiceberg_s'], parse['fieldgate_s'])} |",
    ]
    out += [
        "",
        "**check** (a git repository; the pull request adds one migration to one table and the metadata `apply --write` wrote)",
        "",
        "| tables in the repository | touched table | wall (CPU) | peak RSS |",
        "| ---: | ---: | ---: | ---: |",
    ]
    for check in results["check"]:
        out.append(
            f"| {check['tables']:,} | 1: {check['touched_columns']} columns, metadata {check['touched_metadata_mb']:.2f} MB "
            f"| {seconds(check['seconds'])} ({check['cpu_s']:.2f} s) | {check['rss_mb']:.0f} MB |"
        )
    out += [
        "",
        "**verify** (8 of 12 columns projected; fieldgate reads every row; pyarrow: `read_table(columns=...)`; pyiceberg: `scan().to_arrow()`)",
        "",
        "| file | projected chunks | read by fieldgate | fieldgate (CPU) | projected MB/s | peak RSS | pyarrow | pyarrow RSS | pyiceberg | pyiceberg RSS | pyarrow / fieldgate |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in results["verify"]:
        out.append(
            f"| {row['file_mb']:.1f} MB | {row['projected_mb']:.1f} MB | {row['read_mb']:.1f} MB ({row['read_mb'] / row['file_mb']:.0%}) "
            f"| {seconds(row['fieldgate_s'])} ({row['fieldgate_cpu_s']:.2f} s) | {rate(row['projected_mb'], row['fieldgate_s'])} | {row['fieldgate_rss_mb']:.0f} MB "
            f"| {seconds(row['pyarrow_s'])} | {row['pyarrow_rss_mb']:.0f} MB | {seconds(row['pyiceberg_s'])} | {row['pyiceberg_rss_mb']:.0f} MB "
            f"| {row['pyarrow_s'] / row['fieldgate_s']:.2f} |"
        )
    out += ["", lsp_markdown(results["lsp"])]
    return "\n".join(out) + "\n"


LSP_TARGET_MS = 150


def lsp_markdown(lsp: dict) -> str:
    """The language server's latency: each edit's time to its diagnostics, and the target."""
    met = lsp["p95_ms"] <= LSP_TARGET_MS
    return "\n".join(
        [
            f"**lsp** (`fieldgate lsp` over stdio: `didChange` written to `publishDiagnostics` read, debounce included, "
            f"{lsp['edits']} edits; a burst of 10 keystrokes 10 ms apart timed from the last; a hover while a 50 MB buffer is judged; "
            f"target: p95 within {LSP_TARGET_MS} ms)",
            "",
            "| table | median | p90 | p95 | max | target | burst (published once, last version) | hover during 50 MB |",
            "| ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
            f"| {lsp['columns']} columns, {lsp['schemas']} schemas ({lsp['metadata_mb']:.1f} MB) | {lsp['median_ms']:.0f} ms "
            f"| {lsp['p90_ms']:.0f} ms | {lsp['p95_ms']:.0f} ms | {lsp['max_ms']:.0f} ms | {'met' if met else 'missed'} "
            f"| {lsp['burst_ms']:.0f} ms ({'yes' if lsp['burst_published_last_only'] else 'NO'}) | {lsp['hover_during_50mb_ms']:.0f} ms |",
            "",
        ]
    )


TARGETS = {
    "apply": "`apply` of one ADD COLUMN, {columns} columns, {schemas} schemas ({mb:.2f} MB); pyiceberg: load + `update_schema()` + commit, in-process",
    "parse": "one-statement `lint` of {mb:.1f} MB of metadata ({schemas} schemas up to {columns} columns, {snapshots:,} Spark snapshots); `orjson.loads` of the file's bytes, in-process",
    "migration": "`lint` of {statements:,} comment changes on a {columns}-column table",
    "check": "`check` of a pull request touching 1 of {tables:,} tables; `git status --porcelain` in the same repository",
}


def verdict(row: dict) -> tuple[str, str, bool]:
    """(the target, what was measured against it, whether it is met)."""
    name = row["name"]
    if name == "apply":
        times = row["theirs_s"] / row["seconds"]
        return ">= 200x pyiceberg", f"{times:.0f}x", times >= 200
    if name == "parse":
        times = row["theirs_s"] / row["seconds"]
        memory = row["rss_mb"] / (row["units"] / 1_000_000)
        return ">= 1.0x orjson, peak RSS <= 2x the file", f"{times:.2f}x, peak RSS {memory:.1f}x the file", times >= 1.0 and memory <= 2
    if name == "migration":
        growth = linearity(row)
        shown = f"{seconds(row['seconds'])}, per statement {growth:.2f}x that of {row['short_units']:,}" if growth else seconds(row["seconds"])
        return "< 1 s, linear", shown, row["seconds"] < 1 and (growth is None or growth <= 1.25)
    times = row["seconds"] / row["theirs_s"]
    return "<= 0.3x git status", f"{times:.2f}x", times <= 0.3


def linearity(row: dict) -> float | None:
    """Instructions per statement of the long run over those of the short one (1.0: linear)."""
    if "short_instructions" not in row:
        return None
    return (row["instructions"] / row["units"]) / (row["short_instructions"] / row["short_units"])


def instructions(row: dict) -> str:
    if "instructions" not in row:
        return "—"
    per = row["instructions"] / row["units"]
    return f"{row['instructions'] / 1e6:,.0f} M ({per:,.0f} per {row['unit']})"


def targets_markdown(rows: list[dict]) -> str:
    out = [
        "**targets** (fieldgate's whole process under GNU time; instructions: callgrind, fieldgate's whole process)",
        "",
        "| work | fieldgate wall (CPU) | fieldgate instructions | fieldgate peak RSS | yardstick | yardstick peak RSS | target | measured | met |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |",
    ]
    for row in rows:
        work = TARGETS[row["name"]].format(mb=row["units"] / 1_000_000, **row)
        target, measured, met = verdict(row)
        theirs = f"{seconds(row['theirs_s'])} | {row['theirs_rss_mb']:.0f} MB" if "theirs_s" in row else "— | —"
        out.append(
            f"| {work} | {seconds(row['seconds'])} ({row['cpu_s']:.2f} s) | {instructions(row)} | {row['rss_mb']:.0f} MB "
            f"| {theirs} | {target} | {measured} | {'yes' if met else 'no'} |"
        )
    return "\n".join(out) + "\n"
