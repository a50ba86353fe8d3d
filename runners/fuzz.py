"""The fuzz run: deal small boards, settle their truth, grade every backend, shrink each failure.

One board is :func:`fuzz_one`, a function of the board and a :class:`Races`
(worker processes, kept across boards): run here board after board, or as
one Dask task per board on a cluster, where each worker thread keeps its own
``Races``.  Answers come through :class:`~sigmar.runners.race.Race`, so a
backend that crashes or hangs costs its worker process, never the run; every
answer is checked (solutions replayed, certificates checked) before grading.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from sigmar.encoders import registry
from sigmar.encoders.backend import Backend
from sigmar.models.board import Board
from sigmar.models.boardfile import format_board
from sigmar.models.output_files import write_file
from sigmar.models.result import Result, Status
from sigmar.models.truth import settle

from .checking.certify import ProofStore
from .checking.fuzz_grade import Failure, failure_of
from .host import hosted
from .race import Race
from .shrink import shrink
from .survey import ClusterError, enter_worker, lost_cluster, task_failure


class Races:
    """One race over every chosen backend (for grading) and one per backend (for shrinking), made on demand."""

    def __init__(self, names: list[str], time_limit: float | None) -> None:
        self.names = list(names)
        self.time_limit = time_limit
        self.backends: dict[str, Backend] = {name: registry.make(name) for name in self.names}
        self._races: dict[tuple[str, ...], Race] = {}
        # The certificate files, in a folder of our own that close() removes.  With each race's own
        # temporary store, a Dask worker lost such a folder under a running race (1 test run in 3;
        # the cause not pinned down); with this one, 8 runs in 8 passed.
        self.folder = Path(tempfile.mkdtemp(prefix="sigmar-fuzz-proofs-"))
        self.proofs = ProofStore(self.folder)

    def answers(self, board: Board, names: Iterable[str]) -> dict[str, Result]:
        """Checked answers of ``names`` on ``board``; a backend that refuses the board (quintessence) is left out."""
        playing = tuple(n for n in names if self.backends[n].refusal(board) is None)
        if not playing:
            return {}
        race = self._races.get(playing)
        if race is None:
            race = self._races[playing] = Race(list(playing), proofs=self.proofs)
        try:
            return race.solve_all(board, self.time_limit)
        finally:
            for path in self.folder.iterdir():  # checked already; the next board needs none of them
                path.unlink(missing_ok=True)

    def close(self) -> None:
        for race in self._races.values():
            race.close()
        self._races.clear()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Races:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def fails_as(races: Races, name: str, failure: Failure, board: Board) -> bool:
    """Whether backend ``name`` still fails on ``board`` with the same kind of failure."""
    answer = races.answers(board, [name]).get(name)
    return answer is not None and failure_of(answer, settle(board)) is failure


def fuzz_one(races: Races, board: Board, shrink_budget: int = 2000) -> dict[str, Any]:
    """One board graded and every failure shrunk, as a JSON-ready record."""
    truth = settle(board)
    answers = races.answers(board, races.names)
    record: dict[str, Any] = {
        "board": board.name,
        "dim": board.dim,
        "tiles": len(board),
        "truth": "solvable" if truth.solvable else "unsolvable",
        "answers": {name: str(answer.status) for name, answer in answers.items()},
        # Per backend that said unsolvable: whether a certificate came with it and was checked (else a claim).
        "certified": {name: answer.checked for name, answer in answers.items() if answer.status is Status.UNSOLVABLE},
        "failures": [],
    }
    for name, answer in answers.items():
        failure = failure_of(answer, truth)
        if failure is None:
            continue
        small, tried = shrink(board, partial(fails_as, races, name, failure), shrink_budget)
        record["failures"].append(
            {
                "backend": name,
                "failure": str(failure),
                "message": answer.message or answer.explanation,
                "original": format_board(board),
                "shrunk": format_board(small),
                "shrunk_tiles": len(small),
                "candidates_tried": tried,
            }
        )
    return record


def fuzz_locally(boards: Iterable[Board], names: list[str], time_limit: float | None) -> Iterator[dict[str, Any]]:
    with Races(names, time_limit) as races:
        for board in boards:
            yield fuzz_one(races, board)


# -- on a Dask cluster --------------------------------------------------------

_local = threading.local()  # one Races per host (a host runs one call at a time), kept across its tasks


def fuzz_task(
    families: tuple[tuple[str, str, str], ...], names: tuple[str, ...], board: Board, time_limit: float | None
) -> dict[str, Any]:
    """One board in a Dask worker's host (:mod:`sigmar.runners.host`): graded and shrunk there, with its own races."""
    enter_worker(families)
    key = (families, names, time_limit)
    if getattr(_local, "key", None) != key:
        if getattr(_local, "races", None) is not None:
            _local.races.close()
        _local.races, _local.key = Races(list(names), time_limit), key
    return fuzz_one(_local.races, board)


def fuzz_on_cluster(
    boards: list[Board], names: list[str], time_limit: float | None, address: Any
) -> Iterator[dict[str, Any]]:
    """Every board as one task on an existing Dask scheduler; records in the order they finish."""
    from distributed import Client, as_completed

    client = address if isinstance(address, Client) else Client(address, timeout="10s")
    try:
        families, chosen = registry.FAMILIES, tuple(names)
        run = uuid.uuid4().hex  # in every key: two runs on one scheduler never share a task (nor its answer)
        futures = [
            client.submit(hosted, fuzz_task, families, chosen, b, time_limit, pure=False, key=f"sigmar-fuzz-{run}-{i}")
            for i, b in enumerate(boards)
        ]
        for future in as_completed(futures):
            with lost_cluster():
                if future.status != "finished":
                    raise ClusterError(task_failure(future))
                record = future.result()
            yield record
    finally:
        if client is not address:
            client.close()


# -- the files of a failure ---------------------------------------------------


@dataclass(frozen=True)
class Written:
    board_file: Path
    report_file: Path
    report: dict[str, Any]


def failure_stem(board_name: str, backend: str, failure: str) -> str:
    """A file name from the board, backend and failure: letters, digits, '-' and '_' only."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", f"{board_name}-{backend}-{failure}")


def write_failure(out: Path, seed: int, record: dict[str, Any], failure: dict[str, Any]) -> Written:
    """``out/NAME.txt`` (the shrunk board, named NAME) and ``out/NAME.json`` (what failed and how to see it again)."""
    stem = failure_stem(record["board"], failure["backend"], failure["failure"])
    board_file = out / f"{stem}.txt"
    shrunk = failure["shrunk"].split("\n", 1)[1] if failure["shrunk"].startswith("# ") else failure["shrunk"]
    write_file(board_file, f"# {stem}\n{shrunk}")
    report = {
        "backend": failure["backend"],
        "failure": failure["failure"],
        "message": failure["message"],
        "seed": seed,
        "board": record["board"],
        "original": failure["original"],
        "shrunk_tiles": failure["shrunk_tiles"],
        "command": f"sigmar fuzz --replay {board_file} --backend {failure['backend']}",
    }
    report_file = out / f"{stem}.json"
    write_file(report_file, _json(report) + "\n")
    return Written(board_file, report_file, report)


def _json(value: Any) -> str:
    import json

    return json.dumps(value, indent=2)
