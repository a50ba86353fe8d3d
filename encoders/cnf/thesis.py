"""The Leiden thesis's CNF encoding (section 6.3, formulas (1)-(12)), as published: the baseline.

Indices are the thesis's: a cell's index is its reading-order position among
all ``n_c`` cells, ``-1`` is the padding ring around the board, ``-2`` the
"hidden key" that pairs only with gold (lock-0) and is always removable.
``T`` is the set of cells holding a tile, ``T^ = T + {-2}``, ``n_t = |T|``,
``n_p = ceil(n_t / 2)`` moves.  Move ``t`` (``Pair_{i,j,t}``, ``i < j``)
removes ``i`` at tile step ``2t - 1`` and ``j`` at tile step ``2t``.

Where this differs from docs/formats.md#the-rules or from the printed text (said here and in
docs/cnf.md, not silently fixed):

1. **The horizon (repaired).**  As printed, formulas (3), (4), (7) and (8) run
   the tile steps to ``n_t`` (``n_t + 1`` for Free), but ``n_p`` moves use
   ``2 n_p = n_t + 1`` tile steps when gold is present.  Then the 55 tiles
   fill tile steps ``1..n_t`` one each, the hidden key (always the first tile
   of its pair, index -2) has no step left, and gold can never leave: the
   printed formula is unsatisfiable on every board with gold.  Variant
   ``thesis`` reads ``n_t`` in those four formulas as ``2 n_p`` (the tile
   steps the moves use); ``thesis-literal`` keeps the printed bounds.
2. **Formula (12)** ranges over "the set of all keys"; we include the hidden
   key, so gold (lock-0) still waits for lock-1 (our rules: gold leaves last among
   the metals).  Pairs that do not exist (quicksilver with gold, the hidden
   key with another lock) are skipped, as the thesis's note on (5)/(6) implies.
3. **Formula (1)** is printed for ``i = -1..n_c``; cells are ``0..n_c - 1``,
   so we stop at ``n_c - 1``.
4. ``Removable`` and ``Free`` are only bounded from above (an implication,
   not an equivalence), and ``Free`` of empty and padding cells is fixed only
   at step 0.  Both are sound as published: being free only helps.
5. Pairing follows the thesis's words (keys pair with any lock but lock-0;
   the hidden key only with lock-0), which equal our pair rules once (12)
   orders the locks.
"""

from __future__ import annotations

from pysat.formula import IDPool

from sigmar.encoders.cnf.formula import ClauseSink, Describe, Formula, by_kind
from sigmar.models.board import Board
from sigmar.models.facts import ring_ids
from sigmar.models.hexgrid import cell_count, cells
from sigmar.models.result import Move
from sigmar.models.tiles import QUICKSILVER, could_ever_pair

PADDING = -1
HIDDEN_KEY = -2


def build(board: Board, literal: bool = False) -> Formula:  # noqa: C901 - formulas (1)-(12) read in the thesis's order, one block each, so the code can be held against the paper line by line
    """Formulas (1)-(12); ``literal`` keeps the printed horizon (see the module docstring)."""
    # -- data
    cell_index = {cell: k for k, cell in enumerate(cells(board.dim))}
    n_c = cell_count(board.dim)
    symbol = {cell_index[t.cell]: t.symbol for t in board.tiles}
    T = sorted(symbol)  # cell indices of the tiles, in tile-id order
    T_hat = [HIDDEN_KEY, *T]
    n_t = len(T)
    n_p = (n_t + 1) // 2
    steps = n_t if literal else 2 * n_p  # tile steps (see docstring, difference 1)
    gold = board.gold
    locks = [k for k in sorted(T, key=lambda k: symbol[k], reverse=True) if symbol[k] == gold or symbol[k].isdigit()]
    # locks[0] is lock-0 (gold), locks[m-1] the lowest digit (lead)
    keys = [k for k in T if symbol[k] == QUICKSILVER] + [HIDDEN_KEY]

    def valid_pair(i: int, j: int) -> bool:
        if HIDDEN_KEY in (i, j):
            other = j if i == HIDDEN_KEY else i
            return gold is not None and symbol.get(other) == gold
        if gold in (symbol[i], symbol[j]):
            return False
        return could_ever_pair(symbol[i], symbol[j])

    J = {i: [j for j in T_hat if j > i and valid_pair(i, j)] for i in T_hat}

    rings = ring_ids(cells(board.dim))

    def neighbour(i: int, k: int) -> int:
        """N_i(k): the k-th neighbour (ring order) of cell i, -1 for the padding."""
        found = rings[i][k % 6]
        return PADDING if found is None else found

    # -- variables
    pool = IDPool()

    def free(i: int, t: int) -> int:
        return pool.id(("free", i, t))

    def removed(i: int, t: int) -> int:
        return pool.id(("removed", i, t))

    def pair(i: int, j: int, t: int) -> int:
        return pool.id(("pair", i, j, t))

    def removable(i: int, t: int) -> int:
        return pool.id(("removable", i, t))

    def seq(i: int, t: int, k: int) -> int:
        return pool.id(("seq", i, t, k))

    # -- constraints
    sink = ClauseSink()
    sink.group("(1) free at t0")
    for i in range(-1, n_c):
        sink.add([free(i, 0)] if i not in symbol else [-free(i, 0)])
    sink.group("(2) nothing removed at t0")
    for i in T_hat:
        sink.add([-removed(i, 0)])
    sink.group("(3) free only after removal")
    for i in T:
        for t in range(1, steps + 2):
            sink.add([-free(i, t), removed(i, t - 1), free(i, t - 1)])
    sink.group("(4) every tile free at the end")
    for i in T_hat:
        sink.add([free(i, steps + 1)])
    sink.group("(5) a pair removes its tiles")
    for i in T_hat:
        for j in J[i]:
            for t in range(1, n_p + 1):
                sink.add([-pair(i, j, t), removed(i, 2 * t - 1)])
                sink.add([-pair(i, j, t), removed(j, 2 * t)])
    sink.group("(6) a pair's tiles are removable")
    for i in T_hat:
        for j in J[i]:
            for t in range(1, n_p + 1):
                sink.add([-pair(i, j, t), removable(i, 2 * t - 1)])
                sink.add([-pair(i, j, t), removable(j, 2 * t - 1)])
    sink.group("(7) one removal per tile step")
    for t in range(1, steps + 1):
        for a, i in enumerate(T_hat):
            for j in T_hat[a + 1 :]:
                sink.add([-removed(i, t), -removed(j, t)])
    sink.group("(8) a tile is removed once")
    for i in T_hat:
        for t1 in range(1, steps):
            for t2 in range(t1 + 1, steps + 1):
                sink.add([-removed(i, t1), -removed(i, t2)])
    sink.group("(9) a pair every move")
    for t in range(1, n_p + 1):
        sink.add([pair(i, j, t) for i in T_hat for j in J[i]])
    sink.group("(10) Seq: three consecutive free neighbours")
    for i in T:
        for t in range(1, n_p + 1):
            for k in range(6):
                for d in range(3):
                    sink.add([-seq(i, 2 * t - 1, k), free(neighbour(i, k + d), 2 * t - 1)])
    sink.group("(11) removable needs a Seq")
    for i in T:
        for t in range(1, n_p + 1):
            sink.add([-removable(i, 2 * t - 1), *(seq(i, 2 * t - 1, k) for k in range(6))])
    sink.group("(12) lock order")
    for a in range(len(locks) - 1):
        lock, previous = locks[a], locks[a + 1]
        for j in keys:
            lo, hi = min(lock, j), max(lock, j)
            if hi not in J[lo]:
                continue  # that pair does not exist (difference 2)
            for t in range(1, n_p + 1):
                sink.add([-pair(lo, hi, t), free(previous, 2 * t - 1)])

    # -- decode
    tile_of = {cell_index[t.cell]: t for t in board.tiles}
    pair_vars = [(t, i, j, pair(i, j, t)) for i in T_hat for j in J[i] for t in range(1, n_p + 1)]

    def decoder(true: set[int]) -> list[Move]:
        moves: list[tuple[int, Move]] = []
        for t, i, j, var in pair_vars:
            if var in true:
                members = tuple(tile_of[k].cell for k in (i, j) if k != HIDDEN_KEY)
                moves.append((t, Move(members)))
        moves.sort(key=lambda item: item[0])
        return [move for _, move in moves]

    return Formula(
        board=board,
        variant="thesis-literal" if literal else "thesis",
        clauses=sink.clauses,
        pool=pool,
        decoder=decoder,
        horizon=n_p,
        groups=dict(sink.groups),
        describe=describer(board),
        projection=sorted(var for *_, var in pair_vars),
    )


def describer(board: Board) -> Describe:
    """Human names for the thesis's variables (cell indices as in its Figure 12)."""
    all_cells = cells(board.dim)

    def where(i: int) -> str:
        if i == PADDING:
            return "padding"
        if i == HIDDEN_KEY:
            return "hidden key"
        row, col = board.rowcol(all_cells[i])
        sym = board.symbol_at.get(all_cells[i], ".")
        return f"cell {i} '{sym}' [{row}, {col}]"

    def ring(k: int) -> str:
        return f"{k + 1}-{(k + 1) % 6 + 1}-{(k + 2) % 6 + 1}"

    return by_kind(
        {
            "free": lambda i, t: f"Free({where(i)}, tile step {t})",
            "removed": lambda i, t: f"Removed({where(i)}, tile step {t})",
            "pair": lambda i, j, t: f"Pair({where(i)}, {where(j)}, move {t})",
            "removable": lambda i, t: f"Removable({where(i)}, tile step {t})",
            "seq": lambda i, t, k: f"Seq({where(i)}, tile step {t}, neighbours {ring(k)})",
        }
    )
