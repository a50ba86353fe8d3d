"""Backends from other packages: the entry-point group ``sigmar.backends`` (docs/formats.md#plugins).

A plugin package declares, in its pyproject.toml::

    [project.entry-points."sigmar.backends"]
    mysat = "mysat_sigmar:MySatBackend"

Finding the entries reads only the installed packages' metadata (one
``importlib.metadata`` scan per process, cached); a plugin's module is
imported only when the plugin is listed or used.  Everything a plugin's code
does in this process (its import, ``available()``, ``version()``,
``subs()``, its constructor) runs through :func:`bounded`: an exception
becomes a :class:`PluginFailure`, and so does a call that does not return
within :data:`ANSWER_SECONDS`, so a broken plugin is reported, never fatal.
What it prints there is captured (:mod:`.processes.capture`) and shown only
in the message of its failure.  Its ``solve`` runs in the worker processes like
any backend's.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable

from sigmar.models.errors import SigmarError
from sigmar.models.records import Frozen

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")

GROUP = "sigmar.backends"

# How long a plugin's import, available(), version(), subs() or constructor may take in the parent.
ANSWER_SECONDS = 5.0

# A family name that ``--backend`` can select: no ':' (which starts the sub), ',' (lists) or spaces.
VALID_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]*"  # a pattern, compiled by re on its first use (not at every start)
RESERVED = frozenset({"all"})


class PluginFailure(SigmarError):
    """A plugin's code raised, or did not answer in time; the message says which and where."""


class Entry(Frozen):
    """One entry point of the group: ``family = value`` from ``distribution``."""

    __slots__ = __match_args__ = ("family", "value", "distribution")
    family: str
    value: str  # "module:Class"
    distribution: str  # "name version" of the package that declares it

    def __init__(self, family: str, value: str, distribution: str) -> None:
        object.__setattr__(self, "family", family)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "distribution", distribution)

    def describe(self) -> str:
        return f"entry point '{self.family} = {self.value}' of {self.distribution}"


@functools.cache
def entries() -> tuple[Entry, ...]:
    """Every entry point of the group on this interpreter's path, in name order (found once a process)."""
    if not _may_declare_any():
        return ()
    from importlib.metadata import entry_points

    found = []
    for point in entry_points(group=GROUP):
        dist = point.dist
        where = f"{dist.name} {dist.version}" if dist is not None else "an unnamed distribution"
        found.append(Entry(point.name, point.value, where))
    return tuple(sorted(found, key=lambda e: (e.family, e.distribution, e.value)))


def _may_declare_any() -> bool:
    """False only when surely no installed package declares the group; True when it cannot tell.

    Why: importing ``importlib.metadata`` costs 20-40 ms, a fifth of a
    one-board ``sigmar solve``.  The metadata it would read are the
    ``entry_points.txt`` files of the ``*.dist-info`` and ``*.egg-info``
    folders on ``sys.path``; reading those files for the group's name takes
    about a millisecond.  Anything else (a zip on the path, an import hook
    that finds distributions its own way) answers True, and
    ``importlib.metadata`` decides.
    """
    # importlib.machinery's PathFinder, from the frozen module it lives in (importing importlib: 1.6 M
    # instructions of a one-board solve)
    standard = getattr(sys.modules.get("_frozen_importlib_external"), "PathFinder", None)
    for finder in sys.meta_path:
        if getattr(finder, "find_distributions", None) is not None and finder is not standard:
            return True
    needle = GROUP.encode()
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except FileNotFoundError:
            continue
        except OSError:  # a zip or another kind of entry
            return True
        for name in names:
            kind = name.lower()
            if kind.endswith(".egg"):  # an old egg: its metadata sit one level deeper
                return True
            if not kind.endswith((".dist-info", ".egg-info")):
                continue
            # Most distributions declare no entry point: asked without an exception (a site-packages of 86
            # distributions, 63 without the file, took 1-2 ms of a one-board solve's 40 when each raised one).
            path = os.path.join(folder or ".", name, "entry_points.txt")
            if not os.access(path, os.F_OK):
                continue
            try:
                with open(path, "rb") as file:
                    if needle in file.read():
                        return True
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError:
                return True
    return False


def refusal(entry: Entry, builtin: tuple[str, ...], all_entries: tuple[Entry, ...]) -> str:
    """Why ``entry`` cannot be a backend here ("" when it can)."""
    name = entry.family
    import re  # here: only a plugin found is checked (a solve of `all` looks for plugins, and mostly finds none)

    if not re.fullmatch(VALID_NAME, name):
        return f"'{name}' is not a backend name (letters, digits, '_', '.', '-'; no ':', ',' or spaces)"
    if name.casefold() in RESERVED:
        return f"'{name}' is reserved (--backend all means every backend)"
    clash = [b for b in builtin if b.casefold() == name.casefold()]
    if clash:
        return f"'{name}' clashes with the built-in backend '{clash[0]}'; rename the entry point"
    others = [e for e in all_entries if e.family.casefold() == name.casefold() and e != entry]
    if others:
        return f"'{name}' is also declared by {others[0].describe()}; keep one"
    return ""


def bounded(call: Callable[[], T], what: str, seconds: float | None = None) -> T:
    """``call()``'s value; a PluginFailure when it raises (anything, SystemExit too) or takes over ``seconds``.

    The call runs in a daemon thread, so a hung plugin is left behind and
    never keeps the process from exiting.
    """
    limit = ANSWER_SECONDS if seconds is None else seconds
    box: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            box.append((True, call()))
        except BaseException as exc:  # a plugin's SystemExit must not end the suite
            box.append((False, exc))

    import threading  # only where a plugin's code runs

    from sigmar.encoders.processes.capture import captured, one_line  # here: only a plugin's code needs it

    thread = threading.Thread(target=run, name=f"sigmar-plugin {what}", daemon=True)
    with captured() as said:  # what the plugin prints is its own, never the suite's (`backends --json`)
        thread.start()
        thread.join(limit)
    printed = f" (it printed: {one_line(said[0])})" if said and said[0] else ""
    if not box:
        raise PluginFailure(f"{what} did not answer within {limit:g} s{printed}")
    ok, value = box[0]
    if not ok:
        assert isinstance(value, BaseException)
        detail = " ".join(str(value).split())  # one line, whatever the plugin's message
        raise PluginFailure(
            f"{what} raised {type(value).__name__}" + (f": {detail}" if detail else "") + printed
        ) from value
    return value  # type: ignore[return-value]


def load_class(value: str) -> object:
    """The object an entry point's ``module:attr.attr`` names (extras in brackets are ignored)."""
    module_name, _, attrs = value.split("[")[0].strip().partition(":")
    module_name = module_name.strip()
    if module_name not in sys.modules:
        _import_survives(module_name)
    import importlib

    found: object = importlib.import_module(module_name)
    for attr in filter(None, attrs.strip().split(".")):
        found = getattr(found, attr)
    return found


def _import_survives(module_name: str) -> None:
    """Import ``module_name`` first in a forked child; a PluginFailure when that import ended the process.

    Why: a plugin whose import calls ``os._exit`` (or dies of a signal) would end the suite itself
    (``sigmar backends`` exited 7 with no output).  Where there is no ``fork``, the import is not tried
    first.  The child's output goes nowhere; an exception there, or a hang past
    :data:`ANSWER_SECONDS`, is left for the real import to report (the caller's thread bounds it).
    """
    if not hasattr(os, "fork"):
        return
    from sigmar.encoders.processes.parent import (
        ChildError,
        ChildTimeout,
        call_once,
    )  # the child's home: only for plugins

    try:
        call_once(_quiet_import, (module_name,), ANSWER_SECONDS, lambda _child: None)
    except ChildTimeout:
        return
    except ChildError as exc:
        code = exc.code if exc.code is not None else 0
        how = f"exit status {code}" if code > 0 else f"signal {-code}"
        raise PluginFailure(f"importing {module_name} ended the process ({how})") from None
    except Exception:  # anything it raised, the parent's import reports
        return


def _quiet_import(module_name: str) -> None:
    """In the forked child: the import, its output sent nowhere (the module itself stays in the child)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    import importlib

    importlib.import_module(module_name)
