"""The second checker (tests/formats_checker, written from docs/formats.md alone) against `sigmar check`.

Rebuilds the boards of scripts/bench/prove_swapped_boards.py (same seed, same swaps, and the
deadlocks of instances/generated-unsolvable.txt), proves each with
`sigmar prove --proof-dir`, and hands every certificate, and tampered copies
of it, to both checkers: they must give the same exit status (0 valid,
3 invalid, 2 malformed).  Nearly every damaged copy is rejected by both; a few
stay proofs (dropping the stuck set of a dead state whose moves all lead to
listed states), and then both accept them.  Exit 0 when the two always agree.

    python tests/formats_checker/crosscheck.py [--tries 200] [--seed 1] [--sample N] [--dense N]
        [--out results/crosscheck_formats.json]

``--sample N`` keeps the first N boards of each group; ``--dense N`` adds N dense deals answered by
the search, whose dead-states files also list stuck sets (bench_prove's boards have none such).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the second checker lives in tests/formats_checker

from sigmar.models.board import Board  # noqa: E402
from sigmar.models.boardfile import format_board, parse_boards, read_boards  # noqa: E402
from sigmar.runners.cli import main as sigmar  # noqa: E402
from tests.formats_checker import check as second_check  # noqa: E402


def _bench_prove() -> Any:
    script = ROOT / "scripts" / "bench" / "prove_swapped_boards.py"
    spec = importlib.util.spec_from_file_location("prove_swapped_boards", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_prove_boards(tries: int, seed: int, sample: int | None = None) -> list[Board]:
    """The boards prove_swapped_boards.py proves, in its order (its random draws do not depend on the answers)."""
    bench = _bench_prove()
    rng = random.Random(seed)
    sources = [b for name in bench.SOURCES for b in read_boards(ROOT / "instances" / name)]
    boards: list[Board] = []
    for swaps in (1, 3):
        group = [bench.swapped(rng.choice(sources), swaps, rng) for _ in range(tries)]
        boards.extend(group[:sample])
    boards.extend(read_boards(ROOT / "instances" / "generated-unsolvable.txt")[:sample])
    return boards


def dense_deals(count: int, seed: int = 3) -> list[Board]:
    """Random dense deals of side 6, as `sigmar generate --deal dense` writes them."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        sigmar(["generate", "--deal", "dense", "--count", str(count), "--seed", str(seed)])
    return parse_boards(out.getvalue(), "dense")


def sigmar_status(args: list[str]) -> int:
    """`sigmar ARGS` in this process, its output swallowed; the exit status."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return sigmar(args)


def prove_all(
    boards: list[Board], folder: Path, command: tuple[str, ...] = ("prove",)
) -> tuple[Path, list[dict[str, Any]]]:
    """The board file, and the JSON of `sigmar prove --json` for every unsolvable board with a certificate.

    ``command`` may be ``("solve", "-b", "search")`` instead, for the search's dead-states files.
    """
    folder.mkdir(parents=True, exist_ok=True)
    board_file = folder / "boards.txt"
    board_file.write_text("\n".join(format_board(b) for b in boards), encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        sigmar([*command, str(board_file), "--proof-dir", str(folder / "proofs"), "--json"])
    answers = [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]
    return board_file, [a for a in answers if a["status"] == "unsolvable" and a.get("certificate")]


# ---------------------------------------------------------------- tampering


def _write(folder: Path, name: str, record: dict[str, Any]) -> Path:
    path = folder / name
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


def _copy_drup(drup: Path, folder: Path, stem: str) -> Path:
    for suffix in (".drup", ".cnf", ".vars.json"):
        (folder / (stem + suffix)).write_bytes(drup.with_name(drup.name.removesuffix(".drup") + suffix).read_bytes())
    return folder / (stem + ".drup")


def tampered(answer: dict[str, Any], boards: list[Board], folder: Path) -> list[tuple[str, Path, str | None]]:
    """(what was done, certificate file, the other board it is checked against or None) per damaged copy."""
    folder.mkdir(parents=True, exist_ok=True)
    certificate = answer["certificate"]
    kind = certificate["kind"]
    board = next(b for b in boards if b.name == answer["board"])
    # Another board: a solvable one, so that no certificate can be valid for it.
    other = next(b for b in read_boards(ROOT / "instances" / "hexmatch-easy-100.txt") if b.tiles != board.tiles)
    out: list[tuple[str, Path, str | None]] = []
    if kind == "stuck":
        cells = [list(c) for c in certificate["cells"]]
        outside = [list(board.rowcol(t.cell)) for t in board.tiles if list(board.rowcol(t.cell)) not in cells]
        if outside:
            swapped = [outside[0], *cells[1:]]
            out.append(
                (
                    "a cell swapped",
                    _write(folder, "swap.json", {**answer, "certificate": {**certificate, "cells": swapped}}),
                    None,
                )
            )
        out.append(
            (
                "K cut to one tile",
                _write(folder, "one.json", {**answer, "certificate": {**certificate, "cells": cells[:1]}}),
                None,
            )
        )
    if kind in ("stuck", "counts"):
        out.append(("another board", _write(folder, "other.json", {**answer, "board": other.name}), other.name))
    if kind == "dead-states":
        lines = Path(certificate["file"]).read_text().splitlines()
        if len(lines) > 2:
            (folder / "drop.dead.jsonl").write_text("\n".join(lines[:2] + lines[3:]) + "\n")
            out.append(("a state dropped", folder / "drop.dead.jsonl", None))
        with_stuck = next((i for i, line in enumerate(lines) if i and "stuck" in json.loads(line)), None)
        if with_stuck is not None:
            record = json.loads(lines[with_stuck])
            for what, changed in (
                ("a stuck set dropped", {"state": record["state"]}),
                ("a stuck set cut to one tile", {**record, "stuck": record["stuck"][:1]}),
            ):
                name = what.replace(" ", "-") + ".dead.jsonl"
                changed_lines = [*lines[:with_stuck], json.dumps(changed), *lines[with_stuck + 1 :]]
                (folder / name).write_text("\n".join(changed_lines) + "\n")
                out.append((what, folder / name, None))
        (folder / "start.dead.jsonl").write_text("\n".join(lines[:1] + lines[2:]) + "\n")
        out.append(("the start dropped", folder / "start.dead.jsonl", None))
        out.append(("another board", Path(certificate["file"]), other.name))
    if kind == "drup":
        drup = Path(certificate["file"])
        proof = _copy_drup(drup, folder, "lemma")
        steps = proof.read_text().splitlines()
        lemma = next((i for i, line in enumerate(steps) if line.strip() not in ("0", "") and line[0] != "d"), None)
        if lemma is not None:  # (a formula that propagates to a conflict by itself has a proof of no lemma)
            literals = steps[lemma].split()
            steps[lemma] = " ".join([str(-int(literals[0])), *literals[1:]])
            proof.write_text("\n".join(steps[: lemma + 1]) + "\n0\n")
            out.append(("a lemma altered", proof, None))
        formula = _copy_drup(drup, folder, "clause")
        cnf = formula.with_name("clause.cnf")
        text = cnf.read_text().splitlines()
        header = next(i for i, line in enumerate(text) if line.startswith("p cnf"))
        _, _, nv, nc = text[header].split()
        cnf.write_text("\n".join([*text[:header], f"p cnf {nv} {int(nc) - 1}", *text[header + 2 :]]) + "\n")
        out.append(("a clause dropped", formula, None))
        out.append(("another board", drup, other.name))
    return out


# ---------------------------------------------------------------- both checkers


def both(file: Path, certificate: Path, board: str | None) -> tuple[int, int]:
    """(sigmar check's exit status, the second checker's) for one certificate file."""
    args = ["check", str(file), str(certificate)] + (["--board", board] if board else [])
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        second = second_check(file, certificate, board)
    return sigmar_status(args), second


def crosscheck(
    boards: list[Board],
    folder: Path,
    progress: Callable[[str], None] | None = None,
    command: tuple[str, ...] = ("prove",),
) -> list[dict[str, Any]]:
    """One row per certificate and per damaged copy: what both checkers said (``command``: see prove_all)."""
    board_file, answers = prove_all(boards, folder, command)
    other_file = ROOT / "instances" / "hexmatch-easy-100.txt"
    rows: list[dict[str, Any]] = []
    for n, answer in enumerate(answers):
        kind = answer["certificate"]["kind"]
        single = _write(folder, f"answer-{n}.json", answer)
        start = time.perf_counter()
        first, second = both(board_file, single, answer["board"])
        rows.append(
            {
                "board": answer["board"],
                "kind": kind,
                "tamper": None,
                "sigmar": first,
                "second": second,
                "seconds": round(time.perf_counter() - start, 3),
            }
        )
        for what, path, board in tampered(answer, boards, folder / f"tamper-{n}"):
            file = other_file if board is not None else board_file
            first, second = both(file, path, board or answer["board"])
            rows.append({"board": answer["board"], "kind": kind, "tamper": what, "sigmar": first, "second": second})
        if progress:
            progress(f"{n + 1}/{len(answers)} certificates")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=200, help="as prove_swapped_boards.py: boards per swap group")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sample", type=int, default=None, help="keep only the first N boards of each group")
    parser.add_argument(
        "--dense",
        type=int,
        default=0,
        help="also N dense deals (generate --deal dense --seed 3) answered by the search, for its dead-states files",
    )
    parser.add_argument("--work", type=Path, default=None, help="keep the proofs here (default: a temporary folder)")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "crosscheck_formats.json")
    args = parser.parse_args()
    boards = bench_prove_boards(args.tries, args.seed, args.sample)

    def show(text: str) -> None:
        print(f"\r{text}", end="", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or Path(scratch)
        rows = crosscheck(boards, work, show)
        if args.dense:
            rows += crosscheck(dense_deals(args.dense), work / "dense", show, ("solve", "-b", "search"))
    print(file=sys.stderr)
    genuine = [r for r in rows if r["tamper"] is None]
    damaged = [r for r in rows if r["tamper"] is not None]
    summary = {
        "boards": len(boards),
        "certificates": dict(Counter(r["kind"] for r in genuine)),
        "genuine_agree": sum(r["sigmar"] == r["second"] for r in genuine),
        "genuine_valid_both": sum(r["sigmar"] == r["second"] == 0 for r in genuine),
        "tampered": len(damaged),
        "tampered_agree": sum(r["sigmar"] == r["second"] for r in damaged),
        "tampered_rejected_both": sum(r["sigmar"] != 0 and r["second"] != 0 for r in damaged),
        # A damaged copy can still be a proof (a dead state whose stuck set is dropped may have
        # every move lead to listed states): what matters is that both checkers say the same.
        "tampered_valid_both": sum(r["sigmar"] == r["second"] == 0 for r in damaged),
    }
    print(json.dumps(summary))
    for row in rows:
        if row["sigmar"] != row["second"]:
            print("DISAGREE", json.dumps(row))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")
    print(f"wrote {args.out}")
    ok = summary["genuine_agree"] == len(genuine) and summary["tampered_agree"] == len(damaged)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
