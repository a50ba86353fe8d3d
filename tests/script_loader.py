"""Load a benchmark script of scripts/bench/ as a module, for the tests that run a small variant of it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts" / "bench"


def load_script(name: str) -> ModuleType:
    """scripts/bench/NAME.py, run afresh as module ``NAME`` (scripts are not a package, so they are loaded by path)."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module
