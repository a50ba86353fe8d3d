"""The ordered registry of backend families, imported lazily.

A family whose module is missing or whose solver package is not installed
is listed as unavailable with the reason, and costs nothing at start-up.

Families are the built-in ones (``FAMILIES``, where tests also add their
fakes) followed by the plugins of other packages (``plugins.py``, docs/formats.md#plugins),
in name order.  A built-in name always means the built-in backend and never
looks for plugins; a plugin that claims one is refused.  Everything else
here takes plugins and built-ins alike: ``family_names``, ``info``,
``make``, ``expand``, ``listing``.
"""

from __future__ import annotations

import sys

from sigmar.encoders.backend import Backend
from sigmar.models.errors import SigmarError
from sigmar.models.records import Frozen

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from sigmar.encoders import plugins

# The order of docs/formats.md#backend-names.  (family, module, class)
FAMILIES: tuple[tuple[str, str, str], ...] = (
    ("cpsat", "sigmar.encoders.cpsat.backend", "CpsatBackend"),
    ("cnf", "sigmar.encoders.cnf.backend", "CnfBackend"),
    ("minizinc", "sigmar.encoders.minizinc.backend", "MinizincBackend"),
    ("search", "sigmar.encoders.search.backend", "SearchBackend"),
    ("pumpkin", "sigmar.encoders.pumpkin", "PumpkinBackend"),
    ("cpmpy", "sigmar.encoders.cpmpy", "CpmpyBackend"),
)

# Families that ``all`` leaves out: they are there to be compared, named with ``-b``.  ``cpmpy`` runs the
# order model that ``pumpkin`` already races (with a checked "no") on solvers whose "no" stays a claim,
# two of them (OR-Tools, python-sat) raced natively by ``cpsat`` and ``cnf`` already.
NOT_IN_ALL = frozenset({"cpmpy"})


class UnknownBackend(SigmarError, ValueError):
    pass


class FamilyInfo(Frozen):
    __slots__ = __match_args__ = (
        "family",
        "cls",
        "available",
        "why_not",
        "version",
        "subs",
        "source",
        "refused",
        "default",
        "default_note",
        "missing",
    )
    family: str
    cls: type[Backend] | None
    available: bool
    why_not: str
    version: str
    subs: tuple[str, ...]
    source: str  # "built-in" or "plugin NAME VERSION", the package that declares it
    refused: bool  # a plugin entry that cannot be a backend here (why_not says why)
    default: str  # the name the family alone means here, e.g. "cnf:glucose42" ("" when unavailable)
    default_note: str  # why that is not the family's best configuration (a solver missing), or ""
    missing: tuple[tuple[str, str], ...]  # sub-names not available here, each with why (a package missing)

    def __init__(
        self,
        family: str,
        cls: type[Backend] | None,
        available: bool,
        why_not: str,
        version: str,
        subs: tuple[str, ...],
        source: str = "built-in",
        refused: bool = False,
        default: str = "",
        default_note: str = "",
        missing: tuple[tuple[str, str], ...] = (),
    ) -> None:
        values = (family, cls, available, why_not, version, subs, source, refused, default, default_note, missing)
        for name, value in zip(self.__match_args__, values, strict=True):
            object.__setattr__(self, name, value)


def builtin_names() -> tuple[str, ...]:
    return tuple(f for f, _, _ in FAMILIES)


def plugin_entries() -> tuple[plugins.Entry, ...]:
    """The accepted plugins: entry points of ``sigmar.backends`` that are not refused."""
    from sigmar.encoders import plugins  # only where a plugin is looked for (1 M instructions)

    found = plugins.entries()
    return tuple(e for e in found if not plugins.refusal(e, builtin_names(), found))


def refused_entries() -> tuple[tuple[plugins.Entry, str], ...]:
    """The refused plugin entries, each with why (a clash with a built-in name, a bad or doubled name)."""
    from sigmar.encoders import plugins  # only where a plugin is looked for (1 M instructions)

    found = plugins.entries()
    why = ((e, plugins.refusal(e, builtin_names(), found)) for e in found)
    return tuple((e, reason) for e, reason in why if reason)


def family_names() -> tuple[str, ...]:
    """Built-in families, then plugins in name order (the plugins' metadata are read on first use)."""
    return builtin_names() + tuple(e.family for e in plugin_entries())


def plugin_families() -> list[str]:
    """The plugins' families that ``all`` names (after the built-in ones: :func:`expand`)."""
    return [e.family for e in plugin_entries() if e.family not in NOT_IN_ALL]


def _plugin(family: str, asked: str | None = None) -> plugins.Entry:
    """The accepted plugin named ``family``; UnknownBackend (exit 2) when it is refused or unknown.

    ``asked`` is the name as the user wrote it (``family:sub``), for the message.
    """
    for entry in plugin_entries():
        if entry.family == family:
            return entry
    for entry, why in refused_entries():
        if entry.family == family:
            raise UnknownBackend(f"backend '{family}' is refused: {why} ({entry.describe()})")
    raise UnknownBackend(f"unknown backend '{asked or family}' (known: {', '.join(family_names())}, all)")


def load(family: str) -> type[Backend]:
    """The backend class of a family; ImportError (built-in) or PluginFailure (plugin) when it cannot load here."""
    for name, module_name, class_name in FAMILIES:
        if name == family:
            __import__(module_name)  # importlib.import_module without importlib (1.6 M instructions a solve)
            cls: type[Backend] = getattr(sys.modules[module_name], class_name)
            return cls
    from sigmar.encoders import plugins  # only where a plugin is looked for (1 M instructions)

    entry = _plugin(family)
    return plugins.bounded(lambda: _plugin_class(entry), f"plugin '{family}'")


def _plugin_class(entry: plugins.Entry) -> type[Backend]:
    from sigmar.encoders import plugins  # only where a plugin is looked for (1 M instructions)

    found = plugins.load_class(entry.value)
    if not (isinstance(found, type) and issubclass(found, Backend)):
        raise TypeError(f"'{entry.value}' is not a subclass of sigmar.Backend")
    declared = getattr(found, "family", None)
    if declared != entry.family:
        raise TypeError(f"its class says family = {declared!r}, its entry point '{entry.family}'; make them equal")
    return found


def info(family: str, *, with_version: bool = True) -> FamilyInfo:
    """What a family is here.  ``with_version=False`` skips a built-in's version (``minizinc --version`` is a
    process of its own): making a backend does not need it."""
    if family not in builtin_names():
        return _plugin_info(family)
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
    if not ok:
        return FamilyInfo(family, cls, ok, why, version, ())
    return FamilyInfo(
        family,
        cls,
        ok,
        why,
        version,
        cls.subs(),
        default=full_name(family, cls.default()),
        default_note=cls.default_note(),
        missing=tuple(cls.missing_subs().items()),
    )


def full_name(family: str, sub: str | None) -> str:
    """``family:sub``, or the family alone when it has no sub-names."""
    return f"{family}:{sub}" if sub else family


def _plugin_info(family: str) -> FamilyInfo:
    """What ``info`` says of a plugin: anything its code raises or hangs in makes it unavailable, with why."""
    from sigmar.encoders import plugins  # only where a plugin is looked for (1 M instructions)

    entry = _plugin(family)
    source = f"plugin {entry.distribution}"
    try:
        cls = load(family)
        ok, why = plugins.bounded(lambda: _pair(cls.available()), f"plugin '{family}': available()")
        version = plugins.bounded(lambda: str(cls.version()), f"plugin '{family}': version()")
        if not ok:
            return FamilyInfo(family, cls, ok, why, version, (), source)
        subs = plugins.bounded(lambda: tuple(map(str, cls.subs())), f"plugin '{family}': subs()")
        default, note = plugins.bounded(
            lambda: (_optional(cls.default()), str(cls.default_note())), f"plugin '{family}': default()"
        )
        missing = plugins.bounded(
            lambda: tuple((str(k), str(v)) for k, v in dict(cls.missing_subs()).items()),
            f"plugin '{family}': missing_subs()",
        )
    except plugins.PluginFailure as exc:
        return FamilyInfo(family, None, False, str(exc), "-", (), source)
    return FamilyInfo(
        family,
        cls,
        ok,
        why,
        version,
        subs,
        source,
        default=full_name(family, default),
        default_note=note,
        missing=missing,
    )


def _optional(sub: object) -> str | None:
    return None if sub is None else str(sub)


def _pair(answer: object) -> tuple[bool, str]:
    """``available()``'s answer as (ok, why); a TypeError names anything else it returned."""
    if not (isinstance(answer, tuple) and len(answer) == 2):
        raise TypeError(f"returned {answer!r}, not (ok, why)")
    return bool(answer[0]), str(answer[1])


def listing() -> list[FamilyInfo]:
    """Every family as ``sigmar backends`` shows it: built-ins, plugins, then the refused plugin entries."""
    # Built-ins first: their solver packages import importlib.metadata anyway, so finding the plugins then costs
    # only the scan.
    rows = [info(family) for family in builtin_names()]
    rows += [info(entry.family) for entry in plugin_entries()]
    for entry, why in refused_entries():
        source = f"plugin {entry.distribution}"
        rows.append(FamilyInfo(entry.family, None, False, f"refused: {why}", "-", (), source, refused=True))
    return rows


def split_name(name: str) -> tuple[str, str | None]:
    family, _, sub = name.strip().partition(":")
    return family, (sub or None)


def make(name: str, *, check: bool = True, **options: object) -> Backend:
    """A backend instance from a name (docs/formats.md#backend-names) such as ``cnf:glucose42``.

    ``check=False`` skips a built-in's ``available()``, which imports its solver (OR-Tools, with NumPy and
    pandas, takes a second or more): for the race's own process, which only asks what a backend is
    (``certifies``) and leaves the solving, and the check, to its worker."""
    family, sub = split_name(name)
    if not check and family in builtin_names():
        return load(family)(sub, **options)
    if family not in builtin_names():
        _plugin(family, name)  # unknown or refused: UnknownBackend
    found = info(family, with_version=False)
    if found.cls is None or not found.available:
        raise UnknownBackend(f"backend '{family}' is not available here: {found.why_not}")
    if sub is not None and found.subs and sub not in found.subs:
        raise UnknownBackend(f"backend '{family}' has no '{sub}' here (choose from {', '.join(found.subs)})")
    if found.source == "built-in":
        return found.cls(sub, **options)
    cls = found.cls
    from sigmar.encoders import plugins  # only where a plugin is looked for (1 M instructions)

    try:
        return plugins.bounded(lambda: cls(sub, **options), f"plugin '{family}': its constructor")
    except plugins.PluginFailure as exc:
        raise UnknownBackend(f"backend '{name}' cannot start: {exc}") from exc


def names_all(spec: str) -> bool:
    """Whether ``spec`` is ``all`` (also ``all,``: a stray comma changes nothing)."""
    return [part.strip() for part in spec.split(",") if part.strip()] == ["all"]


def expand(spec: str, *, check: bool = True, plugins: bool = True) -> list[str]:
    """Backend names from ``all`` or a comma list; ``all`` means every available family but those of NOT_IN_ALL
    (with ``check=False`` every such family, for a caller that drops the unavailable ones when it needs them;
    with ``plugins=False`` the built-in ones, for a caller that adds :func:`plugin_families` when it needs them)."""
    if names_all(spec):
        families = [f for f in (family_names() if plugins else builtin_names()) if f not in NOT_IN_ALL]
        return [f for f in families if not check or info(f, with_version=False).available]
    names = [part.strip() for part in spec.split(",") if part.strip()]
    if not names:
        raise UnknownBackend(f"no backend named in '{spec}'; give a name, a comma list, or 'all'")
    if "all" in names:
        raise UnknownBackend(f"'all' stands alone, not in a list ('{spec}'): use 'all', or list the backends")
    for name in names:
        family, _ = split_name(name)
        if family not in builtin_names():
            _plugin(family, name)  # unknown or refused: UnknownBackend
    return names
