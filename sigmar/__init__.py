"""The stable plugin API of sigmar (docs/formats.md#plugins): what a backend in another package imports.

    from sigmar import Backend, Board, Move, Result, Status, Reason, Certificate, CertificateKind, Position

These names live here, in the top-level package, and not only where the
code defines them (``sigmar.encoders``, ``sigmar.models``), so that a plugin
never depends on the suite's internal layout: modules may move, these
imports keep working.  Everything else is internal.  ``Position`` is the rule engine itself (legal moves, free cells,
playing a move, whether the board is clear), so that a plugin reuses the rules rather than
writing them again.

The package stays cheap to import (no solver package, no numpy; each name imported from its
home on first use): a plugin imports it when ``sigmar backends`` lists it, and every command imports
it, being inside it.
"""

from __future__ import annotations

import os as _os

# A checkout's ``sigmar/`` folder (on sys.path when Python or pytest runs from the repository
# root) must not hide the installed subpackages, which a regular install puts in another ``sigmar/``.
# Where this folder holds them (the README's install, a wheel) there is nothing to add, and pkgutil
# (40 M instructions, a third of the public solver's whole one-board solve) is not imported.
if not _os.path.isdir(_os.path.join(_os.path.dirname(__file__), "models")):
    from pkgutil import extend_path

    __path__ = extend_path(__path__, __name__)
del _os

TYPE_CHECKING = False  # not typing's (34 M instructions): see runners/cli/__init__.py
if TYPE_CHECKING:
    from sigmar.encoders.backend import Backend
    from sigmar.models.board import Board
    from sigmar.models.result import Certificate, CertificateKind, Move, Reason, Result, Status
    from sigmar.models.rules import Position

__all__ = ["Backend", "Board", "Certificate", "CertificateKind", "Move", "Position", "Reason", "Result", "Status"]
_HOMES = {
    "Backend": "sigmar.encoders.backend",
    "Board": "sigmar.models.board",
    **dict.fromkeys(("Certificate", "CertificateKind", "Move", "Reason", "Result", "Status"), "sigmar.models.result"),
    "Position": "sigmar.models.rules",
}


def __getattr__(name: str) -> object:
    """Each name imported from its home on first use: every command imports this package (``sigmar.runners``
    is inside it), and ``sigmar --help`` or a one-board solve has no use for the plugin API's base class."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'sigmar' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
