"""The ``cnf`` family: hand-written CNF encodings solved by python-sat or an external solver.

The backend is :mod:`.backend`, with an external DIMACS solver in :mod:`.external`; the encodings are
:mod:`.default` (ours, with :mod:`.leave_steps` and :mod:`.names`) and :mod:`.thesis`; the formula type :mod:`.formula`,
the formula of each variant :mod:`.variants`; projected model counting :mod:`.counting`.
The names below stay importable from the package (``from sigmar.encoders.cnf import CnfBackend``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sigmar.encoders.exports import lazy_exports

if TYPE_CHECKING:
    from sigmar.encoders.cnf.backend import DEFAULT_SOLVER, PROOF_SOLVERS, CnfBackend, CnfOptions, proof_text, split_sub
    from sigmar.encoders.cnf.external import EXTERNAL, SAT_CMD_ENV, external_argv
    from sigmar.encoders.cnf.variants import VARIANTS, build_formula

__all__ = [
    "CnfBackend",
    "CnfOptions",
    "DEFAULT_SOLVER",
    "EXTERNAL",
    "PROOF_SOLVERS",
    "SAT_CMD_ENV",
    "VARIANTS",
    "build_formula",
    "external_argv",
    "proof_text",
    "split_sub",
]
# Each name is imported from its module on first use (encoders/exports.py says why).
_HOMES = {
    **dict.fromkeys(
        ["CnfBackend", "CnfOptions", "DEFAULT_SOLVER", "PROOF_SOLVERS", "proof_text", "split_sub"], "backend"
    ),
    **dict.fromkeys(["EXTERNAL", "SAT_CMD_ENV", "external_argv"], "external"),
    **dict.fromkeys(["VARIANTS", "build_formula"], "variants"),
}
__getattr__ = lazy_exports(__name__, _HOMES)
