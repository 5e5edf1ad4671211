"""Exit codes, named once. Every command documents the subset it uses.

=====  ==========================================================================
code   meaning
=====  ==========================================================================
0      success: healthy / verified / clean
1      the subject has a problem: a ladder layer failed, verification failed,
       residual secrets found
2      usage or configuration error, or unreadable / hostile / undecryptable input
3      inconclusive: nothing failed but evidence is missing (analyze, doctor)
4      nothing could be collected (doctor): no bundle written
5      partial: bundle written, but some collectors failed (doctor)
70     internal error (a bug in bundler; run with --debug and report it)
130    interrupted (Ctrl-C)
=====  ==========================================================================
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    PROBLEM = 1
    USAGE = 2
    INCONCLUSIVE = 3
    NOTHING_COLLECTED = 4
    PARTIAL = 5
    INTERNAL = 70
    INTERRUPTED = 130
