"""The race's timer (``runners/race.py``, ``_Timer``) stops when its block ends, even for a late signal, and puts
the handler from before back when the race ends.

Python runs a signal's handler at the next bytecode, not when the signal comes: a timer signal that came
just before the block stopped the timer is handled just after.  That late handler must not set the
timer again: its signal would find the handler put back to the default once the race has ended, which
ends the process ("Alarm clock", exit 142), as happened to one-board solves under valgrind.
"""

from __future__ import annotations

import signal
import time

from sigmar.runners.race import _Timer


def test_a_tick_handled_after_the_block_ends_sets_no_timer() -> None:
    ticks: list[float] = []

    def tick() -> float:
        ticks.append(time.perf_counter())
        return time.perf_counter() + 0.05  # again in 50 ms

    before = signal.getsignal(signal.SIGALRM)
    timer = _Timer()
    try:
        with timer.ticks(tick, None) as ticking:
            assert ticking
            handler = signal.getsignal(signal.SIGALRM)
            assert callable(handler)
            handler(signal.SIGALRM, None)  # a tick inside the block: it runs, and sets the timer again
            assert len(ticks) == 1 and signal.getitimer(signal.ITIMER_REAL)[0] > 0
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        handler(signal.SIGALRM, None)  # the late one: the block has ended
        left = signal.setitimer(signal.ITIMER_REAL, 0)  # stopped at once, whatever it was: it would end the test run
        assert left == (0.0, 0.0), "a late tick set the timer again"
        assert len(ticks) == 1, "a tick ran after its block ended"
    finally:
        timer.close()
    assert signal.getsignal(signal.SIGALRM) == before, "the race's end did not put the handler back"
    handler(signal.SIGALRM, None)  # later still, after the race: nothing
    assert signal.setitimer(signal.ITIMER_REAL, 0) == (0.0, 0.0) and len(ticks) == 1


def test_the_handler_is_set_once_for_all_blocks_and_each_block_ticks_its_own() -> None:
    seen: list[str] = []
    timer = _Timer()
    try:
        with timer.ticks(lambda: seen.append("first"), time.perf_counter() + 0.001):
            handler = signal.getsignal(signal.SIGALRM)
            deadline = time.perf_counter() + 5
            while not seen and time.perf_counter() < deadline:
                pass  # the tick runs between two bytecodes of this loop
        assert seen == ["first"]
        with timer.ticks(lambda: seen.append("second"), None):
            assert signal.getsignal(signal.SIGALRM) is handler, "the handler was set again"
            handler(signal.SIGALRM, None)
        assert seen == ["first", "second"]
        other = signal.signal(signal.SIGALRM, signal.SIG_IGN)  # set by someone else between two blocks
        assert other is handler
        with timer.ticks(lambda: seen.append("third"), None):
            assert signal.getsignal(signal.SIGALRM) is handler, "the handler was not set again"
    finally:
        timer.close()
