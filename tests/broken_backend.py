"""Fake backends for the runner tests: one honest, several deliberately broken.

Never registered outside the tests: a test adds them to ``registry.FAMILIES``
with :func:`register` (monkeypatch), and the worker processes receive that
registry from the parent.

``honest:dfs`` solves tiny boards by a complete search over the rule engine
(unsolvable ones as ``exhausted``, with a dead-states certificate listing every
reachable state); ``honest:proof`` is the same search but reports unsolvable
as a solver's ``proof`` with no certificate (a claim);
``honest:slow`` sleeps ``SIGMAR_FAKE_DELAY`` seconds (default 0.5) first;
``honest:sticky`` is as slow but obeys ``stop()`` and then stays stopped for
good (a real bug pattern: a stop flag never reset).
``broken:SUB`` misbehaves as SUB says: ``wrong`` (a solution the rule
engine rejects), ``crash`` (raises), ``exit`` (the process dies), ``hang``
(sleeps forever, ignores stop), ``proof`` (claims unsolvable, proof, always),
``unknown`` (gives up at once), ``hog`` (holds ``SIGMAR_FAKE_MB`` MB, default
200, for 0.2 s, then gives up), ``hogchild`` (the same in a child process),
``spinchild`` (a child process burns 0.3 s of CPU while the worker sleeps),
``memerror`` (raises MemoryError), ``groupchild`` (waits on a child process that
leads a process group of its own, as MiniZinc's solver under its guard does; the
child's pid is in ``SIGMAR_FAKE_PIDFILE``).
Its ``count`` misbehaves the same way (``wrong``: one more than the rule engine counts);
``honest`` does not count at all.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from sigmar.encoders.backend import Backend
from sigmar.models.board import Board
from sigmar.models.result import Certificate, CertificateKind, Move, Reason, Result, Status
from tests.bruteforce import dead_states_text, solve_by_brute_force

# Three tiny boards: a solvable pair, a stuck one (counts fine, no way out), one the counts refute.
BOARDS_TEXT = """\
# pair
a . .
 . . . .
  . . a . .
   . . . .
    . . .

# stuck
. e .
f . m .
. s . a .
. a f v
. . .

# counts
a . .
 . . . .
  . . e . .
   . . . .
    . . .
"""

FAKE_FAMILIES = (
    ("honest", "tests.broken_backend", "HonestBackend"),
    ("broken", "tests.broken_backend", "BrokenBackend"),
)


def register(monkeypatch: object) -> None:
    """Add the fake families to the registry for one test."""
    from sigmar.encoders import registry

    monkeypatch.setattr(registry, "FAMILIES", registry.FAMILIES + FAKE_FAMILIES)  # type: ignore[attr-defined]


def dfs(board: Board) -> tuple[Move, ...] | None:
    """A clearing move sequence, or None when there is none (the shared brute force; tiny boards only)."""
    found = solve_by_brute_force(board)
    return tuple(found) if found is not None else None


class HonestBackend(Backend):
    family = "honest"
    default_sub = "dfs"
    description = "test fake: exhaustive search over the rule engine"

    @classmethod
    def subs(cls) -> tuple[str, ...]:
        return ("dfs", "proof", "slow", "sticky", "badcert")

    def __init__(self, sub: str | None = None, **options: object) -> None:
        super().__init__(sub, **options)
        self._stopped = False

    def stop(self) -> None:
        self._stopped = True

    @classmethod
    def version(cls) -> str:
        return "fake-1"

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        start = time.perf_counter()
        delay = float(os.environ.get("SIGMAR_FAKE_DELAY", "0.5"))
        if self.sub == "slow":
            time.sleep(delay)
        if self.sub == "sticky":
            while not self._stopped and time.perf_counter() - start < delay:
                time.sleep(0.01)
            if self._stopped:
                return Result(Status.UNKNOWN, self.name, time.perf_counter() - start, message="stopped")
        moves = dfs(board)
        seconds = time.perf_counter() - start
        if moves is not None:
            return Result(Status.SOLVED, self.name, seconds, moves=moves)
        if self.sub == "proof":  # a solver's word alone: a claim, no certificate
            return Result(Status.UNSOLVABLE, self.name, seconds, reason=Reason.PROOF, explanation="no way")
        text = dead_states_text(board)
        assert text is not None
        if self.sub == "badcert":  # the certificate without its last line: the check rejects it
            text = "".join(text.splitlines(keepends=True)[:-1])
        certificate = Certificate(CertificateKind.DEAD_STATES, texts={".dead.jsonl": text})
        return Result(
            Status.UNSOLVABLE,
            self.name,
            seconds,
            reason=Reason.EXHAUSTED,
            explanation="the search found no way",
            certificate=certificate,
        )


class BrokenBackend(Backend):
    family = "broken"
    default_sub = "wrong"
    description = "test fake that misbehaves on purpose"

    @classmethod
    def subs(cls) -> tuple[str, ...]:
        return (
            "wrong",
            "crash",
            "exit",
            "hang",
            "proof",
            "unknown",
            "hog",
            "hogchild",
            "spinchild",
            "memerror",
            "groupchild",
        )

    @classmethod
    def version(cls) -> str:
        return "fake-1"

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        if self.sub == "crash":
            raise RuntimeError("deliberate crash")
        if self.sub == "memerror":
            raise MemoryError("deliberate")
        if self.sub == "exit":
            os._exit(7)
        if self.sub == "hang":
            while True:
                time.sleep(3600)
        if self.sub == "proof":
            return Result(Status.UNSOLVABLE, self.name, reason=Reason.PROOF, explanation="I say so")
        if self.sub == "unknown":
            return Result(Status.UNKNOWN, self.name, message="gave up")
        if self.sub in ("hog", "hogchild", "spinchild", "memerror"):
            return self._use_resources()
        if self.sub == "groupchild":
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], process_group=0)
            with open(os.environ["SIGMAR_FAKE_PIDFILE"], "w") as out:
                out.write(str(child.pid))
            child.wait()
            return Result(Status.UNKNOWN, self.name, message="the child ended")
        # "wrong": removes the first tile alone, which is never a whole solution of a board with pairs
        first = board.tiles[0].cell
        return Result(Status.SOLVED, self.name, moves=(Move((first,)),))

    def count(self, board: Board, of: str, time_limit: float | None = None) -> tuple[int, bool]:
        """Misbehaves as ``solve`` does (``crash``, ``exit``, ``hang``); ``wrong`` counts one too many; the
        others give up at once with nothing counted."""
        if self.sub in ("crash", "exit", "hang", "memerror"):
            self.solve(board, time_limit)
        if self.sub == "wrong":
            from sigmar.models.counting import reference_count

            return reference_count(board, of).value + 1, True
        return 0, False

    def _use_resources(self) -> Result:
        size = int(float(os.environ.get("SIGMAR_FAKE_MB", "200")) * 1024 * 1024)
        if self.sub == "hog":
            held = b"\x01" * size  # written, so resident
            time.sleep(0.2)
            del held
        else:
            if self.sub == "hogchild":
                code = f"import time; x = b'1' * {size}; time.sleep(0.2)"
            else:
                code = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass"
            subprocess.run([sys.executable, "-c", code], check=False)
        return Result(Status.UNKNOWN, self.name, message="gave up after using resources")
