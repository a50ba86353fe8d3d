"""The puzzle itself: hex geometry, tiles, boards, board files and the rule engine.

Glossary
--------
cell
    A place on the hexagonal board, named inside the engine by axial
    coordinates ``(q, r)``; ``[row, col]`` is used only in files and JSON.
tile
    What a cell may hold: an element (``a e f w``), salt ``s``, vitae ``v``,
    mors ``m``, quicksilver ``q`` or a metal digit ``1``-``9``.
free
    A tile with at least three consecutive empty neighbours, walking the six
    neighbours in ring order; off-board neighbours count as empty.
move
    Two free tiles that pair, removed together, or gold removed alone.
pair
    Element with the same element; salt with salt or any element; vitae with
    mors; quicksilver with the current metal.
current metal
    The lowest metal digit still on the board; metals leave in ascending order.
gold
    The highest metal digit of the starting board: it pairs with nothing and
    leaves alone once it is the only metal left.
"""
