"""The one entry point for checking a certificate: :func:`check_certificate`, which dispatches by kind.

A certificate comes as an answer's JSON prints it: ``{"kind": ..., "file": ..., "cells": ...}``
(docs/formats.md#certificates).  ``sigmar check``, the race, bench, prove and fuzz
(through :func:`.certify.certify`) all come here; each kind has its own module:

- ``counts``: here, by the rule engine's count test;
- ``stuck``: :mod:`.stuck_check`;
- ``dead-states``: :mod:`.dead_states_check`;
- ``drup``: :mod:`.drup_check`;
- ``drcp``: :mod:`.drcp_check` (the board's order model built afresh; the proof checked against it);
- ``cubes``: :mod:`.cubes_check`;
- ``play-bound`` (``explain``'s bound on the deepest play, not a "no" for the whole board):
  :mod:`.play_bound_check`.

Each kind proves one thing (:data:`PROVES`): the six of :class:`CertificateKind` that the
board cannot be cleared; a play-bound file only that no play clears more than its
``cleared`` tiles.  :func:`check_certificate`, the check of an "unsolvable", accepts only the
first; :func:`check_claim`, the check of a lone certificate, checks each for its own claim.
Either stamps what an accepted certificate proves on its :class:`Verdict`, and an
"unsolvable" is checked only by a verdict that proves it (``Verdict.unsolvable``).

"Checked" means a certificate was accepted here; "verified" means a solution was
replayed by the rule engine (:mod:`.replay`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sigmar.models.board import Board
from sigmar.models.hexgrid import from_rowcol
from sigmar.models.result import CERTIFICATE_SUFFIXES, CertificateKind
from sigmar.models.rules import count_problem
from sigmar.runners.checking.verdict import PLAY_BOUND, UNSOLVABLE, CertificateError, Verdict

if TYPE_CHECKING:
    from pathlib import Path

    from sigmar.encoders.order_model import OrderModel

# Each kind's checker is imported when a certificate of that kind comes (a race's first stuck set imported
# all of them, the DRUP and DRCP checkers' included: some 45 ms of a batch's first unsolvable board).

KINDS = tuple(str(kind) for kind in CertificateKind)
# What an accepted certificate of each kind proves (docs/certificates.md): every kind of an answer's
# "unsolvable" that the board cannot be cleared; the play-bound file of ``explain``
# (docs/formats.md#play-bound-files) only that no play clears more than its ``cleared`` tiles.
PROVES: dict[str, str] = {**dict.fromkeys(KINDS, UNSOLVABLE), PLAY_BOUND: PLAY_BOUND}


def check_certificate(
    board: Board,
    certificate: dict[str, Any],
    base: Path | None = None,
    *,
    texts: dict[str, str] | None = None,
    model: OrderModel | None = None,
) -> Verdict:
    """Whether ``certificate`` proves ``board`` unsolvable; CertificateError when it is malformed.

    Only a kind that proves unsolvability can: a play-bound file (true of a solvable board too,
    for its ``cleared`` may be every tile) is refused with ``Verdict(False)``, unread.
    A relative ``file`` is read from the working folder, else from ``base``.  The runner, which
    holds the files it wrote (``texts``: suffix -> text) and the order model it wrote a drcp
    certificate's from (``model``), has them checked in memory: ``file`` then only names them.
    """
    named = certificate.get("kind")
    if isinstance(named, str) and PROVES.get(named, UNSOLVABLE) != UNSOLVABLE:
        return Verdict(
            False,
            f"a {named} certificate does not prove a board unsolvable: it bounds how many tiles a play clears "
            f"(explain's deepest play); an unsolvable answer needs one of {', '.join(KINDS)}",
        )
    verdict = _unsolvable(board, named, certificate, base, texts, model)
    return Verdict(True, verdict.reason, UNSOLVABLE) if verdict.valid else Verdict(False, verdict.reason)


def check_claim(
    board: Board, certificate: dict[str, Any], base: Path | None = None, *, bound: int | None = None
) -> Verdict:
    """Whether ``certificate`` proves what its kind claims (:data:`PROVES`); CertificateError when malformed.

    A play-bound file: its bound (``bound``, when given, must be the file's), stamped ``PLAY_BOUND``;
    any other kind: the board unsolvable.  ``sigmar check`` of a lone certificate comes here, and
    the deepest play of explain's JSON.
    """
    if certificate.get("kind") == PLAY_BOUND:
        from sigmar.runners.checking.play_bound_check import check_play_bound

        verdict = check_play_bound(board, _file(certificate, base), bound)
        return Verdict(True, verdict.reason, PLAY_BOUND) if verdict.valid else Verdict(False, verdict.reason)
    return check_certificate(board, certificate, base)


def _unsolvable(
    board: Board,
    named: object,
    certificate: dict[str, Any],
    base: Path | None,
    texts: dict[str, str] | None = None,
    model: OrderModel | None = None,
) -> Verdict:
    """The check of one of the kinds that prove a board unsolvable, dispatched by kind."""
    if not isinstance(named, str) or named not in KINDS:
        expected = ", ".join((*KINDS, PLAY_BOUND))
        raise CertificateError(f"unknown certificate kind {named!r} (expected one of {expected})")
    kind = CertificateKind(named)
    if kind is CertificateKind.COUNTS:
        return check_counts(board)
    if kind is CertificateKind.STUCK:
        from sigmar.runners.checking.stuck_check import check_stuck

        return check_stuck(board, _cells(board, certificate.get("cells")))
    if texts is not None and kind is not CertificateKind.CUBES:
        from pathlib import Path  # here: a stuck set's check makes no path

        path = Path(str(certificate.get("file") or f"certificate{CERTIFICATE_SUFFIXES[kind][0]}"))
        return _in_memory(board, kind, path, texts, model)
    path = _file(certificate, base)
    if kind is CertificateKind.DEAD_STATES:
        from sigmar.runners.checking.dead_states_check import check_dead_states

        return check_dead_states(board, path)
    if kind is CertificateKind.DRCP:
        from sigmar.runners.checking.drcp_check import check_drcp

        return check_drcp(board, path)
    if kind is CertificateKind.CUBES:
        from sigmar.runners.checking.cubes_check import check_cubes

        return check_cubes(board, path)
    from sigmar.runners.checking.drup_check import check_drup

    return check_drup(board, path)


def _in_memory(
    board: Board, kind: CertificateKind, path: Path, texts: dict[str, str], model: OrderModel | None
) -> Verdict:
    """A certificate whose files the runner holds, checked from those texts (``path`` names them)."""
    missing = [suffix for suffix in CERTIFICATE_SUFFIXES[kind] if suffix not in texts]
    if missing:
        raise CertificateError(f"a {kind} certificate without its {', '.join(missing)}")
    if kind is CertificateKind.DEAD_STATES:
        from sigmar.runners.checking.dead_states_check import check_dead_states

        return check_dead_states(board, path, texts[".dead.jsonl"])
    if kind is CertificateKind.DRCP:
        from sigmar.runners.checking.drcp_check import check_drcp

        return check_drcp(board, path, texts, model)
    from sigmar.runners.checking.drup_check import check_drup

    return check_drup(board, path, texts)


def check_counts(board: Board) -> Verdict:
    """A ``counts`` certificate: the tile counts of the starting board cannot pair up."""
    problem = count_problem(board)
    if problem is None:
        return Verdict(False, "the tile counts can pair up, so counts alone prove nothing")
    return Verdict(True, problem)


def _cells(board: Board, cells: object) -> list[tuple[int, int]]:
    if not isinstance(cells, list) or not cells:
        raise CertificateError('a stuck certificate needs "cells": a nonempty list of [row, col]')
    out = []
    for i, pair in enumerate(cells):
        if not (isinstance(pair, list) and len(pair) == 2 and all(type(x) is int and 0 <= x < 10_000 for x in pair)):
            raise CertificateError(f'"cells" item {i} is not a [row, col] pair of non-negative integers')
        try:
            out.append(from_rowcol(pair[0], pair[1], board.dim))
        except ValueError as exc:
            raise CertificateError(f'"cells" item {i} [{pair[0]}, {pair[1]}]: {exc}') from None
    if len(set(out)) != len(out):
        raise CertificateError('"cells" names a cell twice')
    return out


def _file(certificate: dict[str, Any], base: Path | None) -> Path:
    name = certificate.get("file")
    if not isinstance(name, str) or not name:
        raise CertificateError(f'a {certificate.get("kind")} certificate needs "file"')
    from pathlib import Path

    path = Path(name)
    if not path.is_file() and base is not None and not path.is_absolute() and (base / path).is_file():
        path = base / path  # a path relative to the folder of the JSON that names it
    if not path.is_file():
        why = "not a regular file" if path.exists() else "no such certificate file"
        raise CertificateError(f"{path}: {why}")
    return path
