"""``sigmar backends``: which backends run here, their versions and variants.

Plugins (docs/formats.md#plugins) are listed after the built-in backends, each naming the
package that declares it; a plugin that cannot load is listed unavailable
with why, and a refused plugin entry as refused.
"""

from __future__ import annotations

import argparse
import json

from rich.table import Table

from sigmar.encoders.registry import listing

from ..render.terminal import PipeConsole
from .options import add_json


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "backends",
        help="list the backends, whether each is available, and versions",
        description="List the backends, built-in and plugins: availability, version and the names "
        "selectable as FAMILY:SUB.",
    )
    add_json(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rows = listing()
    if args.json:
        for row in rows:
            print(
                json.dumps(
                    {
                        "backend": row.family,
                        "available": row.available,
                        "why_not": row.why_not,
                        "version": row.version,
                        "subs": list(row.subs),
                        "description": _description(row.cls),
                        "source": row.source,
                        "refused": row.refused,
                    }
                )
            )
        return 0
    table = Table(title="sigmar backends")
    for column in ("backend", "available", "version", "names", "what it is"):
        table.add_column(column)
    for row in rows:
        names = ", ".join(f"{row.family}:{s}" for s in row.subs) or "-"
        available = "yes" if row.available else f"no: {row.why_not}"
        backend = row.family if row.source == "built-in" else f"{row.family}\n({row.source})"
        table.add_row(backend, available, row.version, names, _description(row.cls))
    PipeConsole(soft_wrap=False).print(table)
    return 0


def _description(cls: type | None) -> str:
    return str(getattr(cls, "description", "")) if cls is not None else ""
