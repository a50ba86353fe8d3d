"""``sigmar backends``: which backends run here, their versions and variants."""

from __future__ import annotations

import argparse
import json

from rich.table import Table

from sigmar.encoders.registry import family_names, info

from ..render.terminal import PipeConsole
from .options import add_json


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "backends",
        help="list the backends, whether each is available, and versions",
        description="List the four backends (SPEC §3): availability, version and the names selectable as FAMILY:SUB.",
    )
    add_json(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rows = [info(family) for family in family_names()]
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
                        "description": row.cls.description if row.cls else "",
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
        table.add_row(row.family, available, row.version, names, row.cls.description if row.cls else "")
    PipeConsole(soft_wrap=False).print(table)
    return 0
