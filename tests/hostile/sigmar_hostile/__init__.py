"""A deliberately hostile sigmar backend: ``hostile:BEHAVIOUR`` misbehaves as BEHAVIOUR says.

Nothing it says may be trusted, and nothing it does may take a run down (tests/test_hostile_backend.py,
scripts/bench/hostile_backends.py).  :data:`BEHAVIOURS` names every behaviour and what it does.
Its ``count`` behaves the same way (crashes, hangs, forks and floods, then counts truly), and
:data:`COUNT_LIES` names the behaviours whose solve is true but whose count lies or is malformed.
Processes it leaves running carry :data:`ORPHAN` in their command line, so a test can look for them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from sigmar import Backend, Board, Certificate, CertificateKind, Move, Reason, Result, Status

ORPHAN = "sigmar-hostile-orphan"


def sleeper() -> list[str]:
    """A sleeping process whose command line carries ORPHAN (and $SIGMAR_HOSTILE_TAG, to tell runs apart)."""
    tag = os.environ.get("SIGMAR_HOSTILE_TAG", "")
    return [sys.executable, "-c", "import time, sys; time.sleep(float(sys.argv[1]))", "300", ORPHAN, tag]


FLOOD_LINE = '{"board": "FLOOD", "status": "unsolvable"}'


def honest(board: Board, time_limit: float | None) -> Result:
    """The search backend's answer (a true one), for behaviours that lie about something else."""
    from sigmar.encoders.search import SearchBackend

    return SearchBackend().solve(board, time_limit)


def _no(name: str, **fields: Any) -> Result:
    return Result(Status.UNSOLVABLE, name, 0.001, **fields)


class Sneaky(Result):
    """A Result whose ``with_`` keeps it as it is: a runner that calls it to reset a field resets nothing."""

    def with_(self, **changes: Any) -> Result:
        return self


def _sleeper(**popen: Any) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        sleeper(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **popen
    )


def _daemon() -> None:
    """The classic double fork: a grandchild in a session of its own, whose parent is gone."""
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            argv = sleeper()
            os.execv(argv[0], argv)
        os._exit(0)
    os.waitpid(pid, 0)


def _flood(stream: int, lines: int) -> None:
    for _ in range(lines):
        os.write(stream, (FLOOD_LINE + "\n").encode())


def _bound_of_every_tile(board: Board) -> str:
    """A play-bound file (docs/formats.md#play-bound-files) saying no play clears more than every tile."""
    import json

    tiles = [list(board.rowcol(t.cell)) for t in board.tiles]
    header = {"format": "sigmar-play-bound", "version": 1, "board": board.name, "cleared": len(tiles), "tiles": tiles}
    return json.dumps(header) + "\n" + json.dumps({"state": format((1 << len(tiles)) - 1, "x"), "stays": []}) + "\n"


# name -> (what it does, solve(name, board, time_limit) -> anything)
BEHAVIOURS: dict[str, tuple[str, Callable[[str, Board, float | None], Any]]] = {
    # -- lies about the fields the runner owns (R1)
    "checked-no": (
        "says unsolvable (proof) with checked=True",
        lambda n, b, t: _no(n, reason=Reason.PROOF, explanation="trust me", checked=True, check_seconds=0.0),
    ),
    "checked-stuck": (
        "a stuck certificate naming an empty cell, checked=True",
        lambda n, b, t: _no(
            n, reason=Reason.STATIC, certificate=Certificate(CertificateKind.STUCK, ((0, 0),)), checked=True
        ),
    ),
    "verified-empty": ("solved with no moves, verified=True", lambda n, b, t: Result(Status.SOLVED, n, verified=True)),
    "wrong-flag": ("a true answer with wrong=True", lambda n, b, t: honest(b, t).with_(backend=n, wrong=True)),
    "false-claims": (
        "unknown, with a checked unsolvable claim from search",
        lambda n, b, t: Result(Status.UNKNOWN, n, claims=(_no("search", reason=Reason.PROOF, checked=True),)),
    ),
    "certificate-file": (
        "a dead-states certificate whose file is one of its choosing",
        lambda n, b, t: _no(
            n,
            reason=Reason.EXHAUSTED,
            certificate=Certificate(CertificateKind.DEAD_STATES, file=os.devnull),
            checked=True,
        ),
    ),
    "named-search": ("answers unsolvable as 'search'", lambda n, b, t: _no("search", reason=Reason.EXHAUSTED)),
    "corroborated": ("unsolvable, reason corroborated", lambda n, b, t: _no(n, reason=Reason.CORROBORATED)),
    "counts-lie": ("unsolvable, reason counts, on any board", lambda n, b, t: _no(n, reason=Reason.COUNTS)),
    "forged-dead": (
        "a dead-states certificate of one empty line",
        lambda n, b, t: _no(
            n,
            reason=Reason.EXHAUSTED,
            certificate=Certificate(CertificateKind.DEAD_STATES, texts={".dead.jsonl": "\n"}),
        ),
    ),
    "forged-drup": (
        "a DRUP proof that is only the empty clause",
        lambda n, b, t: _no(
            n, reason=Reason.PROOF, certificate=Certificate(CertificateKind.DRUP, texts={".drup": "0\n"})
        ),
    ),
    "sneaky-subclass": (
        "a Result subclass whose with_ changes nothing, checked=True",
        lambda n, b, t: Sneaky(Status.UNSOLVABLE, n, reason=Reason.PROOF, checked=True),
    ),
    # -- malformed answers (R4)
    "not-a-result": ("returns a dict", lambda n, b, t: {"status": "unsolvable", "checked": True}),
    "cells-lists": (
        "a move whose cells are lists",
        lambda n, b, t: Result(Status.SOLVED, n, moves=(Move([[0, 0], [1, 1]]),)),
    ),  # type: ignore[list-item]
    "moves-none": ("moves=None", lambda n, b, t: Result(Status.SOLVED, n, moves=None)),  # type: ignore[arg-type]
    "status-string": ("status as a plain string", lambda n, b, t: Result("unsolvable", n, reason=Reason.PROOF)),  # type: ignore[arg-type]
    "kind-string": (
        "a certificate kind as a string",
        lambda n, b, t: _no(n, reason=Reason.STATIC, certificate=Certificate("stuck", ((0, 0),))),  # type: ignore[arg-type]
    ),
    "kind-play-bound": (
        "a play-bound file of every tile (true of any board) as the certificate of unsolvable",
        lambda n, b, t: _no(
            n,
            reason=Reason.PROOF,
            certificate=Certificate("play-bound", texts={".bound.jsonl": _bound_of_every_tile(b)}),  # type: ignore[arg-type]
        ),
    ),
    "texts-bytes": (
        "certificate texts as bytes",
        lambda n, b, t: _no(
            n,
            reason=Reason.EXHAUSTED,
            certificate=Certificate(CertificateKind.DEAD_STATES, texts={".dead.jsonl": b"{}"}),  # type: ignore[dict-item]
        ),
    ),
    "suffix-slash": (
        "a certificate suffix with '/'",
        lambda n, b, t: _no(
            n,
            reason=Reason.EXHAUSTED,
            certificate=Certificate(CertificateKind.DEAD_STATES, texts={"/../../escaped": "x"}),
        ),
    ),
    "stuck-none": (
        "stuck cells of None",
        lambda n, b, t: _no(n, reason=Reason.STATIC, certificate=Certificate(CertificateKind.STUCK, (None,))),  # type: ignore[arg-type]
    ),
    "statistics-bytes": (
        "statistics that JSON cannot write",
        lambda n, b, t: honest(b, t).with_(backend=n, statistics={"raw": b"\x00"}),
    ),
    "seconds-nan": ("seconds=nan", lambda n, b, t: honest(b, t).with_(backend=n, seconds=float("nan"))),
    # -- crashes and hangs
    "raises": ("raises RuntimeError", lambda n, b, t: _raise(RuntimeError("hostile"))),
    "system-exit": ("raises SystemExit(5)", lambda n, b, t: _raise(SystemExit(5))),
    "exits": ("os._exit(7) while solving", lambda n, b, t: os._exit(7)),
    "segfault": ("kills itself with SIGSEGV", lambda n, b, t: os.kill(os.getpid(), signal.SIGSEGV)),
    "hangs": ("sleeps for ever, ignores stop()", lambda n, b, t: _sleep_for_ever()),
    "ignores-term": ("ignores SIGTERM and SIGINT, then sleeps for ever", lambda n, b, t: _deaf_sleep()),
    "late": ("answers truly, 3 s past its time limit", lambda n, b, t: _late(b, t)),
    # -- processes it leaves behind (R5)
    "child": ("a sleeping child in its process group, then a true answer", lambda n, b, t: _after(_sleeper(), b, t)),
    "setsid-child": (
        "a sleeping child in a session of its own, then a true answer",
        lambda n, b, t: _after(_sleeper(start_new_session=True), b, t),
    ),
    "daemon": (
        "a double-forked sleeper in its own session, then a true answer",
        lambda n, b, t: _after(_daemon(), b, t),
    ),
    "setsid-exits": (
        "a sleeper in its own session, then os._exit(7)",
        lambda n, b, t: (_sleeper(start_new_session=True), os._exit(7)),
    ),
    "setsid-hangs": (
        "a sleeper in its own session, then sleeps for ever",
        lambda n, b, t: (_sleeper(start_new_session=True), _sleep_for_ever()),
    ),
    # -- output (R6)
    "floods-stdout": (
        f"1,000 lines {FLOOD_LINE} on standard output, then a true answer",
        lambda n, b, t: _after(_flood(1, 1000), b, t),
    ),
    "floods-stderr": (
        "1,000 lines on standard error, then a true answer",
        lambda n, b, t: _after(_flood(2, 1000), b, t),
    ),
    "prints": (
        "print() of a fake answer, then a true answer",
        lambda n, b, t: _after(print(FLOOD_LINE, flush=True), b, t),
    ),
    "streams": ("writes to standard output until its time limit", lambda n, b, t: _stream(t)),
    "floods-exits": (
        "1,000 lines on standard output, then os._exit(7)",
        lambda n, b, t: (_flood(1, 1000), os._exit(7)),
    ),
}


def honest_count(board: Board, of: str, time_limit: float | None) -> tuple[int, bool]:
    """The search backend's count (a true one)."""
    from sigmar.encoders.search import SearchBackend

    return SearchBackend().count(board, of, time_limit)


class EqualsAll(int):
    """An int equal to every number: a runner that compares it with the reference finds them equal."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0


class Unprintable:
    """A value whose repr raises: a runner that names it in a message must not fall over."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def _more(board: Board, of: str, time_limit: float | None, exact: bool) -> tuple[int, bool]:
    return honest_count(board, of, time_limit)[0] + 1, exact


# name -> (what its count does, count(board, of, time_limit) -> anything); its solve answers truly
COUNT_LIES: dict[str, tuple[str, Callable[[Board, str, float | None], Any]]] = {
    "count-more": ("counts one more than there are, exact", lambda b, o, t: _more(b, o, t, True)),
    "count-bound-above": ("a lower bound one above the true count", lambda b, o, t: _more(b, o, t, False)),
    "count-equals-all": ("an int subclass equal to every number", lambda b, o, t: (EqualsAll(7), True)),
    "count-bool": ("(True, True)", lambda b, o, t: (True, True)),
    "count-float": ("the true count as a float", lambda b, o, t: (float(honest_count(b, o, t)[0]), True)),
    "count-negative": ("(-1, True)", lambda b, o, t: (-1, True)),
    "count-exact-string": ("exact as the string 'yes'", lambda b, o, t: (honest_count(b, o, t)[0], "yes")),
    "count-list": ("a list [value, exact]", lambda b, o, t: list(honest_count(b, o, t))),
    "count-none": ("None", lambda b, o, t: None),
    "count-huge": ("a count of 5,000 digits", lambda b, o, t: (10**4999, True)),
    "count-unprintable": ("a value whose repr raises", lambda b, o, t: (Unprintable(), True)),
}


def _raise(exc: BaseException) -> None:
    raise exc


def _sleep_for_ever() -> None:
    while True:
        time.sleep(60)


def _deaf_sleep() -> None:
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    _sleep_for_ever()


def _late(board: Board, time_limit: float | None) -> Result:
    time.sleep((time_limit or 1.0) + 3.0)
    return honest(board, time_limit)


def _after(_done: object, board: Board, time_limit: float | None) -> Result:
    return honest(board, time_limit)


def _stream(time_limit: float | None) -> Result:
    end = time.monotonic() + (time_limit or 1.0)
    chunk = (FLOOD_LINE + "\n").encode() * 1000
    while time.monotonic() < end:
        os.write(1, chunk)
    return Result(Status.UNKNOWN, "hostile", message="streamed")


class HostileBackend(Backend):
    family = "hostile"
    default_sub = "checked-no"
    description = "test plugin: misbehaves as its sub-name says (never trust it)"

    @property
    def certifies(self) -> bool:
        return True  # it says so, at least

    @classmethod
    def subs(cls) -> tuple[str, ...]:
        return (*BEHAVIOURS, *COUNT_LIES)

    @classmethod
    def version(cls) -> str:
        return "hostile-1"

    def solve(self, board: Board, time_limit: float | None = None) -> Any:
        if self.sub in COUNT_LIES:
            return honest(board, time_limit).with_(backend=self.name)
        _, behave = BEHAVIOURS[self.sub]
        return behave(self.name, board, time_limit)

    def count(self, board: Board, of: str, time_limit: float | None = None) -> Any:
        if self.sub in COUNT_LIES:
            return COUNT_LIES[self.sub][1](board, of, time_limit)
        _, behave = BEHAVIOURS[self.sub]
        behave(self.name, board, time_limit)  # crashes, hangs, forks and floods as when it solves
        return honest_count(board, of, time_limit)
