"""The race's timer (``runners/race.py``, ``_ticks``) is gone when its block ends, even for a late signal.

Python runs a signal's handler at the next bytecode, not when the signal comes: a timer signal that came
just before the block stopped the timer is handled just after.  That late handler must not set the
timer again: its signal would find the handler put back to the default, which ends the process
("Alarm clock", exit 142), as happened to one-board solves under valgrind.
"""

from __future__ import annotations

import signal
import time

from sigmar.runners.race import _ticks


def test_a_tick_handled_after_the_block_ends_sets_no_timer() -> None:
    ticks: list[float] = []

    def tick() -> float:
        ticks.append(time.perf_counter())
        return time.perf_counter() + 0.05  # again in 50 ms

    before = signal.getsignal(signal.SIGALRM)
    with _ticks(tick, None) as ticking:
        assert ticking
        handler = signal.getsignal(signal.SIGALRM)
        assert callable(handler)
        handler(signal.SIGALRM, None)  # a tick inside the block: it runs, and sets the timer again
        assert len(ticks) == 1 and signal.getitimer(signal.ITIMER_REAL)[0] > 0
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) and signal.getsignal(signal.SIGALRM) == before
    handler(signal.SIGALRM, None)  # the late one: the block has ended
    left = signal.setitimer(signal.ITIMER_REAL, 0)  # stopped at once, whatever it was: it would end the test run
    assert left == (0.0, 0.0), "a late tick set the timer again"
    assert len(ticks) == 1, "a tick ran after its block ended"
