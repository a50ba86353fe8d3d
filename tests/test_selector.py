"""Picking the backend (issue 52, item 6): a board's cheap features, a bench as an ASlib scenario
(``bench --aslib DIR``), a selector trained on one, and the race led by its pick (``solve --selector FILE``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.models.boardfile import parse_boards, read_boards
from sigmar.runners.cli import main
from sigmar.runners.race import Race
from sigmar.runners.statistics.aslib import FILES, Scenario, read_scenario, write_scenario
from sigmar.runners.statistics.features import FEATURES, features
from sigmar.runners.statistics.selector import FORMAT, Selector, load
from sigmar.runners.statistics.selector_training import evaluate, train
from tests.conftest import INSTANCES

SMALL = INSTANCES / "small.txt"


def value(board_index: int, name: str) -> float:
    return features(read_boards(SMALL)[board_index])[FEATURES.index(name)]


def test_the_features_read_the_board() -> None:
    board = read_boards(SMALL)[9]  # lead ringed by quicksilver and later metals [unsolvable: static]
    found = dict(zip(FEATURES, features(board), strict=True))
    assert found["side"] == board.dim and found["tiles"] == len(board.tiles)
    assert found["metals"] + found["quicksilver"] <= found["tiles"]
    assert found["stuck"] > 0 and found["counts_fail"] == 0, found  # the static check refutes it
    assert value(6, "counts_fail") == 1  # odd fire with no salt
    assert value(0, "stuck") == 0 and value(0, "free") == 1  # gold alone: free, nothing stuck


def bench_scenario(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    folder = tmp_path / "scenario"
    assert main(["bench", str(SMALL), "-b", "search,cnf", "--aslib", str(folder), "-o", str(tmp_path / "b.csv")]) == 0
    capsys.readouterr()
    return folder


def test_bench_exports_an_aslib_scenario_that_reads_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = bench_scenario(tmp_path, capsys)
    assert sorted(p.name for p in folder.iterdir()) == sorted(FILES)
    scenario = read_scenario(folder)
    names = [b.name for b in read_boards(SMALL)]
    assert scenario.algorithms == ("search", "cnf") and scenario.cutoff == 60
    assert sorted(scenario.instances) == sorted(names)  # names with commas, colons and brackets, quoted
    assert scenario.features == FEATURES
    assert all(scenario.status[i][a] == "ok" for i in names for a in scenario.algorithms)
    assert all(1 <= scenario.folds[i] <= 10 for i in names)
    board = read_boards(SMALL)[9]
    assert scenario.values[board.name] == features(board)
    description = (folder / "description.txt").read_text()
    assert "algorithm_cutoff_time: 60" in description and "    - stuck" in description


def test_a_name_two_files_share_gets_its_file_and_quotes_survive(tmp_path: Path) -> None:
    text = "# it's a \\ 'name', too\n 6\n"
    (board,) = parse_boards(text, "x")
    rows = [
        {"file": f, "board": board.name, "backend": "search", "seconds": "0.5", "grade": g, "repeat": "1"}
        for f, g in (("a.txt", "correct"), ("b.txt", "unknown"))
    ]
    folder = write_scenario(tmp_path / "s", rows, {("a.txt", board.name): board, ("b.txt", board.name): board}, 2)
    scenario = read_scenario(folder)
    assert sorted(scenario.instances) == [f"a.txt:{board.name}", f"b.txt:{board.name}"]
    assert scenario.status[f"b.txt:{board.name}"]["search"] == "timeout"
    assert scenario.par2(f"b.txt:{board.name}", "search") == 4 and scenario.par2(f"a.txt:{board.name}", "search") == 0.5


def synthetic(costs: list[tuple[float, float]], key: list[float]) -> Scenario:
    """Two backends ``a`` and ``b`` with the given seconds (2 * 10 when over the cutoff 10), one feature."""
    instances = tuple(f"i{k}" for k in range(len(costs)))
    return Scenario(
        name="synthetic",
        cutoff=10.0,
        algorithms=("a", "b"),
        features=("stuck",),
        instances=instances,
        values={i: [key[k]] for k, i in enumerate(instances)},
        runtime={i: {"a": costs[k][0], "b": costs[k][1]} for k, i in enumerate(instances)},
        status={i: {"a": "ok", "b": "ok"} for i in instances},
        folds={i: 1 + k % 10 for k, i in enumerate(instances)},
    )


def test_the_selector_learns_which_backend_a_feature_favours() -> None:
    # a is fast where the feature is 0, b where it is 1; neither alone is the virtual best
    costs = [(0.01, 1.0) if k % 3 else (8.0, 0.5) for k in range(120)]
    scenario = synthetic(costs, [0.0 if k % 3 else 1.0 for k in range(120)])
    train_on = [i for i in scenario.instances if scenario.folds[i] <= 5]
    test_on = [i for i in scenario.instances if scenario.folds[i] > 5]
    selector = train(scenario, train_on, presolve=None)
    judged = evaluate(scenario, selector, test_on, train_on)
    assert selector.trained["depth"] >= 1 and judged["gap_closed"] == pytest.approx(1.0), judged
    assert judged["par2_selector"] == pytest.approx(judged["par2_vbs"])
    assert judged["par2_vbs"] < judged["par2_sbs"]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0, 12), st.floats(0, 12), st.integers(0, 3)),
        min_size=1,
        max_size=60,
    )
)
def test_on_its_own_boards_the_selector_is_never_worse_than_the_single_best(
    rows: list[tuple[float, float, int]],
) -> None:
    scenario = synthetic([(a, b) for a, b, _ in rows], [float(k) for _, _, k in rows])
    for depth in (0, 2):
        selector = train(scenario, depth=depth, presolve=None)
        judged = evaluate(scenario, selector, scenario.instances, scenario.instances)
        assert judged["par2_selector"] <= judged["par2_sbs"] + 1e-9
        assert judged["par2_vbs"] <= judged["par2_selector"] + 1e-9


def test_a_presolver_runs_first_when_it_settles_most_boards_quickly() -> None:
    # a settles nine boards in ten within 0.05 s; on the tenth it takes 9 s, and b 1 s; no feature tells them apart
    costs = [(9.0, 1.0) if k % 10 == 0 else (0.04, 0.5) for k in range(200)]
    scenario = synthetic(costs, [0.0] * 200)
    selector = train(scenario)
    assert selector.presolve is not None and selector.presolve["backend"] == "a", selector.presolve
    assert 0.04 <= selector.presolve["seconds"] < 1.0 and selector.tree["backend"] == "b"
    judged = evaluate(scenario, selector, scenario.instances, scenario.instances)
    assert judged["presolved"] == 180 and judged["gap_closed"] > 0.9, judged
    # the tree alone cannot tell the boards apart: it closes nothing
    alone = evaluate(scenario, train(scenario, presolve=None), scenario.instances, scenario.instances)
    assert alone["gap_closed"] == pytest.approx(0.0)


def test_the_race_policy_follows_a_presolver_then_the_pick() -> None:
    from sigmar.runners.race import RacePolicy

    policy = RacePolicy(["search", "cnf", "cpsat"], 0.02)
    policy.wins.update({"cpsat": 5})
    policy.prefer, policy.lead_seconds, policy.second = "search", 0.2, "cnf"
    plan = policy.plan(0.0)
    assert (plan.leader, plan.partner, plan.later) == ("search", "cnf", ["cpsat"]) and plan.staggered
    assert plan.release_at == pytest.approx(0.2)
    policy.prefer, policy.lead_seconds, policy.second = None, None, None
    assert policy.plan(0.0).leader == "cpsat"  # no selector: the most wins lead


def test_a_trained_selector_round_trips_through_its_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = read_scenario(bench_scenario(tmp_path, capsys))
    selector = train(scenario)
    path = tmp_path / "selector.json"
    path.write_text(json.dumps(selector.to_json()))
    again = load(path)
    assert again.tree == selector.tree and again.backends == ("search", "cnf")
    assert again.presolve == selector.presolve
    board = read_boards(SMALL)[9]
    assert again.pick(board) == selector.pick(board) in ("search", "cnf")


def test_the_race_leads_with_the_selectors_pick() -> None:
    board = read_boards(SMALL)[11]  # needs a search (no static refutation): the workers start
    with Race(["search", "cnf"], selector=lambda b: "cnf") as race:
        race.events = []
        outcome = race.solve(board, 30)
        starts = [names for _, kind, names in race.events if kind == "start"]
    assert outcome.result.status.value == "unsolvable" and outcome.result.checked
    assert starts and starts[0] == ("cnf",), race.events


def selector_file(tmp_path: Path, **changes: object) -> Path:
    data = {
        "format": FORMAT,
        "version": 1,
        "backends": ["search", "cnf"],
        "features": ["stuck"],
        "tree": {"feature": "stuck", "threshold": 0.5, "low": {"backend": "cnf"}, "high": {"backend": "search"}},
    }
    path = tmp_path / "selector.json"
    path.write_text(json.dumps({**data, **changes}))
    return path


@pytest.mark.parametrize("presolve", [None, {"backend": "search", "seconds": 0.05}])
def test_solve_with_a_selector_answers_every_board(
    presolve: dict | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = selector_file(tmp_path, presolve=presolve)
    assert main(["solve", f"{SMALL}:8-11", "-b", "search,cnf", "--selector", str(path), "--json"]) == 0
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [a["status"] for a in answers] == ["unsolvable"] * 4 and all(a["checked"] for a in answers)
    assert isinstance(load(path), Selector)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"format": "something"}, "not a selector"),
        ({"version": 9}, "selector version 9"),
        ({"features": ["colour"]}, "unknown feature 'colour'"),
        ({"tree": {"backend": "minizinc"}}, "picks 'minizinc', not one of its backends"),
        ({"tree": {"feature": "stuck", "low": {"backend": "cnf"}}}, "numeric 'threshold'"),
        ({"backends": ["pumpkin"], "tree": {"backend": "pumpkin"}}, "none of them races here"),
        ({"presolve": {"backend": "search", "seconds": -1}}, "'presolve' must be null"),
        ({"presolve": {"backend": "pumpkin", "seconds": 0.1}}, "'presolve' must be null"),
    ],
)
def test_a_bad_selector_is_exit_2_in_one_line(
    change: dict, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = selector_file(tmp_path, **change)
    assert main(["solve", f"{SMALL}:0", "-b", "search,cnf", "--selector", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


@pytest.mark.parametrize("what", ["missing", "folder", "text"])
def test_a_selector_file_that_is_not_json_is_exit_2(
    what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.json"
    if what == "folder":
        path.mkdir()
    elif what == "text":
        path.write_text("not json\n")
    assert main(["solve", f"{SMALL}:0", "--selector", str(path)]) == 2
    err = capsys.readouterr().err
    assert "--selector" in err and len(err.strip().splitlines()) == 1, err


def test_aslib_into_a_file_is_exit_2_before_any_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taken = tmp_path / "taken"
    taken.write_text("x")
    assert main(["bench", f"{SMALL}:0", "-b", "search", "--aslib", str(taken)]) == 2
    err = capsys.readouterr().err
    assert "--aslib" in err and "not a folder" in err and len(err.strip().splitlines()) == 1, err
    assert taken.read_text() == "x"


def test_a_folder_that_is_not_a_scenario_is_named(tmp_path: Path) -> None:
    from sigmar.runners.statistics.aslib import ScenarioError

    with pytest.raises(ScenarioError, match="no description.txt"):
        read_scenario(tmp_path)


def test_a_tree_of_one_leaf_reads_no_feature(monkeypatch: pytest.MonkeyPatch) -> None:
    """A selector whose tree is a leaf (its cross-validation chose depth 0) places a board at no cost."""
    import sigmar.runners.statistics.selector as selector_module

    def no_features(board: object) -> list[float]:
        raise AssertionError("a leaf read the board's features")

    monkeypatch.setattr(selector_module, "features", no_features)
    leaf = Selector(backends=("search", "cnf"), features=FEATURES, tree={"backend": "cnf"})
    assert leaf.pick(read_boards(SMALL)[9]) == "cnf"
    split = Selector(
        backends=("search", "cnf"),
        features=("side",),
        tree={"feature": "side", "threshold": 5.5, "low": {"backend": "search"}, "high": {"backend": "cnf"}},
    )
    with pytest.raises(AssertionError, match="features"):
        split.pick(read_boards(SMALL)[9])
