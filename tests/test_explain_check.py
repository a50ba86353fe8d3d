"""``sigmar check`` of explain's JSON (issue 47): the deepest play replayed and its bound checked, the repair's
changed board made again and its solution replayed; a forged part is refused, never "valid"."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sigmar.models.boardfile import format_board
from sigmar.models.deal import deal
from sigmar.runners.cli import main


@pytest.fixture(scope="module")
def explained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """``explain --json --proof-dir`` on dense deals 0 (unsolvable, with a repair) and 1 (solvable) of seed 1."""
    import subprocess
    import sys

    folder = tmp_path_factory.mktemp("explained")
    boards = folder / "dense.txt"
    boards.write_text("\n".join(format_board(deal("dense", 6, 1, i)) for i in (0, 1)))
    argv = [sys.executable, "-m", "sigmar.runners.cli", "explain", str(boards), "--json", "--time-limit", "60"]
    done = subprocess.run([*argv, "--proof-dir", str(folder / "p")], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return boards, [json.loads(line) for line in done.stdout.splitlines()]


def check(
    capsys: pytest.CaptureFixture[str], boards: Path, records: list[dict[str, Any]], path: Path
) -> tuple[int, str]:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    code = main(["check", str(boards), str(path)])
    said = capsys.readouterr()
    return code, said.out + said.err


def test_explains_honest_json_checks_part_by_part(explained, capsys, tmp_path: Path) -> None:
    boards, records = explained
    code, out = check(capsys, boards, records, tmp_path / "honest.jsonl")
    assert code == 0, out
    assert "deepest play, play-bound certificate valid" in out and "repair valid" in out, out
    main(["check", str(boards), str(tmp_path / "honest.jsonl"), "--json"])
    parts = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {p.get("part") for p in parts} == {None, "deepest", "repair"}


def _unsolvable(records: list[dict[str, Any]]) -> int:
    return next(i for i, r in enumerate(records) if r["status"] == "unsolvable")


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        *head, last = path.split(".")
        place = record
        for key in head:
            place = place[key]
        place[last] = value

    return change


def _swap_first_move(record: dict[str, Any]) -> None:
    record["deepest"]["moves"][0]["cells"] = [[0, 0], [0, 1]]


def _drop_move(record: dict[str, Any]) -> None:
    record["repair"]["moves"] = record["repair"]["moves"][:-1]


def _other_repair(record: dict[str, Any]) -> None:
    # the solvable deal of the same file, with its own solution, in place of the repaired board
    other = deal("dense", 6, 1, 1)
    record["repair"]["board"] = format_board(other)


def _bound_elsewhere(record: dict[str, Any]) -> None:
    record["deepest"]["certificate"]["file"] = "no/such/dir/forged.bound.jsonl"


FORGERIES: dict[str, Callable[[dict[str, Any]], None]] = {
    "a bound file that does not exist": _bound_elsewhere,
    "proved with no certificate": _set("deepest.certificate", None),
    "a play that clears more than it does": _set("deepest.cleared", 14),
    "a tile count of another board": _set("deepest.tiles", 54),
    "an illegal first move": _swap_first_move,
    "left tiles that the play does not leave": _set("deepest.left", []),
    "a repair whose moves do not clear it": _drop_move,
    "a repaired board that is not one change away": _other_repair,
    "a change that is not a swap or a move": _set("repair.changes", [{"kind": "teleport", "cells": [[0, 0], [1, 1]]}]),
    "no repair claimed shown where counts pair up": _set("repair.board", None),
}


DEEPEST = {name for name in FORGERIES if "repair" not in name and "change" not in name}


@pytest.mark.parametrize("name", list(FORGERIES))
def test_a_forged_part_of_explains_json_is_refused(name: str, explained, capsys, tmp_path: Path) -> None:
    boards, records = explained
    forged = copy.deepcopy(records)
    index = _unsolvable(forged)
    FORGERIES[name](forged[index])
    if name.startswith("no repair claimed"):
        forged[index]["repair"]["none_with_one_change"] = True
    code, out = check(capsys, boards, forged, tmp_path / "forged.jsonl")
    if name.startswith("no repair claimed"):  # a claim the check cannot check: listed, never valid
        assert code == 1 and "repair listed" in out, out
        return
    assert code in (2, 3), (name, out)
    part = "deepest play" if name in DEEPEST else "repair"
    said = [line for line in out.splitlines() if f": {part}" in line]
    assert code == 2 or (said and ("INVALID" in said[0] or "MALFORMED" in said[0])), (name, out)


def test_a_bound_of_another_size_is_not_the_deepest_plays(explained, capsys, tmp_path: Path) -> None:
    """The bound file must bound the play's own count: a file saying 'no more than 13' for a play of 12 fails."""
    boards, records = explained
    forged = copy.deepcopy(records)
    found = forged[_unsolvable(forged)]["deepest"]
    source = Path(found["certificate"]["file"])
    header, *states = source.read_text().splitlines()
    head = json.loads(header)
    head["cleared"] = found["cleared"] + 1
    looser = tmp_path / "looser.bound.jsonl"
    looser.write_text("\n".join([json.dumps(head), *states]) + "\n")
    found["certificate"]["file"] = str(looser)
    code, out = check(capsys, boards, forged, tmp_path / "forged.jsonl")
    assert code == 3 and f"not the {found['cleared']} of the deepest play" in out, out


def test_explain_without_proof_dir_says_to_keep_the_bound(explained, capsys, tmp_path: Path) -> None:
    boards, records = explained
    kept = copy.deepcopy(records)
    kept[_unsolvable(kept)]["deepest"]["certificate"]["file"] = None
    code, out = check(capsys, boards, kept, tmp_path / "temporary.jsonl")
    assert code == 3 and "NOT CHECKED" in out and "--proof-dir" in out, out
