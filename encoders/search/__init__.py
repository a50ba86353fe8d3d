"""The ``search`` family: the native depth-first search, needing no encoding.

The backend is :mod:`.backend`; the engine :mod:`.engine`, with its moves, pruning and state; the
certificates it writes :mod:`.certificates`, its counts :mod:`.counting`, the deepest play :mod:`.deepest`.
``from sigmar.encoders.search import SearchBackend`` is a stable import path (docs/layout.md).
"""

from __future__ import annotations

from sigmar.encoders.exports import lazy_exports

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from sigmar.encoders.search.backend import SearchBackend, SearchOptions

__all__ = ["SearchBackend", "SearchOptions"]
# Each name is imported from its module on first use (encoders/exports.py says why).
__getattr__ = lazy_exports(__name__, dict.fromkeys(__all__, "backend"))
