"""``sigmar serve`` without a browser: what it answers, what it refuses, and that it leaves nothing behind.

Each request is sent as the page sends it (JSON over HTTP to a real server process on a free
loopback port).  The browser tests are in tests/test_workbench_browser.py.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sigmar.encoders.processes.guard import descendants
from sigmar.encoders.search import SearchBackend
from sigmar.models.boardfile import format_board, parse_boards
from sigmar.models.deal import deal
from sigmar.models.rules import Position
from sigmar.runners.cli import main
from sigmar.runners.design.difficulty import difficulty
from sigmar.runners.render.svg import board_svg
from tests import workbench_harness as harness
from tests.conftest import INSTANCES, wait_for

serve = harness.serve


AIR = "  a a\n . . .\n  . .\n"
# Solvable, but its first move salt [0, 1] with fire [3, 0] leaves three air: lost (a fuzz deal, seed 7).
LOSABLE = "  . s a\n . v 1 a\n. m . . .\n f . a .\n  f . .\n"


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    served = serve(INSTANCES / "real-game.txt")
    yield served
    served.stop()


def test_the_page_and_its_files_are_served_and_nothing_else(server: Any) -> None:
    status, page = server.get("/")
    assert status == 200 and b"/static/workbench.js" in page
    assert server.get("/static/workbench.js")[0] == 200
    assert server.get("/static/workbench.css")[0] == 200
    for path in ("static/../../README.md", "static/index.html", "README.md", "etc/passwd"):
        assert server.get(path)[0] == 404, path
    status, body = server.get("/api/boards")
    boards = json.loads(body)
    assert [b["name"] for b in boards] == ["real game screenshot", "real game screenshot2"]
    assert all(b["file"].endswith("real-game.txt") and "<svg" in b["svg"] for b in boards)


def test_verdicts_are_checked_answers(server: Any) -> None:
    status, answer = server.post("/api/verdict", {"text": AIR})
    assert status == 200 and answer["status"] == "solved" and answer["verified"] is True
    lead = "   . . .\n  . q 2 .\n . 3 1 q .\n  . 4 q .\n   . . .\n"  # instances/small.txt: walled in
    status, answer = server.post("/api/verdict", {"text": lead})
    assert answer["status"] == "unsolvable" and answer["checked"] is True
    assert answer["certificate"]["kind"] == "stuck" and answer["stuck"]


def test_a_malformed_board_is_one_line_naming_row_and_column(server: Any) -> None:
    status, answer = server.post("/api/draw", {"text": "  a z\n . . .\n  . .\n"})
    assert status == 400 and answer["row"] == 0 and answer["col"] == 1
    assert "row 0, column 1" in answer["error"] and "unknown symbol 'z'" in answer["error"]
    side50 = "\n".join(" ".join("." * n) for n in [50 + min(r, 98 - r) for r in range(99)]) + "\n"
    status, answer = server.post("/api/verdict", {"text": side50})
    assert status == 400 and "side above 16" in answer["error"]
    for body, word in ((b"not json", "not JSON"), (b"[1, 2]", "JSON object"), (b'{"text": 5}', '"text"')):
        status, answer = server.post("/api/verdict", body)
        assert status == 400 and word in answer["error"], answer


def test_a_body_too_large_is_refused_before_it_is_read(server: Any) -> None:
    status, answer = server.post("/api/verdict", b" " * (300 * 1024))
    assert status == 413 and "at most" in answer["error"]
    assert server.post("/api/verdict", {"text": AIR})[0] == 200  # and the next request is answered


def test_a_flood_of_requests_is_served_or_refused_and_the_server_stays_well(server: Any) -> None:
    statuses = asyncio.run(harness.flood(server, 150, 240))
    assert set(statuses) <= {"200", "503"} and statuses["200"] >= 1, statuses
    assert harness.still_well(server) == "yes"


def test_play_judges_each_move_and_names_the_one_that_lost(server: Any) -> None:
    status, answer = server.post("/api/play", {"text": LOSABLE, "moves": []})
    assert answer["status"] == "clearable" and answer["hint"]
    status, answer = server.post("/api/play", {"text": LOSABLE, "moves": [[[0, 1], [3, 0]]]})
    assert answer["legal"] and answer["status"] == "lost" and answer["lost_at"] == 1
    assert "air" in answer["why"]
    status, answer = server.post("/api/play", {"text": LOSABLE, "moves": [[[1, 1], [2, 1]]]})  # vitae, mors
    assert not answer["legal"] and "not free" in answer["why"]
    status, answer = server.post("/api/play", {"text": LOSABLE, "moves": [[[0, 1], [9, 9]]]})
    assert status == 400 and "off" in answer["error"]


def test_position_gives_the_free_tiles_and_legal_moves_as_the_rule_engine_does(server: Any) -> None:
    board = parse_boards(LOSABLE, "losable")[0]
    status, answer = server.post("/api/position", {"text": LOSABLE, "moves": []})
    assert status == 200 and answer["legal"] and answer["status"] == "playing"
    start = Position.start(board)
    assert answer["free"] == [list(board.rowcol(c)) for c in start.free_cells()]
    assert answer["legal_moves"] == [[list(board.rowcol(c)) for c in m.cells] for m in start.legal_moves()]
    assert (answer["tiles"], answer["left"], answer["moves"], answer["count"]) == (9, 9, 0, len(start.legal_moves()))
    status, answer = server.post("/api/position", {"text": LOSABLE, "moves": [[[0, 1], [3, 0]]]})
    assert answer["left"] == 7 and answer["moves"] == 1
    status, answer = server.post("/api/position", {"text": LOSABLE, "moves": [[[1, 1], [2, 1]]]})  # vitae, mors
    assert not answer["legal"] and answer["move"] == 1 and "not free" in answer["why"]
    solution = SearchBackend().solve(board, 30)
    cleared = [[list(board.rowcol(c)) for c in m.cells] for m in solution.moves]
    status, answer = server.post("/api/position", {"text": LOSABLE, "moves": cleared})
    assert answer["status"] == "cleared" and answer["left"] == 0 and answer["free"] == []
    status, answer = server.post("/api/play", {"text": LOSABLE, "moves": cleared[:1]})
    assert answer["status"] == "clearable" and answer["solution_moves"] == len(cleared) - 1


def test_the_proved_hint_marks_every_legal_move_with_its_evidence(server: Any) -> None:
    board = parse_boards(LOSABLE, "losable")[0]
    status, answer = server.post("/api/hint", {"text": LOSABLE, "moves": []})
    assert status == 200 and answer["status"] == "clearable"
    legal = [[list(board.rowcol(c)) for c in m.cells] for m in Position.start(board).legal_moves()]
    assert [m["cells"] for m in answer["moves"]] == legal
    marks = {tuple(map(tuple, m["cells"])): m for m in answer["moves"]}
    losing = marks[((0, 1), (3, 0))]  # salt with fire: three air are left
    assert losing["mark"] == "losing" and losing["certificate"]["checked"] and "air" in losing["why"]
    safe = [m for m in answer["moves"] if m["mark"] == "safe"]
    assert safe and all(m["replayed"] and m["solution"] for m in safe)
    assert answer["safe"] + answer["losing"] + answer["unknown"] == len(legal) and answer["unknown"] == 0
    status, answer = server.post("/api/hint", {"text": LOSABLE, "moves": [[[1, 1], [2, 1]]]})  # not free
    assert status == 400 and "move 1" in answer["error"] and "not free" in answer["error"]


def test_difficulty_is_exact_on_a_small_board(server: Any) -> None:
    board = parse_boards(LOSABLE, "losable")[0]
    status, answer = server.post("/api/difficulty", {"text": LOSABLE})
    assert status == 200 and answer["win"]["exact"]
    found = difficulty(board, 30)
    assert answer["win"]["fraction"] == f"{found.graph.win.numerator}/{found.graph.win.denominator}"
    assert answer["safe_first_moves"] == found.safe_first and answer["first_moves"] == found.first_moves
    assert answer["lines"] and "random play clears it" in answer["lines"][0]


def test_the_palette_draws_each_kind_with_its_sign(server: Any) -> None:
    status, body = server.get("/api/palette")
    icons = json.loads(body)
    assert status == 200 and set(icons) == set(".aefwsvmq123456789x")
    assert all("<svg" in icons[s] and "<path" in icons[s] for s in "aefwsvmq123456x")  # a drawn sign
    assert "<text" in icons["7"] and icons["."] == ""  # no sign above silver but gold: the digit


def test_explain_gives_the_deepest_play_and_a_repair(server: Any) -> None:
    status, answer = server.post("/api/explain", {"text": format_board(deal("dense", 6, 1, 0))})
    assert status == 200 and answer["status"] == "unsolvable"
    assert answer["deepest"]["proved"] and answer["deepest"]["cleared"] == 12
    assert answer["repair"]["verified"] and len(answer["repair"]["changes"]) == 1


def test_a_runaway_answer_is_stopped_and_its_worker_replaced(tmp_path: Path) -> None:
    """The hardest of 300 dense deals' explanations takes seconds; with a limit of a tenth of a second
    the request ends in 504 at about its limit, the worker is killed, and the server answers the next."""
    served = serve(time_limit=0.1)
    try:
        before = set(served.workers())
        hard = format_board(deal("dense", 6, 1, 12))  # its deepest play walks 119,000 states
        status, answer = served.post("/api/explain", {"text": hard})
        assert status in (200, 504)
        if status == 504:
            assert "time limit" in answer["error"]
            assert wait_for(lambda: set(served.workers()) != before, 30)
        assert served.post("/api/verdict", {"text": AIR})[1]["status"] == "solved"
    finally:
        started = served.stop()
    assert wait_for(lambda: not [p for p in started if _alive(p)], 30)


def test_a_cancelled_request_kills_its_answer() -> None:
    served = serve(time_limit=60)
    try:
        before = set(served.workers())
        hard = json.dumps({"text": format_board(deal("dense", 6, 1, 239))}).encode()  # seconds of deepest play
        host, port = served.address
        with socket.create_connection((host, port), timeout=30) as sock:
            head = f"POST /api/explain HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            head += f"X-Sigmar-Token: {served.token}\r\n"
            sock.sendall(f"{head}Content-Length: {len(hard)}\r\n\r\n".encode() + hard)
            time.sleep(0.5)  # the job is in a worker by now
        # the client went away: its worker is killed and a fresh one started
        assert wait_for(lambda: len(set(served.workers()) - before) >= 1, 30), (before, served.workers())
        assert served.post("/api/verdict", {"text": AIR})[1]["status"] == "solved"
    finally:
        served.stop()


def test_the_server_leaves_no_process_when_it_stops() -> None:
    served = serve()
    started = served.stop()
    assert len(started) >= 2  # its two workers (and the run's janitor)
    assert served.process.returncode == 0
    assert wait_for(lambda: not [p for p in started if _alive(p)], 30), [p for p in started if _alive(p)]


def test_serve_binds_loopback_and_refuses_a_bad_port(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "70000"]) == 2
    assert "65535" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    assert "cannot listen on 127.0.0.1" in capsys.readouterr().err


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


__all__ = ["descendants"]


def test_tiles_are_drawn_with_the_game_s_signs_and_an_inner_ring_for_marks() -> None:
    """Each kind its own sign (not a letter), gold the sun whatever its digit; letters where the game has no sign."""
    board = parse_boards("  a e f\n w s v m\n q 1 2 3 4\n 5 6 7 x\n  . . 8\n", "kinds")[0]  # gold: 8
    svg = board_svg(board, symbols=True)
    tiles = dict(re.findall(r'data-tile="(\w)"[^>]*>(.*?)</g>', svg))
    signs = {s: m.group(1) for s, inner in tiles.items() if (m := re.search(r'href="#g-(\w+)"', inner))}
    assert signs == {
        "a": "a",
        "e": "e",
        "f": "f",
        "w": "w",
        "s": "s",
        "v": "v",
        "m": "m",
        "q": "q",
        "x": "x",
        "1": "lead",
        "2": "tin",
        "3": "iron",
        "4": "copper",
        "5": "silver",
        "8": "gold",
    }
    assert {key: svg.count(f'id="g-{key}"') for key in signs.values()} == dict.fromkeys(signs.values(), 1)
    assert '<text class="k">6</text>' in tiles["6"]  # no sign: the digit
    assert svg.count('class="ring"') == len(board.tiles)
    plain = board_svg(board)  # elsewhere (show --svg) the letters stay
    assert "#g-" not in plain and ">A</text>" in plain
