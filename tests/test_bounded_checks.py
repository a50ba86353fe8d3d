"""Checks whose memory and time stay bounded by what a valid input can be (issue 47, S12 and the bounded checks):
an answers file streamed, a state listed twice refused where it appears, binary DRAT converted a chunk at a time."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.encoders.search.deepest import deepest_play, play_bound_text
from sigmar.models.boardfile import format_board, parse_boards
from sigmar.models.deal import deal
from sigmar.models.drat_binary import DratError, convert, to_text
from sigmar.runners.checking.dead_states_check import check_dead_states
from sigmar.runners.checking.play_bound_check import check_play_bound
from sigmar.runners.checking.verdict import CertificateError
from tests.test_sat_cmd_proofs import binary

MiB = 1 << 20


def peak_kib(code: str) -> int:
    """The peak resident memory (KiB) of a fresh interpreter that runs ``code``."""
    # VmHWM, this process's own peak: getrusage's ru_maxrss keeps the parent's peak across fork and exec
    probe = f"{code}\nprint(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[-1])


def test_an_answers_file_is_streamed_within_twice_its_size(tmp_path: Path) -> None:
    """16 MiB of short answers (150,000 lines): on main every line was held as a dict first (13 times the file)."""
    boards = [deal("dense", 6, 5, i) for i in range(20)]
    board_file = tmp_path / "boards.txt"
    board_file.write_text("\n".join(format_board(b) for b in boards))
    lines = "".join(
        json.dumps({"board": b.name, "status": "unknown", "backend": "search", "message": "no answer in 60 s"}) + "\n"
        for b in boards
    )
    answers = tmp_path / "answers.jsonl"
    answers.write_text(lines * (16 * MiB // len(lines)))
    size = answers.stat().st_size
    baseline = peak_kib("import sigmar.runners.cli.check")
    code = (
        "import sys\nfrom sigmar.runners.cli import main\n"
        f"assert main(['check', {str(board_file)!r}, {str(answers)!r}, '--quiet']) == 1\n"
    )
    grown = (peak_kib(code) - baseline) * 1024
    assert grown < 2 * size, f"check of a {size:,}-byte answers file grew by {grown:,} bytes"


@pytest.fixture(scope="module")
def bound() -> tuple[str, str]:
    """The board and explain's play-bound file of dense deal 0 of seed 1 (its whole board a leaf)."""
    board = deal("dense", 6, 1, 0)
    return format_board(board), play_bound_text(board, deepest_play(board, 60))


def test_a_play_bound_line_written_again_and_again_is_refused_at_once(tmp_path: Path, bound: tuple[str, str]) -> None:
    """The hunt's file: one state line repeated (2,000,000 times there, accepted after 175 s on main)."""
    board = parse_boards(bound[0])[0]
    header, first, *_ = bound[1].splitlines()
    path = tmp_path / "repeated.bound.jsonl"
    path.write_text(header + "\n" + (first + "\n") * 50_000)
    with pytest.raises(CertificateError, match="line 3: the state of line 2 again"):
        check_play_bound(board, path)


def test_a_dead_states_file_that_lists_a_state_again_far_below_is_refused(tmp_path: Path) -> None:
    """A twin in another block of the file than its first (the whole-file pass finds it), and one in the same
    block as its first; the file is refused as it is read, before any state is checked."""
    board = deal("dense", 6, 1, 0)
    tiles = [list(board.rowcol(t.cell)) for t in board.tiles]
    header = json.dumps({"format": "sigmar-dead-states", "version": 1, "board": board.name, "tiles": tiles})
    states = [json.dumps({"state": format((1 << len(tiles)) - 1 - i, "x")}) for i in range(30_000)]  # distinct
    path = tmp_path / "board.dead.jsonl"
    path.write_text("\n".join([header, *states, states[1]]) + "\n")
    with pytest.raises(CertificateError, match=f"line {len(states) + 2}: the state of line 3 again"):
        check_dead_states(board, path)
    path.write_text("\n".join([header, *states[:5], states[3], *states[5:]]) + "\n")
    with pytest.raises(CertificateError, match="line 7: the state of line 5 again"):
        check_dead_states(board, path)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.lists(st.integers(1, 10**6) | st.integers(-(10**6), -1), max_size=8))),
    st.integers(1, 64),
)
def test_binary_drat_converts_the_same_a_chunk_at_a_time(steps: list[tuple[bool, list[int]]], chunk: int) -> None:
    data = binary(steps)
    out = io.BytesIO()
    assert convert(io.BytesIO(data), out, chunk) == len(steps)
    assert out.getvalue() == to_text(data)


def test_binary_drat_is_converted_in_bounded_memory(tmp_path: Path) -> None:
    """40 MB of binary DRAT: on main read whole, split and joined (at least 18 times its size); now a chunk
    at a time (some 10 MB, whatever the size)."""
    step = binary([(False, list(range(1, 40)))] + [(True, list(range(-60, -30)))])
    source = tmp_path / "proof.drat"
    source.write_bytes(step * (40 * MiB // len(step)))
    baseline = peak_kib("import numpy, sigmar.models.drat_binary")
    code = (
        "from sigmar.models.drat_binary import convert\n"
        f"with open({str(source)!r}, 'rb') as a, open({str(tmp_path / 'proof.drup')!r}, 'wb') as b:\n"
        "    convert(a, b)\n"
    )
    grown = (peak_kib(code) - baseline) * 1024
    assert grown < 32 * MiB, f"converting {source.stat().st_size:,} bytes grew memory by {grown:,}"
    with pytest.raises(DratError, match="longer than"):
        convert(io.BytesIO(b"a" + b"\x85" * 10_000_001), io.BytesIO())
