"""A hostile backend against every verb, two runs at once on one cluster, full disks: the counts that must be 0.

The hostile plugin (tests/hostile, installed with pip into a scratch folder as a user would
install a plugin) misbehaves as its sub-name says: it lies about the fields the runner owns,
returns malformed answers, crashes, hangs, forks into new sessions, and floods its output.
Every behaviour runs through ``solve`` (alone), a race (``-b hostile:X,cnf``), ``crosscheck``,
``bench`` and ``fuzz``, each as a whole ``sigmar`` process on two small boards (a solvable pair
and a stuck board), and each run is counted:

- **wrong**: an answer or grade the truth (an exhaustive search over the rule engine) refutes:
  a printed answer that is not the truth, a lie graded ``correct``, a true answer graded
  ``wrong``, a "no" graded ``correct`` without its own checked certificate (a claim is
  ``unconfirmed``), a fuzz lie not listed as a failure;
- **traceback**: ``Traceback`` on standard output or error;
- **hang**: the run took longer than its bound (boards x (limit + 1 s), for fuzz with its
  shrinking candidates too) plus 10 s;
- **left**: processes of the run still alive 5 s after it ended (its workers and keepers
  carry the run's folder in their command line, the hostile sleepers its tag);
- **foreign**: a standard output line of a ``--json`` run that is not an answer of one of the
  run's boards (``bench``: any line with the plugin's fake record).

Then two runs at once on one loopback cluster (bench and bench on different files, fuzz and
fuzz of one seed with different backends, survey and survey on different results files) must
each get their own answers; and every verb that writes must, on a full disk (a 2 MiB tmpfs as
the output folder, or as TMPDIR with 64 KiB left), end in exit 2 with one line and leave no
partial file (a survey's results only whole lines).  Mounting a tmpfs needs root; elsewhere the
full disk is simulated with RLIMIT_FSIZE (and the report says so).

    python scripts/bench/hostile_backends.py [--time-limit 2] [--only checked-no,hangs] [--skip-cluster] [--skip-disk]

Prints the counts and writes results/bench_hostile_backends.{json,md} and docs/measured/hostile-backends.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchlib import RESULTS, ROOT, markdown_table, plugin_environment, publish

from sigmar.models.boardfile import read_boards
from sigmar.models.rules import verify
from sigmar.models.solution import parse_solutions, to_moves
from sigmar.models.truth import settle
from tests.loopback import loopback_cluster

SIGMAR = [sys.executable, "-m", "sigmar.runners.cli"]
MEASURED = ROOT / "docs" / "measured" / "hostile-backends.md"
# A solvable pair and a stuck board (counts fine, no way out).
BOARDS = """\
# pair
a . .
 . . . .
  . . a . .
   . . . .
    . . .

# stuck
. e .
f . m .
. s . a .
. a f v
. . .
"""
HANG_SLACK = 10.0  # seconds past a run's bound before it counts as a hang
VERBS = ("solve", "race", "crosscheck", "bench", "fuzz")


# -- one run ------------------------------------------------------------------------------------------


def tagged(tag: str) -> list[int]:
    """Live processes whose command line carries ``tag`` (a run's folder, or the hostile sleepers' tag)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_bytes()
        except OSError:
            continue
        if tag.encode() in command and state[state.rfind(b")") + 2 :][:1] != b"Z":
            found.append(int(entry.name))
    return found


def run(argv: list[str], env: dict[str, str], bound: float, cwd: Path | None = None) -> dict[str, Any]:
    """One sigmar process, stopped at ``bound + HANG_SLACK + 60`` s at the latest (counted as a hang)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*SIGMAR, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd
    )
    try:
        out, err = proc.communicate(timeout=bound + HANG_SLACK + 60)
        code: int | str = proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        code = "killed"
    return {"exit": code, "out": out, "err": err, "seconds": time.perf_counter() - start}


def leftovers(*tags: str) -> int:
    """How many processes of the run live 5 s after it ended; they are killed (by pid: they are ours)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(tagged(t) for t in tags):
        time.sleep(0.1)
    left = sorted({pid for t in tags for pid in tagged(t)})
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return len(left)


# -- judging the answers ----------------------------------------------------------------------------------


class Truth:
    """Each board's truth, from the exhaustive search over the rule engine."""

    def __init__(self, path: Path) -> None:
        self.boards = {b.name: b for b in read_boards(path)}
        self.solvable = {name: settle(board).solvable for name, board in self.boards.items()}

    def contradicts(self, board: str, status: str) -> bool:
        """Whether ``status`` (solved / unsolvable) says the opposite of the truth."""
        if status == "solved":
            return not self.solvable[board]
        if status == "unsolvable":
            return self.solvable[board]
        return False

    def replays(self, record: dict[str, Any]) -> bool:
        board = self.boards[record["board"]]
        return verify(board, to_moves(board, parse_solutions(json.dumps(record))[0])).valid


def json_lines(out: str) -> tuple[list[dict[str, Any]], int]:
    """The JSON objects of standard output, and how many lines are not one."""
    found, foreign = [], 0
    for line in out.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            foreign += 1
            continue
        if isinstance(value, dict):
            found.append(value)
        else:
            foreign += 1
    return found, foreign


def wrong_answers(truth: Truth, records: list[dict[str, Any]]) -> int:
    """Printed answers that are not the truth (solve, race, crosscheck)."""
    wrong = 0
    for record in records:
        status = record.get("status")
        solved_wrongly = status == "solved" and not (record.get("verified") and truth.replays(record))
        refuted_wrongly = status == "unsolvable" and (truth.solvable[record["board"]] or not record.get("checked"))
        wrong += solved_wrongly or refuted_wrongly
    return wrong


def wrong_grades(
    truth: Truth, board: str, statuses: dict[str, str], grades: dict[str, str], certified: dict[str, str]
) -> int:
    """Grades the truth refutes: a lie graded anything but wrong, a true definite answer graded wrong, and
    a "no" graded correct that its own checked certificate does not back (``certified`` is not ``yes``:
    a claim, even a true one, is unconfirmed)."""
    wrong = 0
    for name, status in statuses.items():
        grade = grades.get(name, "")
        lie = truth.contradicts(board, status)
        if lie and grade != "wrong":
            wrong += 1
        if not lie and status in ("solved", "unsolvable") and grade == "wrong":
            wrong += 1
        if not lie and status == "unsolvable" and grade == "correct" and certified.get(name) != "yes":
            wrong += 1
    return wrong


def judge(verb: str, truth: Truth, done: dict[str, Any], csv_path: Path) -> tuple[int, int]:
    """(wrong answers and grades, foreign lines) of one run."""
    if verb == "bench":
        foreign = sum('"FLOOD"' in line for line in done["out"].splitlines())
        if not csv_path.exists():
            return 0, foreign
        from sigmar.runners.bench import read_csv

        rows = read_csv(csv_path)
        wrong = 0
        for board in truth.boards:
            mine = [r for r in rows if r["board"] == board]
            statuses = {r["backend"]: r["status"] for r in mine}
            grades = {r["backend"]: r["grade"] for r in mine}
            wrong += wrong_grades(truth, board, statuses, grades, {r["backend"]: r["certified"] for r in mine})
        return wrong, foreign
    records, foreign = json_lines(done["out"])
    if verb == "fuzz":
        wrong = 0
        for record in records:
            failed = {f["backend"] for f in record.get("failures", [])}
            solvable = record.get("truth") == "solvable"
            for name, status in record.get("answers", {}).items():
                lie = (status == "unsolvable" and solvable) or (status == "solved" and not solvable)
                wrong += lie and name not in failed
        foreign += sum(1 for r in records if not str(r.get("board", "")).startswith("fuzz-"))
        return wrong, foreign
    foreign += sum(1 for r in records if r.get("board") not in truth.boards)
    mine = [r for r in records if r.get("board") in truth.boards]
    wrong = wrong_answers(truth, mine)
    if verb == "crosscheck":
        for record in mine:
            answers, grades = record.get("answers", {}), record.get("grades", {})
            wrong += wrong_grades(truth, record["board"], answers, grades, record.get("certified", {}))
    return wrong, foreign


def bound_of(verb: str, done: dict[str, Any], boards: int, backends: int, limit: float) -> float:
    """The longest a run may take: every backend run at its limit and the runner's slack, one after another."""
    per_run = limit + 1.5
    if verb == "fuzz":
        records, _ = json_lines(done["out"])
        tried = sum(f.get("candidates_tried", 0) for r in records for f in r.get("failures", []))
        return (boards + tried) * per_run + 5
    if verb == "bench":
        return boards * backends * per_run + 5
    return boards * per_run + 5


def hostile_runs(env: dict[str, str], folder: Path, behaviours: list[str], limit: float) -> list[dict[str, Any]]:
    rows = []
    for behaviour in behaviours:
        for verb in VERBS:
            tag = f"hostile-{uuid.uuid4().hex[:12]}"
            home = folder / tag  # in every command line of the run: its workers and keepers carry it too
            home.mkdir()
            boards = home / "boards.txt"
            boards.write_text(BOARDS)
            truth = Truth(boards)
            name = f"hostile:{behaviour}"
            csv_path = home / "bench.csv"
            t = f"{limit:g}"
            argv = {
                "solve": ["solve", str(boards), "-b", name, "--json", "--time-limit", t],
                "race": ["solve", str(boards), "-b", f"{name},cnf", "--json", "--time-limit", t],
                "crosscheck": ["crosscheck", str(boards), "-b", f"search,{name}", "--json", "--time-limit", t],
                "bench": ["bench", str(boards), "-b", f"search,{name}", "--time-limit", t, "--out", str(csv_path)],
                "fuzz": ["fuzz", "-b", name, "--count", "2", "--max-tiles", "4", "--seed", "1", "--json"]
                + ["--time-limit", t, "--out", str(home / "failures")],
            }[verb]
            done = run(argv, {**env, "SIGMAR_HOSTILE_TAG": tag}, bound=600.0)
            wrong, foreign = judge(verb, truth, done, csv_path)
            bound = bound_of(verb, done, 2, 2 if verb == "bench" else 1, limit)
            row = {
                "behaviour": behaviour,
                "verb": verb,
                "exit": done["exit"],
                "seconds": round(done["seconds"], 2),
                "bound": round(bound, 1),
                "wrong": wrong,
                "traceback": int("Traceback" in done["out"] + done["err"]),
                "hang": int(done["exit"] == "killed" or done["seconds"] > bound + HANG_SLACK),
                "left": leftovers(tag),
                "foreign": foreign,
            }
            rows.append(row)
            bad = {k: row[k] for k in ("wrong", "traceback", "hang", "left", "foreign") if row[k]}
            print(f"{behaviour:18s} {verb:10s} exit {row['exit']!s:6s} {row['seconds']:6.1f} s {bad or ''}", flush=True)
            shutil.rmtree(home, ignore_errors=True)
    return rows


# -- two runs at once on one loopback cluster ----------------------------------------------------------------


def at_once(env: dict[str, str], argvs: list[list[str]]) -> list[dict[str, Any]]:
    """Several sigmar processes started together; each one's exit, output and error."""
    procs = [
        subprocess.Popen([*SIGMAR, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for argv in argvs
    ]
    done = []
    for proc in procs:
        out, err = proc.communicate(timeout=1800)
        done.append({"exit": proc.returncode, "out": out, "err": err})
    return done


def cluster_pairs(env: dict[str, str], folder: Path) -> list[dict[str, Any]]:
    from sigmar.runners.bench import read_csv

    rows: list[dict[str, Any]] = []
    small = ROOT / "instances" / "small.txt"
    tiny = folder / "tiny.txt"
    tiny.write_text(BOARDS)
    os.environ["PYTHONPATH"] = env["PYTHONPATH"]  # the cluster's workers find the plugins too
    with loopback_cluster(workers=2, nthreads=1) as cluster:
        address = ["--cluster", cluster.address]
        # bench and bench, on different files (the same run indices)
        outs = [folder / "bench-a.csv", folder / "bench-b.csv"]
        files = [small, tiny]
        done = at_once(
            env,
            [
                ["bench", str(f), "-b", "search", "--time-limit", "30", "--out", str(o), *address]
                for f, o in zip(files, outs, strict=True)
            ],
        )
        own = all(
            sorted(r["board"] for r in read_csv(o)) == sorted(b.name for b in read_boards(f))
            and all(r["grade"] == "correct" for r in read_csv(o))
            for f, o in zip(files, outs, strict=True)
        )
        rows.append(
            {"pair": "bench and bench (different files)", "exits": [d["exit"] for d in done], "own answers": own}
        )
        # fuzz and fuzz: one seed, the search and a mutant (the hunt saw the mutant fuzzed to 0 failures)
        here = run(
            ["fuzz", "-b", "mutant-order", "--count", "12", "--seed", "1", "--json", "--out", str(folder / "f0")],
            env,
            600,
        )
        expected = {r["board"]: len(r["failures"]) for r in json_lines(here["out"])[0]}
        done = at_once(
            env,
            [
                [
                    "fuzz",
                    "-b",
                    backend,
                    "--count",
                    "12",
                    "--seed",
                    "1",
                    "--json",
                    "--out",
                    str(folder / f"f{i}"),
                    *address,
                ]
                for i, backend in ((1, "search"), (2, "mutant-order"))
            ],
        )
        search = {r["board"]: len(r["failures"]) for r in json_lines(done[0]["out"])[0]}
        mutant = {r["board"]: len(r["failures"]) for r in json_lines(done[1]["out"])[0]}
        own = not any(search.values()) and mutant == expected and sum(expected.values()) > 0
        rows.append(
            {
                "pair": "fuzz and fuzz (search, mutant-order; one seed)",
                "exits": [d["exit"] for d in done],
                "own answers": own,
            }
        )
        # survey and survey: one deal, different backends and results files
        results = [folder / "survey-search.jsonl", folder / "survey-cnf.jsonl"]
        done = at_once(
            env,
            [
                [
                    "survey",
                    "--count",
                    "10",
                    "--seed",
                    "4",
                    "-b",
                    backend,
                    "--time-limit",
                    "30",
                    "--results",
                    str(path),
                    *address,
                ]
                for backend, path in zip(("search", "cnf"), results, strict=True)
            ],
        )
        own = True
        for backend, path in zip(("search", "cnf"), results, strict=True):
            lines = [json.loads(line) for line in path.read_text().splitlines()]
            own &= sorted(r["index"] for r in lines) == list(range(10))
            own &= all(r["backend"] in ("counts", "race") or r["backend"].split(":")[0] == backend for r in lines)
        rows.append(
            {
                "pair": "survey and survey (search, cnf; one deal)",
                "exits": [d["exit"] for d in done],
                "own answers": own,
            }
        )
    for row in rows:
        print(f"{row['pair']}: exits {row['exits']}, own answers {row['own answers']}", flush=True)
    return rows


# -- full disks --------------------------------------------------------------------------------------------


@contextlib.contextmanager
def full_disk(folder: Path, free_kb: int) -> Iterator[tuple[Path, str]]:
    """A 2 MiB tmpfs mounted at ``folder`` and filled to ``free_kb`` KiB free; (folder, how) — or, where
    mounting is not allowed, the folder itself, and every file of the run capped by RLIMIT_FSIZE."""
    folder.mkdir(parents=True, exist_ok=True)
    mounted = (
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)], capture_output=True).returncode
        == 0
    )
    try:
        if mounted:
            total = os.statvfs(folder).f_blocks * os.statvfs(folder).f_frsize
            with open(folder / ".fill", "wb") as fill:
                fill.write(b"\0" * max(0, total - free_kb * 1024))
        yield folder, "tmpfs of 2 MiB" if mounted else "RLIMIT_FSIZE of 4 KiB (no tmpfs: not root)"
    finally:
        if mounted:  # a run's last child may still be ending in it on a loaded machine ("target is busy"): wait
            for _ in range(100):
                if subprocess.run(["umount", str(folder)], capture_output=True).returncode == 0:
                    break
                time.sleep(0.1)
            else:  # detached now, freed when its last user ends: the scratch folder's removal must not fail
                subprocess.run(["umount", "-l", str(folder)], check=False)


def capped() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def disk_cases(boards: Path, unsolvable: Path) -> list[tuple[str, list[str], str]]:
    """(label, argv with OUT for the output folder, what the output is) for every verb that writes."""
    return [
        ("solve --proof-dir", ["solve", str(unsolvable), "-b", "search", "--proof-dir", "OUT/p"], "folder"),
        ("prove --proof-dir", ["prove", str(unsolvable), "--proof-dir", "OUT/p", "--no-corroborate"], "folder"),
        ("survey --results", ["survey", "--count", "60", "-b", "search", "--results", "OUT/s.jsonl"], "results"),
        (
            "fuzz --out",
            ["fuzz", "-b", "hostile:checked-no", "--count", "10", "--max-tiles", "6", "--out", "OUT/f"],
            "folder",
        ),
        ("generate -o", ["generate", "--count", "300", "-o", "OUT/g.txt"], "file"),
        ("generate --witness", ["generate", "--count", "300", "-o", "OUT/g.txt", "--witness", "OUT/w.jsonl"], "file"),
        ("encode -o", ["encode", str(boards), "--to", "dimacs", "-o", "OUT/e.cnf"], "file"),
        ("show --svg", ["show", str(boards), "--svg", "OUT/b.svg"], "file"),
        ("show --html", ["show", str(boards), "--html", "OUT/b.html"], "file"),
        ("bench --out", ["bench", str(boards), "-b", "search", "--out", "OUT/b.csv"], "file"),
        ("bench --html", ["bench", str(boards), "-b", "search", "--html", "OUT/b.html"], "file"),
        ("bench --plot", ["bench", str(boards), "-b", "search", "--plot", "OUT/b.png"], "file"),
        ("bench --xml", ["bench", str(boards), "-b", "search", "--xml", "OUT/x"], "folder"),
    ]


def partial_files(folder: Path, kind: str) -> int:
    """Files left half-written: a .part, an empty file, or (survey results) a line without its end."""
    bad = 0
    for path in folder.rglob("*"):
        if path.name == ".fill" or not path.is_file():
            continue
        torn = kind == "results" and not path.read_bytes().endswith(b"\n")
        bad += path.name.endswith(".part") or path.stat().st_size == 0 or torn
    return bad


def one_line(done: dict[str, Any]) -> bool:
    said = [line for line in done["err"].splitlines() if line.startswith("sigmar ")]
    return len(said) == 1 and "Traceback" not in done["err"]


def disk_runs(env: dict[str, str], folder: Path) -> tuple[list[dict[str, Any]], str]:
    boards = folder / "many.txt"
    boards.write_text(
        subprocess.run([*SIGMAR, "generate", "--count", "200", "--seed", "2"], capture_output=True, text=True).stdout
    )
    unsolvable = folder / "u.txt"
    unsolvable.write_text(
        subprocess.run(
            [*SIGMAR, "generate", "--unsolvable", "--count", "4", "--seed", "5"], capture_output=True, text=True
        ).stdout
    )
    rows: list[dict[str, Any]] = []
    how = ""
    # the output folder on the full disk
    for label, argv, kind in disk_cases(boards, unsolvable):
        with full_disk(folder / "disk", free_kb=0) as (disk, made):
            how = made
            out = disk / "o"
            out.mkdir()
            argv = [a.replace("OUT", str(out)) for a in argv]
            done = run_capped(argv, env, capped if "RLIMIT" in how else None)
            rows.append(disk_row(f"output: {label}", done, partial_files(out, kind)))
    # standard output on a full disk
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [*SIGMAR, "solve", str(boards), "-b", "search", "--json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
    rows.append(disk_row("standard output (/dev/full)", {"exit": proc.returncode, "err": proc.stderr, "out": ""}, 0))
    # TMPDIR on a nearly full disk: the verbs whose temporary files matter (certificates, capture files)
    for label, argv in (
        ("solve", ["solve", str(unsolvable), "--json"]),
        ("crosscheck", ["crosscheck", str(unsolvable), "-b", "search,cnf", "--json"]),
        ("bench", ["bench", str(unsolvable), "-b", "search,cnf"]),
        ("prove", ["prove", str(unsolvable), "--no-corroborate"]),
        ("survey", ["survey", "--count", "20", "-b", "search"]),
        ("fuzz", ["fuzz", "-b", "search", "--count", "20"]),
    ):
        with full_disk(folder / "tmp", free_kb=64) as (disk, how_tmp):
            if "RLIMIT" in how_tmp:
                break  # a per-file cap is the case above; TMPDIR needs the real tmpfs
            done = run_capped(argv, {**env, "TMPDIR": str(disk)}, None)
            left = sum(1 for p in disk.rglob("*") if p.name != ".fill")
            rows.append(disk_row(f"TMPDIR: {label}", done, left, tmpdir=True))
    return rows, how


def run_capped(argv: list[str], env: dict[str, str], preexec: Any) -> dict[str, Any]:
    done = subprocess.run([*SIGMAR, *argv], capture_output=True, text=True, env=env, preexec_fn=preexec, timeout=900)
    return {"exit": done.returncode, "out": done.stdout, "err": done.stderr}


def disk_row(label: str, done: dict[str, Any], partial: int, tmpdir: bool = False) -> dict[str, Any]:
    # A run whose TMPDIR needs no more than what is free may end well: then only "no traceback" is asked of it.
    ended_well = tmpdir and done["exit"] in (0, 1) and "Traceback" not in done["err"]
    ok = (done["exit"] == 2 and one_line(done) or ended_well) and partial == 0
    said = next((line for line in done["err"].splitlines() if line.startswith("sigmar ")), "")
    said = said.replace(tempfile.gettempdir() + "/", "$TMP/", 1)  # the report names no folder of this machine
    row = {
        "case": label,
        "exit": done["exit"],
        "one line": one_line(done),
        "partial files": partial,
        "ok": ok,
        "said": said[:140],
    }
    print(f"{label:34s} exit {done['exit']} one line {row['one line']} partial {partial} ok {ok}", flush=True)
    return row


# -- the report ---------------------------------------------------------------------------------------------


def totals(rows: list[dict[str, Any]]) -> dict[str, int]:
    return {key: sum(int(r[key]) for r in rows) for key in ("wrong", "traceback", "hang", "left", "foreign")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time-limit", type=float, default=2.0, help="each run's --time-limit (default 2 s)")
    parser.add_argument("--only", help="a comma list of behaviours (default: every one)")
    parser.add_argument("--skip-cluster", action="store_true")
    parser.add_argument("--skip-disk", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS / "bench_hostile_backends")
    parser.add_argument("--no-record", action="store_true", help=f"do not rewrite {MEASURED.relative_to(ROOT)}")
    args = parser.parse_args()
    started = datetime.now(UTC)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench_hostile_backends_") as scratch:
        folder = Path(scratch)
        env = plugin_environment(folder / "site", ROOT / "tests" / "hostile", ROOT / "tests" / "mutants")
        listing = subprocess.run([*SIGMAR, "backends", "--json"], capture_output=True, text=True, env=env, check=True)
        hostile = next(
            json.loads(line) for line in listing.stdout.splitlines() if json.loads(line)["backend"] == "hostile"
        )
        behaviours = args.only.split(",") if args.only else list(hostile["subs"])
        runs = hostile_runs(env, folder, behaviours, args.time_limit)
        pairs = [] if args.skip_cluster else cluster_pairs(env, folder)
        disks, how = ([], "") if args.skip_disk else disk_runs(env, folder)
    load = os.getloadavg()
    counts = totals(runs)
    command = "python scripts/bench/hostile_backends.py" + (
        f" --time-limit {args.time_limit:g}" if args.time_limit != 2 else ""
    )
    command += f" --only {args.only}" if args.only else ""
    head = (
        f"# A hostile backend against every verb\n\n{started:%Y-%m-%d %H:%M} UTC; machine: "
        f"{platform.platform()}, {os.cpu_count()} cores; "
        f"load average {load_before[0]:.1f} before, {load[0]:.1f} after.\n"
        f"Command: `{command}` (each run's --time-limit {args.time_limit:g} s).\n"
    )
    summary = markdown_table(
        [
            "runs",
            "behaviours",
            "wrong answers or grades",
            "tracebacks",
            "hangs past bound + 10 s",
            "processes left",
            "foreign lines",
        ],
        [
            [
                len(runs),
                len(behaviours),
                counts["wrong"],
                counts["traceback"],
                counts["hang"],
                counts["left"],
                counts["foreign"],
            ]
        ],
    )
    per_verb = markdown_table(
        ["verb", "runs", "wrong", "tracebacks", "hangs", "left", "foreign", "slowest s (its bound)"],
        [
            [
                verb,
                len(mine),
                *totals(mine).values(),
                max((f"{r['seconds']} ({r['bound']})" for r in mine), default="-", key=lambda t: float(t.split()[0])),
            ]
            for verb in VERBS
            if (mine := [r for r in runs if r["verb"] == verb])
        ],
    )
    bad = [r for r in runs if any(r[k] for k in ("wrong", "traceback", "hang", "left", "foreign"))]
    text = head + "\n## Every behaviour x solve, race, crosscheck, bench, fuzz\n\n" + summary + "\n\n" + per_verb + "\n"
    if bad:
        text += (
            "\nRuns with a count above 0:\n\n" + markdown_table(list(bad[0]), [list(r.values()) for r in bad]) + "\n"
        )
    if pairs:
        text += "\n## Two runs at once on one loopback cluster\n\n"
        text += (
            markdown_table(
                ["runs", "exits", "each got its own answers"],
                [[p["pair"], p["exits"], p["own answers"]] for p in pairs],
            )
            + "\n"
        )
    if disks:
        text += f"\n## Full disk (output folder: {how}, full; TMPDIR: a tmpfs of 2 MiB with 64 KiB free)\n\n"
        text += markdown_table(list(disks[0]), [list(r.values()) for r in disks]) + "\n"
        text += f"\n{sum(r['ok'] for r in disks)} of {len(disks)} cases ok (exit 2 with one line, no partial file).\n"
    record = {
        "counts": counts,
        "runs": runs,
        "pairs": pairs,
        "disks": disks,
        "command": command,
        "load": [load_before[0], load[0]],
    }
    publish(args.out, text, record)
    if not args.no_record and not args.only:
        MEASURED.parent.mkdir(parents=True, exist_ok=True)
        MEASURED.write_text(text)
        print(f"wrote {MEASURED.relative_to(ROOT)}")
    ok = not any(counts.values()) and all(p["own answers"] for p in pairs) and all(r["ok"] for r in disks)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
