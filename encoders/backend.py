"""The interface every backend implements (after CPMpy's ``SolverInterface``).

A backend answers one board at a time with a :class:`~sigmar.models.result.Result`.
It never marks its own answer verified: the runner replays every ``solved``
answer through the rule engine (``sigmar.runners.checking.replay``).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod

from sigmar.models.board import Board
from sigmar.models.records import Frozen
from sigmar.models.result import Reason, Result, Status
from sigmar.models.rules import count_problem
from sigmar.models.tiles import QUINTESSENCE

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from typing import Any, ClassVar


class NoOptions(Frozen):
    """The options of a backend that takes none."""

    __slots__ = ()


def option_names(options_type: type) -> set[str]:
    """The options a backend's ``options_type`` takes: a frozen record's fields (``models/records.py``), or a
    frozen dataclass's (a plugin's, whose module imported ``dataclasses`` already)."""
    if issubclass(options_type, Frozen):
        return set(options_type.__match_args__)
    import dataclasses

    return {f.name for f in dataclasses.fields(options_type)}  # type: ignore[arg-type]


class Backend(ABC):
    """One solver.  ``family`` is the registry name, ``sub`` selects a variant or solver.

    Names follow docs/formats.md#backend-names: ``family`` alone means ``family:default()``, which is
    ``default_sub`` unless the family chooses by what is installed here.
    """

    family: ClassVar[str]
    default_sub: ClassVar[str | None] = None
    description: ClassVar[str] = ""
    # ``sigmar encode --to TARGET`` targets this backend can write.
    encode_targets: ClassVar[tuple[str, ...]] = ()
    # The encoding variants ``sigmar encode --variant`` takes for those targets, the default first.
    encode_variants: ClassVar[tuple[str, ...]] = ()
    # A frozen dataclass (or ``models/records.py``'s frozen record) of the backend's options: an unknown or
    # missing one fails at construction.
    options_type: ClassVar[type] = NoOptions
    # Whether it plays the quintessence variant (docs/formats.md#the-rules, symbol x).
    plays_quintessence: ClassVar[bool] = False
    # The notions its ``count`` counts (docs/formats.md#counts-of-solutions), when it implements ``count`` at all.
    count_notions: ClassVar[tuple[str, ...]] = ("sequences", "pairings")

    @property
    def certifies(self) -> bool:
        """Whether its "unsolvable" comes with a certificate (docs/formats.md#certificates); else it is a claim."""
        return False

    def __init__(self, sub: str | None = None, **options: Any) -> None:
        self.sub = sub if sub is not None else self.default()
        valid = option_names(self.options_type)
        unknown = sorted(set(options) - valid)
        if unknown:
            choices = ", ".join(sorted(valid)) or "none"
            raise ValueError(f"{self.family} has no option {', '.join(unknown)} (valid: {choices})")
        self.options: Any = self.options_type(**options)

    @property
    def name(self) -> str:
        return f"{self.family}:{self.sub}" if self.sub else self.family

    @classmethod
    def available(cls) -> tuple[bool, str]:
        """(True, "") when it can run here, else (False, why not)."""
        return True, ""

    @classmethod
    def version(cls) -> str:
        return "unknown"

    @classmethod
    def default(cls) -> str | None:
        """The sub-name that the family's name alone means on this machine (``sigmar backends`` shows it)."""
        return cls.default_sub

    @classmethod
    def default_note(cls) -> str:
        """Why ``default()`` is not the family's best configuration here (a solver missing), else ""."""
        return ""

    @classmethod
    def subs(cls) -> tuple[str, ...]:
        """The sub-names selectable as ``family:sub`` on this machine."""
        return (cls.default_sub,) if cls.default_sub else ()

    @classmethod
    def missing_subs(cls) -> dict[str, str]:
        """Sub-names the family has but cannot run here, each with why (``sigmar backends`` lists them)."""
        return {}

    @abstractmethod
    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        """Answer one board: solved with moves, unsolvable with a reason, or unknown.

        Must return (not raise) ``unknown`` when ``time_limit`` seconds pass.
        """

    def stop(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Ask the running ``solve`` (in another thread) to end within a second, with ``unknown``.

        The contract every backend keeps (tests/test_backends_agree.py): the
        stop ends that one solve, and the instance answers the next board as
        if it had never been stopped.
        """

    def count(self, board: Board, of: str, time_limit: float | None = None) -> tuple[int, bool]:
        """Optional: how many ``of`` clear ``board`` (``"sequences"`` or ``"pairings"``,
        docs/formats.md#counts-of-solutions).

        Returns ``(value, exact)``; ``exact`` False makes ``value`` a lower bound ("at least value"),
        the answer when ``time_limit`` seconds or a size cap stop the count.  A backend that does not
        override it is never asked (:func:`counts`).  The runner holds every exact count against the
        rule engine's own (``sigmar count``, ``crosscheck --compare-counts``).
        """
        raise NotImplementedError(f"{self.name} does not count")

    def encode(self, board: Board, target: str) -> dict[str, str]:
        """Files for other tools, as {suffix: text}; the first is the main one."""
        raise NotImplementedError(f"{self.family} cannot encode to {target}")

    def counts_refutation(self, board: Board, start: float) -> Result | None:
        """The "no" the tile counts alone give (before any model is built), timed from ``start``; else None."""
        problem = count_problem(board)
        if problem is None:
            return None
        return Result(
            Status.UNSOLVABLE, self.name, time.perf_counter() - start, reason=Reason.COUNTS, explanation=problem
        )

    def refusal(self, board: Board) -> Result | None:
        """An ``error`` naming what this backend does not play on ``board``, else None."""
        if not self.plays_quintessence and QUINTESSENCE in board.counts:
            message = f"{self.name} does not play the quintessence variant (symbol x) yet"
            return Result(Status.ERROR, self.name, message=message)
        return None


def counts(cls: type[Backend], notion: str) -> bool:
    """Whether backends of ``cls`` count ``notion``: they override :meth:`Backend.count` and list the notion."""
    return cls.count is not Backend.count and notion in cls.count_notions
