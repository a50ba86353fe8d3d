"""The plain columns that ``sigmar solve`` prints (runners/render/columns.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sigmar.runners.render.columns import MAX_WIDTH, columns

cell = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=60)


def cut(value: str) -> str:
    return value if len(value) <= MAX_WIDTH else value[: MAX_WIDTH - 1] + "…"


@given(st.lists(st.tuples(cell, cell, cell), max_size=6))
def test_every_column_starts_at_the_same_place_on_every_line(rows: list[tuple[str, str, str]]) -> None:
    header = ("board", "status", "detail")
    lines = columns(header, rows).split("\n")
    assert len(lines) == len(rows) + 1
    widths = [max(len(cut(r[i])) for r in [header, *rows]) for i in range(2)]
    starts = [0, widths[0] + 2, widths[0] + 2 + widths[1] + 2]
    for line, row in zip(lines, [header, *rows], strict=True):
        assert line == line.rstrip()
        assert line[starts[0] : starts[0] + widths[0]].rstrip() == cut(row[0]).rstrip()
        assert line[starts[1] : starts[1] + widths[1]].rstrip() == cut(row[1]).rstrip()
        assert line[starts[2] :] == row[2].rstrip()  # the last column is never cut


def test_a_long_board_name_is_cut_and_the_detail_is_not() -> None:
    name = "salt must take the earth, and whichever pair leaves first [unsolvable: search]"
    detail = "exhausted: a complete search of 4 states found no way to clear the board " * 3
    head, line = columns(("board", "status", "detail"), [(name, "unsolvable", detail)]).split("\n")
    assert line.startswith(name[: MAX_WIDTH - 1] + "…  unsolvable  ")
    assert line.endswith(detail.rstrip())
    assert head.index("status") == line.index("unsolvable")


@given(st.text(alphabet="ab -\t\n\u00e9\u200b", max_size=40), st.integers(min_value=1, max_value=50))
def test_a_cell_is_wrapped_as_textwrap_wraps_it(text: str, width: int) -> None:
    """The table skips textwrap (an import a one-board solve would pay for) only where the result is the same."""
    import textwrap

    from sigmar.runners.render.columns import _wrap

    assert _wrap(text, width) == textwrap.wrap(text, width, break_on_hyphens=False)
