"""The docs' ``--sat-cmd "cadical -q"`` example (README, docs/cnf.md) with Debian's ``cadical``.

``install.sh`` installs the package (best effort, like gcc); these tests
run the example as the docs show it: encode, ``cadical -q``, decode; and the
one-step ``solve --sat-cmd "cadical -q"``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from sigmar.runners.cli import main
from tests.conftest import REAL_GAME

ROOT = Path(__file__).resolve().parents[1]
BOARD = REAL_GAME

needs_cadical = pytest.mark.skipif(
    shutil.which("cadical") is None, reason="no 'cadical' on PATH: install.sh installs Debian's package"
)


def test_install_script_installs_debians_cadical_when_it_is_missing() -> None:
    script = (ROOT / "install.sh").read_text()
    assert re.search(r"command -v cadical .*\|\| want\+=\(cadical\)", script)
    assert 'apt_install "${want[@]}"' in script


@needs_cadical
def test_encode_cadical_decode_as_the_docs_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["encode", str(BOARD), "--to", "dimacs", "-o", str(tmp_path / "rg.cnf")]) == 0
    formula = tmp_path / "rg.0.cnf"
    with (tmp_path / "rg.0.out").open("w") as out:
        done = subprocess.run(["cadical", "-q", str(formula)], stdout=out, timeout=300, check=False)
    assert done.returncode == 10  # SATISFIABLE
    capsys.readouterr()
    code = main(["decode", str(BOARD), str(tmp_path / "rg.0.out"), "--sidecar", str(tmp_path / "rg.0.vars.json")])
    assert code == 0
    assert "valid: the board is cleared" in capsys.readouterr().out


@needs_cadical
def test_solve_with_sat_cmd_cadical(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from sigmar.encoders.cnf import SAT_CMD_ENV

    monkeypatch.setenv(SAT_CMD_ENV, "")  # restored after the test: --sat-cmd sets it for the workers
    code = main(["solve", str(BOARD), "-b", "cnf:external", "--sat-cmd", "cadical -q", "--json"])
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    assert records and all(r["status"] == "solved" and r["verified"] for r in records)
