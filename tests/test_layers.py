"""The import order of the package, read from the source with ``ast`` (issues 14 and 27, docs/formats.md#certificates).

- ``models`` imports neither ``encoders`` nor ``runners``; ``encoders`` does not import ``runners``.
- ``runners`` has four rooms (docs/layout.md): ``runners/cli/`` (one module per verb),
  the engines directly in ``runners/`` (race, workers, bench, survey, prove, ...),
  ``runners/checking/`` and ``runners/render/``.  The CLI imports the engines, the engines
  import checking and render, render may read checking; never the other way.
- No verb module of ``runners/cli/`` imports another verb, and ``runners`` has no import cycle.
- Grading does not import the race.
- The checks of the rules' certificates (``runners/checking/``: the board's masks, the stuck-set
  and dead-states checks, the closure) read no backend, not the solvers' shared facts and not the
  stuck-set finder, not even through another module; the DRUP checker
  (``runners/checking/rup_check.py``) imports nothing of the suite but its own C core
  (``runners/checking/_drup.c``).

Imports inside functions count (they run too); imports under ``if TYPE_CHECKING:`` do not.
The last tests run the same checks on a small made-up package, so a checker that
could never find anything would fail there.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("models", "encoders", "runners")
# The rooms of runners, highest first: a room imports only its own and the rooms after it.
ROOMS = ("cli", "engines", "render", "statistics", "checking")
CLI_HELPERS = (
    "runners.cli",
    "runners.cli.entry",
    "runners.cli.parsers",
    "runners.cli.quick",
    "runners.cli.verbs",
    "runners.cli.options",
    "runners.cli.conventions",
    "runners.cli.board_args",
    "runners.cli.show_files",
)
# The certificate checks that read the rules themselves (docs/layout.md), and what they may import.
INDEPENDENT_CHECKS = (
    "runners.checking.stuck_check",
    "runners.checking.closure",
    "runners.checking.dead_states_check",
    "runners.checking.play_bound_check",
)
SHARED_READING = ("encoders", "models.facts", "models.stuck_sets")


def _independent(target: str) -> bool:
    """Whether a certificate check may import ``target``: the puzzle's plain modules and its fellow checks."""
    if target.startswith(SHARED_READING):
        return False
    return not target.startswith("runners") or target in (*INDEPENDENT_CHECKS, "runners.checking.verdict")


def _type_only(tree: ast.Module) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:``."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                out.update(id(n) for n in ast.walk(child))
    return out


def imports_of(path: Path, module: str, known: set[str], type_only: bool = False) -> set[str]:
    """The suite's modules ``path`` (module ``module``, as ``runners.cli.solve``) imports
    (with ``type_only``, those under ``if TYPE_CHECKING:`` too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set() if type_only else _type_only(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out.update(
                _known(alias.name.removeprefix("sigmar."), known)
                for alias in node.names
                if alias.name.startswith("sigmar.")
            )
        elif isinstance(node, ast.ImportFrom):
            base = _base(node, package)
            if base is None:
                continue
            for alias in node.names:
                named = f"{base}.{alias.name}".lstrip(".")
                out.add(named if named in known else _known(base, known))
    out.discard("")
    return out


def _base(node: ast.ImportFrom, package: str) -> str | None:
    """The suite module a ``from`` import reads from (without ``sigmar.``), or None outside the suite."""
    if node.level:
        parts = package.split(".")
        base = ".".join(parts[: len(parts) - node.level + 1])
        return f"{base}.{node.module}" if node.module else base
    if node.module and node.module.startswith("sigmar."):
        return node.module.removeprefix("sigmar.")
    return None


def _known(dotted: str, known: set[str]) -> str:
    """The longest known module that ``dotted`` names or lies in (``runners._drup`` is a C module)."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in known:
            return ".".join(parts[:end])
    return dotted


def import_graph(root: Path, type_only: bool = False) -> dict[str, set[str]]:
    """Every module of the three packages under ``root`` -> the suite's modules it imports."""
    modules: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    # The C modules (runners/checking/_drup.c, encoders/search/_playgraph.c, ...) are leaves of the graph.
    compiled = {
        ".".join(p.relative_to(root).with_suffix("").parts)
        for package in PACKAGES
        for p in (root / package).rglob("*.c")
    }
    known = set(modules) | compiled
    return {module: imports_of(path, module, known, type_only) - {module} for module, path in modules.items()}


def room_of(module: str) -> str | None:
    """The room (``cli``, ``engines``, ``render``, ``statistics`` or ``checking``) of a module of runners, else None."""
    parts = module.split(".")
    if parts[0] != "runners" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in ROOMS else "engines"


def cycle_in(graph: dict[str, set[str]], within: str) -> list[str] | None:
    """One import cycle among the modules of package ``within`` (as a path that ends where it starts), or None."""
    nodes = {m for m in graph if m.startswith(within + ".")}
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module] & nodes):
            if state.get(target) == 1:
                return path[path.index(target) :] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(nodes):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def reachable(graph: dict[str, set[str]], module: str) -> set[str]:
    """Every module ``module`` imports, directly or through others."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        for target in graph.get(todo.pop(), set()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen - {module}


def layer_faults(graph: dict[str, set[str]]) -> list[str]:
    """Every broken rule of the module docstring, one line each."""
    faults = []
    for module in INDEPENDENT_CHECKS:  # one line for a module whose own imports are allowed but lead astray
        shared = sorted(t for t in reachable(graph, module) if not _independent(t))
        if shared and all(_independent(t) for t in graph.get(module, set())):
            faults.append(f"{module} imports {shared[0]} through another module: the checker must not share it")
    for module, targets in sorted(graph.items()):
        package = module.split(".")[0]
        for target in sorted(targets):
            if package == "models" and target.split(".")[0] in ("encoders", "runners"):
                faults.append(f"{module} imports {target}: models stays below the backends and runners")
            if package == "encoders" and target.startswith("runners"):
                faults.append(f"{module} imports {target}: the backends stay below the runners")
            here, there = room_of(module), room_of(target)
            if here and there and ROOMS.index(there) < ROOMS.index(here):
                faults.append(f"{module} imports {target}: {here} stays below {there}")
            if here == "cli" == there and module not in CLI_HELPERS and target not in CLI_HELPERS:
                faults.append(f"{module} imports {target}: a verb imports another")
            if module == "runners.checking.grading" and target == "runners.race":
                faults.append(f"{module} imports runners.race: grading must not depend on how answers are raced")
            if module in INDEPENDENT_CHECKS and not _independent(target):
                faults.append(f"{module} imports {target}: the checker must not share the solvers' reading")
            if module == "runners.checking.rup_check" and target != "runners.checking._drup":  # its own C core
                faults.append(f"{module} imports {target}: the DRUP checker stands alone")
    return faults


def test_the_packages_keep_their_layers() -> None:
    graph = import_graph(ROOT)
    assert "runners.cli.solve" in graph and "runners.checking.stuck_check" in graph, sorted(graph)
    assert layer_faults(graph) == []


def test_the_home_of_child_processes_stands_below_everything_but_the_error_base() -> None:
    """encoders/processes/ starts, measures and stops every child process (docs/layout.md): the backends and
    the runners both reach it, so it imports nothing of the suite but ``models.errors``; its guard runs as a
    script with ``python -I -S`` and imports nothing of the suite at all."""
    graph = import_graph(ROOT, type_only=True)
    home = {m for m in graph if m.startswith("encoders.processes")}
    assert {"encoders.processes.parent", "encoders.processes.child", "encoders.processes.usage"} <= home
    for module in sorted(home):
        outside = sorted(t for t in graph[module] if t not in home and t != "models.errors")
        assert outside == [], f"{module} imports {outside}"
    assert graph["encoders.processes.guard"] == set()


def forks_outside_the_home(root: Path) -> list[str]:
    """Every place outside encoders/processes/ that forks (``os.fork``) or starts a ``multiprocessing``
    process (any of its modules but ``multiprocessing.connection``, which only waits), one line each."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            where = path.relative_to(root).as_posix()
            if where.startswith("encoders/processes/"):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                if any(n.split(".")[0] == "multiprocessing" and n != "multiprocessing.connection" for n in names):
                    found.append(f"{where}:{node.lineno} imports {', '.join(names)}")
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr in ("fork", "forkpty")
                    and ast.unparse(node.value) == "os"
                ):
                    found.append(f"{where}:{node.lineno} calls os.{node.attr}")
    return found


def test_every_child_process_starts_in_its_home() -> None:
    """A child process of the suite's own code is started (and measured, and stopped) in one place,
    encoders/processes/ (issue 48: it had eight)."""
    assert forks_outside_the_home(ROOT) == []


def test_a_fork_outside_the_home_is_found(tmp_path: Path) -> None:
    _package(
        tmp_path,
        {
            "runners/a.py": "import os\ndef f():\n    return os.fork()\n",
            "encoders/b.py": "from multiprocessing import get_context\n",
            "encoders/processes/c.py": "import os\nos.fork()\n",
            "models/d.py": "from multiprocessing.connection import wait\n",
        },
    )
    assert forks_outside_the_home(tmp_path) == [
        "encoders/b.py:1 imports multiprocessing",
        "runners/a.py:3 calls os.fork",
    ]


def test_runners_has_no_import_cycle() -> None:
    assert cycle_in(import_graph(ROOT), "runners") is None


def test_the_layers_hold_for_type_only_imports_too() -> None:
    """A type named across the layers lives below both sides (``statistics.runs.Row``), not above one."""
    graph = import_graph(ROOT, type_only=True)
    assert layer_faults(graph) == []
    for package in PACKAGES:
        assert cycle_in(graph, package) is None, package


def test_runners_keeps_at_most_twelve_modules_of_its_own() -> None:
    """The engines' room stays small enough to read; everything else lives in a room named for its job."""
    assert len(list((ROOT / "runners").glob("*.py"))) <= 12


def test_the_imports_are_read_as_imports() -> None:
    """What the real tree imports today, so a reader that sees nothing fails here."""
    graph = import_graph(ROOT)
    assert {"runners.cli.options", "runners.race", "models.result"} <= graph["runners.cli.solve"]
    assert "runners.checking.rup_check" in graph["runners.prove"]  # ``from .checking import rup_check``
    assert "encoders.processes.lifetime" in graph["runners.cli.entry"]  # imported inside a function
    assert "models.board" in graph["runners.race"]  # ``from sigmar.models.board import Board``
    assert "runners.checking._drup" in graph["runners.checking.rup_check"]  # the C core, imported by name
    assert "runners.statistics.runs" not in graph["runners.statistics.scores"]  # only under TYPE_CHECKING


def _package(tmp_path: Path, files: dict[str, str]) -> dict[str, set[str]]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return import_graph(tmp_path)


def test_a_made_up_package_with_every_fault_is_caught(tmp_path: Path) -> None:
    graph = _package(
        tmp_path,
        {
            "runners/checking/stuck_check.py": "from sigmar.models.facts import facts_of\n",
            "runners/checking/closure.py": "from sigmar.models.rules import verify\n",
            "models/rules.py": "from .stuck_sets import stuck\n",
            "models/facts.py": "from sigmar.runners.race import Race\n",
            "encoders/cnf/__init__.py": "def f():\n    from sigmar.runners import checking\n",
            "runners/cli/a.py": "from .b import run\n",
            "runners/cli/b.py": "from ..checking import grading\n",
            "runners/checking/__init__.py": "",
            "runners/checking/grading.py": "from ..race import Race\n",
            "runners/checking/trust.py": "from ..render import svg\n",
            "runners/checking/rup_check.py": "from sigmar.models.board import Board\n",
            "runners/race.py": "from .cli.a import run\n",
            "runners/render/page.py": "from ..prove import prove\n",
            "runners/render/svg.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..cli import a\n",
        },
    )
    faults = layer_faults(graph)
    for expected in (
        "runners.checking.stuck_check imports models.facts",
        "runners.checking.closure imports models.stuck_sets through another module",
        "models.facts imports runners.race",
        "encoders.cnf imports runners.checking",
        "runners.cli.a imports runners.cli.b: a verb",
        "runners.checking.grading imports runners.race: checking",
        "runners.checking.grading imports runners.race: grading",
        "runners.checking.trust imports runners.render.svg",
        "runners.race imports runners.cli.a",
        "runners.render.page imports runners.prove",
        "runners.checking.rup_check imports models.board",
    ):
        assert any(f.startswith(expected) for f in faults), (expected, faults)
    assert len(faults) == 11, faults
    assert graph["runners.render.svg"] == set()
    assert import_graph(tmp_path, type_only=True)["runners.render.svg"] == {"runners.cli.a"}
    cycle = cycle_in(graph, "runners")
    assert cycle is not None and cycle[0] == cycle[-1], cycle
    assert set(cycle) == {"runners.cli.a", "runners.cli.b", "runners.checking.grading", "runners.race"}, cycle
