"""Whether a certificate's ``NAME.cnf`` and ``NAME.vars.json`` are the board's own formula (``drup``, ``cubes``).

The formula is the one part of such a certificate a checker takes on trust, so it
is never read from the certificate: the board is encoded afresh (:mod:`.fresh_formula`)
and the files must be that formula, clause for clause (as a multiset, the order of
literals and clauses aside), with a variable map that describes it.
"""

from __future__ import annotations

import json
from pathlib import Path

from sigmar.models import input_limits
from sigmar.models.input_limits import CNF, VARS_JSON, InputError, Limit
from sigmar.runners.checking.fresh_formula import Fresh
from sigmar.runners.checking.rup_check import ProofFormatError, parse_dimacs
from sigmar.runners.checking.verdict import CertificateError, Verdict


def formula_verdict(own: Fresh, cnf_path: Path, vars_path: Path) -> Verdict | None:
    """None when ``NAME.cnf`` and ``NAME.vars.json`` are the board's own formula (``own``), else why not.

    Both are refused unread (CertificateError) when larger than this board's could be.
    """
    try:
        text = read_bounded(cnf_path, CNF, len(own.text) + input_limits.CNF_SLACK_BYTES)
        sidecar = read_bounded(vars_path, VARS_JSON, _most_sidecar(own))
    except InputError as exc:
        raise CertificateError(str(exc)) from None
    return formula_text_verdict(own, text, sidecar, cnf_path, vars_path)


def _most_sidecar(own: Fresh) -> int:
    return 256 * own.formula.nv + input_limits.MiB  # a name per variable, each far shorter than 256 bytes


def formula_text_verdict(own: Fresh, text: str, sidecar: str, cnf_path: Path, vars_path: Path) -> Verdict | None:
    """:func:`formula_verdict` of the two files' texts, in memory (the paths name them in what it says).

    The runner's own encoding (the very strings of ``own``) is the board's formula without a look.
    """
    if text is own.text and sidecar is own.sidecar:
        return None
    formula = own.formula
    for given, limit, most, path in (
        (text, CNF, len(own.text) + input_limits.CNF_SLACK_BYTES, cnf_path),
        (sidecar, VARS_JSON, _most_sidecar(own), vars_path),
    ):
        if len(given) > most:
            raise CertificateError(f"{path}: larger than this board's {limit.kind} can be ({most:,} bytes at most)")
    try:
        names = input_limits.json_value(sidecar, vars_path)
    except InputError as exc:
        raise CertificateError(str(exc)) from None
    if _body(text) != own.body:  # the fast path compares text
        try:
            variables, clauses = parse_dimacs(text)
        except ProofFormatError as exc:
            raise CertificateError(f"{cnf_path}: {exc}") from None
        mismatch = _formula_mismatch(formula.nv, formula.clauses, variables, clauses)
        if mismatch:
            return Verdict(False, f"{cnf_path.name} is not this board's formula: {mismatch}")
    summary = ("variant", "dim", "tiles", "horizon", "variables", "clauses")
    expected = json.loads(formula.sidecar(with_names=False))
    if not isinstance(names, dict) or any(names.get(key) != expected[key] for key in summary):
        return Verdict(False, f"{vars_path.name} does not describe this board's formula")
    return None


def read_bounded(path: Path, limit: Limit, most: int) -> str:
    """A certificate's side file as text, refused unread when above ``most`` bytes (it cannot be this board's)."""
    size = input_limits.regular_size(path, limit)
    if size > most:
        raise InputError(path, f"{size:,} bytes: larger than this board's {limit.kind} can be ({most:,} at most)")
    return input_limits.read_text(path, limit)


def _body(dimacs: str) -> str:
    """A DIMACS text from its ``p cnf`` line on (comments before it do not count)."""
    if dimacs.startswith("p cnf "):
        return dimacs
    at = dimacs.find("\np cnf ")
    return dimacs[at + 1 :] if at >= 0 else ""


def _formula_mismatch(nv: int, expected: list[list[int]], variables: int, clauses: list[list[int]]) -> str:
    if variables != nv:
        return f"{variables} variables, the board's encoding has {nv}"
    want = sorted(tuple(sorted(c)) for c in expected)
    have = sorted(tuple(sorted(c)) for c in clauses)
    if want == have:
        return ""
    missing = sorted(set(want) - set(have))
    extra = sorted(set(have) - set(want))
    if missing:
        return f"clause {' '.join(map(str, missing[0]))} 0 of the board's encoding is missing"
    if extra:
        return f"clause {' '.join(map(str, extra[0])) or '(empty)'} 0 is not in the board's encoding"
    return f"{len(clauses)} clauses, the board's encoding has {len(expected)}"
