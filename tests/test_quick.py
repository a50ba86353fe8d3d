"""A plain ``sigmar solve FILE...`` is read without argparse (runners/cli/quick.py): into what argparse gives,
or not at all (argparse then reads it, and its help and errors are its own)."""

from __future__ import annotations

import argparse

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.runners.cli import parsers
from sigmar.runners.cli.entry import parse
from sigmar.runners.cli.quick import FLAGS, VALUES, read_quickly, solve_defaults

# Words a command line is made of: board files, every option of solve that quick.py reads (and some it does
# not, which argparse must then read), values good and bad, and what looks like an option.
FILES = st.sampled_from(["a.txt", "b.txt", "boards/x.txt:3", "-", "", "x y.txt", "a.txt:1-2"])
OPTIONS = st.sampled_from([*FLAGS, *VALUES, "--json=1", "-bsearch", "--back", "--jso", "-qv", "--", "--help", "-h"])
VALUES_GIVEN = st.sampled_from(["search", "all", "search,cnf", "2.5", "60", "0", "-1", "nan", "1e9", "x", ""])
WORDS = st.lists(st.one_of(FILES, OPTIONS, VALUES_GIVEN), max_size=8)


def argparse_reading(argv: list[str]) -> argparse.Namespace | None:
    """argparse's Namespace for ``sigmar ARGV``, or None where it refuses it (or prints help)."""
    try:
        return parsers.parse(argv)
    except SystemExit:
        return None


@settings(max_examples=400, deadline=None)
@given(WORDS)
def test_a_command_line_read_quickly_is_what_argparse_reads(words: list[str]) -> None:
    argv = ["solve", *words]
    quick = read_quickly(argv)
    if quick is not None:
        full = argparse_reading(argv)
        assert full is not None, f"quick.py took {argv}, which argparse refuses"
        assert vars(quick) == vars(full)


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "a.txt"],
        ["solve", "a.txt", "b.txt", "-b", "search"],
        ["solve", "--backend", "search,cnf", "a.txt", "--json", "-q"],
        ["solve", "a.txt", "--time-limit", "2.5", "--board", "x", "--stats", "-v", "--no-color"],
    ],
)
def test_the_plain_command_lines_are_read_quickly(argv: list[str]) -> None:
    """The test above can fail: these are taken, and equal argparse's reading."""
    quick = read_quickly(argv)
    assert quick is not None
    assert vars(quick) == vars(parsers.parse(argv))
    assert parse(argv) == quick


@pytest.mark.parametrize(
    "argv",
    [
        ["solve"],
        ["solve", "--help"],
        ["solve", "a.txt", "-b"],
        ["solve", "a.txt", "--backend=search"],
        ["solve", "a.txt", "--back", "search"],
        ["solve", "a.txt", "--time-limit", "0"],
        ["solve", "a.txt", "--time-limit", "-1"],
        ["solve", "a.txt", "-b", "search", "b.txt"],
        ["solve", "-"],
        ["solve", "a.txt", "-o", "out.jsonl"],
        ["prove", "a.txt"],
        ["--help"],
    ],
)
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    assert read_quickly(argv) is None


def test_every_option_of_solve_has_its_default_here() -> None:
    """A new option of solve fails here until quick.py gives its default (else a quick reading would lack it)."""
    full = parsers.parse(["solve", "a.txt"])
    assert vars(full) == {**solve_defaults(), "files": ["a.txt"]}
