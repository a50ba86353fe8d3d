"""A plugin whose import ends the process that imports it, with exit status 7 (R13)."""

from __future__ import annotations

import os

os._exit(7)


class NeverLoaded:
    pass
