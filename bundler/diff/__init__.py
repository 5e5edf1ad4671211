"""``bundler diff BEFORE AFTER``: did the recovery work?

The serviceability guide's *Recovery acceptance* compares the bundle from the
incident with one taken after the repair. Layout, lowest first:

* :mod:`.sides` — open and analyze one bundle (the same engine as ``analyze``);
* :mod:`.targets`, :mod:`.findings`, :mod:`.facts` — what changed per target
  and layer, which findings were resolved or are new, what changed about
  workers, deployments and collectors;
* :mod:`.acceptance` — the checklist on AFTER, with "newer than BEFORE";
* :mod:`.compare` — the :class:`~schemas.DiffReport` and its verdict;
* :mod:`.render` — text, Markdown, JSON (more formats plug into ``RENDERERS``).
"""

from __future__ import annotations

from .compare import DifferentProducts, SameCollection, compare
from .sides import Side, open_side

__all__ = ["DifferentProducts", "SameCollection", "Side", "compare", "open_side"]
