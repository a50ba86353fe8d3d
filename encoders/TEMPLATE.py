"""How to add a backend (copy this file, after CPMpy's ``solvers/TEMPLATE.py``).

1. Copy to ``encoders/<family>.py`` and rename the class.
2. Import the solver package *inside* methods, so a missing package costs
   nothing and ``available()`` can say why it is missing.
3. Keep the OR-Tools samples' section order inside ``solve``: data,
   variables, constraints, solve, decode.
4. Return ``unknown`` at the time limit, ``unsolvable`` only with a
   ``Reason``; never set ``verified`` (the runner replays every solution).
5. Add ``(family, module, class)`` to ``registry.FAMILIES``.
6. The cross-backend tests in ``tests/test_backends_agree.py`` pick it up.

A backend that lives in another package needs none of this: it declares an
entry point instead (docs/plugins.md, docs/formats.md#plugins).
"""

from __future__ import annotations

import time

from sigmar.encoders.backend import Backend
from sigmar.models.board import Board
from sigmar.models.result import Result, Status


class TemplateBackend(Backend):
    family = "template"
    default_sub = None
    description = "an example that knows nothing"

    @classmethod
    def available(cls) -> tuple[bool, str]:
        return False, "a template, not a solver"

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        start = time.perf_counter()
        # data / variables / constraints / solve / decode
        return Result(Status.UNKNOWN, self.name, time.perf_counter() - start)
