"""The stable plugin API of sigmar (docs/formats.md#plugins): what a backend in another package imports.

    from sigmar import Backend, Board, Move, Result, Status, Reason, Certificate, CertificateKind, Position

These names live here, in the top-level package, and not only where the
code defines them (``sigmar.encoders``, ``sigmar.models``), so that a plugin
never depends on the suite's internal layout: modules may move, these
imports keep working.  Everything else is internal.  ``Position`` is the rule engine itself (legal moves, free cells,
playing a move, whether the board is clear), so that a plugin reuses the rules rather than
writing them again.

The package stays cheap to import (no solver package, no numpy): a plugin
imports it when ``sigmar backends`` lists it.
"""

from __future__ import annotations

from pkgutil import extend_path

# A checkout's ``sigmar/`` folder (on sys.path when Python or pytest runs from the repository
# root) must not hide the installed subpackages, which a regular install puts in another ``sigmar/``.
__path__ = extend_path(__path__, __name__)

from sigmar.encoders.backend import Backend
from sigmar.models.board import Board
from sigmar.models.result import Certificate, CertificateKind, Move, Reason, Result, Status
from sigmar.models.rules import Position

__all__ = ["Backend", "Board", "Certificate", "CertificateKind", "Move", "Position", "Reason", "Result", "Status"]
