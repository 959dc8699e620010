"""The instruction-count guard: the four targets at the quick scale, each fieldgate command counted
under callgrind and compared with the figures committed in bench/instructions.json. A count more
than 10% above its committed figure fails; one more than 10% below asks for the figures to be
updated (`--update`, committed with the change that earned them), so the guard keeps up with
the work.

    guard.py --bin target/debug/fieldgate --work DIR [--update]

The figures are for the binary CI measures (the debug build, on the toolchain of Cargo.lock's
day): counts of another build or toolchain are not comparable, and `--update` is how they move.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import callgrind
import targets

HERE = Path(__file__).resolve().parent
FIGURES = HERE / "instructions.json"
TOLERANCE = 0.10


def counts(binary: str, work: Path) -> dict[str, int]:
    found = {}
    for case in targets.cases(binary, work, sys.executable, "quick"):
        counted = targets.count(case)
        found[case.name] = counted["instructions"]
        if "short_instructions" in counted:
            found[f"{case.name}-short"] = counted["short_instructions"]
        print(f"  {case.name}: {counted['instructions']:,} instructions", file=sys.stderr)
    return found


def compare(found: dict[str, int], committed: dict[str, int]) -> list[str]:
    """Lines of the comparison; a line starting with FAIL fails the guard."""
    lines = []
    for name in sorted(found.keys() | committed.keys()):
        if name not in committed or name not in found:
            lines.append(f"FAIL {name}: measured {found.get(name)}, committed {committed.get(name)} (update the figures)")
            continue
        change = found[name] / committed[name] - 1
        status = "ok"
        if change > TOLERANCE:
            status = "FAIL"
        elif change < -TOLERANCE:
            status = "ok, faster: commit the new figures (--update) to keep the gain;"
        lines.append(f"{status} {name}: {found[name]:,} instructions, committed {committed[name]:,} ({change:+.1%})")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the fieldgate binary the figures are for")
    parser.add_argument("--work", required=True, type=Path, help="where the inputs are generated (emptied first)")
    parser.add_argument("--update", action="store_true", help="write the measured counts as the committed figures")
    args = parser.parse_args()
    if not callgrind.available():
        raise SystemExit("valgrind is not installed (the guard counts instructions with callgrind)")
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    found = counts(str(Path(args.bin).resolve()), args.work.resolve())
    if args.update:
        FIGURES.write_text(json.dumps({"scale": "quick", "instructions": found}, indent=2) + "\n")
        print(f"wrote {FIGURES}")
        return
    committed = json.loads(FIGURES.read_text())["instructions"]
    lines = compare(found, committed)
    print("\n".join(lines))
    if any(line.startswith("FAIL") for line in lines):
        raise SystemExit("instruction counts moved by more than 10% from bench/instructions.json")


if __name__ == "__main__":
    main()
