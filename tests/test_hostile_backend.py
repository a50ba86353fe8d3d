"""A hostile plugin backend (tests/hostile) against every verb: nothing it says is trusted, nothing it does
takes a run down.  One regression test for each defect the hostile-backend hunt found (R1 to R18).

The plugin is registered as an installed package would be (a dist-info with its entry points, see
tests/mutants/register.py), here in this process: the verbs run through ``cli.main``, and their worker
processes, forked from this one, find it too.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.encoders import plugins
from sigmar.models.boardfile import parse_boards
from sigmar.models.result import Move, Result, Status
from sigmar.models.rules import verify
from sigmar.models.solution import parse_solutions, to_moves
from sigmar.runners import cli
from tests.broken_backend import BOARDS_TEXT
from tests.conftest import alive
from tests.hostile.sigmar_hostile import FLOOD_LINE as FLOOD

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = Path(__file__).parent / "hostile"
MUTANTS = Path(__file__).parent / "mutants"

# The lies about the fields the runner owns (R1): none may make an answer.
TRUST_LIES = (
    "checked-no",
    "checked-stuck",
    "verified-empty",
    "false-claims",
    "certificate-file",
    "named-search",
    "corroborated",
    "counts-lie",
    "forged-dead",
    "forged-drup",
    "sneaky-subclass",
)
# Malformed answers (R4): each an error naming the backend and the field.
MALFORMED = {
    "not-a-result": "not a Result",
    "cells-lists": "cells",
    "moves-none": "moves",
    "status-string": "status",
    "kind-string": "certificate kind",
    "kind-play-bound": "certificate kind",  # issue 47, S1: a bound on a play is no "no"
    "texts-bytes": "certificate text",
    "suffix-slash": "certificate text under",
    "stuck-none": "certificate cells",
    "statistics-bytes": "statistics",
    "seconds-nan": "seconds",
}


@pytest.fixture
def hostile(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The hostile plugin package installed for this test (this process, its workers, and subprocesses)."""
    sys.path.insert(0, str(MUTANTS))
    try:
        from register import register
    finally:
        sys.path.remove(str(MUTANTS))
    paths = register(tmp_path_factory.mktemp("hostile-site"), HOSTILE)
    for path in reversed(paths):
        monkeypatch.syspath_prepend(path)
    pythonpath = os.pathsep.join([*paths, os.environ.get("PYTHONPATH", "")])
    monkeypatch.setenv("PYTHONPATH", pythonpath)
    plugins.entries.cache_clear()
    yield {**os.environ, "PYTHONPATH": pythonpath}
    plugins.entries.cache_clear()


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """A solvable pair and a stuck (unsolvable) board; the counts board is left out (no backend is asked)."""
    path = tmp_path / "tiny.txt"
    path.write_text(BOARDS_TEXT.split("\n# counts")[0])
    return path


TRUTH = {"pair": "solved", "stuck": "unsolvable"}


def sigmar(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    said = capsys.readouterr()
    return code, said.out, said.err


def records(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def assert_true_answer(record: dict[str, Any]) -> None:
    """An answer the suite gives is true: a solution that replays, or unsolvable only on the stuck board."""
    board = {b.name: b for b in parse_boards(BOARDS_TEXT, "tiny")}[record["board"]]
    if record["status"] == "solved":
        assert record["verified"] and verify(board, to_moves(board, parse_solutions(json.dumps(record))[0])).valid
    if record["status"] == "unsolvable":  # a forged proof may happen to be valid: a proof is a proof
        assert TRUTH[record["board"]] == "unsolvable" and record["checked"], record


# -- R1: the runner owns checked, verified, wrong, claims and check_seconds ----------------------


@pytest.mark.parametrize("lie", TRUST_LIES)
def test_r1_solve_never_takes_a_backends_word_for_a_check(
    lie: str, hostile: dict[str, str], tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = sigmar(capsys, "solve", str(tiny), "-b", f"hostile:{lie}", "--json", "--time-limit", "5")
    answers = records(out)
    assert [r["board"] for r in answers] == ["pair", "stuck"], err
    for record in answers:
        assert_true_answer(record)
        assert all(not claim.get("checked") for claim in record.get("claims", [])), record
    assert answers[0]["status"] in ("unknown", "error"), answers[0]  # no lie settles the solvable board
    assert code in (1, 3), err


def test_r1_a_true_answer_marked_wrong_by_its_backend_is_graded_on_its_merits(
    hostile: dict[str, str], tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = sigmar(capsys, "solve", str(tiny), "-b", "hostile:wrong-flag", "--json")
    assert code == 0, err
    assert [(r["status"], r.get("verified") or r.get("checked")) for r in records(out)] == [
        ("solved", True),
        ("unsolvable", True),
    ]


def test_r1_crosscheck_bench_and_fuzz_grade_every_lie_wrong_or_unconfirmed(
    hostile: dict[str, str], tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = ["search", *(f"hostile:{lie}" for lie in TRUST_LIES)]
    backends = ",".join(names)
    code, out, err = sigmar(capsys, "crosscheck", str(tiny), "-b", backends, "--json", "--time-limit", "5")
    assert code == 3, err
    for record in records(out):
        assert_true_answer(record)
        assert record["status"] == TRUTH[record["board"]], record
        for name in names[1:]:
            claimed = record["answers"][name]
            if claimed == "unsolvable" and record["board"] == "pair":
                assert record["grades"][name] == "wrong", (name, record)
            if record["grades"][name] == "correct" and claimed == "unsolvable":  # only its own checked certificate
                assert record["certified"][name] == "yes", (name, record)
    stuck = next(r for r in records(out) if r["board"] == "stuck")
    # checked=True and no certificate, on a board the search refutes: a true claim, still only a claim
    assert stuck["grades"]["hostile:checked-no"] == "unconfirmed" and stuck["certified"]["hostile:checked-no"] == "no"
    csv_path = tmp_path / "bench.csv"
    bench = ["bench", str(tiny), "-b", backends, "--out", str(csv_path), "--time-limit", "5", "--repeat", "2"]
    code, _, err = sigmar(capsys, *bench)
    assert code == 3, err
    from sigmar.runners.bench import read_csv

    rows = read_csv(csv_path)
    assert {r["repeat"] for r in rows} == {"1", "2"}  # every repetition's answer is taken in and graded alike
    claim = next(r for r in rows if r["backend"] == "hostile:checked-no" and r["board"] == "stuck")
    assert (claim["status"], claim["certified"], claim["grade"]) == ("unsolvable", "no", "unconfirmed"), claim
    for row in rows:
        if row["backend"].startswith("hostile") and row["status"] == "unsolvable" and row["board"] == "pair":
            assert row["grade"] == "wrong", row
        if row["backend"].startswith("hostile") and row["grade"] == "correct":
            assert row["board"] == "stuck" and row["status"] == "unsolvable", row
            assert row["certified"] == "yes", row  # a claim, even a true one the search settled, is unconfirmed
        if row["backend"].startswith("hostile") and row["certified"] == "no":
            assert row["grade"] in ("wrong", "unconfirmed"), row
    code, out, err = sigmar(capsys, "fuzz", "--replay", str(tiny), "-b", backends, "--json", "--time-limit", "5")
    assert code == 3, err
    pair = next(r for r in records(out) if r["board"] == "pair")
    failed = {f["backend"] for f in pair["failures"]}
    assert {n for n in names[1:] if pair["answers"][n] == "unsolvable"} <= failed


def test_r1_survey_counts_no_lie(hostile: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    """Random deals, every lie racing alone: nothing but what the counts precheck settles is answered."""
    lies = ",".join(f"hostile:{lie}" for lie in TRUST_LIES if lie != "forged-drup")  # "0" may be a true proof
    code, out, err = sigmar(capsys, "survey", "--count", "4", "--seed", "2", "-b", lies, "--json", "--time-limit", "5")
    summary = json.loads(out)
    assert summary["solved"] == 0 and summary["unsolvable"] == 0 and summary["unknown"] == 4, (summary, err)


# -- counts: a plugin's count is taken in as its answers are, then held against the rule engine's ------

COUNT_WRONG = ("count-more", "count-bound-above")
# Malformed counts: each an error naming the backend and what was wrong.
COUNT_MALFORMED = {
    "count-equals-all": "EqualsAll",
    "count-bool": "bool",
    "count-float": "float",
    "count-negative": "-1",
    "count-exact-string": "exact as str",
    "count-list": "list",
    "count-none": "NoneType",
    "count-huge": "statistics",
    "count-unprintable": "Unprintable",
}


@pytest.mark.parametrize("notion", ["sequences", "pairings"])
def test_a_plugins_count_is_never_trusted_and_never_a_traceback(
    notion: str, hostile: dict[str, str], tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = [f"hostile:{sub}" for sub in (*COUNT_WRONG, *COUNT_MALFORMED)]
    args = ["count", str(tiny), "-b", ",".join(names), "--of", notion, "--json", "--time-limit", "5"]
    code, out, err = sigmar(capsys, *args)
    assert code == 3 and "Traceback" not in err, err
    assert [r["board"] for r in records(out)] == ["pair", "stuck"]
    for record in records(out):
        counts = record["counts"]
        for sub in COUNT_WRONG:
            assert counts[f"hostile:{sub}"]["grade"] == "wrong", (sub, record)
        for sub, said in COUNT_MALFORMED.items():
            entry = counts[f"hostile:{sub}"]
            assert entry["grade"] == "error" and entry["count"] is None, (sub, entry)
            assert entry["message"].startswith(f"hostile:{sub} ") and said in entry["message"], (sub, entry)
        assert not record["agree"] and len(record["notes"]) == len(COUNT_WRONG), record


def test_a_counting_plugin_that_crashes_forks_or_floods_takes_nothing_down(
    hostile: dict[str, str], tiny: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.conftest import wait_for

    tag = f"tag-{os.getpid()}-count"
    subs = ("exits", "segfault", "hangs", "setsid-hangs", "daemon", "floods-stdout", "prints")
    names = ",".join(["search", *(f"hostile:{sub}" for sub in subs)])
    env = {**hostile, "SIGMAR_HOSTILE_TAG": tag}
    done = run(env, "crosscheck", str(tiny), "-b", names, "--compare-counts", "--json", "--time-limit", "2")
    assert "Traceback" not in done.stderr and "FLOOD" not in done.stderr, done.stderr[-2000:]
    found = [json.loads(line) for line in done.stdout.splitlines()]  # only the suite's own lines
    assert [r["board"] for r in found] == ["pair", "stuck"], done.stdout[:300]
    for record in found:
        for notion in ("sequences", "pairings"):
            counts = record["counts"][notion]["counts"]
            assert counts["search"]["grade"] == "correct", counts
            for sub in ("exits", "segfault"):
                assert counts[f"hostile:{sub}"]["grade"] == "error", counts
                assert "while counting" in counts[f"hostile:{sub}"]["message"], counts
            for sub in ("hangs", "setsid-hangs"):
                assert counts[f"hostile:{sub}"]["grade"] == "unknown", counts
            for sub in ("daemon", "floods-stdout", "prints"):  # then it counted truly
                assert counts[f"hostile:{sub}"]["grade"] == "correct", counts
    assert wait_for(lambda: not tagged_processes(tag), 10), tagged_processes(tag)


# -- R4: malformed answers are errors naming the backend and the field ----------------------------


def test_r4_malformed_answers_are_errors_naming_backend_and_field(
    hostile: dict[str, str], tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = [f"hostile:{sub}" for sub in MALFORMED]
    code, out, err = sigmar(capsys, "crosscheck", str(tiny), "-b", ",".join(names), "--json", "--time-limit", "5")
    assert "Traceback" not in err
    for record in records(out):
        for name in names:
            assert record["answers"][name] == "error", (name, record)
    code, out, err = sigmar(capsys, "solve", str(tiny), "-b", ",".join(names), "--json", "--time-limit", "5")
    assert "Traceback" not in err and code == 1
    for record in records(out):
        assert record["status"] == "unknown" or record["status"] == "error"
    for sub, field in MALFORMED.items():
        code, out, err = sigmar(capsys, "solve", str(tiny), "-b", f"hostile:{sub}", "--json", "--time-limit", "5")
        message = records(out)[0]["message"]
        assert f"hostile:{sub}" in message and field in message, (sub, message)


# -- R3: an engine loop that raises kills its workers and does not hang -------------------------------


def test_r3_an_error_in_the_bench_loop_kills_the_workers_at_once(hostile: dict[str, str]) -> None:
    from sigmar.encoders.processes.guard import descendants
    from sigmar.runners.bench import bench, plan, run_local

    boards = parse_boards(BOARDS_TEXT, "tiny")
    names = ["search", "hostile:hangs"]
    runs = plan([("tiny", boards)], names)
    seen: list[int] = []
    before = set(descendants(os.getpid()))  # what earlier tests of this worker left running (a resource tracker)

    def fail(run: object, answer: object) -> None:
        seen.extend(set(descendants(os.getpid())) - before)
        raise OSError(28, "No space left on device")

    caught: list[BaseException] = []
    try:
        bench(runs, names, run_local(runs, 30.0, jobs=2), on_done=fail)
    except OSError as exc:
        caught.append(exc)  # its traceback holds bench's frame, and so the executor, as an uncaught error would
    assert caught and seen and not [pid for pid in seen if alive(pid)]


# -- R5: a backend's descendants die with it, even in a session of their own ---------------------------

LEAVERS = ("child", "setsid-child", "daemon", "setsid-exits", "setsid-hangs")


def tagged_processes(tag: str) -> list[int]:
    """Live processes whose command line carries ``tag`` (the hostile backend's sleepers of this test)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                words = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if tag.encode() in words and alive(int(entry.name)):
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("verb", ["solve", "crosscheck"])
def test_r5_what_a_backend_starts_dies_with_it_even_after_setsid(
    verb: str, hostile: dict[str, str], tiny: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.conftest import wait_for

    tag = f"tag-{os.getpid()}-{verb}"
    monkeypatch.setenv("SIGMAR_HOSTILE_TAG", tag)
    names = ",".join(f"hostile:{sub}" for sub in LEAVERS)
    code, out, err = sigmar(capsys, verb, str(tiny), "-b", names, "--json", "--time-limit", "2")
    assert "Traceback" not in err and len(records(out)) == 2, err
    assert wait_for(lambda: not tagged_processes(tag), 10), tagged_processes(tag)


# -- R6: what a backend prints is captured apart, bounded, shown with --verbose or an error --------------

CLI = [sys.executable, "-m", "sigmar.runners.cli"]


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``sigmar ARGS`` in a fresh process (its own file descriptors 1 and 2, as a user's run has)."""
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, timeout=300)


def test_r6_a_backends_output_never_reaches_the_suites(hostile: dict[str, str], tiny: Path) -> None:
    printers = ",".join(f"hostile:{sub}" for sub in ("floods-stdout", "floods-stderr", "prints", "streams"))
    done = run(hostile, "crosscheck", str(tiny), "-b", printers, "--json", "--time-limit", "2")
    assert [json.loads(line)["board"] for line in done.stdout.splitlines()] == ["pair", "stuck"], done.stdout[:300]
    assert "FLOOD" not in done.stderr and len(done.stderr) < 1000, done.stderr[:300]
    shown = run(hostile, "solve", str(tiny), "-b", "hostile:prints", "--json", "--verbose")
    assert [json.loads(line)["status"] for line in shown.stdout.splitlines()] == ["solved", "unsolvable"]
    assert "hostile:prints printed: " + FLOOD in shown.stderr


def test_r6_output_is_shown_with_an_error_and_bounded(
    hostile: dict[str, str], tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sigmar.encoders.processes import capture

    code, out, err = sigmar(capsys, "solve", str(tiny), "-b", "hostile:floods-exits", "--json")
    for record in records(out):
        assert record["status"] == "error" and "exited with status 7" in record["message"], record
        said = record["message"].split("; its output: ", 1)[1]
        assert said.startswith(FLOOD) and "bytes ..." in said and len(said) <= capture.SHOWN + 50, said
    fd = capture.open_capture()
    assert fd is not None
    try:
        capture.keep_bounded(fd)
        chunk = b"x" * 2**16
        for _ in range(64):  # 4 MiB, at about 20 MB/s
            os.write(fd, chunk)
            time.sleep(0.003)
            assert os.fstat(fd).st_size <= capture.LIMIT + 2**21  # what 0.1 s of writing adds at most
        os.write(fd, FLOOD.encode())
        assert capture.text(fd).endswith(FLOOD)
    finally:
        os.close(fd)


def test_r6_a_plugin_that_prints_at_import_leaves_backends_json_whole(hostile: dict[str, str]) -> None:
    done = run(hostile, "backends", "--json")
    listed = [json.loads(line) for line in done.stdout.splitlines()]
    assert {"hostile", "hostile-noisy"} <= {row["backend"] for row in listed}
    assert "FLOOD" not in done.stderr


# -- R13: a plugin whose import ends the process is unavailable, not the end of the run ----------------


def test_r13_a_plugin_that_exits_at_import_is_reported_unavailable(hostile: dict[str, str], tiny: Path) -> None:
    done = run(hostile, "backends", "--json")
    assert done.returncode == 0, done.stderr
    row = next(json.loads(line) for line in done.stdout.splitlines() if json.loads(line)["backend"] == "hostile-exit")
    assert not row["available"] and "ended the process (exit status 7)" in row["why_not"]
    solved = run(hostile, "solve", str(tiny), "--json", "--time-limit", "30")  # -b all: every available backend
    assert solved.returncode == 0 and len(solved.stdout.splitlines()) == 2, solved.stderr
    refused = run(hostile, "solve", str(tiny), "-b", "hostile-exit")
    assert refused.returncode == 2 and "ended the process" in refused.stderr and "Traceback" not in refused.stderr


# -- R8: search answers a board with no tiles: solved, by no move -------------------------------------


def test_r8_search_answers_an_empty_board_with_no_moves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("# empty\n. . .\n . . . .\n  . . . . .\n   . . . .\n    . . .\n")
    code, out, err = sigmar(capsys, "crosscheck", str(empty), "-b", "search,cnf", "--json")
    record = records(out)[0]
    assert code == 0 and record["agree"], err
    assert record["answers"] == {"search": "solved", "cnf": "solved"} and record["moves"] == []


# -- R7: fuzz --replay refuses boards its truth search cannot settle -----------------------------------


def test_r7_fuzz_replay_refuses_a_board_larger_than_it_deals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sigmar.models.fuzz_deal import MAX_TILES

    big = tmp_path / "big.txt"
    code, out, _ = sigmar(capsys, "generate", "--count", "1", "--dim", "6", "--seed", "1")
    big.write_text(out)
    code, out, err = sigmar(capsys, "fuzz", "--replay", str(big), "-b", "search", "--json")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"at most {MAX_TILES}" in err and str(big) in err


# -- R9: a full disk is one line and exit 2, and leaves no partial file ---------------------------------

FULL_AT = 4096  # bytes any file of the run may hold: a disk that is full after 4 KB (RLIMIT_FSIZE, SIGXFSZ ignored)


def full_disk(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``sigmar ARGS`` where every write past FULL_AT bytes of a file fails (EFBIG), as on a full disk."""

    def cap() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (FULL_AT, FULL_AT))

    # No bytecode cache from a capped process: a .pyc cut at FULL_AT bytes would be renamed into place
    # and break every later import of that module (a fresh clone's first `show` was one).
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=cwd, preexec_fn=cap, env=env, timeout=300)


def assert_one_line_exit_2(done: subprocess.CompletedProcess[str]) -> None:
    said = [line for line in done.stderr.splitlines() if line.startswith("sigmar ")]
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert len(said) == 1 and "cannot write" in said[0], done.stderr[-2000:]


def no_partial_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(".part") or (p.is_file() and p.stat().st_size == 0)]


@pytest.fixture(scope="module")
def unsolvable_boards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Boards whose certificates need files (dead-states, DRUP) bigger than FULL_AT."""
    folder = tmp_path_factory.mktemp("unsolvable")
    done = subprocess.run([*CLI, "generate", "--unsolvable", "--count", "3", "--seed", "5"], capture_output=True)
    (folder / "u.txt").write_bytes(done.stdout)
    many = subprocess.run([*CLI, "generate", "--count", "20", "--seed", "2"], capture_output=True)
    (folder / "many.txt").write_bytes(many.stdout)
    return folder


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "{u}", "-b", "search", "--proof-dir", "out"],
        ["generate", "--count", "20", "--seed", "2", "-o", "out/g.txt"],
        ["generate", "--count", "20", "--seed", "2", "-o", "out/g.txt", "--witness", "out/w.jsonl"],
        ["encode", "{many}", "--to", "dimacs", "-o", "out/e.cnf"],
        ["show", "{many}", "--svg", "out/b.svg"],
        ["bench", "{many}", "-b", "search", "--out", "out/b.csv", "--html", "out/b.html"],
        ["survey", "--count", "40", "-b", "search", "--results", "out/s.jsonl", "--time-limit", "30"],
    ],
    ids=lambda a: " ".join(a[:1] + [x for x in a if x.startswith("-") and x not in ("-b", "--count", "--seed")]),
)
def test_r9_a_full_disk_is_one_line_and_exit_2(args: list[str], unsolvable_boards: Path, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    argv = [a.format(u=unsolvable_boards / "u.txt", many=unsolvable_boards / "many.txt") for a in args]
    done = full_disk(*argv, cwd=tmp_path)
    assert_one_line_exit_2(done)
    left = no_partial_files(tmp_path / "out")
    if args[0] == "survey":  # whole lines only: what was answered stays, a rerun goes on from it
        lines = (tmp_path / "out" / "s.jsonl").read_text().splitlines(keepends=True)
        assert all(line.endswith("\n") and json.loads(line) for line in lines)
    else:
        assert not left, left


def test_r9_standard_output_to_a_full_disk_is_one_line_and_exit_2(tiny: Path) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run([*CLI, "solve", str(tiny), "-b", "search", "--json"], stdout=full, stderr=subprocess.PIPE)
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1 and "standard output" in err and "Traceback" not in err


# -- R10: two runs given the same output: the second stops at once --------------------------------------


@pytest.mark.parametrize("flag", ["--out", "--html", "--xml"])
def test_r10_a_second_bench_on_an_output_in_use_is_refused(
    flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sigmar.models.output_files import OutputLock

    target = tmp_path / ("xml" if flag == "--xml" else "out.file")
    if flag == "--xml":
        target.mkdir()
    with OutputLock(target):  # as the first bench holds it
        code, out, err = sigmar(
            capsys, "bench", str(ROOT / "instances" / "small.txt"), "-b", "search", flag, str(target)
        )
    assert code == 2 and "another sigmar run is writing" in err and len(err.strip().splitlines()) == 1, err
    if flag != "--xml":
        assert target.exists() is False  # the lock's empty file goes with it


def test_r10_a_second_fuzz_on_a_failures_folder_in_use_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sigmar.models.output_files import OutputLock

    with OutputLock(tmp_path):
        code, out, err = sigmar(capsys, "fuzz", "-b", "search", "--count", "2", "--out", str(tmp_path))
    assert code == 2 and "another sigmar run is writing" in err, err


# -- R12: --cluster of any scheme: refused or served, in one line ---------------------------------------


@pytest.mark.parametrize("address", ["tls://127.0.0.1:1", "ucx://x:1", "inproc://x", "tcp://", ":::", "tcp://h:port"])
@pytest.mark.parametrize("verb", ["bench", "survey", "fuzz"])
def test_r12_cluster_addresses_of_any_scheme_are_one_line(
    verb: str, address: str, tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("distributed", reason="--cluster needs dask.distributed")
    args = {"bench": ["bench", str(tiny)], "survey": ["survey", "--count", "1"], "fuzz": ["fuzz", "--count", "1"]}
    code, _, err = sigmar(capsys, *args[verb], "-b", "search", "--cluster", address)
    assert code == 2 and len(err.strip().splitlines()) == 1 and address in err, err


# -- R14: limit variables that do not parse are exit 2 in one line ------------------------------------


@pytest.mark.parametrize("value", ["²", "-1", "1e99", "abc", "99999999999999999999"])
def test_r14_a_limit_variable_that_does_not_parse_is_one_line_exit_2(
    value: str, tiny: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SIGMAR_MAX_BOARD_FILE", value)
    code, out, err = sigmar(capsys, "solve", str(tiny), "-b", "search")
    assert code == 2 and out == "" and err.strip().splitlines() == [err.strip()] and "SIGMAR_MAX_BOARD_FILE" in err


# -- R15: check holds each file kind to its own limit ---------------------------------------------------


def test_r15_check_takes_a_dead_states_file_under_its_own_limit(
    unsolvable_boards: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    boards = unsolvable_boards / "u.txt"
    code, out, err = sigmar(capsys, "solve", str(boards), "-b", "search", "--proof-dir", str(tmp_path), "--json")
    cert = next(tmp_path.glob("*.dead.jsonl"))  # the board the search refutes by its dead states
    size = cert.stat().st_size
    monkeypatch.setenv("SIGMAR_MAX_ANSWERS", str(size - 1))  # the JSON limit is smaller than the file
    code, out, err = sigmar(capsys, "check", str(boards), str(cert))
    assert code == 0, err
    monkeypatch.setenv("SIGMAR_MAX_DEAD_STATES", str(size - 1))
    code, out, err = sigmar(capsys, "check", str(boards), str(cert))
    assert code == 2 and "SIGMAR_MAX_DEAD_STATES" in err, err


# -- R16: show --svg streams a board file ------------------------------------------------------------


def test_r16_show_svg_holds_one_board_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sigmar.runners.cli import show, show_files

    def whole(path: object) -> None:
        raise AssertionError("show --svg read the whole board file")

    monkeypatch.setattr(show, "selected_names", whole)  # the readers that hold every board of a file
    monkeypatch.setattr(show_files, "selected_names", whole)
    boards = tmp_path / "three.txt"
    boards.write_text(BOARDS_TEXT)
    code, out, err = sigmar(capsys, "show", str(boards), "--svg", str(tmp_path / "b.svg"))
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.glob("b.*.svg")) == ["b.0.svg", "b.1.svg", "b.2.svg"]
    assert all(p.read_text().startswith("<svg") for p in tmp_path.glob("b.*.svg"))
    code, out, err = sigmar(capsys, "show", f"{boards}:1-2", "--svg", f"{tmp_path / 'pics'}/")  # a folder: by name
    assert code == 0, err
    assert len(list((tmp_path / "pics").glob("*.svg"))) == 2


# -- R17: --witness given a folder is exit 2 ---------------------------------------------------------


def test_r17_generate_witness_given_a_folder_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = sigmar(capsys, "generate", "--count", "1", "--witness", str(tmp_path))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "folder" in err, err


# -- R18: an error names a certificate file, whatever its name ------------------------------------------


@pytest.mark.parametrize("name", ["f", "g", "line", "x.dead.jsonl"])
def test_r18_an_error_names_the_certificate_file_whatever_its_name(
    name: str, tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path(name).write_text("not json\n")
    code, out, err = sigmar(capsys, "check", str(tiny), name)
    assert code == 2 and err.startswith(f"sigmar check: {name}: "), err
    Path(name).write_text('{"kind": "stuck", "cells": [[99, 0]]}\n')  # read, then malformed for the board
    code, out, err = sigmar(capsys, "check", str(tiny), name, "--board", "stuck")
    assert code == 2 and err.startswith(f"sigmar check: {name}: board 'stuck': "), err


@pytest.mark.parametrize("compiled", [False, True], ids=["python", "compiled"])
def test_r4_a_move_kept_as_plain_never_lets_an_odd_one_beside_it_through(
    compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In Python, intake keeps the Moves it found plain (``intake._PLAIN``) and does not look at an answer of
    kept moves again; a move not kept is still looked at, even among kept ones, and a Move whose cells are not
    plain is refused however many kept moves come with it.  The compiled look (every move, every answer)
    refuses the same."""
    from sigmar.runners.checking import intake

    if compiled and intake._compiled_check(at_once=True) is None:
        pytest.skip("the compiled look was not built here (no C compiler or Python headers)")
    if not compiled:
        monkeypatch.setattr(intake._compiled_check, "loaded", False)
    kept = (Move(((0, 0), (1, 0))), Move(((0, 1),)))
    answer = Result(Status.SOLVED, "search", moves=kept)
    assert intake.taken_in(answer, "search").moves is kept
    assert compiled or all(id(move) in intake._PLAIN for move in kept)
    odd = Move(((0, 0), [1, 0]))  # type: ignore[arg-type]
    refused = intake.taken_in(Result(Status.SOLVED, "search", moves=(*kept, odd)), "search")
    assert refused.status is Status.ERROR and "move 3" in refused.message
    assert id(odd) not in intake._PLAIN
    copied = intake.taken_in(Result(Status.SOLVED, "search", moves=(*kept, Move(((2, 0), (3.0, 0))))), "search")  # type: ignore[arg-type]
    assert copied.status is Status.ERROR and "move 3" in copied.message


_ODD_CELLS = st.one_of(
    st.tuples(st.integers(-9, 9), st.integers(-9, 9)),
    st.tuples(st.integers(-9, 9), st.integers(-9, 9)).map(list),
    st.tuples(st.booleans(), st.integers(-2, 2)),
    st.tuples(st.integers(-2, 2), st.floats(-2, 2)),
    st.tuples(st.integers(-2, 2), st.integers(-2, 2), st.integers(-2, 2)),
    st.tuples(st.integers(-2, 2)),
    st.just("ab"),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.lists(_ODD_CELLS, min_size=0, max_size=6).map(lambda cells: Move(tuple(cells))),
            st.lists(_ODD_CELLS, min_size=1, max_size=3).map(lambda cells: Move(cells)),  # type: ignore[arg-type]
            st.tuples(st.integers(-9, 9), st.integers(-9, 9)).map(lambda cell: (cell,)),
            st.none(),
        ),
        max_size=8,
    ),
    st.booleans(),
)
def test_r4_the_compiled_look_at_moves_agrees_with_the_python_one(moves: list[object], as_list: bool) -> None:
    """``_replay.c``'s ``plain_moves`` says plain exactly where ``intake._plain_moves_read`` does: exact Moves of
    one, two or five cells, each an exact tuple of two exact ints (bools, floats, lists, other lengths refused)."""
    from sigmar.runners.checking import intake

    compiled = intake._compiled_check(at_once=True)
    if compiled is None:
        pytest.skip("the compiled look was not built here (no C compiler or Python headers): nothing to compare")
    value = list(moves) if as_list else tuple(moves)
    expected = intake._plain_moves_read(tuple(moves)) and not as_list
    assert compiled(value, Move) == expected


class _Text(str):
    """A str subclass: never shared as it is."""


_STAT_VALUES = st.one_of(
    st.text(max_size=3),
    st.text(max_size=3).map(_Text),
    st.booleans(),
    st.none(),
    st.integers(-(2**64), 2**64),
    st.sampled_from([2**63 - 1, 2**63, -(2**63), -(2**63) - 1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.lists(st.integers(0, 3), max_size=2),
    st.just(b"x"),
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.one_of(st.text(max_size=4), st.text(max_size=4).map(_Text), st.integers(0, 3)), _STAT_VALUES),
    st.booleans(),
)
def test_r4_the_compiled_look_at_statistics_agrees_with_the_python_one(stats: dict[Any, Any], subclass: bool) -> None:
    """``_replay.c``'s ``plain_statistics`` copies exactly what ``intake._statistics_read`` shares as it is (exact
    string keys; exact strings, bools, None, ints of 64 bits, finite floats) and leaves the rest to it: a dict
    subclass, a str subclass, an int past 64 bits, a NaN or an infinity, a list, bytes."""
    from sigmar.runners.checking import intake

    compiled = intake._compiled_statistics(at_once=True)
    if compiled is None:
        pytest.skip("the compiled look was not built here (no C compiler or Python headers): nothing to compare")
    value: dict[Any, Any] = type("Stats", (dict,), {})(stats) if subclass else stats
    plain = type(value) is dict and all(type(k) is str for k in value) and intake._all_plain(list(value.values()))
    copied = compiled(value)
    assert (copied is not None) == plain
    if copied is not None:
        assert copied == value and copied is not value and type(copied) is dict
        assert intake._statistics(value) == intake._statistics_read(value) == copied
