"""One call in a forked child process, killed on a stop or at its time limit.

Why: Pumpkin and most of the solvers CPMpy reaches hold the GIL and ignore
interrupts while they search, and CaDiCaL and Ganak do not listen either, so a
solve or a count in the worker's own thread could be neither stopped (a race's
loser) nor bounded.  A forked child inherits the board and the model already
built, starts in milliseconds, and dies with the worker that forked it; killing
it ends the solve at once.  The child is the home's
(:func:`sigmar.encoders.processes.parent.call_once`).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from sigmar.encoders.processes.parent import Child, ChildError, ChildTimeout, call_once

# The slack a child gets past the time limit before it is killed (Pumpkin answers "unknown" itself at the limit).
SLACK = 0.1


def time_left(time_limit: float | None, since: float) -> float | None:
    """What is left of ``time_limit`` seconds counted from ``since`` (a ``time.perf_counter()`` reading); None
    for no limit.  A backend's time limit bounds its whole solve, the work before the fork included: counted
    from the fork, a niced worker on a loaded machine answered past the race's slack and was killed as hung.
    """
    if time_limit is None:
        return None
    return max(time_limit - (time.perf_counter() - since), 0.0)


class Outcome:
    """What came of a forked call: ``value`` when it returned; else ``stopped``, ``timed_out`` or ``error``."""

    def __init__(self, value: Any = None, *, stopped: bool = False, timed_out: bool = False, error: str = "") -> None:
        self.value, self.stopped, self.timed_out, self.error = value, stopped, timed_out, error

    @property
    def returned(self) -> bool:
        return not (self.stopped or self.timed_out or self.error)


class Forked:
    """Runs calls in forked children, one at a time; :meth:`stop` (from any thread) kills the running one."""

    def __init__(self, slack: float = SLACK) -> None:
        self.slack = slack
        self._lock = threading.Lock()
        self._child: Child | None = None
        self._stopped = False

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            child = self._child
        if child is not None:
            child.stop_now()

    def reset(self) -> None:
        """Forget a stop: it ends one solve, not the backend."""
        with self._lock:
            self._stopped = False

    def stopped(self) -> bool:
        with self._lock:
            return self._stopped

    def _started(self, child: Child | None) -> None:
        with self._lock:
            self._child = child
            stopped = self._stopped
        if child is not None and stopped:  # a stop that came while the child was being forked
            child.stop_now()

    def call(self, function: Callable[..., Any], args: tuple[Any, ...], limit: float | None) -> Outcome:
        """``function(*args)`` in a child; it is killed after ``limit`` + slack seconds (None: no limit)."""
        if self.stopped():
            return Outcome(stopped=True)
        wait = None if limit is None else max(limit, 0.0) + self.slack
        try:
            return Outcome(call_once(function, args, wait, self._started))
        except ChildTimeout:
            return Outcome(stopped=True) if self.stopped() else Outcome(timed_out=True)
        except ChildError:  # killed by stop(), or it died
            return Outcome(stopped=True) if self.stopped() else Outcome(error="the solver process died")
        except Exception as exc:  # the call raised in the child: the caller reports it as an error answer
            return Outcome(stopped=True) if self.stopped() else Outcome(error=f"{type(exc).__name__}: {exc}")


def shared_count() -> Any:
    """A whole number (``.value``) that a forked child counts up and its parent reads, even after a kill."""
    return multiprocessing.get_context("fork" if os.name == "posix" else "spawn").RawValue("q", 0)


def count_in_child(
    forked: Forked, function: Callable[..., tuple[int, bool]], args: tuple[Any, ...], limit: float | None
) -> tuple[int, bool]:
    """``function(*args, tally)`` in a child, which returns ``(count, exact)`` and keeps ``tally.value`` at its
    count so far: a count cut short by the time limit or a stop is that, a lower bound (``exact`` False)."""
    tally = shared_count()
    outcome = forked.call(function, (*args, tally), limit)
    if outcome.error:
        raise RuntimeError(outcome.error)
    if outcome.returned:
        count, exact = outcome.value
        return int(count), bool(exact)
    return int(tally.value), False
