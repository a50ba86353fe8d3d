"""The workbench's connections: each request's headers, then its body, within a time-out, and a cap on idle ones.

uvicorn's h11 protocol waits for a request's headers without end, and counts a connection that has
sent half a request against its concurrency limit like any other: a few thousand half-sent
requests ("slowloris") made every other request 503.  :func:`guarded_protocol` makes the
protocol class the server runs:

- the headers of each request must be complete within ``read_timeout`` seconds of the
  connection opening (or of the previous answer, on a kept-alive connection), else the connection
  gets 408 and is closed;
- its body must be complete within ``read_timeout`` seconds of its headers (the application's
  own reading answers 408 then; this closes the connection shortly after as a backstop, for a
  request whose body the application never reads);
- past ``max_connections`` open connections, a new one first drops the oldest connection still
  waiting for its headers; only when none is waiting is the new one refused (503).

A connection with a request being answered is never dropped by these: the answer's own time
limit (the worker pool's) bounds it.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections import OrderedDict
from typing import ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

BACKSTOP = 2.0  # seconds after the body's time-out at which its connection is closed if still open


def _raw(status: int, reason: str, message: str) -> bytes:
    body = json.dumps({"error": message}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode() + body


class Guarded(H11Protocol):
    """uvicorn's h11 protocol with the time-outs and the cap of :func:`guarded_protocol` (module docstring)."""

    read_timeout: ClassVar[float]
    max_connections: ClassVar[int]
    waiting: ClassVar[OrderedDict[Guarded, None]]  # connections waiting for headers, oldest first
    _timer: asyncio.TimerHandle | None = None
    _phase = ""  # "headers", "body" or "" (a request is being answered)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        _no_delay(transport)
        if len(self.connections) > self.max_connections:
            if self.waiting:
                next(iter(self.waiting)).drop(timed_out(self.read_timeout))
            else:
                transport.write(_raw(503, "Service Unavailable", "too many connections are open; try again"))
                transport.close()
                return
        self._await("headers")

    def connection_lost(self, exc: Exception | None) -> None:
        self._await("")
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def _follow(self) -> None:
        """Arm the time-out that fits the request's state: its headers, its body, or none."""
        state = self.conn.their_state
        if self.transport.is_closing():
            phase = ""
        elif state is h11.IDLE and (self.cycle is None or self.cycle.response_complete):
            phase = "headers"
        elif state is h11.SEND_BODY:
            phase = "body"
        else:
            phase = ""
        if phase != self._phase:
            self._await(phase)

    def _await(self, phase: str) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.waiting.pop(self, None)
        self._phase = phase
        if phase == "headers":
            self.waiting[self] = None
            self._timer = self.loop.call_later(self.read_timeout, self.drop, timed_out(self.read_timeout))
        elif phase == "body":
            self._timer = self.loop.call_later(self.read_timeout + BACKSTOP, self.drop, b"")

    def drop(self, answer: bytes) -> None:
        """Close the connection (a request half sent, or the oldest idle one past the cap)."""
        self._await("")
        if self.transport.is_closing():
            return
        if answer and self.conn.our_state is h11.IDLE:
            self.transport.write(answer)
        self.transport.close()


def _no_delay(transport: asyncio.Transport) -> None:
    """Send each write at once (TCP_NODELAY).  asyncio sets it only on sockets made with IPPROTO_TCP, and
    ``serve`` binds its own (proto 0): an answer's body then waited for the ACK of its headers, which the
    client delays, so every request after the first on a kept-alive connection took 40 ms more."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def timed_out(seconds: float) -> bytes:
    return _raw(408, "Request Timeout", f"the request did not come within {seconds:g} s")


def guarded_protocol(read_timeout: float, max_connections: int) -> type[Guarded]:
    """The protocol class for one server: its time-out, its cap, its own line of waiting connections."""
    attributes = {"read_timeout": read_timeout, "max_connections": max_connections, "waiting": OrderedDict()}
    return type("Guarded", (Guarded,), attributes)
