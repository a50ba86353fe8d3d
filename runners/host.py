"""A Python process of our own, started with ``subprocess``, in which a Dask task does its work.

Why: a stock ``dask worker`` runs under a nanny as a *daemonic* process, and a
daemonic process may not start ``multiprocessing`` children, which the race's
worker processes and the cnf backend's solver are.  ``subprocess`` is allowed
anywhere, so each Dask worker thread starts one host (``python -m
sigmar.runners.host``) and hands it the calls of its tasks.  The same code then
runs the same way however the workers were started: nanny or not, daemon or not.

- The host lives as long as the worker thread that started it, and keeps its
  state (the race and its worker processes) across that thread's tasks.
- It runs under the guard (:mod:`sigmar.encoders.processes.guard`): when the
  worker thread or process ends, even by SIGKILL, the guard kills the host's
  whole tree and removes the host's temporary folder.
- It imports what its worker can: the worker's ``sys.path`` is its first message.
- A call with a timeout that the host does not answer in time stops the host
  (its tree is killed); the next call starts a fresh one.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from sigmar.encoders.processes.guard import guarded, stop
from sigmar.models.errors import SigmarError

T = TypeVar("T")

START_TIMEOUT = 120.0  # seconds for a fresh host to say it is ready (a loaded machine, a slow disk)


class HostError(SigmarError, RuntimeError):
    """The host died, or did not answer within the call's timeout (it has been stopped)."""


class HostTimeout(HostError):
    """No answer within the call's timeout: the host and everything it started were killed."""


class Host:
    """One host process and the two pipes to it (calls in, answers out)."""

    def __init__(self) -> None:
        call_read, call_write = os.pipe()
        answer_read, answer_write = os.pipe()
        self.folder = tempfile.mkdtemp(prefix="sigmar-host-")
        argv = [sys.executable, "-m", "sigmar.runners.host", str(call_read), str(answer_write)]
        try:
            self.proc = subprocess.Popen(
                guarded(argv, cleanup=self.folder),
                stdin=subprocess.DEVNULL,
                pass_fds=(call_read, answer_write),
                env=os.environ | {"TMPDIR": self.folder},
            )
        finally:
            os.close(call_read)
            os.close(answer_write)
        self.calls = Connection(call_write, readable=False)
        self.answers = Connection(answer_read, writable=False)
        self.calls.send(list(sys.path))
        self._receive(START_TIMEOUT)  # "ready": the host has started and taken our sys.path

    def call(self, fn: Callable[..., T], *args: Any, timeout: float | None = None) -> T:
        """``fn(*args)`` in the host; its exception is raised here."""
        self.calls.send_bytes(pickle.dumps((fn, args)))
        kind, value = self._receive(timeout)
        if kind == "raised":
            raise value
        return value

    def _receive(self, timeout: float | None) -> tuple[str, Any]:
        try:
            if not self.answers.poll(timeout):
                self.close(kill=True)
                raise HostTimeout(f"the host gave no answer in {timeout:g} s and was stopped")
            answer: tuple[str, Any] = self.answers.recv()
            return answer
        except (EOFError, OSError):
            code = self.proc.wait()
            self.close(kill=True)
            raise HostError(f"the host process ended (exit status {code})") from None

    def alive(self) -> bool:
        return self.proc.poll() is None and not self.calls.closed

    def close(self, kill: bool = False) -> None:
        """Ask the host to finish (or kill it); the guard then kills what is left and removes its folder."""
        if not self.calls.closed:
            if not kill:
                try:
                    self.calls.send(None)
                    self.proc.wait(10)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self.calls.close()
            self.answers.close()
        stop(self.proc)


_local = threading.local()  # one host per Dask worker thread


def hosted(fn: Callable[..., T], *args: Any, timeout: float | None = None) -> T:
    """``fn(*args)`` in this thread's host, started on first use and again after one died or was stopped."""
    host: Host | None = getattr(_local, "host", None)
    if host is None or not host.alive():
        host = _local.host = Host()
    return host.call(fn, *args, timeout=timeout)


def close_hosts_of_this_thread() -> None:
    """Stop this thread's host, if any (the tests' own clusters run in the test process)."""
    host: Host | None = getattr(_local, "host", None)
    if host is not None:
        host.close()
        _local.host = None


# -- the host's side ----------------------------------------------------------


def _answer(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[str, Any]:
    try:
        return "ok", fn(*args)
    except Exception as exc:
        return "raised", exc


def serve(calls: Connection, answers: Connection) -> None:
    """The host's loop: one call at a time, until ``None`` or the caller's end of the pipe closes."""
    sys.path[:] = calls.recv()
    answers.send(("ready", None))
    while True:
        try:
            data = calls.recv_bytes()
        except EOFError:
            return
        try:
            message = pickle.loads(data)
            if message is None:
                return
            answer = _answer(*message)
        except Exception as exc:  # a call that cannot be read here (a module this host cannot import)
            answer = "raised", HostError(f"the host cannot read the call: {exc!r}")
        try:
            answers.send(answer)
        except Exception:  # the answer or its exception does not pickle: say what it was
            said = "".join(traceback.format_exception_only(answer[1])).strip() if answer[0] == "raised" else ""
            answers.send(("raised", HostError(f"the host's answer cannot be sent back: {said or type(answer[1])}")))


if __name__ == "__main__":
    serve(Connection(int(sys.argv[1]), writable=False), Connection(int(sys.argv[2]), readable=False))
