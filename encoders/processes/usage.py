"""CPU time and peak memory of one benchmark run: the worker and every process it starts.

Why these sources:

- CPU comes from the kernel's own accounting, ``resource.getrusage``:
  ``RUSAGE_SELF`` (every thread of the worker) plus ``RUSAGE_CHILDREN``
  (every descendant the worker waited for: ``minizinc`` waits for
  ``fzn-gecode``, so the solver's time rolls up into ours), plus what the
  live descendants have used meanwhile (``/proc``: a child that serves many
  runs, as the warm WebAssembly MiniZinc does, is waited for only at the end).
- Peak memory is the peak of the *sum* of resident set sizes of the worker
  and its live descendants (what a cgroup or the OOM killer sees), read from
  ``/proc``: the worker's own ``VmHWM`` (reset at each run's start by writing
  5 to ``/proc/self/clear_refs``, so a reused worker does not carry its
  previous peak), plus a sampler thread that adds up the descendants' RSS
  every ``INTERVAL`` seconds while a run is going.  ``ru_maxrss`` alone
  cannot do it: it never goes down, and a worker runs many jobs.
- The memory limit is enforced by the same sampler (a watchdog), not by
  ``RLIMIT_AS``: that limits virtual address space, of which an idle worker
  with OR-Tools loaded already maps ~3x its RSS, and it holds each process
  alone, not the worker and its solver together.

The suite runs on Linux (its process guard reads ``/proc`` too); where ``/proc``
cannot be read, a process's memory counts as 0 and the reset is skipped.
"""

from __future__ import annotations

import contextlib
import math
import os
import resource
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sigmar.encoders.processes.guard import descendants


@dataclass(frozen=True)
class Usage:
    """What one run cost: CPU seconds (the process and its children) and peak memory in MB (RSS, summed)."""

    cpu_seconds: float | None = None
    memory_mb: float | None = None
    over_memory: bool = False  # the run went over its memory limit (``--mem-limit``)


INTERVAL = 0.02  # seconds between memory samples while a run is going
MB = 1024 * 1024
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_PROC = Path("/proc")


def load_average() -> float:
    """The machine's 1-minute load average now (runnable and waiting processes; nan where there is none).

    Recorded beside every bench run: above the number of cores, runs waited for a
    core, and their wall times grew while their CPU times did not.
    """
    try:
        return os.getloadavg()[0]
    except (OSError, AttributeError):
        return math.nan


def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def live_descendants_cpu(pid: int) -> float:
    """CPU seconds of ``pid``'s live descendants, each with the children it has waited for (``/proc``).

    A child that outlives a run (the warm WebAssembly MiniZinc serves a worker's runs one after the
    other) is waited for only when the worker ends, so ``RUSAGE_CHILDREN`` would never show its work
    in the run that caused it; read live, it is.  A child counted here while alive moves into
    ``RUSAGE_CHILDREN`` (or its waiting parent's count) when waited for, so nothing counts twice.
    """
    total = 0
    for child in descendants(pid):
        try:
            with open(f"/proc/{child}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
        except (OSError, ValueError, IndexError):  # gone meanwhile, or no /proc
            continue
    return total / _TICK


def rss_bytes(pid: int) -> int:
    """Resident set size of ``pid`` now (0 when it is gone)."""
    try:
        return int((_PROC / str(pid) / "statm").read_text().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):  # gone, or no /proc
        return 0


def own_peak_bytes() -> int:
    """This process's peak RSS since the last :func:`reset_own_peak` (``VmHWM``), or 0 if unreadable."""
    with contextlib.suppress(OSError, ValueError):
        for line in (_PROC / "self" / "status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def reset_own_peak() -> None:
    with contextlib.suppress(OSError):
        (_PROC / "self" / "clear_refs").write_text("5")


def tree_rss_bytes(pid: int) -> int:
    return rss_bytes(pid) + sum(rss_bytes(c) for c in descendants(pid))


class Meter:
    """Measures the runs of one worker process, one at a time; optionally a memory watchdog.

    ``on_over(peak_mb, generation)`` is called from the sampler thread, at most once a
    run, when the worker and its descendants together go over ``limit_mb``.
    """

    def __init__(self, limit_mb: float | None = None, on_over: Callable[[float, int], None] | None = None) -> None:
        self.limit_mb = limit_mb
        self.on_over = on_over
        self._lock = threading.Lock()
        self._running = threading.Event()
        self._generation = 0
        self._peak = 0
        self._fired = False
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()

    def begin(self) -> None:
        self._self0 = resource.getrusage(resource.RUSAGE_SELF)
        self._child0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        self._live0 = live_descendants_cpu(self._pid)
        reset_own_peak()
        with self._lock:
            self._generation += 1
            self._peak = 0
            self._fired = False
        if self._thread is None:
            self._thread = threading.Thread(target=self._sample_loop, name="sigmar-meter", daemon=True)
            self._thread.start()
        self._running.set()

    def current(self, generation: int) -> bool:
        """Whether the run that ``generation`` names is still going (not ended since)."""
        with self._lock:
            return generation == self._generation

    def cpu_so_far(self) -> float:
        """CPU seconds of this run until now: the worker's, its waited-for children's, its live descendants'."""
        self_1 = resource.getrusage(resource.RUSAGE_SELF)
        child_1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        live = live_descendants_cpu(self._pid) - self._live0
        return max(0.0, _cpu(self_1) - _cpu(self._self0) + _cpu(child_1) - _cpu(self._child0) + live)

    def end(self) -> Usage:
        self._running.clear()
        cpu = self.cpu_so_far()
        child_1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        with self._lock:
            peak = max(self._peak, own_peak_bytes() or rss_bytes(self._pid))
            self._generation += 1
        if child_1.ru_maxrss > self._child0.ru_maxrss:  # a child of this run peaked higher than any before
            peak = max(peak, child_1.ru_maxrss * 1024)
        memory_mb = peak / MB
        over = self.limit_mb is not None and memory_mb > self.limit_mb
        return Usage(cpu_seconds=cpu, memory_mb=memory_mb, over_memory=over)

    def _sample_loop(self) -> None:
        while True:
            self._running.wait()
            time.sleep(INTERVAL)
            if not self._running.is_set():
                continue
            with self._lock:
                generation = self._generation
            total = tree_rss_bytes(self._pid)
            fire = False
            with self._lock:
                if generation != self._generation:
                    continue
                self._peak = max(self._peak, total)
                if self.limit_mb is not None and total / MB > self.limit_mb and not self._fired:
                    self._fired = fire = True
            if fire and self.on_over is not None:
                self.on_over(total / MB, generation)


def release_free_memory() -> None:
    """Hand the C heap's free pages back to the OS (glibc ``malloc_trim``), so the next run starts small.

    Run between jobs: a solver's freed arenas otherwise stay resident and
    would count as the next run's memory.
    """
    global _trim
    if _trim is None:
        try:
            import ctypes

            _trim = ctypes.CDLL(None).malloc_trim
        except (OSError, AttributeError):
            _trim = False
    if _trim:
        _trim(0)


_trim: Any = None


def kill_descendants(pid: int) -> None:
    """SIGKILL every live descendant of ``pid`` (the memory watchdog's last act before the worker exits)."""
    import signal

    for child in reversed(descendants(pid)):
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGKILL)
