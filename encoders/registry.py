"""The ordered registry of backend families, imported lazily.

A family whose module is missing or whose solver package is not installed
is listed as unavailable with the reason, and costs nothing at start-up.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from .backend import Backend

# SPEC §3 order.  (family, module, class)
FAMILIES: tuple[tuple[str, str, str], ...] = (
    ("cpsat", "sigmar.encoders.cpsat", "CpsatBackend"),
    ("cnf", "sigmar.encoders.cnf", "CnfBackend"),
    ("minizinc", "sigmar.encoders.minizinc", "MinizincBackend"),
    ("search", "sigmar.encoders.search", "SearchBackend"),
)


class UnknownBackend(ValueError):
    pass


@dataclass(frozen=True)
class FamilyInfo:
    family: str
    cls: type[Backend] | None
    available: bool
    why_not: str
    version: str
    subs: tuple[str, ...]


def family_names() -> tuple[str, ...]:
    return tuple(f for f, _, _ in FAMILIES)


def load(family: str) -> type[Backend]:
    """The backend class of a family; ImportError when it cannot be imported here."""
    for name, module_name, class_name in FAMILIES:
        if name == family:
            module = importlib.import_module(module_name)
            cls: type[Backend] = getattr(module, class_name)
            return cls
    raise UnknownBackend(f"unknown backend '{family}' (known: {', '.join(family_names())})")


def info(family: str, *, with_version: bool = True) -> FamilyInfo:
    """What a family is here.  ``with_version=False`` skips the version (``minizinc --version`` is a
    process of its own): making a backend does not need it."""
    try:
        cls = load(family)
    except ModuleNotFoundError as exc:
        missing = exc.name or "a module"
        return FamilyInfo(family, None, False, f"needs the Python package '{missing}'", "-", ())
    except ImportError as exc:
        return FamilyInfo(family, None, False, f"cannot be imported: {exc}", "-", ())
    ok, why = cls.available()
    version = "-"
    if with_version:
        try:
            version = cls.version()
        except Exception as exc:  # a broken solver install must not break the listing
            version, ok, why = "-", False, f"version check failed: {exc}"
    return FamilyInfo(family, cls, ok, why, version, cls.subs() if ok else ())


def split_name(name: str) -> tuple[str, str | None]:
    family, _, sub = name.strip().partition(":")
    return family, (sub or None)


def make(name: str, **options: object) -> Backend:
    """A backend instance from a SPEC §3 name such as ``cnf:glucose42``."""
    family, sub = split_name(name)
    if family not in family_names():
        raise UnknownBackend(f"unknown backend '{name}' (known: {', '.join(family_names())})")
    found = info(family, with_version=False)
    if found.cls is None or not found.available:
        raise UnknownBackend(f"backend '{family}' is not available here: {found.why_not}")
    if sub is not None and found.subs and sub not in found.subs:
        raise UnknownBackend(f"backend '{family}' has no '{sub}' here (choose from {', '.join(found.subs)})")
    return found.cls(sub, **options)


def names_all(spec: str) -> bool:
    """Whether ``spec`` is ``all`` (also ``all,``: a stray comma changes nothing)."""
    return [part.strip() for part in spec.split(",") if part.strip()] == ["all"]


def expand(spec: str, *, check: bool = True) -> list[str]:
    """Backend names from ``all`` or a comma list; ``all`` means every available family
    (with ``check=False`` every family, for a caller that drops the unavailable ones when it needs them)."""
    names = [part.strip() for part in spec.split(",") if part.strip()]
    if names == ["all"]:
        return [f for f in family_names() if not check or info(f, with_version=False).available]
    if not names:
        raise UnknownBackend(f"no backend named in '{spec}'; give a name, a comma list, or 'all'")
    if "all" in names:
        raise UnknownBackend(f"'all' stands alone, not in a list ('{spec}'): use 'all', or list the backends")
    for name in names:
        family, _ = split_name(name)
        if family not in family_names():
            raise UnknownBackend(f"unknown backend '{name}' (known: {', '.join(family_names())}, all)")
    return names
