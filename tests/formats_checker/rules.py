"""The rules, the counts test and the stuck-set rules (a)-(e) (docs/formats.md, "The rules", "Stuck sets").

A state is a Python int: bit i set when tile i (in the order given) is present.
"""

from __future__ import annotations

from itertools import product

from tests.formats_checker.board import Board

ELEMENTS = "aefw"


class Tiles:
    """The tiles of a board in a chosen order, with what the rules need to know of each."""

    def __init__(self, board: Board, order: list[tuple[int, int]]) -> None:
        self.board = board
        self.order = order
        self.n = len(order)
        self.symbol = [board.symbol(cell) for cell in order]
        index = {cell: i for i, cell in enumerate(order)}
        self.windows: list[list[int]] = []  # per tile: its six windows as masks of tiles
        for cell in order:
            ring = [index.get(nb) if nb is not None else None for nb in board.neighbours(cell)]
            masks = [0 if i is None else 1 << i for i in ring]
            self.windows.append([masks[k] | masks[(k + 1) % 6] | masks[(k + 2) % 6] for k in range(6)])
        metals = sorted((s, i) for i, s in enumerate(self.symbol) if s.isdigit())
        self.metals = [i for _, i in metals]  # rising digit
        self.gold = self.metals[-1] if metals else None
        self.of = {s: sum(1 << i for i, t in enumerate(self.symbol) if t == s) for s in "aefwsvmqx"}
        self.quicksilver = self.of["q"]
        self.partners = [self._partners(i) for i in range(self.n)]

    def _partners(self, i: int) -> int:
        s = self.symbol[i]
        elements = sum(self.of[e] for e in ELEMENTS)
        if s in ELEMENTS:
            mask = self.of[s] | self.of["s"] | self.of["x"]
        elif s == "s":
            mask = self.of["s"] | elements
        elif s == "x":
            mask = elements
        elif s == "v":
            mask = self.of["m"]
        elif s == "m":
            mask = self.of["v"]
        elif s == "q":
            mask = sum(1 << m for m in self.metals if m != self.gold)
        elif i != self.gold:  # a metal but gold
            mask = self.quicksilver
        else:
            mask = 0
        return mask & ~(1 << i)

    def lower_metals(self, t: int) -> int:
        """The metals with a lower digit than metal t."""
        return sum(1 << m for m in self.metals[: self.metals.index(t)])

    def cell(self, i: int) -> str:
        return f"{self.symbol[i]} at {list(self.order[i])}"

    # ------------------------------------------------------------ the counts test

    def cannot_pair_up(self, state: int) -> bool:
        def count(mask: int) -> int:
            return (state & mask).bit_count()

        x = count(self.of["x"])
        if any(count(self.of[e]) < x for e in ELEMENTS):
            return True
        odd = sum((count(self.of[e]) - x) % 2 for e in ELEMENTS)
        salt = count(self.of["s"])
        if odd > salt or (salt - odd) % 2:
            return True
        if count(self.of["v"]) != count(self.of["m"]):
            return True
        not_gold = sum(1 << m for m in self.metals if m != self.gold)
        return count(self.quicksilver) != count(not_gold)

    # ------------------------------------------------------------ stuck sets

    def not_held(self, state: int, k: int) -> int | None:
        """The first tile of K that no rule (a)-(e) holds in ``state``; None when K is a stuck set."""
        members = [i for i in range(self.n) if k >> i & 1]
        quick = state & self.quicksilver

        def rule_a(t: int) -> bool:
            return all(w & k for w in self.windows[t])

        def rule_c(t: int) -> bool:
            lower = (self.lower_metals(t) & state).bit_count()
            return all(w & k or (w & quick).bit_count() > lower for w in self.windows[t])

        metal = {t: self.symbol[t].isdigit() for t in members}
        held = set()
        for t in members:
            if rule_a(t) or metal[t] and (self.lower_metals(t) & k or rule_c(t)):
                held.add(t)
        present_metals = [m for m in self.metals if state >> m & 1]
        if present_metals:
            low = present_metals[0]
            if k >> low & 1 and (rule_a(low) or rule_c(low)):
                held.update(t for t in members if self.symbol[t] == "q")
        by_a_to_d = sum(1 << t for t in held)
        for t in members:
            if t not in held and t != self.gold and not self.partners[t] & state & ~by_a_to_d:
                held.add(t)
        return next((t for t in members if t not in held), None)

    # ------------------------------------------------------------ moves

    def free(self, state: int, t: int) -> bool:
        return bool(state >> t & 1) and any(not w & state for w in self.windows[t])

    def moves(self, state: int) -> list[int]:
        """Every legal move in ``state``, as the mask of tiles it takes away."""
        free = [t for t in range(self.n) if self.free(state, t)]
        present_metals = [m for m in self.metals if state >> m & 1]
        current = present_metals[0] if present_metals else None
        out = []
        for a_index, a in enumerate(free):
            for b in free[a_index + 1 :]:
                if self._pair(a, b, current):
                    out.append(1 << a | 1 << b)
        if self.gold is not None and current == self.gold and self.gold in free:
            out.append(1 << self.gold)
        groups = [[t for t in free if self.symbol[t] == s] for s in "xaefw"]
        for five in product(*groups):
            out.append(sum(1 << t for t in five))
        return out

    def _pair(self, a: int, b: int, current: int | None) -> bool:
        s, t = self.symbol[a], self.symbol[b]
        if s in ELEMENTS and t in ELEMENTS:
            return s == t
        if "s" in (s, t):
            other = t if s == "s" else s
            return other == "s" or other in ELEMENTS
        if {s, t} == {"v", "m"}:
            return True
        if "q" in (s, t):
            metal = b if s == "q" else a
            return self.symbol[metal].isdigit() and metal == current and metal != self.gold
        return False
