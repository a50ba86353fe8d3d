"""The command-line conventions, held on every verb in SUBCOMMANDS (a verb added later is walked too):
``--json``, ``--quiet``, ``-o/--output`` and ``--output-dir``, ``--board``, one ``--time-limit`` default,
FILE:SELECTOR, ``-`` for standard input, ``--version``, the closing summary line, and the synopses of
docs/commands.md equal to ``--help`` option for option."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sigmar.runners.cli import SUBCOMMANDS, build_parser, main
from sigmar.runners.cli.conventions import (
    DEFAULT_TIME_LIMIT,
    INTERACTIVE_REASON,
    INTERACTIVE_TIME_LIMIT,
    TIME_LIMIT_REASON,
    file_stems,
)
from sigmar.runners.cli.options import writable_file, writable_folder
from tests.conftest import INSTANCES, ROOT

SMALL = INSTANCES / "small.txt"
# The older spellings scripts rely on (SPEC: bench --out CSV, fuzz --out DIR; decode --index; survey --results):
# accepted, not shown.
OLDER_SPELLINGS = {"--out", "--index", "--results"}
SUMMARY = re.compile(
    r"^\d+ boards?: \d+ solved, \d+ unsolvable \(checked\), .*\d+ unknown, \d+ error.*; [\d.]+ s wall$"
)


def verbs() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {option: action for action in parser._actions for option in action.option_strings}


def reads_boards(parser: argparse.ArgumentParser) -> bool:
    return any(a.dest in ("file", "files") for a in parser._actions if not a.option_strings)


@pytest.mark.parametrize("verb", list(SUBCOMMANDS))
def test_every_verb_takes_json_and_quiet(verb: str) -> None:
    found = options(verbs()[verb])
    for flag in ("--json", "--quiet"):
        assert flag in found and isinstance(found[flag], argparse._StoreTrueAction), f"{verb} {flag}"


@pytest.mark.parametrize("verb", list(SUBCOMMANDS))
def test_a_verb_that_reads_boards_takes_board_and_says_how_to_pick_them(verb: str) -> None:
    parser = verbs()[verb]
    if not reads_boards(parser):
        return
    found = options(parser)
    assert "--board" in found and found["--board"].metavar == "NAME", verb
    (files,) = [a for a in parser._actions if a.dest in ("file", "files")]
    help_text = files.help or ""
    assert "'-' reads standard input" in help_text and "FILE:NAME, FILE:INDEX" in help_text, (verb, help_text)


@pytest.mark.parametrize("verb", list(SUBCOMMANDS))
def test_outputs_are_spelled_one_way(verb: str) -> None:
    """-o is always --output (one file, checked before any work), --output-dir always a folder; no verb shows --out."""
    parser = verbs()[verb]
    shown = {o for a in parser._actions if a.help != argparse.SUPPRESS for o in a.option_strings}
    hidden = {o for a in parser._actions if a.help == argparse.SUPPRESS for o in a.option_strings}
    assert not hidden - OLDER_SPELLINGS, f"{verb} hides {hidden - OLDER_SPELLINGS}: only older spellings are hidden"
    assert "--out" not in shown, verb
    found = options(parser)
    if "-o" in found or "--output" in found:
        assert found["-o"] is found["--output"] and found["--output"].type is writable_file, verb
    if "--output-dir" in found:
        assert found["--output-dir"].type is writable_folder, verb
    if "--out" in found:  # the older spelling writes where the new one does
        assert found["--out"].dest in ("output", "output_dir"), verb


@pytest.mark.parametrize("verb", list(SUBCOMMANDS))
def test_one_time_limit_default_with_its_reason(verb: str) -> None:
    found = options(verbs()[verb]).get("--time-limit")
    if found is None:
        return
    # serve alone: a person waits on its page for each answer (the exception, with its own reason)
    default, reason = (
        (INTERACTIVE_TIME_LIMIT, INTERACTIVE_REASON) if verb == "serve" else (DEFAULT_TIME_LIMIT, TIME_LIMIT_REASON)
    )
    assert found.default == default, (verb, found.default)
    assert reason in " ".join((found.help or "").split()), verb


def test_older_spellings_still_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SPEC's `bench --out CSV`, `fuzz --out DIR`, `generate --out`, `decode --index` keep working."""
    csv = tmp_path / "b.csv"
    assert main(["bench", str(SMALL) + ":0", "-b", "search", "--out", str(csv), "--quiet"]) == 0
    assert "search" in csv.read_text()
    out = tmp_path / "g.txt"
    assert main(["generate", "--out", str(out), "--quiet"]) == 0 and out.read_text().count("\n") >= 11
    assert main(["fuzz", "-b", "search", "--count", "2", "--out", str(tmp_path / "f"), "--quiet"]) == 0
    args = build_parser(["decode"]).parse_args(["decode", str(SMALL), "m.out", "--index", "2"])
    assert args.index == 2


def test_version() -> None:
    done = subprocess.run([sys.executable, "-m", "sigmar.runners.cli", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and re.fullmatch(r"sigmar \S+\n", done.stdout), done


# -- picking boards: FILE:NAME, FILE:INDEX, FILE:START-END, --board


def names_solved(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    assert main(["solve", "-b", "search", "--json", *argv]) == 0
    return [json.loads(line)["board"] for line in capsys.readouterr().out.splitlines()]


def test_a_file_argument_picks_boards_by_index_range_and_name(capsys: pytest.CaptureFixture[str]) -> None:
    from sigmar.models.boardfile import read_boards

    every = [b.name for b in read_boards(SMALL)]
    assert names_solved(capsys, f"{SMALL}:3") == every[3:4]
    assert names_solved(capsys, f"{SMALL}:2-4") == every[2:5]
    assert names_solved(capsys, f"{SMALL}:{every[5]}") == [every[5]]
    assert names_solved(capsys, str(SMALL), "--board", every[1]) == [every[1]]


def test_a_path_that_exists_as_given_wins_over_a_selector(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file named with ':' (or a Windows-style path) is read whole; only a missing path is split."""
    odd = tmp_path / "boards:1"
    odd.write_text((SMALL).read_text())
    assert len(names_solved(capsys, str(odd))) == 14
    plain = tmp_path / "boards"
    plain.write_text("# just one\n 6\n")
    assert names_solved(capsys, f"{plain}:0") == ["just one"]


@pytest.mark.parametrize(
    ("suffix", "words"),
    [(":99", "no board 99: the file has 14"), (":5-2", "range 5-2 is empty"), (":nobody", "no board named 'nobody'")],
)
def test_a_selector_that_picks_nothing_is_exit_2_in_one_line(suffix: str, words: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sigmar.runners.cli", "solve", "-b", "search", f"{SMALL}{suffix}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and words in lines[0] and "Traceback" not in done.stderr, done


def test_standard_input_is_read_and_sliced(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    stdin = io.TextIOWrapper(io.BytesIO(SMALL.read_bytes()))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert len(names_solved(capsys, "--", "-:0-1")) == 2  # after '--', as any argument starting with '-'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SMALL.read_bytes())))
    assert len(names_solved(capsys, "-")) == 14


# -- quiet, and the summary line


def test_solve_ends_with_one_summary_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "-b", "search", str(SMALL)]) == 0
    last = capsys.readouterr().out.rstrip("\n").splitlines()[-1]
    assert SUMMARY.match(last) and last.startswith("14 boards: 8 solved, 6 unsolvable (checked), 0 unknown"), last


@pytest.mark.parametrize("verb", ["solve", "prove", "crosscheck", "bench", "explain"])
def test_beside_json_the_summary_goes_to_stderr_and_quiet_silences_it(
    verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = {"prove": ["--no-corroborate"], "explain": []}.get(verb, ["-b", "search"])
    assert main([verb, f"{SMALL}:0-2", *extra, "--json"]) == 0
    captured = capsys.readouterr()
    last = captured.err.strip().splitlines()[-1]  # after bench's progress bar, also on standard error
    lines = [json.loads(line) for line in captured.out.splitlines()]
    if verb == "bench":  # its first line records the run (docs/formats.md#the-bench-record)
        assert "record" in lines.pop(0)
    assert [line["board"] for line in lines] and SUMMARY.match(last), captured.err
    assert main([verb, f"{SMALL}:0-2", *extra, "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "", captured
    assert main([verb, f"{SMALL}:0-2", *extra, "--json", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 3 + (verb == "bench") and captured.err == "", captured


def test_quiet_leaves_the_exit_status_to_speak(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("0,0 0,1\n")
    assert main(["verify", str(INSTANCES / "real-game.txt"), str(wrong), "--quiet"]) == 1
    assert main(["show", str(SMALL), "--quiet"]) == 0
    assert main(["backends", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


@pytest.mark.parametrize("verb", ["bench", "show", "generate", "encode"])
def test_the_verbs_that_had_no_json_print_one_object_per_board(
    verb: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = {
        "bench": ["bench", f"{SMALL}:0-2", "-b", "search"],
        "show": ["show", f"{SMALL}:0-2"],
        "generate": ["generate", "--count", "3"],
        "encode": ["encode", f"{SMALL}:0-2", "--to", "dimacs"],
    }[verb]
    assert main([*argv, "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    if verb == "bench":  # its first line records the run (docs/formats.md#the-bench-record)
        assert records[0]["record"]["format"] == "sigmar-bench-record"
        records = records[1:]
    assert len(records) == 3 and all(isinstance(r["board"], str) for r in records), records


def test_encode_output_dir_names_files_after_the_boards(tmp_path: Path) -> None:
    from sigmar.models.boardfile import read_boards

    assert main(["encode", f"{SMALL}:0-1", "--to", "dimacs", "--output-dir", str(tmp_path / "enc")]) == 0
    stems = file_stems([b.name for b in read_boards(SMALL)[:2]])
    assert sorted(p.name for p in (tmp_path / "enc").iterdir()) == sorted(
        f"{stem}{suffix}" for stem in stems for suffix in (".cnf", ".vars.json")
    )


def test_file_stems_are_safe_and_unique() -> None:
    stems = file_stems(["real game", "real game", "Real Game", "a/b:c", "..", "CON", "x" * 300])
    assert stems[:3] == ["real_game", "real_game-2", "Real_Game-3"]
    assert stems[3] == "a_b_c" and stems[4] == "board" and stems[5] == "_CON" and len(stems[6]) == 100
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+", s) for s in stems)


# -- docs/commands.md and --help agree on every option


def synopsis(verb: str, parser: argparse.ArgumentParser) -> str:
    """``sigmar VERB ...`` from the parser: positionals, then every shown option (long spelling)."""
    words = [f"sigmar {verb}"]
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
            continue
        if not action.option_strings:
            many = {"+": f"{action.metavar}...", "*": f"[{action.metavar}...]"}
            words.append(many.get(str(action.nargs), str(action.metavar)))
            continue
        flag = max(action.option_strings, key=len)
        if action.nargs == 0:
            word = flag
        else:
            value = action.metavar or "|".join(map(str, action.choices or ())) or action.dest.upper()
            word = f"{flag} {value}"
        words.append(word if action.required else f"[{word}]")
    return " ".join(words)


def wrapped(line: str, width: int = 100) -> str:
    """A synopsis as docs/commands.md writes it: wrapped between options, continuation lines indented."""
    units = re.findall(r"\[[^\]]*\]|\S+", line)
    indent = " " * (len(units[0]) + len(units[1]) + 2)  # under the verb's first argument
    lines = [f"{units[0]} {units[1]}"]
    for unit in units[2:]:
        if len(lines[-1]) + 1 + len(unit) > width:
            lines.append(indent + unit)
        else:
            lines[-1] += " " + unit
    return "\n".join(lines)


def readme_tour() -> dict[str, str]:
    """Each verb's synopsis as docs/commands.md gives it: the ``sigmar VERB ...`` lines (and their
    indented continuations) of the blocks marked as synopses, joined into one line."""
    text = (ROOT / "docs" / "commands.md").read_text()
    tour = text.split("\n## Synopses\n", 1)[1]
    found: dict[str, str] = {}
    for block in re.findall(r"<!-- example: not run: the synopsis[^>]*-->\n```\n(.*?)```", tour, re.S):
        for entry in re.split(r"\n(?=sigmar )", block.strip()):
            joined = " ".join(entry.split())
            found[joined.split()[1]] = joined
    return found


def test_the_readme_tour_gives_every_verb_with_exactly_its_options() -> None:
    tour = readme_tour()
    wrong = []
    for verb, parser in verbs().items():
        expected = synopsis(verb, parser)
        if tour.get(verb) != expected:
            wrong.append(f"docs/commands.md says:\n{tour.get(verb)}\n--help says (to paste):\n{wrapped(expected)}")
    assert not wrong, "\n\n".join(wrong)


# -- bad input to the new arguments: exit 2, one located line, no traceback


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["solve", "{small}:"], "nothing after ':'"),
        (["solve", "{small}", "--board", "nobody"], "no board named 'nobody'"),
        (["verify", "{small}:20", "{small}"], "no board 20"),
        (["encode", "{small}", "--to", "dimacs", "-o", "{tmp}/x.cnf", "--output-dir", "{tmp}/d"], "not both"),
        (["encode", "{small}", "--to", "dimacs", "--output-dir", "{blocker}"], "--output-dir"),
        (["fuzz", "-b", "search", "--output-dir", "{blocker}/under"], "--output-dir"),
        (["fuzz", "-b", "search", "--max-failures", "-1"], "--max-failures"),
        (["generate", "--dim", "11"], "--dim"),
        (["generate", "--dim", "1"], "--dim"),
        (["show", "{small}", "--svg", "{blocker}/"], "cannot write"),
        (["bench", "{small}", "-b", "search", "-o", "{blocker}/x.csv"], "--output"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else value,
)
def test_bad_new_arguments_exit_2_in_one_line(tmp_path: Path, argv: list[str], words: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    filled = [a.format(small=SMALL, tmp=tmp_path, blocker=blocker) for a in argv]
    done = subprocess.run(
        [sys.executable, "-m", "sigmar.runners.cli", *filled], capture_output=True, text=True, timeout=120
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and "Traceback" not in done.stderr, done
    assert len(lines) == 1 and words in lines[0], lines
    assert blocker.read_text() == ""  # nothing written over or under the file in the way


@pytest.mark.parametrize(
    "argv",
    [
        ["fuzz", "-b", "search", "--output-dir", "{new}/deeper", "--max-failures", "-1"],
        ["encode", "{missing}", "--to", "dimacs", "--output-dir", "{new}/deeper"],
        ["bench", "{small}", "-b", "no-such-backend", "-o", "{new}/deeper/b.csv"],
        ["show", "{missing}", "--svg", "{new}/deeper/"],
        ["generate", "--dim", "1", "-o", "{new}/g.txt"],
    ],
    ids=lambda argv: argv[0],
)
def test_a_command_that_refuses_makes_no_folder(tmp_path: Path, argv: list[str]) -> None:
    """An output folder is checked before any work but made only when something is written into it."""
    new = tmp_path / "new"
    filled = [a.format(small=SMALL, new=new, missing=tmp_path / "missing.txt") for a in argv]
    assert main(filled) == 2
    assert not new.exists(), sorted(p.name for p in tmp_path.iterdir())


def test_an_output_folder_is_made_when_written_into(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b"
    assert main(["encode", f"{SMALL}:0", "--to", "dimacs", "--output-dir", str(folder), "--quiet"]) == 0
    assert sorted(p.suffix for p in folder.iterdir()) == [".cnf", ".json"]
    assert main(["generate", "--count", "1", "-o", str(tmp_path / "c" / "g.txt"), "--quiet"]) == 0
    assert (tmp_path / "c" / "g.txt").read_text().startswith("#")


def test_check_takes_the_boards_a_selector_picks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """check FILE:START-END: only the boards picked are checked and required; the answers for the others are
    skipped (before, every board of FILE had to be answered and each answer checked)."""
    assert main(["solve", f"{SMALL}:0-5", "-b", "search", "--proof-dir", str(tmp_path / "p"), "--json"]) == 0
    answers = tmp_path / "answers.jsonl"
    answers.write_text(capsys.readouterr().out)
    assert main(["check", f"{SMALL}:2-3", str(answers), "--json"]) == 0
    assert [json.loads(line)["board"] for line in capsys.readouterr().out.splitlines()] == [
        json.loads(line)["board"] for line in answers.read_text().splitlines()[2:4]
    ]
    assert main(["check", f"{SMALL}:4-9", str(answers), "--quiet"]) == 3  # boards 6 to 9 have no answer
    assert capsys.readouterr().out == ""


def test_count_picks_boards_and_stays_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    """count, added after the conventions, follows them: FILE:START-END, --board, --json, --quiet."""
    from sigmar.models.boardfile import read_boards

    names = [b.name for b in read_boards(SMALL)]
    assert main(["count", f"{SMALL}:0-1", "--of", "pairings", "--json"]) == 0
    assert [json.loads(line)["board"] for line in capsys.readouterr().out.splitlines()] == names[:2]
    assert main(["count", str(SMALL), "--board", names[3], "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")


def test_serve_prints_its_address_as_json_and_offers_the_boards_picked() -> None:
    """serve --json: one JSON object with the address (for a script that asked for --port 0), nothing else;
    FILE:START-END and --board narrow the boards its page can open."""
    from sigmar.models.boardfile import read_boards

    pytest.importorskip("uvicorn", reason="serve needs the workbench's server (uvicorn)")
    from tests import workbench_harness as harness

    names = [b.name for b in read_boards(SMALL)]
    with harness.serve_json(f"{SMALL}:2-4", "--board", names[3]) as (process, record, served):
        assert record["url"] == f"http://127.0.0.1:{record['port']}/" and record["port"] > 0, record
        assert record["boards"] == 1, record
        status, body = served.get("api/boards", timeout=120)
        assert status == 200 and [b["name"] for b in json.loads(body)] == [names[3]], body
    assert process.stdout is not None
    assert process.stdout.read() == ""  # nothing after the one JSON object, not even the 'stopped' line
