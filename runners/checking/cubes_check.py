"""Check a ``cubes`` certificate: the board's formula split into cubes, each refuted (docs/formats.md#cubes).

A split is a binary tree.  Its root stands for the whole formula; a node that
*splits* on a variable x has two children, its cube with x and its cube with
not-x, so the cubes of the leaves cover every assignment (the cover needs no
proof of its own: it is checked as a tree).  Each node has a DRUP proof
(``NAME.node-K.drup``) checked against the formula, its cube's literals as
unit clauses, and the clauses its ancestors passed on: a leaf's proof must
refute that, and a splitting node's proof must derive the clauses it passes
on to its children (``NAME.node-K.lemmas``).  Every clause passed on follows
from the formula under the node's cube, so every leaf's cube contradicts the
formula, and as the leaves cover every assignment, the formula has no model.

Checked in this order, the first failure named: the formula (as for a ``drup``
certificate: the board's own, re-encoded here), the tree (the cover), then
each node's proof, on as many threads as the machine has cores (the C engine
of :mod:`.rup_check` checks without the interpreter's lock).
"""

from __future__ import annotations

import mmap
import os
from array import array
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sigmar.models import input_limits
from sigmar.models.board import Board
from sigmar.models.input_limits import CUBES, DRUP, InputError
from sigmar.runners.checking.fresh_formula import fresh
from sigmar.runners.checking.rup_check import CheckReport, ProofFormatError, check_proof, iter_drup, unflatten
from sigmar.runners.checking.same_formula import formula_verdict
from sigmar.runners.checking.verdict import CertificateError, Verdict

FORMAT = "sigmar-cubes"
VERSION = 1
MAX_NODES = 1_000_000
NODE_KEYS = frozenset({"node", "cube", "split"})


@dataclass(frozen=True)
class SplitNode:
    """One node of a split: its number, its cube (the literals on the way from the root), its split variable.

    A node without ``split`` is a leaf: one of the certificate's cubes.
    """

    node: int
    cube: tuple[int, ...]
    split: int | None = None


def stem_of(cubes_path: Path) -> str:
    return cubes_path.name[: -len(".cubes")] if cubes_path.name.endswith(".cubes") else cubes_path.stem


def node_suffixes(node: int) -> tuple[str, str]:
    """The suffixes of a node's proof and of the clauses it passes on: ``.node-K.drup``, ``.node-K.lemmas``."""
    return f".node-{node}.drup", f".node-{node}.lemmas"


def node_paths(cubes_path: Path, node: int) -> tuple[Path, Path]:
    stem = stem_of(cubes_path)
    proof, lemmas = node_suffixes(node)
    return cubes_path.with_name(stem + proof), cubes_path.with_name(stem + lemmas)


def render_split(board_name: str, nodes: list[SplitNode]) -> str:
    """The text of ``NAME.cubes``: a header line, then one JSON object a node."""
    import json

    lines = [json.dumps({"format": FORMAT, "version": VERSION, "board": board_name})]
    for n in nodes:
        record: dict[str, Any] = {"node": n.node, "cube": list(n.cube)}
        if n.split is not None:
            record["split"] = n.split
        lines.append(json.dumps(record))
    return "\n".join(lines) + "\n"


def read_split(path: Path, variables: int | None = None) -> tuple[str | None, list[SplitNode]]:
    """The board a ``.cubes`` file names, and its nodes; CertificateError when it is not such a file.

    With ``variables``, a literal or split beyond them is malformed too.
    """
    nodes: list[SplitNode] = []
    seen_nodes: set[int] = set()
    seen_cubes: dict[frozenset[int], int] = {}
    board: str | None = None
    try:
        with input_limits.open_input(path, CUBES) as stream:
            for number, line in input_limits.lines(stream, CUBES):
                if number == 1:
                    board = _header(input_limits.json_value(line, path, 1))
                    continue
                if not line.strip():
                    continue
                node = _node(input_limits.json_value(line, path, number), variables, number)
                if node.node in seen_nodes:
                    raise CertificateError(f"line {number}: node {node.node} is listed twice")
                key = frozenset(node.cube)
                if key in seen_cubes:
                    raise CertificateError(f"line {number}: node {node.node} has the cube of node {seen_cubes[key]}")
                if len(nodes) >= MAX_NODES:
                    raise CertificateError(f"line {number}: more than {MAX_NODES:,} nodes")
                seen_nodes.add(node.node)
                seen_cubes[key] = node.node
                nodes.append(node)
    except InputError as exc:
        raise CertificateError(str(exc)) from None
    if board is None:
        raise CertificateError("an empty file: expected the cubes header")
    if not nodes:
        raise CertificateError("no node: a split has at least its root")
    return board, nodes


def _header(value: object) -> str | None:
    if not isinstance(value, dict) or value.get("format") != FORMAT or value.get("version") != VERSION:
        raise CertificateError(f'line 1: not a cubes header ({{"format": "{FORMAT}", "version": {VERSION}, ...}})')
    board = value.get("board")
    return board if isinstance(board, str) else None


def _node(value: object, variables: int | None, number: int) -> SplitNode:
    where = f"line {number}"
    if not isinstance(value, dict) or "node" not in value or "cube" not in value:
        raise CertificateError(f'{where}: expected {{"node": N, "cube": [...]}} with an optional "split"')
    unknown = sorted(set(value) - NODE_KEYS)
    if unknown:
        raise CertificateError(f"{where}: unknown key {unknown[0]!r}")
    node, cube, split = value["node"], value["cube"], value.get("split")
    if type(node) is not int or not 0 <= node < MAX_NODES:
        raise CertificateError(f"{where}: the node number must be an integer from 0 to {MAX_NODES - 1:,}")
    bound = variables if variables is not None else 2**31 - 1
    if not isinstance(cube, list) or not all(type(x) is int and 0 < abs(x) <= bound for x in cube):
        raise CertificateError(f"{where}: node {node}'s cube must be a list of literals (1 to {bound} or negated)")
    if len({abs(x) for x in cube}) != len(cube):
        raise CertificateError(f"{where}: node {node}'s cube names a variable twice")
    if split is not None and (type(split) is not int or not 0 < split <= bound):
        raise CertificateError(f"{where}: node {node}'s split must be a variable from 1 to {bound}")
    if split is not None and split in {abs(x) for x in cube}:
        raise CertificateError(f"{where}: node {node} splits on variable {split}, which its cube already fixes")
    return SplitNode(node, tuple(cube), split)


def shape(nodes: list[SplitNode]) -> tuple[dict[int, int | None], str | None]:
    """Each node's parent (None for the root), and the first gap in the cover (None when there is none).

    The cover holds when one node has the empty cube, every node that splits on x has both
    children (its cube with x, its cube with not-x), and every other node is the child of
    exactly one split: then every assignment satisfies the cube of some leaf.
    """
    by_cube = {frozenset(n.cube): n for n in nodes}
    parents: dict[int, int | None] = {}
    root = by_cube.get(frozenset())
    if root is None:
        return parents, "no node has the empty cube, so nothing covers the whole formula"
    parents[root.node] = None
    for n in nodes:
        if n.split is None:
            continue
        for literal in (n.split, -n.split):
            child = by_cube.get(frozenset(n.cube) | {literal})
            if child is None:
                shown = cube_text((*n.cube, literal))
                return parents, f"node {n.node} splits on variable {n.split}, but no node has the cube {shown}"
            if child.node in parents:
                return parents, f"node {child.node} hangs from two splits (nodes {parents[child.node]} and {n.node})"
            parents[child.node] = n.node
    for n in nodes:
        if n.node not in parents:
            return parents, f"node {n.node} (cube {cube_text(n.cube)}) hangs from no split"
    return parents, None


def cube_text(cube: tuple[int, ...] | list[int]) -> str:
    return "[" + ", ".join(map(str, cube)) + "]"


def ancestors(node: int, parents: dict[int, int | None]) -> Iterator[int]:
    """The node's parent, its parent's parent, ... up to the root."""
    above = parents.get(node)
    while above is not None:
        yield above
        above = parents.get(above)


def premises(formula: array, cube: tuple[int, ...], passed_on: list[array]) -> array:
    """What a node's proof is checked against: the formula, its cube's literals as units, its ancestors' clauses."""
    base = array("i", formula)
    for literal in cube:
        base.extend((literal, 0))
    for clauses in passed_on:
        base.extend(clauses)
    return base


def read_lemmas(path: Path, variables: int) -> array:
    """A ``.lemmas`` file: clauses one a line, each ended by 0 (DRUP's lemma lines; no deletions)."""
    try:
        text = input_limits.read_text(path, DRUP)
    except InputError as exc:
        raise CertificateError(str(exc)) from None
    flat = array("i")
    try:
        for number, (deletion, literals) in iter_drup(text.splitlines(), variables):
            if deletion:
                raise CertificateError(f"{path}: line {number}: a deletion; this file lists clauses only")
            flat.extend(literals)
            flat.append(0)
    except ProofFormatError as exc:
        raise CertificateError(f"{path}: {exc}") from None
    return flat


def check_node(
    formula: array,
    variables: int,
    node: SplitNode,
    proof_path: Path,
    passed_on: list[array],
    goals: array | None,
    lrat: bool = False,
) -> CheckReport:
    """One node's proof: a refutation (a leaf), or a derivation of ``goals`` (a node that splits).

    With ``lrat`` the report carries the proof as LRAT (:func:`.rup_check.check_proof`).
    """
    base = premises(formula, node.cube, passed_on)
    goal_clauses = None if goals is None else unflatten(goals)
    try:
        with input_limits.open_input(proof_path, DRUP) as stream:
            if input_limits.regular_size(proof_path, DRUP) == 0:
                return check_proof(base, b"", variables, goals=goal_clauses, lrat=lrat)
            with mmap.mmap(stream.inner.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                skip = len(input_limits.BOM) if mapped[:3] == input_limits.BOM else 0
                with memoryview(mapped) as view:
                    return check_proof(base, view[skip:], variables, goals=goal_clauses, lrat=lrat)
    except InputError as exc:
        raise CertificateError(str(exc)) from None
    except MemoryError:
        why = "the proof needs more memory than there is; see docs/formats.md, 'Limits'"
        raise CertificateError(f"{proof_path}: {why}") from None


# What a check may cost, against the certificate's size: each node is checked against the clauses its
# ancestors pass on, so a deep split that shares one big lemmas file (a hard link) between many nodes
# would cost depth x that file while the certificate stays small (issue 47, S7).  A lemmas file that
# several nodes name (the same file, by device and inode) is read once, and a node's ancestors' clauses
# are taken once each; the passed-on clauses read over all nodes may then come to at most
# PASSED_ON_FACTOR times the certificate's bytes (each file counted once), and to at most
# MAX_PASSED_ON_BYTES for one node.  Past either, the certificate is refused (exit 2) before any proof is
# checked.  A certificate of ``prove --cubes`` is far inside both (docs/measured/cubes.md: about 1x).
PASSED_ON_FACTOR = 16
MAX_PASSED_ON_BYTES = 256 * 2**20


@dataclass(frozen=True)
class PassedOn:
    """Each splitting node's lemmas file by identity, and each node's ancestors' files, each named once."""

    identity: dict[int, tuple[int, int]]  # node -> (device, inode) of its .lemmas
    above: dict[int, list[tuple[int, int]]]  # node -> its ancestors' distinct lemmas files, nearest first


def _passed_on_files(
    cubes_path: Path, nodes: list[SplitNode], parents: dict[int, int | None], files: dict[int, tuple[Path, Path]]
) -> PassedOn:
    """The lemmas files each node is checked against, each once; CertificateError past the bounds above."""
    sizes: dict[tuple[int, int], int] = {}

    def identity(path: Path) -> tuple[int, int]:
        try:
            found = path.stat()
        except OSError as exc:
            raise CertificateError(f"{path}: cannot read: {exc.strerror or exc}") from None
        key = (found.st_dev, found.st_ino)
        sizes[key] = found.st_size
        return key

    stem = stem_of(cubes_path)
    for path in (cubes_path, cubes_path.with_name(stem + ".cnf"), cubes_path.with_name(stem + ".vars.json")):
        identity(path)
    lemmas = {n.node: identity(files[n.node][1]) for n in nodes if n.split is not None}
    for n in nodes:
        identity(files[n.node][0])
    size = sum(sizes.values())
    above: dict[int, list[tuple[int, int]]] = {}
    work = 0
    for n in nodes:
        keys = list(dict.fromkeys(lemmas[a] for a in ancestors(n.node, parents)))
        own = lemmas.get(n.node)
        node_bytes = sum(sizes[k] for k in keys) + (sizes[own] if own is not None and own not in keys else 0)
        if node_bytes > MAX_PASSED_ON_BYTES:
            raise CertificateError(
                f"{cubes_path.name}: node {n.node} is checked against {node_bytes:,} bytes of clauses passed on "
                f"to it, more than the {MAX_PASSED_ON_BYTES:,} a node may have (see docs/formats.md, 'Limits')"
            )
        above[n.node] = keys
        work += node_bytes
    if work > PASSED_ON_FACTOR * size:
        raise CertificateError(
            f"{cubes_path.name}: its nodes are checked against {work:,} bytes of passed-on clauses in all, more "
            f"than {PASSED_ON_FACTOR} times the certificate's {size:,} bytes (its files counted once each); "
            "a split that shares its clauses this often is refused (see docs/formats.md, 'Limits')"
        )
    return PassedOn(lemmas, above)


def _node_files(cubes_path: Path, nodes: list[SplitNode]) -> dict[int, tuple[Path, Path]]:
    """Each node's proof and lemmas files; CertificateError naming the first that is missing."""
    files = {n.node: node_paths(cubes_path, n.node) for n in nodes}
    for n in nodes:
        proof, lemmas = files[n.node]
        for path in (proof, *((lemmas,) if n.split is not None else ())):
            if not path.exists():
                raise CertificateError(f"{path}: missing (node {n.node} of {cubes_path.name})")
    return files


@dataclass(frozen=True)
class Split:
    """A cubes certificate read and found sound in its formula and its cover: what each node is checked against."""

    formula: array  # the board's own clauses, flat
    variables: int
    nodes: list[SplitNode]
    parents: dict[int, int | None]
    files: dict[int, tuple[Path, Path]]  # node -> its proof, its lemmas
    passed: dict[int, array]  # a splitting node -> the clauses it passes on (its goals), flat
    above: dict[int, list[array]]  # node -> its ancestors' clauses, each file once

    def premises(self, node: SplitNode) -> array:
        """The clauses the node's proof is checked against: the formula, its cube's units, its ancestors'."""
        return premises(self.formula, node.cube, self.above[node.node])


def read_certificate(board: Board, cubes_path: Path) -> Split | Verdict:
    """The split of ``NAME.cubes`` with its nodes' clauses, or the verdict when its formula or cover fails."""
    stem = stem_of(cubes_path)
    cnf_path, vars_path = cubes_path.with_name(stem + ".cnf"), cubes_path.with_name(stem + ".vars.json")
    for path in (cnf_path, vars_path):
        if not path.exists():
            raise CertificateError(f"{path}: missing (a cubes certificate has NAME.cnf and NAME.vars.json)")
    own = fresh(board)
    wrong = formula_verdict(own, cnf_path, vars_path)
    if wrong is not None:
        return wrong
    variables = own.formula.nv
    _, nodes = read_split(cubes_path, variables)
    parents, gap = shape(nodes)
    if gap is not None:
        return Verdict(False, f"{cubes_path.name}: the cubes do not cover every assignment: {gap}")
    files = _node_files(cubes_path, nodes)
    passed_on = _passed_on_files(cubes_path, nodes, parents, files)
    lemma_sets: dict[tuple[int, int], array] = {}  # one array a lemmas file, however many nodes share it
    for n in nodes:
        if n.split is not None:
            key = passed_on.identity[n.node]
            if key not in lemma_sets:
                lemma_sets[key] = read_lemmas(files[n.node][1], variables)
    passed = {n.node: lemma_sets[passed_on.identity[n.node]] for n in nodes if n.split is not None}
    above = {n.node: [lemma_sets[key] for key in passed_on.above[n.node]] for n in nodes}
    formula = array("i")
    for clause in own.formula.clauses:
        formula.extend(clause)
        formula.append(0)
    return Split(formula, variables, nodes, parents, files, passed, above)


def check_cubes(board: Board, cubes_path: Path) -> Verdict:
    """Whether the cubes certificate named by ``NAME.cubes`` proves ``board`` unsolvable."""
    split = read_certificate(board, cubes_path)
    if isinstance(split, Verdict):
        return split
    nodes, files = split.nodes, split.files

    def one(n: SplitNode) -> CheckReport:
        return check_node(
            split.formula, split.variables, n, files[n.node][0], split.above[n.node], split.passed.get(n.node)
        )

    threads = max(1, min(len(nodes), len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1))
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="sigmar-cubes-check") as pool:
        reports = list(pool.map(one, nodes))
    checked = 0
    for n, report in zip(nodes, reports, strict=True):
        if report.malformed:
            raise CertificateError(f"{files[n.node][0]}: {report.message}")
        if not report.valid:
            what = "cube" if n.split is None else "split"
            where = f"node {n.node} ({what} {cube_text(n.cube)}): {files[n.node][0].name}"
            return Verdict(False, f"{where}: {report.message}")
        checked += report.checked
    leaves = sum(1 for n in nodes if n.split is None)
    return Verdict(
        True,
        f"{leaves} cubes, the leaves of a split of {len(nodes)} nodes, cover every assignment and each is "
        f"refuted ({checked:,} lemmas checked)",
    )
