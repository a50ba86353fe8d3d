"""A second certificate checker, written from docs/formats.md alone.

It exists to prove the page complete: someone who reads only
docs/formats.md can check sigmar's certificates and reach the same verdict
as ``sigmar check``.  So nothing here imports from sigmar's ``models``,
``encoders`` or ``runners``; the one thing the page defines by reference
(a ``drup`` or ``cubes`` certificate's formula is what ``sigmar encode`` writes)
is asked of the ``sigmar`` command.  Pure Python, written for clarity, not speed.

``check(board_file, certificate, board=None)`` returns the exit status that
``sigmar check`` would give: 0 valid, 3 invalid, 2 malformed.
"""

from tests.formats_checker.check import Malformed, check

__all__ = ["Malformed", "check"]
