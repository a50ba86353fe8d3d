"""The ``cnf`` family: hand-written CNF encodings solved by python-sat or an external solver.

The backend is :mod:`.backend`; the encodings are :mod:`.default` (ours) and :mod:`.thesis`, the formula
type :mod:`.formula`, projected model counting :mod:`.counting`.  The names below stay importable from
the package (``from sigmar.encoders.cnf import CnfBackend``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sigmar.encoders.exports import lazy_exports

if TYPE_CHECKING:
    from sigmar.encoders.cnf.backend import (
        DEFAULT_SOLVER,
        EXTERNAL,
        PROOF_SOLVERS,
        SAT_CMD_ENV,
        VARIANTS,
        CnfBackend,
        CnfOptions,
        build_formula,
        external_argv,
        proof_text,
        split_sub,
    )

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
__getattr__ = lazy_exports(__name__, dict.fromkeys(__all__, "backend"))
