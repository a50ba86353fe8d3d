"""The independent reading of a play-bound file (docs/formats.md#play-bound-files): no play clears more than C tiles.

``sigmar explain`` says how far the best play on an unsolvable board gets
(its *deepest play*) and, when it can, that no play gets further.  That "no"
is a certificate like the others, checked here with the certificate checker's
own reading of the rules (:mod:`.stuck_check`'s masks and stuck-set rules,
:mod:`.closure`), never with the search that wrote it.

The file is a dead-states file with another header and one more kind of line:
a state may name the tiles that *stay* (a stuck set K of it, possibly empty),
and is then a leaf: no tile of K ever leaves, and the other tiles can leave
only in moves among themselves, so their counts bound how many of them can go
(:func:`leftover`).  Every other listed state is closed under every legal move
(no exemption for states whose counts cannot pair up: play goes on there, and
may clear more).  A dead-states file is the case C = tiles - 1.
"""

from __future__ import annotations

from pathlib import Path

from sigmar.models.board import Board
from sigmar.models.tiles import ELEMENTS, MORS, QUINTESSENCE, SALT, VITAE
from sigmar.runners.checking.closure import Closure
from sigmar.runners.checking.dead_states_check import line_of, read_dead_states
from sigmar.runners.checking.stuck_check import Masks, stuck_verdict
from sigmar.runners.checking.verdict import CertificateError, Verdict

PLAY_BOUND_FORMAT = "sigmar-play-bound"
PLAY_BOUND_VERSION = 1  # the same version field and reader as a dead-states file


def leftover(m: Masks, tiles: int) -> int:
    """How many of ``tiles`` must stay, at least, when moves may take only tiles of ``tiles``.

    Three groups never share a move: vitae with mors (one each a move), quicksilver with the
    metals but gold (one each a move; gold leaves alone), and elements with salt (two a move).
    In the last, every element of odd count keeps a tile or takes a salt, and what stays has
    the parity of the group; with quintessence among ``tiles`` (it takes one of each element)
    that group is not counted.
    """
    get = m.of_symbol.get

    def count(mask: int) -> int:
        return (tiles & mask).bit_count()

    gold_bit = 1 << m.gold if m.gold >= 0 else 0
    stays = abs(count(get(VITAE, 0)) - count(get(MORS, 0)))
    stays += abs(count(m.quicksilver) - count(m.metals & ~gold_bit))
    if not count(get(QUINTESSENCE, 0)):
        odd = sum(count(get(e, 0)) % 2 for e in ELEMENTS)
        salt = count(get(SALT, 0))
        stays += odd - salt if odd > salt else (salt - odd) % 2
    return stays


def read_bound(header: dict, size: int, where: str) -> int:
    """The header's ``cleared``: a whole number below the number of tiles.

    A bound of every tile is true of every board and claims nothing (it would "prove" a
    solvable board's deepest play), so it is refused as malformed.
    """
    cleared = header.get("cleared")
    if type(cleared) is not int or not 0 <= cleared < size:
        raise CertificateError(
            f'{where}: line 1: "cleared" must be a whole number from 0 to {size - 1}, below the {size} tiles '
            "(a bound of every tile claims nothing)"
        )
    return cleared


def check_play_bound(board: Board, path: str | Path, bound: int | None = None) -> Verdict:
    """A play-bound file: no line of play from the whole board clears more than its ``cleared`` tiles.

    ``bound``: the bound the caller holds the file to (a deepest play's tiles, for explain's JSON);
    a file of another bound is invalid.
    """
    import numpy as np

    found = read_dead_states(board, path, PLAY_BOUND_FORMAT, "stays")
    m = Masks(board, found.order)
    cleared = read_bound(found.header, m.size, str(path))
    if bound is not None and cleared != bound:
        return Verdict(False, f'line 1: its bound is {cleared} tiles ("cleared"), not the {bound} of the deepest play')
    least = m.size - cleared  # tiles every reachable state keeps
    full = (1 << m.size) - 1
    if found.state(0) != full:
        return Verdict(False, f"line {line_of(0)}: the first state is not the whole board")
    sizes = np.zeros(len(found.words), dtype=np.int64)
    for w in range(found.words.shape[1]):
        sizes += np.bitwise_count(found.words[:, w]).astype(np.int64)
    small = np.nonzero(sizes < least)[0]
    if len(small):
        row = int(small[0])
        gone = m.size - int(sizes[row])
        state = found.state(row)
        return Verdict(False, f"line {line_of(row)}: state {state:x} has {gone} tiles cleared, more than {cleared}")
    for row, stays in sorted(found.stuck.items()):
        state = found.state(row)
        if stays:
            verdict = stuck_verdict(m, state, stays)
            if not verdict.valid:
                why = f"the tiles that stay are not a stuck set: {verdict.reason}"
                return Verdict(False, f"line {line_of(row)}: state {state:x}: {why}")
        kept = stays.bit_count() + leftover(m, state & ~stays)
        if kept < least:
            return Verdict(
                False,
                f"line {line_of(row)}: state {state:x}: {stays.bit_count()} tiles stay and the counts of the rest keep "
                f"{kept - stays.bit_count()} more, {kept} in all: fewer than the {least} that {cleared} cleared leaves",
            )
    expanded = np.ones(len(found.words), dtype=bool)
    expanded[list(found.stuck)] = False
    failure = Closure(m, found.words, counts_end_play=False).first_open(found.words, np.nonzero(expanded)[0])
    if failure is not None:
        row, move, child = failure
        tiles = " and ".join(m.where(t) for t in move)
        return Verdict(
            False,
            f"line {line_of(row)}: state {found.state(row):x}: removing {tiles} leads to state {child:x}, "
            "which is not listed",
        )
    states, leaves = len(found.words), len(found.stuck)
    listed = f"{states:,} state{'s' if states != 1 else ''}, {leaves:,} of {'them' if states != 1 else 'it'} a leaf"
    return Verdict(True, f"no line of play clears more than {cleared} of the {m.size} tiles ({listed})")
