"""Which answers the suite trusts: the one place that decides it.

- ``solved`` is an answer once the rule engine has replayed its moves.
- ``unsolvable`` is an answer once its certificate (docs/formats.md#certificates) has been
  checked by code independent of the backend (:mod:`sigmar.runners.checking.certify`).
- Anything else is a claim.  Two claims of "unsolvable" from backends of
  different families make ``corroborated``: a weaker label, used only when
  no checkable certificate came in time, and never graded ``correct``.
  Two solvers behind the same encoding (``cnf:glucose4`` and
  ``cnf:cadical195``) share its bugs, so they do not corroborate each other.
"""

from __future__ import annotations

from collections.abc import Iterable

from sigmar.encoders import registry
from sigmar.models.result import Reason, Result, Status


def family_of(name: str) -> str:
    return registry.split_name(name)[0]


def accepted(answer: Result) -> bool:
    """Whether ``answer`` settles its board: a verified solution or a checked certificate."""
    if answer.wrong:
        return False
    if answer.status is Status.SOLVED:
        return answer.verified
    return answer.status is Status.UNSOLVABLE and answer.checked


def corroborated_pair(first: Result, second: Result) -> Result:
    """Two unsolvable claims from different families, reported as one ``corroborated`` answer."""
    why = first.explanation or f"{first.reason} from {first.backend}"
    return Result(
        Status.UNSOLVABLE,
        f"{first.backend}+{second.backend}",
        reason=Reason.CORROBORATED,
        explanation=f"{first.backend} ({first.reason}) and {second.backend} ({second.reason}) "
        f"both found it unsolvable, but no certificate was checked: {why}",
    )


def corroborated(claims: Iterable[Result]) -> Result | None:
    """The first pair of unsolvable claims from two families, as ``corroborated``, else None."""
    unsolvable = sorted((c for c in claims if c.status is Status.UNSOLVABLE and not c.wrong), key=lambda c: c.seconds)
    for i, first in enumerate(unsolvable):
        for second in unsolvable[i + 1 :]:
            if family_of(first.backend) != family_of(second.backend):
                return corroborated_pair(first, second).with_(seconds=second.seconds)
    return None


def claims_message(claims: Iterable[Result]) -> str:
    """Who claimed unsolvable and why it was not accepted, for an ``unknown`` answer."""
    parts = []
    for claim in claims:
        if claim.status is Status.UNSOLVABLE:
            why = claim.message or "no certificate"
            parts.append(f"{claim.backend} claimed unsolvable ({claim.reason}; {why})")
    return "; ".join(parts)
