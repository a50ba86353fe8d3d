"""The ``cpsat`` family: OR-Tools CP-SAT on the order formulation or the timestep formulation.

The backend is :mod:`.backend`.  The names below stay importable from the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sigmar.encoders.exports import lazy_exports

if TYPE_CHECKING:
    from sigmar.encoders.cpsat.backend import FORMULATIONS, CpsatBackend, CpsatOptions, build

__all__ = ["CpsatBackend", "CpsatOptions", "FORMULATIONS", "build"]
# Each name is imported from its module on first use (encoders/exports.py says why).
__getattr__ = lazy_exports(__name__, dict.fromkeys(__all__, "backend"))
