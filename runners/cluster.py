"""Benchmark runs on an existing Dask distributed cluster (``sigmar bench --cluster ADDRESS``).

Each board is one Dask task: its runs (every backend, every repetition) one after the other in the
worker thread's host (:class:`sigmar.encoders.processes.parent.Host`), so stock workers (a nanny,
daemonic) can run backends that start processes.  In the host each backend runs in a worker process
of its own, as on one machine (:class:`sigmar.runners.bench.WorkerPool`), kept across the host's
tasks: the solver is imported once, in the host, and a worker killed at its time limit is replaced by
a fork of it, warm; each run is measured there (CPU time and peak memory, children included) and held
to ``--mem-limit``, like a local run.  The task carries the parent's backend registry, so a Dask worker
only needs ``sigmar`` installed (and the solvers).  Answers come back raw; the parent checks and grades
them exactly as for local runs.

A run that outlives ``time_limit + slack`` seconds is killed with its worker (its row is ``unknown``);
a host that dies or hangs (past the sum of its runs' limits) is replaced, and its task's runs are
errors.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator
from typing import Any

from sigmar.encoders import registry
from sigmar.encoders.processes.parent import ChildError, ChildTimeout, hosted
from sigmar.models.board import Board
from sigmar.models.result import Lost, Result, Status
from sigmar.runners.bench import Run, WorkerPool
from sigmar.runners.checking.intake import overrun_message, taken_in
from sigmar.runners.statistics.cost import Usage
from sigmar.runners.statistics.record import BackendRecord
from sigmar.runners.survey import ClusterError, answer_lost, lost_cluster, task_failure
from sigmar.runners.workers import WorkerSet, with_output

# What a task sends back per run: its index, the raw answer, the wall seconds of its solve, what it cost
# (None when nothing was measured) and what the backend printed.
Done = tuple[int, Result, float, Usage | None, str]

_pool: WorkerPool | None = None  # this host's workers, one kind per backend, kept across its tasks
_warm: set[str] = set()  # the backends whose solvers this host has imported


def runs_in_host(
    families: tuple[tuple[str, str, str], ...],
    runs: list[tuple[int, str, Board]],
    time_limit: float | None,
    slack: float,
    mem_limit_mb: float | None,
) -> list[Done]:
    """A task's runs in the host, one after the other, each in this host's worker for its backend."""
    global _pool
    if families != registry.FAMILIES or (_pool is not None and _pool.mem_limit_mb != mem_limit_mb):
        registry.FAMILIES = families
        if _pool is not None:
            _pool.kill_all()
        _pool = None
        _warm.clear()
    if _pool is None:
        _pool = WorkerPool(mem_limit_mb)
    done: list[Done] = []
    for index, name, board in runs:
        if name not in _warm:  # imported here once: every worker of it is a warm fork
            _warm.add(name)
            with contextlib.suppress(Exception):  # its worker's job says why
                registry.make(name)
        done.append(_one_run(_pool, index, name, board, time_limit, slack))
    return done


def _one_run(pool: WorkerPool, index: int, name: str, board: Board, time_limit: float | None, slack: float) -> Done:
    worker = pool.take(name)
    worker.submit(index, name, board, time_limit)
    started = time.perf_counter()
    busy: WorkerSet[int] = WorkerSet()
    busy.add(index, worker, name, None if time_limit is None else started + time_limit + slack, time_limit)
    heard = busy.wait()
    while not heard:
        heard = busy.wait()
    news = heard[0]
    if news.done is None:  # it died, or outlived the time limit: the answer is marked lost here (Result.lost)
        pool.retire(worker)
        seconds = time.perf_counter() - started
        return index, news.answer(seconds), seconds, None, ""
    if news.done.usage is not None and news.done.usage.over_memory:
        pool.retire(worker)  # its watchdog may be taking it down; start clean
    else:
        pool.give_back(name, worker)
    # Taken in here, so that no mark a backend set itself reaches the parent as this code's (lost_mark).
    answer = taken_in(news.done.result, name)
    return index, answer, news.done.seconds, news.done.usage, news.done.output


def board_task(
    families: tuple[tuple[str, str, str], ...],
    runs: list[tuple[int, str, Board]],
    time_limit: float | None,
    slack: float,
    mem_limit_mb: float | None,
) -> list[Done]:
    """One board's runs, a Dask task: handed to this worker thread's host.  A host that dies or hangs past
    every run's limit is replaced; the task's runs are then errors (or ``unknown``, for a hang)."""
    per_run = None if time_limit is None else time_limit + slack
    timeout = None if per_run is None else len(runs) * per_run + 60.0
    start = time.perf_counter()
    try:
        return hosted(runs_in_host, families, runs, time_limit, slack, mem_limit_mb, timeout=timeout)
    except ChildTimeout:
        status, message, lost = Status.UNKNOWN, overrun_message(time_limit), Lost.OVERRUN
    except ChildError as exc:  # the host died under a backend: a crash, as a local worker's would be
        status, message, lost = Status.ERROR, str(exc), Lost.CRASH
    seconds = time.perf_counter() - start
    return [
        (index, Result(status, name, message=f"{name}: {message}", lost=lost), seconds, None, "")
        for index, name, _ in runs
    ]


def run_cluster(
    runs: list[Run], time_limit: float | None, address: Any, slack: float = 1.0, mem_limit_mb: float | None = None
) -> Iterator[tuple[Run, Result, Usage | None]]:
    """Yield (run, raw answer, usage) as the cluster finishes each board; ``address`` is a scheduler address or a
    Client."""
    from distributed import Client, as_completed

    client = address if isinstance(address, Client) else Client(address, timeout="10s")
    try:
        families = registry.FAMILIES
        token = uuid.uuid4().hex  # in every key: two runs on one scheduler never share a task (nor its answer)
        by_board: dict[int, list[Run]] = {}
        for run in runs:
            by_board.setdefault(run.board_index, []).append(run)
        futures = {}
        for board_index, board_runs in by_board.items():
            key = f"sigmar-bench-{token}-{board_index}"
            work = [(run.index, run.backend, run.board) for run in board_runs]
            future = client.submit(board_task, families, work, time_limit, slack, mem_limit_mb, pure=False, key=key)
            futures[future] = board_runs
        finishing = as_completed(list(futures))
        for future in finishing:
            if answer_lost(future):
                finishing.add(future)  # it comes back when computed again
                continue
            board_runs = futures[future]
            with lost_cluster():
                failed = future.status == "error"
                if failed:
                    message = f"cluster task failed: {future.exception()!r}"
                elif future.status != "finished":
                    raise ClusterError(task_failure(future))
                else:
                    answers = future.result()
            if failed:
                for run in board_runs:
                    yield run, Result(Status.ERROR, run.backend, message=message), None
                continue
            yield from _taken(board_runs, answers)
    finally:
        if client is not address:
            client.close()


def _taken(board_runs: list[Run], answers: object) -> Iterator[tuple[Run, Result, Usage | None]]:
    """A board task's answers, each taken in as its run's (one not of the task's shape is an error)."""
    by_index = {run.index: run for run in board_runs}
    seen: dict[int, tuple[Result, Usage | None]] = {}
    if isinstance(answers, list):
        for answer in answers:
            if not (isinstance(answer, tuple) and len(answer) == 5 and answer[0] in by_index):
                continue
            index, raw, seconds, usage, output = answer
            run = by_index[index]
            if not isinstance(seconds, int | float) or index in seen:
                continue
            taken = taken_in(raw, run.backend).with_(seconds=float(seconds), lost=lost_mark(raw))
            result = with_output(taken, str(output))
            seen[index] = (result, usage if isinstance(usage, Usage) else None)
    for run in board_runs:
        if run.index in seen:
            yield run, *seen[run.index]
        else:
            message = f"cluster task returned {type(answers).__name__} without this run's answer"
            yield run, Result(Status.ERROR, run.backend, message=message), None


def lost_mark(answer: object) -> Lost | None:
    """The mark this module's host code put on a run's answer whose worker or host died or overran (it takes
    in every other answer, which clears any mark a backend set itself)."""
    lost = answer.lost if type(answer) is Result else None
    return lost if type(lost) is Lost else None


def describe(address: Any) -> str:
    """A line for the CSV header: which cluster, how many workers and threads."""
    try:
        from distributed import Client

        client = address if isinstance(address, Client) else None
        if client is None:
            return f"dask cluster {address}"
        info = client.scheduler_info()
        workers = info.get("workers", {})
        threads = sum(w.get("nthreads", 0) for w in workers.values())
        return f"dask cluster {info.get('address', '?')}: {len(workers)} workers, {threads} threads"
    except Exception:
        return f"dask cluster {address}"


def worker_available(client: Any, names: list[str]) -> list[str] | None:
    """Of ``names``, those every worker of the cluster has (its solver installed there), in their order: which
    backends ``bench --cluster -b all`` runs is the workers' to say, as survey's and fuzz's (asked in the client,
    each built-in imported its solver there, OR-Tools, python-sat, MiniZinc, for runs made elsewhere).  Every
    worker runs any board, so a backend one of them lacks is left out.  None when no worker can say."""
    try:
        found: dict[str, list[str]] = client.run(_available, registry.FAMILIES, list(names))
    except Exception:
        return None
    if not found:
        return None
    everywhere = set(names).intersection(*found.values())
    return [name for name in names if name in everywhere]


@contextlib.contextmanager
def _client_registry(families: tuple[tuple[str, str, str], ...]) -> Iterator[None]:
    """In a worker, for the length of one asked call: the client's backend registry (its plug-ins may differ)."""
    own, registry.FAMILIES = registry.FAMILIES, families
    try:
        yield
    finally:
        registry.FAMILIES = own


def _available(families: tuple[tuple[str, str, str], ...], names: list[str]) -> list[str]:
    """Run in each worker: which of ``names`` are available there, under the client's backend registry."""
    with _client_registry(families):
        return [name for name in names if registry.info(registry.split_name(name)[0], with_version=False).available]


def worker_backends(client: Any, names: list[str], sat_cmd: str | None) -> list[BackendRecord] | None:
    """The backends' records (exact names, options, their solvers' versions) as the workers have them, for the
    bench's record: the client's machine may have other solvers, or none.  The first worker's by address (the
    header's lines say which machines the workers are); None when no worker can say."""
    try:
        found: dict[str, list[BackendRecord]] = client.run(_backend_records, registry.FAMILIES, list(names), sat_cmd)
    except Exception:
        return None
    return found[min(found)] if found else None


def _backend_records(
    families: tuple[tuple[str, str, str], ...], names: list[str], sat_cmd: str | None
) -> list[BackendRecord]:
    """Run in each worker: the records of ``names`` there, under the client's backend registry."""
    from sigmar.runners.bench import backend_record

    with _client_registry(families):
        return [backend_record(name, sat_cmd) for name in names]


def worker_machines(client: Any) -> list[str]:
    """What the workers run on, one line per kind of machine: ``2 on HOST (PLATFORM; cpus N; python V)``;
    ``[]`` when the workers cannot say (the header then names the client alone)."""
    try:
        found: dict[str, str] = client.run(_host_and_machine)
    except Exception:
        return []
    kinds: dict[str, int] = {}
    for described in found.values():
        kinds[described] = kinds.get(described, 0) + 1
    return [f"{count} on {described}" for described, count in sorted(kinds.items())]


def _host_and_machine() -> str:
    """Run in each worker: its host name and :func:`~sigmar.runners.bench.this_machine`."""
    import socket

    from sigmar.runners.bench import this_machine

    return f"{socket.gethostname()} ({this_machine()})"
