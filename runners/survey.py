"""The survey: deal N random boards, answer each through the race, and estimate the solvable fraction.

- Every answer is the race's (:mod:`sigmar.runners.race`): ``solved`` with
  moves the rule engine replayed, ``unsolvable`` only with a certificate
  checked independently of the backend.  Anything else (no answer in time,
  an unchecked or merely corroborated refutation, an error) is ``unknown``.
  An unknown board may be solvable or not, so the solvable fraction is given
  as bounds that cover it: at least solved / N, at most (solved + unknown) / N,
  each end with its Wilson interval (:meth:`Tally.bounds`).
- The results file is JSON Lines, one board a line, appended and fsync'ed
  as each answer arrives.  A rerun reads it back, skips the indices already
  there and deals only the rest (a deal depends only on kind, side, seed and
  index), so a run killed even by SIGKILL loses at most the board it was on,
  and no board is answered twice.  A torn last line (the kill came mid-write)
  is cut off and that board is answered again.
- A results file has one writer: :class:`ResultsFile` holds an OS lock
  (``fcntl.flock``) on it for the whole run, so a second survey on the same
  file stops at once (exit 2), and the torn-line repair happens only under the lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import stat
import statistics
import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sigmar.encoders import registry
from sigmar.encoders.processes.parent import ChildError, hosted
from sigmar.models import input_limits
from sigmar.models.board import Board
from sigmar.models.deal import deal
from sigmar.models.errors import SigmarError
from sigmar.models.input_limits import RESULTS, InputError
from sigmar.models.output_files import cannot_write
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.race import Race, RaceOutcome
from sigmar.runners.render.answer_json import result_json
from sigmar.runners.statistics.scores import percentile

Z95 = 1.959963984540054  # the standard normal quantile for a two-sided 95% interval


class ResultsError(SigmarError, ValueError):
    """A results file that cannot be continued (wrong survey, a damaged line before the end)."""


class ClusterError(SigmarError, RuntimeError):
    """A cluster task failed: the survey stops, keeping the answers written so far."""


@dataclass(frozen=True)
class Deals:
    """Which boards a survey deals: kind, side, seed and how many."""

    kind: str
    dim: int
    seed: int
    count: int

    def board(self, index: int) -> Board:
        return deal(self.kind, self.dim, self.seed, index)

    def tags(self, index: int) -> dict[str, Any]:
        return {"index": index, "deal": self.kind, "dim": self.dim, "seed": self.seed}


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; (0, 1) when there are no trials.

    Unlike the normal approximation it stays inside [0, 1] and behaves at
    fractions near 0 or 1 and for small samples.
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def verdict(record: dict[str, Any]) -> str:
    """``solved``, ``unsolvable`` (checked certificate) or ``unknown`` for one results line."""
    if record.get("wrong"):
        return "unknown"
    status = record.get("status")
    if status == "solved" and record.get("verified"):
        return "solved"
    if status == "unsolvable" and record.get("checked"):
        return "unsolvable"
    return "unknown"


@dataclass
class Tally:
    """The running counts, the seconds per board, and any wrong answer seen."""

    solved: int = 0
    unsolvable: int = 0
    unknown: int = 0
    wrong: int = 0
    seconds: list[float] = field(default_factory=list)

    def add(self, record: dict[str, Any]) -> None:
        kind = verdict(record)
        setattr(self, kind, getattr(self, kind) + 1)
        self.wrong += 1 if record.get("wrong") else 0
        self.seconds.append(float(record.get("seconds", 0.0)))

    @property
    def answered(self) -> int:
        return self.solved + self.unsolvable

    @property
    def total(self) -> int:
        return self.answered + self.unknown

    def fraction(self) -> float | None:
        """Solved over answered boards: the fraction when no board is unknown (see :meth:`bounds`)."""
        return self.solved / self.answered if self.answered else None

    def interval(self) -> tuple[float, float]:
        return wilson(self.solved, self.answered)

    def bounds(self) -> tuple[tuple[float, float, float], tuple[float, float, float]] | None:
        """The solvable fraction's bounds over all N boards, each with its 95% Wilson interval:
        ((solved / N, low, high), ((solved + unknown) / N, low, high)).  Every unknown board
        unsolvable gives the first, every one solvable the second; None before any board."""
        if not self.total:
            return None
        most = self.solved + self.unknown
        return (
            (self.solved / self.total, *wilson(self.solved, self.total)),
            (most / self.total, *wilson(most, self.total)),
        )

    def summary(self) -> dict[str, Any]:
        low, high = self.interval()
        seconds = sorted(self.seconds)
        bounds = self.bounds()
        at_least, at_most = bounds if bounds else ((None, None, None), (None, None, None))
        return {
            "boards": self.total,
            "solved": self.solved,
            "unsolvable": self.unsolvable,
            "unknown": self.unknown,
            "wrong": self.wrong,
            "answered": self.answered,
            "solvable_fraction": self.fraction(),
            "wilson95": [low, high],
            "solvable_at_least": at_least[0],
            "solvable_at_least_wilson95": list(at_least[1:]),
            "solvable_at_most": at_most[0],
            "solvable_at_most_wilson95": list(at_most[1:]),
            "median_s": round(statistics.median(seconds), 6) if seconds else None,
            "p99_s": percentile(seconds, 99) if seconds else None,  # nearest rank: a time some board took
            "max_s": seconds[-1] if seconds else None,
        }


# What a rerun keeps of each answer already written: enough to count it (Tally) and to match the survey.
KEPT = ("index", "deal", "dim", "seed", "status", "verified", "checked", "wrong", "seconds")


class ResultsFile:
    """A survey's results file, opened for appending and locked (``fcntl.flock``) until closed.

    Why a lock: two surveys appending to one file would each answer the boards the
    other is answering, and one's repair of a torn last line could cut the line the
    other is writing.  The lock is taken without waiting: a second survey is refused
    at once (ResultsError, exit 2), naming the file.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.created = not path.exists()  # an empty file this run made is removed again at close
        flags = os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(path, flags, 0o644)
        except OSError as exc:
            raise ResultsError(f"{path}: {exc.strerror or exc}") from None
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            raise ResultsError(f"{path}: not a regular file, so not a results file")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ResultsError(
                f"{path}: another survey is writing this results file (it holds its lock); "
                "wait for it to end or give another --results file"
            ) from None
        os.set_blocking(fd, True)
        self.handle = os.fdopen(fd, "r+b")

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self.created and os.fstat(self.handle.fileno()).st_size == 0:
                self.path.unlink()  # nothing was answered (a full disk, say): no empty file left behind
        self.handle.close()  # closing the file releases the lock

    def read(self, deals: Deals) -> dict[int, dict[str, Any]]:
        """The answers already written, by index (what :data:`KEPT` names of each); a torn last line is
        cut off the file.  A damaged line before the end, or an answer of another survey (kind, side or
        seed), is a ResultsError naming the file and line."""
        size = os.fstat(self.handle.fileno()).st_size
        if size > RESULTS.bytes:
            raise ResultsError(f"{self.path}: {RESULTS.too_large(f'{size:,}')}")
        self.handle.seek(0)
        found: dict[int, dict[str, Any]] = {}
        offset = 0
        for number, raw in enumerate(iter(lambda: self.handle.readline(RESULTS.line_bytes + 1), b""), start=1):
            if not raw.endswith(b"\n"):
                if len(raw) > RESULTS.line_bytes:
                    raise ResultsError(f"{self.path}: line {number} is longer than {RESULTS.line_bytes:,} bytes")
                self._cut(offset)  # no newline at the end: the kill came mid-write; that board is answered again
                break
            offset += len(raw)
            if not raw.strip():
                continue
            record = self._record(raw.removeprefix(input_limits.BOM) if number == 1 else raw, number, deals)
            found.setdefault(record["index"], record)
        return found

    def _cut(self, length: int) -> None:
        self.handle.truncate(length)
        self.handle.flush()
        os.fsync(self.handle.fileno())

    def _record(self, raw: bytes, number: int, deals: Deals) -> dict[str, Any]:
        try:
            record = input_limits.json_value(input_limits.decode(raw, str(self.path), number), self.path, number)
            index = record["index"]
        except (InputError, KeyError, TypeError):
            raise ResultsError(f"{self.path}: line {number} is not a survey answer (JSON with an 'index')") from None
        theirs = (record.get("deal"), record.get("dim"), record.get("seed"))
        if theirs != (deals.kind, deals.dim, deals.seed):
            raise ResultsError(
                f"{self.path}: line {number} answers a {theirs[0]} deal of side {theirs[1]}, seed {theirs[2]}; "
                f"this survey is {deals.kind}, side {deals.dim}, seed {deals.seed}: use another --results file"
            )
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise ResultsError(f"{self.path}: line {number}: 'index' must be a board number, not {index!r}")
        return {key: record[key] for key in KEPT if key in record}

    def append(self, record: dict[str, Any]) -> None:
        """One answer, on disk before the next board starts (fsync); on a full disk an OutputError, and the
        file cut back to its whole lines."""
        data = (json.dumps(record, separators=(", ", ": ")) + "\n").encode()
        fd = self.handle.fileno()
        size = os.fstat(fd).st_size
        try:
            written = 0
            while written < len(data):  # unbuffered (O_APPEND): nothing is left to fail again at close
                written += os.write(fd, data[written:])
            os.fsync(fd)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            raise cannot_write(self.path, exc) from None


def read_results(path: Path, deals: Deals) -> dict[int, dict[str, Any]]:
    """The answers already in ``path`` by index (read, and a torn last line cut, under the file's lock)."""
    if not path.exists():
        return {}
    with ResultsFile(path) as results:
        return results.read(deals)


def outcome_record(board: Board, outcome: RaceOutcome) -> dict[str, Any]:
    extra: dict[str, Any] = {"wrong": outcome.wrong} if outcome.wrong else {}
    return result_json(board, outcome.result, **extra)


def _clear(proofs: ProofStore) -> None:
    """Drop the certificate files of the boards answered so far, unless the user keeps them."""
    if proofs.kept or proofs.path is None:
        return
    for path in proofs.path.iterdir():
        path.unlink(missing_ok=True)


def answer_locally(
    deals: Deals, todo: Iterable[int], names: list[str], time_limit: float | None, proof_dir: Path | None = None
) -> Iterator[dict[str, Any]]:
    """The race on this machine, board after board; yields each answer with its index."""
    todo = list(todo)
    with ProofStore(proof_dir) as proofs, Race(names, proofs=proofs) as race:
        race.expect(len(todo))  # several boards: the workers start now, in the background
        for index in todo:
            board = deals.board(index)
            record = outcome_record(board, race.solve(board, time_limit))
            _clear(proofs)
            yield deals.tags(index) | record


# -- on a Dask cluster --------------------------------------------------------

_local = threading.local()  # one race per host (a host runs one call at a time), kept across its tasks


def enter_worker(families: tuple[tuple[str, str, str], ...]) -> None:
    """In a Dask worker's host, before a board: the parent's backend registry."""
    if families != registry.FAMILIES:
        registry.FAMILIES = families


def race_task(
    families: tuple[tuple[str, str, str], ...],
    names: tuple[str, ...],
    board: Board,
    time_limit: float | None,
    optional: tuple[str, ...] = (),
) -> dict[str, Any]:
    """One board in a Dask worker's host (:class:`sigmar.encoders.processes.parent.Host`): the race there, its
    answer as JSON.  ``optional``: names the race drops, not refuses, where they are not available (``all``: the
    host's machine says which, not the client's)."""
    enter_worker(families)
    key = (families, names, optional)
    if getattr(_local, "key", None) != key:
        if getattr(_local, "race", None) is not None:
            _local.race.close()
        _local.race, _local.key = Race(list(names), optional=optional), key
        _local.race.expect(2)  # a host answers board after board: its workers start now
    race: Race = _local.race
    record = outcome_record(board, race.solve(board, time_limit))
    _clear(race.proofs)
    return record


def task_failure(future: Any) -> str:
    """Why a Dask task gave no answer, in one line: its error, or that it was cancelled (the scheduler was lost)."""
    if future.status == "error":
        exc = future.exception()
        why = str(exc) if isinstance(exc, (ClusterError, ChildError)) else repr(exc)
        return f"cluster task failed: {why}"
    return f"cluster task {future.status} (was the scheduler lost?)"


def answer_lost(future: Any) -> bool:
    """Whether a task's answer went with its worker (killed after the task ended, before this client fetched the
    answer): the scheduler runs the task again for the client that holds its future, which then finishes again.
    Taken for a failure, the board was lost (a bench exited 2, "cluster task lost")."""
    return future.status == "lost"


@contextlib.contextmanager
def lost_cluster() -> Iterator[None]:
    """Within, anything Dask raises (the scheduler gone, a connection closed) is a ClusterError: one line, exit 2.

    The answers already given stay written; a rerun with the same results file goes on from there."""
    try:
        yield
    except ClusterError:
        raise
    except Exception as exc:
        why = " ".join(str(exc).split()) or type(exc).__name__
        raise ClusterError(f"lost the Dask cluster: {type(exc).__name__}: {why}") from None


def answer_on_cluster(
    deals: Deals,
    todo: Iterable[int],
    names: list[str],
    time_limit: float | None,
    address: Any,
    optional: Iterable[str] = (),
) -> Iterator[dict[str, Any]]:
    """Every board as one task on an existing Dask scheduler; answers in the order they finish (``optional``: as
    :func:`race_task`'s).

    At most twice as many tasks as the cluster has threads are in flight, so
    a rerun after a kill repeats little and the scheduler never holds 10,000
    boards at once.  A task that fails (rather than answering ``error``)
    raises ClusterError: the answers already yielded stay written.
    """
    from distributed import Client, as_completed

    client = address if isinstance(address, Client) else Client(address, timeout="10s")
    try:
        threads = sum(w.get("nthreads", 1) for w in client.scheduler_info().get("workers", {}).values())
        window = max(2, 2 * threads)
        pending = iter(todo)
        families, chosen, dropped = registry.FAMILIES, tuple(names), tuple(optional)
        run = uuid.uuid4().hex  # in every key: two runs on one scheduler never share a task (nor its answer)

        index_of: dict[Any, int] = {}

        def submit(index: int) -> Any:
            board = deals.board(index)
            key = f"sigmar-survey-{run}-{index}"
            future = client.submit(hosted, race_task, families, chosen, board, time_limit, dropped, pure=False, key=key)
            index_of[future.key] = index
            return future

        flight = as_completed([submit(i) for _, i in zip(range(window), pending, strict=False)])
        for future in flight:
            if answer_lost(future):
                flight.add(future)  # it comes back when computed again
                continue
            index = index_of.pop(future.key)
            with lost_cluster():
                if future.status != "finished":
                    # not an answer about the board: nothing is written, so a rerun deals it again
                    raise ClusterError(f"board {deals.board(index).name}: {task_failure(future)}")
                record = future.result()
            yield deals.tags(index) | record
            with lost_cluster():
                following = next(pending, None)
                if following is not None:
                    flight.add(submit(following))
    finally:
        if client is not address:
            client.close()
