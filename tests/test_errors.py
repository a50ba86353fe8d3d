"""One base class for the suite's errors (models/errors.py), and the command line catches that one."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from sigmar.models.errors import SigmarError
from sigmar.runners.cli import main

ROOT = Path(__file__).resolve().parents[1]
# Not errors of the suite: the standalone DRUP checker's own (its callers turn it into a CertificateError).
OUTSIDE = {"runners.checking.rup_check.ProofFormatError"}


def error_classes() -> list[str]:
    """Every class of the three packages named like an error (``...Error``, ``...Failure``, ``Unknown...``)."""
    found = []
    for package in ("models", "encoders", "runners"):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                name = getattr(node, "name", "")
                if isinstance(node, ast.ClassDef) and (
                    name.endswith(("Error", "Failure"))
                    and name != "Failure"  # fuzz_grade.Failure: a kind of finding
                    or name.startswith("Unknown")
                    or name == "Malformed"
                ):
                    found.append(f"{module}.{name}")
    return found


def test_every_error_of_the_suite_is_a_sigmar_error() -> None:
    names = error_classes()
    assert len(names) >= 15, names  # a scan that finds nothing would pass below
    for dotted in names:
        if dotted in OUTSIDE:
            continue
        module, _, name = dotted.rpartition(".")
        cls = getattr(importlib.import_module(f"sigmar.{module}"), name)
        assert issubclass(cls, SigmarError), dotted


def test_the_command_line_turns_any_of_them_into_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sigmar.runners.cli import solve

    class Made(SigmarError):
        pass

    def refuse(args: object) -> int:
        raise Made("a made-up refusal")

    monkeypatch.setattr(solve, "run", refuse)
    assert main(["solve", "-"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "sigmar solve: a made-up refusal"
