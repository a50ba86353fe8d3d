"""Hostile requests against the workbench: each gets a clear error or is served, and the server stays up.

    python scripts/bench/workbench_hostile_requests.py [--concurrent 1000] [--half-sent 2100]
        [--out docs/measured/workbench-hostile.md]

Starts ``sigmar serve`` on a free loopback port and sends, from this machine only:

- a 100 MB post (declared in Content-Length), and one sent chunked with no length;
- a board of side 50 (the board files' limit is side 16), and a full side-16 board;
- ``--concurrent`` requests at once (each a full side-6 board to judge), on as many connections.

After each it checks that the server answers ``/api/health`` and judges the next board rightly,
and it samples the memory of the server with its workers (the sum of their resident sizes)
throughout.  The bound: the server process plus its workers within ``workers x --memory-mb``
(each worker's own watchdog, its race's backend processes included) plus 512 MB for the server
itself.

Then the other web pages and the slow clients (issue 47), each with its target
(``tests/workbench_probes.py`` sends them; tests/test_workbench_gate.py asserts the same):

- 10 foreign Host values, 10 foreign Origins, a cross-site fetch, text/plain, form and
  missing-token posts: every one 421 or 403, and no job started;
- the page itself in Chromium through Playwright still works: tests/test_workbench_browser.py passes;
- ``--half-sent`` connections that send half a request's headers: each dropped within the read
  time-out (10 s, ``serve``'s default; counted from when the last was opened), while
  ``/api/health`` answers 200; a post whose body stops half way gets 408;
- 20 answers cancelled by their clients: no process of the server holds a client's socket after,
  a ``Connection: close`` answer reaches EOF, no connection is left in CLOSE-WAIT.

Prints the tables and writes them to OUT with the load average.  Every request goes to
127.0.0.1; the loops are bounded in count and time.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import os
import platform
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

from benchlib import ROOT, markdown_table

from sigmar.encoders.processes.usage import tree_rss_bytes
from tests import workbench_probes as probes
from tests.workbench_harness import Served, flood, serve, still_well

MB = 2**20
READ_TIMEOUT = 10.0  # `serve`'s default --read-timeout
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
    head = f"Content-Type: application/json\nX-Sigmar-Token: {served.token}\nContent-Length: {size}"
    return raw_post(served, "/api/verdict", head, [chunk] * 100)


def chunked_post(served: Served) -> tuple[int, str]:
    chunk = b" " * MB

    def chunks() -> Any:
        for _ in range(100):
            yield f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        yield b"0\r\n\r\n"

    head = f"Content-Type: application/json\nX-Sigmar-Token: {served.token}\nTransfer-Encoding: chunked"
    return raw_post(served, "/api/verdict", head, chunks())


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


Row = tuple[str, str, str, str]  # probe, what it got, target, met


def other_pages(served: Served) -> list[Row]:
    """The gate: every hostile request refused (421 or 403), no job started."""
    found, started = probes.gate_probe(served)
    kinds: dict[str, Counter[int]] = {}
    for kind, _, status in found:
        kinds.setdefault(kind, Counter())[status] += 1
    rows: list[Row] = []
    for kind, statuses in kinds.items():
        shown = ", ".join(f"{n} x {s}" for s, n in sorted(statuses.items()))
        target = "421" if kind == "foreign Host" else "403"
        rows.append((kind, shown, target, "yes" if set(statuses) == {int(target)} else "NO"))
    rows.append(("jobs started by all of them", str(started), "0", "yes" if started == 0 else "NO"))
    return rows


def browser_tests() -> Row:
    """tests/test_workbench_browser.py, run as the CI runs it (Chromium through Playwright)."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-n",
        "0",
        "-p",
        "no:cacheprovider",
        "tests/test_workbench_browser.py",
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    summary = last.strip("= ").split(" in ")[0]
    met = done.returncode == 0 and "skipped" not in summary
    return ("the page in Chromium (tests/test_workbench_browser.py)", summary, "all pass", "yes" if met else "NO")


def slow_clients(served: Served, count: int) -> list[Row]:
    found = probes.half_sent_probe(served, count, READ_TIMEOUT)
    answers = ", ".join(f"{n} x {a}" for a, n in sorted(found["answers"].items()))
    limit = found["open_s"] + READ_TIMEOUT + 5  # a margin for the loop's own pace on a busy machine
    dropped = found["dropped_after_s"]
    rows: list[Row] = [
        (
            f"{count} half-sent requests (opened in {found['open_s']:.1f} s)",
            f"{answers}; the last dropped {dropped:.1f} s after the first was opened",
            f"all dropped within {READ_TIMEOUT:g} s of opening",
            "yes" if set(found["answers"]) <= {"HTTP/1.1 408", "closed"} and dropped <= limit else "NO",
        ),
        (
            "/api/health and a verdict meanwhile",
            f"health {', '.join(map(str, found['health']))} (slowest {found['health_slowest_ms']:.0f} ms); "
            f"verdict {found['verdict']}",
            "200, solved",
            "yes" if set(found["health"]) == {200} and found["verdict"] == "solved" else "NO",
        ),
    ]
    line, seconds = probes.half_body_probe(served)
    met = line.startswith(b"HTTP/1.1 408") and seconds <= READ_TIMEOUT + 5
    rows.append(
        ("a post whose body stops half way", f"{line.decode()} after {seconds:.1f} s", "408", "yes" if met else "NO")
    )
    return rows


def cancelled(served: Served) -> list[Row]:
    found = probes.cancel_probe(served, 20)
    held = sum(len(v) for v in found["held"].values())
    eof = found["eof_s"]
    return [
        (
            f"20 cancelled answers ({found['replaced']} processes started in their workers' place)",
            f"{held} client sockets held by the server's processes; {found['close_wait']} in CLOSE-WAIT",
            "0 and 0",
            "yes" if held == 0 and found["close_wait"] == 0 else "NO",
        ),
        (
            "Connection: close on a connection open throughout",
            f"EOF after {eof * 1000:.0f} ms" if eof is not None else "NO EOF within 20 s",
            "EOF",
            "yes" if eof is not None else "NO",
        ),
    ]


def probe_others(half_sent: int) -> list[Row]:
    served = serve(time_limit=10)
    try:
        rows = other_pages(served)
        rows += slow_clients(served, half_sent)
        rows += cancelled(served)
    finally:
        served.stop()
    return [*rows, browser_tests()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--concurrent", type=int, default=1000)
    parser.add_argument("--half-sent", type=int, default=2100)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "measured" / "workbench-hostile.md")
    args = parser.parse_args(argv)
    first = os.getloadavg()[0]
    rows = run(args.concurrent)
    peak = max(float(r[2]) for r in rows)
    middle = os.getloadavg()[0]
    others = probe_others(args.half_sent)
    machine = f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores"
    command = f"python scripts/bench/workbench_hostile_requests.py --concurrent {args.concurrent}"
    if args.half_sent != 2100:
        command += f" --half-sent {args.half_sent}"
    text = (
        "# Workbench: hostile requests\n\n"
        f"`{command}` on {date.today().isoformat()}, "
        f"{machine}; load average {first:.1f} at the start, {middle:.1f} between the two parts, "
        f"{os.getloadavg()[0]:.1f} at the end. `sigmar serve` with "
        f"{WORKERS} workers of at most {MEMORY_MB} MB each; the bound on the server with its workers is {BOUND_MB} MB. "
        "Memory is the peak of the summed resident sizes while each request was handled.\n\n"
        + markdown_table(("request", "answer (status: first words)", "peak MB", "up and right after"), rows)
        + f"\n\nPeak {peak:.0f} MB: {'within' if peak <= BOUND_MB else 'OVER'} the bound of {BOUND_MB} MB.\n\n"
        "## Other web pages and slow clients\n\n"
        "Sent by `tests/workbench_probes.py` to a fresh server (`serve`'s defaults: `--read-timeout 10`); "
        "tests/test_workbench_gate.py asserts the same with a 2 s read time-out.\n\n"
        + markdown_table(("probe", "what it got", "target", "met"), others)
        + "\n"
    )
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    met = peak <= BOUND_MB and all(r[3] == "yes" for r in rows) and all(r[3] == "yes" for r in others)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
