"""The benchmark scripts' one markdown table writer (scripts/bench/benchlib.py): ``markdown_table``, and
``table_header`` and ``table_row`` for a script that prints its rows as it measures them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def benchlib(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(ROOT / "scripts" / "bench"))  # as `python scripts/bench/X.py` finds it
    import benchlib

    return benchlib


def test_a_table_is_its_header_its_rule_and_a_line_a_row(benchlib) -> None:  # type: ignore[no-untyped-def]
    table = benchlib.markdown_table(["set", "boards", "ms"], [["easy", 3, 1.5], ["hard", 10, "-"]], align="lrr")
    assert table.splitlines() == [
        "| set | boards | ms |",
        "| --- | ---: | ---: |",
        "| easy | 3 | 1.5 |",
        "| hard | 10 | - |",
    ]
    assert benchlib.markdown_table(["a", "b"], []) == "| a | b |\n| --- | --- |"  # unaligned by default


cells = st.text(st.characters(blacklist_characters="|\n\r", blacklist_categories=("Cs",)), max_size=8)


@given(st.lists(cells, min_size=1, max_size=6), st.data())
def test_printed_row_by_row_a_table_is_the_same_table(header: list[str], data: st.DataObject) -> None:
    import sys

    sys.path.insert(0, str(ROOT / "scripts" / "bench"))
    try:
        import benchlib
    finally:
        sys.path.remove(str(ROOT / "scripts" / "bench"))
    rows = data.draw(st.lists(st.lists(cells, min_size=len(header), max_size=len(header)), max_size=5))
    align = data.draw(st.text(st.sampled_from("lr"), max_size=len(header)))
    whole = benchlib.markdown_table(header, rows, align)
    assert whole == "\n".join([benchlib.table_header(header, align), *map(benchlib.table_row, rows)])
    lines = whole.split("\n")
    assert len(lines) == 2 + len(rows)
    rule = lines[1].strip("|").split("|")
    assert [r.strip() for r in rule] == ["---:" if a == "r" else "---" for a in align.ljust(len(header), "l")]
    for line, row in zip(lines[2:], rows, strict=True):
        assert line[2:-2].split(" | ") == [str(c) for c in row]


def test_a_script_writes_only_its_own_section_of_a_record(benchlib) -> None:  # type: ignore[no-untyped-def]
    """``with_section``: scripts/bench/cluster_cost.py's run replaces its earlier section of docs/measured/cluster.md,
    between its marks, and keeps the records written there by hand (the lead's quiet runs) as they are."""
    script, title = "scripts/bench/cluster_cost.py", "# What a loopback cluster costs (issue 48)"
    begin, end = benchlib.section_marks(script)
    record = (ROOT / "docs" / "measured" / "cluster.md").read_text()
    first = benchlib.with_section(record, "## The last run\n\none", script, title)
    assert f"{begin}\n\n## The last run\n\none\n\n{end}\n" in first
    outside = first.split(begin)[0] + first.split(end, 1)[1]
    kept = record.split(begin)[0] + record.split(end, 1)[1] if begin in record else record
    assert outside.split() == kept.split()  # word for word, whatever blank lines the section took
    again = benchlib.with_section(first, "## The last run\n\ntwo", script, title)
    assert again == first.replace("\n\none\n\n", "\n\ntwo\n\n") and "one" not in again.split(begin)[1].split(end)[0]
    assert benchlib.with_section(None, "S", script, title) == f"{title}\n\n{begin}\n\nS\n\n{end}\n"
    assert benchlib.with_section("no title\n", "S", script, title) == f"{begin}\n\nS\n\n{end}\n\nno title\n"
    other = benchlib.with_section(first, "theirs", "scripts/bench/difficulty.py", "# x")  # another script's marks
    assert f"{begin}\n\n## The last run\n\none\n\n{end}\n" in other and "theirs" in other
