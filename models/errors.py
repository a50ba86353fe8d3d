"""The one base class of the suite's own errors.

Every error the suite raises on purpose (a board file, a certificate, an input or
output file, a setting, a backend name, a deal, a cluster) is a :class:`SigmarError`,
so the command line catches this one class and prints its message as one line with
exit status 2 (docs/formats.md#exit-status), never a traceback.  Each keeps its older
base too (``ValueError``, ``RuntimeError``) for callers that catch that.

Control flow that only looks like an error (a search's timeout, a budget, a stop) is
not one, and the DRUP checker's ``ProofFormatError`` stays outside: that checker
imports nothing of the suite, and its callers turn the error into a ``CertificateError``.
"""

from __future__ import annotations


class SigmarError(Exception):
    """Something the suite refuses or cannot do, said in one line (the command line's exit 2)."""
