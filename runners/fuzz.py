"""The fuzz run: deal small boards, settle their truth, grade every backend, shrink each failure.

One board is :func:`fuzz_one`, a function of the board and a :class:`Races`
(worker processes, kept across boards): run here board after board, or as
one Dask task per board on a cluster, where each worker thread keeps its own
``Races``.  Answers come through :class:`~sigmar.runners.race.Race`, so a
backend that crashes or hangs costs its worker process, never the run; every
answer is checked (solutions replayed, certificates checked) before grading.
"""

from __future__ import annotations

import json
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
from sigmar.encoders.backend import Backend, counts
from sigmar.encoders.processes.parent import hosted
from sigmar.models.board import Board
from sigmar.models.boardfile import format_board
from sigmar.models.counting import Notion
from sigmar.models.output_files import write_file
from sigmar.models.result import CERTIFICATE_SUFFIXES, Result, Status
from sigmar.models.solution import move_to_json
from sigmar.models.tiles import NAMES, STANDARD_METAL_NAMES
from sigmar.models.truth import settle
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.checking.count_grade import CountVerdict
from sigmar.runners.checking.fuzz_grade import Failure, count_failure, failure_of
from sigmar.runners.race import Race, count_board
from sigmar.runners.shrink import shrink
from sigmar.runners.survey import ClusterError, answer_lost, enter_worker, lost_cluster, task_failure


class Races:
    """One race over every chosen backend (for grading) and one per backend (for shrinking), made on demand.

    ``compare_counts``: each board's counts of both notions are graded too (``fuzz --compare-counts``).
    ``optional``: names left out, not refused, where they are not available (``all`` on a cluster: the host's
    machine says which, not the client's).
    """

    def __init__(
        self, names: list[str], time_limit: float | None, compare_counts: bool = False, optional: Iterable[str] = ()
    ) -> None:
        self.time_limit = time_limit
        self.compare_counts = compare_counts
        self.backends: dict[str, Backend] = {}
        dropped = frozenset(optional)
        for name in names:
            try:
                self.backends[name] = registry.make(name)
            except registry.UnknownBackend:
                if name not in dropped:
                    raise
        self.names = list(self.backends)
        self._races: dict[tuple[str, ...], Race] = {}
        # The certificate files, in a folder of our own that close() removes.  With each race's own
        # temporary store, a Dask worker lost such a folder under a running race (1 test run in 3;
        # the cause not pinned down); with this one, 8 runs in 8 passed.
        self.folder = Path(tempfile.mkdtemp(prefix="sigmar-fuzz-proofs-"))
        self.proofs = ProofStore(self.folder)
        # The rejected certificates since the board now graded began (fuzz_one empties it), read before their
        # files go, by the main file's path: a shrunk failure's certificate is among them.
        self.rejected: dict[str, dict[str, Any]] = {}

    def answers(self, board: Board, names: Iterable[str]) -> dict[str, Result]:
        """Checked answers of ``names`` on ``board``; a backend that refuses the board (quintessence) is left out."""
        playing = tuple(n for n in names if self.backends[n].refusal(board) is None)
        if not playing:
            return {}
        found: dict[str, Result] = {}
        try:
            found = self._race(playing).solve_all(board, self.time_limit)
            return found
        finally:
            self.rejected |= {
                answer.certificate.file: kept
                for answer in found.values()
                if answer.certificate is not None and answer.certificate.file and not answer.checked
                and answer.status is Status.UNSOLVABLE and (kept := certificate_of(answer)) is not None
            }  # fmt: skip
            for path in self.folder.iterdir():  # checked already; the next board needs none of them
                path.unlink(missing_ok=True)

    def counts(self, board: Board, names: Iterable[str], notion: Notion) -> CountVerdict | None:
        """The counts of ``notion`` by those of ``names`` that count it and play ``board``, graded; None if none."""
        counting = tuple(
            n for n in names if counts(type(self.backends[n]), notion) and self.backends[n].refusal(board) is None
        )
        return count_board(self._race(counting), board, notion, self.time_limit) if counting else None

    def _race(self, names: tuple[str, ...]) -> Race:
        race = self._races.get(names)
        if race is None:
            race = self._races[names] = Race(list(names), proofs=self.proofs)
        return race

    def close(self) -> None:
        for race in self._races.values():
            race.close()
        self._races.clear()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Races:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def counts_fail_as(races: Races, name: str, notion: Notion, failure: Failure, board: Board) -> bool:
    """Whether backend ``name``'s count of ``notion`` on ``board`` still fails with the same kind of failure."""
    verdict = races.counts(board, [name], notion)
    return verdict is not None and count_failure(verdict, name) is failure


def fuzz_one(races: Races, board: Board, shrink_budget: int = 2000) -> dict[str, Any]:
    """One board graded and every failure shrunk, as a JSON-ready record.

    A failure's ``message`` is what the checks said on the shrunk board (so the cells it names are
    that board's); ``original_message`` on the board dealt.  Where the shrunk board is solvable
    (a wrong "unsolvable", a rejected solution, ...), ``witness`` is the truth's solution of it.
    """
    truth = settle(board)
    races.rejected.clear()
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
        last = {"answer": answer}  # the answer on the last board that still failed: the shrunk one

        def still_fails(candidate: Board, name: str = name, failure: Failure = failure, last: dict = last) -> bool:
            got = races.answers(candidate, [name]).get(name)
            if got is None or failure_of(got, settle(candidate)) is not failure:
                return False
            last["answer"] = got
            return True

        small, tried = shrink(board, still_fails, shrink_budget)
        small_truth = truth if small is board else settle(small)
        shrunk_answer = last["answer"] if small is not board else answer
        entry = {
            "backend": name,
            "failure": str(failure),
            "message": shrunk_answer.message or shrunk_answer.explanation,
            "original_message": answer.message or answer.explanation,
            "original": format_board(board),
            "shrunk": format_board(small),
            "shrunk_tiles": len(small),
            "candidates_tried": tried,
        }
        if small_truth.solvable:
            entry["witness"] = [move_to_json(small, move) for move in small_truth.solution]
        certificate = shrunk_answer.certificate
        if failure is Failure.REJECTED_CERTIFICATE and certificate is not None:  # its files, read before they went
            kept = races.rejected.get(certificate.file or "") or certificate_of(shrunk_answer)
            if kept is not None:
                entry["certificate"] = kept
        record["failures"].append(entry)
    if races.compare_counts:
        record["failures"] += count_failures(races, board, shrink_budget)
    return record


KEPT_BYTES = 16 * 1024 * 1024  # a rejected certificate's file larger than this is named, not kept


def certificate_of(answer: Result) -> dict[str, Any] | None:
    """A rejected certificate as the failure keeps it: its kind, its cells (a stuck set) and the text of each
    of its files (by suffix), read while they are still in the races' folder; a file over ``KEPT_BYTES`` is
    left out and named in ``too_large``."""
    found = answer.certificate
    if found is None:
        return None
    kept: dict[str, Any] = {"kind": str(found.kind), "files": {}}
    if found.cells:
        kept["cells"] = [list(cell) for cell in found.cells]
    suffixes = CERTIFICATE_SUFFIXES.get(found.kind, ())
    if found.file and suffixes and found.file.endswith(suffixes[0]):
        stem = found.file[: -len(suffixes[0])]
        paths = [Path(stem + suffix) for suffix in suffixes] + sorted(
            Path(stem).parent.glob(Path(stem).name + ".node-*")
        )
        for path in paths:
            if not path.is_file():
                continue
            if path.stat().st_size > KEPT_BYTES:
                kept.setdefault("too_large", []).append(path.name)
                continue
            kept["files"][path.name[len(Path(stem).name) :]] = path.read_text(encoding="utf-8", errors="replace")
        kept["path"] = found.file
    return kept


def count_failures(races: Races, board: Board, shrink_budget: int) -> list[dict[str, Any]]:
    """Each backend's count of each notion on ``board`` against the rule engine's; every failure shrunk."""
    found = []
    for notion in Notion:
        verdict = races.counts(board, races.names, notion)
        if verdict is None:
            continue
        for name in verdict.answers:
            failure = count_failure(verdict, name)
            if failure is None:
                continue
            small, tried = shrink(board, partial(counts_fail_as, races, name, notion, failure), shrink_budget)
            again = races.counts(small, [name], notion)
            notes = again.notes if again is not None else ()
            found.append(
                {
                    "backend": name,
                    "failure": str(failure),
                    "notion": str(notion),
                    "message": "; ".join(notes or verdict.notes) or verdict.answers[name].message,
                    "original": format_board(board),
                    "shrunk": format_board(small),
                    "shrunk_tiles": len(small),
                    "candidates_tried": tried,
                }
            )
    return found


def fuzz_locally(
    boards: Iterable[Board], names: list[str], time_limit: float | None, compare_counts: bool = False
) -> Iterator[dict[str, Any]]:
    with Races(names, time_limit, compare_counts) as races:
        for board in boards:
            yield fuzz_one(races, board)


# -- on a Dask cluster --------------------------------------------------------

_local = threading.local()  # one Races per host (a host runs one call at a time), kept across its tasks


def fuzz_task(
    families: tuple[tuple[str, str, str], ...],
    names: tuple[str, ...],
    board: Board,
    time_limit: float | None,
    compare_counts: bool = False,
    optional: tuple[str, ...] = (),
) -> dict[str, Any]:
    """One board in a Dask worker's host (:class:`sigmar.encoders.processes.parent.Host`): graded and shrunk
    there, with its own races (``optional``: names dropped where this machine does not have them)."""
    enter_worker(families)
    key = (families, names, time_limit, compare_counts, optional)
    if getattr(_local, "key", None) != key:
        if getattr(_local, "races", None) is not None:
            _local.races.close()
        _local.races, _local.key = Races(list(names), time_limit, compare_counts, optional), key
    return fuzz_one(_local.races, board)


def fuzz_on_cluster(
    boards: list[Board],
    names: list[str],
    time_limit: float | None,
    address: Any,
    compare_counts: bool = False,
    optional: Iterable[str] = (),
) -> Iterator[dict[str, Any]]:
    """Every board as one task on an existing Dask scheduler; records in the order they finish (``optional``: names
    each host drops where its machine does not have them, for ``all``)."""
    from distributed import Client, as_completed

    client = address if isinstance(address, Client) else Client(address, timeout="10s")
    try:
        families, chosen = registry.FAMILIES, tuple(names)
        run = uuid.uuid4().hex  # in every key: two runs on one scheduler never share a task (nor its answer)
        futures = [
            client.submit(
                hosted,
                fuzz_task,
                families,
                chosen,
                b,
                time_limit,
                compare_counts,
                tuple(optional),
                pure=False,
                key=f"sigmar-fuzz-{run}-{i}",
            )
            for i, b in enumerate(boards)
        ]
        finishing = as_completed(futures)
        for future in finishing:
            if answer_lost(future):
                finishing.add(future)  # it comes back when computed again
                continue
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


def write_failure(
    out: Path, seed: int, record: dict[str, Any], failure: dict[str, Any], stem: str | None = None
) -> Written:
    """``out/NAME.txt`` (the shrunk board, named NAME), ``out/NAME.json`` (what failed and how to see it again)
    and, where the shrunk board is solvable, ``out/NAME.witness.json`` (the truth's solution, for ``verify``);
    a rejected certificate's files beside them.  ``stem``: NAME (default: from the board, backend and kind)."""
    kind = f"{failure['failure']}-{failure['notion']}" if "notion" in failure else failure["failure"]
    stem = stem or failure_stem(record["board"], failure["backend"], kind)
    board_file = out / f"{stem}.txt"
    shrunk = failure["shrunk"].split("\n", 1)[1] if failure["shrunk"].startswith("# ") else failure["shrunk"]
    write_file(board_file, f"# {stem}\n{shrunk}")
    report = {
        "backend": failure["backend"],
        "failure": failure["failure"],
        "message": failure["message"],
        "original_message": failure.get("original_message", failure["message"]),
        "seed": seed,
        "board": record["board"],
        "boards": [record["board"]],
        "original": failure["original"],
        "shrunk_tiles": failure["shrunk_tiles"],
        "command": f"sigmar fuzz --replay {board_file} --backend {failure['backend']}"
        + (" --compare-counts" if "notion" in failure else ""),
    }
    if "witness" in failure:
        witness_file = out / f"{stem}.witness.json"
        write_file(witness_file, json.dumps({"board": stem, "moves": failure["witness"]}) + "\n")
        report["witness"] = failure["witness"]
        report["verify"] = f"sigmar verify {board_file} {witness_file}"
    if "notion" in failure:
        report["notion"] = failure["notion"]
    if "certificate" in failure:
        report["certificate"] = keep_certificate(out, stem, board_file, failure, report)
    report_file = out / f"{stem}.json"
    write_file(report_file, json.dumps(report, indent=2) + "\n")
    return Written(board_file, report_file, report)


def keep_certificate(
    out: Path, stem: str, board_file: Path, failure: dict[str, Any], report: dict[str, Any]
) -> dict[str, Any]:
    """The rejected certificate's files beside the failure (``out/NAME.dead.jsonl``, ...), the message's
    path to the removed temporary file replaced by the kept one, and the command that checks it again."""
    certificate = failure["certificate"]
    written = []
    for suffix, text in certificate.get("files", {}).items():
        path = out / f"{stem}{suffix}"
        write_file(path, text)
        written.append(str(path))
    kept: dict[str, Any] = {"kind": certificate["kind"], "files": written}
    if "cells" in certificate:
        kept["cells"] = certificate["cells"]
    if certificate.get("too_large"):
        kept["too_large"] = certificate["too_large"]
    if written:
        old = certificate.get("path")
        if old:
            for key in ("message", "original_message"):
                report[key] = report[key].replace(old, written[0])
        kept["check"] = f"sigmar check {board_file} {written[0]}"
    return kept


# What varies from one board to the next in a failure's message, and is taken out to group failures: quoted
# names, paths, cells, the tiles' names and the numbers.
VARYING = (
    (re.compile(r"'[^']*'|\"[^\"]*\""), "'…'"),
    (re.compile(r"(?<![\w.])/[^\s,;:)]+"), "PATH"),
    (re.compile(r"\[\d+, ?\d+\]"), "[row, col]"),
    (
        re.compile(
            r"\b(" + "|".join(sorted({*NAMES.values(), *STANDARD_METAL_NAMES.values()}, key=len, reverse=True)) + r")\b"
        ),
        "TILE",
    ),
    (re.compile(r"\d+(\.\d+)?"), "N"),
)


def message_shape(message: str) -> str:
    """A failure's message with what varies from board to board taken out, so that one bug is one group:
    'move 1: not a pair: air cannot leave alone' and 'move 3: not a pair: earth cannot leave alone' are the
    same shape."""
    shape = message or ""
    for pattern, replacement in VARYING:
        shape = pattern.sub(replacement, shape)
    return " ".join(shape.split())


class FailureGroups:
    """Failures grouped by backend, kind and the shape of their message (:func:`message_shape`: one bug, one
    group, whichever board and cells it showed on): one set of files per group, written for its first
    failure, whose report lists every board the failure showed on (``boards``) and how many failures it
    holds (``count``), not one set per board."""

    def __init__(self, out: Path, seed: int) -> None:
        self.out, self.seed = out, seed
        self.groups: dict[tuple[str, str, str], Written] = {}

    @staticmethod
    def key(failure: dict[str, Any]) -> tuple[str, str, str]:
        """(backend, kind and for a count its notion, the shape of the message)."""
        kind = f"{failure['failure']}-{failure['notion']}" if "notion" in failure else failure["failure"]
        return failure["backend"], kind, message_shape(failure.get("message", ""))

    def add(self, record: dict[str, Any], failure: dict[str, Any]) -> Written:
        """The files of this failure's group: written for its first failure, and written again, under the same
        names, with a failure whose shrunk board is smaller (the group shows its smallest example)."""
        key = self.key(failure)
        found = self.groups.get(key)
        if found is None:
            found = self.groups[key] = write_failure(self.out, self.seed, record, failure)
            found.report["count"] = 1
            return found
        boards, count = [*found.report["boards"], record["board"]], found.report["count"] + 1
        if failure["shrunk_tiles"] < found.report["shrunk_tiles"]:
            stem = found.board_file.name.removesuffix(".txt")
            for stale in self.out.glob(f"{stem}.*"):  # a witness or certificate the smaller one may not have
                stale.unlink(missing_ok=True)
            found = self.groups[key] = write_failure(self.out, self.seed, record, failure, stem)
        found.report["boards"], found.report["count"] = boards, count
        write_file(found.report_file, json.dumps(found.report, indent=2) + "\n")
        return found
