"""The ``minizinc`` family: a readable MiniZinc model on Gecode, Chuffed or another MiniZinc solver.

One module per job: the backend (:mod:`.backend`), the board as the models' data (:mod:`.data`), the
solvers found here and the plans over them (:mod:`.solvers`), one run of a model (:mod:`.runs`), the
answer as moves (:mod:`.decode`), the guarded driver (:mod:`.driver`); the models are the ``*.mzn``
files beside them.  The names below stay importable from the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sigmar.encoders.exports import lazy_exports

if TYPE_CHECKING:
    from sigmar.encoders.minizinc.backend import MinizincBackend, MinizincOptions
    from sigmar.encoders.minizinc.data import IMPLIED, MODELS, STRATEGY_NAMES, data_text, hitting_sets
    from sigmar.encoders.minizinc.solvers import GECODE_CONFIG, default_plan, installed_solvers

_HOMES = {
    **dict.fromkeys(["MinizincBackend", "MinizincOptions"], "backend"),
    **dict.fromkeys(["IMPLIED", "MODELS", "STRATEGY_NAMES", "data_text", "hitting_sets"], "data"),
    **dict.fromkeys(["GECODE_CONFIG", "default_plan", "installed_solvers"], "solvers"),
}
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
__getattr__ = lazy_exports(__name__, _HOMES)
