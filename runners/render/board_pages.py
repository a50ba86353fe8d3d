"""Self-contained HTML pages around a board drawing: a replay of a solution, or why there is none.

Everything the page needs (the SVG, its styles, the script that steps through
the moves) is inline, so the file works offline and can be mailed as is.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from sigmar.models.board import Board
from sigmar.models.hexgrid import Hex
from sigmar.models.result import Move
from sigmar.models.rules import Position
from sigmar.models.tiles import METALS, STANDARD_METAL_NAMES, name_of
from sigmar.runners.render.svg import board_svg, fill_of, has_light_letter, letter_of

PAGE_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;color:#111;padding:0 1em}
h1{font-size:1.3em;margin:0 0 .3em}
.wrap{display:flex;gap:2em;align-items:flex-start;flex-wrap:wrap}
.board{max-width:92vw}.board svg{width:100%;height:auto}
.side{flex:1;min-width:260px}
ol#moves{max-height:60vh;overflow:auto;padding-left:2.6em;margin:.5em 0}
ol#moves li{cursor:pointer;padding:0 .3em}
ol#moves li.cur{background:#111;color:#fff;font-weight:bold}ol#moves li.cur::marker{color:#111}
ol#moves li.done{color:#888}
button{font-size:1.1em;min-width:2.6em;margin-right:.2em}
.legend span{display:inline-block;margin:.1em .5em .1em 0}
.legend b{display:inline-block;width:1.5em;text-align:center;border:1px solid #333;margin-right:.2em}
table{border-collapse:collapse;margin-top:.6em}td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left}
.note{color:#444}
"""

# The replay: step k shows the board before move k (its tiles marked "next"), step n the end.
REPLAY_SCRIPT = """
(function(){
var items=[].slice.call(document.querySelectorAll('#moves li'));
var tiles={};
[].forEach.call(document.querySelectorAll('.replay .board [data-cell]'),function(g){tiles[g.dataset.cell]=g;});
var endFree=document.getElementById('moves').dataset.endFree;
var n=items.length,k=0,status=document.getElementById('status');
function list(s){return s?s.split(' '):[];}
function show(step){
 k=Math.max(0,Math.min(n,step));
 var gone={};for(var i=0;i<k;i++)list(items[i].dataset.cells).forEach(function(c){gone[c]=1;});
 var next={};if(k<n)list(items[k].dataset.cells).forEach(function(c){next[c]=1;});
 var free={};list(k<n?items[k].dataset.free:endFree).forEach(function(c){free[c]=1;});
 for(var c in tiles){var t=tiles[c].classList;
  t.toggle('gone',!!gone[c]);t.toggle('next',!!next[c]);t.toggle('free',!!free[c]);}
 items.forEach(function(li,i){li.classList.toggle('cur',i===k);li.classList.toggle('done',i<k);});
 if(k<n)items[k].scrollIntoView({block:'nearest'});
 status.textContent=k<n?'move '+(k+1)+' of '+n+': '+items[k].dataset.say:'after move '+n+': '+endSay();
}
function endSay(){var left=Object.keys(tiles).length;for(var i=0;i<n;i++)left-=list(items[i].dataset.cells).length;
 var said=document.getElementById('moves').dataset.endSay;
 return (left?left+' tiles left':'the board is clear')+(said?': '+said:'');}
var go={first:function(){show(0);},prev:function(){show(k-1);},next:function(){show(k+1);},last:function(){show(n);}};
for(var id in go)document.getElementById(id).onclick=go[id];
items.forEach(function(li,i){li.onclick=function(){show(i);};});
document.addEventListener('keydown',function(e){
 if(e.key==='ArrowRight'||e.key==='ArrowDown'){show(k+1);e.preventDefault();}
 else if(e.key==='ArrowLeft'||e.key==='ArrowUp'){show(k-1);e.preventDefault();}
 else if(e.key==='Home'){show(0);}else if(e.key==='End'){show(n);}
});
var start=parseInt((location.hash||'#0').slice(1),10);show(isNaN(start)?0:start);
})();
"""

# One plain sentence per rule of docs/formats.md#stuck-sets that can hold a tile of a stuck set K.
RULE_SENTENCES = {
    "a": "walled in: each run of three neighbours around it holds a tile of the set",
    "b": "a metal that must wait for a lower metal, which is in the set",
    "c": "a metal whose every run of three neighbours holds a tile of the set, "
    "or more quicksilver than the lower metals can take away",
    "d": "quicksilver whose only partner, the lowest metal, is in the set and can never be freed",
    "e": "every tile it could pair with is in the set and is itself held by (a) to (d)",
    "": "not held by any rule (a checker would reject this set)",
}


def tile_name(board: Board, symbol: str) -> str:
    """The kind's name; on a board with the six standard metals, lead to gold by name too."""
    if symbol in METALS and board.metals == tuple("123456"):
        return f"{STANDARD_METAL_NAMES[symbol]} ({symbol})"
    return name_of(symbol)


def _named_cell(board: Board, cell: Hex) -> str:
    row, col = board.rowcol(cell)
    return f"{tile_name(board, board.symbol_at[cell])} [{row}, {col}]"


def _cell_text(board: Board, cells: Sequence[Hex]) -> str:
    return " ".join("{},{}".format(*board.rowcol(c)) for c in cells)


def board_box(board: Board, svg: str) -> str:
    """The drawing at a width that suits its side: a side-2 board is not blown up to fill the page."""
    width = min(620, 120 + 90 * board.dim)
    return f'<div class="board" style="width:{width}px">{svg}</div>'


def page(title: str, body: str, script: str = "") -> str:
    tail = f"<script>{script}</script>" if script else ""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{PAGE_STYLE}</style></head>"
        f"<body>{body}{tail}</body></html>\n"
    )


def legend(board: Board) -> str:
    """Each kind on the board: its letter on its colour, and its name."""
    seen = sorted(set(board.symbol_at.values()), key=lambda s: (s in METALS, s))
    spans = []
    for symbol in seen:
        colour = "#fff" if has_light_letter(symbol, board.gold) else "#111"
        spans.append(
            f'<span><b style="background:{fill_of(symbol, board.gold)};color:{colour}">{letter_of(symbol)}</b>'
            f"{escape(tile_name(board, symbol))}</span>"
        )
    return f'<p class="legend">{"".join(spans)}</p>'


def heading(board: Board, what: str) -> str:
    plural = "" if len(board) == 1 else "s"
    return f"<h1>{escape(board.name)}</h1><p>{len(board)} tile{plural}, side {board.dim}. {what}</p>"


def replay_block(board: Board, moves: Sequence[Move], end: str = "") -> str:
    """The drawing that steps through ``moves`` (already checked legal) with buttons and arrow keys, and the list
    of moves beside it (:data:`REPLAY_SCRIPT` drives it; one a page).  ``end`` is said after the last move."""
    position = Position.start(board)
    items = []
    for number, move in enumerate(moves, start=1):
        tiles = " + ".join(
            f"{tile_name(board, board.symbol_at[c])} [{r}, {k}]" for c in move.cells for r, k in [board.rowcol(c)]
        )
        items.append(
            f'<li data-move="{number}" data-cells="{_cell_text(board, move.cells)}" '
            f'data-free="{_cell_text(board, position.free_cells())}" data-say="{escape(tiles)}">{escape(tiles)}</li>'
        )
        position = position.play(move)
    end_free = _cell_text(board, position.free_cells())
    svg = board_svg(board, keep_gone=True)
    controls = (
        '<p><button id="first" title="first (Home)">|&#x25C0;</button><button id="prev" title="back (&#x2190;)">'
        '&#x25C0;</button><button id="next" title="forward (&#x2192;)">&#x25B6;</button>'
        '<button id="last" title="end (End)">&#x25B6;|</button></p><p id="status" aria-live="polite"></p>'
    )
    key = (
        '<p class="note">Dashed outline: the tiles of the next move. Thick outline: the free tiles. '
        "Arrow keys step through the moves; click a move to jump to it.</p>"
    )
    said = f' data-end-say="{escape(end)}"' if end else ""
    return (
        f'<div class="wrap replay">{board_box(board, svg)}<div class="side">{controls}{key}'
        f'<ol id="moves" data-end-free="{end_free}"{said}>{"".join(items)}</ol></div></div>'
    )


def replay_page(board: Board, moves: Sequence[Move], note: str = "") -> str:
    """A page that steps through ``moves`` (already checked legal) with buttons and arrow keys."""
    body = heading(board, f"{len(moves)} moves. {escape(note)}") + replay_block(board, moves) + legend(board)
    return page(f"{board.name}: replay", body, REPLAY_SCRIPT)


def stuck_page(board: Board, held: dict[Hex, str], explanation: str) -> str:
    """A page marking the stuck set K and saying, tile by tile, which rule of docs/formats.md#stuck-sets holds it."""
    body = heading(board, escape(explanation)) + stuck_section(board, held) + legend(board)
    return page(f"{board.name}: stuck set", body)


def stuck_section(board: Board, held: dict[Hex, str]) -> str:
    """The drawing of the stuck set K, outlined, and a table of the rule that holds each of its tiles."""
    rows = []
    for cell in sorted(held, key=board.index_of.__getitem__):
        row, col = board.rowcol(cell)
        rule = held[cell]
        sentence = RULE_SENTENCES.get(rule, RULE_SENTENCES[""])
        label = f"({rule})" if rule else "none"
        rows.append(
            f"<tr><td>[{row}, {col}]</td><td>{escape(tile_name(board, board.symbol_at[cell]))}</td>"
            f"<td>{label}</td><td>{escape(sentence)}</td></tr>"
        )
    svg = board_svg(board, held=held, dim_others=True)
    faded = " (outlined; the other tiles faded)" if len(held) < len(board) else " (outlined)"
    why = (
        f"<p>Unsolvable: no tile of these {len(held)}{faded} can ever be the first of them to leave, "
        "so they never leave at all. Each is held by a rule of the stuck-set certificate:</p><table>"
        "<tr><th>cell</th><th>tile</th><th>rule</th><th>why it is held</th></tr>" + "".join(rows) + "</table>"
    )
    return board_box(board, svg) + why


def verdict_page(board: Board, verdict: str, detail: str = "") -> str:
    """A page for an answer with nothing to replay or mark: the board, and a sentence or two."""
    more = f'<p class="note">{escape(detail)}</p>' if detail else ""
    body = heading(board, "") + f"{board_box(board, board_svg(board))}<p>{escape(verdict)}</p>{more}"
    return page(f"{board.name}: {verdict[:40]}", body + legend(board))
