"""A guard process that ties an external solver to the process that started it.

Why: a solver binary outlives a killed starter unless something kills it.
``PR_SET_PDEATHSIG`` is not inherited across ``fork``, so MiniZinc's
``fzn-gecode`` or a ``--sat-cmd`` script's own children would be orphaned
even when the direct child dies with its parent.  The guard closes that gap:

- it asks the kernel for SIGTERM when its parent (the worker) dies;
- it is a *child subreaper*, so every orphaned descendant of the solver
  (``fzn-gecode`` once ``minizinc`` is gone, a script's ``sleep``) becomes its
  child instead of init's, and stays findable;
- on SIGTERM, SIGINT or SIGHUP, and when the solver exits, it kills every
  descendant (SIGKILL), removes its ``--cleanup`` folder and exits.

Starters run ``guarded(argv)`` instead of ``argv`` and stop the solver with
SIGTERM to the guard (``stop``).  The file runs as a script with ``python -I -S``
(no imports from the package, nor subprocess), so it starts in about 21 ms.

The guard's exit status is the solver's (128 + signal when it was killed).
(The run's own folder has a cheaper janitor: a shell, lifetime.py.)
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # not typing's: importing typing (or contextlib) costs the guard 4 ms a start
if TYPE_CHECKING:  # the guard itself never imports subprocess: 16 ms of its start-up
    import signal
    import subprocess
    from collections.abc import Callable
else:
    import _signal as signal  # signal's functions without the enums it makes (4 M instructions a solve)

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def prctl(option: int, value: int) -> bool:
    """``prctl(option, value)`` through libc; False where that is not possible (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # here: importing guard for remove_tree (lifetime.py, every command) costs no ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Ask the kernel to send ``sig`` when the thread that started us exits (a ``preexec_fn``)."""
    prctl(PR_SET_PDEATHSIG, int(sig))


def guarded(argv: list[str], cleanup: str | None = None) -> list[str]:
    """The command line that runs ``argv`` under a guard child of this process."""
    extra = ["--cleanup", cleanup] if cleanup else []
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), str(os.getpid()), *extra, "--", *argv]


def stop(proc: subprocess.Popen[bytes] | subprocess.Popen[str], wait: float = 3.0) -> None:
    """Stop a guarded solver: SIGTERM to the guard, which kills the tree; SIGKILL to its group if it hangs."""
    import subprocess

    _quietly(proc.send_signal, signal.SIGTERM)
    try:
        proc.wait(wait)
    except subprocess.TimeoutExpired:
        _quietly(os.killpg, proc.pid, signal.SIGKILL)
        proc.wait()


def _parents() -> dict[int, int]:
    """Every process's parent, read from /proc (empty where there is no /proc)."""
    out: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()  # the name may hold spaces and parentheses
        out[int(entry)] = int(fields[1])
    return out


def _quietly(action: Callable[..., object], *args: object) -> None:
    """``action(*args)``, an OSError ignored (contextlib.suppress would cost an import)."""
    try:  # noqa: SIM105 (see above)
        action(*args)
    except OSError:
        pass


def _children(pid: int) -> list[int]:
    """Direct children of ``pid``, read from ``/proc/PID/task/*/children`` (empty once it is gone)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                found.extend(int(child) for child in handle.read().split())
        except OSError:  # the thread ended meanwhile
            continue
    return found


def _has_children_files() -> bool:
    """Whether this kernel lists children per thread (CONFIG_PROC_CHILDREN; Debian's and most others do)."""
    return os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def descendants(root: int) -> list[int]:
    """The live descendants of ``root``, parents before children: the suite's one process-tree walk.

    The runners' memory meter calls it every few milliseconds, and the guard runs without
    site-packages (``python -I -S``, to start fast), so it is the standard library over
    ``/proc``, not psutil: the children lists when the kernel has them (cheap), else every
    process's parent.
    """
    if _has_children_files():
        found, frontier = [], [root]
        while frontier:
            frontier = [child for pid in frontier for child in _children(pid)]
            found.extend(frontier)
        return found
    children: dict[int, list[int]] = {}
    for pid, ppid in _parents().items():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def kill_tree(root: int, main_child: int | None) -> None:
    """SIGKILL every descendant of ``root`` and its process group, until none is left (a few rounds)."""
    if main_child is not None:
        _quietly(os.killpg, main_child, signal.SIGKILL)
    for _ in range(20):
        left = descendants(root)
        if not left:
            return
        for pid in left:
            _quietly(os.kill, pid, signal.SIGKILL)
        while True:  # reap our zombies so they leave the tree
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                time.sleep(0.01)
                if not descendants(root):
                    break
        time.sleep(0.005)


def main(args: list[str]) -> int:
    parent = int(args[0])
    rest = args[1:]
    cleanup = None
    if rest[:1] == ["--cleanup"]:
        cleanup, rest = rest[1], rest[2:]
    argv = rest[1:] if rest[:1] == ["--"] else rest
    if not argv:
        print("guard: no command to run", file=sys.stderr)
        return 2
    # Its own process group, so a starter's last resort (killpg) spares the worker; not its own
    # session: the kernel's autogroup scheduling gives each session an equal share of the CPU, so
    # a solver in a session of its own ignores the niceness the race gives it (MiniZinc's claims
    # took half the machine from the backend that certifies).
    _quietly(os.setpgid, 0, 0)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    child: list[int | None] = [None]

    def finish(code: int) -> None:
        kill_tree(os.getpid(), child[0])
        if cleanup:
            remove_tree(cleanup)
        os._exit(code)

    def on_signal(signum: int, _frame: object) -> None:
        finish(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the starter died before we asked to hear of it
        finish(128 + signal.SIGTERM)
    pid = os.fork()
    if pid == 0:
        try:
            die_with_parent()
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, signal.SIG_DFL)
            os.execvp(argv[0], argv)
        except OSError as exc:
            print(f"cannot start {argv[0]}: {exc.strerror or exc}", file=sys.stderr)
        os._exit(127)
    child[0] = pid
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    finish(code if code >= 0 else 128 - code)
    return code


def remove_tree(folder: str) -> None:
    """``shutil.rmtree(folder, ignore_errors=True)`` without importing shutil (start-up time)."""
    for root, dirs, files in os.walk(folder, topdown=False):
        for name in files:
            _quietly(os.remove, os.path.join(root, name))
        for name in dirs:  # a link to a folder is listed here, and removed as a file
            path = os.path.join(root, name)
            _quietly(os.remove if os.path.islink(path) else os.rmdir, path)
    _quietly(os.rmdir, folder)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
