"""The workbench under test: a ``sigmar serve`` process, and Debian's Chromium driven by Playwright.

Shared by the workbench's tests (tests/test_workbench*.py load it with ``tests.script_loader``)
and the scripts that measure it or take its screenshots (``bench_workbench_latency.py``,
``bench_workbench_hostile.py``, ``workbench_screenshots.py``).

- :func:`serve` starts ``sigmar serve --port 0`` and waits until it answers; :meth:`Served.stop`
  stops it as Ctrl-C would and returns the processes it had started, so a caller can check that
  none is left.
- Playwright (PyPI) is only the driver: :func:`launch` starts the system's ``/usr/bin/chromium``
  (``scripts/install.sh`` installs it with apt) and never downloads a browser.  Where no browser
  can start, :func:`why_no_browser` says why.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sigmar.encoders.processes.guard import descendants

CHROMIUM = Path("/usr/bin/chromium")
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

    def post(self, path: str, body: bytes | dict[str, Any], timeout: float = 120) -> tuple[int, dict[str, Any]]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path.lstrip("/"), data=data, method="POST")
        request.add_header("Content-Type", "application/json")
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


def serve(*args: str | Path, time_limit: float = 20.0) -> Served:
    """``sigmar serve --port 0 ARGS``, once it prints its URL (a loaded machine may take a while)."""
    command = [sys.executable, "-m", "sigmar.runners.cli", "serve", "--port", "0", "--time-limit", str(time_limit)]
    process = subprocess.Popen(
        [*command, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
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
                return served
        except OSError:
            pass
        time.sleep(0.05)
    served.stop()
    raise AssertionError("the server never answered /api/health")


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
        return "Playwright is not installed (pip install playwright; scripts/install.sh does)"
    if executable() is None:
        return f"no Chromium at {CHROMIUM} (apt-get install chromium; scripts/install.sh does)"
    return None


def launch(playwright: Any) -> Any:
    """The system Chromium, headless, with nothing that would reach the network on its own."""
    return playwright.chromium.launch(executable_path=str(executable()), args=FLAGS, headless=True)
