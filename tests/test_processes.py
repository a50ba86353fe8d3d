"""The home of the suite's child processes (encoders/processes/): start, call, time limit, memory limit, stop.

The engines' own tests (test_race, test_bench_usage, test_lifetime, test_hostile_backend, test_cluster,
test_workbench) hold what the workers, the hosts and the run's lifetime do on top of it; these hold the
home itself, and the fork with the race's timer due (issue 48: an alarm whose handler raised inside
``os.fork``'s hooks left logging's lock taken for ever).
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time

import pytest

from sigmar.encoders.processes import child
from sigmar.encoders.processes.forked import Forked, count_in_child
from sigmar.encoders.processes.guard import descendants
from sigmar.encoders.processes.parent import Child, ChildError, ChildTimeout, call_once, held_signals
from tests.conftest import alive, wait_for

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the home forks; this platform cannot")


class Overrun(BaseException):
    """What the race's timer raises in a search past its budget."""


def _raise(signum: int, frame: object) -> None:
    raise Overrun()


def _python_call() -> None:
    """A Python call: the interpreter runs the handlers of the signals that have come."""


def _sleep_then(seconds: float, value: object) -> object:
    time.sleep(seconds)
    return value


def _fail() -> None:
    raise ValueError("no luck")


def _orphan_sleeper(pidfile: str) -> str:
    """Starts a grandchild that leaves the child's group and session (a double fork), and says its pid."""
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            with open(pidfile, "w") as out:
                out.write(str(os.getpid()))
            time.sleep(600)
        os._exit(0)
    os.waitpid(pid, 0)
    return "started"


def _stoppable(seconds: float) -> str:
    """Sleeps until told to stop (the call's stop), or ``seconds`` pass."""
    stop = threading.Event()
    child.on_stop(stop.set)
    return "stopped" if stop.wait(seconds) else "slept"


def _hog(megabytes: int) -> int:
    block = bytearray(megabytes * 2**20)
    for i in range(0, len(block), 4096):
        block[i] = 1
    time.sleep(1.0)
    return len(block)


def _count(limit_items: int, tally: object) -> tuple[int, bool]:
    for n in range(limit_items):
        tally.value = n + 1  # type: ignore[attr-defined]
        time.sleep(0.001)
    return limit_items, True


def test_held_signals_wait_until_the_block_ends() -> None:
    fired: list[float] = []
    previous = signal.signal(signal.SIGALRM, lambda s, f: fired.append(time.perf_counter()))
    try:
        with held_signals():
            signal.setitimer(signal.ITIMER_REAL, 0.001)
            time.sleep(0.05)
            assert fired == [], "the timer's handler ran inside the held block"
            left = time.perf_counter()
        assert wait_for(lambda: fired, 10) and fired[0] >= left
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("keeper", [True, False], ids=["kept", "plain"])
def test_forks_with_the_timer_due_leave_logging_usable(keeper: bool) -> None:
    """Children forked while the race's timer is due, its handler raising: each fork completes, the handler runs
    after it (never inside os.fork's hooks), and logging's lock, taken around every fork, is free after."""
    logging.getLogger("sigmar-test").addHandler(logging.NullHandler())  # logging's fork hooks are armed
    previous = signal.signal(signal.SIGALRM, _raise)
    children: list[Child] = []
    overruns = 0
    try:
        for round_ in range(20):
            try:
                try:
                    signal.setitimer(signal.ITIMER_REAL, 0.0001 * (round_ % 5 + 1))
                    children.append(Child("alarm", keeper=keeper, capture=False))
                    time.sleep(0.01)  # the alarm falls in the fork or just after it
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    _python_call()  # a signal that came just before is handled here, still in the round
            except Overrun:
                overruns += 1
        # The kernel hands a process's signal to any thread that does not block it (pytest-xdist's own): on a
        # loaded machine that thread may run the signal's C handler after the last round, and the main thread
        # then raised Overrun in the look at logging below (a gate at load 11). Late signals are not this
        # test's: from here they are ignored (a handler already noted is skipped too).
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        assert overruns > 0, "the timer never fired: the test did not test anything"
        logged = threading.Thread(target=logging.getLogger("sigmar-test").warning, args=("after the forks",))
        logged.start()
        logged.join(10)
        assert not logged.is_alive(), "logging's lock was left taken by a fork"
        for made in children:
            assert made.call(_sleep_then, 0, "here", timeout=60) == "here"
    finally:
        signal.signal(signal.SIGALRM, previous)
        for made in children:
            made.kill()


def test_a_child_answers_calls_raises_their_errors_and_is_stopped_past_its_time_limit() -> None:
    made = Child("calls")
    try:
        assert made.call(_sleep_then, 0, 42, timeout=60) == 42
        with pytest.raises(ValueError, match="no luck"):
            made.call(_fail, timeout=60)
        assert made.call(os.getpid, timeout=60) == made.pid, "one process, kept across calls"
        pid = made.pid
        with pytest.raises(ChildTimeout):
            made.call(time.sleep, 60, timeout=0.5)
        assert pid is not None and wait_for(lambda: not alive(pid), 10)
    finally:
        made.kill()


def test_a_child_forked_while_the_collector_is_off_collects_its_own_garbage() -> None:
    """A worker forked while its parent holds the cycle collector off (search's solve, a race's board) has it on."""
    import gc

    gc.disable()
    try:
        made = Child("collects")
    finally:
        gc.enable()
    try:
        assert made.call(gc.isenabled, timeout=60) is True
    finally:
        made.kill()


def test_a_stop_reaches_the_running_call_only() -> None:
    made = Child("stops")
    try:
        made.send(1, _stoppable, 60.0)
        time.sleep(0.2)
        made.ask_stop()
        assert made.conn.poll(30)
        answer = made.answer()
        assert answer is not None and answer.call == 1 and answer.value == "stopped"
        made.send(2, _stoppable, 0.3)  # a stop of call 1 does not reach call 2
        assert made.conn.poll(30)
        answer = made.answer()
        assert answer is not None and answer.value == "slept"
    finally:
        made.kill()


def test_killing_a_child_kills_what_left_its_tree(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A grandchild in a session of its own is adopted by the keeper and killed with the child."""
    pidfile = tmp_path / "orphan.pid"
    made = Child("tree")
    try:
        assert made.call(_orphan_sleeper, str(pidfile), timeout=60) == "started"
        assert wait_for(lambda: pidfile.exists() and pidfile.read_text())
        orphan = int(pidfile.read_text())
        assert orphan in descendants(made.process.pid), "the keeper adopted it"
    finally:
        made.kill()
    assert wait_for(lambda: not alive(orphan), 10)


def test_a_call_over_the_memory_limit_is_answered_so_and_its_child_ends() -> None:
    made = Child("memory", memory_limit_mb=150, measure=True)
    try:
        made.send(1, _hog, 400)
        assert made.conn.poll(60)
        answer = made.answer()
        assert answer is not None and answer.raised and isinstance(answer.value, child.OverMemory)
        assert answer.usage is not None and answer.usage.over_memory
        assert wait_for(lambda: not made.alive(), 10), "the child ends after going over"
        made.restart()
        small = made.call(_sleep_then, 0, "fine", timeout=60)
        assert small == "fine"
    finally:
        made.kill()


def test_a_measured_call_carries_its_cpu_time() -> None:
    made = Child("measure", measure=True)
    try:
        made.send(1, sum, range(3_000_000))
        assert made.conn.poll(60)
        answer = made.answer()
        assert answer is not None and answer.usage is not None
        assert answer.usage.cpu_seconds is not None and answer.usage.cpu_seconds > 0
        assert answer.usage.memory_mb is not None and answer.usage.memory_mb > 0
    finally:
        made.kill()


def test_one_call_in_a_fresh_child_is_stopped_by_another_thread() -> None:
    forked = Forked()
    timer = threading.Timer(0.3, forked.stop)
    timer.start()
    start = time.perf_counter()
    outcome = forked.call(time.sleep, (60,), None)
    assert outcome.stopped and time.perf_counter() - start < 30
    forked.reset()
    assert forked.call(_sleep_then, (0, "again"), 60).value == "again"
    assert forked.call(_fail, (), 60).error == "ValueError: no luck"
    assert forked.call(time.sleep, (60,), 0.2).timed_out


def test_a_count_cut_short_is_a_lower_bound() -> None:
    count, exact = count_in_child(Forked(slack=0.0), _count, (100_000,), 0.5)
    assert not exact and 0 < count < 100_000
    assert count_in_child(Forked(), _count, (5,), 60) == (5, True)


def test_a_call_that_ends_its_child_says_how() -> None:
    with pytest.raises(ChildError) as raised:
        call_once(os._exit, (7,), 60, lambda _child: None)
    assert raised.value.code == 7


@pytest.mark.parametrize("keeper", [True, False], ids=["keeper", "no-keeper"])
def test_a_call_sent_to_a_child_dead_in_its_setup_is_lost_with_it_not_raised(keeper: bool) -> None:
    """A worker's setup runs a backend once (its warm-up) and may end the child before its first call: the
    call is then sent into a closed pipe, which must be that call's loss (heard as the child's end), never
    a BrokenPipeError out of the runner (it was one line, exit 2, and no answers at all)."""
    made = Child("dies-early", keeper=keeper, setup=(os._exit, (7,)))
    try:
        assert wait_for(lambda: not made.alive(), 10)
        with pytest.raises(ChildError) as raised:
            made.call(os.getpid, timeout=60)
        assert raised.value.code == 7
    finally:
        made.kill()


def test_a_demoted_child_goes_only_further_down_until_promoted() -> None:
    """demote(extra) sets the child's niceness to its own plus extra; a second demote goes further down, never
    back up (which needs promote: not allowed without privilege, where it starts a fresh child)."""
    base = os.getpriority(os.PRIO_PROCESS, 0)
    one = Child("nice")
    try:
        pid = one.call(os.getpid, timeout=60)
        one.demote(5)
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(base + 5, 19)
        one.demote(15)
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(base + 15, 19)
        one.demote(5)
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(base + 15, 19), "not back up by a demote"
        one.promote()
        assert os.getpriority(os.PRIO_PROCESS, one.call(os.getpid, timeout=60)) == base
    finally:
        one.kill()


def test_a_kill_waits_for_a_descendant_slow_to_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """A SIGKILLed process runs on until it is scheduled: kill() returns only once the child proper has ended.

    A busy CI machine once showed the child still running after kill() (the sweep gave up after 50 rounds of a
    millisecond, then the keeper died and the child was no longer its descendant).  Here the child is reported
    running for 200 looks after it has died, as a slow machine would show it.
    """
    from sigmar.encoders.processes import parent

    worker = Child("slow-to-end")
    pid = worker.pid
    assert pid is not None
    real_running, real_descendants = parent._running, parent.descendants
    looks = {"n": 0}

    def running(found: int) -> bool:
        if found == pid and looks["n"] < 200:
            looks["n"] += 1
            return True
        return real_running(found)

    def listed(top: int) -> list[int]:
        found = real_descendants(top)
        return found if pid in found or looks["n"] >= 200 else [*found, pid]

    monkeypatch.setattr(parent, "_running", running)
    monkeypatch.setattr(parent, "descendants", listed)
    worker.kill()
    assert looks["n"] == 200, "kill() returned while its child was (reported) still running"
