"""Shared pytest configuration. Real-part fixtures live in ``tests/support``."""

from __future__ import annotations
