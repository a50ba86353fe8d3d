"""Which backend leads the race on a board: a selector trained on an ASlib scenario (docs/bench.md#picking-the-backend).

The selector is a presolving schedule (one backend first, for a few seconds at most; or none) and a small
cost-sensitive decision tree over the board's cheap features (:mod:`.features`): each leaf names the
backend with the least total PAR-2 on the training boards that reach it, and each split is the one (a
feature and a threshold) that lowers the total PAR-2 of its two leaves the most. So it is trained on what
it is judged by, the PAR-2 of the backends it runs (as the OASC judges a selector), not on a proxy such as
a classification error; the schedule and the depth are chosen by cross-validation on the training folds.
Why our own and not ``asf`` (PyPI's algorithm selection framework): ``asf`` needs scikit-learn and pandas,
which a one-board ``sigmar solve`` would import (seconds) to walk a tree of a few nodes, and its 0.1 API
moves; the whole model here is a JSON file of a few nodes (``sigmar/schemas/selector.schema.json``) and a
pick costs microseconds beyond the features.

``sigmar solve --selector FILE`` reads one (:func:`load`); ``scripts/bench/selector.py`` trains one
(:mod:`.selector_training`) and measures it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sigmar.models.board import Board
from sigmar.models.errors import SigmarError
from sigmar.runners.statistics.features import FEATURES, features

FORMAT = "sigmar-selector"
VERSION = 1
MAX_BYTES = 1 << 20  # a selector is a few nodes: a larger file is not one


class SelectorError(SigmarError):
    """A file that is not a selector (or one for other backends): one line, exit 2."""


@dataclass(frozen=True)
class Selector:
    """A trained tree: ``pick(board)`` is the backend to lead with."""

    backends: tuple[str, ...]
    features: tuple[str, ...]
    tree: dict[str, Any]
    trained: dict[str, Any] = field(default_factory=dict)
    # The presolving schedule: {"backend": NAME, "seconds": S} runs first, the tree's pick after it; or None.
    presolve: dict[str, Any] | None = None

    def pick_values(self, values: Sequence[float]) -> str:
        node = self.tree
        while "backend" not in node:
            value = values[self.features.index(node["feature"])]
            node = node["low"] if value <= node["threshold"] else node["high"]
        return str(node["backend"])

    def pick(self, board: Board) -> str:
        if "backend" in self.tree:  # a tree of one leaf reads no feature: the board costs nothing to place
            return str(self.tree["backend"])
        values = features(board)
        return self.pick_values([values[FEATURES.index(f)] for f in self.features])

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "backends": list(self.backends),
            "features": list(self.features),
            "presolve": self.presolve,
            "tree": self.tree,
            "trained": self.trained,
        }


# -- reading a selector


def load(path: str | Path) -> Selector:
    """The selector in ``path``; a SelectorError naming the file and the fault when it is not one."""
    path = Path(path)
    try:
        if not path.is_file():
            raise SelectorError(f"{path}: not a file (a selector is the JSON that scripts/bench/selector.py writes)")
        if path.stat().st_size > MAX_BYTES:
            raise SelectorError(f"{path}: over {MAX_BYTES} bytes: not a selector")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SelectorError(f"{path}: not a selector: {exc}") from None
    return from_json(data, str(path))


def from_json(data: object, where: str) -> Selector:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SelectorError(f'{where}: not a selector (no "format": "{FORMAT}")')
    if data.get("version") != VERSION:
        raise SelectorError(f"{where}: selector version {data.get('version')!r}; this sigmar reads {VERSION}")
    backends, names, tree = data.get("backends"), data.get("features"), data.get("tree")
    if not isinstance(backends, list) or not backends or not all(isinstance(b, str) for b in backends):
        raise SelectorError(f"{where}: 'backends' must be a list of backend names")
    if not isinstance(names, list) or not all(isinstance(f, str) for f in names):
        raise SelectorError(f"{where}: 'features' must be a list of feature names")
    unknown = [f for f in names if f not in FEATURES]
    if unknown:
        raise SelectorError(f"{where}: unknown feature {unknown[0]!r} (this sigmar computes {', '.join(FEATURES)})")
    _check_node(tree, backends, names, where, "tree", 0)
    presolve = data.get("presolve")
    if presolve is not None:
        seconds = presolve.get("seconds") if isinstance(presolve, dict) else None
        if (
            not isinstance(presolve, dict)
            or presolve.get("backend") not in backends
            or not isinstance(seconds, int | float)
            or isinstance(seconds, bool)
            or not 0 < seconds < 3600
        ):
            raise SelectorError(f"{where}: 'presolve' must be null or a backend of its own and its seconds")
    trained = data.get("trained", {})
    assert isinstance(tree, dict)  # _check_node made sure
    return Selector(tuple(backends), tuple(names), tree, trained if isinstance(trained, dict) else {}, presolve)


def _check_node(node: object, backends: list[str], names: list[str], where: str, at: str, depth: int) -> None:
    if depth > 32 or not isinstance(node, dict):
        raise SelectorError(f"{where}: {at} is not a node of a selector's tree")
    if "backend" in node:
        if node["backend"] not in backends:
            raise SelectorError(f"{where}: {at} picks {node['backend']!r}, not one of its backends")
        return
    threshold = node.get("threshold")
    if node.get("feature") not in names or not isinstance(threshold, int | float) or isinstance(threshold, bool):
        raise SelectorError(f"{where}: {at} needs a 'feature' of its features and a numeric 'threshold'")
    for side in ("low", "high"):
        _check_node(node.get(side), backends, names, where, f"{at}.{side}", depth + 1)
