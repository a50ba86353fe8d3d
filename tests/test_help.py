"""The help text says what the commands do: defaults stated, choices named, and the truth about ``show``."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sigmar.encoders.registry import family_names, info
from sigmar.runners.cli import build_parser, main
from sigmar.runners.cli.encode import TARGETS, VARIANTS
from tests.conftest import INSTANCES, ROOT

PAIR = "# pair\na .\n . . a\n  . .\n"  # side 2: two salts, one move


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_every_option_with_a_default_states_it() -> None:
    silent = []
    for verb, parser in subcommands().items():
        for action in parser._actions:
            if not action.option_strings or action.default in (None, False, argparse.SUPPRESS):
                continue
            if "default" not in (action.help or ""):
                silent.append(f"{verb} {action.option_strings[0]} (default {action.default!r})")
    assert not silent, silent


def test_generate_runs_states_its_default() -> None:
    (runs,) = [a for a in subcommands()["generate"]._actions if "--runs" in a.option_strings]
    assert f"default {runs.default}" in (runs.help or "")


def test_encode_help_names_every_variant_each_backend_writes(capsys: pytest.CaptureFixture[str]) -> None:
    declared: dict[str, tuple[str, ...]] = {}
    for family in family_names():
        cls = info(family).cls
        for target in getattr(cls, "encode_targets", ()):
            declared[target] = cls.encode_variants
    assert declared == VARIANTS and set(VARIANTS) == set(TARGETS)
    assert main(["encode", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    for target, names in VARIANTS.items():
        assert f"{target}: {', '.join(names)}" in shown.replace("- ", "-"), target


@pytest.mark.parametrize("target", TARGETS)
def test_encode_refuses_an_unknown_variant_in_one_line(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["encode", str(INSTANCES / "real-game.txt"), "--to", target, "--variant", "zz", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'zz'" in err[0] and ", ".join(VARIANTS[target]) in err[0], err
    assert not list(tmp_path.iterdir())  # nothing written


def test_encode_dimacs_with_an_unknown_variant_exits_2_without_a_traceback() -> None:
    command = [sys.executable, "-m", "sigmar.runners.cli", "encode", str(INSTANCES / "real-game.txt")]
    done = subprocess.run([*command, "--to", "dimacs", "--variant", "zz"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize(("target", "variant"), [(t, v) for t, names in VARIANTS.items() for v in names])
def test_encode_writes_every_variant_it_names(
    target: str, variant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board = tmp_path / "pair.txt"
    board.write_text(PAIR)
    assert main(["encode", str(board), "--to", target, "--variant", variant]) == 0
    written = capsys.readouterr().out
    if target in ("dimacs", "dzn"):  # their headers name the variant
        assert f"variant: {variant}" in written or f"variant {variant}" in written, written[:200]
    assert written


def test_show_draws_the_board_before_every_move_as_help_and_readme_say(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board = tmp_path / "pair.txt"
    board.write_text(PAIR)
    solution = tmp_path / "pair.solution"
    solution.write_text("0,0 1,2\n")
    assert main(["show", str(board), "--solution", str(solution), "--no-color"]) == 0
    drawn = capsys.readouterr().out.split("move 1: a [0, 0] + a [1, 2]\n", 1)[1]
    with_the_move, at_the_end = drawn.split("\n\n")[:2]
    assert with_the_move.count("a") == 2  # drawn before the move: both salts still there
    assert "a" not in at_the_end and drawn.rstrip().endswith("cleared")
    assert main(["show", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "before every move" in shown and "after every move" not in shown
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "the board before every move" in readme and "after every move" not in readme
    assert re.search(r"with --solution, the board before every move", shown)
