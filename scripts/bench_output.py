"""Where a benchmark script's numbers go: printed, and written as OUT.md and OUT.json.

Shared by the scripts that print one markdown table and keep their raw numbers
beside it (bench_race, bench_race_hard, bench_race_tail, bench_rup_engines,
bench_provers).
A script run as ``python scripts/NAME.py`` has scripts/ on its import path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def publish(out: str | Path, text: str, record: dict[str, Any]) -> Path:
    """Print ``text`` after a blank line; write it to OUT.md and ``record`` to OUT.json; return OUT."""
    print()
    print(text)
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.with_suffix(".md").write_text(text + "\n")
    path.with_suffix(".json").write_text(json.dumps(record, indent=1))
    return path
