"""Offline analysis: replay the serviceability ladder on a bundle's evidence.

Entry point (``bundler/analyze/engine.py``)::

    analyze(evidence: EvidenceSet, *, profile: Profile | None, worker: str | None = None,
            job: str | None = None, integrity: Integrity | None = None) -> AnalysisReport

``bundler analyze`` calls it on a sealed bundle; ``bundler doctor --json`` calls
it live on the in-progress spool. Rules: ``bundler/analyze/api.py``.
"""
