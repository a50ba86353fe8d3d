"""The one compiled piece: the DRUP checker's core (runners/checking/_drup.c).

Everything else is in pyproject.toml.  The extension is optional: without a
C compiler the install still succeeds and rup_check falls back to checking
with python-sat's propagation (slower, and blind to deletions).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "sigmar.runners.checking._drup", ["runners/checking/_drup.c"], extra_compile_args=["-O2"], optional=True
        ),
    ]
)
