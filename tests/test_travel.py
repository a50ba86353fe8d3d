"""Proofs that travel (issue 49): LRAT written by the C checker and re-checked by the short LRAT checker,
and certificates exported as pairs a standard checker reads (``sigmar check --lrat --export DIR``).

The short checker (runners/checking/lrat_check.py) is tested here without any outside tool: it accepts
what the C checker writes, and refuses a proof with a hint removed, a hint that points forward, or a
clause changed.  drat-trim and lrat-check, built from their public sources for the benchmarks
(scripts/bench/proofs_that_travel.py), are asked too when they are built at the place COORDINATION.md
gives; otherwise those checks skip, saying so.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from sigmar.models.boardfile import format_board
from sigmar.models.deal import deal
from sigmar.runners import cli
from sigmar.runners.checking import rup_check
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.checking.lrat_check import check_lrat
from sigmar.runners.checking.rup_check import check_files, check_proof
from sigmar.runners.cubes.pools import LocalPool
from sigmar.runners.cubes.split import CubeProver
from sigmar.runners.prove import Prover
from tests.conftest import ROOT

BOARD = deal("dense", 6, 1, 17)  # unsolvable; about 1,200 conflicts
DRAT_TRIM = Path(os.environ.get("SIGMAR_DRAT_TRIM_DIR", "/work/scratch/drat-trim"))
small = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def needs_c() -> None:
    ok, why = rup_check.engine_available("c")
    if not ok:
        pytest.skip(why)


def random_refutation(seed: int) -> tuple[list[list[int]], bytes]:
    rng = random.Random(seed)
    formula = [[v if rng.random() < 0.5 else -v for v in rng.sample(range(1, 11), 3)] for _ in range(60)]
    with Solver(name="glucose4", with_proof=True, bootstrap_with=formula) as solver:
        assume(not solver.solve())
        proof = "\n".join(solver.get_proof() or []) + "\n0\n"
    return formula, proof.encode()


def lrat_lines(formula: list[list[int]], proof: bytes) -> list[bytes]:
    report = check_proof(formula, proof, lrat=True)
    assert report.valid and report.lrat is not None, report.message
    return report.lrat.splitlines()


@small
@given(seed=st.integers(0, 10**6))
def test_the_short_checker_accepts_every_lrat_the_c_checker_writes(seed: int) -> None:
    needs_c()
    formula, proof = random_refutation(seed)
    ok, why = check_lrat(formula, lrat_lines(formula, proof))
    assert ok, why


def _with_hints(line: bytes, change: Any) -> bytes:
    words = line.split()
    zero = words.index(b"0", 1)
    hints = words[zero + 1 : -1]
    return b" ".join([*words[: zero + 1], *change(hints), b"0"])


@small
@given(seed=st.integers(0, 10**6), pick=st.integers(0, 10**6), how=st.sampled_from(["drop", "forward", "clause"]))
def test_the_short_checker_refuses_a_tampered_lrat(seed: int, pick: int, how: str) -> None:
    """A hint removed, a hint that names a later lemma, or a lemma's clause changed: refused."""
    needs_c()
    formula, proof = random_refutation(seed)
    lines = lrat_lines(formula, proof)
    at = pick % len(lines)
    line = lines[at]
    words = line.split()
    zero = words.index(b"0", 1)
    hints = words[zero + 1 : -1]
    if how == "drop":
        lines[at] = _with_hints(line, lambda h: h[:-1])  # the last hint is the clause that ends false
    elif how == "forward":
        lines[at] = _with_hints(line, lambda h: [*h[:-1], str(int(words[0]) + 1).encode()])
    else:
        assume(zero > 1)  # a lemma with a literal to change (not the empty clause)
        lines[at] = b" ".join([words[0], str(-int(words[1])).encode(), *words[2:]])
    assume(hints)
    ok, why = check_lrat(formula, lines)
    assert not ok, (how, why)


def test_a_split_derives_its_clauses_in_lrat_too() -> None:
    needs_c()
    formula = [[1, 2], [-1, 2], [1, -2, 3], [-1, -2, 3]]
    report = check_proof(formula, b"2 0\n", goals=[[2], [3]], lrat=True)
    assert report.valid and report.lrat is not None
    assert check_lrat(formula, report.lrat.splitlines(), [[2], [3]])[0]
    assert not check_lrat(formula, report.lrat.splitlines(), [[2], [3], [-3]])[0]


@contextmanager
def cnf_route_only() -> Iterator[None]:
    """``prove`` by its cnf route alone, so that BOARD's certificate is a DRUP proof on any machine: with the
    search racing too, a quiet machine finds BOARD's dead states in time and keeps them instead (CI did)."""
    defaults = Prover.__init__.__kwdefaults__
    assert defaults is not None and "routes" in defaults
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(defaults, "routes", ("cnf",))
        yield


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The board file, a drup certificate and a cubes certificate of several nodes."""
    folder = tmp_path_factory.mktemp("travel")
    board_file = folder / "board.txt"
    board_file.write_text(format_board(BOARD))
    with cnf_route_only():
        assert cli.main(["prove", str(board_file), "--no-corroborate", "--proof-dir", str(folder / "drup")]) == 0
    with ProofStore(folder / "cubes") as proofs, LocalPool(2) as pool:
        result = CubeProver(pool, proofs, cubes=4, probe=100, budget=200).prove(BOARD, 300)
    assert result.certificate is not None and result.certificate.file is not None
    drup = next((folder / "drup").glob("*.drup"))
    return board_file, drup, Path(result.certificate.file)


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = cli.main(["check", *args])
    said = capsys.readouterr()
    return code, said.out + said.err


@pytest.mark.parametrize("kind", ["drup", "cubes"])
def test_check_lrat_and_export_write_pairs_our_checker_accepts(
    kind: str, certificates: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board_file, drup, cubes = certificates
    cert = drup if kind == "drup" else cubes
    code, said = check(capsys, str(board_file), str(cert), "--lrat", "--export", str(tmp_path / "out"))
    assert code == 0 and "LRAT re-check" in said and "manifest.json" in said, said
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["board"] == BOARD.name and manifest["certificate"]["kind"] == kind
    assert "cannot show that the formula encodes the board" in manifest["shows"]
    pairs = manifest["pairs"]
    assert len(pairs) == (1 if kind == "drup" else len(manifest["split"])) and len(pairs) >= 1
    if kind == "cubes":
        assert any("derives" in p for p in pairs) and any("derives" not in p for p in pairs)
    for pair in pairs:
        cnf, proof = tmp_path / "out" / pair["cnf"], tmp_path / "out" / pair["drup"]
        assert check_files(cnf, proof).valid, pair
        assert _lrat_file_valid(cnf, tmp_path / "out" / pair["lrat"]), pair
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".")], "a staging folder was left"


def test_prove_export_writes_each_refutation_beside_its_answer(
    certificates: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """prove --export DIR: the drup board's pairs in DIR/STEM, named by the JSON; a board answered by dead
    states (no formula to hand over) gets export null and nothing written."""
    board_file, _, _ = certificates
    small = tmp_path / "small.txt"
    small.write_text((ROOT / "docs" / "examples" / "random5.txt").read_text())
    out = tmp_path / "out"
    code = cli.main(["prove", str(small), "--no-corroborate", "--json", "--export", str(out)])
    (answer,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0 and answer["certificate"]["kind"] == "dead-states" and answer["export"] is None, answer
    assert not out.exists() or not list(out.iterdir())
    with cnf_route_only():
        code = cli.main(["prove", str(board_file), "--no-corroborate", "--json", "--export", str(out)])
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0 and [a["status"] for a in answers] == ["unsolvable"], answers
    by_kind = {a["certificate"]["kind"]: a for a in answers}
    manifest_path = Path(by_kind["drup"]["export"])
    assert manifest_path.parent.parent == out and manifest_path.exists()
    assert [p.name for p in out.iterdir()] == [manifest_path.parent.name]
    manifest = json.loads(manifest_path.read_text())
    assert manifest["certificate"] == {"kind": "drup", "file": None}  # it was in a temporary folder
    (pair,) = manifest["pairs"]
    assert check_files(manifest_path.parent / pair["cnf"], manifest_path.parent / pair["drup"]).valid


def _lrat_file_valid(cnf: Path, lrat: Path) -> bool:
    done = subprocess.run(
        [sys.executable, "-m", "sigmar.runners.checking.lrat_check", str(cnf), str(lrat)],
        capture_output=True,
        text=True,
    )
    return done.returncode == 0 and done.stdout.startswith("VALID")


def _exported(board_file: Path, cert: Path, folder: Path) -> list[dict[str, Any]]:
    assert cli.main(["check", str(board_file), str(cert), "--export", str(folder)]) == 0
    pairs: list[dict[str, Any]] = json.loads((folder / "manifest.json").read_text())["pairs"]
    return pairs


def _core_lemma_dropped(folder: Path, pair: dict[str, Any]) -> None:
    """The last lemma the LRAT names (the one the conflict rests on) dropped from the DRUP proof."""
    lrat = (folder / pair["lrat"]).read_bytes().splitlines()
    last = [line for line in lrat if line.split()[1] != b"0"][-1]
    clause = last.split()[1 : last.split().index(b"0", 1)]
    proof = folder / pair["drup"]
    lines = proof.read_bytes().splitlines()
    target = sorted(clause)
    kept = [line for line in lines if line.startswith(b"d") or sorted(line.split()[:-1]) != target]
    assert len(kept) < len(lines)
    proof.write_bytes(b"\n".join(kept) + b"\n")


def _cube_unit_removed(folder: Path, pair: dict[str, Any]) -> None:
    cnf = folder / pair["cnf"]
    lines = cnf.read_text().splitlines()
    unit = f"{pair['cube'][-1]} 0"
    header = next(i for i, line in enumerate(lines) if line.startswith("p cnf"))
    rest = lines[header + 1 :]
    rest.remove(unit)
    variables, count = lines[header].split()[2:]
    cnf.write_text("\n".join([*lines[:header], f"p cnf {variables} {int(count) - 1}", *rest]) + "\n")


@pytest.mark.parametrize("tamper", [_core_lemma_dropped, _cube_unit_removed])
def test_a_tampered_export_is_refused_by_our_checker_and_drat_trim(
    tamper: Any, certificates: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    board_file, _, cubes = certificates
    pairs = _exported(board_file, cubes, tmp_path)
    leaf = next(p for p in pairs if "derives" not in p and p["cube"])
    tamper(tmp_path, leaf)
    cnf, proof = tmp_path / leaf["cnf"], tmp_path / leaf["drup"]
    assert not check_files(cnf, proof).valid
    drat_trim = DRAT_TRIM / "drat-trim"
    if not drat_trim.exists():
        pytest.skip(f"drat-trim is not built at {drat_trim} (it is built for the benchmarks only)")
    done = subprocess.run([str(drat_trim), str(cnf), str(proof), "-w"], capture_output=True, text=True, timeout=600)
    assert "s VERIFIED" not in done.stdout, done.stdout[-500:]


def test_standard_checkers_accept_the_exported_pairs(certificates: tuple[Path, Path, Path], tmp_path: Path) -> None:
    drat_trim, lrat_check = DRAT_TRIM / "drat-trim", DRAT_TRIM / "lrat-check"
    if not (drat_trim.exists() and lrat_check.exists()):
        pytest.skip(f"drat-trim and lrat-check are not built in {DRAT_TRIM} (they are built for the benchmarks only)")
    board_file, drup, cubes = certificates
    for n, cert in enumerate((drup, cubes)):
        folder = tmp_path / str(n)
        for pair in _exported(board_file, cert, folder):
            cnf = folder / pair["cnf"]
            done = subprocess.run([str(drat_trim), str(cnf), str(folder / pair["drup"]), "-w"], capture_output=True)
            assert b"s VERIFIED" in done.stdout, (pair, done.stdout[-300:])
            done = subprocess.run([str(lrat_check), str(cnf), str(folder / pair["lrat"])], capture_output=True)
            assert b"c VERIFIED" in done.stdout, (pair, done.stdout[-300:])


def test_drat_trim_verifies_our_drup_certificate_as_it_is(certificates: tuple[Path, Path, Path]) -> None:
    """docs/certificates.md: NAME.cnf and NAME.drup as prove writes them are what drat-trim reads."""
    drat_trim = DRAT_TRIM / "drat-trim"
    if not drat_trim.exists():
        pytest.skip(f"drat-trim is not built at {drat_trim} (it is built for the benchmarks only)")
    _, drup, _ = certificates
    done = subprocess.run([str(drat_trim), str(drup.with_suffix(".cnf")), str(drup), "-w"], capture_output=True)
    assert b"s VERIFIED" in done.stdout, done.stdout[-300:]


# -- bad input: one line, exit 2, nothing partial left -------------------------------------------------


def test_export_into_a_folder_that_cannot_be_written_is_one_line_exit_2(
    certificates: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board_file, drup, _ = certificates
    blocked = tmp_path / "file"
    blocked.write_text("a file, not a folder")
    for verb in (["check", str(board_file), str(drup)], ["prove", str(board_file)]):
        code = cli.main([*verb, "--export", str(blocked / "out")])
        captured = capsys.readouterr()
        said = captured.out + captured.err
        assert code == 2 and "not a folder" in said and len(said.strip().splitlines()) == 1, said
        assert blocked.read_text() == "a file, not a folder"


def test_export_of_a_certificate_missing_a_node_is_one_line_exit_2_and_writes_nothing(
    certificates: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board_file, _, cubes = certificates
    copy = tmp_path / "cert"
    shutil.copytree(cubes.parent, copy)
    victim = sorted(copy.glob("*.node-*.drup"))[-1]
    victim.unlink()
    out = tmp_path / "out"
    code, said = check(capsys, str(board_file), str(copy / cubes.name), "--lrat", "--export", str(out))
    assert code == 2 and "missing" in said and len(said.strip().splitlines()) == 1, said
    assert not out.exists() or not list(out.iterdir())


def test_lrat_and_export_of_an_answers_file_are_refused(
    certificates: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board_file, _, _ = certificates
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"board": BOARD.name, "status": "unknown"}) + "\n")
    code, said = check(capsys, str(board_file), str(answers), "--lrat")
    assert code == 2 and "not an answers file" in said, said


def test_the_lrat_checker_refuses_a_huge_line_in_one_line(
    certificates: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, drup, _ = certificates
    huge = tmp_path / "huge.lrat"
    huge.write_bytes(b"1 " * 6_000_000 + b"0 0\n")
    done = subprocess.run(
        [sys.executable, "-m", "sigmar.runners.checking.lrat_check", str(drup.with_suffix(".cnf")), str(huge)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "longer than" in done.stderr and done.stderr.count("\n") == 1, done.stderr
