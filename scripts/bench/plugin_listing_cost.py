"""What one plugin adds to ``sigmar backends`` (target: at most 20 ms; docs/plugins.md).

Installs the toy plugin with pip (offline) into a temporary folder, declaring
only its ``toy`` backend, then times whole ``sigmar backends --json``
processes without and with that folder on PYTHONPATH, interleaved, and,
inside fresh processes that first list the built-ins as ``sigmar backends``
does, the plugin's own steps: finding the entries, importing the plugin and
asking its availability and version. Prints the medians and writes
them as JSON to ``--out``.

    python scripts/bench/plugin_listing_cost.py --runs 15 --out results/bench_plugins.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "toy_plugin"  # the toy plugin package (its pyproject.toml and module), installed by pip
LISTING = [sys.executable, "-m", "sigmar.runners.cli", "backends", "--json"]
STEPS = """
import json, time
from sigmar.encoders import plugins, registry
builtin = [registry.info(family) for family in registry.builtin_names()]  # as sigmar backends does, first
t1 = time.perf_counter()
found = plugins.entries()
t2 = time.perf_counter()
row = registry.info("toy") if found else None
t3 = time.perf_counter()
print(json.dumps({"find_ms": (t2 - t1) * 1000, "load_ms": (t3 - t2) * 1000, "entries": len(found)}))
"""


def install_one_plugin(folder: Path) -> Path:
    source = folder / "source"
    shutil.copytree(HERE, source, ignore=shutil.ignore_patterns("bench_*.py", "__pycache__", "build", "*.egg-info"))
    pyproject = source / "pyproject.toml"
    text = pyproject.read_text()
    section = '[project.entry-points."sigmar.backends"]\n'
    head = text.split(section)[0]
    pyproject.write_text(head + section + 'toy = "sigmar_toy_plugin:ToyBackend"\n')
    site = folder / "site"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "--no-index"]
    subprocess.run([*pip, "--target", str(site), str(source)], check=True, capture_output=True)
    return site


def timed(command: list[str], path: Path) -> tuple[float, float]:
    """(wall ms, CPU ms) of one run; CPU time (user + system of the child) suffers less from a loaded machine."""
    env = dict(os.environ, PYTHONPATH=str(path))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {run.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds * 1000, cpu * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "bench_plugins.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        site = install_one_plugin(Path(tmp))
        empty = Path(tmp) / "empty"
        empty.mkdir()
        listed = subprocess.run(LISTING, env=dict(os.environ, PYTHONPATH=str(site)), capture_output=True, text=True)
        assert re.search(r'"backend": "toy", "available": true', listed.stdout), listed.stdout
        without: list[tuple[float, float]] = []
        with_plugin: list[tuple[float, float]] = []
        steps: dict[str, list[dict[str, float]]] = {"without": [], "with": []}
        timed(LISTING, empty)  # warm the file cache
        for _ in range(args.runs):
            without.append(timed(LISTING, empty))
            with_plugin.append(timed(LISTING, site))
            for label, path in (("without", empty), ("with", site)):
                env = dict(os.environ, PYTHONPATH=str(path))
                run = subprocess.run([sys.executable, "-c", STEPS], env=env, capture_output=True, text=True, cwd=ROOT)
                steps[label].append(json.loads(run.stdout))
    result = {
        "runs": args.runs,
        "backends_wall_ms_without_plugin": statistics.median(w for w, _ in without),
        "backends_wall_ms_with_plugin": statistics.median(w for w, _ in with_plugin),
        "added_wall_ms": statistics.median(w for w, _ in with_plugin) - statistics.median(w for w, _ in without),
        "backends_cpu_ms_without_plugin": statistics.median(c for _, c in without),
        "backends_cpu_ms_with_plugin": statistics.median(c for _, c in with_plugin),
        "added_cpu_ms": statistics.median(c for _, c in with_plugin) - statistics.median(c for _, c in without),
        "find_entries_ms_without_plugin": statistics.median(s["find_ms"] for s in steps["without"]),
        "find_entries_ms_with_plugin": statistics.median(s["find_ms"] for s in steps["with"]),
        "load_and_ask_plugin_ms": statistics.median(s["load_ms"] for s in steps["with"]),
        "cpu_count": os.cpu_count(),
        "load_average": os.getloadavg(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for key, value in result.items():
        print(f"{key}: {value:.1f}" if isinstance(value, float) else f"{key}: {value}")


if __name__ == "__main__":
    main()
