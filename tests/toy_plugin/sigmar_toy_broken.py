"""A plugin module that cannot be imported: it needs a package that is not installed."""

import sigmar_toy_missing_dependency  # noqa: F401

NeverLoaded = None
