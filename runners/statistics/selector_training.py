"""Training a selector (:mod:`.selector`) on an ASlib scenario, and judging it as the OASC does.

A selector is a presolving schedule and a tree, as SATzilla and AutoFolio build them: one backend runs
first for a few seconds at most (the *presolver*: on these boards the search, which settles most boards
in milliseconds), and on the boards it does not settle in that time the tree's pick runs, the presolver's
seconds counted in its PAR-2. The tree is grown greedily on the PAR-2 left after the presolver: at each
node, the split (a feature and a threshold between two of its values, at least MIN_LEAF training boards
on each side) that lowers the total PAR-2 of the two leaves the most, each leaf picking its boards' best
backend; a node stops when no split helps or at the depth. The presolver and its seconds (or none, among
PRESOLVE_SECONDS) and the depth (among DEPTHS) are chosen together by cross-validation over INNER_FOLDS
folds of the training boards.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from sigmar.runners.statistics.aslib import Scenario
from sigmar.runners.statistics.selector import Selector, SelectorError

DEPTHS = (0, 1, 2, 3, 4)
PRESOLVE_SECONDS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
AUTO = "auto"
MIN_LEAF = 10  # training boards a leaf needs at least: a leaf of fewer says more about noise than boards
INNER_FOLDS = 5


def _leaf(costs: np.ndarray, backends: Sequence[str]) -> tuple[float, dict[str, Any]]:
    totals = costs.sum(axis=0)
    best = int(np.argmin(totals))
    return float(totals[best]), {"backend": backends[best], "boards": int(costs.shape[0])}


def _grow(x: np.ndarray, costs: np.ndarray, backends: Sequence[str], names: Sequence[str], depth: int) -> dict:
    """The tree over boards ``x`` (features) with PAR-2 ``costs`` (boards by backends), ``depth`` splits deep."""
    total, leaf = _leaf(costs, backends)
    if depth == 0 or costs.shape[0] < 2 * MIN_LEAF:
        return leaf
    best: tuple[float, int, float] | None = None
    for j in range(x.shape[1]):
        order = np.argsort(x[:, j], kind="stable")
        values = x[order, j]
        running = np.cumsum(costs[order], axis=0)
        left = running.min(axis=1)
        right = (running[-1] - running).min(axis=1)
        # a split after board i of the order: both sides MIN_LEAF boards at least, between two different values
        valid = np.zeros(len(values), dtype=bool)
        valid[MIN_LEAF - 1 : len(values) - MIN_LEAF] = True
        valid[:-1] &= values[:-1] != values[1:]
        if not valid.any():
            continue
        cost = np.where(valid, left + right, np.inf)
        i = int(np.argmin(cost))
        if best is None or cost[i] < best[0] - 1e-9:
            best = (float(cost[i]), j, float((values[i] + values[i + 1]) / 2))
    if best is None or best[0] >= total - 1e-9:
        return leaf
    _, j, threshold = best
    low = x[:, j] <= threshold
    return {
        "feature": names[j],
        "threshold": threshold,
        "low": _grow(x[low], costs[low], backends, names, depth - 1),
        "high": _grow(x[~low], costs[~low], backends, names, depth - 1),
    }


def _matrices(
    scenario: Scenario, instances: Sequence[str], presolve: tuple[str, float] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The boards' features and each backend's cost on them: its PAR-2, after ``presolve`` (backend, seconds)
    when there is one (a board it settles in time costs its time whatever is picked)."""
    x = np.array([scenario.values[i] for i in instances], dtype=float).reshape(len(instances), -1)
    costs = np.array([[cost(scenario, i, a, presolve) for a in scenario.algorithms] for i in instances], dtype=float)
    return np.nan_to_num(x, nan=-1.0), costs.reshape(len(instances), len(scenario.algorithms))


def cost(scenario: Scenario, instance: str, backend: str, presolve: tuple[str, float] | None) -> float:
    """PAR-2 of running ``presolve``'s backend for its seconds, then (if the board is still open) ``backend``."""
    if presolve is None:
        return scenario.par2(instance, backend)
    first, seconds = presolve
    if scenario.status[instance].get(first) == "ok" and scenario.runtime[instance][first] <= seconds:
        return scenario.runtime[instance][first]
    return seconds + scenario.par2(instance, backend)


def _cost(tree: dict, x: np.ndarray, costs: np.ndarray, names: Sequence[str], backends: Sequence[str]) -> float:
    probe = Selector(tuple(backends), tuple(names), tree)
    return float(sum(costs[k, backends.index(probe.pick_values(row))] for k, row in enumerate(x)))


def _cross_validated(x: np.ndarray, costs: np.ndarray, names: list[str], backends: list[str], depth: int) -> float:
    inner = np.random.default_rng(0).permutation(len(x)) % INNER_FOLDS  # fixed, and blind to the boards' order
    return sum(
        _cost(
            _grow(x[inner != k], costs[inner != k], backends, names, depth),
            x[inner == k],
            costs[inner == k],
            names,
            backends,
        )
        for k in range(INNER_FOLDS)
    )


def train(
    scenario: Scenario,
    instances: Sequence[str] | None = None,
    depth: int | None = None,
    presolve: tuple[str, float] | None | str = AUTO,
) -> Selector:
    """A selector trained on ``instances`` of ``scenario`` (default: all). ``depth`` (``None``: chosen among
    :data:`DEPTHS`) and ``presolve`` (a backend and its seconds, ``None`` for none, or ``AUTO``: chosen among
    every backend and :data:`PRESOLVE_SECONDS`, or none) by cross-validation over INNER_FOLDS folds."""
    chosen = list(scenario.instances if instances is None else instances)
    if not chosen:
        raise SelectorError("no boards to train a selector on")
    names, backends = list(scenario.features), list(scenario.algorithms)
    schedules: list[tuple[str, float] | None] = (
        [None, *((a, t) for a in backends for t in PRESOLVE_SECONDS)] if presolve == AUTO else [presolve]  # type: ignore[list-item]
    )
    depths = DEPTHS if depth is None else (depth,)
    scores: dict[tuple[int, int], float] = {}
    for k, schedule in enumerate(schedules):
        x, costs = _matrices(scenario, chosen, schedule)
        for d in depths:
            scores[(k, d)] = _cross_validated(x, costs, names, backends, d) if len(schedules) * len(depths) > 1 else 0.0
    (k, depth), score = min(scores.items(), key=lambda item: (item[1], item[0][1], item[0][0]))
    schedule = schedules[k]
    x, costs = _matrices(scenario, chosen, schedule)
    tree = _grow(x, costs, backends, names, depth)
    trained = {
        "scenario": scenario.name,
        "boards": len(chosen),
        "cutoff": scenario.cutoff,
        "depth": depth,
        "cross_validated_par2": round(score / len(chosen), 6),
        "schedules_tried": len(schedules),
    }
    first = None if schedule is None else {"backend": schedule[0], "seconds": schedule[1]}
    return Selector(tuple(backends), tuple(names), tree, trained, first)


def evaluate(
    scenario: Scenario, selector: Selector, instances: Sequence[str], train_on: Sequence[str]
) -> dict[str, Any]:
    """PAR-2 on ``instances`` of the single best backend (best on ``train_on``, as the OASC picks it), the
    virtual best, the selector (its presolver's seconds counted), each backend alone, and the share of the
    SBS-VBS gap the selector closes."""
    algorithms = scenario.algorithms
    on_train = {a: sum(scenario.par2(i, a) for i in train_on) for a in algorithms}
    sbs = min(algorithms, key=lambda a: on_train[a])
    n = len(instances)
    alone = {a: sum(scenario.par2(i, a) for i in instances) / n for a in algorithms}
    vbs = sum(min(scenario.par2(i, a) for a in algorithms) for i in instances) / n
    picks = {
        i: selector.pick_values([scenario.values[i][scenario.features.index(f)] for f in selector.features])
        for i in instances
    }
    schedule = None if selector.presolve is None else (selector.presolve["backend"], selector.presolve["seconds"])
    chosen = sum(cost(scenario, i, picks[i], schedule) for i in instances) / n
    presolved = 0
    if schedule is not None:
        first, seconds = schedule
        presolved = sum(
            scenario.status[i].get(first) == "ok" and scenario.runtime[i][first] <= seconds for i in instances
        )
    gap = alone[sbs] - vbs
    return {
        "boards": n,
        "sbs": sbs,
        "par2_sbs": alone[sbs],
        "par2_vbs": vbs,
        "par2_selector": chosen,
        "par2_alone": alone,
        "gap_closed": (alone[sbs] - chosen) / gap if gap > 0 else math.nan,
        "presolved": presolved,
        "picked": {a: sum(p == a for p in picks.values()) for a in algorithms},
    }
