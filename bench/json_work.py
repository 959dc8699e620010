"""orjson's side of the parse target, in its own process so its peak RSS is its own: reads the
file and parses it with `orjson.loads`, timed inside the process after the import.

    json_work.py METADATA
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import orjson


def main() -> None:
    started = time.perf_counter()
    document = orjson.loads(Path(sys.argv[1]).read_bytes())
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "schemas": len(document["schemas"])}))


if __name__ == "__main__":
    main()
