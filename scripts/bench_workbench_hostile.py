"""Hostile requests against the workbench: each gets a clear error or is served, and the server stays up.

    python scripts/bench_workbench_hostile.py [--concurrent 1000] [--out docs/measured/workbench-hostile.md]

Starts ``sigmar serve`` on a free loopback port and sends, from this machine only:

- a 100 MB post (declared in Content-Length), and one sent chunked with no length;
- a board of side 50 (the board files' limit is side 16), and a full side-16 board;
- ``--concurrent`` requests at once (each a full side-6 board to judge), on as many connections.

After each it checks that the server answers ``/api/health`` and judges the next board rightly,
and it samples the memory of the server with its workers (the sum of their resident sizes)
throughout.  The bound: the server process plus its workers within ``workers x --memory-mb``
(each worker's own watchdog, its race's backend processes included) plus 512 MB for the server
itself.  Prints a table and writes it to OUT with the load average.  Every request goes to
127.0.0.1; the loops are bounded in count and time.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import os
import platform
import sys
import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

from benchlib import ROOT, markdown_table
from workbench_harness import Served, flood, serve, still_well

from sigmar.runners.usage import tree_rss_bytes

MB = 2**20
WORKERS, MEMORY_MB = 3, 1024  # `serve`'s defaults: 2 workers for verdicts and moves, 1 for explanations
BOUND_MB = WORKERS * MEMORY_MB + 512


class Sampler:
    """The peak of the server's and its workers' summed resident memory, sampled every 20 ms."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self.running = pid, 0, True
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self) -> None:
        while self.running:
            self.peak = max(self.peak, tree_rss_bytes(self.pid))
            time.sleep(0.02)

    def take(self) -> float:
        peak, self.peak = max(self.peak, tree_rss_bytes(self.pid)), 0
        return peak / MB


def raw_post(served: Served, path: str, head: str, body_chunks: Any, timeout: float = 60) -> tuple[int, str]:
    """Send a request by hand (headers ``head``, then the chunks) and read the status line and body."""
    host, port = served.url.split("//")[1].rstrip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        connection.putrequest("POST", path)
        for line in head.splitlines():
            name, value = line.split(": ", 1)
            connection.putheader(name, value)
        connection.endheaders()
        try:
            for chunk in body_chunks:
                connection.send(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server refused the rest: its answer is waiting
        response = connection.getresponse()
        return response.status, response.read().decode()[:200]
    except (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected) as exc:
        return 0, f"connection closed: {exc}"
    finally:
        connection.close()


def big_post(served: Served) -> tuple[int, str]:
    size = 100 * MB
    chunk = b" " * MB
    return raw_post(served, "/api/verdict", f"Content-Type: application/json\nContent-Length: {size}", [chunk] * 100)


def chunked_post(served: Served) -> tuple[int, str]:
    chunk = b" " * MB

    def chunks() -> Any:
        for _ in range(100):
            yield f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        yield b"0\r\n\r\n"

    return raw_post(served, "/api/verdict", "Content-Type: application/json\nTransfer-Encoding: chunked", chunks())


def side_text(dim: int, symbol: str) -> str:
    rows = [dim + min(r, 2 * dim - 2 - r) for r in range(2 * dim - 1)]
    return "\n".join(" ".join(symbol * n) for n in rows) + "\n"


def side16() -> str:
    """Every cell of a side-16 board filled: 720 air round one metal (the counts pair up; the search must work)."""
    text = side_text(16, "a")
    middle = len(text) // 2
    at = text.index("a", middle)
    return text[:at] + "1" + text[at + 1 :]


def run(concurrent: int) -> list[tuple[str, str, str, str]]:
    served = serve(time_limit=10)
    sampler = Sampler(served.process.pid)
    rows: list[tuple[str, str, str, str]] = []
    try:
        baseline = tree_rss_bytes(served.process.pid) / MB
        rows.append((f"(the idle server and its {WORKERS} workers)", "", f"{baseline:.0f}", still_well(served)))
        sampler.take()
        attacks = [
            ("100 MB post, Content-Length declared", lambda: big_post(served)),
            ("100 MB post, chunked (no length)", lambda: chunked_post(served)),
            ("a board of side 50", lambda: served.post("/api/verdict", {"text": side_text(50, ".")})),
            ("a full board of side 16 (720 air round lead)", lambda: served.post("/api/verdict", {"text": side16()})),
        ]
        for name, attack in attacks:
            status, answer = attack()
            shown = answer if isinstance(answer, str) else (answer.get("error") or answer.get("status", ""))
            rows.append((name, f"{status}: {str(shown)[:110]}", f"{sampler.take():.0f}", still_well(served)))
        started = time.perf_counter()
        statuses = asyncio.run(flood(served, concurrent, 300))
        seconds = time.perf_counter() - started
        shown = ", ".join(f"{n} x {s}" for s, n in sorted(statuses.items()))
        rows.append(
            (f"{concurrent} requests at once ({seconds:.1f} s)", shown, f"{sampler.take():.0f}", still_well(served))
        )
    finally:
        sampler.running = False
        served.stop()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--concurrent", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "measured" / "workbench-hostile.md")
    args = parser.parse_args(argv)
    first = os.getloadavg()[0]
    rows = run(args.concurrent)
    peak = max(float(r[2]) for r in rows)
    machine = f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores"
    text = (
        "# Workbench: hostile requests\n\n"
        f"`python scripts/bench_workbench_hostile.py --concurrent {args.concurrent}` on {date.today().isoformat()}, "
        f"{machine}; load average {first:.1f} at the start, {os.getloadavg()[0]:.1f} at the end. `sigmar serve` with "
        f"{WORKERS} workers of at most {MEMORY_MB} MB each; the bound on the server with its workers is {BOUND_MB} MB. "
        "Memory is the peak of the summed resident sizes while each request was handled.\n\n"
        + markdown_table(("request", "answer (status: first words)", "peak MB", "up and right after"), rows)
        + f"\n\nPeak {peak:.0f} MB: {'within' if peak <= BOUND_MB else 'OVER'} the bound of {BOUND_MB} MB.\n"
    )
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    return 0 if peak <= BOUND_MB and all(r[3] == "yes" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
