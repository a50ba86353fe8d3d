"""Chuffed's MiniZinc library, taken out of the WebAssembly MiniZinc's data, for the native compiler.

Why: the WebAssembly MiniZinc spends most of a warm Chuffed run flattening the model (about 1.1 s of CPU
on a dense side-6 deal; Debian's native MiniZinc flattens the same model in 0.15-0.2 s).  The native
compiler can flatten for Chuffed when it has Chuffed's own library (the ``fzn_*`` definitions and
redefinitions that tell it which constraints Chuffed takes as they are); that library ships inside the npm
package, in ``minizinc.data``, the Emscripten file package: LZ4 blocks of 2,048 bytes, with the blocks'
offsets and each file's place written into ``minizinc-worker.js``.  Reading it from the installed package
keeps the library exactly that of the Chuffed that will run the flattened model (nothing is vendored).

The library is written once per package version into the user's cache folder, with two redefinitions
added (``PATCH``) where Debian's MiniZinc 2.6 writes FlatZinc that the package's MiniZinc 2.10 no longer
reads.  Anything unexpected (no package, another file layout, a folder that cannot be written) gives
None, and Chuffed runs as before, flattened by the WebAssembly MiniZinc.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

from sigmar.encoders.minizinc.solvers import WASM_DIST, wasm_version

# Where Chuffed's library lies in the package's file system.
INSIDE = "/usr/share/minizinc/chuffed_internal/"
CHUNK = 2048  # the Emscripten LZ4 package's block size
# Added to the library's redefinitions.mzn (the native MiniZinc 2.6 reads the redefinitions; the 2.10 inside
# the package then reads the FlatZinc):
PATCH = """
% ---- added by sigmar (encoders/minizinc/wasm_library.py) for FlatZinc written by MiniZinc 2.6 ----
% MiniZinc 2.6 writes array_bool_or, which MiniZinc 2.7 deprecated and 2.10 no longer gives Chuffed.
predicate array_bool_or(array [int] of var bool: as, var bool: r) = bool_clause_reif(as, [], r);
% A set literal in set_in_reif, read from a FlatZinc file by the package's MiniZinc, stops Chuffed
% ("Unsupported expression"): membership of a fixed set is written as bounds or as equalities.
predicate set_in_reif(var int: x, set of int: s, var bool: b) =
  if card(s) = 0 then b = false
  elseif card(s) = max(s) - min(s) + 1 then b <-> (x >= min(s) /\\ x <= max(s))
  else b <-> exists (v in s) (x = v)
  endif;
"""
CONFIG = "sigmar-chuffed-flat.msc"
# The configuration's solver program: MiniZinc will not load a configuration without one, but it only
# flattens with it (``-c``); the FlatZinc goes to the WebAssembly Chuffed.
NEVER_RUN = "/bin/false"


def _length(data: bytes, i: int, length: int) -> tuple[int, int]:
    """An LZ4 length from its token's 4 bits: 15 goes on in the bytes at ``i`` (each added, until one below
    255). The length, and where the data after it starts."""
    if length == 15:
        while True:
            more = data[i]
            i += 1
            length += more
            if more != 255:
                break
    return length, i


def lz4_block(data: bytes) -> bytes:
    """One LZ4 block (the format without frames) decompressed."""
    out = bytearray()
    i, end = 0, len(data)
    while i < end:
        token = data[i]
        i += 1
        literals, i = _length(data, i, token >> 4)
        out += data[i : i + literals]
        i += literals
        if i >= end:
            break
        offset = data[i] | data[i + 1] << 8
        i += 2
        length, i = _length(data, i, token & 15)
        length += 4
        start = len(out) - offset
        if offset <= 0 or start < 0:
            raise ValueError("LZ4 block: a match before the start")
        if offset >= length:
            out += out[start : start + length]
        else:  # the match overlaps what it writes: byte by byte
            for k in range(length):
                out.append(out[start + k])
    return bytes(out)


def _numbers(source: str, key: str, after: int) -> list[int]:
    """The array ``key:[...]`` after position ``after`` of the minified script (numbers as 1e3 count too)."""
    found = re.compile(re.escape(key) + r":\[([0-9e.,]*)\]").search(source, after)
    if found is None:
        raise ValueError(f"no {key} in the package's script")
    return [int(float(x)) for x in found.group(1).split(",") if x]


def package_files(dist: Path, prefix: str) -> dict[str, bytes]:
    """{path below ``prefix``: bytes} of the files of the package's file system whose path starts so."""
    source = (dist / "minizinc-worker.js").read_text()
    data = (dist / "minizinc.data").read_bytes()
    at = source.index("cachedOffset:")
    offsets, sizes = _numbers(source, "offsets", at), _numbers(source, "sizes", at)
    compressed = _numbers(source, "successes", at)
    if not (len(offsets) == len(sizes) == len(compressed)):
        raise ValueError("the package's block tables differ in length")
    places = [
        (name, int(start), int(stop))
        for name, start, stop in re.findall(r'filename:"([^"]*)",start:(\d+),end:(\d+)', source)
        if name.startswith(prefix)
    ]
    if not places:
        raise ValueError(f"no file below {prefix} in the package")
    wanted = {k for _, start, stop in places for k in range(start // CHUNK, (stop - 1) // CHUNK + 1)}
    blocks: dict[int, bytes] = {}
    for k in sorted(wanted):
        raw = data[offsets[k] : offsets[k] + sizes[k]]
        blocks[k] = lz4_block(raw) if compressed[k] else raw
    files = {}
    for name, start, stop in places:
        first, last = start // CHUNK, (stop - 1) // CHUNK
        joined = b"".join(blocks[k] for k in range(first, last + 1))
        files[name[len(prefix) :]] = joined[start - first * CHUNK : stop - first * CHUNK]
    return files


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sigmar"


@functools.cache
def chuffed_library() -> Path | None:
    """The solver configuration (``.msc``) that flattens for the package's Chuffed, or None where none can be had."""
    version = wasm_version()
    if version is None or shutil.which("minizinc") is None:
        return None
    stamp = hashlib.sha256(PATCH.encode()).hexdigest()[:8]
    home = cache_root() / f"chuffed-library-{version}-{stamp}"
    config = home / CONFIG
    if config.is_file():
        return config
    try:
        files = package_files(WASM_DIST, INSIDE)
        if "redefinitions.mzn" not in files:
            raise ValueError("no redefinitions.mzn in Chuffed's library")
        files["redefinitions.mzn"] += PATCH.encode()
        home.parent.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(prefix=f".{home.name}-", dir=home.parent))
        try:
            for name, content in files.items():
                target = building / "mznlib" / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
            msc = {
                "id": "org.sigmar.chuffed-flattening",
                "name": "Chuffed's library (the native MiniZinc flattens; the WebAssembly Chuffed solves)",
                "version": version,
                "mznlib": str(home / "mznlib"),
                "executable": NEVER_RUN,
                "supportsMzn": False,
                "supportsFzn": True,
                "needsSolns2Out": True,
                "stdFlags": ["-a", "-f", "-n", "-r", "-s", "-t", "-v"],
            }
            (building / CONFIG).write_text(json.dumps(msc, indent=2) + "\n")
            os.rename(building, home)  # whole or not at all; another process may have been first
        finally:
            shutil.rmtree(building, ignore_errors=True)
    except (OSError, ValueError, IndexError, KeyError):
        pass
    return config if config.is_file() else None
