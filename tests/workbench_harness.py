"""The workbench under test: a ``sigmar serve`` process, and Debian's Chromium driven by Playwright.

Shared by the workbench's tests (tests/test_workbench*.py import it) and the scripts that measure it
or take its screenshots (``workbench_latency.py``, ``workbench_hostile_requests.py``,
``workbench_screenshots.py``).

- :func:`serve` starts ``sigmar serve --port 0`` and waits until it answers; :meth:`Served.stop`
  stops it as Ctrl-C would and returns the processes it had started, so a caller can check that
  none is left.
- Playwright (PyPI) is only the driver: :func:`launch` starts the system's ``/usr/bin/chromium``
  (``install.sh`` installs it with apt) and never downloads a browser.  Where no browser
  can start, :func:`why_no_browser` says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sigmar.encoders.processes.guard import descendants, die_with_parent

CHROMIUM = Path("/usr/bin/chromium")
# A board every check after a hostile request must still judge rightly (the real game's first).
SOLVABLE = (Path(__file__).resolve().parents[1] / "instances" / "real-game.txt").read_text().split("\n\n")[0] + "\n"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class Served:
    process: subprocess.Popen[str]
    url: str
    token: str = ""  # the page's token (read from the page, as the page's script does)

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.url.split("//")[1].rstrip("/").rsplit(":", 1)
        return host, int(port)

    def post(self, path: str, body: bytes | dict[str, Any], timeout: float = 120) -> tuple[int, dict[str, Any]]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path.lstrip("/"), data=data, method="POST")
        request.add_header("Content-Type", "application/json")
        request.add_header("X-Sigmar-Token", self.token)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    def get(self, path: str, timeout: float = 60) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def workers(self) -> list[int]:
        return descendants(self.process.pid)

    def stop(self) -> list[int]:
        """Stop the server as Ctrl-C would; the processes it had started (to check none is left)."""
        started = self.workers()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        return started


def serve(*args: str | Path, time_limit: float = 20.0, cwd: Path | None = None) -> Served:
    """``sigmar serve --port 0 ARGS``, once it prints its URL (a loaded machine may take a while)."""
    command = [sys.executable, "-m", "sigmar.runners.cli", "serve", "--port", "0", "--time-limit", str(time_limit)]
    process = subprocess.Popen(
        [*command, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=cwd,
        preexec_fn=die_with_parent,  # a harness killed outright takes its server along (its workers follow it)
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "http://" not in line:
        process.kill()
        raise AssertionError(f"the server did not start: {line!r} {process.stderr.read() if process.stderr else ''}")
    url = line.split()[2]
    served = Served(process, url)
    end = time.monotonic() + 60
    while time.monotonic() < end:  # the workers start with the application
        try:
            if served.get("api/health")[0] == 200:
                served.token = page_token(served.get("/")[1])
                return served
        except OSError:
            pass
        time.sleep(0.05)
    served.stop()
    raise AssertionError("the server never answered /api/health")


@contextlib.contextmanager
def serve_json(*args: str | Path) -> Iterator[tuple[subprocess.Popen[str], dict[str, Any], Served]]:
    """``sigmar serve ARGS --port 0 --workers 1 --json``: its process, the one JSON record it prints first and
    the server, stopped on the way out as Ctrl-C would (killed if it never printed the record)."""
    command = [sys.executable, "-m", "sigmar.runners.cli", "serve", *map(str, args)]
    process = subprocess.Popen(
        [*command, "--port", "0", "--workers", "1", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=die_with_parent,  # a harness killed outright takes its server along
    )
    assert process.stdout is not None
    served = None
    try:
        record = json.loads(process.stdout.readline())
        served = Served(process, record["url"])
        yield process, record, served
    finally:
        if served is not None:
            served.stop()
        else:
            process.kill()
        process.wait(30)


def page_token(page: bytes) -> str:
    """The token the server wrote into its page (``<meta name="sigmar-token" content="...">``)."""
    found = re.search(rb'<meta name="sigmar-token" content="([A-Za-z0-9_-]+)">', page)
    assert found, "the page holds its token"
    return found.group(1).decode()


async def flood(served: Served, count: int, seconds: float) -> Counter[str]:
    """``count`` requests at once, each on its own connection; the statuses they got (bounded by ``seconds``)."""
    host, port = served.address
    body = json.dumps({"text": SOLVABLE}).encode()
    request = (
        f"POST /api/verdict HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"X-Sigmar-Token: {served.token}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body

    async def one() -> str:
        try:
            reader, writer = await asyncio.open_connection(host, int(port))
            writer.write(request)
            await writer.drain()
            line = await reader.readline()
            writer.close()
            return line.decode().split(" ")[1] if line else "closed"
        except OSError as exc:
            return f"refused ({type(exc).__name__})"

    tasks = [asyncio.ensure_future(one()) for _ in range(count)]
    done, pending = await asyncio.wait(tasks, timeout=seconds)
    for task in pending:
        task.cancel()
    return Counter([t.result() for t in done] + ["no answer in time"] * len(pending))


def still_well(served: Served) -> str:
    health = served.get("/api/health")[0]
    status, answer = served.post("/api/verdict", {"text": SOLVABLE})
    ok = health == 200 and status == 200 and answer.get("status") == "solved" and answer.get("verified")
    return "yes" if ok else f"NO (health {health}, verdict {status} {answer.get('status')})"


def executable() -> Path | None:
    if CHROMIUM.exists():
        return CHROMIUM
    found = shutil.which("chromium")
    return Path(found) if found else None


def why_no_browser() -> str | None:
    """None when Playwright and Chromium are both here, else what is missing (for the skip message)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install playwright; install.sh does)"
    if executable() is None:
        return f"no Chromium at {CHROMIUM} (apt-get install chromium; install.sh does)"
    return None


def launch(playwright: Any) -> Any:
    """The system Chromium, headless, with nothing that would reach the network on its own."""
    return playwright.chromium.launch(executable_path=str(executable()), args=FLAGS, headless=True)
