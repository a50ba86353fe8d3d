"""``sigmar serve`` against other web pages and hostile clients (issue 47's S3, S5 and S8-S13).

Each request is sent by hand on a socket to a real server process, so every header is the test's
own: a foreign Host (DNS rebinding), a foreign Origin, a post that is not JSON or lacks the page's
token.  Each must be refused (421 or 403) with no work started (``/api/health`` counts the jobs
given to workers).  Then the connections: a ``Connection: close`` answer reaches EOF after workers
were replaced; no worker holds a client's socket; half-sent requests are dropped within the read
time-out while the server answers others; bad text is 400; hang-ups and Ctrl-C leave no traceback.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from sigmar.encoders.processes.guard import die_with_parent
from tests import workbench_harness as harness
from tests import workbench_probes as probes
from tests.conftest import INSTANCES, wait_for

READ_TIMEOUT = 2.0


@pytest.fixture(scope="module")
def server() -> Iterator[harness.Served]:
    served = harness.serve(INSTANCES / "real-game.txt")
    yield served
    served.stop()


def test_the_page_s_own_post_is_answered(server: harness.Served) -> None:
    host, port = server.address
    headers = probes.own(server, Origin=f"http://{host}:{port}", **{"Sec-Fetch-Site": "same-origin"})
    status, answer = probes.request(server, headers, probes.BOARD)
    assert status == 200 and answer["status"] == "solved", answer


def test_foreign_hosts_origins_and_posts_are_refused_and_start_no_work(server: harness.Served) -> None:
    """10 foreign Host values (421), 10 foreign Origins, text/plain, forms, no token (403): no job started."""
    found, started = probes.gate_probe(server)
    wrong = [(kind, what, status) for kind, what, status in found if status not in (403, 421)]
    assert not wrong, wrong
    assert all(status == 421 for kind, _, status in found if kind == "foreign Host")
    assert started == 0
    status, answer = probes.request(server, {**probes.own(server), "Host": "evil.example"})
    assert "answers to" in answer["error"] and "evil.example" in answer["error"]
    assert probes.request(server, probes.own(server), probes.BOARD)[0] == 200  # and the page's own is still answered


def test_the_page_opened_from_a_link_elsewhere_is_served_with_its_guards(server: harness.Served) -> None:
    host, port = server.address
    navigation = {"Host": f"{host}:{port}", "Sec-Fetch-Site": "cross-site"}
    with socket.create_connection(server.address, timeout=30) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in navigation.items()).encode())
        sock.sendall(b"Connection: close\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head = answer.split(b"\r\n\r\n")[0].lower()
    assert head.startswith(b"http/1.1 200") and b'name="sigmar-token"' in answer
    assert b"x-frame-options: deny" in head and b"frame-ancestors 'none'" in head


def test_lone_surrogates_are_400_not_a_traceback() -> None:
    served = harness.serve()
    try:
        for path in probes.POSTS:
            status, answer = probes.request(served, probes.own(served), b'{"text": "\\ud800"}', path=path)
            assert status == 400 and "surrogate" in answer["error"], (path, status, answer)
        status, answer = probes.request(served, probes.own(served), b'{"text": "  a a\\n . \\udfff .\\n  . .\\n"}')
        assert status == 400 and "\\udfff" in answer["error"]
    finally:
        served.stop()
    assert "Traceback" not in served.process.stderr.read()  # type: ignore[union-attr]


def test_after_20_cancelled_answers_no_worker_holds_a_client_socket_and_close_reaches_eof() -> None:
    """Workers forked from the running server held every open connection: a Connection: close answer
    never reached EOF, and closed connections stayed in CLOSE-WAIT."""
    served = harness.serve(time_limit=60)
    try:
        found = probes.cancel_probe(served, 20)
    finally:
        served.stop()
    assert found["replaced"] >= 1, found
    assert found["held"] == {}, found
    assert found["answered"].startswith(b"HTTP/1.1 200") and found["eof_s"] is not None and found["eof_s"] < 10, found
    assert found["close_wait"] == 0, found


def test_half_sent_requests_are_dropped_within_the_time_out_while_others_are_answered() -> None:
    """2,100 connections that send half their headers: the old server answered 503 to everything
    while they were open, and held them for good.  And a body half sent gets 408."""
    served = harness.serve("--read-timeout", str(READ_TIMEOUT))
    try:
        found = probes.half_sent_probe(served, 2100, READ_TIMEOUT)
        first_line, seconds = probes.half_body_probe(served)
        assert served.get("/api/health")[0] == 200
    finally:
        served.stop()
    assert found["health"] == [200] * 5 and found["verdict"] == "solved", found
    assert set(found["answers"]) <= {"HTTP/1.1 408", "closed"}, found  # none still open
    assert found["dropped_after_s"] < found["open_s"] + READ_TIMEOUT + 30, found  # a margin for a loaded machine
    assert first_line.startswith(b"HTTP/1.1 408") and seconds < READ_TIMEOUT + 20


def test_hang_ups_and_ctrl_c_leave_no_traceback() -> None:
    served = harness.serve(time_limit=60)
    head = "".join(f"{k}: {v}\r\n" for k, v in probes.own(served).items())
    head = f"POST /api/explain HTTP/1.1\r\n{head}"
    hard = probes.HARD
    try:
        with socket.create_connection(served.address, timeout=30) as sock:  # hangs up mid-body
            sock.sendall(f"{head}Content-Length: {len(hard)}\r\n\r\n".encode() + hard[:100])
            time.sleep(0.3)
        with socket.create_connection(served.address, timeout=30) as sock:  # hangs up mid-answer
            sock.sendall(f"{head}Content-Length: {len(hard)}\r\n\r\n".encode() + hard)
            time.sleep(0.5)
        inflight = socket.create_connection(served.address, timeout=30)  # still waiting when Ctrl-C comes
        inflight.sendall(f"{head}Content-Length: {len(hard)}\r\n\r\n".encode() + hard)
        time.sleep(0.5)
        assert served.get("/api/health")[0] == 200
    finally:
        started = served.stop()
    inflight.close()
    errors = served.process.stderr.read()  # type: ignore[union-attr]
    assert "Traceback" not in errors and "Exception" not in errors, errors[-2000:]
    assert served.process.returncode == 0
    assert wait_for(lambda: not [p for p in started if alive(p)], 30)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_serve_refuses_an_empty_host() -> None:
    """It listened on every interface and said "listening on , not only this machine"."""
    command = [sys.executable, "-m", "sigmar.runners.cli", "serve", "--host", "", "--port", "0"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError("serve --host '' started a server") from exc
    assert done.returncode == 2 and "names no address" in done.stderr, done.stderr
    assert "listening on ," not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_the_server_sends_each_answer_at_once_on_a_kept_alive_connection() -> None:
    """serve binds its own socket (proto 0), on whose connections asyncio leaves Nagle's algorithm on: an
    answer's body then waited for the delayed ACK of its headers, 40 ms on every request after the first."""
    pytest.importorskip("uvicorn", reason="serve needs the workbench's server (uvicorn)")
    from sigmar.runners.design.connections import _no_delay

    class Transport:
        def __init__(self, sock: socket.socket) -> None:
            self.sock = sock

        def get_extra_info(self, name: str) -> socket.socket | None:
            return self.sock if name == "socket" else None

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:  # as serve's bind() makes it
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        with socket.create_connection(listener.getsockname()):
            accepted, _ = listener.accept()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
                _no_delay(Transport(accepted))  # type: ignore[arg-type]
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
