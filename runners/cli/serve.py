"""``sigmar serve [FILE...]``: the workbench, a local web page to edit, solve, explain, repair and play boards."""

from __future__ import annotations

import argparse
import ipaddress
import json
import socket
import sys

from sigmar.runners.cli.board_args import read_per_file
from sigmar.runners.cli.conventions import add_time_limit, follow
from sigmar.runners.cli.options import BOARD_ARGUMENT_HELP, UsageError, positive_int

DEFAULT_PORT = 8640
MAX_CONNECTIONS = 4096  # open at once; past it the oldest still sending its headers is dropped


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "serve",
        help="a local web page to edit, solve, explain, repair and play boards",
        description="Serve the workbench: one page to edit a board (click cells, paste text, or open a board of "
        "the FILEs), with a live verdict on every edit (a solution replayed, or the reason it is unsolvable, its "
        "deepest play and a repair to apply), play with undo and hints, and export as text, SVG or a link. "
        "It binds to 127.0.0.1 unless --host says otherwise, reads no file but the FILEs, applies the board "
        "file limits to what is posted, and computes every answer in a worker process that is killed at the "
        "time limit. Only its own page may use it: other Host names, other pages' Origins, posts that are not "
        "JSON or lack the page's token are refused, and a request must arrive within --read-timeout. "
        "Stop it with Ctrl-C.",
    )
    parser.add_argument(
        "files",
        metavar="FILE",
        nargs="*",
        help=f"board files whose boards the page can open ({BOARD_ARGUMENT_HELP})",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1: this machine only; 0.0.0.0 or '::': every interface); "
        "the page must be opened at this address, a loopback name, or (on every interface) this machine's name",
    )
    parser.add_argument(
        "--port", type=port_number, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free port)"
    )
    add_time_limit(parser, "seconds for each answer on the page", interactive=True)
    parser.add_argument(
        "--read-timeout",
        type=positive_seconds,
        default=10.0,
        metavar="S",
        help="seconds a client has to send a request's headers, and again its body, before it is dropped (default 10)",
    )
    parser.add_argument(
        "--workers", type=positive_int, default=2, help="worker processes that compute answers (default 2)"
    )
    parser.add_argument(
        "--memory-mb",
        type=positive_int,
        default=1024,
        help="memory of one worker and its children before its answer is stopped, in MB (default 1024)",
    )
    follow(
        parser,
        boards=True,
        json_help="print where the page is served as one JSON object (url, host, port, boards) and nothing else",
        board_help="offer only the boards of this name among those of the FILEs",
    )
    parser.set_defaults(run=run)


def port_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"'{text}' must be from 0 to 65535")
    return value


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"'{text}' must be above 0 and at most 3600 seconds")
    return value


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def room_for_connections(wanted: int) -> int:
    """Raise the soft limit on open files towards ``wanted`` (within the hard one); the connections that fit."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return MAX_CONNECTIONS if soft == resource.RLIM_INFINITY else max(64, min(MAX_CONNECTIONS, soft - 256))


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, bound before the server starts (so the URL printed is the one in use)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    return sock


def run(args: argparse.Namespace) -> int:
    import uvicorn  # the server library is imported only here: `sigmar --help` and `solve` never load it

    from sigmar.runners.design.connections import guarded_protocol
    from sigmar.runners.design.gate import Allowed, new_token
    from sigmar.runners.design.workbench import Settings, create_app

    if not args.host.strip():
        raise UsageError("--host '' names no address: give one (0.0.0.0 listens on every interface of this machine)")
    if args.board is not None and not args.files:
        raise UsageError("--board picks among the boards of the FILEs: give a FILE")
    named = [(path, b) for path, found in read_per_file(args.files, args.board, prefix=False) for b in found]
    sock = bind(args.host, args.port)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    token = new_token()
    allowed = Allowed.for_bind(args.host, port)
    settings = Settings(named, args.time_limit, args.workers, args.memory_mb, allowed=allowed, token=token)
    settings.read_timeout = args.read_timeout
    if not is_loopback(args.host):
        where = "every interface of this machine" if args.host in ("0.0.0.0", "::") else args.host
        print(
            f"sigmar serve: listening on {where}, not only this machine: anyone who reaches it can use it",
            file=sys.stderr,
        )
    url = f"http://{shown}:{port}/"
    if args.json:  # for a script that started it on --port 0: the token lets it post as the page does
        print(json.dumps({"url": url, "host": host, "port": port, "boards": len(named), "token": token}), flush=True)
    elif not args.quiet:
        print(f"sigmar workbench: {url}  (Ctrl-C stops it)", flush=True)
    connections = room_for_connections(MAX_CONNECTIONS + 256)
    config = uvicorn.Config(
        create_app(settings),
        http=guarded_protocol(args.read_timeout, connections),
        loop="asyncio",
        lifespan="on",
        log_level="warning",
        access_log=False,
        proxy_headers=False,  # no proxy stands in front: the client is who connected
        server_header=False,
        limit_concurrency=None,  # the protocol caps connections, dropping half-sent ones first; the pool, the work
        timeout_keep_alive=5,
        timeout_graceful_shutdown=3,
    )
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM, which uvicorn hands on once it has shut down: the way to stop
        pass
    finally:
        sock.close()
    if not args.json and not args.quiet:
        print("sigmar workbench: stopped", flush=True)
    return 0
