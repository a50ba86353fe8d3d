"""Hostile requests against a running workbench, each sent by hand on a socket so every header is the probe's own.

Shared by tests/test_workbench_gate.py (which asserts on what they find) and
``scripts/bench/workbench_hostile_requests.py`` (which records it):

- :func:`gate_probe`: foreign Host values, foreign Origins, posts that are not JSON or lack the
  page's token; what each got, and how many jobs the server started meanwhile (it must be none);
- :func:`cancel_probe`: answers cancelled by their clients (each replaces a worker, forked from the
  running server), then which TCP sockets the server's processes hold and whether a
  ``Connection: close`` answer on a connection open all along reaches EOF;
- :func:`half_sent_probe`: many connections that send half a request's headers, while
  ``/api/health`` and a verdict are asked; how soon each is dropped.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections import Counter
from typing import Any

from sigmar.models.boardfile import format_board
from sigmar.models.deal import deal
from tests.workbench_harness import Served

AIR = "  a a\n . . .\n  . .\n"
BOARD = json.dumps({"text": AIR}).encode()
# An explanation that takes seconds (its deepest play), so it is still in a worker when cancelled.
HARD = json.dumps({"text": format_board(deal("dense", 6, 1, 239))}).encode()


def request(
    served: Served,
    headers: dict[str, str],
    body: bytes = b"",
    method: str = "POST",
    path: str = "/api/verdict",
    timeout: float = 60,
) -> tuple[int, dict[str, Any]]:
    """One request with exactly ``headers`` (Host included) and ``Connection: close``; its status and JSON."""
    lines = [f"{method} {path} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items())]
    if body or method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    lines.append("Connection: close")
    with socket.create_connection(served.address, timeout=timeout) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, content = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if head else 0
    try:
        return status, json.loads(content or b"{}")
    except ValueError:
        return status, {"raw": content[:200].decode("latin-1")}


def own(served: Served, **extra: str) -> dict[str, str]:
    """The headers the page itself sends with a post (``extra`` added or replacing)."""
    host, port = served.address
    return {"Host": f"{host}:{port}", "Content-Type": "application/json", "X-Sigmar-Token": served.token, **extra}


def jobs(served: Served) -> int:
    """Jobs the server has given to its workers since it started."""
    return int(json.loads(served.get("/api/health")[1])["jobs"])


def foreign_hosts(port: int) -> list[str]:
    return [
        f"evil.example:{port}",
        f"localhost.evil.example:{port}",
        f"127.0.0.1.nip.io:{port}",  # a name that resolves to 127.0.0.1: DNS rebinding's kind
        f"127.0.0.1:{port + 1}",
        f"localhost:{port}0",
        "localhost",  # port 80
        f"[::2]:{port}",
        f"0.0.0.0:{port}",
        f"10.0.0.1:{port}",
        "",
    ]


def foreign_origins(host: str, port: int) -> list[str]:
    return [
        "http://evil.example",
        f"http://evil.example:{port}",
        f"https://{host}:{port}",
        f"http://{host}:{port + 1}",
        f"http://localhost:{port}",  # another origin than the page's own (127.0.0.1)
        "null",
        f"http://{host}.evil.example:{port}",
        "file://",
        f"http://[::1]:{port}",
        "chrome-extension://abcdefghijklmnop",
    ]


def misposts(served: Served) -> list[tuple[str, dict[str, str]]]:
    """Posts a page elsewhere could send unasked (no JSON type), or without the page's token."""
    page = own(served)
    return [
        ("text/plain", own(served, **{"Content-Type": "text/plain"})),
        ("form", own(served, **{"Content-Type": "application/x-www-form-urlencoded"})),
        ("multipart form", own(served, **{"Content-Type": "multipart/form-data; boundary=x"})),
        ("JSON in latin-1", own(served, **{"Content-Type": "application/json; charset=latin-1"})),
        ("no content type", {k: v for k, v in page.items() if k != "Content-Type"}),
        ("missing token", {k: v for k, v in page.items() if k != "X-Sigmar-Token"}),
        ("wrong token", own(served, **{"X-Sigmar-Token": wrong_token(served.token)})),
    ]


def wrong_token(token: str) -> str:
    """The token with its first character changed (``"x" + token[1:]`` was the token itself one time in 64)."""
    return ("y" if token[0] == "x" else "x") + token[1:]


POSTS = ("/api/verdict", "/api/draw", "/api/explain", "/api/play")


def gate_probe(served: Served) -> tuple[list[tuple[str, str, int]], int]:
    """Every hostile request as ``(kind, what, status)``, and the jobs started while they were sent."""
    host, port = served.address
    before = jobs(served)
    found: list[tuple[str, str, int]] = []
    for name in foreign_hosts(port):
        for method, path in (("POST", "/api/verdict"), ("GET", "/api/boards"), ("GET", "/")):
            status, _ = request(served, {**own(served), "Host": name}, BOARD if method == "POST" else b"", method, path)
            found.append(("foreign Host", f"{name!r} {method} {path}", status))
    for origin in foreign_origins(host, port):
        found.append(("foreign Origin", f"{origin} POST", request(served, own(served, Origin=origin), BOARD)[0]))
        status, _ = request(served, own(served, Origin=origin), method="GET", path="/api/boards")
        found.append(("foreign Origin", f"{origin} GET /api/boards", status))
    cross = own(served, **{"Sec-Fetch-Site": "cross-site"})
    found.append(("Sec-Fetch-Site: cross-site", "POST", request(served, cross, BOARD)[0]))
    for name, headers in misposts(served):
        for path in POSTS:
            found.append((name, f"POST {path}", request(served, headers, BOARD, path=path)[0]))
    return found, jobs(served) - before


def one_answer(sock: socket.socket) -> bytes:
    """One answer off a kept-alive connection (its head, then as many bytes as it says); its head."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"the connection closed after {data[:80]!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(x.split(b":")[1]) for x in head.lower().split(b"\r\n") if x.startswith(b"content-length"))
    while len(body) < length:
        body += sock.recv(65536)
    return head


def tcp_sockets_held(served: Served) -> dict[int, list[str]]:
    """TCP sockets (the listening one, clients' connections) held by any process the server started."""
    tcp = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            next(lines)
            tcp |= {line.split()[9] for line in lines}
    held: dict[int, list[str]] = {}
    for pid in served.workers():
        try:
            links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:
            continue  # it ended meanwhile
        found = [link for link in links if link.startswith("socket:[") and link[8:-1] in tcp]
        if found:
            held[pid] = found
    return held


def close_wait(served: Served) -> int:
    """Connections to the server's port left in CLOSE-WAIT (the client gone, a process still holding them)."""
    _, port = served.address
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            next(lines)
            for line in lines:
                fields = line.split()
                if fields[3] == "08" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 08: CLOSE_WAIT
                    count += 1
    return count


def cancel_probe(served: Served, count: int = 20) -> dict[str, Any]:
    """``count`` explanations cancelled by their clients, one connection kept open throughout (module docstring)."""
    host, port = served.address
    health = f"GET /api/health HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
    post = f"POST /api/explain HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
    post += f"X-Sigmar-Token: {served.token}\r\nContent-Length: {len(HARD)}\r\n\r\n"
    kept = socket.create_connection(served.address, timeout=30)
    try:
        workers = set(served.workers())
        seen = set(workers)
        for _ in range(count):
            kept.sendall(health)  # kept alive meanwhile
            one_answer(kept)
            with socket.create_connection(served.address, timeout=30) as sock:
                sock.sendall(post.encode() + HARD)
                time.sleep(0.3)  # the job is in a worker by now
            seen |= set(served.workers())
        end = time.monotonic() + 30
        while time.monotonic() < end and seen == workers:
            time.sleep(0.1)
            seen |= set(served.workers())
        time.sleep(1)  # the replacements are forked and running
        replaced = len((seen | set(served.workers())) - workers)
        kept.sendall(health)
        one_answer(kept)
        held = tcp_sockets_held(served)
        kept.settimeout(20)
        kept.sendall(health.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        started, answer = time.monotonic(), b""
        try:
            while chunk := kept.recv(65536):
                answer += chunk
            eof: float | None = time.monotonic() - started
        except TimeoutError:
            eof = None
        time.sleep(0.5)
        return {
            "replaced": replaced,
            "held": held,
            "eof_s": eof,
            "answered": answer[:15],
            "close_wait": close_wait(served),
        }
    finally:
        kept.close()


def half_sent_probe(served: Served, count: int, read_timeout: float) -> dict[str, Any]:
    """``count`` connections that send half a request's headers; what the server does meanwhile and with them."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 512), hard))
    host, port = served.address
    half = f"POST /api/verdict HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: appl".encode()
    socks: list[socket.socket] = []
    try:
        opened = time.monotonic()
        for _ in range(count):
            sock = socket.create_connection(served.address, timeout=30)
            sock.sendall(half)
            socks.append(sock)
        sent = time.monotonic()
        health, slowest = [], 0.0
        for _ in range(5):
            asked = time.monotonic()
            health.append(served.get("/api/health", timeout=10)[0])
            slowest = max(slowest, time.monotonic() - asked)
        verdict = served.post("/api/verdict", {"text": AIR}, timeout=60)[1].get("status")
        answers: Counter[str] = Counter()
        last = 0.0
        for sock in socks:  # each is dropped (a 408, then EOF) within the time-out
            sock.settimeout(max(1.0, read_timeout + 60 - (time.monotonic() - opened)))
            answer = b""
            try:
                while chunk := sock.recv(65536):
                    answer += chunk
                last = time.monotonic()
                answers[answer[:12].decode("latin-1") or "closed"] += 1
            except TimeoutError:
                answers["still open"] += 1
        return {
            "connections": count,
            "open_s": sent - opened,
            "health": health,
            "health_slowest_ms": 1000 * slowest,
            "verdict": verdict,
            "answers": answers,
            "dropped_after_s": last - opened,
        }
    finally:
        for sock in socks:
            sock.close()


def half_body_probe(served: Served) -> tuple[bytes, float]:
    """A post whose body stops half way: the first line of the answer, and the seconds until the connection closed."""
    lines = "".join(f"{k}: {v}\r\n" for k, v in own(served).items())
    with socket.create_connection(served.address, timeout=60) as sock:
        sock.sendall(f'POST /api/verdict HTTP/1.1\r\n{lines}Content-Length: 1000\r\n\r\n{{"text"'.encode())
        started, answer = time.monotonic(), b""
        while chunk := sock.recv(65536):
            answer += chunk
        return answer.split(b"\r\n")[0], time.monotonic() - started
