"""The race engine and ``sigmar solve``: winners, corroboration, broken and hung backends, no stray process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from sigmar.models.board import Board
from sigmar.models.result import Reason, Result, Status
from sigmar.models.rules import verify
from sigmar.runners import cli
from sigmar.runners.checking.trust import corroborated_pair
from sigmar.runners.race import Race, RacePolicy
from sigmar.runners.workers import Worker
from tests.conftest import wait_for

ROOT = Path(__file__).resolve().parents[1]


def descendants() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


def test_honest_backend_wins_with_a_verified_solution(fakes, boards) -> None:
    with Race(["honest"]) as race:
        outcome = race.solve(boards["pair"], 5.0)
    result = outcome.result
    assert result.status is Status.SOLVED, result
    assert result.verified and verify(boards["pair"], result.moves).valid
    assert result.backend == "honest:dfs"
    assert 0 < result.seconds < 5


def test_counts_answer_before_any_backend(fakes, boards) -> None:
    with Race(["broken:hang"]) as race:
        outcome = race.solve(boards["counts"], 5.0)
    assert outcome.result.status is Status.UNSOLVABLE
    assert outcome.result.reason is Reason.COUNTS
    assert outcome.result.seconds < 5.0, "answered without waiting out the hung backend's time limit"
    assert outcome.answers == {}


def test_exhausted_search_wins_alone(fakes, boards) -> None:
    with Race(["honest"]) as race:
        result = race.solve(boards["stuck"], 5.0).result
    assert (result.status, result.reason) == (Status.UNSOLVABLE, Reason.EXHAUSTED)


def test_a_lone_proof_is_not_an_answer(fakes, boards) -> None:
    with Race(["honest:proof"]) as race:
        result = race.solve(boards["stuck"], 2.0).result
    assert result.status is Status.UNKNOWN
    assert "honest:proof" in result.message and "claimed unsolvable" in result.message


def test_two_families_corroborate_a_proof(fakes, boards) -> None:
    with Race(["honest:proof", "broken:proof"]) as race:
        result = race.solve(boards["stuck"], 5.0).result
    assert (result.status, result.reason) == (Status.UNSOLVABLE, Reason.CORROBORATED)
    assert "honest:proof" in result.backend and "broken:proof" in result.backend
    assert "honest:proof" in result.explanation and "broken:proof" in result.explanation


def test_corroborate_names_both_backends() -> None:
    first = Result(Status.UNSOLVABLE, "cnf:glucose4", reason=Reason.PROOF, explanation="UNSAT at 28 steps")
    second = Result(Status.UNSOLVABLE, "cpsat", reason=Reason.PROOF)
    joined = corroborated_pair(first, second)
    assert joined.reason is Reason.CORROBORATED
    assert joined.backend == "cnf:glucose4+cpsat"
    assert "UNSAT at 28 steps" in joined.explanation


def test_a_wrong_solution_never_wins_and_is_recorded(fakes, boards) -> None:
    with Race(["broken:wrong", "honest"]) as race:
        outcome = race.solve(boards["pair"], 5.0)
    assert outcome.result.backend == "honest:dfs" and outcome.result.verified
    # the wrong answer may or may not have arrived before the honest one; alone it is always caught
    with Race(["broken:wrong"]) as race:
        alone = race.solve(boards["pair"], 5.0)
    assert alone.result.status is Status.ERROR and alone.result.wrong
    assert "broken:wrong" in alone.wrong


def test_a_proof_against_a_verified_solution_is_wrong(fakes, boards) -> None:
    # Both start at once (stagger 0: no head start, neither held back) and the honest one answers 2 s late, so the
    # broken proof is in before the race ends even on a busy machine (a head start and a 0.3 s delay were not).
    os.environ["SIGMAR_FAKE_DELAY"] = "2.0"
    try:
        with Race(["broken:proof", "honest:slow"], stagger=0) as race:
            outcome = race.solve(boards["pair"], 5.0)
    finally:
        del os.environ["SIGMAR_FAKE_DELAY"]
    assert outcome.result.verified
    assert "broken:proof" in outcome.wrong


@pytest.mark.parametrize("sub", ["crash", "exit"])
def test_a_crashing_backend_does_not_stop_the_race(fakes, boards, sub: str) -> None:
    with Race([f"broken:{sub}", "honest"]) as race:
        for _ in range(2):  # the dead worker is replaced for the next board
            assert race.solve(boards["pair"], 5.0).result.verified
    with Race([f"broken:{sub}"]) as race:
        result = race.solve(boards["pair"], 5.0).result
    assert result.status is Status.ERROR
    assert ("deliberate crash" if sub == "crash" else "exited with status 7") in result.message


def test_a_hung_backend_is_killed_and_replaced(fakes, boards) -> None:
    before = descendants()
    with Race(["broken:hang", "honest"], grace=0.05, stagger=0) as race:
        first_pid = race.workers["broken:hang"].pid
        for name in ("pair", "stuck", "pair"):
            assert race.solve(boards[name], 5.0).result.status in (Status.SOLVED, Status.UNSOLVABLE)
            time.sleep(0.1)  # past the grace: the next board replaces the hung worker
        assert race.workers["broken:hang"].pid != first_pid  # killed once it did not stop
    with Race(["broken:hang"], slack=0.1) as race:
        start = time.perf_counter()
        result = race.solve(boards["pair"], 0.3).result
        assert result.status is Status.UNKNOWN
        assert 0.3 <= time.perf_counter() - start < 0.3 + 5.0, "gave up on the hung backend at its limit"
        assert "broken:hang" in result.message
    assert wait_for(lambda: descendants() <= before), "worker processes left behind"


def test_workers_live_across_boards(fakes, boards) -> None:
    with Race(["honest"]) as race:
        pid = race.workers["honest"].pid
        for board in boards.values():
            race.solve(board, 5.0)
        assert race.workers["honest"].pid == pid


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict], str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines() if line.strip()], err


def test_solve_json_and_exit_codes(fakes, board_file: Path, capsys) -> None:
    code, records, _ = run_cli(["solve", str(board_file), "--backend", "honest", "--json"], capsys)
    assert code == 0
    assert [r["status"] for r in records] == ["solved", "unsolvable", "unsolvable"]
    assert records[0]["backend"] == "honest:dfs" and records[0]["verified"] is True
    assert records[1]["reason"] == "exhausted" and records[2]["reason"] == "counts"
    code, records, _ = run_cli(["solve", str(board_file), "-b", "honest:proof", "--time-limit", "1", "--json"], capsys)
    assert code == 1 and records[1]["status"] == "unknown"
    code, records, _ = run_cli(["solve", str(board_file), "-b", "broken:wrong", "--json"], capsys)
    assert code == 3 and records[0]["status"] == "error" and "broken:wrong" in records[0]["wrong"]


def test_solve_rejects_unknown_backend(fakes, board_file: Path, capsys) -> None:
    code, _, err = run_cli(["solve", str(board_file), "--backend", "nonesuch"], capsys)
    assert code == 2 and "nonesuch" in err


def test_ctrl_c_leaves_no_process_behind(board_file: Path) -> None:
    """A real ``sigmar solve`` process, interrupted while a backend hangs."""
    script = (
        "import sys; from sigmar.encoders import registry; from tests.broken_backend import FAKE_FAMILIES; "
        "registry.FAMILIES += FAKE_FAMILIES; from sigmar.runners.cli import main; "
        f"sys.exit(main(['solve', {str(board_file)!r}, '-b', 'broken:hang,honest:slow', '--time-limit', '60']))"
    )
    env = dict(os.environ, SIGMAR_FAKE_DELAY="30")
    proc = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        parent = psutil.Process(proc.pid)
        deadline = time.monotonic() + 20
        workers: list[psutil.Process] = []
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.1)
            workers = parent.children(recursive=True)
        assert len(workers) >= 2, "the workers never started"
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    _, alive = psutil.wait_procs(workers, timeout=30)  # gone soon, not at once: a busy machine is slow
    assert not alive, f"left behind: {[p.pid for p in alive]}"


def test_a_stopped_backend_gets_a_fresh_instance(fakes, boards, monkeypatch) -> None:
    """``honest:sticky`` stays stopped once told; the worker must not reuse that instance."""
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "3")  # room for a busy machine's worker to hear the stop in time
    worker = Worker("sticky")
    try:
        worker.submit(1, "honest:sticky", boards["pair"], 5.0)
        time.sleep(0.1)
        worker.ask_stop()
        assert worker.conn.poll(10), "the sticky backend ignored stop"
        first = worker.receive()
        assert first is not None and first.result.status is Status.UNKNOWN
        worker.submit(2, "honest:sticky", boards["pair"], 5.0)
        assert worker.conn.poll(10)
        second = worker.receive()
        assert second is not None and second.result.status is Status.SOLVED, second
    finally:
        worker.kill()


def test_the_leader_gets_a_head_start(fakes, boards, monkeypatch) -> None:
    # honest:sticky answers 5 s late unless stopped: a busy machine may take longer than the default 0.5 s to start
    # the honest worker (CI saw honest:slow win the first board), but not 5 s
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "5")
    with Race(["honest:sticky", "honest"], stagger=3.0) as race:
        assert race.solve(boards["pair"], 10.0).result.backend == "honest:dfs"  # all start on the first board
        race.solve(boards["pair"], 5.0)
        assert race.order()[0] == "honest"
        race.workers["honest:sticky"].kill()  # a dead worker would be restarted, were it dispatched
        race.solve(boards["pair"], 5.0)
        assert not race.workers["honest:sticky"].alive(), "the leader answered in its head start; nobody else ran"


def test_the_others_join_as_soon_as_the_leader_is_done(fakes, boards) -> None:
    with Race(["honest:proof", "broken:proof"], stagger=30.0) as race:
        race.solve(boards["pair"], 30.0)  # honest:proof wins and leads; broken:proof's claim is wrong here
        start = time.perf_counter()
        result = race.solve(boards["stuck"], 30.0).result
        assert result.reason is Reason.CORROBORATED
        assert time.perf_counter() - start < 30.0, "waited out the head start although the leader had answered"


def test_backends_that_only_claim_yield_the_cpu_to_those_that_certify() -> None:
    """cpsat's "no" is a claim: next to search, whose "no" is certified, it runs at a lower priority."""

    base = os.getpriority(os.PRIO_PROCESS, 0)
    with Race(["search", "cpsat"]) as race:
        race.start_workers()  # with search among them, the workers start when a board needs them
        race.settle()  # known once the probe answers (under load, after the workers started): they are lowered then
        niceness = {name: os.getpriority(os.PRIO_PROCESS, w.pid) for name, w in race.workers.items() if w.pid}
    assert niceness == {"search": base, "cpsat": min(base + RacePolicy.CLAIMS_ONLY_NICENESS, 19)}
    with Race(["cpsat"]) as race:  # nothing certifies: nobody is held back
        assert [os.getpriority(os.PRIO_PROCESS, w.pid) for w in race.workers.values() if w.pid] == [base]


def test_the_head_start_follows_the_leaders_recent_wins(fakes) -> None:
    """Twice the 95th percentile of the leader's recent winning times, between ``stagger`` and the cap."""

    with Race(["honest"], stagger=0.02) as race:
        assert race.head_start("honest") == 0.02, "no wins yet: the floor"
        for _ in range(40):
            race.won("honest", 0.005)
        assert race.head_start("honest") == 0.02, "fast wins: still the floor"
        for _ in range(40):
            race.won("honest", 0.05)
        assert race.head_start("honest") == pytest.approx(0.1)
        race.won("honest", 30.0)  # one slow win among 81 is above the 95th percentile: no change
        assert race.head_start("honest") == pytest.approx(0.1)
        for _ in range(100):
            race.won("honest", 1.0)  # the window keeps only the last wins, all slow now
        assert race.head_start("honest") == RacePolicy.HEAD_START_CAP
    with Race(["honest"], stagger=0.0) as race:
        race.won("honest", 0.05)
        assert race.head_start("honest") == 0.0, "stagger 0: everyone starts at once"


def test_a_paused_worker_is_stopped_until_it_resumes() -> None:
    worker = Worker("search")
    try:
        process = psutil.Process(worker.pid)

        def settles(stopped: bool) -> bool:  # a signal arrives soon, not at once
            deadline = time.monotonic() + 5
            while (process.status() == psutil.STATUS_STOPPED) != stopped and time.monotonic() < deadline:
                time.sleep(0.01)
            return (process.status() == psutil.STATUS_STOPPED) == stopped

        worker.pause()
        assert settles(stopped=True)
        worker.resume()
        assert settles(stopped=False)
    finally:
        worker.kill()
    assert not psutil.pid_exists(worker.pid) or psutil.Process(worker.pid).status() == psutil.STATUS_ZOMBIE


def test_the_others_are_paused_while_a_slow_certificate_is_checked(fakes, boards, monkeypatch) -> None:
    """honest's dead-states file is checked while honest:slow still sleeps: it is stopped meanwhile, then goes on."""
    import sigmar.runners.race as race_module

    seen: list[str] = []
    real_certify = race_module.certify

    def watching(board, result, store):  # type: ignore[no-untyped-def]
        if result.status is Status.UNSOLVABLE:
            slow = psutil.Process(race.workers["honest:slow"].pid)
            deadline = time.monotonic() + 10  # SIGSTOP arrives soon, not at once
            while slow.status() != psutil.STATUS_STOPPED and time.monotonic() < deadline:
                time.sleep(0.01)
            seen.append(slow.status())
        return real_certify(board, result, store)

    monkeypatch.setattr(race_module, "certify", watching)
    # honest:slow sleeps past honest's answer even when a busy machine starts honest's worker late (at its 0.5 s
    # default it answered first there: its own file was checked and nobody was paused)
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "30")
    with Race(["honest", "honest:slow"], stagger=0) as race:
        outcome = race.solve(boards["stuck"], 5.0)
        assert outcome.result.reason is Reason.EXHAUSTED and outcome.result.checked
        assert seen == [psutil.STATUS_STOPPED]
        slow = psutil.Process(race.workers["honest:slow"].pid)
        assert slow.status() != psutil.STATUS_STOPPED, "resumed after the check"
        assert outcome.result.seconds >= outcome.result.check_seconds, "seconds include the check"


def test_a_job_stopped_before_it_starts_is_skipped(fakes, boards, monkeypatch) -> None:
    """A stop can overtake its job (it has a pipe of its own): the job is then answered unknown, not solved."""
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "3")  # room for a busy machine's worker to hear the stop in time
    worker = Worker("test")
    try:
        worker.submit(1, "honest:slow", boards["pair"], 5.0)  # keeps the worker busy for 3 s
        worker.submit(2, "honest", boards["pair"], 5.0)  # queued behind it
        worker.ask_stop()  # ... and stopped before the worker has read it
        assert worker.conn.poll(10)
        first = worker.receive()
        assert first is not None and first.job_id == 1 and first.result.status is Status.SOLVED
        assert worker.conn.poll(10)
        second = worker.receive()
        assert second is not None and second.job_id == 2
        assert second.result.status is Status.UNKNOWN and "before it started" in second.result.message
    finally:
        worker.kill()


def test_a_leader_that_loses_the_hard_boards_is_held_back_on_them(fakes, boards, monkeypatch) -> None:
    """Past its head start, the leader runs LATE_NICENESS lower when another backend wins most such boards."""
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "1.0")  # both answer 1 s late (honest:sticky sooner if stopped)
    base = os.getpriority(os.PRIO_PROCESS, 0)
    with Race(["honest:slow", "honest:sticky"], stagger=0.05) as race:
        race.wins["honest:slow"] = 10  # the leader, by its wins
        slow = race.workers["honest:slow"]
        assert race.solve(boards["pair"], 5.0).result.status is Status.SOLVED
        assert os.getpriority(os.PRIO_PROCESS, slow.pid) == base, "no late wins yet: nobody held back"
        assert sum(race.late_wins.values()) == 1, "a win after the head start ran out counts as late"
        race.late_wins.clear()
        race.late_wins["honest:sticky"] = 3
        assert race.late_leader("honest:slow") == "honest:sticky"
        time.sleep(1.2)  # the leader finishes the last board before the next one starts
        assert race.solve(boards["pair"], 5.0).result.status is Status.SOLVED
        assert os.getpriority(os.PRIO_PROCESS, slow.pid) == min(base + RacePolicy.LATE_NICENESS, 19)
        race.late_wins.clear()
        time.sleep(1.2)
        race.solve(boards["pair"], 5.0)  # the next board: its own niceness again (or a fresh worker)
        assert os.getpriority(os.PRIO_PROCESS, race.workers["honest:slow"].pid) == base


# -- start-up follows the work: search in this process first, workers only when a board needs them


def test_a_board_search_answers_at_once_starts_no_worker(fakes, boards, monkeypatch) -> None:
    """``honest`` is never needed: search (in this process) answers within its head start (a long one here,
    so that a loaded machine's pause does not end it)."""
    monkeypatch.setattr(RacePolicy, "FIRST_HEAD_START", 30.0)
    monkeypatch.setattr(RacePolicy, "PARTNER_DELAY", 30.0)
    before = descendants()
    with Race(["search", "honest"]) as race:
        solved = race.solve(boards["pair"], 30.0)
        stuck = race.solve(boards["stuck"], 30.0)
        assert race.workers == {} and race.pids() == []
        assert descendants() == before, "a process was started"
    assert (solved.result.status, solved.result.backend, solved.result.verified) == (Status.SOLVED, "search", True)
    assert (stuck.result.status, stuck.result.checked) == (Status.UNSOLVABLE, True)
    assert stuck.result.certificate is not None


def test_the_collector_is_held_off_while_a_board_is_raced(boards, monkeypatch) -> None:
    """Python's cycle collector does not run during a board (the answer's check included: its objects are alive
    then, issue 48), and is on again after the board, as it was before."""
    import gc

    seen: list[bool] = []
    check = Race.check

    def checking(self: Race, *args: object, **kwargs: object) -> Result:
        seen.append(gc.isenabled())
        return check(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Race, "check", checking)
    assert gc.isenabled()
    with Race(["search"]) as race:
        race.solve(boards["pair"], 30.0)
        assert gc.isenabled(), "on again after the board"
        gc.disable()
        try:
            race.solve(boards["stuck"], 30.0)
            assert not gc.isenabled(), "left off when it was off"
        finally:
            gc.enable()
    assert seen == [False, False]


def _search_gives_up(monkeypatch: pytest.MonkeyPatch, hang: bool = False) -> None:
    """search answers ``unknown`` (at once, or only once asked to stop), here and in the workers forked from here."""
    from sigmar.encoders.search import SearchBackend

    def solve(self: SearchBackend, board: object, time_limit: float | None = None) -> Result:
        while hang and not self._stopped:
            time.sleep(0.01)
        return Result(Status.UNKNOWN, self.name, message="gave up")

    monkeypatch.setattr(SearchBackend, "solve", solve)


def test_a_board_search_does_not_answer_gets_the_others(fakes, boards, monkeypatch) -> None:
    """search gives up here: the others join at once, and only they need a worker."""
    _search_gives_up(monkeypatch)
    with Race(["search", "honest"]) as race:
        result = race.solve(boards["pair"], 30.0).result
        assert set(race.workers) == {"honest"} and len(race.pids()) == 1
    assert (result.status, result.backend, result.verified) == (Status.SOLVED, "honest:dfs", True)


def _search_takes(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """search answers like honest (the rule engine's exhaustive search) after ``seconds`` of its own CPU time
    (the race's schedule counts search's head start so), unless stopped."""
    from sigmar.encoders.search import SearchBackend
    from tests.broken_backend import dfs

    def solve(self: SearchBackend, board: Board, time_limit: float | None = None) -> Result:
        self._stopped = False
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            if self._stopped:
                return Result(Status.UNKNOWN, self.name, message="stopped")
            sum(range(2000))  # Python bytecodes: the timer's ticks run between them
        moves = dfs(board)
        assert moves is not None
        return Result(Status.SOLVED, self.name, moves=moves)

    monkeypatch.setattr(SearchBackend, "solve", solve)


def test_search_keeps_the_board_it_answers_a_little_past_its_head_start(fakes, boards, monkeypatch) -> None:
    """The others join when search's head start ends, but search goes on here: its answer, 0.15 CPU seconds
    in, wins before the other's (5 s), and it is never run again in a worker (issue 48: no board waits for
    a restart)."""
    _search_takes(monkeypatch, 0.15)
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "5")
    with Race(["search", "honest:slow"]) as race:
        race.events = []
        outcome = race.solve(boards["pair"], 30.0)
        assert _events(race, "start") == ["search", "honest:slow"], "the other joined"
        assert "search" not in race.workers, "search never went to a worker"
    assert (outcome.result.backend, outcome.result.status) == ("search", Status.SOLVED)
    assert outcome.result.seconds < 5.0


def test_the_others_join_held_back_so_that_leader_and_partner_keep_a_core_each(fakes, boards, monkeypatch) -> None:
    """search leads here; past its head start its partner joins at its own niceness, and the other backend
    OTHERS_NICENESS lower, below a leader held back (on 2 cores, three at one priority would take a third from
    the likely winner)."""
    monkeypatch.setattr(RacePolicy, "STAY_WITH_PARTNER", False)  # search does not stay here beside its partner
    from tests.broken_backend import HonestBackend

    # past its head start, and before the others' 60 s even at load 24 (at 5 s, honest:slow won there)
    _search_takes(monkeypatch, 0.3)
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "60")
    monkeypatch.setattr(HonestBackend, "certifies", property(lambda self: True))  # both certify, as cnf and pumpkin
    base = os.getpriority(os.PRIO_PROCESS, 0)
    with Race(["search", "honest:slow", "honest:sticky"]) as race:
        race.events = []
        assert race.solve(boards["pair"], 120.0).result.backend == "search"
        assert _events(race, "start") == ["search", "honest:slow", "honest:sticky"], "partner, then the other"
        niceness = {name: os.getpriority(os.PRIO_PROCESS, w.pid) for name, w in race.workers.items() if w.pid}
    assert niceness == {"honest:slow": base, "honest:sticky": min(base + RacePolicy.OTHERS_NICENESS, 19)}
    assert RacePolicy.OTHERS_NICENESS > RacePolicy.LATE_NICENESS


def _search_works_and_says_where(monkeypatch: pytest.MonkeyPatch, units: int) -> None:
    """search answers like honest after ``units`` pieces of work (some 15 us of CPU each; counted, not timed: a
    thread's CPU clock starts again in a forked copy), unless stopped; its answer says the process it ended in
    and that process's niceness."""
    from sigmar.encoders.search import SearchBackend
    from tests.broken_backend import dfs

    def solve(self: SearchBackend, board: Board, time_limit: float | None = None) -> Result:
        self._stopped = False
        for _ in range(units):
            if self._stopped:
                return Result(Status.UNKNOWN, self.name, message="stopped")
            sum(range(2000))  # Python bytecodes: the timer's ticks run between them
        moves = dfs(board)
        assert moves is not None
        where = {"pid": os.getpid(), "niceness": os.getpriority(os.PRIO_PROCESS, 0)}
        return Result(Status.SOLVED, self.name, moves=moves, statistics=where)

    monkeypatch.setattr(SearchBackend, "solve", solve)


def test_search_past_its_head_start_goes_on_held_back_in_a_copy_from_where_it_is(fakes, boards, monkeypatch) -> None:
    """On a board another backend wins more often once search's head start is over (the late leader), search
    goes on LATE_NICENESS lower in a copy of the runner forked from where it is: its work is kept (it was
    started again in its worker, from the start: dense deals 253 and 265 lost 68-87 ms so), it never goes to
    its worker, and the copy is gone once the board is over."""
    monkeypatch.setattr(RacePolicy, "STAY_WITH_PARTNER", False)  # search does not stay here beside its partner
    _search_works_and_says_where(monkeypatch, 30_000)  # past the first head start (0.1 s of its CPU)
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "60")
    base = os.getpriority(os.PRIO_PROCESS, 0)
    ended: list[int] = []
    from sigmar.encoders.processes import copies

    kill = copies.Copy.kill
    monkeypatch.setattr(copies.Copy, "kill", lambda self: (ended.append(self.pid), kill(self))[1])
    with Race(["search", "honest:slow"]) as race:
        race.policy.late_wins["honest:slow"] = RacePolicy.LATE_WINS_NEEDED  # the late leader
        race.events = []
        outcome = race.solve(boards["pair"], 120.0)
        assert _events(race, "hand over") == ["search"] and "search" not in race.workers
        result = outcome.result
        assert (result.backend, result.status, result.verified) == ("search", Status.SOLVED, True)
        pid = result.statistics["pid"]
        assert pid != os.getpid() and result.statistics["niceness"] == min(base + RacePolicy.LATE_NICENESS, 19)
        assert ended == [pid] and not psutil.pid_exists(pid)
        assert race.solve(boards["pair"], 120.0).result.backend == "search"  # the next board: here again


def test_search_past_its_head_start_stays_here_beside_its_busy_partner_and_the_others_wait(
    fakes, boards, monkeypatch
) -> None:
    """On a board of side INLINE_PREPARE_DIM at most, search past its head start goes on here, at its own niceness,
    while its partner proves, and the others wait (two CPUs, two runners): no copy is forked, no third process
    starts."""
    from tests.broken_backend import HonestBackend

    _search_works_and_says_where(monkeypatch, 30_000)  # past the first head start (0.1 s of its CPU)
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "100")  # the partner proves throughout
    monkeypatch.setattr(RacePolicy, "CLAIMS_WAIT", 100.0)  # ... and the others wait throughout, even at load
    monkeypatch.setattr(HonestBackend, "certifies", property(lambda self: True))  # both certify, as cnf and pumpkin
    base = os.getpriority(os.PRIO_PROCESS, 0)
    with Race(["search", "honest:slow", "honest:sticky"]) as race:
        race.policy.late_wins["honest:slow"] = RacePolicy.LATE_WINS_NEEDED  # the late leader
        race.events = []
        result = race.solve(boards["pair"], 200.0).result
        assert (result.backend, result.status, result.verified) == ("search", Status.SOLVED, True)
        assert (result.statistics["pid"], result.statistics["niceness"]) == (os.getpid(), base), "here, as it was"
        assert _events(race, "hand over") == [] and _events(race, "start") == ["search", "honest:slow"]


def test_search_s_copy_is_killed_when_another_backend_wins(fakes, boards, monkeypatch) -> None:
    """The copy search was handed over to is killed and reaped as soon as another backend's answer wins."""
    monkeypatch.setattr(RacePolicy, "STAY_WITH_PARTNER", False)  # search does not stay here beside its partner
    _search_takes(monkeypatch, 30.0)
    ended: list[int] = []
    from sigmar.encoders.processes import copies

    kill = copies.Copy.kill
    monkeypatch.setattr(copies.Copy, "kill", lambda self: (ended.append(self.pid), kill(self))[1])
    with Race(["search", "honest:slow"]) as race:
        # after search's head start, its copy running: the head start is 0.1 s of search's CPU, which a busy
        # machine gives it over up to SEARCH_CLOCK_LAG (1 s) of the clock; at 0.5 s honest:slow answered first
        monkeypatch.setenv("SIGMAR_FAKE_DELAY", "3")
        race.policy.late_wins["honest:slow"] = RacePolicy.LATE_WINS_NEEDED
        race.events = []
        result = race.solve(boards["pair"], 120.0).result
        assert result.backend == "honest:slow" and _events(race, "hand over") == ["search"]
        assert len(ended) >= 1 and not any(psutil.pid_exists(pid) for pid in ended)


def _search_sleeps(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """search answers like honest after ``seconds`` asleep (as if the machine gave it no CPU), unless stopped."""
    from sigmar.encoders.search import SearchBackend
    from tests.broken_backend import dfs

    def solve(self: SearchBackend, board: Board, time_limit: float | None = None) -> Result:
        self._stopped = False
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            if self._stopped:
                return Result(Status.UNKNOWN, self.name, message="stopped")
            time.sleep(0.002)
        moves = dfs(board)
        assert moves is not None
        return Result(Status.SOLVED, self.name, moves=moves)

    monkeypatch.setattr(SearchBackend, "solve", solve)


def test_search_s_head_start_is_its_own_cpu_time_not_the_clock_s(fakes, boards, monkeypatch) -> None:
    """On a loaded machine search's few ms of an easy board take long on the clock: its head start (and its
    partner's delay) are counted in its CPU time, so such a board never forks the others (a one-board solve
    at load 17 imported the workers' modules and forked the partner)."""
    _search_sleeps(monkeypatch, 0.4)  # well past FIRST_HEAD_START on the clock, with no CPU used
    with Race(["search", "honest"]) as race:
        race.events = []
        outcome = race.solve(boards["pair"], 30.0)
        assert race.workers == {} and _events(race, "start") == ["search"], "the others joined"
    assert (outcome.result.backend, outcome.result.status) == ("search", Status.SOLVED)


def test_a_search_that_gets_no_cpu_for_long_is_joined_all_the_same(fakes, boards, monkeypatch) -> None:
    """search's clock lags the wall clock by SEARCH_CLOCK_LAG at most: a search starved that long is helped."""
    from sigmar.runners import race as race_module

    monkeypatch.setattr(race_module, "SEARCH_CLOCK_LAG", 0.2)
    _search_sleeps(monkeypatch, 30.0)
    with Race(["search", "honest"]) as race:
        start = time.perf_counter()
        outcome = race.solve(boards["pair"], 60.0)
        assert time.perf_counter() - start < 20.0, "nobody joined the starved search"
    assert (outcome.result.backend, outcome.result.status) == ("honest:dfs", Status.SOLVED)


def test_search_in_this_process_goes_on_while_the_probe_takes_its_time(fakes, boards, monkeypatch) -> None:
    """Which backends certify is asked of a forked child (it imports every solver: seconds on a loaded machine).
    Meanwhile search goes on here: the runner never blocks on that child while search runs (it did after 1 s,
    and search waited with it, up to PROBE_WAIT: 100 s here, against search's 1.5 s of CPU)."""
    from sigmar.runners import race as race_module

    parent, real = os.getpid(), race_module._certifying

    def slow(names: tuple[str, ...]) -> frozenset[str]:
        if os.getpid() != parent:
            time.sleep(300)  # the probe, forked from here
        return real(names)

    monkeypatch.setattr(race_module, "_certifying", slow)
    monkeypatch.setattr(race_module, "PROBE_WAIT", 100.0)
    _search_takes(monkeypatch, 1.5)  # past the head start, the partner's delay and the second it used to wait
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "5")
    with Race(["search", "honest:slow"]) as race:
        start = time.perf_counter()
        outcome = race.solve(boards["pair"], 200.0)
        assert time.perf_counter() - start < 90.0, "search waited for the probe"
    assert (outcome.result.backend, outcome.result.status) == ("search", Status.SOLVED)


def test_the_probe_makes_no_backend_whose_class_only_claims(monkeypatch) -> None:
    """The probe asks each backend whether it certifies; a built-in whose class keeps the base's answer (cpmpy,
    cpsat, minizinc: a claim whatever its solver) is answered from the class, not made: cpmpy's constructor
    imports CPMpy and its solver (0.3-0.4 s of the probe's CPU, which a batch's workers wait for before they warm
    up).  Those whose answer depends on the instance (cnf, pumpkin, search) are made and asked as before."""
    from sigmar.encoders import registry
    from sigmar.runners import race as race_module

    made: list[str] = []
    real = registry.make

    def make(name: str, **options: object) -> object:
        made.append(name)
        return real(name, **options)

    monkeypatch.setattr(registry, "make", make)
    names = ("search", "cnf", "cpsat", "minizinc", "cpmpy", "pumpkin")
    answer = race_module._certifying(names)
    assert made == ["search", "cnf", "pumpkin"]
    everyone = set()
    for name in names:
        try:
            if real(name, check=False).certifies:
                everyone.add(name)
        except Exception:
            pass
    assert answer == everyone and {"search", "cnf"} <= answer  # what making every one of them says


def test_a_worker_that_answers_stops_search_in_this_process(fakes, boards, monkeypatch) -> None:
    """search would take 30 s here; honest answers in its worker, the timer sees it, search is stopped."""
    _search_takes(monkeypatch, 30.0)
    with Race(["search", "honest"]) as race:
        start = time.perf_counter()
        outcome = race.solve(boards["pair"], 60.0)
        assert time.perf_counter() - start < 20.0, "search was not stopped"
        assert "search" not in outcome.answers, "a search stopped for the others' answer did not answer"
    assert (outcome.result.backend, outcome.result.status) == ("honest:dfs", Status.SOLVED)


def test_a_search_that_ignores_its_budget_is_stopped_in_process(fakes, boards, monkeypatch) -> None:
    """A search past its head start (and the slack) is interrupted; the race goes on with the workers."""

    monkeypatch.setattr(RacePolicy, "FIRST_HEAD_START", 0.0)
    _search_gives_up(monkeypatch, hang=True)
    with Race(["search", "honest"], slack=0.1) as race:
        outcome = race.solve(boards["pair"], 30.0)
        assert race.workers, "the others never started"
    assert outcome.result.backend == "honest:dfs"
    assert outcome.answers["honest"].status is Status.SOLVED


def _search_ignores_its_stop(monkeypatch: pytest.MonkeyPatch, spin: bool, after: float) -> None:
    """search runs until stopped, then goes on ``after`` seconds more (its CPU time with ``spin``, else asleep,
    as a search the machine gives no CPU) before it gives up."""
    from sigmar.encoders.search import SearchBackend

    def solve(self: SearchBackend, board: object, time_limit: float | None = None) -> Result:
        self._stopped = False
        while not self._stopped:
            time.sleep(0.002)
        if spin:
            end = time.thread_time() + after
            while time.thread_time() < end:
                sum(range(2000))  # Python bytecodes: the timer's ticks run between them
        else:
            end = time.perf_counter() + after
            while time.perf_counter() < end:
                time.sleep(0.01)
        return Result(Status.UNKNOWN, self.name, message="gave up")

    monkeypatch.setattr(SearchBackend, "solve", solve)


def test_a_search_that_gets_no_cpu_after_its_stop_is_not_taken_for_one_that_ignores_it(
    fakes, boards, monkeypatch
) -> None:
    """A search here has ``slack`` seconds of its own CPU time to stop: one that has had none of it since its
    stop (a loaded machine) is waited for and stays in this process for the next boards (it was interrupted
    on the clock's 0.1 s and never used here again that batch)."""
    _search_ignores_its_stop(monkeypatch, spin=False, after=1.0)
    with Race(["search"], slack=0.1) as race:
        outcome = race.solve(boards["pair"], 0.2)
        assert race.inline is not None, "the starved search was taken for one that ignores its stop"
    assert outcome.result.status is Status.UNKNOWN


def test_a_search_that_runs_on_past_its_stop_is_interrupted(fakes, boards, monkeypatch) -> None:
    """One that has had ``slack`` seconds of CPU since its stop is interrupted there, and not used here again."""
    _search_ignores_its_stop(monkeypatch, spin=True, after=60.0)
    with Race(["search"], slack=0.1) as race:
        outcome = race.solve(boards["pair"], 0.2)
        assert race.inline is None, "the search that ignores its stop is still used in this process"
    assert outcome.result.status is Status.UNKNOWN and "search" not in outcome.answers


def test_a_search_that_sleeps_on_past_its_stop_is_interrupted_on_the_clock(fakes, boards, monkeypatch) -> None:
    """One that uses no CPU and does not stop is interrupted after ``OVERRUN_WALL`` seconds on the clock."""
    from sigmar.runners import race as race_module

    monkeypatch.setattr(race_module, "OVERRUN_WALL", 0.5)
    _search_ignores_its_stop(monkeypatch, spin=False, after=60.0)
    with Race(["search"], slack=0.1) as race:
        start = time.perf_counter()
        outcome = race.solve(boards["pair"], 0.2)
        assert time.perf_counter() - start < 30.0, "the sleeping search was waited for to its end"
        assert race.inline is None
    assert outcome.result.status is Status.UNKNOWN and "search" not in outcome.answers


def test_search_alone_runs_in_process_and_keeps_the_exit_codes(board_file: Path) -> None:
    """``-b search`` and the default race answer in the runner's process: 0 when all are answered."""
    for backend in ("search", "all"):
        code = subprocess.run(
            [sys.executable, "-m", "sigmar.runners.cli", "solve", str(board_file), "-b", backend, "--json"],
            capture_output=True,
            text=True,
        )
        lines = [json.loads(line) for line in code.stdout.splitlines()]
        assert lines and all(line["status"] in ("solved", "unsolvable") for line in lines), code.stdout + code.stderr
        assert code.returncode == 0, code.stderr


def test_a_wrong_answer_from_search_in_process_is_still_wrong(fakes, boards, monkeypatch) -> None:
    """The rule engine replays what search answers in this process too: a bad solution is exit 3."""
    from sigmar.encoders.search import SearchBackend

    def solve(self: SearchBackend, board: object, time_limit: float | None = None) -> Result:
        return Result(Status.SOLVED, self.name, moves=())  # clears nothing

    monkeypatch.setattr(SearchBackend, "solve", solve)
    with Race(["search"]) as race:
        alone = race.solve(boards["pair"], 30.0)
        assert race.workers == {}
    assert alone.result.status is Status.ERROR and alone.result.wrong and "search" in alone.wrong
    with Race(["search", "honest"]) as race:
        raced = race.solve(boards["pair"], 30.0)
    assert (raced.result.status, raced.result.backend) == (Status.SOLVED, "honest:dfs")
    assert "search" in raced.wrong


# -- the winner of the hard boards gets the machine (issue 30)


def _events(race: Race, event: str) -> list[str]:
    assert race.events is not None
    return [name for _, kind, names in race.events if kind == event for name in names]


def test_the_winner_of_the_hard_boards_starts_with_the_leader(fakes, boards, monkeypatch) -> None:
    """The partner (most wins on hard boards) starts with the leader; the rest wait for the head start."""
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "30")  # past the partner's answer even if its worker starts late
    with Race(["honest:slow", "honest", "broken:unknown"], stagger=30.0) as race:
        race.wins["honest:slow"] = 10  # the leader, by its wins; it sleeps past the partner's answer
        race.late_wins["honest"] = 3  # ... but "honest" wins the hard boards
        race.events = []
        outcome = race.solve(boards["pair"], 60.0)
        assert outcome.result.backend == "honest:dfs"
        assert set(_events(race, "start")) == {"honest:slow", "honest"}, "partner and leader only"
        assert _events(race, "release") == [], "the head start had not run out"
        assert race.late_wins["honest"] == 4, "a board the leader did not win is a hard one"


def test_claim_only_backends_wait_while_the_partner_proves(fakes, boards, monkeypatch) -> None:
    """Past the head start the others join, but not those that only claim while the partner is at work."""

    monkeypatch.setattr(RacePolicy, "CLAIMS_WAIT", 60.0)
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "1.0")  # the partner answers after the head start
    with Race(["broken:hang", "honest:slow", "broken:unknown", "broken:crash"], stagger=0.05) as race:
        race.wins["broken:hang"] = 10
        race.late_wins["honest:slow"] = 3
        race.settle()  # the probe's answer first: it sets claims_only, which the test then sets its own way
        race.claims_only = frozenset({"broken:unknown"})  # the others certify, as far as the race knows
        race.events = []
        outcome = race.solve(boards["pair"], 60.0)
        assert outcome.result.backend == "honest:slow"
        assert _events(race, "release") == ["broken:crash"], "the certifying backend joins at the head start"
        assert "broken:unknown" not in _events(race, "start"), "the claim-only backend waited"
        assert race.events[1][1] == "start" and set(_events(race, "start")[:2]) == {"broken:hang", "honest:slow"}


def test_claim_only_backends_join_after_a_while_if_the_partner_proves_on(fakes, boards, monkeypatch) -> None:

    monkeypatch.setattr(RacePolicy, "CLAIMS_WAIT", 0.05)
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "30")
    with Race(["broken:hang", "honest:slow", "honest"], stagger=0.05) as race:
        race.wins["broken:hang"] = 10
        race.late_wins["honest:slow"] = 3
        race.settle()  # the probe's answer first (on a loaded machine it came during the board and undid this)
        race.claims_only = frozenset({"honest"})
        race.events = []
        outcome = race.solve(boards["pair"], 60.0)
        assert outcome.result.backend == "honest:dfs", "the claim-only backend joined and won"
        kinds = [kind for _, kind, _ in race.events]
        assert kinds.index("join") > kinds.index("release")
        assert _events(race, "join") == ["honest"]


def test_the_check_is_prepared_while_the_partner_proves(fakes, boards, monkeypatch) -> None:
    """Past PREPARE_AFTER with the partner still at work, the runner encodes the board for the DRUP check."""
    from sigmar.runners import race as race_module
    from sigmar.runners.checking import fresh_formula

    monkeypatch.setattr(race_module, "DRUP_FAMILIES", frozenset({"honest"}))  # the fake proves as cnf does
    monkeypatch.setattr(RacePolicy, "PREPARE_AFTER", 0.0)
    # the partner still proves when the runner next looks (it prepares only for a partner at work): 1 s, not
    # 0.3, so that a busy machine's pause of the runner does not outlast it
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "1.0")
    with Race(["broken:hang", "honest:slow"], stagger=30.0) as race:
        race.wins["broken:hang"] = 10
        race.late_wins["honest:slow"] = 3
        race.events = []
        race.solve(boards["pair"], 60.0)
        assert _events(race, "prepare") == ["honest:slow"]
    assert not fresh_formula.prepared(boards["pair"]), "the encoding made ahead outlived its board"


def _search_spins_until_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    """search here takes CPU time (the race's clock for it) until it is stopped, then gives up."""
    from sigmar.encoders.search import SearchBackend

    def solve(self: SearchBackend, board: object, time_limit: float | None = None) -> Result:
        self._stopped = False
        while not self._stopped:
            sum(range(2000))  # Python bytecodes: the timer's ticks run between them
        return Result(Status.UNKNOWN, self.name, message="stopped")

    monkeypatch.setattr(SearchBackend, "solve", solve)


@pytest.mark.parametrize(("drup", "largest"), [(True, 6), (False, 6), (True, 2)])
def test_the_check_is_prepared_while_search_leads_here(fakes, boards, monkeypatch, drup, largest) -> None:
    """With search running in this process, the DRUP check's encoding is made meanwhile once search has had its
    share of its head start and the partner proves (dense deal 4 of the public solver's waited for it after
    cnf's answer): only for a partner whose "no" is a DRUP proof, and only on a board small enough
    (INLINE_PREPARE_DIM; the pair is side 3)."""
    from sigmar.runners import race as race_module
    from sigmar.runners.checking import fresh_formula

    monkeypatch.setattr(race_module, "INLINE_PREPARE_DIM", largest)
    if drup:
        monkeypatch.setattr(race_module, "DRUP_FAMILIES", frozenset({"honest"}))  # the fake proves as cnf does
    _search_spins_until_stopped(monkeypatch)
    monkeypatch.setattr(RacePolicy, "FIRST_HEAD_START", 30.0)  # search leads for the whole board
    monkeypatch.setattr(RacePolicy, "PREPARE_SHARE", 0.0)  # the encoding as soon as the partner joins
    monkeypatch.setattr(RacePolicy, "INLINE_PREPARE_AFTER", 0.0)
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "1.0")  # the partner still proves at search's next tick, even under load
    fresh_formula.release(boards["pair"])
    with Race(["search", "honest:slow"], stagger=0.02) as race:
        race.settle()
        race.late_wins["honest:slow"] = 3  # the partner
        race.events = []
        outcome = race.solve(boards["pair"], 60.0)
        kinds = [(kind, names) for _, kind, names in race.events]
    assert outcome.result.backend == "honest:slow"
    assert ("start", ("honest:slow",)) in kinds and ("release", ()) not in kinds, "search did not lead throughout"
    if drup and largest >= boards["pair"].dim:
        assert kinds.index(("prepare", ("honest:slow",))) < kinds.index(("answer", ("honest:slow",)))
    else:
        assert "prepare" not in [kind for kind, _ in kinds], "encoded while search ran, or for no DRUP proof"
    assert not fresh_formula.prepared(boards["pair"]), "the encoding made ahead outlived its board"


def test_a_pause_stops_the_process_groups_the_worker_started(fakes, boards, tmp_path, monkeypatch) -> None:
    """A solver leading a process group of its own (MiniZinc's, under its guard) is paused with its worker."""
    pidfile = tmp_path / "child.pid"
    monkeypatch.setenv("SIGMAR_FAKE_PIDFILE", str(pidfile))
    worker = Worker("test")
    child = None
    try:
        worker.submit(1, "broken:groupchild", boards["pair"], 60.0)
        assert wait_for(lambda: pidfile.exists() and pidfile.read_text().strip())
        child = psutil.Process(int(pidfile.read_text()))
        assert os.getpgid(child.pid) != os.getpgid(worker.pid)
        worker.pause()
        assert wait_for(lambda: child.status() == psutil.STATUS_STOPPED)
        worker.resume()
        assert wait_for(lambda: child.status() != psutil.STATUS_STOPPED)
    finally:
        worker.kill()
    # the worker's kill took the child of another group with it (its keeper adopted and swept it)
    assert not child.is_running() or child.status() == psutil.STATUS_ZOMBIE


def test_the_partner_is_the_certifying_runner_up_until_another_wins_the_hard_boards(fakes) -> None:
    with Race(["honest", "honest:slow", "broken:unknown"]) as race:
        race.policy.certifying = frozenset({"honest", "honest:slow"})
        race.wins.update({"honest": 5, "broken:unknown": 3, "honest:slow": 1})
        assert race.partner("honest") == "honest:slow", "the other certifying backend, though it won less"
        race.late_wins["broken:unknown"] = 3
        assert race.partner("honest") == "broken:unknown", "the winner of the hard boards"


def test_the_partner_joins_after_the_leader_has_had_a_moment(fakes, boards, monkeypatch) -> None:

    monkeypatch.setattr(RacePolicy, "PARTNER_DELAY", 0.2)
    monkeypatch.setenv("SIGMAR_FAKE_DELAY", "30")  # the leader answers after the partner, however late it starts
    with Race(["honest:slow", "honest"], stagger=30.0) as race:
        race.wins["honest:slow"] = 10
        race.late_wins["honest"] = 3
        race.events = []
        race.solve(boards["pair"], 60.0)
        starts = [(at, names[0]) for at, kind, names in race.events if kind == "start"]
        assert [name for _, name in starts] == ["honest:slow", "honest"]
        board = next(at for at, kind, _ in race.events if kind == "board")
        assert starts[1][0] - board >= 0.2, "the partner waited for its delay from the board's start"


# -- the policy alone, without a process


def test_the_policy_plans_a_board_from_its_record_of_wins() -> None:
    """Who starts at once, who joins when: no wins, a leader with a certifying partner, a winner of hard boards."""
    policy = RacePolicy(["search", "cnf", "cpsat"], stagger=0.02)
    plan = policy.plan(start=100.0)
    assert plan.first == ["search", "cnf", "cpsat"] and not plan.staggered, "no wins yet: everyone at once"
    assert plan.partner is None and plan.later == [] and plan.partner_at is None and plan.prepare_at is None

    policy.certifying = frozenset({"search", "cnf"})
    for _ in range(10):
        policy.won("search", 0.01)
    plan = policy.plan(start=100.0)
    assert plan.leader == "search" and plan.first == ["search"] and plan.staggered
    assert plan.partner == "cnf", "the certifying backend joins soon after the leader"
    assert plan.later == ["cpsat"]
    head = policy.head_start("search")
    assert head == pytest.approx(0.02)  # twice 10 ms is the floor
    assert plan.partner_at == pytest.approx(100.0 + min(RacePolicy.PARTNER_DELAY, head))
    assert plan.release_at == pytest.approx(100.0 + head)
    assert plan.hold_until == pytest.approx(plan.release_at + RacePolicy.CLAIMS_WAIT)
    assert plan.prepare_at == pytest.approx(100.0 + RacePolicy.PREPARE_AFTER)

    for _ in range(RacePolicy.LATE_WINS_NEEDED):
        policy.won("cpsat", 2.0, late=True)  # cpsat wins the boards the leader does not answer quickly
    assert policy.late_leader("search") == "cpsat"
    plan = policy.plan(start=0.0)
    assert plan.leader == "search" and plan.partner == "cpsat" and plan.later == ["cnf"]
    assert policy.plan(start=0.0, head_start=False).first == ["search", "cpsat", "cnf"]


def test_the_inline_budget_is_the_first_head_start_until_search_has_won() -> None:
    policy = RacePolicy(["search", "cnf"], stagger=0.02)
    assert policy.inline_budget() == RacePolicy.FIRST_HEAD_START
    policy.won("search", 0.2)
    assert policy.inline_budget() == pytest.approx(min(0.4, RacePolicy.HEAD_START_CAP))


def test_search_here_has_its_share_of_the_head_start_before_the_check_is_prepared() -> None:
    """With search leading here, the DRUP check's encoding is made once search has had PREPARE_SHARE of its
    head start and INLINE_PREPARE_AFTER (on its own clock), never before its partner joins, nor after the others
    do."""
    policy = RacePolicy(["search", "cnf"], stagger=0.02)
    for seconds in (0.01, 0.1):
        policy.won("search", seconds)
        plan = policy.plan(start=100.0, inline=True)
        budget = policy.inline_budget()
        assert plan.partner_at is not None and plan.prepare_at is not None
        share = max(RacePolicy.PARTNER_DELAY, RacePolicy.PREPARE_SHARE * budget, RacePolicy.INLINE_PREPARE_AFTER)
        assert plan.prepare_at == pytest.approx(100.0 + share)
        assert plan.partner_at <= plan.prepare_at <= plan.release_at
    assert RacePolicy(["search"], stagger=0.02).plan(start=0.0, inline=True).prepare_at is None, "nobody to join"


def test_the_check_is_prepared_while_search_runs_only_where_refutations_are_likely() -> None:
    """The encoding made between search's steps costs search its CPU: only while at least half the last hard
    boards ended "unsolvable" (or none has been seen), not on a file whose hard boards the partner solves."""
    policy = RacePolicy(["search", "cnf"], stagger=0.02)
    assert policy.refutations_likely(), "no hard board seen yet"
    policy.won("search", 0.001, refuted=True)  # an easy board: not counted
    policy.won("cnf", 0.2, late=True)  # a hard board solved
    assert not policy.refutations_likely()
    policy.won("cnf", 0.3, late=True, refuted=True)
    assert policy.refutations_likely(), "one of two refuted"
    for _ in range(RacePolicy.RECENT_HARD):
        policy.won("cnf", 0.2, late=True)
    assert not policy.refutations_likely(), "the refutation is older than the last RECENT_HARD hard boards"


def test_a_race_told_of_more_than_one_board_starts_its_workers_ahead(fakes, boards) -> None:
    """One board: no worker until it needs one.  More: every worker starts now, warming up meanwhile, so the
    first board that needs them does not wait for their start (issue 48, item 3)."""
    with Race(["search", "honest"]) as race:
        race.expect(1)
        assert race.workers == {}
        race.expect(2)
        assert set(race.workers) == {"search", "honest"} and all(w.alive() for w in race.workers.values())
        assert race.solve(boards["pair"], 30.0).result.status is Status.SOLVED


# A race of search and cnf told of N boards (argv[1]): which of the checks' modules the runner then holds.
_CHECKS_HELD = (
    "import sys\n"
    "from sigmar.runners.race import Race\n"
    "with Race(['search', 'cnf'], optional=['cnf']) as race:\n"
    "    race.expect(int(sys.argv[1]))\n"
    "    held = ('numpy', 'sigmar.runners.checking.dead_states_check', 'sigmar.runners.checking.drup_check')\n"
    "    print(' '.join(name for name in held if name in sys.modules))\n"
    "    import os\n"
    "    print('blas threads', os.environ.get('OPENBLAS_NUM_THREADS', 'unset'))\n"
)


_CHECKS = "numpy sigmar.runners.checking.dead_states_check sigmar.runners.checking.drup_check"


@pytest.mark.parametrize(("boards_told", "held", "threads"), [(1, "", "unset"), (2, _CHECKS, "1")])
def test_a_batch_imports_the_checks_of_hard_boards_before_its_first_board(
    boards_told: int, held: str, threads: str
) -> None:
    """Told of more than one board, the runner imports the dead-states check (with numpy, one BLAS thread) and the
    DRUP check before forking its workers, so that the batch's first refutation past a stuck set does not pay
    them (issue 48: 80-130 ms on the public solver's dense deal 4); one board imports neither."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    run = subprocess.run(
        [sys.executable, "-c", _CHECKS_HELD, str(boards_told)], capture_output=True, text=True, timeout=120, env=env
    )
    assert run.returncode == 0, run.stderr[-2000:]
    modules, blas = run.stdout.splitlines()
    assert modules.split() == held.split()
    assert blas == f"blas threads {threads}"


def test_workers_started_ahead_start_those_that_only_claim_last_and_held_back(fakes) -> None:
    """With the probe's answer in, a batch's workers start certifying ones first, and those whose "no" is only a
    claim last and CLAIMS_ONLY_NICENESS lower: their warm-ups (cpsat's 0.3 s) come after and below the others'."""
    base = os.getpriority(os.PRIO_PROCESS, 0)
    with Race(["honest", "search", "honest:dfs"]) as race:
        assert race.settle()  # waited for here, as it is in before the workers start on most batches
        race.expect(2)
        assert list(race.workers) == ["search", "honest", "honest:dfs"]
        niceness = {name: os.getpriority(os.PRIO_PROCESS, w.pid) for name, w in race.workers.items() if w.pid}
    low = min(base + RacePolicy.CLAIMS_ONLY_NICENESS, 19)
    assert niceness == {"search": base, "honest": low, "honest:dfs": low}


def test_a_worker_warms_up_our_own_backends_and_never_runs_a_plugin_outside_a_job(fakes, monkeypatch) -> None:
    """The warm-up solves a tiny board with the worker's backend before its first job, but only ours: a
    plugin's solve may crash, hang or print, which in a job is an answer and at warm-up a lost worker."""
    from sigmar.encoders import registry
    from sigmar.runners import worker_jobs
    from tests.broken_backend import HonestBackend

    monkeypatch.setattr(worker_jobs, "_backends", {})
    monkeypatch.setattr(registry, "FAMILIES", registry.FAMILIES)  # warm_up sets it
    ran: list[str] = []
    monkeypatch.setattr(HonestBackend, "solve", lambda self, board, time_limit=None: ran.append(self.name))
    worker_jobs.warm_up(registry.FAMILIES, "honest")
    assert ran == [] and worker_jobs._backends == {}
    worker_jobs.warm_up(registry.FAMILIES, "search")
    assert set(worker_jobs._backends) == {"search"}


def _warm_ups_logged(monkeypatch: pytest.MonkeyPatch, log: Path, seconds: float) -> None:
    """search's solve, in the workers forked from here, logs when it begins and ends and takes ``seconds``
    asleep in between (their warm-up is one such solve)."""
    from sigmar.encoders.search import SearchBackend

    def solve(self: SearchBackend, board: Board, time_limit: float | None = None) -> Result:
        with log.open("a") as out:
            out.write(f"begin {os.getpid()} {time.monotonic()}\n")
        time.sleep(seconds)
        with log.open("a") as out:
            out.write(f"end {os.getpid()} {time.monotonic()}\n")
        return Result(Status.UNKNOWN, self.name, message="warm")

    monkeypatch.setattr(SearchBackend, "solve", solve)


def test_the_workers_started_ahead_warm_up_one_at_a_time(fakes, tmp_path, monkeypatch) -> None:
    """Started ahead of a batch, the workers warm up in turn: on 2 cores search in the runner keeps one for
    the boards it settles meanwhile (six warming at once made its easy boards wait for the CPU)."""
    log = tmp_path / "warm.log"
    _warm_ups_logged(monkeypatch, log, 0.3)
    with Race(["search", "search:dfs", "search:sleep"]) as race:
        race.expect(2)
        assert len(race.workers) == 3
        assert wait_for(lambda: log.exists() and log.read_text().count("end") == 3, 120), "a worker never warmed"
        turn = race._turn
        assert turn is not None and Path(turn).exists()
    assert not Path(turn).exists(), "the turn's file was left behind"
    events = [line.split() for line in log.read_text().splitlines()]
    assert [kind for kind, _, _ in events] == ["begin", "end"] * 3, f"two warmed at once: {events}"
    assert [pid for _, pid, _ in events[::2]] == [pid for _, pid, _ in events[1::2]]


def test_the_drup_partners_worker_is_forked_before_the_checks_are_imported(monkeypatch) -> None:
    """A batch's cnf worker is forked right after the probe, before the runner imports its checks (0.14 s of its
    CPU): it warms up meanwhile, and the first board cnf wins (the public solver's dense deal 4, 0.2 s into the
    batch) no longer finds it cold.  The others are forked after the imports, as before."""
    from sigmar.runners import race as race_module

    seen: list[list[str]] = []
    real = race_module._warm_checks

    def warm_checks(names: list[str]) -> None:
        seen.append(list(race.workers))
        real(names)

    monkeypatch.setattr(race_module, "_warm_checks", warm_checks)
    with Race(["search", "cpsat", "cnf"]) as race:
        race.expect(2)
        assert seen == [["cnf"]]
        assert list(race.workers)[0] == "cnf" and set(race.workers) == {"cnf", "search", "cpsat"}


def test_a_worker_waiting_for_its_turn_to_warm_up_takes_a_job_at_once(boards, tmp_path) -> None:
    """A board that needs a worker before its warm-up turn comes is not held up by the others' warm-ups: the
    worker skips its warm-up, answers the job, and the turn passes on."""
    import fcntl

    turn = tmp_path / "turn"
    turn.touch()
    with turn.open("r+") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)  # another worker is warming up, for ever
        worker = Worker("search", warm="search", turn=str(turn))
        try:
            worker.submit(1, "search", boards["pair"], 30.0)
            assert worker.conn.poll(120), "the job waited for the warm-up's turn"
            done = worker.receive()
            assert done is not None and done.result.status is Status.SOLVED
        finally:
            worker.kill()
    with turn.open("r+") as again:  # nothing holds the turn for long: the waiting worker lets it go with its end

        def free() -> bool:
            try:
                fcntl.flock(again, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            return True

        assert wait_for(free, 30), "the turn was never let go"
