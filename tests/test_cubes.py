"""Cube-and-conquer (``prove --cubes N``) and its ``cubes`` certificate (docs/formats.md#cubes).

The board: side-6 dense deal 17 of seed 1, unsolvable, about 1,200 conflicts for Glucose 4.2.
With a probe of 100 conflicts the split has several nodes, so every part of a certificate
(a split's derived clauses, several cubes) is there to check and to tamper with.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from array import array
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.models.boardfile import format_board
from sigmar.models.deal import deal
from sigmar.models.result import CertificateKind, Result, Status
from sigmar.runners import cli
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.checking.cubes_check import node_paths, read_split, shape
from sigmar.runners.cubes import node as cube_node
from sigmar.runners.cubes.pools import LocalPool
from sigmar.runners.cubes.split import CubeProver
from tests.conftest import alive

BOARD = deal("dense", 6, 1, 17)
SOLVABLE = deal("dense", 6, 1, 1)  # about 2,200 conflicts to an assignment
# Budgets small enough that a side-6 board splits into a few cubes; no side of a split tried first
# (sides=0: with it this board's split has 2 cubes, too few for the tampering tests; its own test below).
SMALL = {"cubes": 4, "probe": 100, "budget": 200, "sides": 0}


def split(pool: Any, folder: Path, board: Any = BOARD) -> Result:
    with ProofStore(folder) as proofs:
        return CubeProver(pool, proofs, **SMALL).prove(board, 300)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Result]:
    """The board file, the folder of its certificate, and the answer, split on two local workers."""
    folder = tmp_path_factory.mktemp("cubes")
    board_file = folder / "board.txt"
    board_file.write_text(format_board(BOARD))
    with LocalPool(2) as pool:
        result = split(pool, folder / "proofs")
    return board_file, folder / "proofs", result


@pytest.fixture
def copy(made: tuple[Path, Path, Result], tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the certificate to tamper with: the board file and the ``.cubes`` file."""
    board_file, proofs, result = made
    shutil.copytree(proofs, tmp_path / "proofs")
    assert result.certificate is not None and result.certificate.file is not None
    return board_file, tmp_path / "proofs" / Path(result.certificate.file).name


def check(board_file: Path, cubes: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(["check", str(board_file), str(cubes)])
    said = capsys.readouterr()
    return code, said.out + said.err


def test_the_split_refutes_the_board_and_sigmar_check_accepts_its_certificate(
    made: tuple[Path, Path, Result], capsys: pytest.CaptureFixture[str]
) -> None:
    board_file, _, result = made
    assert result.status is Status.UNSOLVABLE and result.checked and not result.wrong, result.message
    assert result.certificate is not None and result.certificate.kind is CertificateKind.CUBES
    cubes = Path(result.certificate.file or "")
    _, nodes = read_split(cubes)
    leaves = [n for n in nodes if n.split is None]
    assert len(leaves) >= 3 and result.statistics["cubes"] == len(leaves)  # N at most: a probe may refute
    _, gap = shape(nodes)
    assert gap is None
    code, said = check(board_file, cubes, capsys)
    assert code == 0, said
    assert f"{len(leaves)} cubes" in said and "valid" in said


def test_the_certificate_is_the_same_on_one_worker(made: tuple[Path, Path, Result], tmp_path: Path) -> None:
    """The cubes and every leaf's proof are the same on one worker as on two (a split node's proof is made of
    its check's parts, which run as workers come free), and the certificate made on one is accepted."""
    from sigmar.runners.checking.certificates import check_certificate

    _, proofs, result = made
    with LocalPool(1) as pool:
        alone = split(pool, tmp_path)
    assert alone.certificate is not None and result.certificate is not None
    here, there = Path(alone.certificate.file or ""), Path(result.certificate.file or "")
    assert here.read_text() == there.read_text()
    _, nodes = read_split(here)
    leaves = [n for n in nodes if n.split is None]
    assert leaves
    for n in leaves:
        assert node_paths(here, n.node)[0].read_bytes() == node_paths(there, n.node)[0].read_bytes()
    verdict = check_certificate(BOARD, {**alone.certificate.json(), "file": str(here)})
    assert verdict.valid and verdict.unsolvable, verdict.reason


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _leaves(cubes: Path) -> list[dict[str, Any]]:
    return [r for r in _lines(cubes)[1:] if "split" not in r]


def drop_a_cube(cubes: Path) -> str:
    records = _lines(cubes)
    last = _leaves(cubes)[-1]
    _write(cubes, [r for r in records if r != last])
    return "do not cover every assignment"


def swap_two_proofs(cubes: Path) -> str:
    first, second = (node_paths(cubes, r["node"])[0] for r in _leaves(cubes)[:2])
    a, b = first.read_bytes(), second.read_bytes()
    assert a != b
    first.write_bytes(b)
    second.write_bytes(a)
    return f"node {_leaves(cubes)[0]['node']} (cube"


def leave_a_gap(cubes: Path) -> str:
    records = _lines(cubes)
    leaf = _leaves(cubes)[-1]
    taken = {abs(x) for r in records[1:] for x in r.get("cube", [])} | {r.get("split") for r in records[1:]}
    free = next(v for v in range(1, 10_000) if v not in taken)
    records[records.index(leaf)]["cube"] = [*leaf["cube"][:-1], free]
    _write(cubes, records)
    return "do not cover every assignment"


def forge_a_passed_on_clause(cubes: Path) -> str:
    root = next(r for r in _lines(cubes)[1:] if r["cube"] == [])
    lemmas = node_paths(cubes, root["node"])[1]
    lemmas.write_text(lemmas.read_text() + "1 2 0\n")
    return f"node {root['node']} (split []): "


def change_the_formula(cubes: Path) -> str:
    cnf = cubes.with_name(cubes.name.removesuffix(".cubes") + ".cnf")
    lines = cnf.read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("p cnf"))
    variables, clauses = lines[header].split()[2:]
    lines[header] = f"p cnf {variables} {int(clauses) - 1}"
    del lines[header + 1]
    cnf.write_text("\n".join(lines) + "\n")
    return "is not this board's formula"


@pytest.mark.parametrize(
    "tamper", [drop_a_cube, swap_two_proofs, leave_a_gap, forge_a_passed_on_clause, change_the_formula]
)
def test_a_tampered_certificate_is_rejected_naming_the_part(
    tamper: Any, copy: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    board_file, cubes = copy
    names = tamper(cubes)
    code, said = check(board_file, cubes, capsys)
    assert code == 3, said
    assert "INVALID" in said and names in said, said


def test_the_checker_written_from_the_docs_agrees(
    made: tuple[Path, Path, Result], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/formats.md#cubes is enough: tests/formats_checker gives sigmar check's verdict, genuine and tampered."""
    from tests.formats_checker import check as second_check

    board_file, proofs, result = made
    assert result.certificate is not None
    for n, tamper in enumerate([None, drop_a_cube, swap_two_proofs, leave_a_gap, forge_a_passed_on_clause]):
        shutil.copytree(proofs, tmp_path / str(n))
        cubes = tmp_path / str(n) / Path(result.certificate.file or "").name
        if tamper is not None:
            tamper(cubes)
        ours, said = check(board_file, cubes, capsys)
        theirs = second_check(board_file, cubes)
        capsys.readouterr()
        assert ours == theirs == (0 if tamper is None else 3), (tamper, said)


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda cubes: node_paths(cubes, _leaves(cubes)[0]["node"])[0].unlink(), "missing"),
        (lambda cubes: cubes.write_text(cubes.read_text() + "{not json\n"), "JSON"),
        (lambda cubes: cubes.write_text(cubes.read_text() + '{"node": 99, "cube": [1], "colour": 1}\n'), "colour"),
        (lambda cubes: cubes.write_text(cubes.read_text() + '{"node": 99, "cube": [99999999]}\n'), "literals"),
        (lambda cubes: cubes.write_text('{"format": "sigmar-dead-states"}\n'), "not a cubes header"),
    ],
)
def test_a_malformed_certificate_is_one_line_and_exit_2(
    damage: Any, says: str, copy: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    board_file, cubes = copy
    damage(cubes)
    code, said = check(board_file, cubes, capsys)
    assert code == 2, said
    assert says in said and len(said.strip().splitlines()) == 1, said


def test_a_deep_split_sharing_one_lemmas_file_is_refused_before_any_proof_is_checked(
    copy: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 47, S7: 300 splits whose .lemmas are one hard-linked file would be checked against depth x
    that file (on the main of then, 9.5 MB ran 300 s and 1.2 GB); the check is bounded by the certificate's
    size, so it refuses (exit 2) at once, naming the bound."""
    board_file, cubes = copy
    header = _lines(cubes)[0]
    for path in cubes.parent.glob("*.node-*"):
        path.unlink()
    shared = cubes.with_name("shared.lemmas")
    shared.write_text("".join(f"{v} {v + 1} -{v + 2} 0\n" for v in range(1, 2_000)) * 2)  # about 40 KB
    depth, records = 300, [header]
    cube: list[int] = []
    for k in range(depth):  # node 2k splits on variable k+1; its positive child goes on, the negative is a leaf
        records.append({"node": 2 * k, "cube": list(cube), "split": k + 1})
        records.append({"node": 2 * k + 1, "cube": [*cube, -(k + 1)]})
        cube.append(k + 1)
    records.append({"node": 2 * depth, "cube": cube})
    _write(cubes, records)
    for record in records[1:]:
        proof, lemmas = node_paths(cubes, record["node"])
        proof.write_text("0\n")
        if "split" in record:
            lemmas.hardlink_to(shared)
    code, said = check(board_file, cubes, capsys)
    assert code == 2 and "times the certificate's" in said and len(said.strip().splitlines()) == 1, said


def test_a_full_disk_while_the_cubes_are_proved_is_cannot_write_not_a_wrong_answer(tmp_path: Path) -> None:
    """Issue 47, S6: a node's proof cut short by a full TMPDIR was checked, rejected, and reported as
    "1 WRONG", exit 3.  A write that fails while a proof is made is "cannot write", exit 2 (the full disk
    is every file capped at 4 KB, as tests/test_hostile_backend.py makes it)."""
    from tests.test_hostile_backend import assert_one_line_exit_2, full_disk

    board_file = tmp_path / "board.txt"
    board_file.write_text(format_board(BOARD))
    done = full_disk("prove", str(board_file), "--cubes", "2", "--no-corroborate", cwd=tmp_path)
    assert_one_line_exit_2(done)
    assert "WRONG" not in done.stdout + done.stderr, done.stdout


def test_a_cube_with_a_model_gives_the_verified_solution(tmp_path: Path) -> None:
    with LocalPool(2) as pool:
        result = split(pool, tmp_path, SOLVABLE)
    assert result.status is Status.SOLVED and result.verified, result.message


class InProcess:
    """A pool that works each node here, at once (so a test can change what a node's check says)."""

    def submit(self, fn: Any, *args: Any, key: str = "", prefer: Any = None, priority: int = 0) -> Any:
        from concurrent.futures import Future

        future: Future[Any] = Future()
        future.set_result(fn(*args))
        return future

    def where(self, future: Any) -> Any:
        return None

    def cancel(self) -> None:
        pass

    def describe(self) -> str:
        return "this process"


class _TwoWide(InProcess):
    """Two workers, as the split sees them; each call made here at once but the workers' ``prepare`` held
    (``hold``: never done), and at each call whether the runner's own encoding had been started."""

    def __init__(self, hold: bool) -> None:
        self.hold, self.seen = hold, []

    def width(self) -> int:
        return 2

    def submit(self, fn: Any, *args: Any, key: str = "", prefer: Any = None, priority: int = 0) -> Any:
        from concurrent.futures import Future

        from sigmar.runners.checking import fresh_formula

        self.seen.append((fn.__name__, fresh_formula.prepared(BOARD)))
        if fn is cube_node.prepare and self.hold:
            return Future()
        return super().submit(fn, *args)


@pytest.mark.parametrize("hold", [False, True])
def test_the_runner_encodes_the_board_once_the_other_worker_has_not_beside_the_root(tmp_path: Path, hold: bool) -> None:
    """The runner's own encoding (the certificate's) starts once the other worker's is done, not beside the
    root's solve and that worker's encoding; a worker that never ends its encoding leaves it to the end."""
    pool = _TwoWide(hold)
    result = split(pool, tmp_path)
    assert result.status is Status.UNSOLVABLE and result.checked, result.message
    assert pool.seen[:2] == [("work", False), ("prepare", False)], pool.seen
    later = [seen for _, seen in pool.seen[2:]]
    assert later and (not any(later) if hold else later[-1]), pool.seen


def test_a_node_whose_proof_fails_its_check_makes_the_answer_wrong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    import sigmar.runners.cubes.node as node

    real = node.check_proof

    def failing(*args: Any, **kwargs: Any) -> Any:
        report = real(*args, **kwargs)
        return replace(report, valid=False, message="lemma on proof line 1 (7) does not follow by unit propagation")

    monkeypatch.setattr(node, "check_proof", failing)
    result = split(InProcess(), tmp_path)
    assert result.wrong and result.status is not Status.UNSOLVABLE and "was rejected" in result.message, result
    from sigmar.runners.render.answer_json import exit_code

    assert exit_code([result]) == 3
    assert not list(tmp_path.iterdir()), "no certificate is written for a split whose proof was rejected"


def test_a_split_derives_the_clauses_used_below_it_and_the_certificate_gives_only_those(tmp_path: Path) -> None:
    """A split is checked once every node below it is, and derives only the clauses it passed on that
    their checks rested on; the certificate's lemmas files hold those and its proofs the lemmas checked
    (no deletion), and sigmar check's code accepts it."""
    from sigmar.runners.checking.certificates import check_certificate

    with ProofStore(tmp_path) as proofs:
        prover = CubeProver(InProcess(), proofs, **SMALL)
        result = prover.prove(BOARD, 300)
    assert result.status is Status.UNSOLVABLE and result.checked, result.message
    splits = [n for n in prover.nodes if n["outcome"] == "split"]
    assert splits and all(n["derived"] is not None and n["derived"] <= n["passed_on"] for n in splits)
    assert any(n["derived"] < n["passed_on"] for n in splits), splits
    assert result.certificate is not None and result.certificate.file
    cubes = Path(result.certificate.file)
    lemmas = sorted(cubes.parent.glob(cubes.stem + "*.lemmas"))
    assert sorted(len(p.read_text().splitlines()) for p in lemmas) == sorted(n["derived"] for n in splits)
    for proof in cubes.parent.glob(cubes.stem + "*.drup"):
        assert not any(line.startswith("d") for line in proof.read_text().splitlines()), proof
    verdict = check_certificate(BOARD, {**result.certificate.json(), "file": str(cubes)})
    assert verdict.valid and verdict.unsolvable, verdict.reason


def test_a_split_is_checked_in_two_parts_the_first_once_one_subtree_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Node 0's first child is refuted and checked while its second child's subtree is still at work: the
    first part of node 0's check derives what that check used, the rest (with the first part's lemmas
    given) only what the other subtree added; the certificate gives both parts' lemmas, and sigmar
    check's code accepts it."""
    import sigmar.runners.cubes.split as split_module
    from sigmar.runners.checking.certificates import check_certificate
    from sigmar.runners.checking.rup_check import unflatten

    real, asked = split_module.check, []

    def watched(job: Any) -> Any:
        done = real(job)
        if job.goals is not None:
            asked.append((job.node, {tuple(c) for c in unflatten(job.goals)}, job.known, done.core))
        return done

    monkeypatch.setattr(split_module, "check", watched)
    with ProofStore(tmp_path) as proofs:
        prover = CubeProver(InProcess(), proofs, **SMALL)
        result = prover.prove(BOARD, 300)
    assert result.status is Status.UNSOLVABLE and result.checked, result.message
    root = [a for a in asked if a[0] == 0]
    assert len(root) == 2, [(a[0], len(a[1]), bool(a[2])) for a in asked]
    (_, first, known_first, core_first), (_, rest, known_rest, core_rest) = root
    assert first and rest and not first & rest, "each part derives its own clauses"
    assert not known_first and known_rest == core_first, "the rest is given the lemmas the first part checked"
    record = next(n for n in prover.nodes if n["node"] == 0)
    assert record["first_check_seconds"] is not None and record["derived"] == len(first) + len(rest)
    assert result.certificate is not None and result.certificate.file
    cubes = Path(result.certificate.file)
    proof = next(p for p in cubes.parent.glob(cubes.stem + "*.drup") if p.read_text() == core_first + core_rest)
    assert proof.exists()
    verdict = check_certificate(BOARD, {**result.certificate.json(), "file": str(cubes)})
    assert verdict.valid and verdict.unsolvable, verdict.reason


def test_a_split_takes_a_part_of_its_check_whenever_a_worker_is_free_and_more_was_used_below() -> None:
    """On a pool that runs calls side by side, a split's check is asked in parts of free workers (spare): none
    while nothing below used its clauses, none with no worker free, one at a time; each derives what the
    checks below used and no part before it derives, given the lemmas those parts checked; once every node
    below is checked with nothing left to derive, the split is checked by its parts alone."""
    from sigmar.runners.checking.rup_check import CheckReport, unflatten
    from sigmar.runners.cubes.node import CheckDone, NodeDone
    from sigmar.runners.cubes.split import _Checks, _joined, _Node

    passes_on = array("i", [1, 2, 0, -3, 0, 4, 0])
    nodes = {
        0: _Node(0, (), None, (), 10, 0.0),
        1: _Node(1, (5,), 0, (passes_on,), 10, 0.0),
        2: _Node(2, (-5,), 0, (passes_on,), 10, 0.0),
    }
    nodes[0].done = NodeDone(0, "split", "", passes_on=passes_on, split=5)
    sent: list[tuple[int, Any, str, str]] = []
    checks = _Checks(nodes, lambda node, goals, known, task: sent.append((node.node, goals, known, task)), False)
    ok = CheckReport(True, 0, 0, 0, 0.0, "")

    def checked(number: int, used: list[int], core: str = "") -> CheckDone:
        return CheckDone(number, "", ok, 0.1, 0.1, (array("i", used),), core)

    assert checks.spare(2) == 0, "nothing used below yet"
    nodes[1].done, nodes[1].checked = NodeDone(1, "refuted", ""), checked(1, [0])
    assert checks.closed(nodes[1]) == 0 and not sent, "no part asked once one subtree is checked"
    assert checks.spare(0) == 0 and checks.spare(2) == 1 and checks.spare(2) == 0
    number, goals, known, task = sent[-1]
    assert (number, task, known) == (0, "part", "") and unflatten(goals) == [[1, 2]]
    nodes[0].first = _joined(None, checked(0, [], "1 2 0\n"))
    assert checks.part_done(nodes[0]) == 0
    checks.note(nodes[2], checked(2, [1, 2]))  # a check below node 2 used two more of the root's clauses
    assert checks.spare(1) == 1
    number, goals, known, task = sent[-1]
    assert (number, task, known) == (0, "part", "1 2 0\n") and unflatten(goals) == [[-3], [4]]
    nodes[0].first = _joined(nodes[0].first, checked(0, [], "-3 0\n4 0\n"))
    assert checks.part_done(nodes[0]) == 0
    nodes[2].done, nodes[2].checked = NodeDone(2, "refuted", ""), checked(2, [2])
    assert checks.closed(nodes[2]) == 0 and len(sent) == 2, "nothing left for the rest to derive"
    assert nodes[0].checked is not None and nodes[0].checked.core == "1 2 0\n-3 0\n4 0\n"
    assert nodes[0].derived == 3 and nodes[0].goals_text == "1 2 0\n-3 0\n4 0\n"


def test_a_first_part_of_a_split_check_that_fails_makes_the_answer_wrong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    import sigmar.runners.cubes.split as split_module

    real = split_module.check

    def failing(job: Any) -> Any:
        done = real(job)
        if job.node == 0 and job.goals is not None and not job.known:
            done = replace(done, report=replace(done.report, valid=False, message="goal 1 is not derived"))
        return done

    monkeypatch.setattr(split_module, "check", failing)
    with ProofStore(tmp_path) as proofs:
        result = CubeProver(InProcess(), proofs, **SMALL).prove(BOARD, 300)
    assert result.wrong and result.status is not Status.UNSOLVABLE and "node 0" in result.message, result
    assert not list(tmp_path.iterdir()), "no certificate is written for a split whose proof was rejected"


def test_a_clause_passed_on_and_used_below_that_its_node_cannot_derive_makes_the_answer_wrong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The root passes on x and not x besides what it learnt: every cube below is refuted at once from
    them, so the root's check must derive them, and cannot."""
    from array import array
    from dataclasses import replace

    import sigmar.runners.cubes.split as split_module

    real = split_module.work

    def forged(job: Any) -> Any:
        done = real(job)
        if job.node == 0 and done.outcome == "split":
            done = replace(done, passes_on=done.passes_on + array("i", [1, 0, -1, 0]))
        return done

    monkeypatch.setattr(split_module, "work", forged)
    with ProofStore(tmp_path) as proofs:
        result = CubeProver(InProcess(), proofs, **SMALL).prove(BOARD, 300)
    assert result.wrong and result.status is not Status.UNSOLVABLE and "node 0" in result.message, result
    assert not list(tmp_path.iterdir()), "no certificate is written for a split whose proof was rejected"


def test_the_time_limit_stops_the_split_and_its_workers(tmp_path: Path) -> None:
    from sigmar.encoders.processes.guard import descendants

    board = deal("dense", 8, 1, 455)  # far more than the limit allows
    started: set[int] = set()
    proving = threading.Event()

    def watch(pool: LocalPool) -> None:  # the hosts, and whatever they started, while the split runs
        while not proving.wait(0.1):
            started.update(pid for host in pool.pids() for pid in (host, *descendants(host)))

    with LocalPool(2) as pool, ProofStore(tmp_path) as proofs:
        for future in [pool.submit(time.sleep, 0, prefer=slot) for slot in range(2)]:
            future.result()  # both hosts up before the clock runs (a host starts in seconds on a loaded machine)
        watcher = threading.Thread(target=watch, args=(pool,))
        watcher.start()
        try:
            result = CubeProver(pool, proofs, cubes=4).prove(board, 3.0)
        finally:
            proving.set()
            watcher.join()
        assert result.status is Status.UNKNOWN and result.message == "time limit"
        assert started, "the split started no worker"
    deadline = time.monotonic() + 30
    while any(alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in started if alive(pid)], "a worker outlived the split"


def test_prove_cubes_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board_file = tmp_path / "board.txt"
    board_file.write_text(format_board(BOARD))
    folder = tmp_path / "proofs"
    code = cli.main(
        ["prove", str(board_file), "--cubes", "4", "--no-corroborate", "--json", "--proof-dir", str(folder)]
    )
    said = capsys.readouterr()
    assert code == 0, said.err
    record = json.loads(said.out)
    assert record["status"] == "unsolvable" and record["checked"] is True
    assert record["certificate"]["kind"] == "cubes" and record["statistics"]["cubes"] >= 1
    answers = tmp_path / "answers.jsonl"
    answers.write_text(said.out)
    assert cli.main(["check", str(board_file), str(answers)]) == 0


@pytest.mark.parametrize(
    ("extra", "says"), [(["--cubes", "1"], "from 2 to 4096"), (["--cluster", "tcp://127.0.0.1:1"], "--cubes")]
)
def test_prove_cubes_bad_arguments_are_exit_2(
    extra: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board_file = tmp_path / "board.txt"
    board_file.write_text(format_board(BOARD))
    with pytest.raises(SystemExit) as exit_:
        code = cli.main(["prove", str(board_file), *extra])
        raise SystemExit(code)
    assert exit_.value.code == 2
    assert says in capsys.readouterr().err


def test_survey_settles_what_the_race_leaves_unknown_by_cubes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """cpsat's "no" is only a claim, so its race leaves every unsolvable deal unknown: the cubes settle them."""
    results, folder = tmp_path / "survey.jsonl", tmp_path / "proofs"
    survey = ["survey", "--seed", "1", "--count", "4", "-b", "cpsat", "--time-limit", "60", "--cubes", "4"]
    code = cli.main([*survey, "--results", str(results), "--proof-dir", str(folder), "--json"])
    said = capsys.readouterr()
    assert code == 0, said.err
    records = [json.loads(line) for line in results.read_text().splitlines()]
    summary = json.loads(said.out)
    assert summary["unknown"] == 0 and len(records) == 4
    refuted = [r for r in records if r["status"] == "unsolvable"]
    assert refuted and all(r["certificate"]["kind"] == "cubes" and r["checked"] for r in refuted), refuted
    assert summary["unsolvable"] == len(refuted)  # each cubes "no" counted as a checked refutation
    # nothing unknown is left, so the bounds of the solvable fraction meet
    assert summary["solvable_at_least"] == summary["solvable_at_most"] == (4 - len(refuted)) / 4
    assert all(r["verified"] for r in records if r["status"] == "solved")
    board_file = tmp_path / "boards.txt"
    board_file.write_text("\n".join(format_board(deal("dense", 6, 1, r["index"])) for r in records))
    # the whole results file: every solution replayed, every cubes certificate checked from its files
    assert cli.main(["check", str(board_file), str(results)]) == 0, capsys.readouterr()
    checked = capsys.readouterr().out
    assert checked.count("unsolvable, cubes certificate valid") == len(refuted), checked


def _answers_file(path: Path, cubes: Path) -> Path:
    """An answers file of one line, as 'prove --cubes N --json' writes it, whose certificate is ``cubes``."""
    record = {"board": BOARD.name, "status": "unsolvable", "reason": "proof", "backend": "cnf:glucose42"}
    record["certificate"] = {"kind": "cubes", "file": str(cubes)}
    path.write_text(json.dumps(record) + "\n")
    return path


@pytest.mark.parametrize("tamper", [None, drop_a_cube, swap_two_proofs, leave_a_gap])
def test_an_answers_file_checks_its_cubes_certificate_like_any_other(
    tamper: Any, copy: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board_file, cubes = copy
    names = tamper(cubes) if tamper is not None else "cubes"
    code, said = check(board_file, _answers_file(tmp_path / "answers.jsonl", cubes), capsys)
    if tamper is None:
        assert code == 0 and "unsolvable, cubes certificate valid" in said, said
    else:
        assert code == 3 and "unsolvable, cubes certificate INVALID" in said and names in said, said


def test_an_answers_file_holds_a_cubes_certificate_to_its_own_limit(
    copy: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGMAR_MAX_CUBES bounds the .cubes file inside an answers file as it does alone: exit 2, naming it."""
    board_file, cubes = copy
    monkeypatch.setenv("SIGMAR_MAX_CUBES", str(cubes.stat().st_size - 1))
    code, said = check(board_file, _answers_file(tmp_path / "answers.jsonl", cubes), capsys)
    assert code == 2 and "SIGMAR_MAX_CUBES" in said, said
    code, said = check(board_file, cubes, capsys)
    assert code == 2 and "SIGMAR_MAX_CUBES" in said and str(cubes) in said, said


def test_a_cubes_answer_whose_files_were_temporary_says_to_keep_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board_file = tmp_path / "board.txt"
    board_file.write_text(format_board(BOARD))
    assert cli.main(["prove", str(board_file), "--cubes", "4", "--no-corroborate", "--json"]) == 0
    answers = tmp_path / "answers.jsonl"
    answers.write_text(capsys.readouterr().out)
    code, said = check(board_file, answers, capsys)
    assert code == 3 and "cubes certificate NOT CHECKED" in said and "--proof-dir" in said, said


def test_prove_cubes_prints_the_board_with_its_corroboration_timed_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board_file = tmp_path / "board.txt"
    board_file.write_text(format_board(BOARD))
    assert cli.main(["prove", str(board_file), "--cubes", "4", "--corroborate", "1"]) == 0
    header, line, summary = capsys.readouterr().out.splitlines()
    assert summary.startswith("1 board: 0 solved, 1 unsolvable (checked)"), summary
    assert "proof s" in header and "corrob. s" in header
    name, status, reason, checked, proof_s, corrob_s = line.split()[:6]
    assert (status, reason, checked) == ("unsolvable", "proof", "yes"), line
    assert float(proof_s) > 0 and float(corrob_s) >= 0, line
    assert "cubes" in line, line


def test_a_checked_cubes_no_is_graded_certified(made: tuple[Path, Path, Result]) -> None:
    """bench and crosscheck grade it as any checked "no": correct and certified; unchecked, a claim."""
    from sigmar.runners.checking.grading import Grade, certified, grade_board

    _, _, result = made
    verdict = grade_board(BOARD, {"cubes": result})
    assert verdict.grades == {"cubes": Grade.CORRECT} and verdict.truth == "unsolvable"
    assert certified(result) == "yes"
    claim = result.with_(checked=False)
    assert grade_board(BOARD, {"cubes": claim}).grades == {"cubes": Grade.UNCONFIRMED} and certified(claim) == "no"


@pytest.fixture(scope="module")
def dask_cluster() -> Any:
    """A Dask cluster of two workers, each with its nanny (so its worker process is daemonic), as users have one."""
    distributed = pytest.importorskip("distributed", reason="--cluster needs dask.distributed")
    with distributed.LocalCluster(
        processes=True, n_workers=2, threads_per_worker=1, dashboard_address=":0", silence_logs=50
    ) as cluster:
        yield cluster


def test_two_splits_at_once_on_one_dask_cluster_keep_their_own_answers(
    made: tuple[Path, Path, Result], dask_cluster: Any, tmp_path: Path
) -> None:
    import distributed

    from sigmar.runners.cubes.pools import DaskPool

    _, _, local = made
    assert local.certificate is not None
    answers: dict[str, Result] = {}
    with distributed.Client(dask_cluster.scheduler_address) as client:

        def run(name: str, board: Any) -> None:
            with DaskPool(client) as pool:
                answers[name] = split(pool, tmp_path / name, board)

        threads = [threading.Thread(target=run, args=args) for args in (("no", BOARD), ("yes", SOLVABLE))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(600)
    assert answers["yes"].status is Status.SOLVED and answers["yes"].verified
    there = answers["no"]
    assert there.status is Status.UNSOLVABLE and there.checked and there.certificate is not None
    assert Path(there.certificate.file or "").read_text() == Path(local.certificate.file or "").read_text()


def test_prove_and_survey_cubes_on_the_cluster(
    dask_cluster: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board_file = tmp_path / "board.txt"
    board_file.write_text(format_board(BOARD))
    address = dask_cluster.scheduler_address
    prove = ["prove", str(board_file), "--cubes", "4", "--no-corroborate", "--json", "--cluster", address]
    assert cli.main([*prove, "--proof-dir", str(tmp_path / "proofs")]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["certificate"]["kind"] == "cubes" and record["checked"] and "Dask" in record["statistics"]["workers"]
    survey = ["survey", "--seed", "1", "--count", "3", "-b", "cpsat", "--time-limit", "60", "--cubes", "4"]
    results = tmp_path / "survey.jsonl"
    assert cli.main([*survey, "--cluster", address, "--results", str(results), "--json"]) == 0
    records = [json.loads(line) for line in results.read_text().splitlines()]
    refuted = [r for r in records if r["status"] == "unsolvable"]
    assert refuted and all(r["certificate"]["kind"] == "cubes" and r["checked"] for r in refuted), records


def test_the_dask_pool_gives_the_cluster_one_task_a_thread_and_cancels_the_rest(dask_cluster: Any) -> None:
    import os
    from concurrent.futures import CancelledError

    import distributed

    from sigmar.runners.cubes.pools import DaskPool

    with distributed.Client(dask_cluster.scheduler_address) as client, DaskPool(client) as pool:
        pids = [pool.submit(os.getpid, key=f"pid-{i}") for i in range(5)]
        assert len({f.result(timeout=120) for f in pids}) == 2  # one host a worker thread, each used
        slow = [pool.submit(time.sleep, 3, key=f"sleep-{i}") for i in range(4)]
        assert len(pool._running) == 2 and len(pool._waiting) == 2
        pool.cancel()
        for future in slow:
            with pytest.raises(CancelledError):
                future.result(timeout=60)


def test_cancelling_on_a_lost_cluster_ends_the_calls_without_raising() -> None:
    """A split that ends because its scheduler was killed cancels its tasks on the way out; the client is
    closed by then, and its ClosedClientError replaced the loss with a traceback (survey exit 1 at load 24)."""
    from concurrent.futures import CancelledError, Future

    from sigmar.runners.cubes.pools import DaskPool

    class ClosedClient:
        status = "closed"

        def cancel(self, futures: list[object]) -> None:
            raise RuntimeError("Client is closed. Can't send cancel-keys message.")  # as distributed says it

    pool = DaskPool(ClosedClient())
    mine: Future[Any] = Future()
    assert mine.set_running_or_notify_cancel()
    pool._running = {"their-future": mine}
    pool.cancel()
    with pytest.raises(CancelledError):
        mine.result(timeout=0)
    ClosedClient.status = "running"  # a live client that fails to cancel is still a fault, not swallowed
    other: Future[Any] = Future()
    assert other.set_running_or_notify_cancel()
    pool._running = {"their-future": other}
    with pytest.raises(RuntimeError, match="Client is closed"):
        pool.cancel()


class _LostAnswer:
    """A Dask future whose answer went with its worker: 'lost' until the scheduler has computed it again."""

    def __init__(self) -> None:
        self.status = "lost"
        self.again = threading.Event()

    def result(self) -> tuple[str, str]:
        self.again.wait(10)
        if self.status != "finished":
            raise RuntimeError("the cluster lost the task")
        return "tcp://another-worker", "the node's answer"


class _RunningClient:
    status = "running"

    def scheduler_info(self) -> dict[str, Any]:
        return {"workers": {"tcp://another-worker": {"nthreads": 1}}}


def test_an_answer_lost_with_its_worker_is_waited_for_not_taken_for_a_lost_cluster() -> None:
    """A Dask worker killed after its node's task ended, before the pool read the answer: the future turns
    'lost', Dask calls the pool's callback at once, and the scheduler computes the task again.  The pool
    waits for that answer (it took the board for lost with its cluster: exit 2, answered again on resume)."""
    from concurrent.futures import Future

    from sigmar.runners.cubes.pools import ClusterLost, DaskPool

    pool = DaskPool(_RunningClient())
    theirs = _LostAnswer()
    mine: Future[Any] = Future()
    assert mine.set_running_or_notify_cancel()
    pool._running = {theirs: mine}
    pool._finished(theirs)  # Dask's done-callback, at once on the lost future
    time.sleep(0.05)
    assert not mine.done()
    theirs.status = "finished"
    theirs.again.set()
    assert mine.result(timeout=10) == "the node's answer"
    assert pool.where(mine) == "tcp://another-worker"
    # Still lost after the wait (the cluster gave it up): a fault of the cluster, as before.
    gone = _LostAnswer()
    other: Future[Any] = Future()
    assert other.set_running_or_notify_cancel()
    pool._running = {gone: other}
    pool._finished(gone)
    gone.again.set()
    with pytest.raises(ClusterLost, match="lost"):
        other.result(timeout=10)


class _CountingClient:
    """A Dask client whose tasks end at once, counting how often the scheduler is asked for its workers."""

    status = "running"

    def __init__(self) -> None:
        self.asked = 0
        self.threads = 2

    def scheduler_info(self) -> dict[str, Any]:
        self.asked += 1
        return {"workers": {f"tcp://worker-{i}": {"nthreads": 1} for i in range(self.threads)}}

    def submit(self, located: Any, fn: Any, *args: Any, **options: Any) -> Any:
        client = self

        class Done:
            status = "finished"

            def result(self) -> tuple[str, Any]:
                return "tcp://worker-0", fn(*args)

            def add_done_callback(self, callback: Any) -> None:
                callback(self)

        assert options["key"].startswith("sigmar-cubes-") and client.status == "running"
        return Done()


def test_the_dask_pool_asks_the_scheduler_for_its_threads_once_in_a_while_not_at_every_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each call submitted and each task finished asked the scheduler how many threads the cluster has (a round
    trip, three between a node's end and its children's start); the count is now kept for WIDTH_FOR seconds."""
    from sigmar.runners.cubes.pools import DaskPool

    client = _CountingClient()
    pool = DaskPool(client)
    futures = [pool.submit(abs, -i, key=f"abs-{i}") for i in range(20)]
    assert [f.result(timeout=10) for f in futures] == list(range(20))
    assert pool.width() == 2 and client.asked == 1
    client.threads = 3  # a worker joined: seen once the count is older than WIDTH_FOR
    monkeypatch.setattr(DaskPool, "WIDTH_FOR", 0.0)
    assert pool.width() == 3 and client.asked == 2


# ---- a node's proof stretch, read in C and in Python (runners/cubes/node.py stretch) ----

_proof_steps = st.lists(
    st.tuples(st.booleans(), st.lists(st.integers(1, 6).flatmap(lambda v: st.sampled_from([v, -v])), max_size=4)),
    max_size=40,
)


@pytest.mark.skipif(cube_node._core is None, reason="the C checker (runners/checking/_drup.c) is not built")
@given(lines=_proof_steps, blank=st.booleans())
@settings(max_examples=300, deadline=None)
def test_a_stretch_reads_the_same_in_c_and_in_python(lines: list[tuple[bool, list[int]]], blank: bool) -> None:
    """Lemmas and deletions over few variables (so clauses repeat, in other orders, and deletions hit and
    miss): the proof's lines, the clauses alive at the end, the ranked variables and the deleted literals."""
    text = "".join(("d " if deletion else "") + " ".join(map(str, [*lits, 0])) + "\n" for deletion, lits in lines)
    if blank:  # what Glucose also writes: a bare 0 at the end of an unsatisfiable call, and blank lines
        text = "0\n\n" + text.replace("\n", "\n  \n0\n", 3)
    for split in (False, True):
        ours = cube_node.stretch(text.encode(), 6, split)
        theirs = cube_node._stretch_in_python(text.encode(), split)
        assert (ours[0], list(ours[1]), ours[2], ours[3]) == (theirs[0], list(theirs[1]), theirs[2], theirs[3])
    assert cube_node.ranked(text.encode(), 6) == theirs[2]  # the ranking read alone, before a split's tries


@pytest.mark.skipif(cube_node._core is None, reason="the C checker (runners/checking/_drup.c) is not built")
def test_the_ranking_read_alone_rejects_what_the_stretch_rejects() -> None:
    for bad in (b"1 2 0\n1 x 0\n", b"1 2\n", b"d 1 7 0\n"):  # not a literal; no end; beyond the variables
        with pytest.raises(ValueError, match="line"):
            cube_node.stretch(bad, 6, True)
        with pytest.raises(ValueError, match="line"):
            cube_node.ranked(bad, 6)


def test_a_stretch_passes_on_each_alive_clause_once_and_counts_deletions_that_took_one_off() -> None:
    text = b"1 2 0\n0\n\n  3 -4 0 \nd 2 1 0\n-1 3 0\nd 3 -4 0\nd 3 -4 0\n2 1 0\nd 5 0\n"

    def in_c(split: bool) -> Any:
        return cube_node.stretch(text, 5, split)

    def in_python(split: bool) -> Any:
        return cube_node._stretch_in_python(text, split)

    for read in (in_c, in_python):
        proof, alive, ranked, deleted = read(True)
        assert proof == b"1 2 0\n3 -4 0\nd 2 1 0\n-1 3 0\nd 3 -4 0\n2 1 0\n"  # premises' deletions left out
        assert list(alive) == [1, 2, 0, -1, 3, 0]  # 1 2 deleted, then added again: at its first place
        assert ranked == [1, 2, 3, 4]  # 1 three times; 2 and 3 twice, 2 named first
        assert deleted == [2, 1, 3, -4]  # the second 'd 3 -4' and 'd 5' took nothing off
        assert read(False) == (proof, array("i"), [], [])


@given(clauses=st.lists(st.lists(st.integers(-9, 9).filter(bool), max_size=5), max_size=20), blank=st.booleans())
def test_a_split_s_first_lemmas_read_in_c_as_in_python(clauses: list[list[int]], blank: bool) -> None:
    """The lemmas a split's first part checked, given to the rest of its check (node.check's CheckJob.known)."""
    text = "".join(" ".join(map(str, [*clause, 0])) + ("\n\n" if blank else "\n") for clause in clauses)
    assert cube_node._lemma_clauses(text, 9) == array("i", map(int, text.split()))


@pytest.mark.skipif(cube_node._core is None, reason="the C checker (runners/checking/_drup.c) is not built")
def test_a_split_s_first_lemmas_are_lemmas_only() -> None:
    for bad in ("1 2 0\nd 1 2 0\n", "1 x 0\n", "1 2\n", "1 12 0\n"):  # a deletion; not a literal; no end; beyond
        with pytest.raises(ValueError, match="line"):
            cube_node._lemma_clauses(bad, 9)


@given(clauses=st.lists(st.lists(st.integers(-9, 9).filter(bool), max_size=5), max_size=20))
def test_unflatten_in_c_is_unflatten_in_python(clauses: list[list[int]]) -> None:
    from sigmar.runners.checking import rup_check

    flat = array("i", [x for clause in clauses for x in [*clause, 0]] + [7])  # a clause with no 0 is left out
    assert rup_check.unflatten(flat) == clauses
    if rup_check._drup is not None:
        assert rup_check._drup.clauses(flat) == clauses


def test_a_cold_node_logs_no_deletion_of_what_its_cube_satisfies_and_its_proof_checks() -> None:
    """A node that starts a solver of its own takes its cube before the formula: Glucose then never holds a
    clause the cube's literals satisfy, so its log deletes none (given the formula first, its first solve
    deleted and logged each of them), and the node's refutation, logged from there, checks against the
    formula, the cube and the clauses passed on."""
    formula = cube_node._formula(BOARD)
    literal = formula.clauses[-1][0]
    assert sum(literal in clause for clause in formula.clauses) > 1
    for cube in ((literal,), (-literal,)):
        solver = cube_node._Solver("test", formula, "glucose42", (), cube)
        try:
            solver.sat.conf_budget(50)
            solver.sat.solve_limited()
            text = solver.log.read()
        finally:
            solver.close()
        deleted = [line.split()[1:-1] for line in text.decode().splitlines() if line.startswith("d ")]
        assert not any(str(cube[0]) in clause for clause in deleted), cube
    job = cube_node.NodeJob(BOARD, "test", 2, 0, (-literal,), (), None, "glucose42")
    done = cube_node.work(job)
    if done.outcome == "refuted":
        checked = cube_node.check(cube_node.CheckJob(BOARD, 2, job.cube, (), None, done.proof))
        assert checked.report.valid, checked.report.message


def test_a_node_goes_on_past_a_side_refuted_at_once_and_its_proof_checks(tmp_path: Path) -> None:
    """When a node's budget runs out, each side of its split variable gets a few conflicts in its own solver
    as an assumption; a side refuted there makes no cube: the node goes on (at most MAX_GOING_ON times) and
    its proof, the assumed solves' lemmas in it, checks, as does the certificate.  Without the tries the
    same board splits into more nodes."""
    from sigmar.runners.checking.certificates import check_certificate

    def proved(sides: int) -> list[dict[str, Any]]:
        with ProofStore(tmp_path / str(sides)) as proofs:
            prover = CubeProver(InProcess(), proofs, **{**SMALL, "sides": sides})
            result = prover.prove(BOARD, 300)
            assert result.status is Status.UNSOLVABLE and result.checked, result.message
            assert result.certificate is not None and result.certificate.file
            verdict = check_certificate(BOARD, {**result.certificate.json(), "file": result.certificate.file})
            assert verdict.valid and verdict.unsolvable, verdict.reason
        return prover.nodes

    with_tries, without = proved(5), proved(0)
    assert all(n["went_on"] <= cube_node.MAX_GOING_ON for n in with_tries), with_tries
    assert any(n["went_on"] for n in with_tries), with_tries
    assert not any(n["went_on"] for n in without)
    assert len(with_tries) < len(without)


def test_a_weak_split_is_not_made_the_node_goes_on_and_its_proof_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node whose best split variable scores under the bar (node.WEAK_SPLIT) goes on instead of splitting, its
    sides untried, at most MAX_GOING_ON times; the certificate checks.  With every split weak (a bar no score
    reaches), every node that split went on first."""
    from sigmar.runners.checking.certificates import check_certificate

    monkeypatch.setattr(cube_node, "WEAK_SPLIT", 1e-9)  # the bar (variables / WEAK_SPLIT) ** 2: none reaches it
    with ProofStore(tmp_path) as proofs:
        prover = CubeProver(InProcess(), proofs, **{**SMALL, "sides": 5})
        result = prover.prove(BOARD, 300)
        assert result.status is Status.UNSOLVABLE and result.checked, result.message
        assert result.certificate is not None and result.certificate.file
        verdict = check_certificate(BOARD, {**result.certificate.json(), "file": result.certificate.file})
        assert verdict.valid and verdict.unsolvable, verdict.reason
    splits = [n for n in prover.nodes if n["outcome"] == "split"]
    assert splits, prover.nodes
    assert all(n["went_on"] == cube_node.MAX_GOING_ON for n in splits), prover.nodes

    def tried(*args: Any) -> tuple[bool | None, bool]:
        tries.append(args)
        return None, False  # no side refuted: the split is made

    tries: list[Any] = []
    monkeypatch.setattr(cube_node, "_try_sides", tried)
    root = cube_node.NodeJob(BOARD, "weak", 0, None, (), (), 100, "glucose42", sides=5)
    weak = cube_node.work(root)
    assert (weak.outcome, weak.went_on, tries) == ("split", 1, []), weak  # went on, no side tried
    monkeypatch.setattr(cube_node, "WEAK_SPLIT", float("inf"))  # a bar of 0: no split is weak
    strong = cube_node.work(replace(root, run="strong"))
    assert (strong.outcome, strong.went_on, len(tries)) == ("split", 0, 1), strong  # its sides tried, split
