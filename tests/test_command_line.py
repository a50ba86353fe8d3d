"""One command line (issue 52, item 4): answers written with -o by every verb that answers boards, survey's
-o beside its older --results, no escape sequence with NO_COLOR or --no-color, bare ``sigmar`` listing the
verbs in groups, an option error pointing at the verb's own help, the facts the help and docs state about the
backends, and a formula given where its board file goes named as such."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sigmar.encoders.registry import builtin_names
from sigmar.runners.cli import GROUPS, SUBCOMMANDS, build_parser, grouped_verbs, main
from tests.conftest import INSTANCES, ROOT

SMALL = INSTANCES / "small.txt"
ESCAPE = re.compile(r"\x1b\[")
STYLE = re.compile(r"\x1b\[[0-9;]*m")  # colour, bold, reverse (a progress bar's cursor moves are not styles)
# The verbs that answer boards, and the arguments that keep each quick on three small boards.
ANSWERING = {
    "solve": ["-b", "search"],
    "crosscheck": ["-b", "search,cnf"],
    "count": [],
    "prove": ["--no-corroborate", "--no-second-opinion"],
    "explain": [],
}


def sigmar(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "sigmar.runners.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )


def answers(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def same_answer(record: dict) -> tuple:
    """What two runs of one verb on one board agree on (times differ)."""
    return record.get("board"), record.get("status"), sorted(record)


@pytest.mark.parametrize("verb", list(ANSWERING))
def test_a_verb_that_answers_boards_writes_its_answers_with_o(
    verb: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [verb, f"{SMALL}:4-6", *ANSWERING[verb], "--time-limit", "30"]
    code = main([*argv, "--json"])
    printed = answers(capsys.readouterr().out)
    out = tmp_path / "answers.jsonl"
    assert main([*argv, "-o", str(out)]) == code
    shown = capsys.readouterr().out
    written = answers(out.read_text())
    assert len(written) == 3 and [same_answer(r) for r in written] == [same_answer(r) for r in printed], verb
    assert shown and not shown.lstrip().startswith("{"), "the table is still shown beside -o"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "no temporary file left behind"


def test_solves_answers_file_is_what_check_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "answers.jsonl"
    proofs = tmp_path / "proofs"  # a certificate file is kept only there
    assert main(["solve", str(SMALL), "-o", str(out), "--proof-dir", str(proofs), "--quiet"]) == 0
    assert main(["check", str(SMALL), str(out)]) == 0, capsys.readouterr()


def test_an_answers_file_another_run_holds_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sigmar.models.output_files import OutputLock

    out = tmp_path / "answers.jsonl"
    with OutputLock(out):
        assert main(["solve", f"{SMALL}:0", "-b", "search", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "another sigmar run" in err[0], err


@pytest.mark.parametrize("spelling", ["-o", "--output", "--results"])
def test_survey_writes_its_answers_with_o_and_still_with_results(
    spelling: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "survey.jsonl"
    assert main(["survey", "-b", "search", "--dim", "4", "--count", "3", spelling, str(out), "--quiet"]) == 0
    assert [r["index"] for r in answers(out.read_text())] == [0, 1, 2]


# -- colour


@pytest.mark.parametrize("how", ["NO_COLOR", "--no-color"])
def test_show_writes_no_escape_sequence_without_colour(how: str, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """The boards and a replay, in a terminal (FORCE_COLOR): coloured, and with NO_COLOR or --no-color not one
    escape sequence (rich's own NO_COLOR kept bold and reverse: 332 of them on one replay)."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    replay = [
        "show",
        f"{INSTANCES / 'real-game.txt'}:0",
        "--solution",
        str(ROOT / "tests/data/real-game-0.solution.txt"),
    ]
    for argv in (["show", str(SMALL)], replay):
        assert main(argv) == 0
        assert ESCAPE.search(capsys.readouterr().out), "colour in a terminal"
    if how == "NO_COLOR":
        monkeypatch.setenv("NO_COLOR", "1")
    plain = ["--no-color"] if how == "--no-color" else []
    for argv in (["show", str(SMALL)], replay):
        assert main([*argv, *plain]) == 0
        out = capsys.readouterr().out
        assert not ESCAPE.search(out) and ("cleared" in out or argv[1] == str(SMALL)), out[:300]


def test_no_color_is_the_runs_alone(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """--no-color sets NO_COLOR for its own run only: the next run in this process is coloured again."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert main(["show", f"{SMALL}:1", "--no-color"]) == 0
    assert not ESCAPE.search(capsys.readouterr().out)
    assert main(["show", f"{SMALL}:1"]) == 0
    assert ESCAPE.search(capsys.readouterr().out)


def test_no_color_reaches_the_tables_of_a_subprocess_in_a_terminal(tmp_path: Path) -> None:
    """Through a pseudo-terminal (as in tmux): crosscheck's table and its progress bar, no escape at all."""
    script = "/usr/bin/script"
    if not Path(script).exists():
        pytest.skip("util-linux 'script' is not installed: no pseudo-terminal to test in")
    command = f"{sys.executable} -m sigmar.runners.cli crosscheck {SMALL}:0-2 -b search --no-color"
    done = subprocess.run([script, "-qec", command, "/dev/null"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "board" in done.stdout, done
    assert not STYLE.search(done.stdout), done.stdout[:400]


# -- the top level


def test_bare_sigmar_lists_the_verbs_in_groups() -> None:
    done = sigmar()
    assert done.returncode == 2 and done.stderr == ""
    for title in ("solve and check:", "compare backends:", "make boards:", "proofs:", "tools:"):
        assert title in done.stdout, title
    listed = re.findall(r"^  (\S+) ", done.stdout, re.M)
    assert sorted(v for v in listed if v in SUBCOMMANDS) == sorted(SUBCOMMANDS), listed
    assert sigmar("--help").stdout == done.stdout


def test_every_verb_is_named_in_a_group() -> None:
    """A new verb gets its group in runners/cli/__init__.py's GROUPS (else it is listed under 'tools')."""
    named = {verb for verbs in GROUPS.values() for verb in verbs}
    assert set(SUBCOMMANDS) <= named, set(SUBCOMMANDS) - named
    assert sorted(v for verbs in grouped_verbs().values() for v in verbs) == sorted(SUBCOMMANDS)


@pytest.mark.parametrize("verb", list(SUBCOMMANDS))
def test_an_option_error_points_at_the_verbs_own_help(verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([verb, "--no-such-option"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"(see 'sigmar {verb} --help')" in err[0], err
    assert err[0].startswith(f"sigmar {verb}: "), err


def test_an_option_before_the_command_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--bogus", "solve"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--bogus" in err[0] and "command comes first" in err[0], err


# -- the facts stated about the backends


def test_the_help_and_docs_name_every_backend_family() -> None:
    families = builtin_names()
    top = build_parser().format_help()
    assert f"with {len(families)} backend families" in " ".join(top.split()).replace("six", "6") or (
        len(families) == 6 and "six backend families" in " ".join(top.split())
    ), top
    for family in families:
        assert family in top, family
    plugins = " ".join((ROOT / "docs" / "plugins.md").read_text().split())
    listed = re.search(r"a built-in family \(([^)]*)\)", plugins)
    assert listed and sorted(re.findall(r"`(\w+)`", listed[1])) == sorted(families), listed
    assert "`board.name`" in plugins, "Board's fields in docs/plugins.md name board.name"
    for page in ("README.md", "docs/layout.md", "docs/plugins.md"):
        text = " ".join((ROOT / page).read_text().split())
        assert not re.search(r"(all|the|with) four backends", text.replace("(the four families of the time", "")), page


# -- a file of another kind where a board file goes


def test_decode_given_the_formula_names_the_file_it_expected(tmp_path: Path, capsys) -> None:
    cnf = tmp_path / "b.cnf"
    assert main(["encode", f"{SMALL}:5", "--to", "dimacs", "-o", str(cnf), "--quiet"]) == 0
    (tmp_path / "b.out").write_text("s SATISFIABLE\nv 1 0\n")
    capsys.readouterr()
    assert main(["decode", str(cnf), str(tmp_path / "b.out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a DIMACS formula, not a board file" in err[0], err
    assert "the board file that 'sigmar encode --to dimacs' read" in err[0] and "mid-game metals" in err[0], err
    assert "b.vars.json goes with --sidecar" in err[0] and "side above" not in err[0], err


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("c a comment\np cnf 2 1\n1 2 0\n", "a DIMACS formula"),
        ("s SATISFIABLE\nv 1 -2 0\n", "a SAT solver's output"),
        ('{"board": "x"}\n', "JSON"),
    ],
)
def test_a_file_of_another_kind_is_named_as_such(text: str, kind: str, tmp_path: Path, capsys) -> None:
    path = tmp_path / "given"
    path.write_text(text)
    assert main(["solve", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"sigmar solve: {path}: {kind}, not a board file (docs/formats.md#board-files)"], err


def test_a_malformed_board_is_still_reported_where_it_is(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("a a\n. z .\n . .\n")
    assert main(["solve", str(path)]) == 2
    assert "row 1, column 1" in capsys.readouterr().err
