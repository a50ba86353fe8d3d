"""Forged answers files against ``sigmar check`` (issue 47): every forgery refused, every honest output accepted.

Each forgery is an answers file (or an explain line) whose certificate or solution is a TRUE statement that
does not prove the answer it backs: a play-bound file of every tile, a stuck set of a later position, a
dead-states file of a sub-board, a DRUP proof of another board's formula, a DRCP proof against a weaker model,
a split into cubes that covers only part, a solution of another board, ... (the hunt's S1, S2 and S12 first).
Each must be refused: exit 3 (invalid, missing, not checked) or 2 (malformed, for another board).  Then the
honest outputs of ``solve``, ``prove`` and ``explain`` on a file with duplicate names must be accepted (exit 0),
and the bounded checks are measured: a 256 MiB answers file's peak memory, a play-bound file of one line
written 2,000,000 times, and binary DRAT converted in bounded memory.

    python scripts/bench/forged_answers.py [--out results/bench_forged_answers] [--quick]

``--quick`` makes the large files 16 MiB and 20,000 lines (a minute) instead of 256 MiB and 2,000,000.
Writes OUT.md and OUT.json; the record is docs/measured/forged-answers.md.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchlib import INSTANCES, RESULTS, markdown_table, publish

from sigmar.models.board import Board, Tile
from sigmar.models.boardfile import format_board, read_boards
from sigmar.models.deal import deal
from sigmar.models.hexgrid import cells as hex_cells
from sigmar.models.rules import Position
from sigmar.models.stuck_sets import stuck_set

MiB = 1 << 20
REFUSED = (2, 3)


def sigmar(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sigmar.runners.cli", *args], capture_output=True, text=True, timeout=timeout
    )


def answers_of(done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def write_lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def board_file(path: Path, *boards: Board) -> Path:
    path.write_text("\n".join(format_board(b) for b in boards))
    return path


class Work:
    """The honest certificates the forgeries are made from, written once into a folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        small = read_boards(INSTANCES / "small.txt")
        self.salt = small[11]  # unsolvable: only a search (dead states) or a proof refutes it
        self.ring = small[10]  # unsolvable too (a stuck set), another board of the same side
        self.solvable = read_boards(INSTANCES / "real-game.txt")[0]  # 55 tiles, solvable
        self.dense0 = deal("dense", 6, 1, 0)  # unsolvable, a stuck set; its deepest play proved
        self.dense17 = deal("dense", 6, 1, 17)  # unsolvable, split into several cubes
        self.proofs = folder / "proofs"
        self.files: dict[str, Path] = {}
        self.answers: dict[str, dict[str, Any]] = {}
        self.written = 0

    def file_of(self, name: str, *boards: Board) -> Path:
        if name not in self.files:
            self.files[name] = board_file(self.folder / f"{name}.txt", *boards)
        return self.files[name]

    def answer(self, key: str, name: str, board: Board, *args: str) -> dict[str, Any]:
        """The one answer of ``sigmar ARGS`` on ``board`` (its certificate files kept)."""
        if key not in self.answers:
            path = self.file_of(name, board)
            done = sigmar(*args[:1], str(path), *args[1:], "--json", "--proof-dir", str(self.proofs / key))
            found = answers_of(done)
            assert found, f"{key}: {done.stderr[-500:]}"
            self.answers[key] = found[0]
        return self.answers[key]


FAILED = ("INVALID", "MALFORMED", "MISSING", "NOT CHECKED", "sigmar check:")


def check(boards: Path, answers: Path) -> tuple[int, str]:
    """check's exit status, and the first line that says what failed (else its first line)."""
    done = sigmar("check", str(boards), str(answers))
    said = (done.stdout + done.stderr).strip().splitlines()
    failing = [line for line in said if any(word in line for word in FAILED)]
    return done.returncode, ((failing or said or [""])[0])[:200]


# -- the forgeries: each returns (board file, answers file) ----------------------------------------------


def s1_bound_of_every_tile(w: Work) -> tuple[Path, Path]:
    """S1: a solvable board 'unsolvable' by a play-bound file of all its tiles (true of every board)."""
    board = w.solvable
    bound = w.folder / "all.bound.jsonl"
    tiles = [list(board.rowcol(t.cell)) for t in board.tiles]
    header = {"format": "sigmar-play-bound", "version": 1, "board": board.name, "cleared": len(tiles), "tiles": tiles}
    full = format((1 << len(tiles)) - 1, "x")
    bound.write_text(json.dumps(header) + "\n" + json.dumps({"state": full, "stays": []}) + "\n")
    record = {"board": board.name, "status": "unsolvable", "certificate": {"kind": "play-bound", "file": str(bound)}}
    return w.file_of("solvable", board), write_lines(w.folder / "s1.jsonl", [record])


TWINS = [("twin", "a a"), ("twin", "a f")]  # solvable, then unsolvable (the counts)


def twins_file(w: Work) -> Path:
    path = w.folder / "twins.txt"
    path.write_text("\n\n".join(f"# {name}\n  {row}\n . . .\n  . ." for name, row in TWINS) + "\n")
    return path


def s2_one_line_for_two_twins(w: Work) -> tuple[Path, Path]:
    """S2: one true 'solved' line for the first of two boards named alike; the other has no answer."""
    path = twins_file(w)
    first = answers_of(sigmar("solve", str(path), "--json"))[0]
    return path, write_lines(w.folder / "s2.jsonl", [first])


def s2_the_twins_solution(w: Work) -> tuple[Path, Path]:
    """S2: each twin answered with the first twin's true solution."""
    path = twins_file(w)
    first = answers_of(sigmar("solve", str(path), "--json"))[0]
    return path, write_lines(w.folder / "s2b.jsonl", [first, {**first, "board": "twin#2"}])


def explained(w: Work) -> tuple[Path, list[dict[str, Any]]]:
    if "explain" not in w.answers:
        path = w.file_of("dense0", w.dense0)
        done = sigmar("explain", str(path), "--json", "--time-limit", "60", "--proof-dir", str(w.proofs / "explain"))
        w.answers["explain"] = answers_of(done)[0]
    return w.files["dense0"], [copy.deepcopy(w.answers["explain"])]


def s12_a_bound_file_that_is_not_there(w: Work) -> tuple[Path, Path]:
    """S12: explain's deepest play, 'proved' by a play-bound file that does not exist."""
    path, records = explained(w)
    records[0]["deepest"]["certificate"]["file"] = str(w.folder / "forged.bound.jsonl")
    return path, write_lines(w.folder / "s12.jsonl", records)


def explain_looser_bound(w: Work) -> tuple[Path, Path]:
    """explain: the deepest play 'proved' by a true bound of one tile more than the play."""
    path, records = explained(w)
    found = records[0]["deepest"]
    source = Path(found["certificate"]["file"])
    header, *states = source.read_text().splitlines()
    head = json.loads(header)
    head["cleared"] = found["cleared"] + 1
    looser = w.folder / "looser.bound.jsonl"
    looser.write_text("\n".join([json.dumps(head), *states]) + "\n")
    found["certificate"]["file"] = str(looser)
    return path, write_lines(w.folder / "looser.jsonl", records)


def explain_play_of_another_board(w: Work) -> tuple[Path, Path]:
    """explain: the deepest play's moves of another board (a true play there)."""
    path, records = explained(w)
    other = answers_of(sigmar("solve", str(w.file_of("solvable", w.solvable)), "--json"))[0]
    records[0]["deepest"]["moves"] = other["moves"][:6]
    return path, write_lines(w.folder / "otherplay.jsonl", records)


def explain_repair_not_one_change_away(w: Work) -> tuple[Path, Path]:
    """explain: a 'repair' that is a true solvable board with its true solution, but not one change away."""
    path, records = explained(w)
    other = answers_of(sigmar("solve", str(w.file_of("solvable", w.solvable)), "--json"))[0]
    records[0]["repair"]["board"] = format_board(w.solvable)
    records[0]["repair"]["moves"] = other["moves"]
    return path, write_lines(w.folder / "farrepair.jsonl", records)


def _unsolvable(w: Work, name: str, board: Board, certificate: dict[str, Any]) -> tuple[Path, Path]:
    record = {"board": board.name, "status": "unsolvable", "reason": "proof", "certificate": certificate}
    w.written += 1
    return w.file_of(name, board), write_lines(w.folder / f"forged-{w.written}.jsonl", [record])


def counts_that_pair_up(w: Work) -> tuple[Path, Path]:
    """counts: an unsolvable board whose tile counts do pair up, 'proved' by the counts."""
    return _unsolvable(w, "dense0", w.dense0, {"kind": "counts", "file": None})


def counts_on_a_solvable_board(w: Work) -> tuple[Path, Path]:
    """counts: a solvable board 'proved' unsolvable by its counts (which pair up)."""
    return _unsolvable(w, "solvable", w.solvable, {"kind": "counts", "file": None})


def stuck_set_of_another_board(w: Work) -> tuple[Path, Path]:
    """stuck: a true stuck set of dense deal 0, given for the real-game board."""
    cells = w.answer("dense0-search", "dense0", w.dense0, "solve", "-b", "search")["certificate"]["cells"]
    return _unsolvable(w, "solvable", w.solvable, {"kind": "stuck", "cells": cells, "file": None})


def stuck_set_of_a_later_position(w: Work) -> tuple[Path, Path]:
    """stuck: a true stuck set of a dead end that random play reaches on a solvable board, given for its start."""
    board = w.solvable
    rng = random.Random(7)
    for _ in range(2000):
        position = Position.start(board)
        while moves := position.legal_moves():
            position = position.play(rng.choice(moves))
        left = Board(board.dim, tuple(t for t in board.tiles if t.cell in position.occupied), board.name)
        found = stuck_set(left) if left.tiles else 0
        if found:
            cells = [list(board.rowcol(left.tiles[t].cell)) for t in sorted(found)]
            return _unsolvable(w, "solvable", board, {"kind": "stuck", "cells": cells, "file": None})
    raise AssertionError("no dead end with a stuck set in 2,000 random plays")


def _dead(w: Work) -> dict[str, Any]:
    return w.answer("salt-search", "salt", w.salt, "solve", "-b", "search")["certificate"]


def dead_states_of_a_sub_board(w: Work) -> tuple[Path, Path]:
    """dead-states: the salt board's true dead-states file, given for the board with a free pair of air added
    (the salt board is then a sub-board of it)."""
    empty = [c for c in hex_cells(w.salt.dim) if c not in w.salt.symbol_at][:2]
    tiles = sorted([*w.salt.tiles, *(Tile(c, "a") for c in empty)], key=lambda t: w.salt.rowcol(t.cell))
    bigger = Board(w.salt.dim, tuple(tiles), "salt with a pair more")
    return _unsolvable(w, "bigger", bigger, {"kind": "dead-states", "file": _dead(w)["file"]})


def dead_states_without_the_start(w: Work) -> tuple[Path, Path]:
    """dead-states: the true file's states that follow the first move (still closed), the whole board left out."""
    source = Path(_dead(w)["file"])
    header, first, *rest = source.read_text().splitlines()
    cut = w.folder / "cut.dead.jsonl"
    cut.write_text("\n".join([header, *rest]) + "\n")
    return _unsolvable(w, "salt", w.salt, {"kind": "dead-states", "file": str(cut)})


def dead_states_of_another_board(w: Work) -> tuple[Path, Path]:
    """dead-states: a true dead-states file of the salt board, given for another unsolvable board."""
    return _unsolvable(w, "ring", w.ring, {"kind": "dead-states", "file": _dead(w)["file"]})


def _drup(w: Work) -> dict[str, Any]:
    return w.answer("salt-cnf", "salt", w.salt, "solve", "-b", "cnf")["certificate"]


def drup_of_another_boards_formula(w: Work) -> tuple[Path, Path]:
    """drup: a true DRUP refutation of the salt board's formula, given for another unsolvable board."""
    return _unsolvable(w, "ring", w.ring, {"kind": "drup", "file": _drup(w)["file"]})


def drup_of_a_stronger_formula(w: Work) -> tuple[Path, Path]:
    """drup: the salt board's proof with its formula given one clause more (still refuted: a true proof of it)."""
    source = Path(_drup(w)["file"])
    folder = w.folder / "stronger"
    folder.mkdir(exist_ok=True)
    stem = source.name[: -len(".drup")]
    for suffix in (".drup", ".vars.json"):
        shutil.copy(source.with_name(stem + suffix), folder / (stem + suffix))
    cnf = source.with_name(stem + ".cnf").read_text().splitlines()
    head = next(i for i, line in enumerate(cnf) if line.startswith("p cnf"))
    _, _, variables, clauses = cnf[head].split()
    cnf[head] = f"p cnf {variables} {int(clauses) + 1}"
    (folder / (stem + ".cnf")).write_text("\n".join([*cnf, "1 0"]) + "\n")
    return _unsolvable(w, "salt", w.salt, {"kind": "drup", "file": str(folder / (stem + ".drup"))})


def drup_with_another_boards_variable_map(w: Work) -> tuple[Path, Path]:
    """drup: the true proof and formula of the salt board, beside the variable map of another board's formula."""
    source = Path(_drup(w)["file"])
    other = Path(w.answer("ring-cnf", "ring", w.ring, "solve", "-b", "cnf")["certificate"]["file"])
    folder = w.folder / "othermap"
    folder.mkdir(exist_ok=True)
    stem = source.name[: -len(".drup")]
    for suffix in (".drup", ".cnf"):
        shutil.copy(source.with_name(stem + suffix), folder / (stem + suffix))
    shutil.copy(other.with_name(other.name[: -len(".drup")] + ".vars.json"), folder / (stem + ".vars.json"))
    return _unsolvable(w, "salt", w.salt, {"kind": "drup", "file": str(folder / (stem + ".drup"))})


def _drcp(w: Work) -> dict[str, Any]:
    return w.answer("salt-pumpkin", "salt", w.salt, "solve", "-b", "pumpkin")["certificate"]


def drcp_against_a_weaker_model(w: Work) -> tuple[Path, Path]:
    """drcp: the salt board's true proof beside its model with one clause more (the proof holds there too)."""
    source = Path(_drcp(w)["file"])
    folder = w.folder / "weaker"
    folder.mkdir(exist_ok=True)
    shutil.copy(source, folder / source.name)
    model = source.with_name(source.name[: -len(".drcp")] + ".drcp-model").read_text().splitlines()
    extra = next(line for line in model if line.startswith("clause"))  # a clause the model has, written again
    (folder / (source.name[: -len(".drcp")] + ".drcp-model")).write_text("\n".join([*model, extra]) + "\n")
    return _unsolvable(w, "salt", w.salt, {"kind": "drcp", "file": str(folder / source.name)})


def drcp_of_another_board(w: Work) -> tuple[Path, Path]:
    """drcp: a true DRCP refutation of the salt board, given for another unsolvable board."""
    return _unsolvable(w, "ring", w.ring, {"kind": "drcp", "file": _drcp(w)["file"]})


def _cubes(w: Work) -> dict[str, Any]:
    """A split of dense deal 17 into several cubes (small conflict budgets, as tests/test_cubes.py splits it)."""
    from sigmar.runners.checking.certify import ProofStore
    from sigmar.runners.cubes.pools import LocalPool
    from sigmar.runners.cubes.split import CubeProver

    key = "dense17-cubes"
    if key not in w.answers:
        w.file_of("dense17", w.dense17)
        with LocalPool(2) as pool, ProofStore(w.proofs / key) as proofs:
            result = CubeProver(pool, proofs, cubes=4, probe=150, budget=300).prove(w.dense17, 600)
        assert result.checked and result.certificate is not None, result
        w.answers[key] = {"certificate": result.certificate.json()}
    return w.answers[key]["certificate"]


def cubes_covering_part(w: Work) -> tuple[Path, Path]:
    """cubes: the split with its last leaf dropped: every cube it lists is truly refuted, but not every assignment."""
    source = Path(_cubes(w)["file"])
    folder = w.folder / "part"
    shutil.copytree(source.parent, folder, dirs_exist_ok=True)
    lines = (folder / source.name).read_text().splitlines()
    leaves = [i for i, line in enumerate(lines) if i and "split" not in json.loads(line)]
    assert len(leaves) > 1, lines
    del lines[leaves[-1]]
    (folder / source.name).write_text("\n".join(lines) + "\n")
    return _unsolvable(w, "dense17", w.dense17, {"kind": "cubes", "file": str(folder / source.name)})


def cubes_of_another_board(w: Work) -> tuple[Path, Path]:
    """cubes: a true split certificate of dense deal 17, given for dense deal 0 (unsolvable too, 55 tiles)."""
    return _unsolvable(w, "dense0", w.dense0, {"kind": "cubes", "file": _cubes(w)["file"]})


def play_bound_of_an_unsolvable_board(w: Work) -> tuple[Path, Path]:
    """play-bound: explain's true, checked bound of dense deal 0, as the certificate of its 'unsolvable'."""
    _, records = explained(w)
    bound = records[0]["deepest"]["certificate"]["file"]
    return _unsolvable(w, "dense0", w.dense0, {"kind": "play-bound", "file": bound})


def corroborated_claim(w: Work) -> tuple[Path, Path]:
    """a claim: two backends of two families agree the salt board is unsolvable (true), with no certificate."""
    record = {"board": w.salt.name, "status": "unsolvable", "reason": "corroborated", "backend": "cpsat+minizinc"}
    return w.file_of("salt", w.salt), write_lines(w.folder / "corroborated.jsonl", [record])


def solution_of_another_board(w: Work) -> tuple[Path, Path]:
    """solved: a true solution of real-game board 0, given for real-game board 1."""
    other = read_boards(INSTANCES / "real-game.txt")[1]
    moves = answers_of(sigmar("solve", str(w.file_of("solvable", w.solvable)), "--json"))[0]["moves"]
    record = {"board": other.name, "status": "solved", "moves": moves, "verified": True}
    return w.file_of("other", other), write_lines(w.folder / "othersolution.jsonl", [record])


def a_legal_play_that_does_not_clear(w: Work) -> tuple[Path, Path]:
    """solved: the first ten moves of a true solution: every one legal, the board not cleared."""
    moves = answers_of(sigmar("solve", str(w.file_of("solvable", w.solvable)), "--json"))[0]["moves"][:10]
    record = {"board": w.solvable.name, "status": "solved", "moves": moves, "verified": True}
    return w.files["solvable"], write_lines(w.folder / "partial.jsonl", [record])


def a_deepest_play_as_a_solution(w: Work) -> tuple[Path, Path]:
    """solved: explain's true deepest play of an unsolvable board, given as its solution."""
    _, records = explained(w)
    record = {"board": w.dense0.name, "status": "solved", "moves": records[0]["deepest"]["moves"]}
    return w.files["dense0"], write_lines(w.folder / "deepestsolution.jsonl", [record])


FORGERIES: dict[str, Callable[[Work], tuple[Path, Path]]] = {
    "S1: play-bound of every tile for a solvable board": s1_bound_of_every_tile,
    "S2: one solved line for two boards of one name": s2_one_line_for_two_twins,
    "S2: the first twin's solution for the second": s2_the_twins_solution,
    "S12: explain's bound file not there": s12_a_bound_file_that_is_not_there,
    "play-bound: a true bound of an unsolvable board as its 'no'": play_bound_of_an_unsolvable_board,
    "explain: a true bound of one tile more than the play": explain_looser_bound,
    "explain: a deepest play of another board": explain_play_of_another_board,
    "explain: a true repair board not one change away": explain_repair_not_one_change_away,
    "counts: an unsolvable board whose counts pair up": counts_that_pair_up,
    "counts: a solvable board": counts_on_a_solvable_board,
    "stuck: the stuck set of another board": stuck_set_of_another_board,
    "stuck: the stuck set of a later dead end": stuck_set_of_a_later_position,
    "dead-states: the file of a sub-board": dead_states_of_a_sub_board,
    "dead-states: the states after the start": dead_states_without_the_start,
    "dead-states: the file of another board": dead_states_of_another_board,
    "drup: a proof of another board's formula": drup_of_another_boards_formula,
    "drup: a proof of the formula with one clause more": drup_of_a_stronger_formula,
    "drup: another board's variable map": drup_with_another_boards_variable_map,
    "drcp: a proof against a weaker model": drcp_against_a_weaker_model,
    "drcp: a proof of another board": drcp_of_another_board,
    "cubes: a split covering only part": cubes_covering_part,
    "cubes: the split of another board": cubes_of_another_board,
    "claim: corroborated by two families, no certificate": corroborated_claim,
    "solved: a solution of another board": solution_of_another_board,
    "solved: a legal play that does not clear": a_legal_play_that_does_not_clear,
    "solved: a deepest play": a_deepest_play_as_a_solution,
}


def honest_outputs(w: Work) -> list[tuple[str, int, str]]:
    """solve, prove and explain on a file with duplicate names (the twins, dense deals 0 and 1 twice): check
    accepts each output whole."""
    path = w.folder / "duplicates.txt"
    boards = [w.dense0, deal("dense", 6, 1, 1)]
    path.write_text(twins_file(w).read_text() + "\n" + "\n".join(format_board(b) for b in boards * 2))
    rows = []
    for verb, extra in (("solve", ()), ("prove", ()), ("explain", ("--time-limit", "60"))):
        out = w.folder / f"honest-{verb}.jsonl"
        done = sigmar(verb, str(path), "--json", "--proof-dir", str(w.proofs / f"honest-{verb}"), *extra)
        out.write_text(done.stdout)
        names = [r["board"] for r in answers_of(done)]
        assert len(set(names)) == len(names) == 6, names
        code, said = check(path, out)
        rows.append((verb, code, said))
    return rows


def peak_kib(code: str, timeout: float = 7200) -> tuple[int, float]:
    """A fresh interpreter's peak resident memory (KiB) and wall seconds running ``code``."""
    # VmHWM, this process's own peak: getrusage's ru_maxrss keeps the parent's peak across fork and exec
    probe = f"{code}\nprint(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))"
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[-1]), time.perf_counter() - start


def big_answers(w: Work, size: int) -> dict[str, Any]:
    """An answers file of ``size`` bytes (short lines: unknown answers of 20 boards, over and over), checked."""
    boards = [deal("dense", 6, 5, i) for i in range(20)]
    path = board_file(w.folder / "big-boards.txt", *boards)
    lines = "".join(
        json.dumps({"board": b.name, "status": "unknown", "backend": "search", "message": "no answer in 60 s"}) + "\n"
        for b in boards
    )
    answers = w.folder / "big.jsonl"
    with answers.open("w") as out:
        for _ in range(size // len(lines)):
            out.write(lines)
    real = answers.stat().st_size
    baseline, _ = peak_kib("import sigmar.runners.cli.check")
    code = (
        f"from sigmar.runners.cli import main\nassert main(['check', {str(path)!r}, {str(answers)!r}, '--quiet']) == 1"
    )
    peak, seconds = peak_kib(code)
    answers.unlink()
    return {
        "bytes": real,
        "lines": real // (len(lines) // 20),
        "peak_mib": round(peak / 1024, 1),
        "interpreter_mib": round(baseline / 1024, 1),
        "grown_mib": round((peak - baseline) / 1024, 1),
        "ratio_to_file": round(peak * 1024 / real, 3),
        "seconds": round(seconds, 1),
    }


def repeated_bound(w: Work, copies: int) -> dict[str, Any]:
    """A play-bound file of one state line written ``copies`` times (the hunt's: 2,000,000)."""
    _, records = explained(w)
    source = Path(records[0]["deepest"]["certificate"]["file"])
    header, first, *_ = source.read_text().splitlines()
    path = w.folder / "repeated.bound.jsonl"
    with path.open("w") as out:
        out.write(header + "\n")
        for _ in range(copies // 10_000):
            out.write((first + "\n") * 10_000)
    argv = ["check", str(w.files["dense0"]), str(path)]
    peak, seconds = peak_kib(f"from sigmar.runners.cli import main\nassert main({argv!r}) == 2")
    code, said = check(w.files["dense0"], path)
    size = path.stat().st_size
    path.unlink()
    result = {"lines": copies, "bytes": size, "exit": code, "seconds": round(seconds, 2), "said": said}
    return result | {"peak_mib": round(peak / 1024, 1)}


def binary_drat(w: Work, size: int) -> dict[str, Any]:
    """Binary DRAT of ``size`` bytes turned into text by the converter ``sigmar check`` and ``--sat-cmd`` use."""
    step = bytearray(b"a")
    for literal in range(1, 40):
        step += bytes([2 * literal])
    step += b"\0"
    source = w.folder / "proof.drat"
    block = bytes(step) * (MiB // len(step))
    with source.open("wb") as out:
        for _ in range(size // len(block)):
            out.write(block)
    baseline, _ = peak_kib("import numpy, sigmar.models.drat_binary")
    code = (
        "from sigmar.models.drat_binary import convert\n"
        f"with open({str(source)!r}, 'rb') as a, open({str(w.folder / 'proof.drup')!r}, 'wb') as b:\n"
        "    convert(a, b)"
    )
    peak, seconds = peak_kib(code)
    real = source.stat().st_size
    text = (w.folder / "proof.drup").stat().st_size
    source.unlink()
    (w.folder / "proof.drup").unlink()
    return {
        "bytes": real,
        "text_bytes": text,
        "peak_mib": round(peak / 1024, 1),
        "interpreter_mib": round(baseline / 1024, 1),
        "grown_mib": round((peak - baseline) / 1024, 1),
        "seconds": round(seconds, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(RESULTS / "bench_forged_answers"))
    parser.add_argument("--quick", action="store_true", help="16 MiB and 20,000 lines instead of 256 MiB and 2,000,000")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    started = datetime.datetime.now(datetime.UTC)
    folder = Path(tempfile.mkdtemp(prefix="sigmar-forged-"))
    try:
        w = Work(folder)
        rows, refused = [], 0
        for name, make in FORGERIES.items():
            boards, answers = make(w)
            code, said = check(boards, answers)
            ok = code in REFUSED
            refused += ok
            rows.append((name, code, "refused" if ok else "ACCEPTED", said.replace("|", "/")))
            print(f"{code}  {name}: {said}", flush=True)
        honest = honest_outputs(w)
        for verb, code, said in honest:
            print(f"{code}  honest {verb} on duplicate names: {said}", flush=True)
        size = (16 if args.quick else 256) * MiB - 1
        big = big_answers(w, size)
        print(f"answers file of {big['bytes']:,} bytes: {big}", flush=True)
        repeated = repeated_bound(w, 20_000 if args.quick else 2_000_000)
        print(f"play-bound of one line x {repeated['lines']:,}: {repeated}", flush=True)
        drat = binary_drat(w, (16 if args.quick else 256) * MiB)
        print(f"binary DRAT of {drat['bytes']:,} bytes: {drat}", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    load_after = os.getloadavg()[0]
    accepted = [code for _, code, _ in honest]
    when = started.strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{platform.platform()}, {os.cpu_count()} cores"
    command = "python scripts/bench/forged_answers.py" + (" --quick" if args.quick else "")
    text = "\n".join(
        [
            "# Forged answers files against `sigmar check` (issue 47)",
            "",
            f"{when}; machine: {machine}; load average {load_before:.1f} before, {load_after:.1f} after.",
            f"Command: `{command}`.",
            "",
            f"## {refused} of {len(FORGERIES)} forgeries refused (exit 3 or 2)",
            "",
            "Each is a true statement that does not prove the answer it backs.",
            "",
            markdown_table(("forgery", "exit", "", "what check said (first line)"), rows),
            "",
            "## Honest outputs on a file with duplicate names (the twins, dense deals 0 and 1 twice)",
            "",
            markdown_table(("verb", "check's exit", "first line"), [(v, c, s.replace("|", "/")) for v, c, s in honest]),
            "",
            "## Bounded checks",
            "",
            markdown_table(
                ("input", "size", "exit", "peak memory of the process", "seconds"),
                [
                    (
                        f"answers file, {big['lines']:,} short lines",
                        f"{big['bytes'] / MiB:.0f} MiB",
                        1,
                        f"{big['peak_mib']} MiB ({big['ratio_to_file']} x the file; "
                        f"the interpreter with check's imports: {big['interpreter_mib']} MiB)",
                        big["seconds"],
                    ),
                    (
                        f"play-bound file, one line x {repeated['lines']:,}",
                        f"{repeated['bytes'] / MiB:.0f} MiB",
                        repeated["exit"],
                        f"{repeated['peak_mib']} MiB",
                        repeated["seconds"],
                    ),
                    (
                        "binary DRAT converted to text",
                        f"{drat['bytes'] / MiB:.0f} MiB (text {drat['text_bytes'] / MiB:.0f} MiB)",
                        0,
                        f"{drat['peak_mib']} MiB (the interpreter alone: {drat['interpreter_mib']} MiB)",
                        drat["seconds"],
                    ),
                ],
            ),
        ]
    )
    record = {
        "when": when,
        "machine": machine,
        "load": [load_before, load_after],
        "command": command,
        "forgeries": {name: {"exit": code, "said": said} for name, code, _, said in rows},
        "refused": refused,
        "total": len(FORGERIES),
        "honest": {verb: {"exit": code, "said": said} for verb, code, said in honest},
        "answers_file": big,
        "repeated_bound": repeated,
        "binary_drat": drat,
    }
    publish(args.out, text, record)
    return 0 if refused == len(FORGERIES) and accepted == [0, 0, 0] else 1


if __name__ == "__main__":
    raise SystemExit(main())
