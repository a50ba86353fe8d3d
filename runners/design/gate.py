"""Who may ask the workbench: its own page only, never another web page the user has open.

A server on 127.0.0.1 is reachable from every page the browser shows.  A page elsewhere can post
to it (a "simple" cross-site request: ``text/plain`` or a form needs no permission from the
server), and through DNS rebinding (its own name made to resolve to 127.0.0.1) it can even read
the answers.  So, before any request reaches the application (:class:`Gate`, an ASGI middleware,
so a refused request reads no body and starts no work):

- **Host** must name this server: a loopback name (``127.0.0.1``, ``localhost``, ``[::1]``) or the
  ``--host`` given, with the port it listens on; any other is 421 (a rebound name sends its own).
  Bound to every interface (``0.0.0.0`` or ``::``), this machine's own name and any address
  literal are accepted too: an address cannot be rebound, only a name can.
- **Origin**, when the browser sends one, must be this page's own (``http://`` and the Host);
  a ``Sec-Fetch-Site`` of ``cross-site`` or ``same-site`` on anything but opening the page is 403.
- A **post** must be ``application/json`` (which a page elsewhere cannot send without the
  server's leave, which this one never gives) and carry the **token** (``X-Sigmar-Token``): a
  random secret written into the page this server serves, which a page of another origin cannot
  read.  Else 403.

Every answer also tells the browser not to frame the page nor guess content types, and keeps the
page to its own scripts.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
WILDCARDS = frozenset({"0.0.0.0", "::"})
TOKEN_HEADER = "x-sigmar-token"
# Opening the page (and its script and style) from a link elsewhere is allowed: a shared
# ``#board=`` link is opened from a mail or a chat.  Nothing else may be asked from another site.
PAGE_PATHS = frozenset({"/", "/static/workbench.js", "/static/workbench.css"})
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (
        b"content-security-policy",
        b"default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
        b"frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    ),
]


def new_token() -> str:
    return secrets.token_urlsafe(32)


def host_literal(host: str) -> str:
    """An address as a Host header names it: IPv6 in brackets, names in lower case."""
    host = host.strip().lower()
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


@dataclass(frozen=True)
class Allowed:
    """The Host values this server answers: ``names`` at ``port`` (and any address literal when ``any_address``)."""

    names: frozenset[str]
    port: int
    any_address: bool = False

    @classmethod
    def for_bind(cls, host: str, port: int) -> Allowed:
        """The names a browser may use to reach a server bound to ``host`` (module docstring)."""
        names = set(LOOPBACK_NAMES)
        if host in WILDCARDS:
            names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
            return cls(frozenset(names), port, any_address=True)
        names.add(host_literal(host))
        return cls(frozenset(names), port)

    def admits(self, name: str, port: int) -> bool:
        if port != self.port:
            return False
        if name in self.names:
            return True
        return self.any_address and _is_address(name)

    def shown(self) -> str:
        names = ", ".join(f"{n}:{self.port}" for n in sorted(self.names))
        return names + (f", or an address of this machine at port {self.port}" if self.any_address else "")


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name[1:-1] if name.startswith("[") and name.endswith("]") else name)
    except ValueError:
        return False
    return True


def split_host(value: str, default_port: int = 80) -> tuple[str, int] | None:
    """``name[:port]`` or ``[v6][:port]`` as ``(name, port)``; None when it is not one."""
    value = value.strip().lower()
    if not value:
        return None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[: end + 1], value[end + 1 :]
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else ""
    else:
        name, _, port_text = value.partition(":")
        if ":" in port_text:
            return None
    if not port_text:
        return name, default_port
    if not port_text.isdigit() or not 0 < int(port_text) <= 65535:
        return None
    return name, int(port_text)


def same_origin(origin: str, host: tuple[str, int]) -> bool:
    """``origin`` (an Origin header) is ``http://`` and the request's own Host."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port or 80
    except ValueError:
        return False
    if parts.scheme != "http" or parts.hostname is None or parts.path or parts.query:
        return False
    return (host_literal(parts.hostname), port) == host


def media_type(value: str) -> tuple[str, dict[str, str]]:
    kind, *params = value.split(";")
    parsed = {}
    for param in params:
        key, _, val = param.partition("=")
        parsed[key.strip().lower()] = val.strip().strip('"').lower()
    return kind.strip().lower(), parsed


class Gate:
    """ASGI middleware: a request passes only if it comes from this server's own page (module docstring)."""

    def __init__(self, app: ASGIApp, allowed: Allowed, token: str) -> None:
        self.app, self.allowed, self.token = app, allowed, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is not None:
            status, message = refusal
            await _refuse(send, status, message)
            return

        async def guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        await self.app(scope, receive, guarded)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """``(status, one line)`` when the request must not be answered, else None."""
        headers = _headers(scope["headers"])
        host = split_host(headers.get("host", ""))
        if host is None or not self.allowed.admits(*host):
            shown = headers.get("host", "(none)")[:100]
            return 421, f"this server answers to {self.allowed.shown()}, not to Host {shown!r}"
        origin = headers.get("origin")
        if origin is not None and not same_origin(origin, host):
            return 403, f"requests from another page (Origin {origin[:100]!r}) are refused"
        method, path = scope["method"], scope["path"]
        site = headers.get("sec-fetch-site", "same-origin")
        if site not in ("same-origin", "none") and not (method == "GET" and path in PAGE_PATHS):
            return 403, f"requests from another site (Sec-Fetch-Site: {site[:40]}) are refused"
        if method in ("GET", "HEAD"):
            return None
        kind, params = media_type(headers.get("content-type", ""))
        if kind != "application/json" or params.get("charset", "utf-8") != "utf-8":
            shown = headers.get("content-type", "none")[:60]
            return 403, f"a post must be application/json (this one is {shown}): another page can send that unasked"
        given = headers.get(TOKEN_HEADER, "")
        if not hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode()):
            return 403, "a post needs the token of this server's own page (the X-Sigmar-Token header)"
        return None


def _headers(raw: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """The request's headers by lower-case name (a repeated Host or Origin is refused as unreadable)."""
    out: dict[str, str] = {}
    for name, value in raw:
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        if key in out and key in ("host", "origin", TOKEN_HEADER, "content-type", "sec-fetch-site"):
            text = "\x00repeated"  # two of a header that decides: neither is believed
        out[key] = text
    return out


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),  # its body (if any) is never read
        *SECURITY_HEADERS,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
