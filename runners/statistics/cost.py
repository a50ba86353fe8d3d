"""What one run cost, as a plain record: measured by :mod:`sigmar.runners.usage`, counted by the statistics."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Usage:
    """What one run cost: CPU seconds (worker and children) and peak memory in MB (RSS, summed)."""

    cpu_seconds: float | None = None
    memory_mb: float | None = None
    over_memory: bool = False  # the run went over ``--mem-limit``


NO_USAGE = Usage()
