"""Benchmark runs on an existing Dask distributed cluster (``sigmar bench --cluster ADDRESS``).

Each run is one Dask task.  The task carries the parent's backend registry,
so a Dask worker only needs ``sigmar`` installed (and the solvers).  Answers
come back raw; the parent checks and grades them exactly as for local runs.

On a cluster a run cannot be killed: a Dask task runs in a thread of the
worker process.  The backend's own time limit stops it; a backend that
ignores it is abandoned after ``time_limit + slack`` seconds (its row is
``unknown``) and keeps that worker thread busy until it returns.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

from sigmar.encoders import registry
from sigmar.models.board import Board
from sigmar.models.result import Result, Status

from .bench import Run
from .usage import Usage

_local = threading.local()  # backend instances per worker thread: they are not thread-safe


def _backend(name: str) -> Any:
    cache: dict[str, Any] = _local.__dict__.setdefault("backends", {})
    if name not in cache:
        cache[name] = registry.make(name)
    return cache[name]


def run_task(
    families: tuple[tuple[str, str, str], ...], name: str, board: Board, time_limit: float | None, slack: float
) -> tuple[Result, float]:
    """One run on a Dask worker: (raw answer, wall seconds of solve)."""
    if families != registry.FAMILIES:
        registry.FAMILIES = families
    box: list[Result] = []
    start = time.perf_counter()

    def target() -> None:
        try:
            box.append(_backend(name).solve(board, time_limit))
        except Exception as exc:  # a crashing backend is an answer
            box.append(Result(Status.ERROR, name, message=f"{name} raised {type(exc).__name__}: {exc}"))

    thread = threading.Thread(target=target, daemon=True, name=f"sigmar-{name}")
    thread.start()
    thread.join(None if time_limit is None else time_limit + slack)
    seconds = time.perf_counter() - start
    if not box:
        message = f"no answer in {time_limit:g} s; abandoned (a cluster run cannot be killed)"
        return Result(Status.UNKNOWN, name, message=message), seconds
    return box[0], seconds


def run_cluster(
    runs: list[Run], time_limit: float | None, address: Any, slack: float = 1.0
) -> Iterator[tuple[Run, Result, Usage | None]]:
    """Yield (run, raw answer) as the cluster finishes them; ``address`` is a scheduler address or a Client."""
    from distributed import Client, as_completed

    client = address if isinstance(address, Client) else Client(address, timeout="10s")
    try:
        families = registry.FAMILIES
        futures = {}
        for run in runs:
            future = client.submit(
                run_task, families, run.backend, run.board, time_limit, slack, pure=False, key=f"sigmar-{run.index}"
            )
            futures[future] = run
        for future in as_completed(list(futures)):
            run = futures[future]
            if future.status == "error":
                exc = future.exception()
                yield run, Result(Status.ERROR, run.backend, message=f"cluster task failed: {exc!r}"), None
                continue
            result, seconds = future.result()
            yield run, result.with_(seconds=seconds), None  # CPU and memory are not measured on a cluster
    finally:
        if client is not address:
            client.close()


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
