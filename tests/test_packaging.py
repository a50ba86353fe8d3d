"""A wheel install works on its own: the templates are package data, not files of the repository."""

from __future__ import annotations

import site
import subprocess
import sys
import venv
from pathlib import Path

from sigmar.models.boardfile import parse_boards

ROOT = Path(__file__).resolve().parents[1]


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
    # The dependencies come from this interpreter's site-packages; sigmar itself only from the wheel.  When
    # the tests run in a virtual environment (scripts/install.sh makes .venv), the "system" packages of a
    # new venv are the base interpreter's, so a .pth file hands it this environment's site-packages too (a
    # .pth line only adds a path: the editable install's import hook there is not run).
    venv.create(tmp_path / "env", system_site_packages=True, with_pip=False)
    python = tmp_path / "env" / "bin" / "python"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    inner = tmp_path / "env" / "lib" / version / "site-packages"
    (inner / "outer-environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)]
    subprocess.run(install, check=True, capture_output=True, timeout=300)
    where = subprocess.run(
        [str(python), "-c", "import sigmar.models.templates as t; print(t.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    ).stdout
    assert str(tmp_path / "env") in where, where
    made = subprocess.run(
        [str(python), "-m", "sigmar.runners.cli", "generate", "--template", "ondrovo:3", "--seed", "1"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    (board,) = parse_boards(made.stdout, "generated")
    assert len(board.tiles) == 55
