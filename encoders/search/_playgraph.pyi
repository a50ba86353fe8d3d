"""Types of the play graph's compiled core (encoders/search/_playgraph.c)."""

Spec = tuple[
    int,
    tuple[int, int, int, int],
    int,
    int,
    int,
    int,
    int,
    tuple[int, ...],
    tuple[tuple[int, ...], ...],
    tuple[int, ...],
    tuple[int, ...],
]

def walk(
    spec: Spec, seconds: float, max_states: int, threads: int = ..., prune: bool = ..., keep: bool = ...
) -> tuple[
    bool,
    str,
    int | None,
    int | None,
    int | None,
    float,
    float,
    int,
    int,
    tuple[int, int] | None,
    int,
    int,
    int,
    int,
    float,
    float,
]: ...
def playouts(spec: Spec, runs: int, seed: int) -> int: ...
