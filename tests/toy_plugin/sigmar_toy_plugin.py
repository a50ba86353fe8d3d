"""Toy backends that plug into sigmar through the entry-point group ``sigmar.backends``.

``toy`` answers like the built-in search (it asks sigmar's registry for it: a
test fixture's shortcut; a real plugin brings its own solver); ``toy:rules`` is a
plain depth-first search written over ``sigmar.Position``, the rule engine a
plugin may reuse (docs/plugins.md), its "unsolvable" a claim; or it misbehaves
as its sub says: ``wrong`` (a move sequence the rule engine rejects),
``crash`` (raises), ``hang`` (never returns, ignores stop), ``claim``
(unsolvable, as its own word, no certificate), ``uncertified`` (the search's
answers, but its "no" is only claimed: a backend that cannot certify, as a
plugin wrapping a solver without proofs would be).  ``toyraises`` raises in
``available()``; ``toyhangs`` hangs in ``version()`` when the environment
sets SIGMAR_TOY_HANG.  ``toyother`` is declared with ``ToyBackend``, whose
family is ``toy``: a mismatch the registry reports.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace

from sigmar import Backend, Board, Move, Position, Reason, Result, Status


class ToyBackend(Backend):
    family = "toy"
    default_sub = "search"
    description = "test plugin: the built-in search under another name, or broken on purpose"

    @classmethod
    def version(cls) -> str:
        return "toy 0.3"

    @classmethod
    def subs(cls) -> tuple[str, ...]:
        return ("search", "wrong", "crash", "hang", "claim", "uncertified", "rules")

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        if self.sub == "rules":
            return self.solve_by_the_rules(board, time_limit)
        if self.sub == "crash":
            raise RuntimeError("the toy crashed on purpose")
        if self.sub == "hang":
            while True:
                time.sleep(3600)
        if self.sub == "claim":
            return Result(Status.UNSOLVABLE, self.name, 0.0, reason=Reason.PROOF, explanation="the toy says so")
        from sigmar.encoders.registry import make

        answer = replace(make("search").solve(board, time_limit), backend=self.name)
        if self.sub == "uncertified" and answer.status is Status.UNSOLVABLE:
            return replace(answer, reason=Reason.PROOF, certificate=None, explanation="the toy says so")
        if self.sub == "wrong" and answer.moves:
            first = answer.moves[0]
            answer = replace(
                answer, moves=(Move(first.cells[:1]), *answer.moves[1:]) if len(first.cells) > 1 else answer.moves[1:]
            )
        return answer

    def solve_by_the_rules(self, board: Board, time_limit: float | None) -> Result:
        """Depth first over the rule engine's positions, remembering the dead ones."""
        start = time.perf_counter()
        deadline = None if time_limit is None else start + time_limit
        dead: set[frozenset] = set()
        path: list[Move] = []

        def clears(position: Position) -> bool | None:
            if position.is_clear:
                return True
            if position.occupied in dead:
                return False
            if deadline is not None and time.perf_counter() > deadline:
                return None
            for move in position.legal_moves():
                path.append(move)
                found = clears(position.play(move))
                if found is not False:
                    return found
                path.pop()
            dead.add(position.occupied)
            return False

        found = clears(Position.start(board))
        seconds = time.perf_counter() - start
        if found:
            return Result(Status.SOLVED, self.name, seconds, moves=tuple(path))
        if found is None:
            return Result(Status.UNKNOWN, self.name, seconds)
        return Result(Status.UNSOLVABLE, self.name, seconds, reason=Reason.EXHAUSTED, explanation="no play clears it")


class RaisingBackend(ToyBackend):
    family = "toyraises"

    @classmethod
    def available(cls) -> tuple[bool, str]:
        raise RuntimeError("the toy cannot tell")


class HangingBackend(ToyBackend):
    family = "toyhangs"

    @classmethod
    def version(cls) -> str:
        while os.environ.get("SIGMAR_TOY_HANG"):
            time.sleep(3600)
        return "toy 0.3"
