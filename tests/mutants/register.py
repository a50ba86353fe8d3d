"""Register a test plugin package as an installed plugin would be: a dist-info with the pyproject's entry points.

``register(folder)`` writes ``sigmar_mutants-0.1.0.dist-info`` into ``folder``
from the ``[project.entry-points]`` of this package's pyproject.toml (the
file ``pip install`` would write) and returns the PYTHONPATH entries that make
the mutants importable and discoverable by ``importlib.metadata``.
``register(folder, package)`` does the same for another package folder
(``tests/hostile``).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent


def register(folder: Path, package: Path = HERE) -> list[str]:
    project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
    info = folder / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    lines = []
    for group, entries in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {value}" for name, value in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return [str(package), str(folder)]
