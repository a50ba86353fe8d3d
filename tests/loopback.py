"""A Dask cluster on this machine as users have one: a scheduler and stock ``dask worker`` processes.

Each worker is started by the ``dask`` command with its defaults (a nanny,
daemonic worker processes), on the loopback interface, with the commands
docs/runners.md gives for a cluster on one machine (``--host 127.0.0.1
--dashboard-address 127.0.0.1:0``: nothing listens beyond this machine).  For
``scripts/bench/survey_cluster.py`` and ``tests/test_cluster.py`` (which loads this
file by path): ``--cluster`` must work on such workers.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

# The flags that keep a scheduler or worker on this machine: its port and its dashboard on loopback only.
LOOPBACK = ("--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0")
START_TIMEOUT = 180.0  # seconds for the scheduler and the workers to come up on a loaded machine


def dask_command() -> list[str]:
    """The ``dask`` command of this Python's environment (the one on PATH otherwise)."""
    here = Path(sys.executable).parent / "dask"
    found = str(here) if here.exists() else shutil.which("dask")
    if found is None:
        raise FileNotFoundError("no 'dask' command: pip install 'dask[distributed]'")
    return [found]


@dataclass
class LoopbackCluster:
    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    scheduler_file: Path | None = None  # the scheduler's address, as ``--scheduler-file`` wrote it

    def stop(self, wait: float = 60.0) -> None:
        """Stop the workers, then the scheduler, with SIGTERM as a user would; SIGKILL to what is left."""
        for proc in [*self.workers, self.scheduler]:
            with contextlib.suppress(OSError):
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(wait)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@contextlib.contextmanager
def loopback_cluster(workers: int = 2, nthreads: int = 1) -> Iterator[LoopbackCluster]:
    """A scheduler and ``workers`` stock ``dask worker`` processes (each with its nanny) on 127.0.0.1."""
    dask = dask_command()
    folder = Path(tempfile.mkdtemp(prefix="sigmar-loopback-"))
    scheduler_file = folder / "scheduler.json"
    log = (folder / "log.txt").open("wb")
    quiet = {"stdin": subprocess.DEVNULL, "stdout": log, "stderr": log, "start_new_session": True}
    scheduler = subprocess.Popen(
        [*dask, "scheduler", *LOOPBACK, "--port", "0"] + ["--scheduler-file", str(scheduler_file)],
        **quiet,  # type: ignore[call-overload]
    )
    cluster = LoopbackCluster("", scheduler, scheduler_file=scheduler_file)
    try:
        cluster.address = _address(scheduler_file, scheduler, folder)
        for number in range(workers):
            cluster.workers.append(
                subprocess.Popen(
                    [*dask, "worker", cluster.address, *LOOPBACK, "--nthreads", str(nthreads)]
                    + ["--name", f"loopback-{number}"],
                    **quiet,  # type: ignore[call-overload]
                )
            )
        from distributed import Client

        with Client(cluster.address, timeout="60s") as client:
            client.wait_for_workers(workers, timeout=START_TIMEOUT)
        yield cluster
    finally:
        cluster.stop()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


def _address(scheduler_file: Path, scheduler: subprocess.Popen[bytes], folder: Path) -> str:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if scheduler.poll() is not None:
            raise RuntimeError(f"the dask scheduler exited: {(folder / 'log.txt').read_text(errors='replace')}")
        with contextlib.suppress(OSError, ValueError, KeyError):
            address: str = json.loads(scheduler_file.read_text())["address"]
            return address
        time.sleep(0.1)
    raise RuntimeError(f"no dask scheduler within {START_TIMEOUT:g} s")
