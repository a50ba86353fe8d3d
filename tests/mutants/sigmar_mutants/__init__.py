"""Deliberately wrong backends for ``sigmar fuzz`` to catch (see tests/test_fuzz.py)."""
