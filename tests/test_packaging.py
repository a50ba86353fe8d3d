"""A wheel install works on its own: the templates are package data, not files of the repository."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

from sigmar.models.boardfile import parse_boards

ROOT = Path(__file__).resolve().parents[1]


def run_in(python: Path, *args: str, cwd: Path) -> str:
    """What ``python ARGS`` prints, run in ``cwd`` (it must succeed)."""
    return subprocess.run([str(python), *args], check=True, capture_output=True, text=True, cwd=cwd, timeout=120).stdout


def test_a_wheel_install_generates_boards_from_its_packaged_templates(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    build = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-q",
        "-w",
        str(wheels),
        str(ROOT),
    ]
    subprocess.run(build, check=True, capture_output=True, timeout=300)
    (wheel,) = wheels.glob("sigmar-*.whl")
    # The dependencies come from this interpreter's site-packages; sigmar itself only from the wheel.
    # When this interpreter is a virtual environment, system_site_packages would not see them: a .pth
    # names the folder instead (its own .pth files, the editable hook, stay unread).
    venv.create(tmp_path / "env", with_pip=False)
    python = tmp_path / "env" / "bin" / "python"
    (purelib,) = (tmp_path / "env" / "lib").glob("python3*/site-packages")
    (purelib / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)]
    subprocess.run(install, check=True, capture_output=True, timeout=300)
    where = run_in(python, "-c", "import sigmar.models.templates as t; print(t.__file__)", cwd=tmp_path)
    assert str(tmp_path / "env") in where, where
    # The plugin API (docs/formats.md#plugins) comes with the wheel; run from a checkout, the checkout's sigmar/
    # folder (first on sys.path) still finds the installed subpackages.
    api = "from sigmar import Backend, Board, Move, Result, Status, Reason, Certificate, CertificateKind; "
    for cwd in (tmp_path, ROOT):
        found = run_in(python, "-c", api + "import sigmar.models.board as b; print(b.__file__)", cwd=cwd)
        assert str(tmp_path / "env") in found, (cwd, found)
    made = run_in(
        python, "-m", "sigmar.runners.cli", "generate", "--template", "ondrovo:3", "--seed", "1", cwd=tmp_path
    )
    (board,) = parse_boards(made, "generated")
    assert len(board.tiles) == 55
    # The workbench's page (sigmar serve) is package data too: served from the wheel, not the checkout.
    page = run_in(
        python,
        "-c",
        "from sigmar.runners.design.workbench import page_files; print(sorted(page_files()))",
        cwd=tmp_path,
    )
    assert page.strip() == "['/', '/static/workbench.css', '/static/workbench.js']", page
    # So are the JSON Schemas of the outputs (docs/formats.md#json-schemas), where importlib.resources finds them.
    shipped = run_in(
        python,
        "-c",
        "from importlib.resources import files; print((files('sigmar') / 'schemas').joinpath("
        "'solve.schema.json').read_text())",
        cwd=tmp_path,
    )
    assert '"$id": "https://sigmar.invalid/schemas/solve.schema.json"' in shipped, shipped[:200]


def test_every_package_folder_is_listed_for_the_wheel() -> None:
    """A folder of modules missing from ``[tool.setuptools] packages`` would be left out of the wheel."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {"sigmar"}
    for top in ("models", "encoders", "runners"):
        for init in (ROOT / top).rglob("__init__.py"):
            folders.add(".".join(("sigmar", *init.parent.relative_to(ROOT).parts)))
    assert folders == listed
