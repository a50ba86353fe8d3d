"""A bench as an ASlib scenario (docs/bench.md#picking-the-backend), and such a scenario read back.

ASlib (the Algorithm Selection Library, Bischl et al. 2016; the format of the OASC) is the field's common
format for algorithm selection data: a folder holding ``description.txt`` (what was measured, the cutoff,
the algorithms and the features), ``algorithm_runs.arff`` (each instance's runtime and run status for
each algorithm), ``feature_values.arff``, ``feature_costs.arff`` and ``feature_runstatus.arff`` (the
features, what they cost, whether they were computed) and ``cv.arff`` (the cross-validation folds). A
scenario written here can be read by ASlib's tools (the R package ``aslib``, AutoFolio, ``asf``) and by
:func:`read_scenario`, which the selector's training reads (:mod:`.selector`).

The rows are the bench CSV's (docs/formats.md#the-benchmark-csv), one per board, backend and repetition;
an instance is a board (its name, with its file in front when two files hold that name). A run is ``ok``
only when its grade is ``correct`` (a solution replayed, or a "no" with its own checked certificate):
an unknown is a ``timeout``, a run over ``--mem-limit`` a ``memout``, an error a ``crash``, and a claimed
"no" or a wrong answer ``other``; so ASlib's PAR scores count what the bench's PAR-2 counts.
"""

from __future__ import annotations

import csv
import hashlib
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sigmar.models.board import Board
from sigmar.models.errors import SigmarError
from sigmar.models.output_files import write_file
from sigmar.runners.statistics.features import FEATURES, STEP, features

FOLDS = 10  # ASlib's standard: 10-fold cross-validation, the folds fixed in cv.arff
STATUSES = ("ok", "timeout", "memout", "not_applicable", "crash", "other")
FILES = (
    "description.txt",
    "algorithm_runs.arff",
    "feature_values.arff",
    "feature_costs.arff",
    "feature_runstatus.arff",
    "cv.arff",
)


class ScenarioError(SigmarError):
    """A folder that is not an ASlib scenario this module can read: one line, exit 2."""


@dataclass(frozen=True)
class Scenario:
    """What the selector's training needs of a scenario."""

    name: str
    cutoff: float
    algorithms: tuple[str, ...]
    features: tuple[str, ...]
    instances: tuple[str, ...]
    values: dict[str, list[float]]  # instance -> its features, in the order of ``features``
    runtime: dict[str, dict[str, float]]  # instance -> algorithm -> seconds (the median repetition)
    status: dict[str, dict[str, str]]  # instance -> algorithm -> run status
    folds: dict[str, int]  # instance -> fold, from 1

    def par2(self, instance: str, algorithm: str) -> float:
        """PAR-2: the runtime of an ``ok`` run within the cutoff, else twice the cutoff."""
        ok = self.status[instance].get(algorithm) == "ok" and self.runtime[instance][algorithm] <= self.cutoff
        return self.runtime[instance][algorithm] if ok else 2 * self.cutoff


def run_status(row: Mapping[str, str]) -> str:
    """A bench CSV row's ASlib run status (this module's docstring says which is which)."""
    grade = row.get("grade", "")
    if grade == "correct":
        return "ok"
    if grade == "unknown":
        return "timeout"
    if row.get("reason") == "memory":
        return "memout"
    if grade == "error":
        return "crash"
    return "other"


def fold_of(instance: str, folds: int = FOLDS) -> int:
    """The instance's fold, from 1: by a hash of its name, so a board keeps its fold in every scenario."""
    return int(hashlib.sha256(instance.encode()).hexdigest(), 16) % folds + 1


def instance_ids(rows: Iterable[Mapping[str, str]]) -> dict[tuple[str, str], str]:
    """Each (file, board) its instance id: the board's name, or ``FILE:NAME`` where two files share a name."""
    pairs = list(dict.fromkeys((r["file"], r["board"]) for r in rows))
    files_of: dict[str, set[str]] = {}
    for file, board in pairs:
        files_of.setdefault(board, set()).add(file)
    return {(f, b): b if len(files_of[b]) == 1 else f"{f}:{b}" for f, b in pairs}


def quote(text: str) -> str:
    """An ARFF string value: single-quoted, its backslashes and quotes escaped."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def number(value: float) -> str:
    return repr(round(value, 6)) if value == value else "?"


def write_scenario(
    folder: str | Path,
    rows: Sequence[Mapping[str, str]],
    boards: Mapping[tuple[str, str], Board],
    cutoff: float,
    *,
    name: str = "sigmar",
    memory_mb: float | None = None,
) -> Path:
    """The scenario of a bench's ``rows`` (bench CSV rows) in ``folder``; ``boards`` by (file, board name) give
    the features, each timed as it is computed (``feature_costs.arff``)."""
    folder = Path(folder)
    ids = instance_ids(rows)
    algorithms = list(dict.fromkeys(r["backend"].split(" (run ")[0] for r in rows))
    values: dict[str, list[float]] = {}
    costs: dict[str, float] = {}
    for key, instance in ids.items():
        start = time.perf_counter()
        values[instance] = features(boards[key])
        costs[instance] = time.perf_counter() - start
    runs = [
        f"{quote(ids[(r['file'], r['board'])])},{r.get('repeat') or 1},{quote(r['backend'].split(' (run ')[0])},"
        f"{number(float(r['seconds']))},{run_status(r)}"
        for r in rows
    ]
    memory = f"{memory_mb:g}" if memory_mb else '"?"'
    description = [
        f"scenario_id: {name}",
        "performance_measures:",
        "    - runtime",
        "maximize:",
        "    - false",
        "performance_type:",
        "    - runtime",
        f"algorithm_cutoff_time: {cutoff:g}",
        f"algorithm_cutoff_memory: {memory}",
        "features_cutoff_time: 1",
        'features_cutoff_memory: "?"',
        "algorithms_deterministic:",
        *(f"    - {a}" for a in algorithms),
        "algorithms_stochastic:",
        "features_deterministic:",
        *(f"    - {f}" for f in FEATURES),
        "features_stochastic:",
        "number_of_feature_steps: 1",
        "feature_steps:",
        f"    {STEP}:",
        "      provides:",
        *(f"        - {f}" for f in FEATURES),
        "default_steps:",
        f"    - {STEP}",
    ]
    texts = {
        "description.txt": "\n".join(description) + "\n",
        "algorithm_runs.arff": _arff(
            f"{name}-runs",
            [
                ("instance_id", "STRING"),
                ("repetition", "NUMERIC"),
                ("algorithm", "STRING"),
                ("runtime", "NUMERIC"),
                ("runstatus", "{" + ",".join(STATUSES) + "}"),
            ],
            runs,
        ),
        "feature_values.arff": _arff(
            f"{name}-features",
            [("instance_id", "STRING"), ("repetition", "NUMERIC"), *((f, "NUMERIC") for f in FEATURES)],
            # in full: a selector's thresholds lie between these values, and its picks read them unrounded
            [f"{quote(i)},1," + ",".join(repr(v) for v in vs) for i, vs in values.items()],
        ),
        "feature_costs.arff": _arff(
            f"{name}-feature-costs",
            [("instance_id", "STRING"), ("repetition", "NUMERIC"), (STEP, "NUMERIC")],
            [f"{quote(i)},1,{number(c)}" for i, c in costs.items()],
        ),
        "feature_runstatus.arff": _arff(
            f"{name}-feature-runstatus",
            [("instance_id", "STRING"), ("repetition", "NUMERIC"), (STEP, "{ok,timeout,memout,presolved,crash,other}")],
            [f"{quote(i)},1,ok" for i in values],
        ),
        "cv.arff": _arff(
            f"{name}-cv",
            [("instance_id", "STRING"), ("repetition", "NUMERIC"), ("fold", "NUMERIC")],
            [f"{quote(i)},1,{fold_of(i)}" for i in values],
        ),
    }
    for file, text in texts.items():
        write_file(folder / file, text)
    return folder


def _arff(relation: str, attributes: list[tuple[str, str]], data: list[str]) -> str:
    head = [f"@RELATION {relation}", ""] + [f"@ATTRIBUTE {a} {kind}" for a, kind in attributes] + ["", "@DATA"]
    return "\n".join(head + data) + "\n"


# -- reading a scenario back


def read_arff(path: Path) -> tuple[list[str], list[list[str]]]:
    """The attribute names and the data rows of an ARFF file (values as text; quoted strings unquoted)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"{path}: cannot read it ({exc})") from None
    names: list[str] = []
    data: list[str] = []
    in_data = False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        if in_data:
            data.append(stripped)
        elif stripped.upper().startswith("@ATTRIBUTE"):
            parts = stripped.split(None, 2)
            if len(parts) < 3:
                raise ScenarioError(f"{path}: a malformed @ATTRIBUTE line: {stripped[:80]}")
            names.append(parts[1].strip("'\""))
        elif stripped.upper().startswith("@DATA"):
            in_data = True
    if not in_data:
        raise ScenarioError(f"{path}: not an ARFF file (no @DATA line)")
    rows = list(csv.reader(data, quotechar="'", escapechar="\\", skipinitialspace=True))
    for number_, row in enumerate(rows, start=1):
        if len(row) != len(names):
            raise ScenarioError(f"{path}: data row {number_} has {len(row)} values, not {len(names)}")
    return names, rows


def _column(names: list[str], wanted: str, path: Path) -> int:
    if wanted not in names:
        raise ScenarioError(f"{path}: no '{wanted}' attribute")
    return names.index(wanted)


def _float(text: str, path: Path) -> float:
    if text == "?":
        return float("nan")
    try:
        return float(text)
    except ValueError:
        raise ScenarioError(f"{path}: {text!r} is not a number") from None


def _cutoff(description: Path) -> float:
    try:
        lines = description.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"{description}: cannot read it ({exc})") from None
    for line in lines:
        if line.startswith("algorithm_cutoff_time:"):
            return _float(line.split(":", 1)[1].strip().strip("\"'"), description)
    raise ScenarioError(f"{description}: no algorithm_cutoff_time")


def read_scenario(folder: str | Path) -> Scenario:
    """An ASlib scenario's runs, features and folds (the median repetition of each run); a ScenarioError
    naming the file when the folder is not one."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ScenarioError(f"{folder}: not a folder (an ASlib scenario is a folder of {', '.join(FILES)})")
    for file in FILES:
        if not (folder / file).is_file():
            raise ScenarioError(f"{folder}: no {file}: not an ASlib scenario")
    cutoff = _cutoff(folder / "description.txt")
    path = folder / "algorithm_runs.arff"
    names, rows = read_arff(path)
    at = {k: _column(names, k, path) for k in ("instance_id", "algorithm", "runstatus")}
    measure = next((n for n in names if n not in ("instance_id", "repetition", "algorithm", "runstatus")), None)
    if measure is None:
        raise ScenarioError(f"{path}: no performance measure")
    seen: dict[tuple[str, str], list[tuple[float, str]]] = {}
    for row in rows:
        seconds = _float(row[names.index(measure)], path)
        seen.setdefault((row[at["instance_id"]], row[at["algorithm"]]), []).append((seconds, row[at["runstatus"]]))
    algorithms = tuple(dict.fromkeys(a for _, a in seen))
    runtime: dict[str, dict[str, float]] = {}
    status: dict[str, dict[str, str]] = {}
    for (instance, algorithm), runs in seen.items():
        runs.sort()
        middle = runs[(len(runs) - 1) // 2]  # the median repetition, as the bench scores them
        runtime.setdefault(instance, {})[algorithm] = middle[0]
        status.setdefault(instance, {})[algorithm] = middle[1]
    path = folder / "feature_values.arff"
    names, rows = read_arff(path)
    where = _column(names, "instance_id", path)
    feature_names = tuple(n for n in names if n not in ("instance_id", "repetition"))
    values = {
        row[where]: [_float(row[names.index(f)], path) for f in feature_names] for row in rows if row[where] in runtime
    }
    path = folder / "cv.arff"
    names, rows = read_arff(path)
    folds = {
        row[_column(names, "instance_id", path)]: int(_float(row[_column(names, "fold", path)], path)) for row in rows
    }
    instances = tuple(i for i in runtime if i in values and all(a in runtime[i] for a in algorithms))
    if not instances:
        raise ScenarioError(f"{folder}: no instance with features and a run of every algorithm")
    return Scenario(
        name=folder.name,
        cutoff=cutoff,
        algorithms=algorithms,
        features=feature_names,
        instances=instances,
        values=values,
        runtime=runtime,
        status=status,
        folds={i: folds.get(i, fold_of(i)) for i in instances},
    )
