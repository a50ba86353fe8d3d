"""The one "stopped" of the suite: long work ended early by its clock, a ``stop()`` from another thread, or a cap.

Why one: a count of the rule engine's, a count of the search's and the build of a CNF formula all stop
the same way, and a caller catches one exception for all of them.
"""

from __future__ import annotations


class Stopped(Exception):
    """The clock, ``stop()`` or a cap ended the work; ``partial`` is what a count had counted by then (a lower
    bound; 0 for work that counts nothing)."""

    def __init__(self, partial: int = 0) -> None:
        super().__init__(partial)
        self.partial = partial
