"""Where the nodes of a cube-and-conquer split run: this machine's cores, or a Dask cluster's workers.

Both pools run a call in a *host* (:mod:`sigmar.runners.host`): a Python
process of our own, under the guard, so a solver that crashes takes only its
host down (the call raises HostError), and no process outlives the run.

- :class:`LocalPool`: one thread per core here, each with its own host.
  Closing the pool kills the hosts, a solver in the middle of a node included.
- :class:`DaskPool`: each call is a task of an existing Dask cluster, done in
  the worker thread's host (as ``bench --cluster`` does).  Task keys carry a
  token unique to the run, so two runs on one cluster never share an answer.
  Closing cancels the tasks not yet started; a node already running ends at
  its conflict budget.

A pool's ``submit`` returns a future (``concurrent.futures`` or Dask's); the
caller learns of finished ones through ``add_done_callback``.
"""

from __future__ import annotations

import os
import queue
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from typing import Any

from sigmar.encoders.processes.guard import stop
from sigmar.runners.host import Host, hosted


def local_workers() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class LocalPool:
    """``workers`` threads, each with a host process of its own, started on its first call."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or local_workers()
        self._calls: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]] | None] = (
            queue.SimpleQueue()
        )
        self._hosts: list[Host | None] = [None] * self.workers
        self._lock = threading.Lock()
        self._closed = False
        self._threads = [
            threading.Thread(target=self._serve, args=(i,), name=f"sigmar-cubes-{i}", daemon=True)
            for i in range(self.workers)
        ]
        for thread in self._threads:
            thread.start()

    def describe(self) -> str:
        return f"{self.workers} local worker process{'es' if self.workers != 1 else ''}"

    def pids(self) -> list[int]:
        """The host processes alive now."""
        with self._lock:
            return [host.proc.pid for host in self._hosts if host is not None and host.alive()]

    def submit(self, fn: Callable[..., Any], *args: Any, key: str = "") -> Future[Any]:
        future: Future[Any] = Future()
        self._calls.put((future, fn, args))
        return future

    def _serve(self, slot: int) -> None:
        while True:
            item = self._calls.get()
            if item is None:
                return
            future, fn, args = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(self._host(slot).call(fn, *args))
            except BaseException as exc:  # the caller gets it through the future
                future.set_exception(exc)

    def _host(self, slot: int) -> Host:
        """This thread's host, started now if it has none or its last one died."""
        with self._lock:
            host = self._hosts[slot]
        if host is not None and host.alive():
            return host
        host = Host()
        with self._lock:
            if self._closed:
                host.close(kill=True)
                raise RuntimeError("the pool is closed")
            self._hosts[slot] = host
        return host

    def cancel(self) -> None:
        """Drop the calls not started and kill the hosts at work (each thread starts a new one when next asked)."""
        while True:
            try:
                item = self._calls.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[0].cancel()
        with self._lock:
            hosts = list(self._hosts)
        for host in hosts:  # the host's tree dies; a thread waiting on it sees the end of its pipe
            if host is not None:
                stop(host.proc)

    def close(self) -> None:
        """Stop every host (killing a node still at work) and the threads; calls not started are cancelled."""
        self.cancel()
        with self._lock:
            self._closed = True
            hosts, self._hosts = self._hosts, [None] * self.workers
        for host in hosts:
            if host is not None:
                stop(host.proc)
        for _ in self._threads:
            self._calls.put(None)
        for thread in self._threads:
            thread.join(30)
        for host in hosts:
            if host is not None:
                host.close(kill=True)

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DaskPool:
    """Calls as tasks of a Dask cluster (``client``: a ``distributed.Client``), each in its worker thread's host.

    At most as many tasks are with the scheduler as the cluster has threads; the rest wait here.
    Why: a scheduler hands a worker more tasks than it has threads (Dask's worker saturation), and
    a node that waits behind a long one on a busy worker, while another worker is idle, holds up
    the whole subtree below it (measured on side-8 deal 455: 11.1 s on two workers against 7.3 s).
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self.token = uuid.uuid4().hex[:12]
        self._lock = threading.Lock()
        self._waiting: list[tuple[Future[Any], Callable[..., Any], tuple[Any, ...], str]] = []
        self._running: dict[Any, Future[Any]] = {}  # the Dask future -> the caller's

    def describe(self) -> str:
        try:
            workers = self.client.scheduler_info().get("workers", {})
            return f"Dask cluster {self.client.scheduler.address}: {len(workers)} workers, {self._threads()} threads"
        except Exception:
            return "Dask cluster"

    def _threads(self) -> int:
        workers = self.client.scheduler_info().get("workers", {})
        return max(1, sum(w.get("nthreads", 1) for w in workers.values()))

    def submit(self, fn: Callable[..., Any], *args: Any, key: str = "") -> Future[Any]:
        mine: Future[Any] = Future()
        with self._lock:
            self._waiting.append((mine, fn, args, key))
        self._start_waiting()
        return mine

    def _start_waiting(self) -> None:
        """Hand the cluster what it has threads for, oldest first."""
        started = []
        with self._lock:
            free = self._threads() - len(self._running)
            while free > 0 and self._waiting:
                mine, fn, args, key = self._waiting.pop(0)
                if not mine.set_running_or_notify_cancel():
                    continue
                theirs = self.client.submit(hosted, fn, *args, pure=False, key=f"sigmar-cubes-{self.token}-{key}")
                self._running[theirs] = mine
                started.append(theirs)
                free -= 1
        for theirs in started:
            theirs.add_done_callback(self._finished)

    def _finished(self, theirs: Any) -> None:
        with self._lock:
            mine = self._running.pop(theirs, None)
        if mine is not None:
            try:
                if theirs.status == "finished":
                    mine.set_result(theirs.result())
                else:
                    mine.set_exception(theirs.exception() or RuntimeError(f"the cluster task was {theirs.status}"))
            except BaseException as exc:  # the task's error, or the cluster's, is the caller's
                if not mine.done():
                    mine.set_exception(exc)
        self._start_waiting()

    def cancel(self) -> None:
        """Drop the calls not started and cancel the tasks (one already running ends at its node's budget)."""
        with self._lock:
            waiting, self._waiting = self._waiting, []
            running, self._running = dict(self._running), {}
        for mine, *_ in waiting:
            mine.cancel()
        if running:
            self.client.cancel(list(running))
        for mine in running.values():  # running here: it cannot be cancelled, so it ends as cancelled
            if not mine.done():
                mine.set_exception(CancelledError("the split was stopped"))

    def close(self) -> None:
        self.cancel()

    def __enter__(self) -> DaskPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
