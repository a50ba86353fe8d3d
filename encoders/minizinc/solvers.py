"""Which MiniZinc solvers run here, and the plans: the searches a sub-name runs, one after the other.

Debian's MiniZinc 2.6.4 with Gecode 6.2.0 cannot compile ``globals.mzn`` with
the stock ``gecode`` configuration (its old ``mznlib`` overrides the standard
globals).  ``sigmar-gecode.msc`` runs the same ``fzn-gecode`` with MiniZinc's
own Gecode library of ``fzn_*`` redefinitions, which does compile; the
backend loads it by path, so nothing global is changed.

Debian packages no Chuffed; where the system's MiniZinc has none, Chuffed comes
from the WebAssembly build of npm's ``minizinc`` package, run by
``minizinc_wasm.cjs`` (install.sh installs it; :mod:`.wasm` keeps it warm).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from sigmar.encoders.minizinc.data import FIND, FIRST_FAIL, OWN, PERSIST, PERSIST_NOGOODS, REFUTE, WDEG

HERE = Path(__file__).resolve().parent
GECODE_CONFIG = HERE / "sigmar-gecode.msc"
# A `minizinc` command line on the WebAssembly MiniZinc (npm package "minizinc"), for its Chuffed.
WASM_RUNNER = HERE / "minizinc_wasm.cjs"
# Where install.sh puts the npm package (and where the runner looks; SIGMAR_MINIZINC_JS overrides both).
WASM_DIST = Path(
    os.environ.get("SIGMAR_MINIZINC_JS")
    or Path.home() / ".local" / "share" / "sigmar" / "minizinc-js" / "node_modules" / "minizinc" / "dist"
)
# Solvers taken from the WebAssembly MiniZinc when the system's MiniZinc lacks them: {short name: id}.
WASM_SOLVERS = {"chuffed": "org.minizinc.chuffed"}
# Searches that keep Gecode's no-goods from each restart (its flag ``-nogoods``).
NOGOODS = frozenset({9, 10})
# A stage of a plan: (solver, strategy, at most this many seconds, at most this share of the time left).
Stage = tuple[str, int, float, float]
# The searches run one after the other (measured in docs/minizinc.md).  Gecode's
# finding searches are complementary: each solves boards on which another
# gets lost, and a search that finds a solution finds it within about a
# second or not for a long time.  So each gets a slice; the last one,
# refute, gets the rest.  Deadlocks fail at the root in any of them.
STAGES: tuple[Stage, ...] = (
    ("gecode", FIND, 1.5, 0.4),
    ("gecode", WDEG, 10.0, 0.4),
    ("gecode", FIRST_FAIL, 5.0, 0.3),
    ("gecode", PERSIST_NOGOODS, 30.0, 0.5),
    ("gecode", REFUTE, float("inf"), 1.0),
)
# Chuffed learns clauses, so it refutes the boards on which Gecode, which
# learns nothing, revisits dead positions until the time limit; its own
# activity-based search does better there than any of the annotations.  It
# is slower to find solutions: Gecode's four finding searches go first, a
# short slice each (a native Gecode compiles the model in 0.2 s, the
# WebAssembly MiniZinc in about 2 s).
PLANS: dict[str, tuple[Stage, ...]] = {
    "gecode": STAGES,
    "chuffed": (("chuffed", OWN, float("inf"), 1.0),),
    "gecode+chuffed": (
        ("gecode", FIND, 3.0, 0.4),
        ("gecode", WDEG, 1.0, 0.3),
        ("gecode", FIRST_FAIL, 1.5, 0.3),
        ("gecode", PERSIST, 1.5, 0.3),
        ("chuffed", OWN, float("inf"), 1.0),
    ),
}
# What ``minizinc`` alone means: the first of these whose solvers are all installed here.  The
# plan leaves the fewest dense side-6 deals unknown at 20 s (scripts/bench/minizinc_backend.py --subs;
# docs/minizinc.md, "The default"); Gecode alone is the fallback where Chuffed is missing.
DEFAULT_PLANS = ("gecode+chuffed", "gecode")


@functools.cache
def _solvers_json() -> tuple[dict[str, Any], ...]:
    """The solvers that the ``minizinc`` on PATH lists."""
    exe = shutil.which("minizinc")
    if exe is None:
        return ()
    try:
        out = subprocess.run([exe, "--solvers-json"], capture_output=True, text=True, timeout=20, check=True).stdout
        return tuple(json.loads(out))
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError):
        return ()


def wasm_version() -> str | None:
    """The installed npm ``minizinc`` package's version, or None when it or node is missing (no process started)."""
    try:
        package = json.loads((WASM_DIST.parent / "package.json").read_text())
    except (OSError, json.JSONDecodeError):
        return None
    ok = shutil.which("node") is not None and (WASM_DIST / "minizinc-worker.js").is_file()
    return str(package.get("version", "?")) if ok else None


@functools.cache
def from_wasm() -> frozenset[str]:
    """The solvers (short names) that run on the WebAssembly MiniZinc: those of ``WASM_SOLVERS`` the system lacks."""
    if wasm_version() is None:
        return frozenset()
    return frozenset(name for name in WASM_SOLVERS if name not in _system_solvers())


def _usable(config: dict[str, Any]) -> bool:
    """Whether a listed solver can run here: not a GUI, not a MIP wrapper whose library is missing."""
    if config.get("isGUIApplication") or config.get("requiredFlags"):
        return False
    if "<unknown version>" in str(config.get("version", "")):
        return False  # an API solver whose shared library could not be opened
    exe = config.get("executable")
    return exe is None or bool(shutil.which(str(exe)) or Path(str(exe)).exists())


def _short_name(config: dict[str, Any]) -> str:
    return str(config.get("id", "")).rsplit(".", 1)[-1].lower()


@functools.cache
def has_presolver_library() -> bool:
    """Whether this MiniZinc ships the ``gecode_presolver`` library that ``sigmar-gecode.msc`` names.

    Debian's does; if another build lacks it, its stock Gecode configuration is used instead.
    """
    exe = shutil.which("minizinc")
    if exe is None:
        return False
    try:
        out = subprocess.run([exe, "--config-dirs"], capture_output=True, text=True, timeout=20, check=True).stdout
        stdlib = Path(json.loads(out)["mznStdlibDir"])
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError, KeyError):
        return False
    return (stdlib / "gecode_presolver").is_dir()


def _system_solvers() -> dict[str, str]:
    """{short name: solver id} of the system MiniZinc's usable solvers (``gecode`` means sigmar's config)."""
    found = {"gecode": str(GECODE_CONFIG)} if shutil.which("fzn-gecode") else {}
    for config in _solvers_json():
        name = _short_name(config)
        if name and name not in found and _usable(config) and name != "gist":
            found[name] = str(config["id"])
    return found


def installed_solvers() -> dict[str, str]:
    """{short name: solver id} of the MiniZinc solvers usable here: the system's, and Chuffed from the
    WebAssembly MiniZinc where the system has none (see ``from_wasm``)."""
    return _system_solvers() | {name: WASM_SOLVERS[name] for name in from_wasm()}


def plan_names() -> tuple[str, ...]:
    """The sub-names of ``PLANS`` whose solvers are all usable here."""
    usable = installed_solvers()
    return tuple(name for name, stages in PLANS.items() if all(stage[0] in usable for stage in stages))


def default_plan() -> str:
    """The sub-name ``minizinc`` alone means here: the first of ``DEFAULT_PLANS`` that can run."""
    usable = plan_names()
    found = next((name for name in DEFAULT_PLANS if name in usable), None)
    return found or next(iter(installed_solvers()), DEFAULT_PLANS[-1])


def version_text() -> str:
    """MiniZinc's version and Gecode's, and where Chuffed comes from the WebAssembly MiniZinc, its too."""
    exe = shutil.which("minizinc")
    if exe is None:
        return "-"
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=20).stdout
    words = out.split("version", 1)[-1].split()
    mzn = words[0] if words else "?"
    gecode = next((c.get("version") for c in _solvers_json() if c.get("id") == "org.gecode.gecode"), None)
    text = f"MiniZinc {mzn}" + (f", Gecode {gecode}" if gecode else "")
    if from_wasm():
        text += f"; {', '.join(sorted(from_wasm())).title()} from npm minizinc {wasm_version()} (WebAssembly)"
    return text


def solver_label(solver: str) -> str:
    return {"gecode": "Gecode", "chuffed": "Chuffed"}.get(solver, solver)
