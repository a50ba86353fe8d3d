"""Chuffed's runs flattened by the native MiniZinc (``encoders/minizinc/flatten.py``) with Chuffed's own
library taken out of the npm package (``encoders/minizinc/wasm_library.py``).

The pure parts (the LZ4 blocks, the split of the package's arguments, the FlatZinc run's output made
the JSON a model's run prints) are tested everywhere; the runs themselves where the WebAssembly
MiniZinc is installed (each skip says why).
"""

from __future__ import annotations

import json
import math
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.encoders.minizinc.flatten import parse_dzn, split, translate
from sigmar.encoders.minizinc.wasm_library import lz4_block, package_files


def lz4_compress(data: bytes) -> bytes:
    """A plain greedy LZ4 block compressor (the test's reference; matches of 4 bytes or more, overlaps too)."""
    out = bytearray()
    i, anchor = 0, 0
    last: dict[bytes, int] = {}

    def lengths(n: int) -> bytes:
        tail = bytearray()
        n -= 15
        while n >= 255:
            tail.append(255)
            n -= 255
        tail.append(n)
        return bytes(tail)

    def emit(literals: bytes, offset: int = 0, length: int = 0) -> None:
        token = (min(len(literals), 15) << 4) | (min(length - 4, 15) if offset else 0)
        out.append(token)
        out.extend(lengths(len(literals)) if len(literals) >= 15 else b"")
        out.extend(literals)
        if offset:
            out.extend(offset.to_bytes(2, "little"))
            out.extend(lengths(length - 4) if length - 4 >= 15 else b"")

    while i + 4 <= len(data) - 5:  # LZ4 leaves the last five bytes as literals
        key = data[i : i + 4]
        at = last.get(key)
        last[key] = i
        if at is not None and i - at <= 65535:
            length = 4
            while i + length < len(data) - 5 and data[at + length] == data[i + length]:
                length += 1
            emit(data[anchor:i], i - at, length)
            i += length
            anchor = i
        else:
            i += 1
    emit(data[anchor:])
    return bytes(out)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"b", b"ab", b"abc", bytes(range(7)), b"\xff" * 40]), max_size=80))
def test_lz4_blocks_decompress_to_what_was_compressed(parts: list[bytes]) -> None:
    data = b"".join(parts)
    assert lz4_block(lz4_compress(data)) == data


def test_an_lz4_match_may_overlap_what_it_writes() -> None:
    # literals "ab", then a match at offset 2 of length 4 + 6 = 10, then the literals "!" at the end
    block = bytes([0x26]) + b"ab" + (2).to_bytes(2, "little") + bytes([0x10]) + b"!"
    assert lz4_block(block) == b"ab" + b"ababababab" + b"!"


def test_a_match_before_the_start_is_refused() -> None:
    with pytest.raises(ValueError):
        lz4_block(bytes([0x10]) + b"a" + (5).to_bytes(2, "little") + bytes([0x00]))


def test_a_package_without_its_block_table_gives_no_library(tmp_path) -> None:
    (tmp_path / "minizinc-worker.js").write_text("var x = 1;")
    (tmp_path / "minizinc.data").write_bytes(b"")
    with pytest.raises(ValueError):
        package_files(tmp_path, "/usr/share/minizinc/chuffed_internal/")


def test_the_package_arguments_split_into_the_compilers_and_the_solvers() -> None:
    args = [
        "--allow-multiple-assignments",
        "--output-mode",
        "json",
        "--output-time",
        "--output-objective",
        "--statistics",
        "--output-output-item",
        "--intermediate-solutions",
        "--time-limit",
        "18449",
        "/models/sigmar_order.mzn",
        "/tmp/mzn_fragment.mzn",
        "--json-stream",
    ]
    compiler, solver, limit = split(args)
    assert compiler == ["--allow-multiple-assignments", "/models/sigmar_order.mzn", "/tmp/mzn_fragment.mzn"]
    assert solver == ["--output-time", "--statistics", "--intermediate-solutions", "--json-stream"]
    assert limit == pytest.approx(18.449)


def test_dzn_solutions_read_as_minizincs_json() -> None:
    text = (
        "leave = array1d(1..3,[1, 2, 2]);\nmate = array1d(1..3,[1, 3, 2]);\n"
        "takes = array2d(1..0,1..4,[]);\ngrid = array2d(1..2,1..3,[1, -2, 3, 4, 5, 6]);\n"
        "done = true;\nx = -7;\n"
    )
    assert parse_dzn(text) == {
        "leave": [1, 2, 2],
        "mate": [1, 3, 2],
        "takes": [],
        "grid": [[1, -2, 3], [4, 5, 6]],
        "done": True,
        "x": -7,
    }


@pytest.mark.parametrize(
    "text", ["x = 1.5;", "s = {1, 2};", "a = array1d(1..3,[1, 2]);", "not an assignment;", "e = Red;"]
)
def test_what_is_not_read_is_refused_rather_than_guessed(text: str) -> None:
    with pytest.raises(ValueError):
        parse_dzn(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=3), st.data())
def test_arrays_of_any_shape_read_back_as_nested_lists(sizes: list[int], data: st.DataObject) -> None:
    flat = data.draw(st.lists(st.integers(-99, 99), min_size=math.prod(sizes), max_size=math.prod(sizes)))
    ranges = ",".join(f"1..{n}" for n in sizes)
    value = parse_dzn(f"v = array{len(sizes)}d({ranges},[{', '.join(map(str, flat))}]);")["v"]

    def flatten(x: object, depth: int) -> list[int]:
        assert isinstance(x, list)
        return [y for item in x for y in flatten(item, depth - 1)] if depth > 1 else list(x)

    assert flatten(value, len(sizes)) == flat
    if len(sizes) > 1 and sizes[0] > 0:
        assert len(value) == sizes[0]


def test_a_flatzinc_runs_output_reads_as_a_models_run() -> None:
    solution = {"type": "solution", "output": {"dzn": "x = array1d(1..2,[3, 4]);\n"}, "sections": ["dzn"], "time": 12}
    stdout = "\n".join(
        [
            json.dumps({"type": "statistics", "statistics": {"flatTime": 0.5}}),
            json.dumps(solution),
            "% Top level failure!",
            "=====UNSATISFIABLE=====",
        ]
    )
    lines = [json.loads(line) for line in translate(stdout).splitlines()]
    assert lines[0] == {"type": "statistics", "statistics": {"flatTime": 0.5}}
    assert lines[1] == {"type": "solution", "output": {"json": {"x": [3, 4]}}, "sections": ["dzn"], "time": 12}
    assert lines[2] == {"type": "comment", "comment": "% Top level failure!"}
    assert lines[3] == {"type": "status", "status": "UNSATISFIABLE"}


# ---- the runs (the WebAssembly MiniZinc and the native one)


def _needs_both() -> None:
    if shutil.which("minizinc") is None or shutil.which("fzn-gecode") is None:
        pytest.skip("the minizinc executable or fzn-gecode is not on PATH")
    pytest.importorskip("minizinc", reason="the minizinc Python package is not installed")
    from sigmar.encoders.minizinc.solvers import from_wasm

    if "chuffed" not in from_wasm():
        pytest.skip("Chuffed does not come from the WebAssembly MiniZinc here (run install.sh; needs node)")


def test_chuffeds_library_comes_out_of_the_package_whole(tmp_path, monkeypatch) -> None:
    _needs_both()
    from sigmar.encoders.minizinc import wasm_library

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    wasm_library.chuffed_library.cache_clear()
    try:
        config = wasm_library.chuffed_library()
    finally:
        wasm_library.chuffed_library.cache_clear()
    assert config is not None and config.is_relative_to(tmp_path)
    library = config.parent / "mznlib"
    assert (library / "fzn_inverse.mzn").read_text().lstrip().startswith(("include", "predicate", "%"))
    assert wasm_library.PATCH in (library / "redefinitions.mzn").read_text()
    # the files are those the package's MiniZinc reads: its solver configuration names the same library
    config_files = package_files(wasm_library.WASM_DIST, "/usr/share/minizinc/solvers/")
    chuffed = config_files["chuffed_internal.msc"].decode()  # not strict JSON (a trailing comma)
    assert '"mznlib": "../chuffed_internal"' in chuffed and '"id": "org.minizinc.chuffed"' in chuffed


def test_chuffed_runs_flattened_natively_and_answers_as_before(monkeypatch) -> None:
    """Each board of instances/small.txt gets its answer through the native compiler (its statistics say
    so), and the same answer with the WebAssembly MiniZinc flattening (no library: the way before)."""
    _needs_both()
    from pathlib import Path

    from sigmar.encoders.minizinc import wasm
    from sigmar.encoders.minizinc.backend import MinizincBackend
    from sigmar.models.boardfile import read_boards
    from sigmar.models.result import Status
    from sigmar.models.rules import verify
    from tests.test_minizinc import PATIENT

    boards = read_boards(Path(__file__).resolve().parents[1] / "instances" / "small.txt")
    backend = MinizincBackend("chuffed")
    answers = {}
    for board in boards:
        result = backend.solve(board, PATIENT)
        expected = Status.SOLVED if board.name.endswith("[solvable]") else Status.UNSOLVABLE
        assert result.status is expected, f"{board.name}: {result}"
        if expected is Status.SOLVED:
            assert verify(board, result.moves).valid, board.name
        runs = (result.statistics or {}).get("runs", [])
        if runs:  # boards the counts refute run nothing
            assert all("nativeFlatTime" in run for run in runs), runs
        answers[board.name] = result.status
    monkeypatch.setattr(wasm, "chuffed_library", lambda: None)
    for board in (boards[0], boards[11]):  # solvable; unsolvable by search
        result = backend.solve(board, PATIENT)
        assert result.status is answers[board.name], f"{board.name}: {result}"
        assert all("nativeFlatTime" not in run for run in result.statistics.get("runs", [])), result.statistics
