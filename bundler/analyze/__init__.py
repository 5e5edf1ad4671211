"""Offline analysis: replay the serviceability ladder on a bundle's evidence."""
