"""Backends that only use memory, for scripts/bench/bench_own_cost.py: does bench report what a run held?

``hog:idle`` gives up at once (a worker's own peak); ``hog:worker`` holds ``SIGMAR_FAKE_MB``
MB (default 200) in the worker for 0.2 s; ``hog:child`` holds it in a child process.
Each then gives up (status unknown).  Run only by that script, which adds the family.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from sigmar.encoders.backend import Backend
from sigmar.models.board import Board
from sigmar.models.result import Result, Status

FAMILY = ("hog", "memory_hogs", "HogBackend")


class HogBackend(Backend):
    family = "hog"
    default_sub = "idle"
    description = "holds memory, then gives up (measures bench's memory meter)"

    @classmethod
    def subs(cls) -> tuple[str, ...]:
        return ("idle", "worker", "child")

    @classmethod
    def version(cls) -> str:
        return "hog-1"

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        size = int(float(os.environ.get("SIGMAR_FAKE_MB", "200")) * 1024 * 1024)
        if self.sub == "worker":
            held = b"\x01" * size  # written, so resident
            time.sleep(0.2)
            del held
        elif self.sub == "child":
            subprocess.run([sys.executable, "-c", f"import time; x = b'1' * {size}; time.sleep(0.2)"], check=False)
        return Result(Status.UNKNOWN, self.name, message="gave up after holding memory")
