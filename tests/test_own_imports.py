"""No test skips on the suite's own import error: a broken module of ``sigmar`` or ``tests`` fails.

A missing solver package may skip a test (saying why); a module of ours that does not import is a
broken suite, and a skip would read as "not installed here".  Two guards: ``tests/conftest.py``
reports a test skipped on such an error as failed, and no test file, at any level, calls
``importorskip`` on our code or skips in the ``except`` of a ``try`` that imports it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CASES = """
import pytest


def test_skips_on_a_name_our_module_lacks():
    try:
        from sigmar.models.board import NoSuchName  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"not here: {exc}")


def test_skips_on_a_missing_solver_package():
    pytest.importorskip("no_such_solver_package_sigmar_test")
"""


def test_a_skip_on_our_own_import_error_fails(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_runtest_makereport  # noqa: F401\n")
    (tmp_path / "test_cases.py").write_text(CASES)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-rA", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = run.stdout.splitlines()
    assert any(line.startswith("FAILED") and "a_name_our_module_lacks" in line for line in lines), run.stdout
    assert any(line.startswith("SKIPPED") and "no_such_solver_package" in line for line in lines), run.stdout
    assert "1 failed, 1 skipped" in run.stdout, run.stdout


def _imports_ours(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        names = []
        if isinstance(sub, ast.Import):
            names = [alias.name for alias in sub.names]
        elif isinstance(sub, ast.ImportFrom):
            names = [sub.module or ""]
        elif isinstance(sub, ast.Call) and getattr(sub.func, "attr", "") == "importorskip" and sub.args:
            first = sub.args[0]
            names = [first.value] if isinstance(first, ast.Constant) and isinstance(first.value, str) else []
        if any(name.split(".")[0] in ("sigmar", "tests") for name in names):
            return True
    return False


def test_no_test_module_skips_when_our_code_fails_to_import() -> None:
    """Where the conftest hook does not reach (a module's import; ``importorskip``, whose skip keeps no
    trace of the ImportError): no ``importorskip`` of our code, no ``try`` importing it whose handler skips."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "importorskip" and _imports_ours(node):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Try) and any(_imports_ours(statement) for statement in node.body):
                for handler in node.handlers:
                    skips = any(getattr(getattr(c, "func", None), "attr", "") == "skip" for c in ast.walk(handler))
                    if skips:
                        found.append(f"{path.relative_to(ROOT)}:{handler.lineno}")
    assert not found, f"skips on the suite's own import error: {found}"
