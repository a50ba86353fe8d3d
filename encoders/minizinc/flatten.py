"""A Chuffed run in two halves: Debian's native MiniZinc flattens, the warm WebAssembly MiniZinc solves.

Why: of a warm Chuffed run on a dense side-6 deal (about 1.1 s of CPU), most went to the WebAssembly
MiniZinc flattening the model; the native compiler does it in 0.15-0.2 s, given Chuffed's own library
(:mod:`.wasm_library`).  The FlatZinc goes to the warm server in the request itself (no file to share),
and the server's Chuffed solves it as it would a model it flattened itself.

What the ``minizinc`` Python package sees is what it saw before: one run's JSON stream.  A FlatZinc run
prints its solutions as ``dzn`` (there is no model to give them a JSON form), so :func:`translate` turns
each back into the JSON object the package reads (:func:`parse_dzn`); the compiler's warnings become the
stream's warning lines (the backend keeps them as notes), and its errors the run's error.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sigmar.encoders.processes.guard import guarded

# The package's options that shape the output of a model's run: a FlatZinc run has no model output to shape
# (its solutions are translated here), and --output-time stays (it stamps each solution with its time).
OUTPUT_ONLY = {"--output-objective": 0, "--output-output-item": 0, "--output-mode": 1}
# Options for the compiler rather than the solver (with how many values follow each).
COMPILER = {"--allow-multiple-assignments": 0, "-D": 1, "--cmdline-data": 1, "-I": 1, "--search-dir": 1}
MODEL_FILES = (".mzn", ".dzn", ".json")
FLAT_NAME = "sigmar-flat.fzn"  # the FlatZinc's name in the server's file system
# Seconds the solver is given at least, whatever the compiler took of the time limit.
LEAST = 0.05

Serve = Callable[[list[str], dict[str, str]], Awaitable[dict[str, Any]]]


def split(args: list[str]) -> tuple[list[str], list[str], float | None]:
    """The package's arguments as (the compiler's, the solver's, the time limit in seconds or None)."""
    compiler: list[str] = []
    solver: list[str] = []
    limit = None
    k = 0
    while k < len(args):
        arg = args[k]
        if arg in OUTPUT_ONLY:
            k += 1 + OUTPUT_ONLY[arg]
            continue
        if arg == "--time-limit":
            limit = float(args[k + 1]) / 1000
            k += 2
            continue
        if arg in COMPILER:
            compiler += args[k : k + 1 + COMPILER[arg]]
            k += 1 + COMPILER[arg]
            continue
        (compiler if arg.endswith(MODEL_FILES) else solver).append(arg)
        k += 1
    return compiler, solver, limit


async def flatten(config: Path, compiler_args: list[str]) -> tuple[int, str, str]:
    """The native MiniZinc's FlatZinc for ``config``'s solver: (exit code, FlatZinc, stderr)."""
    exe = shutil.which("minizinc") or "minizinc"
    # --output-mode json marks every variable the model's JSON output holds as an output of the FlatZinc.
    argv = [exe, "-c", "--solver", str(config), "--output-mode", "json", *compiler_args]
    argv += ["--output-fzn-to-stdout", "--no-output-ozn"]
    proc = await asyncio.create_subprocess_exec(
        *guarded(argv), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        out, err = await proc.communicate()
    except asyncio.CancelledError:
        if proc.returncode is None:
            proc.terminate()  # the guard kills the compiler and exits
            await asyncio.shield(proc.wait())
        raise
    return int(proc.returncode or 0), out.decode(errors="replace"), err.decode(errors="replace")


async def run_flattened(solver_id: str, args: list[str], config: Path, serve: Serve) -> dict[str, Any]:
    """One run of the package's ``args`` flattened natively and solved by ``serve``: the server's reply."""
    compiler_args, solver_args, limit = split(args)
    started = time.perf_counter()
    code, flat, err = await flatten(config, compiler_args)
    took = time.perf_counter() - started
    notes = [json.dumps({"type": "warning", "message": line}) for line in _warnings(err)]
    if code != 0:
        return {"code": code, "stdout": "", "stderr": err}
    if limit is not None:
        solver_args += ["--time-limit", str(max(round((limit - took) * 1000), round(LEAST * 1000)))]
    reply = await serve(["--solver", solver_id, FLAT_NAME, *solver_args], {FLAT_NAME: flat})
    if "stdout" in reply:
        stats = json.dumps({"type": "statistics", "statistics": {"nativeFlatTime": round(took, 4)}})
        reply = {**reply, "stdout": "\n".join([*notes, stats, translate(str(reply["stdout"]))])}
    return reply


def _warnings(stderr: str) -> list[str]:
    """The compiler's warnings, one message each (``Warning: ...`` paragraphs of its stderr)."""
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", stderr) if "warning" in p.lower()]


# Status lines that a FlatZinc run may print as they are, even in a JSON stream (the model found
# inconsistent as the FlatZinc is read), and their JSON form.
RAW_STATUS = {
    "=====UNSATISFIABLE=====": "UNSATISFIABLE",
    "=====UNKNOWN=====": "UNKNOWN",
    "=====ERROR=====": "ERROR",
    "=====UNBOUNDED=====": "UNBOUNDED",
    "=====UNSATorUNBOUNDED=====": "UNSAT_OR_UNBOUNDED",
    "==========": "ALL_SOLUTIONS",
}


def translate(stdout: str) -> str:
    """A FlatZinc run's JSON stream with each ``dzn`` solution given as the JSON a model's run prints."""
    lines = []
    for line in stdout.splitlines():
        if line.strip() in RAW_STATUS:
            line = json.dumps({"type": "status", "status": RAW_STATUS[line.strip()]})
        elif line.startswith("%"):  # a comment printed as it is ("% Top level failure!")
            line = json.dumps({"type": "comment", "comment": line})
        elif line.startswith("{") and '"solution"' in line:
            message = json.loads(line)
            output = message.get("output", {})
            if message.get("type") == "solution" and "dzn" in output and "json" not in output:
                message["output"] = {"json": parse_dzn(str(output["dzn"]))}
                message.setdefault("time", 0)
                line = json.dumps(message)
        lines.append(line)
    return "\n".join(lines) + ("\n" if lines else "")


_ARRAY = re.compile(r"array(\d+)d\((.*)\[(.*)\]\)", re.S)
_RANGE = re.compile(r"(-?\d+)\.\.(-?\d+)")


def parse_dzn(text: str) -> dict[str, Any]:
    """``name = value;`` assignments of integers, Booleans and arrays of them, as MiniZinc's JSON gives them
    (an n-dimensional array as nested lists).  Anything else raises ValueError."""
    values: dict[str, Any] = {}
    for statement in text.split(";"):
        if not statement.strip():
            continue
        name, equals, value = statement.partition("=")
        if not equals or not name.strip().isidentifier():
            raise ValueError(f"not an assignment: {statement.strip()!r}")
        values[name.strip()] = _value(value.strip())
    return values


def _value(text: str) -> Any:
    array = _ARRAY.fullmatch(text)
    if array is None:
        if text.startswith("["):
            return [_scalar(x) for x in text.strip("[]").split(",") if x.strip()]
        return _scalar(text)
    dims = int(array.group(1))
    sizes = [max(int(hi) - int(lo) + 1, 0) for lo, hi in _RANGE.findall(array.group(2))]
    if len(sizes) != dims:
        raise ValueError(f"an array's index sets are not ranges: {text[:80]!r}")
    flat = [_scalar(x) for x in array.group(3).split(",") if x.strip()]
    if len(flat) != math.prod(sizes):
        raise ValueError(f"an array's size does not match its index sets: {text[:80]!r}")
    return _shaped(flat, sizes)


def _shaped(flat: list[Any], sizes: list[int]) -> list[Any]:
    if len(sizes) <= 1:
        return flat
    step = math.prod(sizes[1:])
    return [_shaped(flat[k * step : (k + 1) * step], sizes[1:]) for k in range(sizes[0])]


def _scalar(text: str) -> int | bool:
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    raise ValueError(f"not an integer or a Boolean: {text[:40]!r}")
