"""``sigmar backends``: which backends run here, their defaults, versions and variants.

Plugins (docs/formats.md#plugins) are listed after the built-in backends, each naming the
package that declares it; a plugin that cannot load is listed unavailable
with why, and a refused plugin entry as refused.

The listing is a block of labelled lines per family, wrapped at the terminal's
width (``$COLUMNS``, 80 when piped), so that no name is ever cut: a table of
five columns cut names such as ``cnf:thesis+glucose42`` at 80 columns.
"""

from __future__ import annotations

import argparse
import json
import shutil
import textwrap

from sigmar.encoders.registry import FamilyInfo, listing
from sigmar.runners.cli.conventions import follow

# The width of the labels in a family's block, and the indent before them.
LABEL = 9
INDENT = "  "


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "backends",
        help="list the backends, whether each is available, and versions",
        description="List the backends, built-in and plugins: availability, the name each family "
        "alone means here (its measured default), version and the names selectable as FAMILY:SUB.",
    )
    follow(parser, boards=False, json_help="print one JSON object per backend family (JSON Lines)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rows = listing()
    if args.json:
        for row in rows:
            print(json.dumps(as_json(row)))
        return 0
    if args.quiet:
        return 0
    width = shutil.get_terminal_size((80, 24)).columns
    print("\n\n".join(block(row, width) for row in rows))
    return 0


def as_json(row: FamilyInfo) -> dict[str, object]:
    """One family as ``--json`` prints it; ``default`` is a full name such as ``cnf:glucose42``."""
    return {
        "backend": row.family,
        "available": row.available,
        "why_not": row.why_not,
        "version": row.version,
        "default": row.default,
        "default_note": row.default_note,
        "subs": list(row.subs),
        "missing": dict(row.missing),
        "description": _description(row.cls),
        "source": row.source,
        "refused": row.refused,
    }


def block(row: FamilyInfo, width: int) -> str:
    """A family as labelled lines, each value wrapped at ``width`` under its label, never cut."""
    title = row.family if row.source == "built-in" else f"{row.family} ({row.source})"
    lines = [title]
    fields: list[tuple[str, str]] = [("available", "yes" if row.available else f"no: {row.why_not}")]
    if row.available:
        default = row.default + (f" ({row.default_note})" if row.default_note else "")
        fields += [("default", default), ("names", ", ".join(f"{row.family}:{s}" for s in row.subs) or "-")]
        if row.missing:
            fields.append(("missing", "; ".join(f"{row.family}:{sub} {why}" for sub, why in row.missing)))
    fields += [("version", row.version), ("about", _description(row.cls))]
    for label, value in fields:
        if value:
            lines += _wrapped(label, value, width)
    return "\n".join(lines)


def _wrapped(label: str, value: str, width: int) -> list[str]:
    """``label  value`` with the value's further lines under its first; words (names) are never broken."""
    head = f"{INDENT}{label:<{LABEL}}  "
    body = max(width - len(head), 20)
    parts = textwrap.wrap(value, body, break_long_words=False, break_on_hyphens=False) or [""]
    return [head + parts[0], *(" " * len(head) + part for part in parts[1:])]


def _description(cls: type | None) -> str:
    return str(getattr(cls, "description", "")) if cls is not None else ""
