"""What a worker of the race, crosscheck or bench runs, in its own process: one backend's solve or count of one board.

The parent's side is :mod:`sigmar.runners.workers`; the process itself (its keeper, its stop pipe,
its meter and memory limit, what it prints) is the home's (:mod:`sigmar.encoders.processes.child`).
A worker keeps its backend instances alive between jobs, so a multi-board file pays the solver
imports once; a backend that was stopped gets a fresh instance for the next job, to be safe.
"""

from __future__ import annotations

import fcntl
import os
import select
import threading
from typing import Any

from sigmar.encoders import registry
from sigmar.encoders.processes import child
from sigmar.models.board import Board, Tile
from sigmar.models.result import Result, Status
from sigmar.runners.checking.intake import counted, crashed

_backends: dict[str, Any] = {}  # this worker's backend instances, by name


def use_families(families: tuple[tuple[str, str, str], ...]) -> None:
    """The parent's backend registry (a test may have registered a family), before the first job."""
    registry.FAMILIES = families


# A board every backend answers at once (two air tiles, both free): what a worker solves to warm up.
_WARM_UP = Board(dim=3, tiles=(Tile(cell=(0, -2), symbol="a"), Tile(cell=(0, 0), symbol="a")), name="warm-up")


def warm_up(families: tuple[tuple[str, str, str], ...], name: str | None, turn: str | None = None) -> None:
    """Before a worker's first job: the parent's registry, and backend ``name`` made and run once on a tiny
    board, so that its solver's imports and first-use costs are paid now, while the worker waits, not on
    the first board that needs it.  Nothing here may fail the worker: a backend that cannot be made says
    so on its first job.  Only our own backends are warmed: a plugin's (or a test's fake's) code runs in
    its jobs alone, where its crash, hang or output is an answer to a board, not a worker that died
    before its first job.

    ``turn``: a file the race's workers lock in turn (:func:`_take_turn`), so that they warm up one at a
    time: on 2 cores the runner keeps one for the boards search settles meanwhile."""
    use_families(families)
    ours = {family for family, module, _ in families if module.startswith("sigmar.")}
    if name is None or name.split(":")[0] not in ours:
        return
    held = _take_turn(turn) if turn is not None else None
    if turn is not None and held is None:
        return  # a job came first: it is served now, cold
    try:
        backend = _backends[name] = registry.make(name)
        backend.solve(_WARM_UP, 5.0)
    except Exception:
        _backends.pop(name, None)
    finally:
        if held is not None:
            os.close(held)  # the next worker's turn


def _take_turn(path: str) -> int | None:
    """This worker's turn to warm up: a lock on ``path`` that one worker holds at a time (the kernel lets go of
    it when its holder ends, however it ends).  Its descriptor once held; None when a job comes first (a
    board that needs this worker never waits for the others' warm-ups) or the file is gone."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd
    except BlockingIOError:
        pass
    except OSError:
        os.close(fd)
        return None
    calls = child.call_pipe()
    got_read, got_write = os.pipe()
    lock = threading.Lock()
    state = {"got": False, "abandoned": False}

    def wait() -> None:  # blocks in the kernel (no polling: no wake-ups taking the runner's CPU)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            return
        with lock:
            if state["abandoned"]:  # a job came first: the turn is passed on at once
                os.close(fd)
                return
            state["got"] = True
            os.write(got_write, b"1")

    threading.Thread(target=wait, name="sigmar-warm-turn", daemon=True).start()
    watched = [got_read] if calls is None else [got_read, calls.fileno()]
    select.select(watched, [], [])
    with lock:
        got = state["got"]
        state["abandoned"] = not got
    os.close(got_read)
    os.close(got_write)
    return fd if got else None


def backend_job(name: str, board: Board, time_limit: float | None, notion: str | None) -> Result:
    """``name``'s answer on ``board``: its solve, or with ``notion`` its count (``Backend.count``, taken in by
    ``checking.intake.counted``).  A crash is an error answer; a MemoryError is left to the worker's loop,
    which marks the run over memory.  A backend that is not available here is an error answer marked
    ``unavailable`` (the race drops an optional one)."""
    try:
        backend = _backends.get(name)
        if backend is None:
            try:
                backend = registry.make(name)
            except registry.UnknownBackend as exc:
                return Result(Status.ERROR, name, message=str(exc), statistics={"unavailable": True})
            _backends[name] = backend
        child.on_stop(backend.stop)
        if child.stop_requested():  # a stop overtook its job (it has a pipe of its own): not solved
            return Result(Status.UNKNOWN, name, message="stopped before it started")
        if notion is not None:
            refused = backend.refusal(board)  # a board it does not play (quintessence): not asked
            if refused is not None:
                return refused.with_(statistics={"refused": True})
            return counted(backend.count(board, notion, time_limit), name, notion)
        result = backend.solve(board, time_limit)
        if not isinstance(result, Result):
            raise TypeError(f"solve returned {type(result).__name__}, not a Result")
        return result
    except MemoryError:
        raise
    except Exception as exc:  # a crashing backend is an answer, not a crash of the worker
        return crashed(name, exc)
    finally:
        if child.stop_requested():  # a stopped backend gets a fresh instance for the next job, to be safe
            _backends.pop(name, None)
