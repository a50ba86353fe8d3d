"""``cached``: a property computed on first use and kept, as ``functools.cached_property`` without its lock.

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
