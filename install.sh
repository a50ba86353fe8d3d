#!/usr/bin/env bash
# Install everything sigmar needs on a fresh Debian machine, into a virtual
# environment at .venv (PEP 668: Debian's own python3 refuses `pip install`
# outside one, and a venv is Python's own answer to that).  Then `.venv/bin/sigmar`
# is the command, and `.venv/bin/python -m pytest` runs the tests.
#
# From Debian: the MiniZinc tool chain (`minizinc`, which brings Gecode), gcc
# and the Python headers for the DRUP checker's C core (runners/checking/_drup.c),
# python3-venv where the interpreter has no ensurepip, and CaDiCaL (the
# external SAT solver the docs' `--sat-cmd` example uses), and Chromium, the browser the workbench's
# tests drive through Playwright (pip's `playwright` is only the driver: it is pointed at Debian's
# /usr/bin/chromium and never downloads a browser of its own).  From npm: Chuffed,
# inside the WebAssembly MiniZinc of npm's "minizinc" package, since Debian
# packages no Chuffed (encoders/minizinc/minizinc_wasm.cjs runs it).  Safe to run again:
# it skips what is already there.
#
# PYTHON=/path/to/python3.X picks the interpreter (any CPython 3.11 or newer;
# default: the python3 on PATH).
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3}
VENV=.venv

# apt-get install PACKAGES, as root or through sudo; `apt-get update` once per run.
# Without apt-get, or without root and sudo, it says what to install by hand.
updated=""
apt_install() {
    local sudo_cmd=""
    if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
    if ! command -v apt-get >/dev/null 2>&1 || { [ -n "$sudo_cmd" ] && ! command -v sudo >/dev/null 2>&1; }; then
        echo "install.sh: cannot apt-get install $* here (no apt-get, or not root and no sudo): install them and run again" >&2
        return 1
    fi
    if [ -z "$updated" ]; then $sudo_cmd apt-get update -qq; updated=1; fi
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$@" >/dev/null
}

if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "install.sh: $PYTHON is not Python 3.11 or newer (set PYTHON=/path/to/python3.11)" >&2
    exit 2
fi

# Needed: MiniZinc with Gecode, and venv (Debian splits ensurepip out of python3).
# Wanted: gcc and the Python headers (the C DRUP checker; without them proofs are
# checked the slower way) and CaDiCaL (only the docs' --sat-cmd example uses it).
need=()
want=()
command -v minizinc >/dev/null 2>&1 && command -v fzn-gecode >/dev/null 2>&1 || need+=(minizinc)
"$PYTHON" -c 'import ensurepip' 2>/dev/null || need+=(python3-venv)
command -v cc >/dev/null 2>&1 || want+=(gcc)
"$PYTHON" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    || want+=(python3-dev)
command -v cadical >/dev/null 2>&1 || want+=(cadical)
[ -x /usr/bin/chromium ] || want+=(chromium)
if [ ${#need[@]} -gt 0 ]; then apt_install "${need[@]}"; fi
if [ ${#want[@]} -gt 0 ]; then
    apt_install "${want[@]}" || echo "note: ${want[*]} not installed; sigmar works without them (without chromium the browser tests skip, saying why)"
fi

# npm's "minizinc" 4.5.1 bundles MiniZinc 2.10.0 with Chuffed 0.14.0; minizinc_wasm.cjs looks for it here.
MINIZINC_JS="$HOME/.local/share/sigmar/minizinc-js"
if [ ! -f "$MINIZINC_JS/node_modules/minizinc/dist/minizinc-worker.js" ]; then
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        apt_install nodejs npm || true
    fi
    if command -v npm >/dev/null 2>&1; then
        mkdir -p "$MINIZINC_JS"
        (cd "$MINIZINC_JS" && npm install --no-audit --no-fund --silent minizinc@4.5.1 2>&1 \
            | grep -v 'Unknown user config' || true)
    fi
    [ -f "$MINIZINC_JS/node_modules/minizinc/dist/minizinc-worker.js" ] \
        || echo "note: the WebAssembly MiniZinc is not installed; minizinc:chuffed will not be available"
fi

# A venv made by another interpreter (or a broken one) is made again.  The
# interpreters are compared after symbolic links (Debian's python3 is a link
# to python3.11, and a venv records the link's target).
base_of() { "$1" -c 'import os, sys; print(os.path.realpath(sys._base_executable))' 2>/dev/null; }
if [ ! -x "$VENV/bin/python" ] || [ "$(base_of "$VENV/bin/python")" != "$(base_of "$PYTHON")" ]; then
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
fi
# The cpmpy extra: CPMpy and the solvers it reaches (Choco, Exact, Z3) for the cpmpy:SOLVER backends.
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[dev,cpmpy]"
# pip's editable install brings the dependencies, the `sigmar` command and the package's metadata; the
# checkout is then reached through a plain path entry rather than setuptools' editable finder, which every
# start of this Python imported (pathlib, urllib.parse, ipaddress: 35 modules before any work, a fifth of a
# one-board solve).  The entry is .venv/sigmar-path, whose sigmar/ links to the checkout's folders as
# pyproject.toml maps them (sigmar.models is models/, ...): an edit, or a new module, is seen at once, as
# with the finder (setuptools' strict mode links each file, so a new module would need this script again).
"$VENV/bin/python" - <<'PY'
import shutil
import sys
import sysconfig
import tomllib
from pathlib import Path

root = Path.cwd()
links = Path(sys.prefix) / "sigmar-path"
mapping = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
shutil.rmtree(links, ignore_errors=True)
(links / "sigmar").mkdir(parents=True)
for name, folder in mapping.items():
    if name == "sigmar":  # the top-level package's own files (its subpackages are mapped apart)
        for entry in (root / folder).iterdir():
            if entry.name != "__pycache__":
                (links / "sigmar" / entry.name).symlink_to(entry)
    else:
        place = links.joinpath(*name.split("."))
        place.parent.mkdir(parents=True, exist_ok=True)
        place.symlink_to(root / folder, target_is_directory=True)
site = Path(sysconfig.get_paths()["purelib"])
hooks = list(site.glob("__editable__.sigmar-*.pth"))
if not hooks:
    sys.exit("install.sh: pip's editable install wrote no __editable__.sigmar-*.pth: cannot point it at the checkout")
for hook in hooks:  # pip's own file (its uninstall removes it): now a path entry, the finder never imported
    hook.write_text(f"{links}\n")
# pip's `sigmar` script imports re only to strip a Windows suffix from its own name (-script.pyw, .exe),
# some 5 M instructions of every start here; the same script without it (pip's uninstall still removes it).
script = Path(sys.prefix) / "bin" / "sigmar"
script.write_text(
    f"#!{sys.executable}\nimport sys\nfrom sigmar.runners.cli import console\nif __name__ == '__main__':\n"
    "    sys.exit(console())\n"
)
PY
"$VENV/bin/python" -c "import sigmar.runners.checking._drup" 2>/dev/null \
    || echo "note: the C DRUP checker was not built (no compiler or Python headers); proofs are checked the slower way"
echo "sigmar installed: $PWD/$VENV/bin/sigmar (activate with: . $VENV/bin/activate)"
