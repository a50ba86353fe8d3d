#!/usr/bin/env bash
# Install everything sigmar needs on a fresh Debian machine: the MiniZinc tool
# chain (Debian's `minizinc`, which brings Gecode), a C compiler for the DRUP
# checker's core (runners/_drup.c), Chuffed (the WebAssembly MiniZinc of npm's
# "minizinc" package, as Debian packages no Chuffed: encoders/minizinc_wasm.cjs
# runs it), and the Python package with its dev extras.  Safe to run again: it
# skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
# apt-get install PACKAGES, as root or through sudo.
apt_install() {
    local sudo_cmd=""
    if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$@" >/dev/null
}
if ! command -v minizinc >/dev/null 2>&1 || ! command -v fzn-gecode >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1; then
    apt_install minizinc gcc
fi
# npm's "minizinc" 4.5.1 bundles MiniZinc 2.10.0 with Chuffed 0.14.0; minizinc_wasm.cjs looks for it here.
MINIZINC_JS="$HOME/.local/share/sigmar/minizinc-js"
if [ ! -f "$MINIZINC_JS/node_modules/minizinc/dist/minizinc-worker.js" ]; then
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        apt_install nodejs npm || echo "note: could not install node and npm; minizinc:chuffed will not be available"
    fi
    if command -v npm >/dev/null 2>&1; then
        mkdir -p "$MINIZINC_JS"
        (cd "$MINIZINC_JS" && npm install --no-audit --no-fund --silent minizinc@4.5.1 2>&1 \
            | grep -v 'Unknown user config' || true)
    fi
    [ -f "$MINIZINC_JS/node_modules/minizinc/dist/minizinc-worker.js" ] \
        || echo "note: the WebAssembly MiniZinc is not installed; minizinc:chuffed will not be available"
fi
python3 -m pip install -q --disable-pip-version-check -e ".[dev]"
python3 -c "import sigmar.runners._drup" 2>/dev/null \
    || echo "note: the C DRUP checker was not built (no compiler or Python headers); proofs are checked the slower way"
echo "sigmar installed: $(command -v sigmar)"
