"""The ``minizinc`` backend: a readable MiniZinc model, on Gecode and Chuffed by default.

The models live next to this file (``sigmar_order.mzn``, ``sigmar_steps.mzn``);
this module writes a board as MiniZinc data, runs the model through the
``minizinc`` Python package and turns the answer back into moves.

Glossary:

- *round*: the order model's time; several pairs may leave in one round.
- *opening*: three consecutive ring positions around a tile; the tile is free
  once every tile on them has gone.
- *blockers*: the tiles on an opening's cells.

Names: ``minizinc:gecode`` (order model on Gecode), ``minizinc:gecode:steps``
(one move per step, the design card's timestep model), ``minizinc:chuffed``
(Chuffed, a solver that learns clauses), ``minizinc:gecode+chuffed`` (Gecode's
finding searches, then Chuffed to refute), and ``minizinc:NAME`` for any other
MiniZinc solver installed here.  ``minizinc`` alone is the first plan of
``DEFAULT_PLANS`` whose solvers are installed: ``gecode+chuffed``, measured
best (docs/minizinc.md), else Gecode alone.  Debian packages no Chuffed; where the
system's MiniZinc has none, Chuffed comes from the WebAssembly build of npm's
``minizinc`` package, run by ``minizinc_wasm.cjs`` (install.sh
installs it).

Debian's MiniZinc 2.6.4 with Gecode 6.2.0 cannot compile ``globals.mzn`` with
the stock ``gecode`` configuration (its old ``mznlib`` overrides the standard
globals).  ``sigmar-gecode.msc`` runs the same ``fzn-gecode`` with MiniZinc's
own Gecode library of ``fzn_*`` redefinitions, which does compile; the
backend loads it by path, so nothing global is changed.

Solving runs asynchronously: at the time limit, on :meth:`stop` or on
KeyboardInterrupt the task is cancelled, and the ``minizinc`` package then
terminates the driver.  ``minizinc`` runs under a guard process
(:mod:`.driver`), which kills ``fzn-gecode`` and removes the run's
temporary files however ``minizinc`` or the worker above it ends.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from sigmar.encoders.backend import Backend
from sigmar.models.board import Board
from sigmar.models.facts import facts_of
from sigmar.models.result import Move, Reason, Result, Status
from sigmar.models.rules import count_problem
from sigmar.models.tiles import ELEMENTS, QUICKSILVER

# The four elements, numbered 1..4 as the models' ``element_kind``: air, earth, fire, water
# (a quintessence takes one of each).
ELEMENT_KINDS = {symbol: kind for kind, symbol in enumerate(sorted(ELEMENTS), start=1)}

HERE = Path(__file__).resolve().parent

MODELS = {"order": HERE / "sigmar_order.mzn", "steps": HERE / "sigmar_steps.mzn"}
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
VARIANTS = tuple(MODELS)
DEFAULT_VARIANT = "order"

# Search strategies named in the models' ``strategy`` parameter.
FIND, REFUTE, PERSIST, WDEG, FIRST_FAIL, PERSIST_NOGOODS, OWN = 1, 2, 3, 7, 8, 10, 11
STRATEGY_NAMES = {
    1: "smallest key",
    2: "refute (metal openings first)",
    3: "weighted degree, Luby restarts",
    4: "rounds, then mates",
    5: "mates, then rounds",
    6: "key in input order",
    7: "weighted degree, no restarts",
    8: "first fail on the key",
    9: "smallest key, Luby restarts, no-goods",
    10: "weighted degree, Luby restarts, no-goods",
    11: "the solver's own search",
}
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
# The order model's implied constraints, by name: the data flag that switches each on.
IMPLIED = {
    "qcount": "use_qcount",
    "metal-openings": "use_metal_openings",
    "hitting-sets": "use_hitting",
    "parity": "use_parity",
    "symmetry": "use_symmetry",
    "blocking-mates": "use_blocking_mates",
}
# Extra seconds allowed after MiniZinc's own time limit before Python cancels.
GRACE = 1.0
# Distinct solutions a count keeps before it stops with a lower bound.
COUNT_CAP = 2_000_000
# Seconds before the time limit at which a count asks MiniZinc to stop, and half of it to wait for MiniZinc
# to print its last solutions: the runner kills a worker half a second past the limit.
COUNT_MARGIN = 0.3


# ------------------------------------------------------------------ data ----


def _partners(board: Board, i: int) -> list[int]:
    """Tiles that tile ``i`` could ever leave with as a pair (``sigmar.models.facts``); gold and quintessence: itself.

    On a quintessence board an element also lists itself: its mate is itself
    when a quintessence takes it (the order model's ``takes``).
    """
    facts = facts_of(board)
    fives = facts.quintessence
    if i == facts.gold or i in fives:
        return [i]
    mates = [j for j in facts.partners_of(i) if j not in fives]
    if fives and facts.symbols[i] in ELEMENT_KINDS:
        mates = sorted([*mates, i])
    return mates


def _openings(board: Board, i: int) -> tuple[list[list[int]], list[int]]:
    """The six openings' blockers around tile ``i`` and the openings worth trying (from 0).

    An opening is dominated when another one's blockers are a subset of its
    own (ties keep the first), so the search never branches on both.
    """
    openings = [list(window) for window in facts_of(board).windows[i]]
    useful = []
    for k, mine in enumerate(openings):
        dominated = any(
            set(other) < set(mine) or (set(other) == set(mine) and o < k) for o, other in enumerate(openings) if o != k
        )
        if not dominated:
            useful.append(k)
    return openings, useful


def candidate_pairs(board: Board) -> tuple[tuple[int, int], ...]:
    """Every pair that may ever be a move (the steps model's choices): tile ids from 0.

    Gold alone is (g, g); a quintessence's five-tile move is (x, x), its four
    elements chosen by the model's ``takes``.
    """
    facts = facts_of(board)
    alone = {facts.gold, *facts.quintessence}
    return tuple(
        (i, j) for i in range(len(board.tiles)) for j in _partners(board, i) if j > i or (j == i and i in alone)
    )


def hitting_sets(blockers: list[list[int]]) -> list[list[int]]:
    """The minimal sets of tiles that meet every one of ``blockers`` (none when one of them is empty).

    Whichever opening frees the tile, one tile of each such set left before it.
    """
    if not blockers or any(not b for b in blockers):
        return []
    tiles = sorted({t for b in blockers for t in b})
    found: list[set[int]] = []
    for size in range(1, len(tiles) + 1):
        for chosen in itertools.combinations(tiles, size):
            mine = set(chosen)
            if all(mine & set(b) for b in blockers) and not any(f <= mine for f in found):
                found.append(mine)
    return [sorted(f) for f in found]


def _mzn_set(items: list[int]) -> str:
    return "{" + ", ".join(str(x + 1) for x in items) + "}"


def data_text(
    board: Board, variant: str = DEFAULT_VARIANT, strategy: int = FIND, off: frozenset[str] = frozenset()
) -> str:
    """The board as MiniZinc data (``.dzn``); tile ids shift by one (MiniZinc counts from 1).

    ``off``: implied constraints of the order model to switch off (``IMPLIED``), for measuring.
    """
    n = len(board.tiles)
    facts = facts_of(board)
    metal_ids = facts.metal_chain
    quick = [i for i, symbol in enumerate(facts.symbols) if symbol == QUICKSILVER]
    rowcols = [board.rowcol(t.cell) for t in board.tiles]
    lines = [
        f"% board: {board.name or '(unnamed)'}; variant: {variant}",
        f"n_tiles = {n};",
        "symbol = [" + ", ".join(json.dumps(t.symbol) for t in board.tiles) + "];",
        "row = [" + ", ".join(str(r) for r, _ in rowcols) + "];",
        "col = [" + ", ".join(str(c) for _, c in rowcols) + "];",
        "n_metals = " + str(len(metal_ids)) + ";",
        "metal = [" + ", ".join(str(i + 1) for i in metal_ids) + "];",
        "quicksilver = " + _mzn_set(quick) + ";",
        f"n_moves = {facts.horizon};",
        f"n_quint = {len(facts.quintessence)};",
        "quint = [" + ", ".join(str(i + 1) for i in facts.quintessence) + "];",
        "element_kind = [" + ", ".join(str(ELEMENT_KINDS.get(s, 0)) for s in facts.symbols) + "];",
    ]
    lines.append(f"strategy = {strategy};  % the search: 1 finds, 2 refutes (see the model)")
    blockers, useful = [], []
    for i in range(n):
        openings, keep = _openings(board, i)
        blockers.append(openings)
        useful.append(keep)
    if n:
        rows = ["| " + ", ".join(_mzn_set(o) for o in openings) for openings in blockers]
        lines.append("blockers = [" + "\n  ".join(rows) + " |];")
    else:
        lines.append("blockers = array2d(1..0, 1..6, []);")
    lines.append("useful = [" + ", ".join(_mzn_set(k) for k in useful) + "];")
    if variant == "steps":
        return "\n".join(lines + _pairs_data(board)) + "\n"
    lines += [f"{flag} = {str(name not in off).lower()};" for name, flag in IMPLIED.items()]
    hits = [(i, h) for i in range(n) for h in hitting_sets([blockers[i][k] for k in useful[i]])]
    lines.append(f"n_hit = {len(hits)};")
    lines.append("hit_of = [" + ", ".join(str(i + 1) for i, _ in hits) + "];")
    lines.append("hit = [" + ", ".join(_mzn_set(h) for _, h in hits) + "];")
    lines.append("partners = [" + ", ".join(_mzn_set(_partners(board, i)) for i in range(n)) + "];")
    return "\n".join(lines) + "\n"


def _pairs_data(board: Board) -> list[str]:
    """The steps model's candidate moves."""
    pairs = candidate_pairs(board)
    return [
        f"n_pairs = {len(pairs)};",
        "pair_a = [" + ", ".join(str(a + 1) for a, _ in pairs) + "];",
        "pair_b = [" + ", ".join(str(b + 1) for _, b in pairs) + "];",
    ]


# --------------------------------------------------------------- decode ----


def moves_from_rounds(
    board: Board, leave: list[int], mate: list[int], takes: dict[int, list[int]] | None = None
) -> tuple[Move, ...]:
    """A sequential move list from rounds and mates (ids from 0); ``takes``: quintessence -> its four elements.

    Within a round any order is legal: every tile of the round was free before
    it, and the model keeps at most one metal per round.
    """
    takes = takes or {}
    taken = {t for four in takes.values() for t in four}
    moves = []
    for i in sorted(range(len(board.tiles)), key=lambda t: (leave[t], t)):
        j = mate[i]
        if j < i or i in taken:
            continue
        moves.append(_move(board, i, j, takes))
    return tuple(moves)


def _move(board: Board, a: int, b: int, takes: dict[int, list[int]]) -> Move:
    """The move of tile ``a`` with ``b``: gold alone when ``b == a``, a quintessence with the four it takes."""
    tiles = (a, *takes[a]) if a in takes else (a,) if a == b else (a, b)
    return Move(tuple(board.tiles[t].cell for t in tiles))


def _takes(board: Board, solution: Any) -> dict[int, list[int]]:
    """{quintessence: the four element tiles it takes} from the models' ``takes`` (ids from 0)."""
    fives = facts_of(board).quintessence
    if not fives:
        return {}
    rows = solution.takes
    return {x: [int(t) - 1 for t in rows[q]] for q, x in enumerate(fives)}


# -------------------------------------------------------------- solvers ----


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
def _has_presolver_library() -> bool:
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


# ------------------------------------------------------------- backend ----


@dataclass(frozen=True)
class MinizincOptions:
    """``strategy``: force the search (1 finds, 2 refutes; default: all in turn); ``model``: another .mzn file;
    ``off``: implied constraints to switch off, a comma list of ``IMPLIED`` names (these three for measuring)."""

    strategy: int | None = None
    model: str | None = None
    off: str = ""

    def __post_init__(self) -> None:
        unknown = sorted(self.switched_off() - set(IMPLIED))
        if unknown:
            valid = ", ".join(IMPLIED)
            raise ValueError(f"minizinc option off: no implied constraint {', '.join(unknown)} (valid: {valid})")

    def switched_off(self) -> frozenset[str]:
        """The implied constraints named in ``off``."""
        return frozenset(x.strip() for x in self.off.split(",") if x.strip())


class MinizincBackend(Backend):
    family = "minizinc"
    default_sub = DEFAULT_PLANS[-1]  # where nothing better is installed; default() chooses
    description = "MiniZinc model (round per tile; :steps for one move per step) on Gecode or another MiniZinc solver"
    encode_targets = ("mzn", "dzn")
    encode_variants = VARIANTS
    options_type = MinizincOptions
    plays_quintessence = True  # both models (the five-tile move of docs/formats.md#the-rules)

    def __init__(self, sub: str | None = None, **options: Any) -> None:
        super().__init__(sub, **options)
        solver, variant = _parse_sub(self.sub or default_plan())
        self.solver_name = solver
        self.variant = variant
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self._stopped = False

    # ---- discovery

    @classmethod
    def available(cls) -> tuple[bool, str]:
        try:
            import minizinc  # noqa: F401
        except ImportError:
            return False, "needs the Python package 'minizinc'"
        if shutil.which("minizinc") is None:
            return False, "the 'minizinc' executable is not on PATH"
        if not installed_solvers():
            return False, "no usable MiniZinc solver (fzn-gecode not found)"
        return True, ""

    @classmethod
    def version(cls) -> str:
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

    @classmethod
    def default(cls) -> str:
        return default_plan()

    @classmethod
    def default_note(cls) -> str:
        best = DEFAULT_PLANS[0]
        missing = sorted({stage[0] for stage in PLANS[best]} - set(installed_solvers()))
        if not missing:
            return ""
        lacking = " and ".join(_solver_label(name) for name in missing)
        return f"the best, {best}, needs {lacking}, not installed here; install.sh installs it"

    @classmethod
    def subs(cls) -> tuple[str, ...]:
        names = list(installed_solvers())
        plans = [name for name in plan_names() if name not in names]
        return tuple(names + plans + [f"{names[0]}:steps"] if names else names)

    # ---- encode

    def encode(self, board: Board, target: str) -> dict[str, str]:
        """``mzn``: the model with the board's data appended (runs alone); ``dzn``: the data only."""
        if target == "dzn":
            return {".dzn": data_text(board, self.variant)}
        if target == "mzn":
            model = MODELS[self.variant].read_text()
            return {".mzn": model + "\n% ---- the board, as data ----\n" + data_text(board, self.variant)}
        raise NotImplementedError(f"minizinc cannot encode to {target}")

    # ---- solve

    def stop(self) -> None:
        """Cancel the run once: a second cancel would interrupt the minizinc package while it waits
        for the killed solver, and the loop would close with the process unreaped (asyncio then
        prints "Event loop is closed" tracebacks at exit)."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            loop, task = self._loop, self._task
        if loop is not None and task is not None:
            loop.call_soon_threadsafe(task.cancel)

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        refused = self.refusal(board)
        if refused is not None:
            return refused
        start = time.perf_counter()
        self._stopped = False
        refuted = self.counts_refutation(board, start)
        if refuted is not None:
            return refuted
        if not board.tiles:
            return Result(Status.SOLVED, self.name, time.perf_counter() - start)
        from sigmar.encoders.minizinc.driver import quiet_late_exits

        quiet_late_exits()
        try:
            outcome = asyncio.run(self._solve_async(board, time_limit, start))
        except asyncio.CancelledError:
            outcome = Result(Status.UNKNOWN, self.name, message="stopped")
        return outcome.with_(seconds=time.perf_counter() - start)

    # ---- count

    def count(self, board: Board, of: str, time_limit: float | None = None) -> tuple[int, bool]:
        """All-solutions mode, each solution's projection kept once (docs/minizinc.md#counting).

        ``sequences``: the steps model, projected on its moves; ``pairings``: the order model (every
        move in the first round it is legal) without the symmetry breaking, which drops pairings,
        projected on the mates.  Gecode where it is installed, else the sub's solver.
        """
        self._stopped = False
        if count_problem(board) is not None:
            return 0, True
        if not board.tiles:
            return 1, True
        from sigmar.encoders.minizinc.driver import quiet_late_exits

        quiet_late_exits()
        seen: set[tuple[int, ...]] = set()
        try:
            complete = asyncio.run(self._running(self._count_async(board, of, time_limit, seen)))
        except asyncio.CancelledError:
            complete = False
        return len(seen), bool(complete) and not self._stopped

    async def _count_async(self, board: Board, of: str, time_limit: float | None, seen: set[tuple[int, ...]]) -> bool:
        """Adds each solution's projection to ``seen``; True when the solver has listed them all."""
        import minizinc

        variant = "steps" if of == "sequences" else "order"
        solver = "gecode" if "gecode" in installed_solvers() else self._plan()[-1][0]
        base = _base_instance(solver, str(MODELS[variant]), threading.get_ident())
        kwargs: dict[str, Any] = {"all_solutions": True}
        if time_limit is not None:  # MiniZinc's own limit a little early: the partial count must reach the runner
            time_limit = max(time_limit - COUNT_MARGIN, 0.05)
            kwargs["time_limit"] = timedelta(seconds=time_limit)
        takes = facts_of(board).quintessence

        def projected(solution: Any) -> tuple[int, ...]:
            chosen = solution.move if variant == "steps" else solution.mate
            return (*map(int, chosen), *(int(t) for row in (solution.takes if takes else []) for t in row))

        async def listed() -> bool:
            with base.branch() as child:
                _copy_analysis(base, child)
                child.add_string(data_text(board, variant, FIND, frozenset({"symmetry"})))
                async for result in child.solutions(**kwargs):
                    if result.solution is not None:
                        seen.add(projected(result.solution))
                        if len(seen) >= COUNT_CAP:
                            return False
                    elif result.status in (minizinc.Status.ALL_SOLUTIONS, minizinc.Status.UNSATISFIABLE):
                        return True
            return False

        if time_limit is None:
            return await listed()
        try:
            return await asyncio.wait_for(listed(), timeout=time_limit + COUNT_MARGIN / 2)
        except TimeoutError:
            return False

    async def _running(self, work: Any) -> Any:
        """Await ``work`` as the task ``stop()`` cancels; the solver processes are reaped at the end."""
        with self._lock:
            self._loop = asyncio.get_running_loop()
            self._task = asyncio.current_task()
            if self._stopped:
                work.close()
                raise asyncio.CancelledError
        try:
            return await work
        finally:
            from sigmar.encoders.minizinc.driver import reap_started

            await asyncio.shield(reap_started())
            with self._lock:
                self._loop = None
                self._task = None

    def _plan(self) -> list[Stage]:
        """The stages to run in turn: a plan of ``PLANS``, or Gecode's for any other solver.

        The option ``strategy=N`` runs one search alone (on a plan's last solver), and
        ``model=PATH`` another model file with the same data (both for measuring).
        """
        stages = PLANS.get(self.solver_name) or tuple((self.solver_name, *stage[1:]) for stage in STAGES)
        solver = stages[-1][0]
        forced = self.options.strategy
        if forced is not None:
            return [(solver, int(forced), float("inf"), 1.0)]
        if self.variant == "steps":
            return [(solver, FIND, float("inf"), 1.0)]
        return list(stages)

    async def _solve_async(self, board: Board, time_limit: float | None, start: float) -> Result:
        with self._lock:
            self._loop = asyncio.get_running_loop()
            self._task = asyncio.current_task()
            if self._stopped:
                return Result(Status.UNKNOWN, self.name, message="stopped")
        try:
            stats: dict[str, Any] = {"runs": []}
            for solver, strategy, cap, share in self._plan():
                if time_limit is None:
                    seconds = None if cap == float("inf") else cap
                else:
                    left = time_limit - (time.perf_counter() - start)
                    seconds = min(cap, share * left)
                    if seconds <= 0.01:
                        break
                status, solution, run_stats = await self._run_once(board, solver, strategy, seconds)
                name = STRATEGY_NAMES.get(strategy, str(strategy))
                stats["runs"].append({"solver": solver, "strategy": name, **run_stats})
                for key in ("nodes", "failures", "solveTime", "flatTime"):
                    if isinstance(run_stats.get(key), int | float):
                        stats[key] = stats.get(key, 0) + run_stats[key]
                if status == "solved":
                    return Result(Status.SOLVED, self.name, moves=self._decode(board, solution), statistics=stats)
                if status == "unsat":
                    return Result(
                        Status.UNSOLVABLE,
                        self.name,
                        reason=Reason.PROOF,
                        explanation=f"{_solver_label(solver)} exhausted the MiniZinc model ({self.variant} "
                        "formulation) without finding a way to clear the board",
                        statistics=stats,
                    )
            return Result(Status.UNKNOWN, self.name, message="time limit", statistics=stats)
        except asyncio.CancelledError:
            # stop() cancels the task: an answer.  Anything else (Ctrl-C cancels
            # the main task of asyncio.run) must go on; the minizinc package has
            # already terminated the solver by then.
            if self._stopped:
                return Result(Status.UNKNOWN, self.name, message="stopped")
            raise
        finally:
            from sigmar.encoders.minizinc.driver import reap_started

            await asyncio.shield(reap_started())
            with self._lock:
                self._loop = None
                self._task = None

    async def _run_once(
        self, board: Board, solver: str, strategy: int, seconds: float | None
    ) -> tuple[str, Any, dict[str, Any]]:
        """One MiniZinc run: ("solved", solution, stats), ("unsat", None, stats) or ("unknown", None, stats)."""
        model = Path(self.options.model or MODELS[self.variant])
        setting_up = time.perf_counter()
        base = _base_instance(solver, str(model), threading.get_ident())
        if seconds is not None:  # a solver's first run in this thread also pays for looking it up
            seconds -= time.perf_counter() - setting_up
        kwargs: dict[str, Any] = {}
        if seconds is not None:
            kwargs["time_limit"] = timedelta(seconds=max(seconds, 0.05))
        if strategy in NOGOODS and solver == "gecode":
            kwargs["fzn-flags"] = "-nogoods"

        from sigmar.encoders.minizinc.driver import NOTES

        notes: list[str] = []  # MiniZinc's warnings ("model inconsistency detected"): statistics, not stderr

        async def run() -> Any:
            NOTES.set(notes)  # this run's task only
            with base.branch() as child:
                _copy_analysis(base, child)
                child.add_string(data_text(board, self.variant, strategy, self.options.switched_off()))
                return await child.solve_async(**kwargs)

        try:
            if seconds is None:
                result = await run()
            else:
                result = await asyncio.wait_for(run(), timeout=seconds + GRACE)
        except TimeoutError:
            return "unknown", None, {"timeout": True} | ({"notes": notes} if notes else {})
        import minizinc

        stats = _plain_stats(result.statistics) | ({"notes": notes} if notes else {})
        if result.status.has_solution():
            return "solved", result.solution, stats
        if result.status == minizinc.Status.UNSATISFIABLE:
            return "unsat", None, stats
        return "unknown", None, stats

    def _decode(self, board: Board, solution: Any) -> tuple[Move, ...]:
        leave = [int(x) for x in solution.leave]
        takes = _takes(board, solution)
        if self.variant == "steps":
            pairs = candidate_pairs(board)
            out = []
            for p in solution.move:
                a, b = pairs[int(p) - 1]
                out.append(_move(board, a, b, takes))
            return tuple(out)
        mate = [int(x) - 1 for x in solution.mate]
        return moves_from_rounds(board, [x - 1 for x in leave], mate, takes)


@functools.cache
def _base_instance(solver_name: str, model: str, thread: int) -> Any:
    """The model on its solver, analysed once per thread; each board runs in a branch of it.

    ``minizinc.Instance`` runs the compiler once just to learn the model's
    interface; doing that for every board would add about 0.15 s to each.
    One per thread because ``branch`` holds the parent's (threading) lock for
    the whole solve: shared, it would make a second thread wait, deaf to its
    own time limit.
    """
    import minizinc

    from sigmar.encoders.minizinc.driver import guarded_driver

    executable = WASM_RUNNER if solver_name in from_wasm() else minizinc.default_driver.executable
    driver = guarded_driver(str(executable))
    if solver_name == "gecode" and _has_presolver_library():
        solver = minizinc.Solver.load(GECODE_CONFIG)
    elif solver_name == "gecode":
        solver = minizinc.Solver.lookup("gecode")  # another MiniZinc build: its own Gecode config
    else:
        solver = minizinc.Solver.lookup(installed_solvers().get(solver_name, solver_name), driver=driver)
    instance = minizinc.Instance(solver, minizinc.Model(Path(model)), driver)
    if solver_name in from_wasm() and "gecode" in installed_solvers():
        # The model's interface is the same on every solver; the native MiniZinc reads it
        # in 0.15 s, the WebAssembly one in about 1.2 s.
        native = _base_instance("gecode", model, thread)
        for cache in ("_method_cache", "_input_cache", "_output_cache", "_has_output_item_cache"):
            setattr(instance, cache, getattr(native, cache))
    else:
        instance.analyse()
    return instance


def _solver_label(solver: str) -> str:
    return {"gecode": "Gecode", "chuffed": "Chuffed"}.get(solver, solver)


def _copy_analysis(base: Any, child: Any) -> None:
    """``Instance.branch`` copies neither the driver nor whether there is an output item (0.10)."""
    child._driver = base._driver
    if getattr(child, "_has_output_item_cache", None) is None and hasattr(base, "_has_output_item_cache"):
        child._has_output_item_cache = base._has_output_item_cache


def _parse_sub(sub: str) -> tuple[str, str]:
    """``gecode`` -> (gecode, order); ``gecode:steps`` -> (gecode, steps); ``steps`` -> (gecode, steps)."""
    solver, _, variant = sub.partition(":")
    if solver in VARIANTS and not variant:
        return "gecode", solver
    variant = variant or DEFAULT_VARIANT
    if variant not in VARIANTS:
        raise ValueError(f"unknown MiniZinc model variant '{variant}' (choose from {', '.join(VARIANTS)})")
    return solver, variant


def _plain_stats(statistics: dict[str, Any]) -> dict[str, Any]:
    """The solver's statistics as JSON-friendly numbers (timedeltas become seconds)."""
    out: dict[str, Any] = {}
    for key, value in statistics.items():
        if isinstance(value, timedelta):
            out[key] = value.total_seconds()
        elif isinstance(value, int | float | str | bool):
            out[key] = value
    return out
