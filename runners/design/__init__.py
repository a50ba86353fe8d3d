"""For board designers: every "no" explained (``explain``, ``repair``) and the browser workbench of ``sigmar serve``."""
