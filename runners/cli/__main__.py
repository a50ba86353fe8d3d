"""``python -m sigmar.runners.cli``: the same as the ``sigmar`` console script."""

from __future__ import annotations

import sys

from sigmar.runners.cli import console

sys.exit(console())
