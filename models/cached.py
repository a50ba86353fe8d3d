"""What is made when first needed and kept: ``cached``, a property computed on first use, as
``functools.cached_property`` without its lock; and ``SecondUse``, an optional compiled function imported at a
process's second use.

Python 3.11's ``cached_property`` takes a lock at every first use (about 1 us each); a board's derived
facts are a few dozen of them, made for every board of a batch, so the lock alone cost more than some
of the facts.  The values are pure functions of immutable objects: computing one twice in two threads
would only waste the time, never give two answers.  (Python 3.12 dropped the lock for the same reasons.)
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    # What the type checker sees: the standard library's, whose reads it types the same.
    from functools import cached_property as cached
    from typing import Any
else:

    class cached:
        """A non-data descriptor: the first read computes the value and stores it in the instance's
        ``__dict__``, where every later read finds it without calling anything."""

        def __init__(self, func):
            self.func = func
            self.name = func.__name__
            self.__doc__ = func.__doc__

        def __set_name__(self, owner, name):
            self.name = name

        def __get__(self, obj, owner=None):
            if obj is None:
                return self
            value = obj.__dict__[self.name] = self.func(obj)
            return value


class SecondUse:
    """``name`` of the optional extension ``module`` (setup.py builds it where it can), imported at a process's
    second use: importing one (some 0.1 ms) costs a one-board solve more than doing its one board in Python
    (issue 48).  Call it for the function, or None: before the second call (``at_once``: import now), and where
    the extension was not built.  A hot path reads ``loaded`` first (``x.loaded or x()``), which saves the call
    once it is in; ``False`` there means it was looked for and is not built."""

    __slots__ = ("module", "name", "loaded", "asked")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name
        self.loaded: Any = None  # the function once imported; False where it is not built
        self.asked = 0  # calls before it was imported

    def __call__(self, at_once: bool = False) -> Any:
        if self.loaded is None:
            self.asked += 1
            if self.asked < 2 and not at_once:
                return None
            try:
                self.loaded = getattr(__import__(self.module, fromlist=[self.name]), self.name)
            except (ImportError, AttributeError):  # as ``from module import name`` fails either way
                self.loaded = False
        return self.loaded or None
