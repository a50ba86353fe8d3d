"""Tile symbols and the pairing rules (docs/formats.md#the-rules) that depend on symbols alone."""

from __future__ import annotations

ELEMENTS = frozenset("aefw")
SALT = "s"
VITAE = "v"
MORS = "m"
QUICKSILVER = "q"
# The quintessence variant (docs/formats.md#the-rules): leaves with one each of air, earth, fire and water.
QUINTESSENCE = "x"
METALS = frozenset("123456789")
EMPTY = "."
SYMBOLS = ELEMENTS | METALS | {SALT, VITAE, MORS, QUICKSILVER, QUINTESSENCE}

NAMES = {
    "a": "air",
    "e": "earth",
    "f": "fire",
    "w": "water",
    "s": "salt",
    "v": "vitae",
    "m": "mors",
    "q": "quicksilver",
    "x": "quintessence",
}
STANDARD_METAL_NAMES = {"1": "lead", "2": "tin", "3": "iron", "4": "copper", "5": "silver", "6": "gold"}


def is_metal(symbol: str) -> bool:
    return symbol in METALS


def name_of(symbol: str) -> str:
    if symbol in NAMES:
        return NAMES[symbol]
    return f"metal {symbol}"


def pairs_with(a: str, b: str, current_metal: str | None, gold: str | None) -> bool:
    """Whether two tiles form a pair, given the current metal and gold.

    Freeness is not checked here.  Quicksilver pairs with the current metal
    only while that metal is not gold (gold pairs with nothing).
    """
    if a in ELEMENTS:
        return a == b or b == SALT
    if a == SALT:
        return b == SALT or b in ELEMENTS
    if a == VITAE:
        return b == MORS
    if a == MORS:
        return b == VITAE
    if a == QUICKSILVER:
        return b in METALS and b == current_metal and b != gold
    if a in METALS:
        return b == QUICKSILVER and a == current_metal and a != gold
    return False


def could_ever_pair(a: str, b: str) -> bool:
    """Whether two symbols pair under some current metal (gold aside)."""
    return pairs_with(a, b, a if a in METALS else b, None)
