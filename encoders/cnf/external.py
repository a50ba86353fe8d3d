"""``cnf:external``: an external DIMACS solver, the command taken from ``$SIGMAR_SAT_CMD`` (the CLI's ``--sat-cmd``).

In the command ``{cnf}`` stands for the formula's path (appended when the command has no ``{cnf}``) and
``{proof}`` for the path where the solver writes its DRAT/DRUP proof (``cadical -q {cnf} {proof}``).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

from sigmar.encoders.cnf.formula import Formula, parse_assignment
from sigmar.encoders.processes import guard
from sigmar.encoders.processes.guard import guarded

# ``cnf:external`` runs the DIMACS solver command in $SIGMAR_SAT_CMD (set by the CLI's --sat-cmd).
EXTERNAL = "external"
SAT_CMD_ENV = "SIGMAR_SAT_CMD"
CNF_PLACEHOLDER, PROOF_PLACEHOLDER = "{cnf}", "{proof}"
# The most an external solver may print (an assignment of a big board is a few MB).
OUTPUT_CAP = 64 * 2**20


def solve_external(
    sat_cmd: str,
    formula: Formula,
    limit: float | None,
    want_proof: bool,
    set_live: Callable[[Any], None],
    stopped: Callable[[], bool],
) -> tuple[bool | None, list[int] | None, dict[str, Any], str | None]:
    """An external DIMACS solver printing SAT-competition output; killed at the time limit.

    It runs under a guard (:mod:`guard`) in a folder of its own, so neither it, nor
    anything it starts, nor the formula or proof file outlives the run; its output is
    read up to ``OUTPUT_CAP`` bytes, and a solver that prints more is an error.  With
    ``{proof}`` in the command, the proof it wrote is read (a DRUP proof's limit) and
    sent as the certificate of its "no": the runner checks it like any other.
    """
    proof: str | None = None
    folder = tempfile.mkdtemp(prefix="sigmar-cnf-")  # in the run's folder, which a janitor removes
    proof_error = ""
    try:
        # The guard removes the solver's own folder (the formula) as the solver ends; the proof is
        # written beside it, so that it is still there to be read.
        solver_folder = os.path.join(folder, "solver")
        os.mkdir(solver_folder)
        path = os.path.join(solver_folder, "board.cnf")
        proof_path = os.path.join(folder, "board.drup")
        with open(path, "w") as out:
            out.write(formula.to_dimacs())
        argv = external_argv(sat_cmd, path, proof_path)
        proc = subprocess.Popen(
            guarded(argv, cleanup=solver_folder),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            process_group=0,
        )
        set_live(proc)
        try:
            output = read_capped(proc, limit, OUTPUT_CAP)
        finally:
            set_live(None)
            guard.stop(proc)
        if output is not None and want_proof:
            proof, proof_error = read_proof(proof_path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if output is None:  # the time limit
        return None, None, {}, None
    if stopped():
        return None, None, {}, None
    stats: dict[str, Any] = {"exit_code": proc.returncode}
    if len(output) > OUTPUT_CAP:
        stats["error"] = f"'{sat_cmd}' printed more than {OUTPUT_CAP // 2**20} MB; stopped"
        return None, None, stats, None
    if proc.returncode == 127 and not output:
        stats["error"] = f"'{sat_cmd}' could not be started"
        return None, None, stats, None
    status, assignment = parse_assignment(output.decode("utf-8", "replace"))
    if status == "SATISFIABLE":
        return True, assignment, stats, None
    if status == "UNSATISFIABLE":
        if proof_error:
            stats["proof"] = proof_error
        return False, None, stats, proof
    stats["error"] = f"'{sat_cmd}' printed no 's SATISFIABLE/UNSATISFIABLE' line (exit {proc.returncode})"
    return None, None, stats, None


def external_argv(command: str, cnf: str, proof: str) -> list[str]:
    """The external solver's argv: ``{cnf}`` and ``{proof}`` replaced by the paths (the formula appended when
    the command has no ``{cnf}``), each word split as a shell would."""
    words = shlex.split(command)
    argv = [w.replace(CNF_PLACEHOLDER, cnf).replace(PROOF_PLACEHOLDER, proof) for w in words]
    return argv if any(CNF_PLACEHOLDER in w for w in words) else [*argv, cnf]


def read_proof(path: str) -> tuple[str | None, str]:
    """The proof an external solver wrote, as DRUP text (binary DRAT turned into text), or (None, why not).

    A missing, oversized or unreadable proof gives no certificate: the "no" stays a claim.
    A binary proof that does not parse is sent as it is, so the check rejects it and says why.
    """
    from sigmar.models import drat_binary, input_limits

    try:
        input_limits.regular_size(path, input_limits.DRUP)
        with open(path, "rb") as proof:
            if not drat_binary.is_binary(proof.read(drat_binary.SNIFF)):
                proof.seek(0)
                return proof.read().decode("utf-8", "replace"), ""
            proof.seek(0)
            # converted a chunk at a time beside the proof, then read as the text it is
            with tempfile.TemporaryFile(prefix="sigmar-drat-", dir=os.path.dirname(path) or None) as text:
                try:
                    drat_binary.convert(proof, text)
                except drat_binary.DratError as exc:
                    return f"c binary DRAT that does not parse: {exc}\nnot a proof\n", ""
                text.seek(0)
                return text.read().decode("ascii"), ""
    except (input_limits.InputError, OSError) as exc:
        return None, f"no proof to read: {exc}"


def read_capped(proc: subprocess.Popen[bytes], limit: float | None, cap: int) -> bytes | None:
    """The process's standard output, at most ``cap`` + 1 bytes; None when ``limit`` seconds pass first.

    A reader thread fills the buffer so the time limit holds even while the
    solver prints nothing; past the cap it stops reading and kills the solver.
    """
    assert proc.stdout is not None
    stream = proc.stdout
    chunks: list[bytes] = []
    size = [0]

    def drain() -> None:
        while size[0] <= cap:
            chunk = os.read(stream.fileno(), 1 << 16)
            if not chunk:
                return
            chunks.append(chunk)
            size[0] += len(chunk)
        guard.stop(proc)

    deadline = None if limit is None else time.monotonic() + limit
    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    reader.join(limit)
    try:
        if reader.is_alive():  # still printing, or silent, at the limit
            raise subprocess.TimeoutExpired(proc.args, limit or 0)
        # Its output closed; it may still run (a script that closed stdout): the limit holds too.
        proc.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        guard.stop(proc)
        reader.join(5)
        return None
    return b"".join(chunks)
