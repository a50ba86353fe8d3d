"""What one run cost, as a plain record: measured in the run's child (:mod:`sigmar.encoders.processes.usage`),
counted by the statistics."""

from __future__ import annotations

from sigmar.encoders.processes.usage import Usage

NO_USAGE = Usage()

__all__ = ["NO_USAGE", "Usage"]
