"""Plugins (docs/formats.md#plugins): a real package, built and installed by pip, joins through its entry points.

The package (tests/toy_plugin) is copied to a temporary folder and
installed there with ``pip install --target``: pip builds it with
setuptools from its own pyproject.toml and writes the same
``*.dist-info/entry_points.txt`` a site-packages install writes.
``importlib.metadata`` reads those files from every folder on ``sys.path``,
so the subprocesses below, with that folder on PYTHONPATH, see exactly what
an installed plugin shows; the test environment itself is never changed
(an install there would reach every other test running in parallel).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import threading
import uuid
from importlib.machinery import PathFinder
from pathlib import Path

import psutil
import pytest

from sigmar.encoders import plugins, registry
from sigmar.models.boardfile import read_boards

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "instances" / "small.txt"
CLI = [sys.executable, "-m", "sigmar.runners.cli"]
NAMES = [board.name for board in read_boards(SMALL)]
SOLVABLE = sum(name.endswith("[solvable]") for name in NAMES)


@pytest.fixture(scope="session")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder that holds the toy plugin package as pip installed it (offline, no build isolation)."""
    base = tmp_path_factory.mktemp("toy-plugin")
    source = base / "source"
    shutil.copytree(ROOT / "tests" / "toy_plugin", source)
    site = base / "site"
    install = [sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "--no-index"]
    subprocess.run([*install, "--target", str(site), str(source)], check=True, capture_output=True, timeout=300)
    return site


def sigmar(
    site: Path, *args: str, env: dict[str, str] | None = None, code: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``sigmar ARGS`` in a fresh process that sees the plugin; ``code`` runs first (``python -c``)."""
    command = [*CLI, *args] if code is None else [sys.executable, "-c", code, *args]
    environment = dict(os.environ, PYTHONPATH=str(site), **(env or {}))
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=environment, timeout=120)


def json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def raced(answers: list[dict[str, object]]) -> list[dict[str, object]]:
    """The answers that came from a race (the counts test refutes some boards before any backend starts)."""
    found = [answer for answer in answers if answer["backend"] != "counts"]
    assert len(found) >= SOLVABLE
    return found


def test_pip_wrote_the_entry_points_that_importlib_metadata_reads(plugin_site: Path) -> None:
    code = (
        "from importlib.metadata import entry_points; "
        "print(sorted((e.name, e.value, e.dist.name) for e in entry_points(group='sigmar.backends')))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(plugin_site))
    )
    assert run.returncode == 0, run.stderr
    assert "('toy', 'sigmar_toy_plugin:ToyBackend', 'sigmar-toy-plugin')" in run.stdout


def test_backends_lists_each_plugin_with_its_version_or_why_not(plugin_site: Path) -> None:
    run = sigmar(plugin_site, "backends", "--json")
    assert run.returncode == 0, run.stderr
    rows = json_lines(run.stdout)
    by_name = {(row["backend"], row["refused"]): row for row in rows}
    toy = by_name["toy", False]
    assert toy["available"] and toy["version"] == "toy 0.3" and toy["source"] == "plugin sigmar-toy-plugin 0.3"
    assert toy["subs"] == ["search", "wrong", "crash", "hang", "claim", "uncertified", "rules"]
    broken = by_name["toybroken", False]
    assert not broken["available"] and "sigmar_toy_missing_dependency" in str(broken["why_not"])
    raises = by_name["toyraises", False]
    assert not raises["available"] and "RuntimeError: the toy cannot tell" in str(raises["why_not"])
    other = by_name["toyother", False]
    assert not other["available"] and "family = 'toy'" in str(other["why_not"])
    for clash in ("search", "CNF"):
        refused = by_name[clash, True]
        assert not refused["available"] and "clashes with the built-in backend" in str(refused["why_not"])
    # The built-ins are listed first and untouched: 'search' is still the built-in.
    assert [row["backend"] for row in rows[:4]] == ["cpsat", "cnf", "minizinc", "search"]
    assert by_name["search", False]["source"] == "built-in"


def test_backends_reports_a_plugin_that_hangs_and_goes_on(plugin_site: Path) -> None:
    code = (
        "import sys; from sigmar.encoders import plugins; plugins.ANSWER_SECONDS = 0.5; "
        "from sigmar.runners.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    run = sigmar(plugin_site, "backends", "--json", env={"SIGMAR_TOY_HANG": "1"}, code=code)
    assert run.returncode == 0, run.stderr
    rows = {row["backend"]: row for row in json_lines(run.stdout) if not row["refused"]}
    assert not rows["toyhangs"]["available"]
    assert "version() did not answer within 0.5 s" in str(rows["toyhangs"]["why_not"])
    assert rows["toy"]["available"]


def test_solve_races_a_plugin_and_replays_its_answers(plugin_site: Path) -> None:
    run = sigmar(plugin_site, "solve", str(SMALL), "-b", "toy", "--json")
    assert run.returncode == 0, run.stderr
    answers = json_lines(run.stdout)
    assert [answer["board"] for answer in answers] == NAMES
    for answer in raced(answers):
        expected = "solved" if str(answer["board"]).endswith("[solvable]") else "unsolvable"
        assert answer["status"] == expected and answer["backend"] == "toy:search", answer
        assert answer.get("verified") or answer["status"] == "unsolvable"


# A solve that says, as its race closes, whom it raced and whether it read the plugins' metadata; search leads a
# first board for as long as it needs (on a busy machine its few ms of CPU may outlast the 0.1 s of clock).
RACED = (
    "import sys\n"
    "from sigmar.runners import race\n"
    "race.RacePolicy.FIRST_HEAD_START = 600.0\n"
    "close = race.Race.close\n"
    "def close_and_say(self):\n"
    "    read = 'sigmar.encoders.plugins' in sys.modules\n"
    "    print('RACED=' + ','.join(self.names) + (' READ' if read else ''), file=sys.stderr)\n"
    "    close(self)\n"
    "race.Race.close = close_and_say\n"
    "from sigmar.runners.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def raced_names(run: subprocess.CompletedProcess[str]) -> tuple[list[str], bool]:
    line = next(x for x in run.stderr.splitlines() if x.startswith("RACED="))
    names, _, read = line.removeprefix("RACED=").partition(" ")
    return names.split(","), read == "READ"


def test_all_looks_for_the_plugins_when_a_board_needs_more_than_search(plugin_site: Path, tmp_path: Path) -> None:
    """Issue 48: finding the plugins reads every installed package's metadata, some 5% of a one-board solve, so a
    race of all looks for them only when a board needs the others: a board search settles never reads them; a file
    of several boards starts the workers ahead, the plugins' among them."""
    one = tmp_path / "one.txt"
    one.write_text((ROOT / "instances" / "hexmatch-hard-100.txt").read_text().split("\n\n")[0] + "\n")
    alone = sigmar(plugin_site, "solve", str(one), code=RACED)
    assert alone.returncode == 0, alone.stderr
    assert raced_names(alone) == (["cpsat", "cnf", "minizinc", "search", "pumpkin"], False)
    several = sigmar(plugin_site, "solve", str(SMALL), "--json", code=RACED)
    assert several.returncode == 0, several.stderr
    names, read = raced_names(several)
    assert read and names[:5] == ["cpsat", "cnf", "minizinc", "search", "pumpkin"] and "toy" in names[5:], names
    assert [answer["board"] for answer in json_lines(several.stdout)] == NAMES


def test_a_plugin_written_over_sigmars_position_solves_by_the_rules(plugin_site: Path) -> None:
    """toy:rules imports nothing but `sigmar` (Position: legal moves, play, clear): its solutions replay."""
    run = sigmar(plugin_site, "solve", str(SMALL), "-b", "toy:rules", "--json")
    assert run.returncode == 1, run.stderr  # its "unsolvable" is a claim: those boards stay unknown
    for answer in json_lines(run.stdout):
        if str(answer["board"]).endswith("[solvable]"):
            assert answer["status"] == "solved" and answer["verified"] and answer["backend"] == "toy:rules", answer
        elif answer["backend"] != "counts":  # the counts answer before any backend is asked
            assert answer["status"] == "unknown" and answer["claims"][0]["reason"] == "exhausted", answer


def test_a_plugin_move_sequence_the_rule_engine_rejects_is_exit_3(plugin_site: Path) -> None:
    run = sigmar(plugin_site, "solve", str(SMALL), "-b", "toy:wrong", "--json")
    assert run.returncode == 3, run.stderr
    first = json_lines(run.stdout)[0]
    assert first["status"] == "error" and "the rule engine rejects" in str(first["message"])


def test_a_plugin_claim_without_certificate_stays_a_claim(plugin_site: Path) -> None:
    run = sigmar(plugin_site, "solve", str(SMALL), "-b", "toy:claim", "--json")
    assert run.returncode == 1, run.stderr
    assert all(answer["status"] == "unknown" and answer["claims"] for answer in raced(json_lines(run.stdout)))


def test_a_plugin_that_crashes_is_reported_while_the_race_goes_on(plugin_site: Path) -> None:
    alone = sigmar(plugin_site, "solve", str(SMALL), "-b", "toy:crash", "--json")
    assert alone.returncode == 1
    assert "toy:crash raised RuntimeError: the toy crashed on purpose" in str(json_lines(alone.stdout)[0]["message"])
    both = sigmar(plugin_site, "solve", str(SMALL), "-b", "toy:crash,search", "--json")
    assert both.returncode == 0, both.stderr
    assert {answer["backend"] for answer in raced(json_lines(both.stdout))} == {"search"}


def test_a_plugin_that_hangs_is_stopped_and_leaves_no_process(plugin_site: Path, tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    one = tmp_path / "one.txt"
    one.write_text("# one pair of air\n  a a\n . . .\n  . .\n")
    run = sigmar(
        plugin_site, "solve", str(one), "-b", "toy:hang", "--time-limit", "1", "--json", env={"SIGMAR_TOY_RUN": mark}
    )
    assert run.returncode == 1, run.stderr
    (answer,) = json_lines(run.stdout)
    assert answer["status"] == "unknown", answer
    left = []
    for process in psutil.process_iter():
        try:
            if process.environ().get("SIGMAR_TOY_RUN") == mark:
                left.append(process)
        except (psutil.Error, OSError):
            continue
    assert not left


def test_refused_and_misdeclared_plugins_are_exit_2_in_one_line(plugin_site: Path) -> None:
    for name, words in (("CNF", "clashes with the built-in backend 'cnf'"), ("toyother", "family = 'toy'")):
        run = sigmar(plugin_site, "solve", str(SMALL), "-b", name)
        assert run.returncode == 2
        assert words in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    # A built-in name always means the built-in, whatever a plugin claims.
    builtin = sigmar(plugin_site, "solve", str(SMALL), "-b", "search", "--json")
    assert builtin.returncode == 0 and {a["backend"] for a in raced(json_lines(builtin.stdout))} == {"search"}


def test_crosscheck_bench_and_survey_take_a_plugin_by_name(plugin_site: Path, tmp_path: Path) -> None:
    crosscheck = sigmar(plugin_site, "crosscheck", str(SMALL), "-b", "toy,search", "--json")
    assert crosscheck.returncode == 0, crosscheck.stderr
    out = tmp_path / "bench.csv"
    bench = sigmar(plugin_site, "bench", str(SMALL), "-b", "toy:search", "--time-limit", "10", "--out", str(out))
    assert bench.returncode == 0, bench.stderr
    assert out.read_text().count("toy:search,solved") == SOLVABLE
    survey = sigmar(plugin_site, "survey", "--count", "2", "-b", "toy", "--time-limit", "20", "--json")
    assert survey.returncode == 0, survey.stderr
    summary = json_lines(survey.stdout)[-1]
    assert summary["answered"] == 2 and summary["wrong"] == 0, summary


def test_a_plugin_that_only_claims_is_graded_claimed_and_ranked_below_one_that_certifies(
    plugin_site: Path, tmp_path: Path
) -> None:
    """toy:uncertified answers as the search does, but its "no" is only claimed: same boards, same speed."""
    out = tmp_path / "bench.csv"
    bench = sigmar(
        plugin_site, "bench", str(SMALL), "-b", "toy:uncertified,search", "--time-limit", "10", "--out", str(out)
    )
    assert bench.returncode == 0, bench.stderr
    rows = [r for r in csv.DictReader(line for line in out.read_text().splitlines() if not line.startswith("#"))]
    refuted = [r for r in rows if r["status"] == "unsolvable"]
    assert {(r["backend"], r["certified"], r["grade"]) for r in refuted} == {
        ("toy:uncertified", "no", "unconfirmed"),
        ("search", "yes", "correct"),
    }
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in bench.stdout.splitlines() if line.startswith("│")]
    rank = {row[1]: row[0] for row in cells if len(row) > 2 and row[0].isdigit()}  # the ranked table: rank, backend
    assert rank == {"search": "1", "toy:uncertified": "2"}, bench.stdout


# -- in this process: the pieces ---------------------------------------------


def test_the_plugin_api_is_importable_from_sigmar_itself() -> None:
    import sigmar
    from sigmar.encoders.backend import Backend
    from sigmar.models.result import Result
    from sigmar.models.rules import Position

    assert sigmar.Backend is Backend and sigmar.Result is Result and sigmar.Position is Position
    assert set(sigmar.__all__) == {
        "Position",
        "Backend",
        "Board",
        "Move",
        "Result",
        "Status",
        "Reason",
        "Certificate",
        "CertificateKind",
    }
    heavy = "import sys, sigmar; print(sorted({'numpy', 'ortools', 'pysat', 'minizinc'} & set(sys.modules)))"
    run = subprocess.run([sys.executable, "-c", heavy], capture_output=True, text=True, cwd=ROOT, check=True)
    assert run.stdout.strip() == "[]"


def test_bounded_reports_a_raise_and_a_hang_and_passes_a_value() -> None:
    assert plugins.bounded(lambda: 7, "seven") == 7
    with pytest.raises(plugins.PluginFailure, match=r"^boom raised SystemExit: 3$"):
        plugins.bounded(lambda: sys.exit(3), "boom")
    release = threading.Event()
    try:
        with pytest.raises(plugins.PluginFailure, match="slow did not answer within 0.2 s"):
            plugins.bounded(release.wait, "slow", seconds=0.2)
    finally:
        release.set()


def test_refusal_names_why() -> None:
    builtin = ("cpsat", "cnf")
    twice = (plugins.Entry("mine", "a:A", "a 1"), plugins.Entry("mine", "b:B", "b 1"))
    assert plugins.refusal(plugins.Entry("mine", "a:A", "a 1"), builtin, ()) == ""
    assert "clashes with the built-in backend 'cnf'" in plugins.refusal(plugins.Entry("Cnf", "a:A", "a 1"), builtin, ())
    assert "reserved" in plugins.refusal(plugins.Entry("all", "a:A", "a 1"), builtin, ())
    assert "not a backend name" in plugins.refusal(plugins.Entry("my:sat", "a:A", "a 1"), builtin, ())
    assert "also declared by entry point 'mine = b:B' of b 1" in plugins.refusal(twice[0], builtin, twice)


def test_metadata_without_the_group_are_read_without_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plugin_site: Path
) -> None:
    other = tmp_path / "other-1.0.dist-info"
    other.mkdir()
    (other / "entry_points.txt").write_text("[console_scripts]\nother = other:main\n")
    # Only the standard finder reads distributions (an import hook that another test installed would answer True).
    standard = [f for f in sys.meta_path if getattr(f, "find_distributions", None) is None or f is PathFinder]
    monkeypatch.setattr(sys, "meta_path", standard)
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert not plugins._may_declare_any()
    monkeypatch.setattr(sys, "meta_path", [*standard, type("Hook", (), {"find_distributions": staticmethod(list)})()])
    assert plugins._may_declare_any()
    monkeypatch.setattr(sys, "meta_path", standard)
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(plugin_site)])
    assert plugins._may_declare_any()


def test_the_registry_takes_plugins_like_built_ins(monkeypatch: pytest.MonkeyPatch, plugin_site: Path) -> None:
    monkeypatch.syspath_prepend(str(plugin_site))
    plugins.entries.cache_clear()
    try:
        assert registry.family_names()[:4] == ("cpsat", "cnf", "minizinc", "search")
        assert "toy" in registry.family_names() and "CNF" not in registry.family_names()
        assert registry.make("toy:wrong").name == "toy:wrong"
        with pytest.raises(registry.UnknownBackend, match="refused"):
            registry.make("CNF")
        with pytest.raises(registry.UnknownBackend, match="unknown backend 'nope:x'"):
            registry.expand("toy,nope:x")
    finally:
        plugins.entries.cache_clear()


def test_an_available_answer_that_is_not_a_pair_is_named() -> None:
    assert registry._pair((1, "")) == (True, "")
    with pytest.raises(TypeError, match="returned True, not"):
        registry._pair(True)


def test_the_guide_documents_the_constructor_every_reason_and_the_coordinates() -> None:
    import inspect

    from sigmar import Backend, Reason

    guide = " ".join((ROOT / "docs" / "plugins.md").read_text().split())
    parameters = list(inspect.signature(Backend.__init__).parameters)
    assert parameters == ["self", "sub", "options"], parameters  # the guide's signature, below
    assert "`Backend.__init__(self, sub: str | None = None, **options)`" in guide
    for reason in Reason:
        assert f"| `{reason.name}` |" in guide, reason
    assert "axial coordinates `(q, r)`" in guide and "`board.rowcol(cell)`" in guide
