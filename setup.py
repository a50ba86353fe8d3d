"""The six compiled pieces: the DRUP checker's core (runners/checking/_drup.c), the play graph's
(encoders/search/_playgraph.c), the search's finder for big boards (encoders/search/_bigsearch.c), its
set-up of a board (encoders/search/_cellmasks.c), the rule engine's replay of a solution
(models/_replay.c) and a CNF's clauses written flat and as DIMACS (encoders/cnf/_clauses.c).

Everything else is in pyproject.toml.  The extensions are optional: without a
C compiler the install still succeeds; rup_check then falls back to checking
with python-sat's propagation (slower, and blind to deletions), the play
graph to its Python walk (a hundred times slower: side-6 difficulty is then
mostly sampled), the search of a big board to its Python engine alone
(dense side-10 deals then settled less often in time), the search's set-up
and the replay to their Python reading (each some 50 us more a side-6 board), and a CNF's
clauses to their Python writing (some 10 ms more a side-6 board's DRUP check).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "sigmar.runners.checking._drup", ["runners/checking/_drup.c"], extra_compile_args=["-O2"], optional=True
        ),
        Extension(
            "sigmar.encoders.search._playgraph",
            ["encoders/search/_playgraph.c"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
        Extension(
            "sigmar.encoders.search._bigsearch",
            ["encoders/search/_bigsearch.c"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
        Extension(
            "sigmar.models._replay",
            ["models/_replay.c"],
            depends=["models/_slot_get.h"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
        Extension(
            "sigmar.encoders.cnf._clauses", ["encoders/cnf/_clauses.c"], extra_compile_args=["-O2"], optional=True
        ),
        Extension(
            "sigmar.encoders.search._cellmasks",
            ["encoders/search/_cellmasks.c"],
            depends=["models/_slot_get.h"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
    ]
)
