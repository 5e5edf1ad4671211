"""bundler: support bundles for worker fleets.

Collect evidence over HTTP and SSH (``bundler doctor``), redact it, seal it in
an encrypted zip; analyze a bundle offline against the serviceability ladder
(``bundler analyze``); prove what was redacted (``bundler review``).
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
