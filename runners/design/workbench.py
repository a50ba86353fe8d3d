"""The workbench of ``sigmar serve``: one page to edit, solve, explain, repair and play boards, on Starlette.

Why Starlette (with uvicorn): a small, well-kept ASGI library whose request object lets a
handler notice that its client went away (``http.disconnect``), which is how a newer edit
cancels the answer still being computed; its responses and routing need no templates and no
build step; uvicorn runs it on the standard library's asyncio, pure Python with h11.

The page (``static/``: plain HTML, CSS and JavaScript, no build step, nothing fetched from
elsewhere) draws with the suite's own SVG (:mod:`sigmar.runners.render.svg`), which this
server sends.  Safe by default:

- it binds to 127.0.0.1 unless told otherwise;
- a posted board is read as a board file is (:func:`sigmar.models.boardfile.parse_posted`: the
  same ceilings, the same one-line errors naming row and column), and a request body above
  ``max_body`` bytes is refused before it is read;
- every answer is computed in a worker process (:mod:`.jobs`) that is killed when the request's
  time runs out or its client cancels it, so no request holds a core past its time limit;
- it reads no file but the board files named when it started (read once, then), and its own
  page, which it holds in memory;
- when it stops, its workers are killed;
- only its own page may ask it anything (:mod:`.gate`: Host, Origin, JSON posts, a token), and a
  request must arrive within its read time-out (:mod:`.connections`).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sigmar.models.board import Board
from sigmar.models.boardfile import BoardFileError, format_board, parse_posted
from sigmar.models.hexgrid import Hex, from_rowcol
from sigmar.models.input_limits import InputError, json_value
from sigmar.models.solution import MAX_MOVES
from sigmar.runners.design import answers
from sigmar.runners.design.gate import Allowed, Gate, new_token
from sigmar.runners.design.jobs import Busy, JobFailed, Pool
from sigmar.runners.design.position import position_json
from sigmar.runners.render.svg import board_svg, tile_icon

# The page's own files: the only ones it serves, read from the package once.
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/workbench.js": ("workbench.js", "text/javascript; charset=utf-8"),
    "/static/workbench.css": ("workbench.css", "text/css; charset=utf-8"),
}
# A page posts one board (a side-16 board is under 2 KB); a body above this is refused unread.
MAX_BODY = 256 * 1024
POSTED = "the board text"  # what a posted board's errors name as its file
READ_TIMEOUT = 10.0  # seconds for a request's headers, then for its body (serve --read-timeout)
TOKEN_PLACE = b"__SIGMAR_TOKEN__"  # where the page's token is written into index.html
CLOSE = {"connection": "close"}  # an answer sent before the request's body was read closes its connection


@dataclass
class Settings:
    """How the server runs; ``boards`` are those of the files named on the command line, read at the start."""

    boards: list[tuple[str, Board]] = field(default_factory=list)  # (file, board)
    time_limit: float = 10.0
    workers: int = 2
    memory_mb: float | None = 1024
    max_body: int = MAX_BODY
    waiting: int = 64
    allowed: Allowed = field(default_factory=lambda: Allowed.for_bind("127.0.0.1", 8640))
    token: str = field(default_factory=new_token)
    read_timeout: float = READ_TIMEOUT


class Refused(Exception):
    """A request the server will not answer: ``status`` and one line for the page."""

    def __init__(self, status: int, message: str, **where: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.where = status, message, where


def page_files(token: str | None = None) -> dict[str, bytes]:
    """The page's files, its token (a new one by default) written into the page (:mod:`.gate`: only this
    origin can read it)."""
    token = token if token is not None else new_token()
    folder = resources.files("sigmar.runners.design") / "static"
    files = {path: (folder / name).read_bytes() for path, (name, _) in STATIC.items()}
    assert TOKEN_PLACE in files["/"], "index.html holds the token's place"
    files["/"] = files["/"].replace(TOKEN_PLACE, token.encode())
    return files


def board_record(board: Board) -> dict[str, Any]:
    """A board as the page holds it: its cells and symbols, its text, its counts, and its drawing."""
    cells = [[*board.rowcol(t.cell), t.symbol] for t in board.tiles]
    return {
        "name": board.name,
        "dim": board.dim,
        "cells": cells,
        "text": format_board(board),
        "counts": dict(Counter(t.symbol for t in board.tiles)),
        "gold": board.gold,
        "svg": board_svg(board, keep_gone=True, cell_names=True, symbols=True),
    }


async def read_json(request: Request, max_body: int, seconds: float = READ_TIMEOUT) -> dict[str, Any]:
    """The request's JSON object, its body refused above ``max_body`` bytes before (or while) it is read,
    or when it has not all come within ``seconds``."""
    declared = request.headers.get("content-length", "")
    if declared.strip().isdigit() and int(declared) > max_body:
        raise Refused(413, f"the request is {int(declared):,} bytes; a board is posted in at most {max_body:,}")
    body = bytearray()
    try:
        async with asyncio.timeout(seconds):
            async for chunk in request.stream():
                body += chunk
                if len(body) > max_body:
                    raise Refused(413, f"the request is more than {max_body:,} bytes; a board is at most that")
    except TimeoutError:
        raise Refused(408, f"the request's body did not all come within {seconds:g} s") from None
    try:
        value = json_value(body.decode("utf-8"), "request")
    except (InputError, UnicodeDecodeError) as exc:
        raise Refused(400, f"the request is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise Refused(400, "the request must be a JSON object")
    _refuse_lone_surrogates(value)
    return value


def _refuse_lone_surrogates(value: Any) -> None:
    """JSON may spell a lone surrogate (``"\\ud800"``), which is no character: 400, naming where it is."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end].encode("utf-8", "backslashreplace").decode()
        raise Refused(400, f"the request holds {bad}, half of a surrogate pair, which is not text") from None


def posted_board(record: dict[str, Any]) -> Board:
    """The first board of the posted ``text``, read with the limits of a board file."""
    text = record.get("text")
    if not isinstance(text, str):
        raise Refused(400, 'the request needs "text": the board as text')
    try:
        boards = parse_posted(text.encode("utf-8"), POSTED)
    except BoardFileError as exc:
        unnamed = exc.board is not None and exc.board.startswith(f"{POSTED}:")
        shown = exc.replace(board=None) if unnamed else exc  # "the board text, row 1, column 1 (line 2): ..."
        raise Refused(400, str(shown), row=exc.row, col=exc.col, line=exc.line) from None
    return boards[0]


def posted_moves(record: dict[str, Any], board: Board) -> list[tuple[Hex, ...]]:
    """``moves``: a list of moves, each a list of ``[row, col]`` cells of ``board``."""
    moves = record.get("moves", [])
    if not isinstance(moves, list) or len(moves) > MAX_MOVES:
        raise Refused(400, f'"moves" must be a list of at most {MAX_MOVES} moves')
    out = []
    for number, move in enumerate(moves, start=1):
        if not isinstance(move, list) or not 1 <= len(move) <= 5:
            raise Refused(400, f"move {number} must be a list of one to five [row, col] cells")
        cells = []
        for cell in move:
            if not (isinstance(cell, list) and len(cell) == 2 and all(type(x) is int for x in cell)):
                raise Refused(400, f"move {number}: a cell is not a [row, col] pair of whole numbers")
            try:
                cells.append(from_rowcol(cell[0], cell[1], board.dim))
            except ValueError as exc:
                raise Refused(400, f"move {number}: {exc}") from None
        out.append(tuple(cells))
    return out


Work = Callable[[Request, dict[str, Any]], Awaitable[Any]]


def json_endpoint(
    work: Work, max_body: int, read_timeout: float = READ_TIMEOUT
) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint that reads a JSON object (at most ``max_body`` bytes), does ``work`` and answers JSON.

    Every refusal is one line in ``error`` with its status: 400 bad input (with ``row``, ``col``,
    ``line`` for a board), 408 a body too slow, 413 too large, 503 busy or stopping, 504 no answer
    in time.  A client that hangs up, and a server that stops, leave no traceback.
    """

    async def endpoint(request: Request) -> Response:
        try:
            record = await read_json(request, max_body, read_timeout)
            return JSONResponse(await work(request, record))
        except Refused as exc:
            unread = exc.status in (408, 413)  # its body is still coming: the connection goes with the answer
            return JSONResponse({"error": exc.message, **exc.where}, exc.status, CLOSE if unread else None)
        except Busy as exc:
            return JSONResponse({"error": f"the server is busy: {exc}; try again"}, status_code=503)
        except JobFailed as exc:
            return JSONResponse({"error": str(exc)}, status_code=504)
        except ClientDisconnect:  # the client hung up while sending: nobody to answer, nothing to report
            return Response(status_code=499)
        except asyncio.CancelledError:  # the server stops (Ctrl-C) with this answer in flight: its worker is killed
            return JSONResponse({"error": "the server is stopping"}, 503, CLOSE)

    return endpoint


class Workbench:
    """The endpoints, around one pool of workers; :meth:`app` is the ASGI application."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # Verdicts and moves in their own workers; explanations (seconds, and cancelled by every edit
        # that comes while they run, which kills their worker) in one of their own, so a cancelled
        # explanation never costs a verdict its warm worker.
        self.pool = Pool(settings.workers, memory_mb=settings.memory_mb, waiting=settings.waiting)
        self.explainers = Pool(1, memory_mb=settings.memory_mb, waiting=settings.waiting)
        self.files = page_files(settings.token)

    def app(self) -> Starlette:
        post, wait = self.settings.max_body, self.settings.read_timeout
        routes = [Route(path, self.static) for path in STATIC]
        routes += [
            Route("/api/boards", self.boards),
            Route("/api/health", self.health),
            Route("/api/draw", json_endpoint(self.draw, post, wait), methods=["POST"]),
            Route("/api/verdict", json_endpoint(self.verdict, post, wait), methods=["POST"]),
            Route("/api/explain", json_endpoint(self.explain, post, wait), methods=["POST"]),
            Route("/api/play", json_endpoint(self.play, post, wait), methods=["POST"]),
            Route("/api/position", json_endpoint(self.position, post, wait), methods=["POST"]),
            Route("/api/hint", json_endpoint(self.hint, post, wait), methods=["POST"]),
            Route("/api/difficulty", json_endpoint(self.difficulty, post, wait), methods=["POST"]),
            Route("/api/palette", self.palette),
        ]
        gate = Middleware(Gate, allowed=self.settings.allowed, token=self.settings.token)
        return Starlette(routes=routes, lifespan=self.lifespan, middleware=[gate])

    @asynccontextmanager
    async def lifespan(self, _app: Starlette) -> AsyncIterator[None]:
        answers.warm()  # imported once here, so every worker forked from this process has it
        await self.pool.start()
        await self.explainers.start()
        try:
            yield
        finally:
            self.pool.close()
            self.explainers.close()

    def static(self, request: Request) -> Response:
        path = request.url.path
        return Response(self.files[path], media_type=STATIC[path][1], headers={"cache-control": "no-store"})

    async def boards(self, _request: Request) -> Response:
        return JSONResponse([{"file": file, **board_record(board)} for file, board in self.settings.boards])

    async def palette(self, _request: Request) -> Response:
        """Each kind's tile as a small SVG, for the editor's palette (6 drawn as gold, as on the game's board)."""
        symbols = ".aefwsvmq123456789x"
        return JSONResponse({s: tile_icon(s, "6") if s != "." else "" for s in symbols})

    async def health(self, _request: Request) -> Response:
        workers = len(self.pool.pids()) + len(self.explainers.pids())
        return JSONResponse({"ok": True, "workers": workers, "jobs": self.pool.started + self.explainers.started})

    async def in_worker(
        self,
        request: Request,
        function: Callable[..., Any],
        args: tuple[Any, ...],
        seconds: float,
        pool: Pool | None = None,
    ) -> Any:
        """``function(*args)`` in a worker of ``pool`` (default: the verdicts'), stopped when ``seconds`` pass
        or the client goes away."""
        job = asyncio.ensure_future((pool or self.pool).run(function, args, seconds))
        gone = asyncio.ensure_future(_disconnected(request))
        try:
            await asyncio.wait({job, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:  # also when this request is cancelled itself (the server stops)
            gone.cancel()
            if not job.done():
                job.cancel()  # the pool kills the worker
                await asyncio.gather(job, return_exceptions=True)
        if job.cancelled():
            raise Refused(499, "the request was cancelled")
        return job.result()

    async def draw(self, _request: Request, record: dict[str, Any]) -> Any:
        return board_record(posted_board(record))

    async def verdict(self, request: Request, record: dict[str, Any]) -> Any:
        limit = self.settings.time_limit
        return await self.in_worker(request, answers.verdict, (posted_board(record), limit), limit + 5)

    async def explain(self, request: Request, record: dict[str, Any]) -> Any:
        limit = self.settings.time_limit  # each of verdict, deepest play and repair
        work = (posted_board(record), limit)
        return await self.in_worker(request, answers.explanation, work, 3 * limit + 10, self.explainers)

    async def position(self, _request: Request, record: dict[str, Any]) -> Any:
        """The position after the posted moves: free tiles and legal moves, in this process (milliseconds)."""
        board = posted_board(record)
        return position_json(board, posted_moves(record, board))

    async def hint(self, request: Request, record: dict[str, Any]) -> Any:
        """The proved hint of the position after the posted moves (each legal move safe, losing or unknown)."""
        board = posted_board(record)
        moves = posted_moves(record, board)
        illegal = position_json(board, moves)
        if not illegal["legal"]:
            raise Refused(400, illegal["why"], move=illegal["move"])
        limit = self.settings.time_limit
        return await self.in_worker(request, answers.proved_hint, (board, moves, limit), 2 * limit + 5)

    async def difficulty(self, request: Request, record: dict[str, Any]) -> Any:
        """How hard the posted board is: random play's exact chance, safe moves, the deepest trap, pairings."""
        limit = self.settings.time_limit  # the play graph, the trap's certificate and the pairings count each
        work = (posted_board(record), limit)
        return await self.in_worker(request, answers.figures, work, 3 * limit + 10, self.explainers)

    async def play(self, request: Request, record: dict[str, Any]) -> Any:
        board = posted_board(record)
        limit = self.settings.time_limit
        return await self.in_worker(request, answers.play, (board, posted_moves(record, board), limit), 2 * limit + 5)


def create_app(settings: Settings) -> Starlette:
    """The workbench as an ASGI application (its workers start and stop with it)."""
    return Workbench(settings).app()


async def _disconnected(request: Request) -> None:
    """Returns when the client has gone away (the body is read by then, so only a disconnect is left to come)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return
