"""The page ``show --html`` writes for an unsolvable board: its checked certificate, its deepest play, its repair.

Whatever refuted the board (the counts, a stuck set, dead states, a DRUP
proof), the page says in words how far play gets and what one change fixes
it, as ``sigmar explain`` does (:mod:`.explain`): the deepest play replayed
move by move on the drawing, ending with why the tiles it leaves are stuck,
and the repaired board with the changed tiles outlined.
"""

from __future__ import annotations

from html import escape

from sigmar.models.board import Board
from sigmar.models.result import Result
from sigmar.runners.design.explain import Deepest, Explanation
from sigmar.runners.design.repair import Repair
from sigmar.runners.render.board_pages import REPLAY_SCRIPT, board_box, heading, legend, page, replay_block
from sigmar.runners.render.proof_page import certificate_section
from sigmar.runners.render.svg import board_svg


def explained_page(board: Board, result: Result, explanation: Explanation) -> str:
    """The page of an unsolvable board (``result`` its checked answer) with its explanation (module docstring)."""
    parts = [heading(board, escape(result.explanation)), "<h2>Why it cannot be cleared</h2>"]
    replays = explanation.deepest is not None and bool(explanation.deepest.moves)
    parts.append(certificate_section(board, result, drawing=not replays))
    script = ""
    if explanation.deepest is not None:
        parts.append(deepest_section(board, explanation.deepest))
        script = REPLAY_SCRIPT if explanation.deepest.moves else ""
    if explanation.repair is not None:
        parts.append(repair_section(board, explanation.repair))
    parts.append(legend(board))
    return page(f"{board.name}: unsolvable", "".join(parts), script)


def deepest_sentence(board: Board, found: Deepest) -> str:
    """How far the best play gets, and whether that is proved, in one sentence."""
    moves = len(found.moves)
    text = f"The most tiles any play clears: {found.cleared} of {len(board.tiles)}, in {moves} move"
    text += "" if moves == 1 else "s"
    if found.proved:
        return text + f"; no play clears more (play-bound certificate checked, {found.play.states:,} states)."
    if found.wrong:
        return text + f"; its play-bound certificate was REJECTED: {found.check_message}."
    return text + f" at least (no bound proved within the time limit, {found.play.states:,} states walked)."


def deepest_section(board: Board, found: Deepest) -> str:
    """The deepest play as a replay on the board, ending with why the tiles it leaves are stuck."""
    head = f"<h2>The deepest play</h2><p>{escape(deepest_sentence(board, found))}</p>"
    left = f"it leaves {found.left.bit_count()} tiles: {found.why_stuck}"
    if not found.moves:
        return head + f"<p>No move is legal at the start: {escape(found.why_stuck)}.</p>"
    return head + replay_block(board, found.moves, end=left)


def repair_sentence(board: Board, repair: Repair) -> str:
    if repair.board is None or repair.solution is None:
        word = "none with one change" if repair.none_with_one else "not found"
        return f"Smallest repair: {word}: {repair.why}."
    changes = "; ".join(change.describe(board) for change in repair.changes)
    moves = len(repair.solution.moves)
    solved = "replayed by the rule engine" if repair.solution.verified else "NOT replayed"
    return f"Smallest repair: {changes}. The changed board is cleared in {moves} moves ({solved})."


def repair_section(board: Board, repair: Repair) -> str:
    """The smallest repair in words and, when there is one, the changed board with the changed tiles outlined."""
    head = f"<h2>The smallest repair</h2><p>{escape(repair_sentence(board, repair))}</p>"
    if repair.board is None:
        return head
    changed = {cell for change in repair.changes for cell in change.cells if cell in repair.board.symbol_at}
    svg = board_svg(repair.board, highlight=changed)
    return (
        head
        + '<p class="note">The changed board; dashed outline: the changed tiles.</p>'
        + board_box(repair.board, svg)
    )
