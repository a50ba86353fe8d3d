"""Cubes certificates (docs/formats.md, "Cubes"): the formula compared, the cover as a tree, each node's proof forward.

Deletions are ignored and every lemma is checked, as the page allows a simple checker to do.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.formats_checker.board import Board, Malformed
from tests.formats_checker.drup import SUMMARY, _Propagator, parse_dimacs, parse_proof, reference

KEYS = {"node", "cube", "split"}


def read_nodes(path: Path, variables: int) -> dict[int, tuple[frozenset[int], list[int], int | None]]:
    """node -> (its cube as a set, as listed, its split variable or None)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    try:
        header = json.loads(lines[0]) if lines else None
    except ValueError:
        raise Malformed(f"{path}: line 1 is not JSON") from None
    if not isinstance(header, dict) or header.get("format") != "sigmar-cubes" or header.get("version") != 1:
        raise Malformed(f"{path}: not a cubes header")
    nodes: dict[int, tuple[frozenset[int], list[int], int | None]] = {}
    cubes: set[frozenset[int]] = set()
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            raise Malformed(f"{path}: line {number} is not JSON") from None
        if not isinstance(record, dict) or not {"node", "cube"} <= set(record) or set(record) - KEYS:
            raise Malformed(f"{path}: line {number} is not a node")
        node, cube, split = record["node"], record["cube"], record.get("split")
        if type(node) is not int or not 0 <= node <= 999_999 or node in nodes:
            raise Malformed(f"{path}: line {number}: a bad or repeated node number")
        if not isinstance(cube, list) or not all(type(x) is int and 0 < abs(x) <= variables for x in cube):
            raise Malformed(f"{path}: line {number}: a cube that is not literals of the formula")
        if len({abs(x) for x in cube}) != len(cube) or frozenset(cube) in cubes:
            raise Malformed(f"{path}: line {number}: a variable twice, or a cube given twice")
        if split is not None and (type(split) is not int or not 0 < split <= variables or split in map(abs, cube)):
            raise Malformed(f"{path}: line {number}: a bad split")
        nodes[node] = (frozenset(cube), cube, split)
        cubes.add(frozenset(cube))
    if not nodes:
        raise Malformed(f"{path}: no node")
    return nodes


def read_clauses(path: Path, variables: int) -> list[list[int]]:
    steps = parse_proof(path.read_text(encoding="utf-8", errors="replace"), variables, str(path))
    if any(deletion for deletion, _ in steps):
        raise Malformed(f"{path}: a deletion")
    return [lits for _, lits in steps]


def check(board: Board, path: Path) -> tuple[bool, str]:
    stem = path.name.removesuffix(".cubes")
    cnf_path, vars_path = path.with_name(stem + ".cnf"), path.with_name(stem + ".vars.json")
    if not cnf_path.is_file() or not vars_path.is_file():
        raise Malformed(f"{path}: the .cnf or .vars.json beside it is missing")
    try:
        names = json.loads(vars_path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise Malformed(f"{vars_path}: {exc}") from None
    want_text, want_names = reference(board)
    want_vars, want_clauses = parse_dimacs(want_text, "the reference")
    variables, clauses = parse_dimacs(cnf_path.read_text(encoding="utf-8"), str(cnf_path))
    nodes = read_nodes(path, variables)
    files = {k: (path.with_name(f"{stem}.node-{k}.drup"), path.with_name(f"{stem}.node-{k}.lemmas")) for k in nodes}
    for k, (_, _, split) in nodes.items():
        if not files[k][0].is_file() or (split is not None and not files[k][1].is_file()):
            raise Malformed(f"{path}: a file of node {k} is missing")
    if variables != want_vars or sorted(sorted(c) for c in clauses) != sorted(sorted(c) for c in want_clauses):
        return False, "the formula is not this board's"
    if not isinstance(names, dict) or any(names.get(key) != want_names[key] for key in SUMMARY):
        return False, "the variable map does not describe this board's formula"
    parent, gap = cover(nodes)
    if gap:
        return False, f"the cubes do not cover every assignment: {gap}"
    passed = {k: read_clauses(files[k][1], variables) for k, (_, _, split) in nodes.items() if split is not None}
    for k, (_, listed, _split) in sorted(nodes.items()):
        above: list[list[int]] = []
        up = parent.get(k)
        while up is not None:
            above += passed[up]
            up = parent.get(up)
        steps = parse_proof(files[k][0].read_text(encoding="utf-8", errors="replace"), variables, str(files[k][0]))
        lemmas = [lits for deletion, lits in steps if not deletion]
        ok, why = node_follows(variables, clauses + [[x] for x in listed] + above, lemmas, passed.get(k))
        if not ok:
            return False, f"node {k}: {why}"
    return True, f"{sum(1 for _, _, s in nodes.values() if s is None)} cubes, each refuted"


def cover(nodes: dict[int, tuple[frozenset[int], list[int], int | None]]) -> tuple[dict[int, int], str]:
    """Each node's parent, and what leaves a gap ("" when the splits cover every assignment)."""
    by_cube = {cube: k for k, (cube, _, _) in nodes.items()}
    if frozenset() not in by_cube:
        return {}, "no root"
    parent: dict[int, int] = {}
    for k, (cube, _, split) in nodes.items():
        if split is None:
            continue
        for literal in (split, -split):
            child = by_cube.get(cube | {literal})
            if child is None:
                return parent, f"node {k} has no child with {literal}"
            if child in parent:
                return parent, f"node {child} has two parents"
            parent[child] = k
    if len(parent) != len(nodes) - 1:
        return parent, "a node hangs from no split"
    return parent, ""


def node_follows(
    variables: int, clauses: list[list[int]], lemmas: list[list[int]], goals: list[list[int]] | None
) -> tuple[bool, str]:
    """A leaf (``goals`` None): the lemmas refute the clauses.  A split: they and the goals all follow."""
    p = _Propagator(variables)
    for clause in clauses:
        if not p.add(clause):
            return True, "a conflict from the clauses alone"
    for number, lemma in enumerate([*lemmas, *(goals or [])], start=1):
        if not p.refutes(lemma):
            return False, f"clause {number} ({' '.join(map(str, lemma)) or 'the empty clause'}) does not follow"
        if not p.add(lemma):
            return True, "a conflict"
    if goals is None:
        return False, "no conflict is reached"
    return True, "every clause passed on follows"
