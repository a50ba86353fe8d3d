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


@dataclass(frozen=True)
class Verdict:
    """Whether a certificate proves its board unsolvable; ``reason`` says why not, or what it showed."""

    valid: bool
    reason: str
