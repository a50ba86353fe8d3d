"""Proofs that travel: a certificate's refutations re-checked as LRAT, and exported for a standard checker.

A ``drup`` certificate is one refutation (the board's formula, the proof); a ``cubes``
certificate is one a node (docs/formats.md#cubes): the formula with the node's cube as unit
clauses and its ancestors' clauses passed on, and its proof, which refutes that (a leaf) or
derives the clauses the node passes on (a split).

- :func:`lrat_recheck`: each refutation checked again the second way: the C checker writes
  the lemmas it checked with their hints (LRAT), and :mod:`.lrat_check`, a screen of plain
  Python that shares nothing with it, checks those.  ``sigmar check --lrat``.
- :func:`export`: each refutation as a pair a standard checker reads, ``NAME.cnf`` and
  ``NAME.drup`` (``drat-trim NAME.cnf NAME.drup``), beside its ``NAME.lrat``
  (``lrat-check NAME.cnf NAME.lrat``), and ``manifest.json`` saying what each pair proves
  and what a standard checker cannot.  A split's derivation becomes a refutation a standard
  checker reads: its formula also says that some clause passed on is false (one new variable
  a clause: ``t_i`` false or the clause's literals false, and one of the ``t_i`` true), and
  its proof ends by refuting each ``t_i`` and then everything.  ``sigmar check --export DIR``.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sigmar.models import drat_binary, input_limits
from sigmar.models.board import Board
from sigmar.models.input_limits import DRUP, InputError
from sigmar.models.output_files import cannot_write
from sigmar.runners.checking.cubes_check import SplitNode, read_certificate, render_split
from sigmar.runners.checking.fresh_formula import fresh
from sigmar.runners.checking.lrat_check import check_lrat
from sigmar.runners.checking.rup_check import check_proof, render_goals, unflatten
from sigmar.runners.checking.same_formula import formula_verdict
from sigmar.runners.checking.verdict import CertificateError, Verdict

TRAVELLING = ("drup", "cubes")
MANIFEST = "manifest.json"
EXPORT_FORMAT = "sigmar-export"
# What a standard checker shows of a pair, and what it cannot (the manifest and docs/certificates.md say it).
SHOWS = (
    "A standard DRUP checker (drat-trim NAME.cnf NAME.drup) or LRAT checker (lrat-check NAME.cnf NAME.lrat) "
    "shows that the pair's formula is unsatisfiable. It cannot show that the formula encodes the board: "
    "sigmar check compares the certificate's formula with the board's own encoding (docs/cnf.md says why "
    "every solution of the board is a model of it)."
)
SHOWS_CUBES = (
    " For a cubes certificate it cannot show either that the leaves' cubes cover every assignment (the "
    "split in 'split', checked by sigmar check as a tree), nor, for a node's pair, that the clauses added "
    "to its formula as passed on by its ancestors were derived: each ancestor's pair shows that."
)


@dataclass(frozen=True)
class Refutation:
    """One proof of a certificate and what it is checked against."""

    name: str  # the stem of its exported files
    clauses: array  # flat, each clause ended by 0: the formula, then a node's cube units and passed-on clauses
    variables: int
    proof: bytes  # text DRUP
    goals: list[list[int]] | None  # a split's clauses passed on: the proof derives them
    node: SplitNode | None = None
    proves: str = ""


def refutations(board: Board, record: dict[str, Any], base: Path | None = None) -> Iterator[Refutation]:
    """The refutations of a ``drup`` or ``cubes`` certificate, after its formula (and cover) were found sound.

    CertificateError when the certificate is of another kind, malformed, or its formula or cover is wrong.
    """
    kind, path = _kind_and_path(record, base)
    if kind == "drup":
        yield _drup_refutation(board, path)
        return
    split = read_certificate(board, path)
    if isinstance(split, Verdict):
        raise CertificateError(split.reason)
    stem = path.name.removesuffix(".cubes")
    for node in split.nodes:
        goals = unflatten(split.passed[node.node]) if node.split is not None else None
        what = f"the formula with cube {list(node.cube)} and its ancestors' clauses"
        proves = f"{what} derives the {len(goals or []):,} clauses node {node.node} passes on" if goals else ""
        yield Refutation(
            f"{stem}.node-{node.node}",
            split.premises(node),
            split.variables,
            _proof_bytes(split.files[node.node][0]),
            goals,
            node,
            proves or f"{what} is unsatisfiable",
        )


def lrat_recheck(board: Board, record: dict[str, Any], base: Path | None = None) -> Verdict:
    """Every refutation of the certificate checked as LRAT: written by the C checker, read by :mod:`.lrat_check`."""
    count = lemmas = 0
    seconds = {"c": 0.0, "lrat": 0.0}
    for refutation in refutations(board, record, base):
        lrat, report_seconds = _lrat_of(refutation)
        start = time.perf_counter()
        given = FlatClauses(refutation.clauses)
        ok, why = check_lrat(given, lrat.split(b"\n"), given.not_among(refutation.goals))
        seconds["lrat"] += time.perf_counter() - start
        seconds["c"] += report_seconds
        if not ok:
            return Verdict(False, f"{refutation.name}: the LRAT re-check fails: {why}")
        count += 1
        lemmas += lrat.count(b"\n")
    return Verdict(
        True,
        f"LRAT re-check: {count} refutation{'s' if count != 1 else ''} and {lemmas:,} lemmas with their hints "
        f"checked again by lrat_check ({seconds['lrat']:.2f} s; the C checker took {seconds['c']:.2f} s to write them)",
    )


def _lrat_of(refutation: Refutation) -> tuple[bytes, float]:
    report = check_proof(refutation.clauses, refutation.proof, refutation.variables, goals=refutation.goals, lrat=True)
    if report.malformed:
        raise CertificateError(f"{refutation.name}: {report.message}")
    if not report.valid or report.lrat is None:
        raise _Invalid(f"{refutation.name}: {report.message}")
    return report.lrat, report.seconds


class _Invalid(Exception):
    """A proof the C checker rejects: the certificate is invalid (its plain check says so first)."""


def export(
    board: Board, record: dict[str, Any], folder: Path, base: Path | None = None, temporary: bool = False
) -> Path:
    """The certificate's refutations as standard pairs (and LRAT) in ``folder``, with ``manifest.json``.

    ``temporary``: the certificate is in a folder removed at the end of the run, so the manifest names no file.

    Everything is written to a temporary folder beside ``folder`` first and moved in at the end, so a
    failure (a full disk, an invalid proof) leaves nothing of the export behind.  Returns the manifest.
    """
    kind, path = _kind_and_path(record, base)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".sigmar-export-", dir=folder))
    except OSError as exc:
        raise cannot_write(folder, exc) from None
    try:
        pairs = []
        for refutation in refutations(board, record, base):
            pairs.append(_write_pair(refutation, staging))
        manifest: dict[str, Any] = {
            "format": EXPORT_FORMAT,
            "version": 1,
            "board": board.name,
            "certificate": {"kind": kind, "file": None if temporary else str(path)},
            "pairs": pairs,
            "shows": SHOWS + (SHOWS_CUBES if kind == "cubes" else ""),
        }
        if kind == "cubes":
            split = read_certificate(board, path)
            assert not isinstance(split, Verdict)
            manifest["split"] = [json.loads(line) for line in render_split(board.name, split.nodes).splitlines()[1:]]
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
        for item in sorted(staging.iterdir()):
            item.replace(folder / item.name)
    except OSError as exc:
        raise cannot_write(folder, exc) from None
    except _Invalid as exc:
        raise CertificateError(f"cannot export an invalid proof: {exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder / MANIFEST


def _write_pair(refutation: Refutation, folder: Path) -> dict[str, Any]:
    """``NAME.cnf``, ``NAME.drup`` and ``NAME.lrat``: a refutation any standard checker reads."""
    clauses = unflatten(refutation.clauses)
    variables = refutation.variables
    proof = refutation.proof if refutation.proof.endswith(b"\n") or not refutation.proof else refutation.proof + b"\n"
    if refutation.goals is not None:  # "some clause passed on is false" joins the formula; the proof refutes it
        goals = refutation.goals
        chosen = list(range(variables + 1, variables + len(goals) + 1))
        clauses.append(chosen)
        for t, goal in zip(chosen, goals, strict=True):
            clauses.extend([-t, -x] for x in goal)
        variables += len(goals)
        proof += render_goals(goals) + b"".join(f"{-t} 0\n".encode() for t in chosen)
    if not proof.rstrip().endswith(b"\n0") and proof.strip() != b"0":
        proof += b"0\n"
    flat = array("i")
    for clause in clauses:
        flat.extend(clause)
        flat.append(0)
    report = check_proof(flat, proof, variables, lrat=True)  # our own check of what is exported, with its LRAT
    if not report.valid or report.lrat is None:
        raise _Invalid(f"{refutation.name}: {report.message}")
    header = f"c {refutation.name}: {refutation.proves}\np cnf {variables} {len(clauses)}\n"
    cnf = folder / f"{refutation.name}.cnf"
    with cnf.open("w") as out:
        out.write(header)
        out.writelines(" ".join(map(str, clause)) + " 0\n" for clause in clauses)
    (folder / f"{refutation.name}.drup").write_bytes(proof)
    (folder / f"{refutation.name}.lrat").write_bytes(report.lrat)
    pair: dict[str, Any] = {
        "cnf": cnf.name,
        "drup": f"{refutation.name}.drup",
        "lrat": f"{refutation.name}.lrat",
        "proves": refutation.proves,
    }
    if refutation.node is not None:
        pair["node"] = refutation.node.node
        pair["cube"] = list(refutation.node.cube)
    if refutation.goals is not None:
        pair["derives"] = len(refutation.goals)
    return pair


def _kind_and_path(record: dict[str, Any], base: Path | None) -> tuple[str, Path]:
    kind = record.get("kind")
    if kind not in TRAVELLING:
        raise CertificateError(f"--lrat and --export take drup and cubes certificates, not {kind!r}")
    file = record.get("file")
    if not isinstance(file, str) or not file:
        raise CertificateError(f'a {kind} certificate needs "file"')
    path = Path(file)
    if not path.is_absolute() and not path.exists() and base is not None:
        path = base / path
    return str(kind), path


def _drup_refutation(board: Board, drup: Path) -> Refutation:
    from sigmar.runners.checking.drup_check import drup_files

    cnf_path, vars_path = drup_files(drup)
    for path in (cnf_path, vars_path):
        if not path.exists():
            raise CertificateError(
                f"{path}: missing (a drup certificate is NAME.drup with NAME.cnf and NAME.vars.json)"
            )
    own = fresh(board)
    wrong = formula_verdict(own, cnf_path, vars_path)
    if wrong is not None:
        raise CertificateError(wrong.reason)
    flat = array("i")
    for clause in own.formula.clauses:
        flat.extend(clause)
        flat.append(0)
    stem = drup.name.removesuffix(".drup")
    return Refutation(
        stem, flat, own.formula.nv, _proof_bytes(drup), None, None, "the board's formula is unsatisfiable"
    )


def _proof_bytes(path: Path) -> bytes:
    """A proof file as text DRUP (binary DRAT converted), bounded as the checks read it."""
    try:
        data = input_limits.read_bytes(path, DRUP)
    except InputError as exc:
        raise CertificateError(str(exc)) from None
    if drat_binary.is_binary(data[: drat_binary.SNIFF]):
        try:
            return drat_binary.to_text(data)
        except drat_binary.DratError as exc:
            raise CertificateError(f"{path}: a binary DRAT proof that does not parse: {exc}") from None
    return data


class FlatClauses(Sequence[array]):
    """The clauses of a flat array (each ended by 0), indexed without unpacking them all."""

    def __init__(self, flat: array) -> None:
        import numpy

        ends = numpy.flatnonzero(numpy.frombuffer(flat, dtype=numpy.int32) == 0)
        self._flat, self._ends = flat, ends
        self._starts = numpy.concatenate(([0], ends[:-1] + 1)) if len(ends) else ends

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, index: Any) -> Any:
        return self._flat[int(self._starts[index]) : int(self._ends[index])]

    def __iter__(self) -> Iterator[array]:
        return (self[i] for i in range(len(self)))

    def not_among(self, goals: list[list[int]] | None) -> list[list[int]] | None:
        """The goals that are not clauses here (one given needs no derivation, and the LRAT has no line for it)."""
        if goals is None:
            return None
        sizes = self._ends - self._starts
        given: set[frozenset[int]] = set()
        for size in {len(goal) for goal in goals}:
            for start in self._starts[sizes == size]:
                given.add(frozenset(self._flat[int(start) : int(start) + size]))
        return [goal for goal in goals if frozenset(goal) not in given]
