"""What a benchmark run leaves to be counted: its row, a backend's summary line.

Plain records, below the bench engine that fills them and the renderers that show
them (the tables, the report, the plots), so that neither has to import the other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sigmar.models.result import Result, Status
from sigmar.runners.checking.grading import Grade, certified
from sigmar.runners.statistics.cost import NO_USAGE, Usage


@dataclass(frozen=True)
class Row:
    """One line of the CSV: a run's checked answer and its grade."""

    file: str
    board: str
    backend: str
    result: Result
    grade: Grade
    usage: Usage = NO_USAGE
    repeat: int = 1
    family: str = ""
    load: float = math.nan  # the 1-minute load average when the answer came in
    truth: str = ""  # the board's class: solvable, unsolvable or open (grading.BoardVerdict.truth)

    @property
    def out_of_memory(self) -> bool:
        """An error because the run went over the memory limit."""
        return self.usage.over_memory and self.result.status is Status.ERROR

    @property
    def reason(self) -> str:
        """The CSV's reason: why unsolvable, or ``memory`` for a run over the memory limit."""
        if self.out_of_memory:
            return "memory"
        return str(self.result.reason) if self.result.reason else ""

    @property
    def answered(self) -> bool:
        """A definite answer that is not wrong (a claimed "no" included): its time is a time to answer."""
        return self.result.status in (Status.SOLVED, Status.UNSOLVABLE) and self.grade is not Grade.WRONG

    @property
    def certified(self) -> str:
        """``yes`` for an ``unsolvable`` with a checked certificate, ``no`` for a claimed one, else empty."""
        return certified(self.result)

    @property
    def cpu_wall(self) -> float:
        """CPU seconds over wall seconds of this run (nan when either is missing)."""
        cpu, wall = self.usage.cpu_seconds, self.result.seconds
        return cpu / wall if cpu is not None and wall > 0 else math.nan

    def values(self) -> list[object]:
        r, u = self.result, self.usage
        return [
            self.file,
            self.board,
            self.backend,
            str(r.status),
            self.reason,
            f"{r.seconds:.6f}",
            "" if u.cpu_seconds is None else f"{u.cpu_seconds:.6f}",
            "" if u.memory_mb is None else f"{u.memory_mb:.1f}",
            str(self.grade),
            len(r.moves) if r.status is Status.SOLVED else "",
            int(r.verified),
            r.message.replace("\n", " "),
            self.certified,
            str(r.certificate.kind) if r.status is Status.UNSOLVABLE and r.certificate else "",
            self.family,
            self.repeat,
            "" if math.isnan(self.cpu_wall) else f"{self.cpu_wall:.3f}",
            "" if math.isnan(self.load) else f"{self.load:.2f}",
            self.truth,
            r.backend,  # the answer's own name: cnf:cadical153 where CaDiCaL settled a board asked of cnf
        ]


@dataclass(frozen=True)
class Summary:
    """One backend's line of the summary, over its median run per board (``--repeat``).

    ``certified`` and ``claimed`` count its ``unsolvable`` answers apart: a claim is
    never scored as an answer (PAR-2 charges it twice the limit, as an unknown).
    """

    backend: str
    runs: int  # boards (the median run of each)
    solved: int
    unsolvable: int  # certified + claimed
    unknown: int
    error: int
    wrong: int
    median: float
    p90: float
    p99: float
    max: float
    par2: float = math.nan  # mean per board; inf when a wrong answer disqualifies the backend
    cpu_ratio: float = math.nan  # CPU seconds / wall seconds over the runs with both measured
    memory_median: float = math.nan  # MB, over every run with a measure
    memory_max: float = math.nan
    out_of_memory: int = 0  # errors that were runs over --mem-limit
    certified: int = 0  # unsolvable with a checked certificate
    claimed: int = 0  # unsolvable without one (BenchExec's correct-unconfirmed, or unsettled)
    par2_cpu: float = math.nan  # PAR-2 by CPU seconds
    par2_solvable: float = math.nan  # PAR-2 over the boards a verified solution settled
    par2_unsolvable: float = math.nan  # ... and over those a checked certificate (or the counts) settled
    spread: float = math.nan  # median over boards of (max - min) / median seconds of the repetitions
    rank: int = 0  # 1 = best: most correct answers, then the lowest PAR-2; a disqualified backend last

    @property
    def correct(self) -> int:
        return self.solved + self.certified
