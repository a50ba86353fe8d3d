#!/usr/bin/env bash
# Install everything sigmar needs on a fresh Debian machine: the MiniZinc tool
# chain (Debian's `minizinc`, which brings Gecode), a C compiler for the DRUP
# checker's core (runners/_drup.c), and the Python package with its dev
# extras.  Safe to run again: it skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v minizinc >/dev/null 2>&1 || ! command -v fzn-gecode >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1; then
    sudo_cmd=""
    if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq minizinc gcc >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check -e ".[dev]"
python3 -c "import sigmar.runners._drup" 2>/dev/null \
    || echo "note: the C DRUP checker was not built (no compiler or Python headers); proofs are checked the slower way"
echo "sigmar installed: $(command -v sigmar)"
