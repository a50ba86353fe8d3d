"""Worker processes that run backends, one board at a time, and can be killed: the parent's side.

Why processes and not threads: python-sat's ``solve()`` holds the GIL and
CaDiCaL ignores interrupts, so the only sure way to stop a losing backend is
to kill its process.  A worker keeps its backend instances alive between
jobs (what it runs is :mod:`sigmar.runners.worker_jobs`), so a multi-board
file pays the solver imports once.

A worker is a child of the home for child processes
(:class:`sigmar.encoders.processes.parent.Child`): forked, under a keeper that
adopts every orphan of its tree (a backend's descendants die with it, even
those that left its process group or session), in its own process group (so
killing it kills a solver binary the backend started, and Ctrl-C at the
terminal reaches only the parent, which then kills the workers), dying with
its parent.  Each job is measured inside its worker when asked
(CPU time and peak memory, the worker's children included), and the same
meter enforces the worker's memory limit.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sigmar.encoders import registry
from sigmar.encoders.processes import capture
from sigmar.encoders.processes.child import Answer, OverMemory
from sigmar.encoders.processes.parent import Child
from sigmar.encoders.processes.usage import Usage
from sigmar.models.board import Board
from sigmar.models.result import Lost, Result, Status
from sigmar.runners.checking.intake import crashed, overrun_message
from sigmar.runners.worker_jobs import backend_job, warm_up

K = TypeVar("K")  # what an engine calls its busy workers by: a backend's name, the worker itself


@dataclass(frozen=True)
class Done:
    """A worker's answer to one job; ``seconds`` is the wall time of ``solve`` inside the worker."""

    job_id: int
    result: Result
    seconds: float
    usage: Usage | None = None  # CPU and peak memory of the run (worker and its children)
    output: str = ""  # what the backend printed during the run (bounded, see encoders/processes/capture.py)


def memory_error(name: str, peak_mb: float, limit_mb: float | None) -> Result:
    return Result(Status.ERROR, name, message=str(OverMemory(peak_mb, limit_mb)))


def result_of(answer: Answer, name: str, limit_mb: float | None) -> Result:
    """A worker's answer as its backend's: a run that went over the memory limit, or raised, is an error."""
    usage = answer.usage
    if answer.raised:
        failure = answer.value
        if isinstance(failure, MemoryError):
            return Result(Status.ERROR, name, message=f"memory: {name} ran out of memory")
        if isinstance(failure, OverMemory):
            return Result(Status.ERROR, name, message=str(failure))
        return crashed(name, failure)
    if usage is not None and usage.over_memory and usage.memory_mb is not None:
        return memory_error(name, usage.memory_mb, limit_mb)  # whatever it answered
    result: Result = answer.value
    return result


class Worker(Child):
    """One worker process seen from the parent: send a board's job, read the answer, kill it."""

    def __init__(
        self,
        label: str,
        *,
        niceness: int = 0,
        mem_limit_mb: float | None = None,
        measure: bool = False,
        warm: str | None = None,
        turn: str | None = None,
    ) -> None:
        """``warm``: the backend it will run, made and run once on a tiny board before its first job
        (:func:`~sigmar.runners.worker_jobs.warm_up`), in its ``turn`` (a file the workers lock one at a time)."""
        self._names: dict[int, str] = {}  # the backend of each job sent and not yet answered
        # CPU and memory per run (bench): a sampler thread and a heap trim per job, which a race does
        # not need and cannot afford (about 1.5 ms a board on the public boards).
        super().__init__(
            label,
            niceness=niceness,
            memory_limit_mb=mem_limit_mb,
            measure=measure,
            setup=(warm_up, (registry.FAMILIES, warm, turn)),
        )

    @property
    def job_id(self) -> int | None:
        """The job it is working on, None when idle."""
        return self.call_id

    def submit(self, job_id: int, name: str, board: Board, time_limit: float | None, notion: str | None = None) -> None:
        """Send one job: solve ``board``, or with ``notion`` count it (``Backend.count``)."""
        self._names[job_id] = name
        self.send(job_id, backend_job, name, board, time_limit, notion)

    def receive(self) -> Done | None:
        """The answer waiting on the pipe, or None when the worker died."""
        answer = self.answer()
        if answer is None:
            return None
        name = self._names.pop(answer.call, "?")
        result = result_of(answer, name, self.memory_limit_mb)
        return Done(answer.call, result, answer.seconds, answer.usage, answer.output)

    def crash_message(self, name: str, doing: str = "solving") -> str:
        """The message of an answer lost with its worker: how the worker ended while ``doing`` its job
        (solving or counting), and what it printed."""
        said = self.output()
        return f"{name}: worker {self.exit_description()} while {doing}" + (
            f"; its output: {capture.one_line(said)}" if said else ""
        )

    def _start(self, only: Any = None) -> None:
        super()._start(only)
        self._names = {}


# -- the one wait loop on busy workers


@dataclass(frozen=True)
class Heard(Generic[K]):
    """What one busy worker did: sent ``done``; or died, or outlived its deadline (``overran``), said in ``message``."""

    key: K
    worker: Worker
    name: str  # the backend it was running
    done: Done | None = None
    overran: bool = False
    message: str = ""

    def answer(self, seconds: float = 0.0) -> Result:
        """A death or an overrun as the answer of its backend: ``error`` or ``unknown`` with the one message."""
        status = Status.UNKNOWN if self.overran else Status.ERROR
        lost = Lost.OVERRUN if self.overran else Lost.CRASH
        return Result(status, self.name, seconds, message=self.message, lost=lost)


@dataclass
class _Busy:
    worker: Worker
    name: str
    deadline: float | None
    time_limit: float | None
    doing: str  # "solving" or "counting", for the message of a death
    # Its pipe ended: the worker is gone and its keeper is cleaning up.  Then only its end is waited for
    # (its pipe would wake every wait at once, and the loop would spin, taking the CPU from the keeper),
    # and no deadline turns its death into an overrun.
    ended: bool = False


class WorkerSet(Generic[K]):
    """The busy workers of an engine, by key, each with a deadline; the one place that waits on them.

    :meth:`wait` blocks until a worker answers or dies, a deadline passes, or ``until``, and
    returns what happened, each worker at most once, with one message for each kind: a death
    says how the worker ended (:meth:`Worker.crash_message`), an overrun
    :func:`overrun_message`.  A worker with news leaves the set; the caller decides what
    becomes of it (given back, restarted, retired).  The race, crosscheck and bench all wait here.
    """

    def __init__(self) -> None:
        self._busy: dict[K, _Busy] = {}

    def add(
        self,
        key: K,
        worker: Worker,
        name: str,
        deadline: float | None = None,
        time_limit: float | None = None,
        doing: str = "solving",
    ) -> None:
        """Wait on ``worker`` (``doing`` a job of backend ``name``) under ``key`` until ``deadline`` (perf_counter)."""
        self._busy[key] = _Busy(worker, name, deadline, time_limit, doing)

    def discard(self, key: K) -> None:
        self._busy.pop(key, None)

    def __contains__(self, key: object) -> bool:
        return key in self._busy

    def __len__(self) -> int:
        return len(self._busy)

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._busy))

    def workers(self) -> list[Worker]:
        return [busy.worker for busy in self._busy.values()]

    def news(self, keys: Iterable[K]) -> bool:
        """Whether one of the workers under ``keys`` has something to say now (an answer, or its end)."""
        from multiprocessing.connection import wait

        handles: list[Any] = []
        for key in keys:
            busy = self._busy.get(key)
            if busy is not None:
                handles += [busy.worker.conn, *_sentinel(busy.worker)]
        return bool(handles) and bool(wait(handles, 0))

    def wait(self, until: float | None = None, among: Iterable[K] | None = None) -> list[Heard[K]]:
        """What the busy workers did (only those under ``among``, if given), waiting for the first news until
        ``until`` or the next deadline."""
        from multiprocessing.connection import wait  # here: a race that search settles in-process never waits

        chosen = self._busy if among is None else {k: self._busy[k] for k in among if k in self._busy}
        ends = [b.deadline for b in chosen.values() if b.deadline is not None]
        if until is not None:
            ends.append(until)
        end = min(ends) if ends else None
        handles: dict[Any, K] = {}
        for key, busy in chosen.items():
            if not busy.ended:
                handles[busy.worker.conn] = key
            for sentinel in _sentinel(busy.worker):
                handles[sentinel] = key
            if busy.ended and not _sentinel(busy.worker):  # no sentinel here: look again soon
                end = time.perf_counter() + 0.01 if end is None else min(end, time.perf_counter() + 0.01)
        timeout = None if end is None else max(end - time.perf_counter(), 0.0)
        if handles:
            ready = wait(list(handles), timeout)
        else:  # nobody busy: only the time passes
            ready = []
            if timeout:
                time.sleep(timeout)
        heard: list[Heard[K]] = []
        ended = [k for k, b in chosen.items() if b.ended]
        for key in dict.fromkeys([*(handles[h] for h in ready), *ended]):
            busy = self._busy[key]
            done = None
            if not busy.ended and busy.worker.conn.poll():
                done = busy.worker.receive()
                busy.ended = done is None
            if done is None and busy.worker.alive():
                continue  # woken by nothing readable, or its end is not yet complete; look again
            del self._busy[key]
            message = "" if done is not None else busy.worker.crash_message(busy.name, busy.doing)
            heard.append(Heard(key, busy.worker, busy.name, done, message=message))
        now = time.perf_counter()
        for key, busy in list(chosen.items()):
            if key in self._busy and not busy.ended and busy.deadline is not None and now >= busy.deadline:
                del self._busy[key]
                heard.append(Heard(key, busy.worker, busy.name, overran=True, message=overrun_message(busy.time_limit)))
        return heard


def _sentinel(worker: Worker) -> list[int]:
    """The worker's sentinel, where the kernel gives one (else its death shows as the end of its pipe)."""
    return [worker.sentinel] if worker.sentinel >= 0 else []


def with_output(result: Result, output: str) -> Result:
    """A checked answer with what its backend printed: in the message of an error, and on standard error
    with ``--verbose`` (``SIGMAR_VERBOSE``); otherwise it is dropped."""
    if not output:
        return result
    if os.environ.get("SIGMAR_VERBOSE"):
        print(f"{result.backend} printed: {output}", file=sys.stderr, flush=True)
    if result.status is Status.ERROR:
        return result.with_(message=f"{result.message}; its output: {capture.one_line(output)}")
    return result
