"""Pumpkin's DRCP certificates and the CP backends around them: every target of the pumpkin/CPMpy work.

Sections (each can be skipped with --skip NAME):

- ``dense``: ``pumpkin`` alone on dense side-6 deals (``sigmar generate --deal dense --seed S``): every
  refutation must carry a DRCP certificate that the suite's checker accepts; median, p99 and max of the
  solve, the proof run, the check, and the proof's size.
- ``mutants``: tampered copies of those certificates (steps dropped, hints cut, literals flipped, tags and
  labels changed, the model weakened), checked by ``sigmar check`` and by the second checker written from
  docs/formats.md (tests/formats_checker, explicit domains): none may be accepted unless the second checker
  accepts it too, that is unless it is still a proof.
- ``fuzz``: ``sigmar fuzz -b pumpkin,cpmpy:choco,cpmpy:exact,cpmpy:z3``: no failure, and every ``pumpkin``
  "no" certified and checked.
- ``crosscheck``: ``sigmar crosscheck`` of dense deals with search, cnf, pumpkin and every available
  ``cpmpy:*``: disagreements, and each backend's unknown count.
- ``bad``: damaged DRCP files (truncated, a step naming itself, an unknown label, a huge integer, an atom
  nested in brackets, a line or a file over the limits): ``sigmar check`` exits 2 or 3 with one line.
- ``startup``: whether ``sigmar --help`` and ``sigmar solve -b search`` import CPMpy or Pumpkin, and what
  importing each costs.

    python scripts/bench/drcp_certificates.py [--count 300] [--seed 1] [--time-limit 60] [--mutants 300]
        [--fuzz 500] [--crosscheck 100] [--crosscheck-limit 20] [--skip SECTION ...]
        [--out results/bench_drcp] [--record docs/measured/drcp.md]

Prints a summary, writes OUT.json and OUT.md, and the measurement record (with date, machine, load and
this command) to --record.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the second checker lives in tests/formats_checker

from benchlib import dense_deals, load_average, markdown_table, median, percentile, publish  # noqa: E402

from sigmar.encoders import registry  # noqa: E402
from sigmar.models.board import Board  # noqa: E402
from sigmar.models.boardfile import format_board  # noqa: E402
from sigmar.runners.checking.certify import ProofStore, certify  # noqa: E402
from sigmar.runners.checking.replay import replayed  # noqa: E402
from sigmar.runners.cli import main as sigmar  # noqa: E402
from tests.formats_checker import check as second_check  # noqa: E402

SECTIONS = ("dense", "mutants", "fuzz", "crosscheck", "bad", "startup")
SIGMAR = str(Path(sys.executable).with_name("sigmar"))


def spread(values: list[float], digits: int = 3) -> str:
    if not values:
        return "-"
    return " / ".join(f"{v:.{digits}f}" for v in (median(values), percentile(values, 99), max(values)))


# ---------------------------------------------------------------------------- dense


def run_dense(boards: list[Board], time_limit: float, proofs: Path) -> dict[str, Any]:
    """pumpkin on each board, each refutation's certificate written to ``proofs`` and checked."""
    backend = registry.make("pumpkin")
    rows = []
    with ProofStore(proofs) as store:
        for k, board in enumerate(boards):
            answer = certify(board, replayed(board, backend.solve(board, time_limit)), store)
            stats = answer.statistics
            rows.append(
                {
                    "board": board.name,
                    "status": str(answer.status),
                    "reason": str(answer.reason) if answer.reason else None,
                    "seconds": answer.seconds,
                    "solve_seconds": stats.get("solve_seconds"),
                    "proof_seconds": stats.get("proof_seconds"),
                    "proof_bytes": stats.get("proof_bytes"),
                    "certificate": answer.certificate.kind.value if answer.certificate else None,
                    "file": answer.certificate.file if answer.certificate else None,
                    "checked": answer.checked,
                    "check_seconds": answer.check_seconds,
                    "verified": answer.verified,
                    "message": answer.message,
                }
            )
            if (k + 1) % 25 == 0:
                print(f"  dense: {k + 1}/{len(boards)} (load {load_average()})", file=sys.stderr, flush=True)
    refuted = [r for r in rows if r["status"] == "unsolvable" and r["reason"] == "proof"]
    drcp = [r for r in refuted if r["certificate"] == "drcp"]
    summary = {
        "boards": len(rows),
        "solved": sum(r["status"] == "solved" for r in rows),
        "solved_verified": sum(r["verified"] for r in rows),
        "unsolvable_counts": sum(r["reason"] == "counts" for r in rows),
        "refuted": len(refuted),
        "refuted_with_drcp": len(drcp),
        "drcp_accepted": sum(r["checked"] for r in drcp),
        "unknown": sum(r["status"] == "unknown" for r in rows),
        "error": sum(r["status"] == "error" for r in rows),
        "seconds": spread([r["seconds"] for r in refuted]),
        "solve_seconds": spread([r["solve_seconds"] for r in drcp if r["solve_seconds"] is not None]),
        "proof_seconds": spread([r["proof_seconds"] for r in drcp if r["proof_seconds"] is not None]),
        "check_seconds": spread([r["check_seconds"] for r in drcp if r["check_seconds"] is not None]),
        "proof_kb": spread([r["proof_bytes"] / 1024 for r in drcp if r["proof_bytes"]], 1),
        "solved_seconds": spread([r["seconds"] for r in rows if r["status"] == "solved"]),
    }
    return {"summary": summary, "rows": rows}


# ---------------------------------------------------------------------------- mutants

KINDS = ("drop-step", "cut-hints", "flip-literal", "change-tag", "change-label", "swap-hints", "weaken-model")


def mutate(proof: list[str], model: list[str], kind: str, rng: random.Random) -> tuple[list[str], list[str]] | None:
    """A tampered (proof, model) of the given kind, or None when this proof offers nothing to tamper that way."""
    steps = [i for i, line in enumerate(proof) if line[:2] in ("i ", "n ")]
    if kind == "weaken-model":
        linears = [i for i, line in enumerate(model) if line.startswith("linear ")]
        clauses = [i for i, line in enumerate(model) if line.startswith("clause ") and line.count("[") > 1]
        changed = list(model)
        if linears and rng.random() < 0.5:
            i = rng.choice(linears)
            head, _, bound = changed[i].rpartition(" <= ")
            if " if " in bound:
                number, _, condition = bound.partition(" if ")
                changed[i] = f"{head} <= {int(number) + 1} if {condition}"
            else:
                changed[i] = f"{head} <= {int(bound) + 1}"
        elif clauses:
            i = rng.choice(clauses)
            changed[i] = changed[i].rsplit(" [", 1)[0]  # an atom dropped (a stronger clause: also not the model)
        else:
            return None
        return proof, changed
    if not steps:
        return None
    changed = list(proof)
    if kind == "drop-step":
        del changed[rng.choice(steps)]
        return changed, model
    if kind in ("cut-hints", "swap-hints"):
        nogoods = [i for i in steps if proof[i].startswith("n ") and len(proof[i].split(" 0 ", 1)) == 2]
        nogoods = [i for i in nogoods if len(proof[i].split(" 0 ", 1)[1].split()) > 1]
        if not nogoods:
            return None
        i = rng.choice(nogoods)
        head, hints = proof[i].split(" 0 ", 1)
        words = hints.split()
        if kind == "cut-hints":
            words = words[: rng.randrange(len(words))]
        else:
            a, b = rng.sample(range(len(words)), 2)
            words[a], words[b] = words[b], words[a]
        changed[i] = f"{head} 0 {' '.join(words)}".rstrip()
        return changed, model
    if kind == "flip-literal":
        i = rng.choice(steps)
        words = proof[i].split()
        literal = [k for k, w in enumerate(words[2:], 2) if re.fullmatch(r"-?[1-9][0-9]*", w)]
        cut = words.index("0") if "0" in words else len(words)
        literal = [k for k in literal if k < cut or proof[i].startswith("i ")]
        if not literal:
            return None
        k = rng.choice(literal)
        words[k] = str(-int(words[k]))
        changed[i] = " ".join(words)
        return changed, model
    tagged = [i for i in steps if (" c:" if kind == "change-tag" else " l:") in proof[i]]
    if not tagged:
        return None
    i = rng.choice(tagged)
    if kind == "change-tag":
        changed[i] = re.sub(
            r" c:(\d+)", lambda m: f" c:{max(1, int(m.group(1)) + rng.choice((-2, -1, 1, 2)))}", proof[i]
        )
    else:
        labels = ["initial_domain", "linear_bounds", "nogood"]
        current = re.search(r" l:(\w+)", proof[i])
        assert current is not None
        other = rng.choice([x for x in labels if x != current.group(1)])
        changed[i] = proof[i].replace(f" l:{current.group(1)}", f" l:{other}")
    return changed, model


def run_mutants(rows: list[dict[str, Any]], boards: list[Board], count: int, folder: Path) -> dict[str, Any]:
    """``count`` tampered certificates, spread over the refutations and the kinds; both checkers' verdicts."""
    by_name = {b.name: b for b in boards}
    # The first 30 refutations: the second checker asks `sigmar encode` for each board's model once.
    sources = [r for r in rows if r["certificate"] == "drcp" and r["checked"] and r["file"]][:30]
    rng = random.Random(1)
    folder.mkdir(parents=True, exist_ok=True)
    tally: Counter[tuple[str, str]] = Counter()
    problems: list[str] = []
    made = 0
    attempts = 0
    while made < count and sources and attempts < 20 * count:
        attempts += 1
        row = rng.choice(sources)
        kind = KINDS[made % len(KINDS)]
        drcp = Path(row["file"])
        proof = drcp.read_text().splitlines()
        model = drcp.with_name(drcp.name.removesuffix(".drcp") + ".drcp-model").read_text().splitlines()
        found = mutate(proof, model, kind, rng)
        if found is None or found == (proof, model):
            continue
        made += 1
        board = by_name[row["board"]]
        board_file = folder / "board.txt"
        board_file.write_text(format_board(board), encoding="utf-8")
        (folder / "m.drcp").write_text("\n".join(found[0]) + "\n")
        (folder / "m.drcp-model").write_text("\n".join(found[1]) + "\n")
        ours = status(["check", str(board_file), str(folder / "m.drcp")])
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            second = second_check(board_file, folder / "m.drcp")
        verdict = "accepted" if ours == 0 else "rejected"
        tally[(kind, verdict)] += 1
        if ours == 0 and second != 0:
            problems.append(f"{kind} on {board.name}: sigmar check accepts, the second checker says {second}")
        if (ours == 0) != (second == 0):
            tally[(kind, "checkers differ")] += 1
    accepted = sum(n for (_, v), n in tally.items() if v == "accepted")
    return {
        "mutants": made,
        "accepted": accepted,
        "accepted_not_genuine": len(problems),
        "checkers_differ": sum(n for (_, v), n in tally.items() if v == "checkers differ"),
        "by_kind": {kind: {v: tally[(kind, v)] for v in ("accepted", "rejected")} for kind in KINDS},
        "problems": problems,
    }


def status(args: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return sigmar(args)


# ---------------------------------------------------------------------------- fuzz and crosscheck


def run_fuzz(count: int, seed: int, names: str) -> dict[str, Any]:
    command = [SIGMAR, "fuzz", "-b", names, "--count", str(count), "--seed", str(seed), "--json"]
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([*command, "--out", out], capture_output=True, text=True)
    records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    pumpkin_no = [r["certified"].get(n) for r in records for n in r.get("certified", {}) if n.startswith("pumpkin")]
    return {
        "command": " ".join(["sigmar", *command[1:]]),
        "exit": done.returncode,
        "boards": len(records),
        "failures": sum(len(r["failures"]) for r in records),
        "failure_kinds": dict(Counter(f"{f['backend']} {f['failure']}" for r in records for f in r["failures"])),
        "pumpkin_unsolvable": len(pumpkin_no),
        "pumpkin_certified": sum(bool(x) for x in pumpkin_no),
        "answers": {
            name: dict(Counter(r["answers"].get(name, "refused") for r in records))
            for name in sorted({n for r in records for n in r["answers"]})
        },
    }


def run_crosscheck(boards: list[Board], names: list[str], time_limit: float, folder: Path) -> dict[str, Any]:
    board_file = folder / "crosscheck.txt"
    board_file.write_text("\n".join(format_board(b) for b in boards), encoding="utf-8")
    command = [SIGMAR, "crosscheck", str(board_file), "-b", ",".join(names), "--json", "--time-limit", str(time_limit)]
    done = subprocess.run(command, capture_output=True, text=True)
    records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    grades = {name: dict(Counter(r["grades"].get(name, "-") for r in records)) for name in names}
    return {
        "command": " ".join(["sigmar", "crosscheck", "DEALS", *command[3:]]),
        "exit": done.returncode,
        "boards": len(records),
        "disagreements": sum(not r["agree"] for r in records),
        "answers": dict(Counter(r["status"] for r in records)),
        "unknown": {name: grades[name].get("unknown", 0) for name in names},
        "grades": grades,
        "seconds": {name: spread([r["times"][name] for r in records if name in r["times"]]) for name in names},
    }


# ---------------------------------------------------------------------------- bad input


def run_bad(rows: list[dict[str, Any]], boards: list[Board], folder: Path) -> list[dict[str, Any]]:
    """Damaged DRCP files through ``sigmar check`` as a subprocess: the exit status and the lines it printed."""
    source = next(r for r in rows if r["certificate"] == "drcp" and r["checked"] and r["file"])
    drcp = Path(source["file"])
    proof = drcp.read_text()
    model = drcp.with_name(drcp.name.removesuffix(".drcp") + ".drcp-model").read_text()
    board_file = folder / "bad-board.txt"
    board_file.write_text(format_board(next(b for b in boards if b.name == source["board"])), encoding="utf-8")
    first_step = next(line for line in proof.splitlines() if line.startswith("i "))
    step_id = first_step.split()[1]
    cases: dict[str, tuple[str, dict[str, str]]] = {
        "truncated": (proof[: len(proof) // 2], {}),
        "a step that names itself": (proof.replace(first_step, f"n {step_id} 0 {step_id}", 1), {}),
        "an unknown label": (proof.replace(" l:", " l:mystery_", 1), {}),
        "a huge integer": (proof.replace("]", "9" * 5000 + "]", 1), {}),
        "an atom nested in brackets": (proof.replace("[", "[[", 1).replace("]", "]]", 1), {}),
        "a line over the limit (10 MB)": (proof + "n 999999999 " + "1 " * 5_100_000 + "\n", {}),
        "a file over the limit": (proof, {"SIGMAR_MAX_DRCP": "1000"}),
        "not UTF-8": (proof[:100] + "\udcff" + proof[100:], {}),
    }
    out = []
    for what, (text, env) in cases.items():
        path = folder / "bad.drcp"
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        (folder / "bad.drcp-model").write_text(model)
        start = time.perf_counter()
        done = subprocess.run(
            [SIGMAR, "check", str(board_file), str(path)], capture_output=True, text=True, env={**os.environ, **env}
        )
        lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
        out.append(
            {
                "input": what,
                "exit": done.returncode,
                "lines": len(lines),
                "traceback": "Traceback" in done.stderr,
                "seconds": round(time.perf_counter() - start, 3),
                "message": (lines[0] if lines else "")[:160],
            }
        )
    return out


# ---------------------------------------------------------------------------- start-up


def run_startup(folder: Path) -> dict[str, Any]:
    one = folder / "one.txt"
    one.write_text((ROOT / "instances" / "hexmatch-hard-100.txt").read_text().split("\n\n")[0] + "\n")
    report = "import sys, runpy\nsys.argv=['sigmar', *sys.argv[1:]]\nfrom sigmar.runners.cli import main\n"
    report += "code = main(sys.argv[1:])\nprint('MODULES=' + ','.join(sorted(sys.modules)), file=sys.stderr)\n"
    out: dict[str, Any] = {}
    for label, argv in (("sigmar --help", ["--help"]), ("sigmar solve -b search", ["solve", str(one), "-b", "search"])):
        done = subprocess.run([sys.executable, "-c", report, *argv], capture_output=True, text=True)
        line = next((x for x in done.stderr.splitlines() if x.startswith("MODULES=")), "MODULES=")
        modules = {m.split(".")[0] for m in line.removeprefix("MODULES=").split(",")}
        out[label] = sorted(modules & {"cpmpy", "pumpkin_solver", "pychoco", "z3", "exact"})
    for package in ("cpmpy", "pumpkin_solver"):
        times = []
        for _ in range(5):
            done = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    f"import time; t = time.perf_counter(); import {package}; print(time.perf_counter() - t)",
                ],
                capture_output=True,
                text=True,
            )
            if done.returncode == 0:
                times.append(float(done.stdout.strip()))
        out[f"import {package} (s, median of 5)"] = round(median(times), 3) if times else None
    return out


# ---------------------------------------------------------------------------- report


def render(result: dict[str, Any], args: argparse.Namespace) -> str:
    lines = [f"# DRCP certificates and the CP backends ({time.strftime('%Y-%m-%d')})", ""]
    lines.append(
        f"Machine: {platform.system()} {platform.machine()}, {os.cpu_count()} cores; load average "
        f"{result['load_before']} before, {result['load_after']} after (a shared machine). "
    )
    lines.append(f"Command: `python scripts/bench/drcp_certificates.py {' '.join(sys.argv[1:])}`.")
    lines.append("")
    if "dense" in result:
        s = result["dense"]["summary"]
        lines += [
            f"## {s['boards']} dense side-6 deals (seed {args.seed}), pumpkin alone, {args.time_limit:g} s a board",
            "",
            f"{s['solved']} solved ({s['solved_verified']} verified), {s['refuted']} refuted by Pumpkin, "
            f"{s['unsolvable_counts']} by the counts, {s['unknown']} unknown, {s['error']} errors. "
            f"Refutations with a DRCP certificate: {s['refuted_with_drcp']}; accepted by the checker: "
            f"{s['drcp_accepted']}.",
            "",
            markdown_table(
                ["refutations: median / p99 / max", "value"],
                [
                    ["answer (s, solve + proof run + check)", s["seconds"]],
                    ["solve, no proof (s)", s["solve_seconds"]],
                    ["proof run (s)", s["proof_seconds"]],
                    ["check (s)", s["check_seconds"]],
                    ["proof size (KB)", s["proof_kb"]],
                ],
            ),
            "",
            f"Solved boards: {s['solved_seconds']} s (median / p99 / max).",
            "",
        ]
    if "mutants" in result:
        m = result["mutants"]
        lines += [
            f"## {m['mutants']} tampered certificates",
            "",
            f"Accepted by `sigmar check`: {m['accepted']}, of which not accepted by the second checker "
            f"(tests/formats_checker): {m['accepted_not_genuine']}. The two checkers differ on "
            f"{m['checkers_differ']}.",
            "",
            markdown_table(
                ["tampering", "accepted (still a proof)", "rejected"],
                [[k, v["accepted"], v["rejected"]] for k, v in m["by_kind"].items()],
            ),
            "",
        ]
    if "fuzz" in result:
        f = result["fuzz"]
        lines += [
            "## Fuzz",
            "",
            f"`{f['command']}`: exit {f['exit']}, {f['boards']} boards, {f['failures']} failures "
            f"{f['failure_kinds'] or ''}; pumpkin said unsolvable {f['pumpkin_unsolvable']} times, "
            f"{f['pumpkin_certified']} with a checked certificate.",
            "",
            markdown_table(["backend", "answers"], [[n, a] for n, a in f["answers"].items()]),
            "",
        ]
    if "crosscheck" in result:
        c = result["crosscheck"]
        lines += [
            "## Crosscheck",
            "",
            f"`{c['command']}` on {c['boards']} dense deals: exit {c['exit']}, {c['disagreements']} disagreements; "
            f"answers {c['answers']}.",
            "",
            markdown_table(
                ["backend", "unknown", "grades", "seconds median / p99 / max"],
                [[n, c["unknown"][n], c["grades"][n], c["seconds"][n]] for n in c["unknown"]],
            ),
            "",
        ]
    if "bad" in result:
        lines += [
            "## Bad DRCP input (`sigmar check`)",
            "",
            markdown_table(
                ["input", "exit", "lines", "traceback", "message"],
                [
                    [b["input"], b["exit"], b["lines"], b["traceback"], b["message"].replace("|", "/")]
                    for b in result["bad"]
                ],
            ),
            "",
        ]
    if "startup" in result:
        lines += ["## Start-up", "", markdown_table(["what", "value"], list(result["startup"].items())), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--mutants", type=int, default=300)
    parser.add_argument("--fuzz", type=int, default=500)
    parser.add_argument("--crosscheck", type=int, default=100)
    parser.add_argument("--crosscheck-limit", type=float, default=20.0)
    parser.add_argument("--skip", nargs="*", default=[], choices=SECTIONS)
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_drcp"))
    parser.add_argument("--record", default=str(ROOT / "docs" / "measured" / "drcp.md"))
    args = parser.parse_args(argv)
    result: dict[str, Any] = {"load_before": load_average()}
    work = Path(tempfile.mkdtemp(prefix="bench-drcp-"))
    boards = dense_deals(max(args.count, args.crosscheck), args.seed)
    if "dense" not in args.skip:
        print(f"dense: pumpkin on {args.count} deals", file=sys.stderr)
        result["dense"] = run_dense(boards[: args.count], args.time_limit, work / "proofs")
    rows = result.get("dense", {}).get("rows", [])
    if "mutants" not in args.skip and rows:
        print(f"mutants: {args.mutants}", file=sys.stderr)
        result["mutants"] = run_mutants(rows, boards, args.mutants, work / "mutants")
    if "fuzz" not in args.skip:
        print(f"fuzz: {args.fuzz} boards", file=sys.stderr)
        result["fuzz"] = run_fuzz(args.fuzz, args.seed, "pumpkin,cpmpy:choco,cpmpy:exact,cpmpy:z3")
    if "crosscheck" not in args.skip:
        found = registry.info("cpmpy")
        names = ["search", "cnf", "pumpkin", *(f"cpmpy:{s}" for s in found.subs)]
        print(f"crosscheck: {args.crosscheck} deals with {','.join(names)}", file=sys.stderr)
        result["crosscheck"] = run_crosscheck(boards[: args.crosscheck], names, args.crosscheck_limit, work)
    if "bad" not in args.skip and rows:
        result["bad"] = run_bad(rows, boards, work)
    if "startup" not in args.skip:
        result["startup"] = run_startup(work)
    result["load_after"] = load_average()
    shutil.rmtree(work, ignore_errors=True)
    text = render(result, args)
    publish(args.out, text, result, also=args.record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
