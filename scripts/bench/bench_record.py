"""Does a bench record what it ran, and does ``--rerun`` run it again?  (issue 52, item 1)

``sigmar bench`` on N boards of instances/small.txt with ``search``, ``cnf`` and ``--sat-cmd 'cadical -q {cnf}
{proof}'`` (Debian's cadical, which install.sh installs), writing every output: the CSV, ``--json``, the HTML
report and the BenchExec XML.  Then it checks, and prints:

- the cadical command and cadical's own version in the CSV header, the report and the XML (the run set of
  ``cnf:external`` gives that version and the command as its ``version`` and ``options``);
- BenchExec's ``table-generator`` reads the XML (exit 0, a table with the runs of ``cnf:external``);
- ``sigmar bench --rerun`` from each of the four outputs runs the same boards (names and file digests), the
  same backends (names, exact names, options, the ``--sat-cmd`` command) and the same options;
- bad input to ``--rerun`` (a file that is not a record, a missing file, a board file changed since) is one
  line on standard error and exit 2.

    python scripts/bench/bench_record.py [--boards 6] [--time-limit 20] [--docs]

Writes results/bench_record.{md,json} and the bench's outputs in results/bench-record/; with ``--docs`` the
record also goes to docs/measured/bench-record.md.  Exit 1 when a check fails.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from xml.etree import ElementTree as ET

from benchlib import INSTANCES, RESULTS, ROOT, markdown_table, publish

from sigmar.runners.bench import external_solver
from sigmar.runners.statistics.record import Record, read_record

COMMAND = "cadical -q {cnf} {proof}"
TABLE_GENERATOR = "import sys; from benchexec.tablegenerator import main; sys.exit(main(sys.argv))"


def sigmar(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sigmar.runners.cli", *argv], capture_output=True, text=True, cwd=ROOT)


def same(a: Record, b: Record) -> list[str]:
    """What differs between two records in boards, backends and options (empty: the same run)."""
    faults = []
    if [(f.sha256, f.boards) for f in a.files] != [(f.sha256, f.boards) for f in b.files]:
        faults.append("boards")
    if [(x.name, x.exact, x.options, x.sat_cmd) for x in a.backends] != [
        (x.name, x.exact, x.options, x.sat_cmd) for x in b.backends
    ]:
        faults.append("backends")
    keys = ("time_limit", "jobs", "repeat", "family", "mem_limit", "board")
    if any(a.options.get(k) != b.options.get(k) for k in keys):
        faults.append("options")
    return faults


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=6)
    parser.add_argument("--time-limit", type=float, default=20)
    parser.add_argument("--docs", action="store_true", help="also write docs/measured/bench-record.md")
    args = parser.parse_args()
    if shutil.which("cadical") is None:
        raise SystemExit("no cadical on PATH: install.sh installs Debian's package")
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else ["?"] * 3
    os.chdir(ROOT)  # the paths below, and those the outputs record, are relative to the clone
    out = (RESULTS / "bench-record").relative_to(ROOT)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    csv, html, xml, jsonl = out / "bench.csv", out / "report.html", out / "xml", out / "bench.jsonl"
    boards = f"{(INSTANCES / 'small.txt').relative_to(ROOT)}:0-{args.boards - 1}"
    argv = ["bench", boards, "-b", "search,cnf", "--sat-cmd", COMMAND, "--time-limit", f"{args.time_limit:g}"]
    done = sigmar(*argv, "-o", str(csv), "--html", str(html), "--xml", str(xml), "--json")
    jsonl.write_text(done.stdout)
    checks: list[tuple[str, bool, str]] = [("the bench ran", done.returncode == 0, f"exit {done.returncode}")]
    own = external_solver(COMMAND)
    version = f"cadical {own['version']}"
    header = "\n".join(line for line in csv.read_text().splitlines() if line.startswith("#"))
    checks.append(("CSV header: the command", f"--sat-cmd '{COMMAND}'" in header, COMMAND))
    checks.append(("CSV header: cadical's version", version in header, version))
    report = html.read_text()
    checks.append(("HTML report: command and version", COMMAND in report and version in report, version))
    (external,) = xml.glob("*cnf_external*.xml")
    root = ET.parse(external).getroot()
    checks.append(("XML run set version", root.get("version", "").startswith(version), root.get("version", "")))
    checks.append(("XML run set options", COMMAND in root.get("options", ""), root.get("options", "")))
    tables = out / "tables"
    made = subprocess.run(
        [sys.executable, "-c", TABLE_GENERATOR, "-o", str(tables), *map(str, sorted(xml.glob("*.xml")))],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    table = next(tables.glob("*.table.csv"), None)
    read = made.returncode == 0 and table is not None and "cnf:external" in table.read_text()
    checks.append(("table-generator reads the XML", read, f"exit {made.returncode}"))
    original = read_record(csv)
    for kind, path in (("CSV", csv), ("--json", jsonl), ("HTML", html), ("XML", xml)):
        again = out / f"rerun-{kind.strip('-').lower()}.csv"
        rerun = sigmar("bench", "--rerun", str(path), "-o", str(again), "--quiet")
        faults = same(original, read_record(again)) if rerun.returncode == 0 else ["exit"]
        checks.append(
            (f"--rerun from the {kind}: same boards, backends, options", not faults, ", ".join(faults) or "same")
        )
    copy = out / "boards.txt"
    copy.write_text((INSTANCES / "small.txt").read_text())
    changed = out / "changed.csv"
    sigmar("bench", f"{copy}:0", "-b", "search", "-o", str(changed), "--quiet")
    copy.write_text(copy.read_text() + "\n# one more\na a\n. . .\n . .\n")
    for what, path in (
        ("not a record", ROOT / "README.md"),
        ("missing", out / "missing.csv"),
        ("board file changed", changed),
    ):
        bad = sigmar("bench", "--rerun", str(path))
        one = bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr
        checks.append((f"--rerun, {what}: exit 2, one line", one, bad.stderr.strip()[:120]))
    rows = [(name, "yes" if ok else "NO", detail.replace("|", "/")) for name, ok, detail in checks]
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = f"python scripts/bench/bench_record.py --boards {args.boards} --time-limit {args.time_limit:g}"
    text = (
        f"# A bench records itself (issue 52, item 1)\n\n*Recorded {stamp}; load average {' '.join(load)}; "
        f"`{command}`.*\n\n`sigmar {' '.join(argv[:2])} ...` with `--sat-cmd '{COMMAND}'` ({own['program']}: "
        f"{version}{', Debian package ' + own['package'] if own.get('package') else ''}).\n\n"
        + markdown_table(("check", "met", "detail"), rows)
    )
    publish(RESULTS / "bench_record", text, {"checks": checks, "load": load, "external": own})
    if args.docs:
        (ROOT / "docs" / "measured" / "bench-record.md").write_text(text + "\n")
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
