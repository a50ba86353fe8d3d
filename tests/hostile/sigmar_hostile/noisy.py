"""A plugin that prints fake answers when it is imported, on standard output and standard error (R6)."""

from __future__ import annotations

import os
import sys

from sigmar_hostile import FLOOD_LINE, HostileBackend

for _ in range(100):
    print(FLOOD_LINE)
    os.write(1, (FLOOD_LINE + "\n").encode())
    print(FLOOD_LINE, file=sys.stderr)
sys.stdout.flush()


class NoisyBackend(HostileBackend):
    family = "hostile-noisy"
    default_sub = "prints"
