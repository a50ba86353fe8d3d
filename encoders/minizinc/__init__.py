"""The ``minizinc`` family: a readable MiniZinc model on Gecode, Chuffed or another MiniZinc solver.

The backend is :mod:`.backend`; the models are the ``*.mzn`` files beside it, its guarded driver
:mod:`.driver`.  The names below stay importable from the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sigmar.encoders.exports import lazy_exports

if TYPE_CHECKING:
    from sigmar.encoders.minizinc.backend import (
        GECODE_CONFIG,
        IMPLIED,
        MODELS,
        STRATEGY_NAMES,
        MinizincBackend,
        MinizincOptions,
        data_text,
        default_plan,
        hitting_sets,
        installed_solvers,
    )

__all__ = [
    "GECODE_CONFIG",
    "IMPLIED",
    "MODELS",
    "MinizincBackend",
    "MinizincOptions",
    "STRATEGY_NAMES",
    "data_text",
    "default_plan",
    "hitting_sets",
    "installed_solvers",
]
# Each name is imported from its module on first use (encoders/exports.py says why).
__getattr__ = lazy_exports(__name__, dict.fromkeys(__all__, "backend"))
