"""The WebAssembly MiniZinc kept warm: one Node process per worker, serving many runs over a pipe.

Why: started afresh for every run, the WebAssembly MiniZinc (``minizinc_wasm.cjs``, for Chuffed)
spent more than its run on starting Node and compiling its 17 MB module, 2-3 s of CPU, on a
board of one tile as on any other.  A server (``minizinc_wasm.cjs --serve``) compiles the module
once, and V8 makes fast code of the functions the runs use most, once too.

What stays as it was:

- time limits: MiniZinc's own ``--time-limit`` inside the run, and the backend's wait with its
  grace, as for the native MiniZinc;
- stops: a run that is cancelled (the race's stop, a time-out) is stopped at once: the server
  ends the worker thread that runs it and starts a fresh one, which keeps the compiled module;
- processes: the server runs under a guard (:mod:`sigmar.encoders.processes.guard`), so it dies
  with the process that started it, however that ends; it also ends when its standard input
  closes (this process's exit).  A server that does not answer a cancel within ``CANCEL_GRACE``
  seconds, or whose output cannot be read, is killed, and the next run starts another.

The :class:`WasmDriver` gives the ``minizinc`` Python package the runs of a server instead of a
``minizinc`` process of its own, so the package reads their output as it reads the native one's.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import json
import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import IO, Any

from sigmar.encoders.minizinc.driver import NOTES, GuardedDriver, NoteTakingReader
from sigmar.encoders.minizinc.flatten import run_flattened
from sigmar.encoders.minizinc.solvers import WASM_RUNNER, WASM_SOLVERS
from sigmar.encoders.minizinc.wasm_library import chuffed_library
from sigmar.encoders.processes import guard
from sigmar.encoders.processes.guard import guarded

# Seconds a cancelled run may take to be answered before its server is killed.
CANCEL_GRACE = 3.0


class ServerGone(Exception):
    """The server ended or its output could not be read (it is killed; the run fails)."""


class Server:
    """One ``minizinc_wasm.cjs --serve`` under a guard; one run at a time (the pool sees to it)."""

    _ids = itertools.count(1)

    def __init__(self) -> None:
        node = shutil.which("node") or "node"
        self.proc = subprocess.Popen(
            guarded([node, str(WASM_RUNNER), "--serve"]),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            process_group=0,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in: IO[bytes] = self.proc.stdin
        self._out: IO[bytes] = self.proc.stdout
        self.pid = os.getpid()  # the process that owns it (a forked child must not use it)
        self.healthy = True
        self.running = 0  # the number of the run going on, 0 when idle

    def start(self, args: list[str], files: dict[str, str] | None = None) -> int:
        """Send a command (``files``: {name: text} the arguments name); its run's number, for :meth:`answer`."""
        self.running = next(self._ids)
        try:
            self._send({"id": self.running, "args": args, **({"files": files} if files else {})})
        except OSError as exc:
            self.kill()
            raise ServerGone(f"the WebAssembly MiniZinc: {exc}") from None
        return self.running

    def answer(self, run: int) -> dict[str, Any]:
        """Run ``run``'s ``{"code", "stdout", "stderr"}``, or ``{"cancelled": True}`` after :meth:`cancel`."""
        try:
            while True:
                line = self._out.readline()
                if not line:
                    raise ServerGone("the WebAssembly MiniZinc ended")
                reply = json.loads(line)
                if reply.get("id") == run:
                    return dict(reply)
        except (OSError, ValueError) as exc:
            self.kill()
            raise ServerGone(f"the WebAssembly MiniZinc: {exc}") from None
        except ServerGone:
            self.kill()
            raise

    def cancel(self, run: int) -> None:
        """Stop run ``run`` (from another thread); a server that does not answer in time is killed."""
        try:
            self._send({"cancel": run})
        except OSError:
            self.kill()
            return
        timer = threading.Timer(CANCEL_GRACE, self._kill_if_busy, args=(run,))
        timer.daemon = True
        timer.start()
        self._cancel_timer = timer

    def _kill_if_busy(self, run: int) -> None:
        if self.running == run:
            self.kill()

    def _send(self, message: dict[str, Any]) -> None:
        self._in.write(json.dumps(message).encode() + b"\n")
        self._in.flush()

    def finished(self) -> None:
        """The run has been answered: no cancel may kill the server for it any more."""
        self.running = 0
        timer = getattr(self, "_cancel_timer", None)
        if timer is not None:
            timer.cancel()

    def kill(self) -> None:
        self.healthy = False
        guard.stop(self.proc)

    def close(self) -> None:
        """End the server: its input closes, and the guard removes whatever is left."""
        self.healthy = False
        with contextlib.suppress(OSError):
            self._in.close()
        guard.stop(self.proc)

    @property
    def alive(self) -> bool:
        return self.healthy and self.proc.poll() is None


class Pool:
    """The idle servers of this process; a run takes one (or starts one) and gives it back."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[Server] = []
        self._all: list[Server] = []

    def take(self) -> Server:
        with self._lock:
            while self._idle:
                server = self._idle.pop()
                if server.alive and server.pid == os.getpid():
                    return server
            server = Server()
            self._all.append(server)
            return server

    def give_back(self, server: Server) -> None:
        server.finished()
        with self._lock:
            if server.alive and server.pid == os.getpid():
                self._idle.append(server)
            else:
                self._all = [s for s in self._all if s is not server]

    def close(self) -> None:
        """End every server this process started (at exit, and for tests)."""
        with self._lock:
            servers, self._all, self._idle = self._all, [], []
        for server in servers:
            if server.pid == os.getpid():
                server.close()

    def processes(self) -> set[int]:
        """The process ids of this pool's live servers (each a guard and its Node), for process accounting."""
        with self._lock:
            servers = [s for s in self._all if s.pid == os.getpid() and s.proc.poll() is None]
        return {pid for s in servers for pid in (s.proc.pid, *guard.descendants(s.proc.pid))}

    def running(self) -> bool:
        """Whether one of this process's servers has a run going."""
        with self._lock:
            return any(s.running for s in self._all if s.pid == os.getpid())

    def forget(self) -> None:
        """In a forked child: the servers are the parent's, never to be used or closed here."""
        self._lock = threading.Lock()
        self._idle, self._all = [], []


POOL = Pool()
atexit.register(POOL.close)
os.register_at_fork(after_in_child=POOL.forget)


class Ticket:
    """One run on its way: which server and run number it has, so that a cancel from another thread reaches it."""

    def __init__(self, args: list[str], files: dict[str, str] | None = None) -> None:
        self.args = args
        self.files = files
        self.lock = threading.Lock()
        self.server: Server | None = None
        self.run = 0
        self.cancelled = False

    def serve(self) -> dict[str, Any]:
        """Run on a pooled server (blocking: a worker thread's job); the reply."""
        server = POOL.take()
        try:
            with self.lock:
                if self.cancelled:
                    return {"cancelled": True}
                self.server, self.run = server, server.start(self.args, self.files)
            return server.answer(self.run)
        finally:
            POOL.give_back(server)

    def cancel(self) -> None:
        with self.lock:
            self.cancelled = True
            if self.server is not None:
                self.server.cancel(self.run)


async def run_served(args: list[str], files: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``args`` on a pooled server; a cancel of the awaiting task stops the run (and is re-raised)."""
    ticket = Ticket(args, files)
    work = asyncio.ensure_future(asyncio.to_thread(ticket.serve))
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        ticket.cancel()
        with contextlib.suppress(ServerGone):
            await work  # the server answers the cancel at once
        raise


class Finished:
    """What the ``minizinc`` package reads of a served run, as of an ended ``asyncio`` process."""

    def __init__(self, reply: dict[str, Any]) -> None:
        loop = asyncio.get_running_loop()
        notes = NOTES.get()
        self.stdout = NoteTakingReader([] if notes is None else notes, 2**16, loop)
        self.stderr = asyncio.StreamReader(loop=loop)
        self.stdout.feed_data(str(reply.get("stdout", "")).encode())
        self.stderr.feed_data(str(reply.get("stderr", "")).encode())
        self.stdout.feed_eof()
        self.stderr.feed_eof()
        self.returncode = int(reply.get("code", 1))
        self.pid = -1

    async def wait(self) -> int:
        return self.returncode

    def terminate(self) -> None:
        """Nothing to stop: the run has ended."""

    kill = terminate


class WasmDriver(GuardedDriver):
    """A ``minizinc.Driver`` whose runs are served by a warm WebAssembly MiniZinc."""

    def __init__(self) -> None:
        self._executable = Path(WASM_RUNNER)

    @property
    def minizinc_version(self) -> str:
        return str(self._call(["--version"]).stdout.decode())

    def _run(self, args: list[str | Path], solver: Any = None) -> subprocess.CompletedProcess[bytes]:
        """The package's blocking runs (``--solvers-json``) on a server too."""
        if solver is None:
            done = self._call(["--allow-multiple-assignments", *map(str, args), "--json-stream"])
        else:
            with solver.configuration() as conf:
                done = self._call(["--solver", conf, "--allow-multiple-assignments", *map(str, args), "--json-stream"])
        if done.returncode != 0:
            import minizinc.error

            raise minizinc.error.parse_error(done.stderr)
        return done

    def _call(self, args: list[str]) -> subprocess.CompletedProcess[bytes]:
        try:
            reply = Ticket(args).serve()
        except ServerGone as exc:
            return subprocess.CompletedProcess(args, 1, b"", str(exc).encode())
        out, err = str(reply.get("stdout", "")).encode(), str(reply.get("stderr", "")).encode()
        return subprocess.CompletedProcess(args, int(reply.get("code", 1)), out, err)

    async def _create_process(self, args: list[str | Path], solver: str | None = None) -> Any:
        argv = [*([] if solver is None else ["--solver", solver]), "--allow-multiple-assignments"]
        config = natively_flattened(solver, args)
        try:
            if solver is not None and config is not None:  # the native MiniZinc flattens (flatten.py)
                command = ["--allow-multiple-assignments", *map(str, args), "--json-stream"]
                reply = await run_flattened(solver, command, config, run_served)
            else:
                reply = await run_served([*argv, *map(str, args), "--json-stream"])
        except ServerGone as exc:
            reply = {"code": 1, "stderr": f"{exc}\n"}
        return Finished(reply)


def natively_flattened(solver: str | None, args: list[str | Path]) -> Path | None:
    """The configuration with which the native MiniZinc flattens this run for the WebAssembly Chuffed
    (:mod:`.flatten`), or None: another solver, no model to flatten, or no Chuffed library to flatten with."""
    if solver is None or not solver.startswith(WASM_SOLVERS["chuffed"]):
        return None
    if not any(str(arg).endswith(".mzn") for arg in args):
        return None
    return chuffed_library()
