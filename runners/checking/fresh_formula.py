"""The runner's own encoding of a board for its DRUP certificate, made once, and possibly ahead of the proof.

A ``drup`` certificate is checked against the board encoded afresh (the
certificate's formula must be exactly that one), and the runner writes that
encoding as the certificate's ``NAME.cnf`` and ``NAME.vars.json`` (the prover
sends only its proof: :func:`sigmar.runners.checking.certify.certify`).  On a
side-6 board the encoding, its DIMACS text and its variable map take 0.1-0.15 s,
more than the reverse unit propagation of most proofs.  So the race asks for
them in a thread of its own (:func:`prepare`) while ``cnf`` is still proving:
the parent process is idle then, and the certificate finds them ready
(:func:`fresh`).

It is the checker's encoding all the same: made here, in the runner's process,
from the board alone, never taken from the backend.
"""

from __future__ import annotations

import threading
from array import array
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sigmar.models.board import Board

if TYPE_CHECKING:
    from sigmar.encoders.cnf.formula import Formula


@dataclass(frozen=True)
class Fresh:
    """The board's default CNF encoding, its DIMACS text, its variable map (``NAME.vars.json``), and its clauses
    as the checker reads them (one flat array, each clause ended by a 0: made with the rest, so that a prepared
    encoding spares the check that pass too, 6-13 ms on a side-6 board)."""

    formula: Formula
    text: str
    sidecar: str
    flat: array[int]

    @property
    def body(self) -> str:
        """The DIMACS text from the ``p cnf`` line on (without the comments)."""
        return self.text[self.text.index("p cnf ") :]


class _Slot:
    """One board's encoding, being made or made (``done`` is set either way)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.done = threading.Event()
        self.value: Fresh | None = None
        self.error: BaseException | None = None
        self.dropped = False  # no longer wanted (:func:`release`): a thread making it stops at its next step

    def make(self) -> None:
        try:
            self.value = encode(self.board, self)
        except BaseException as exc:  # handed to whoever waits for it
            self.error = exc
        finally:
            self.done.set()


class Dropped(Exception):
    """An encoding made ahead that was dropped before it was done (its board was settled otherwise)."""


_lock = threading.Lock()
_slot: _Slot | None = None  # the last board asked for: the race checks one board at a time


def encode(board: Board, slot: _Slot | None = None) -> Fresh:
    """The encoding of ``board``; made for ``slot``, it stops between its steps once the slot is dropped (a thread
    that went on with a board search has settled took the runner's next board a share of its process)."""
    from sigmar.encoders.cnf import build_formula
    from sigmar.encoders.cnf.formula import flat_clauses

    formula = build_formula(board)
    if slot is not None and slot.dropped:
        raise Dropped(board.name)
    flat = flat_clauses(formula.clauses)
    if slot is not None and slot.dropped:
        raise Dropped(board.name)
    text = formula.to_dimacs()
    if slot is not None and slot.dropped:
        raise Dropped(board.name)
    return Fresh(formula, text, formula.sidecar(), flat)


def prepare(board: Board) -> None:
    """Start encoding ``board`` in a daemon thread, unless it is already made or being made."""
    global _slot
    with _lock:
        if _slot is not None and _slot.board is board:
            return
        if _slot is not None:
            _slot.dropped = True  # another board's: the race has moved on
        _slot = slot = _Slot(board)
    threading.Thread(target=slot.make, name="sigmar-fresh-formula", daemon=True).start()


def fresh(board: Board) -> Fresh:
    """The encoding of ``board``: the prepared one (waiting for it if it is being made), else made now.

    One made now is kept like a prepared one (until :func:`release`), so a certificate's files
    and its check share one encoding rather than each making it.
    """
    global _slot
    with _lock:
        slot = _slot if _slot is not None and _slot.board is board else None
    if slot is None:
        made = _Slot(board)
        made.make()
        with _lock:
            if _slot is not None:
                _slot.dropped = True  # another board's, still being made: not wanted now
            _slot = made
        slot = made
    slot.done.wait()
    if slot.error is not None:
        raise slot.error
    assert slot.value is not None
    return slot.value


def prepared(board: Board) -> bool:
    """Whether an encoding of ``board`` was asked for ahead (made or being made)."""
    with _lock:
        return _slot is not None and _slot.board is board


def release(board: Board) -> None:
    """Drop the encoding of ``board`` once its certificate is checked (a side-8 one holds tens of MB), or once the
    race has settled the board otherwise (one still being made stops at its next step)."""
    global _slot
    with _lock:
        if _slot is not None and _slot.board is board:
            _slot.dropped = True
            _slot = None
