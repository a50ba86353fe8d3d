"""Proofs that travel (issue 49): exported pairs against drat-trim, and LRAT against lrat-check, tampered too.

- **Export**: 20 DRUP refutations (``sigmar solve -b cnf``'s certificates of the dense deals below) and
  every node of 3 ``cubes`` certificates (``prove --cubes 8``) exported by ``sigmar check --export``;
  each pair checked by drat-trim and by our checker; then each pair tampered, a lemma the refutation
  rests on dropped from its proof (and for a cube, one of its units dropped from its formula), and
  checked again by both: every genuine pair accepted, every tampered one refused.
- **LRAT**: for every refutation above (a drup proof, a cubes node), the C checker's LRAT checked by
  our short checker (runners/checking/lrat_check.py) and by lrat-check; 300 tampered LRAT proofs
  (a hint removed, a hint pointing forward, a lemma's clause changed; 100 each) refused by ours; the
  CPU of our checker against the C checker's plain check of the same proof.  drat-trim's own LRAT
  (``drat-trim -L``) of each DRUP pair is checked by ours too.

drat-trim and lrat-check are built from their public sources in a scratch folder (``--tools``,
default /work/scratch/drat-trim); they are not dependencies of the suite.

    python scripts/bench/proofs_that_travel.py [--tools DIR]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import RESULTS, ROOT, markdown_table, publish

from sigmar.models.boardfile import format_board
from sigmar.models.deal import deal
from sigmar.runners.checking.lrat_check import check_lrat
from sigmar.runners.checking.rup_check import check_files, parse_dimacs

# The first seven side-6 deals that are unsolvable, and the 13 hardest refutations of scripts/bench/sat_provers.py.
DRUP_DEALS = (
    "6:0,6:2,6:3,6:5,6:7,6:10,6:11,7:228,7:355,7:554,7:619,7:959,8:212,8:338,8:588,8:710,8:844,8:890,8:924,8:455"
)
CUBES_DEALS = "8:455,8:212,7:228"
SIGMAR = [sys.executable, "-m", "sigmar.runners.cli"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", default="/work/scratch/drat-trim", help="where drat-trim and lrat-check are built")
    parser.add_argument("--drup-deals", default=DRUP_DEALS)
    parser.add_argument("--cubes-deals", default=CUBES_DEALS)
    parser.add_argument("--tampered", type=int, default=300, help="tampered LRAT proofs (a third each way)")
    parser.add_argument("--out", default=str(RESULTS / "bench_travel"))
    parser.add_argument("--doc", default=str(ROOT / "docs" / "measured" / "proofs-that-travel.md"))
    args = parser.parse_args(argv)
    tools = Path(args.tools)
    drat_trim, lrat_check = tools / "drat-trim", tools / "lrat-check"
    for tool in (drat_trim, lrat_check):
        if not tool.exists():
            raise SystemExit(f"{tool}: not built (git clone https://github.com/marijnheule/drat-trim; make)")
    loads = [os.getloadavg()]
    pairs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="sigmar-travel-") as tmp:
        folder = Path(tmp)
        for spec in args.drup_deals.split(","):
            pairs += exported(folder, spec, "drup")
            print(f"  drup {spec}: {len(pairs)} pairs so far", flush=True)
        for spec in args.cubes_deals.split(","):
            pairs += exported(folder, spec, "cubes")
            print(f"  cubes {spec}: {len(pairs)} pairs so far", flush=True)
        for pair in pairs:
            judge(pair, drat_trim, lrat_check)
            print(f"  {pair['name']}: {pair['verdicts']}", flush=True)
        tampered = tamper_lrat(pairs, args.tampered)
    loads.append(os.getloadavg())
    text = report(pairs, tampered, loads, argv)
    publish(args.out, text, {"pairs": pairs, "tampered_lrat": tampered, "loads": loads})
    Path(args.doc).write_text(text + "\n")
    return 0


def exported(folder: Path, spec: str, kind: str) -> list[dict[str, Any]]:
    """The pairs ``sigmar check --export`` writes for the deal's drup (or cubes) certificate."""
    side, index = map(int, spec.split(":"))
    board = deal("dense", side, 1, index)
    work = folder / f"{kind}-{side}-{index}"
    work.mkdir()
    boards = work / "board.txt"
    boards.write_text(format_board(board))
    limit = ["--time-limit", "3600"]  # whatever the load: every refutation is wanted
    if kind == "drup":
        make = ["solve", str(boards), "-b", "cnf", *limit]
    else:
        make = ["prove", str(boards), "--cubes", "8", "--no-corroborate", *limit]
    subprocess.run([*SIGMAR, *make, "--proof-dir", str(work / "cert")], check=True, capture_output=True)
    cert = next((work / "cert").glob("*.drup" if kind == "drup" else "*.cubes"))
    export = ["check", str(boards), str(cert), "--export", str(work / "out")]
    subprocess.run([*SIGMAR, *export], check=True, capture_output=True)
    manifest = json.loads((work / "out" / "manifest.json").read_text())
    return [
        {
            "name": f"{kind} {spec}" + (f" node {p['node']}" if "node" in p else ""),
            "kind": kind,
            "cnf": str(work / "out" / p["cnf"]),
            "drup": str(work / "out" / p["drup"]),
            "lrat": str(work / "out" / p["lrat"]),
            "cube": p.get("cube"),
        }
        for p in manifest["pairs"]
    ]


def drat_trim_says(drat_trim: Path, cnf: str, proof: str, *extra: str) -> tuple[bool, float]:
    start = time.perf_counter()
    done = subprocess.run([str(drat_trim), cnf, proof, "-w", *extra], capture_output=True, text=True)
    return "s VERIFIED" in done.stdout, time.perf_counter() - start


def judge(pair: dict[str, Any], drat_trim: Path, lrat_check: Path) -> None:
    """Every check of one pair, genuine and tampered."""
    verdicts: dict[str, Any] = {}
    verdicts["drat-trim"], pair["drat_trim_s"] = drat_trim_says(drat_trim, pair["cnf"], pair["drup"])
    start = time.process_time()
    verdicts["ours"] = check_files(pair["cnf"], pair["drup"]).valid
    pair["ours_c_cpu"] = time.process_time() - start
    done = subprocess.run([str(lrat_check), pair["cnf"], pair["lrat"]], capture_output=True, text=True)
    verdicts["lrat-check on our LRAT"] = "c VERIFIED" in done.stdout
    _, formula = parse_dimacs(Path(pair["cnf"]).read_text())
    lrat = Path(pair["lrat"]).read_bytes()
    start = time.process_time()
    verdicts["our LRAT checker"] = check_lrat(formula, lrat.splitlines())[0]
    pair["lrat_cpu"] = time.process_time() - start
    with tempfile.NamedTemporaryFile(suffix=".lrat") as theirs:
        drat_trim_says(drat_trim, pair["cnf"], pair["drup"], "-L", theirs.name)
        verdicts["our LRAT checker on drat-trim's LRAT"] = check_lrat(
            formula, Path(theirs.name).read_bytes().splitlines()
        )[0]
    for how in ("a core lemma dropped", "a cube unit removed"):
        if how == "a cube unit removed" and not pair["cube"]:
            continue
        made = tampered_pair(pair, lrat, how)
        if made is None:  # no lemma of the last 20 is needed alone: said in the report
            pair.setdefault("untampered", []).append(how)
            continue
        cnf, proof = made
        verdicts[f"{how}: drat-trim refuses"] = not drat_trim_says(drat_trim, cnf, proof)[0]
        verdicts[f"{how}: ours refuses"] = not check_files(cnf, proof).valid
        os.unlink(cnf) if cnf != pair["cnf"] else None
        os.unlink(proof) if proof != pair["drup"] else None
    pair["verdicts"] = verdicts


def tampered_pair(pair: dict[str, Any], lrat: bytes, how: str) -> tuple[str, str] | None:
    """The pair tampered ``how``; None when no such tampering breaks it (its proof has another way round)."""
    if how == "a core lemma dropped":  # the last lemma the LRAT names whose every copy dropped breaks the proof
        lines = [line.split() for line in lrat.splitlines() if line.strip()]
        lemmas = [sorted(w[1 : w.index(b"0", 1)]) for w in lines if w[1] != b"0"]
        proof_lines = Path(pair["drup"]).read_bytes().splitlines()
        path = pair["drup"] + ".tampered"
        for target in reversed(lemmas[-20:]):
            kept = [ln for ln in proof_lines if ln.startswith(b"d") or sorted(ln.split()[:-1]) != target]
            Path(path).write_bytes(b"\n".join(kept) + b"\n")
            if not check_files(pair["cnf"], path).valid:
                return pair["cnf"], path
        Path(path).unlink(missing_ok=True)
        return None
    lines = Path(pair["cnf"]).read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("p cnf"))
    body = lines[header + 1 :]
    body.remove(f"{pair['cube'][-1]} 0")
    variables, count = lines[header].split()[2:]
    path = pair["cnf"] + ".tampered"
    Path(path).write_text("\n".join([*lines[:header], f"p cnf {variables} {int(count) - 1}", *body]) + "\n")
    return path, pair["drup"]


def tamper_lrat(pairs: list[dict[str, Any]], count: int) -> dict[str, Any]:
    """``count`` tampered LRAT proofs of the pairs', a third each way; how many our checker refuses."""
    rng = random.Random(49)
    ways = ("a hint removed", "a hint pointing forward", "a lemma's clause changed")
    refused = {way: 0 for way in ways}
    made = {way: 0 for way in ways}
    formulas: dict[str, list[list[int]]] = {}
    for n in range(count):
        way = ways[n % 3]
        pair = pairs[n % len(pairs)]
        if pair["cnf"] not in formulas:
            formulas = {pair["cnf"]: parse_dimacs(Path(pair["cnf"]).read_text())[1]}  # one formula at a time
        lines = Path(pair["lrat"]).read_bytes().splitlines()
        hinted = [i for i, line in enumerate(lines) if len(line.split()) > line.split().index(b"0", 1) + 2]
        if not hinted:
            continue
        at = rng.choice(hinted)
        words = lines[at].split()
        zero = words.index(b"0", 1)
        if way == "a hint removed":
            words = [*words[: zero + 1], *words[zero + 1 : -2], b"0"]  # the clause that ends false
        elif way == "a hint pointing forward":
            words = [*words[:-2], str(int(words[0]) + 1).encode(), b"0"]
        else:
            if zero == 1:  # the empty clause: give it a literal
                words = [words[0], b"1", *words[1:]]
            else:
                words[1] = str(-int(words[1])).encode()
        lines[at] = b" ".join(words)
        made[way] += 1
        refused[way] += not check_lrat(formulas[pair["cnf"]], lines)[0]
    return {"made": made, "refused": refused}


def report(pairs: list[dict[str, Any]], tampered: dict[str, Any], loads: list[Any], argv: list[str] | None) -> str:
    checks = sorted({k for p in pairs for k in p["verdicts"]})
    rows = [
        [c, f"{sum(1 for p in pairs if p['verdicts'].get(c)):,} of {sum(1 for p in pairs if c in p['verdicts']):,}"]
        for c in checks
    ]
    lrat_cpu = sum(p["lrat_cpu"] for p in pairs)
    c_cpu = sum(p["ours_c_cpu"] for p in pairs)
    worst = max(pairs, key=lambda p: p["lrat_cpu"] / max(p["ours_c_cpu"], 1e-3))
    drups = sum(1 for p in pairs if p["kind"] == "drup")
    met = {
        "every exported pair accepted by drat-trim and by our checker": all(
            p["verdicts"]["drat-trim"] and p["verdicts"]["ours"] for p in pairs
        ),
        "every tampered pair refused by both": all(v for p in pairs for k, v in p["verdicts"].items() if ": " in k),
        "our LRAT checker accepts every LRAT the C checker writes (and lrat-check too)": all(
            p["verdicts"]["our LRAT checker"] and p["verdicts"]["lrat-check on our LRAT"] for p in pairs
        ),
        f"{sum(tampered['made'].values())} tampered LRAT proofs refused": tampered["refused"] == tampered["made"],
        "LRAT CPU <= 2x the C checker's on the same proofs (summed)": lrat_cpu <= 2 * c_cpu,
    }
    command = "python scripts/bench/proofs_that_travel.py" + ("" if not argv else " " + " ".join(argv))
    lines = [
        "# Proofs that travel: drat-trim, lrat-check and our LRAT checker",
        "",
        f"Measured {datetime.date.today().isoformat()} on a {os.cpu_count()}-core machine; load average "
        f"{', '.join(f'{x:.1f}' for x in loads[0])} at the start, {', '.join(f'{x:.1f}' for x in loads[-1])} at "
        "the end.",
        "",
        f"`{command}`: {drups} DRUP refutations (`solve -b cnf`) and {len(pairs) - drups} nodes of "
        f"{len({p['name'].split(' node')[0] for p in pairs if p['kind'] == 'cubes'})} cubes certificates, "
        "exported by `sigmar check --export`; drat-trim and lrat-check built from their public sources.",
        "",
        markdown_table(["check", "pairs it holds for"], rows),
        "",
        "Tampered LRAT proofs refused by our checker: "
        + ", ".join(f"{w} {tampered['refused'][w]} of {tampered['made'][w]}" for w in tampered["made"]),
        "",
        f"Pairs where no single lemma of the last 20 the refutation names is needed alone (dropping it leaves a "
        f"valid proof, so that tampering is not made): {sum(1 for p in pairs if p.get('untampered')):,}.",
        "",
        f"CPU, summed over the {len(pairs)} refutations: our LRAT checker {lrat_cpu:.2f} s, the C checker's "
        f"check {c_cpu:.2f} s ({lrat_cpu / max(c_cpu, 1e-9):.2f}x); the largest ratio of one proof "
        f"{worst['lrat_cpu'] / max(worst['ours_c_cpu'], 1e-3):.2f}x ({worst['name']}).",
        "",
        *[f"- {what}: {'met' if ok else 'NOT met'}" for what, ok in met.items()],
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
