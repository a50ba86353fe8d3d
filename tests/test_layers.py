"""The import order of the package, read from the source with ``ast`` (issue 14, SPEC §5).

- ``models`` imports neither ``encoders`` nor ``runners``; ``encoders`` does not import ``runners``.
- No ``runners/cmd_*`` module imports another, and ``runners`` has no import cycle.
- Grading does not import the race.
- The certificate checker (``models/certificate.py``) reads no backend and not the
  solvers' shared facts; the DRUP checker (``runners/rup_check.py``) imports nothing of the suite but its
  own C core (``runners/_drup.c``).

Imports inside functions count (they run too); imports under ``if TYPE_CHECKING:`` do not.
The last tests run the same checks on a small made-up package, so a checker that
could never find anything would fail there.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("models", "encoders", "runners")


def _type_only(tree: ast.Module) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:``."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                out.update(id(n) for n in ast.walk(child))
    return out


def imports_of(path: Path, package: str) -> set[str]:
    """The suite's modules ``path`` imports, as ``package.module`` (``package`` is the file's own)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_only(tree)
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out.update(_suite_module(alias.name) for alias in node.names if alias.name.startswith("sigmar."))
        elif isinstance(node, ast.ImportFrom):
            out.update(_from_import(node, package))
    out.discard("")
    return out


def _suite_module(dotted: str) -> str:
    """``sigmar.runners.race`` -> ``runners.race``; a bare package stays ``runners``."""
    return ".".join(dotted.split(".")[1:3])


def _from_import(node: ast.ImportFrom, package: str) -> set[str]:
    if node.level == 1:
        base = package
    elif node.level == 2:
        base = ""
    elif node.module and node.module.startswith("sigmar."):
        base = _suite_module(node.module)
        return {base} if "." in base else {f"{base}.{alias.name}" for alias in node.names}
    else:
        return set()
    if node.module:
        return {f"{base}.{node.module}".lstrip(".")}
    return {f"{base}.{alias.name}" for alias in node.names}


def import_graph(root: Path) -> dict[str, set[str]]:
    """Every module of the three packages under ``root`` -> the suite's modules it imports."""
    graph: dict[str, set[str]] = {}
    for package in PACKAGES:
        for path in sorted((root / package).glob("*.py")):
            module = f"{package}.{path.stem}"
            # cli imports itself when run as ``python -m`` (its __main__ copy calls the imported one): not a cycle
            graph[module] = imports_of(path, package) - {module}
    return graph


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


def layer_faults(graph: dict[str, set[str]]) -> list[str]:
    """Every broken rule of the module docstring, one line each."""
    faults = []
    for module, targets in sorted(graph.items()):
        package, name = module.split(".")
        for target in sorted(targets):
            if package == "models" and target.split(".")[0] in ("encoders", "runners"):
                faults.append(f"{module} imports {target}: models stays below the backends and runners")
            if package == "encoders" and target.startswith("runners"):
                faults.append(f"{module} imports {target}: the backends stay below the runners")
            if name.startswith("cmd_") and target.startswith("runners.cmd_") and target != module:
                faults.append(f"{module} imports {target}: a cmd module imports another")
            if module == "runners.grading" and target == "runners.race":
                faults.append("runners.grading imports runners.race: grading must not depend on how answers are raced")
            if module == "models.certificate" and (target.startswith("encoders") or target == "models.facts"):
                faults.append(f"models.certificate imports {target}: the checker must not share the solvers' reading")
            if module == "runners.rup_check" and target != "runners._drup":  # its own C core
                faults.append(f"runners.rup_check imports {target}: the DRUP checker stands alone")
    return faults


def test_the_packages_keep_their_layers() -> None:
    graph = import_graph(ROOT)
    assert "runners.cmd_solve" in graph and "models.certificate" in graph, sorted(graph)
    assert layer_faults(graph) == []


def test_runners_has_no_import_cycle() -> None:
    assert cycle_in(import_graph(ROOT), "runners") is None


def test_the_imports_are_read_as_imports() -> None:
    """What the real tree imports today, so a reader that sees nothing fails here."""
    graph = import_graph(ROOT)
    assert {"runners.options", "runners.race", "models.result"} <= graph["runners.cmd_solve"]
    assert "runners.rup_check" in graph["runners.prove"]  # ``from . import rup_check``
    assert "runners.lifetime" in graph["runners.cli"]  # ``from sigmar.runners.lifetime import ...``
    assert "runners.bench" not in graph["runners.scores"]  # only under TYPE_CHECKING


def _package(tmp_path: Path, files: dict[str, str]) -> dict[str, set[str]]:
    for package in PACKAGES:
        (tmp_path / package).mkdir()
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return import_graph(tmp_path)


def test_a_made_up_package_with_every_fault_is_caught(tmp_path: Path) -> None:
    graph = _package(
        tmp_path,
        {
            "models/certificate.py": "from .facts import facts_of\n",
            "models/facts.py": "from sigmar.runners.race import Race\n",
            "encoders/cnf.py": "def f():\n    from sigmar.runners import check\n",
            "runners/cmd_a.py": "from .cmd_b import run\n",
            "runners/cmd_b.py": "from . import grading\n",
            "runners/grading.py": "from .race import Race\n",
            "runners/race.py": "from .cmd_a import run\n",
            "runners/rup_check.py": "from sigmar.models.board import Board\n",
            "runners/plots.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .cmd_a import run\n",
        },
    )
    faults = layer_faults(graph)
    for expected in (
        "models.certificate imports models.facts",
        "models.facts imports runners.race",
        "encoders.cnf imports runners.check",
        "runners.cmd_a imports runners.cmd_b",
        "runners.grading imports runners.race",
        "runners.rup_check imports models.board",
    ):
        assert any(f.startswith(expected) for f in faults), (expected, faults)
    assert len(faults) == 6, faults
    assert graph["runners.plots"] == set()
    cycle = cycle_in(graph, "runners")
    assert cycle is not None and cycle[0] == cycle[-1], cycle
    assert set(cycle) == {"runners.cmd_a", "runners.cmd_b", "runners.grading", "runners.race"}, cycle
