"""A copy of this process forked from where it is: it goes on with what it was doing, held back, sends one
answer and ends.

Why: the race's search in the runner's own process, past its head start on a board another backend wins
more often, is held back for the rest of the board; stopped there and started again in its worker, it
lost what it had searched (issue 48, the race's dense tail).  A copy forked in the timer's tick keeps
search's frames and dead states.  The copy dies with its parent, runs no exit handler of the parent's
(``os._exit``), and the parent sees it as a worker (:class:`Copy`): its pipe, its end, a kill.
"""

from __future__ import annotations

import contextlib
import os
import signal

TYPE_CHECKING = False  # not typing's: the race's modules do without it (issue 48)
if TYPE_CHECKING:
    from typing import Any


def fork_copy(job: int, niceness: int) -> tuple[Copy | None, Any]:
    """This process forked with the signals whose handlers raise held.  Here: (the copy, None); in the copy:
    (None, the pipe its answer goes to), the copy ``niceness`` lower and dying with its parent.  OSError
    when no copy can be forked."""
    from multiprocessing.connection import Pipe

    from sigmar.encoders.processes.parent import held_signals

    reader, writer = Pipe(duplex=False)
    try:
        with held_signals():  # no timer's signal inside the fork's hooks (logging's lock, issue 48)
            pid = os.fork()
    except OSError:
        reader.close()
        writer.close()
        raise
    if pid == 0:
        reader.close()
        with contextlib.suppress(Exception):
            from sigmar.encoders.processes.guard import die_with_parent

            die_with_parent()
        with contextlib.suppress(OSError):
            os.nice(niceness)
        return None, writer
    writer.close()
    return Copy(pid, reader, job), None


def answer_and_end(out: Any, raw: object, seconds: float) -> None:
    """In the copy: its answer sent, and its end (no exit handler of the parent's runs, no buffer of its output
    is written twice).  Does not return."""
    import gc

    gc.disable()  # no finalizer of the parent's objects (a worker's, a file's) runs in the copy
    try:
        out.send((raw, seconds))
    except BaseException:  # an answer that cannot be sent: the parent sees the copy end without one
        os._exit(1)
    os._exit(0)


class Sent:
    """What a copy sent, read as a worker's answer is (``runners.workers.Done``)."""

    __slots__ = ("job_id", "result", "seconds", "output", "usage")

    def __init__(self, job_id: int, result: object, seconds: float) -> None:
        self.job_id, self.result, self.seconds, self.output, self.usage = job_id, result, seconds, "", None


class Copy:
    """A copy seen from its parent as the race and its worker set see a worker: its pipe, its end (a pidfd
    where the kernel gives one), its answer, and its stop (a kill, then a reap)."""

    def __init__(self, pid: int, conn: Any, job: int) -> None:
        self.pid, self.conn, self.job_id = pid, conn, job
        self.stop_sent = 0.0
        self._reaped = False
        try:
            self.sentinel = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.sentinel = -1

    def receive(self) -> Sent | None:
        """Its answer, or None when it ended without one."""
        try:
            raw, seconds = self.conn.recv()
        except (EOFError, OSError, ValueError):
            return None
        return Sent(self.job_id, raw, seconds)

    def alive(self) -> bool:
        if not self._reaped:
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(self.pid, os.WNOHANG)[0] == 0:
                    return True
            self._reaped = True
        return False

    def crash_message(self, name: str, doing: str = "solving") -> str:
        return f"{name}: its forked copy ended while {doing}, without an answer"

    def pause(self) -> None:
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGCONT)

    def ask_stop(self) -> None:
        self.kill()

    def kill(self) -> None:
        """Killed (if it still runs) and reaped; its pipe and pidfd closed."""
        if not self._reaped:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self._reaped = True
        self.conn.close()
        if self.sentinel >= 0:
            with contextlib.suppress(OSError):
                os.close(self.sentinel)
            self.sentinel = -1
