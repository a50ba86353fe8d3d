"""Backends: one module per solver or encoding, all behind :class:`Backend`.

``backend.py`` is the interface, ``registry.py`` the ordered list of
families, ``TEMPLATE.py`` how to add one, ``plugins.py`` the backends of
other packages (entry points, docs/formats.md#plugins).
"""
