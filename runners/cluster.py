"""Benchmark runs on an existing Dask distributed cluster (``sigmar bench --cluster ADDRESS``).

Each run is one Dask task, done in the worker thread's host process
(:class:`sigmar.encoders.processes.parent.Host`), so stock workers (a nanny, daemonic) can run
backends that start processes.  The task carries the parent's backend
registry, so a Dask worker only needs ``sigmar`` installed (and the solvers).
Answers come back raw; the parent checks and grades them exactly as for local runs.

The backend's own time limit stops a run; one that ignores it is stopped
after ``time_limit + slack`` seconds by killing its host and everything the
host started (its row is ``unknown``); the thread's next run starts a fresh host.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

from sigmar.encoders import registry
from sigmar.encoders.processes.parent import ChildError, ChildTimeout, hosted
from sigmar.models.board import Board
from sigmar.models.result import Lost, Result, Status
from sigmar.runners.bench import Run
from sigmar.runners.checking.intake import crashed, overrun_message, taken_in
from sigmar.runners.statistics.cost import Usage
from sigmar.runners.survey import ClusterError, lost_cluster, task_failure

_backends: dict[str, Any] = {}  # backend instances of this host, kept across its runs


def solve_in_host(
    families: tuple[tuple[str, str, str], ...], name: str, board: Board, time_limit: float | None
) -> tuple[Result, float]:
    """One run in the host: (raw answer, wall seconds of solve); a crashing backend is an answer."""
    if families != registry.FAMILIES:
        registry.FAMILIES = families
        _backends.clear()
    start = time.perf_counter()
    try:
        if name not in _backends:
            _backends[name] = registry.make(name)
        result = _backends[name].solve(board, time_limit)
    except Exception as exc:  # a crashing backend is an answer
        result = crashed(name, exc)
    return result, time.perf_counter() - start


def run_task(
    families: tuple[tuple[str, str, str], ...], name: str, board: Board, time_limit: float | None, slack: float
) -> tuple[Result, float]:
    """One run, a Dask task: handed to this worker thread's host, stopped after ``time_limit + slack``."""
    start = time.perf_counter()
    try:
        timeout = None if time_limit is None else time_limit + slack
        answer, seconds = hosted(solve_in_host, families, name, board, time_limit, timeout=timeout)
        return taken_in(answer, name), seconds  # only this code marks an answer lost (lost_mark reads it)
    except ChildTimeout:
        overran = Result(Status.UNKNOWN, name, message=overrun_message(time_limit), lost=Lost.OVERRUN)
        return overran, time.perf_counter() - start
    except ChildError as exc:  # the host died under the backend: a crash, as a local worker's would be
        return Result(Status.ERROR, name, message=f"{name}: {exc}", lost=Lost.CRASH), time.perf_counter() - start


def run_cluster(
    runs: list[Run], time_limit: float | None, address: Any, slack: float = 1.0
) -> Iterator[tuple[Run, Result, Usage | None]]:
    """Yield (run, raw answer) as the cluster finishes them; ``address`` is a scheduler address or a Client."""
    from distributed import Client, as_completed

    client = address if isinstance(address, Client) else Client(address, timeout="10s")
    try:
        families = registry.FAMILIES
        token = uuid.uuid4().hex  # in every key: two runs on one scheduler never share a task (nor its answer)
        futures = {}
        for run in runs:
            key = f"sigmar-bench-{token}-{run.index}"
            future = client.submit(run_task, families, run.backend, run.board, time_limit, slack, pure=False, key=key)
            futures[future] = run
        for future in as_completed(list(futures)):
            run = futures[future]
            with lost_cluster():
                failed = future.status == "error"
                if failed:
                    message = f"cluster task failed: {future.exception()!r}"
                elif future.status != "finished":
                    raise ClusterError(task_failure(future))
                else:
                    answer = future.result()
            if failed:
                yield run, Result(Status.ERROR, run.backend, message=message), None
                continue
            if not (type(answer) is tuple and len(answer) == 2 and isinstance(answer[1], int | float)):
                message = f"cluster task returned {type(answer).__name__}, not (answer, seconds)"
                yield run, Result(Status.ERROR, run.backend, message=message), None
                continue
            result = taken_in(answer[0], run.backend).with_(seconds=float(answer[1]), lost=lost_mark(answer[0]))
            yield run, result, None  # CPU and memory are not measured on a cluster
    finally:
        if client is not address:
            client.close()


def lost_mark(answer: object) -> Lost | None:
    """The mark :func:`run_task` put on a task's answer whose host died or overran (it takes in every other
    answer, which clears any mark a backend set itself)."""
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
