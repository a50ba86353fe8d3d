"""What every certificate check answers, and the error for a certificate that cannot be read.

A certificate that does not parse, or that is for another board, raises
:class:`CertificateError` (the caller's exit 2); one that parses but proves
nothing gives ``Verdict(False, reason)`` naming the first state or tile that
fails (exit 3).
"""

from __future__ import annotations

from dataclasses import dataclass

from sigmar.models.errors import SigmarError


class CertificateError(SigmarError, ValueError):
    """A certificate that cannot be read, or that belongs to another board (malformed, not wrong)."""


# What an accepted certificate shows (``Verdict.proves``): the board cannot be cleared, or (a play-bound
# file of ``explain``) no play clears more than the file's ``cleared`` tiles.
UNSOLVABLE = "unsolvable"
PLAY_BOUND = "play-bound"


@dataclass(frozen=True)
class Verdict:
    """Whether a certificate proves what it claims; ``reason`` says why not, or what it showed.

    ``proves`` is stamped by the one dispatcher (:mod:`.certificates`) on an accepted
    certificate: ``UNSOLVABLE`` or ``PLAY_BOUND``; empty otherwise.  Only a verdict that
    ``proves`` ``UNSOLVABLE`` may make an "unsolvable" checked (:attr:`unsolvable`).
    """

    valid: bool
    reason: str
    proves: str = ""

    @property
    def unsolvable(self) -> bool:
        """Whether this verdict shows the board cannot be cleared."""
        return self.valid and self.proves == UNSOLVABLE
