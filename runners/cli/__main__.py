"""``python -m sigmar.runners.cli``: the same as the ``sigmar`` console script."""

import sys

from sigmar.runners.cli import main

sys.exit(main())
