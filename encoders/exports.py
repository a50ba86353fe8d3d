"""Names a backend package offers, imported from their module on first use.

Why: ``from sigmar.encoders.cnf import CnfBackend`` is a documented import path, but the
backend class lives in its own module (``cnf/backend.py``), as in every family; a package
``__init__`` that imported it would make every reader of a sibling module (a checker that
wants only the formula, a model's data) pay for the backend and its solver package too.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from typing import Any


def lazy_exports(package: str, homes: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that finds each name of ``homes`` (name -> module) there."""

    def attribute(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = f"{package}.{home}"
        __import__(module)  # importlib.import_module without importlib (1.6 M instructions a one-board solve)
        return getattr(sys.modules[module], name)

    return attribute
