"""Kubernetes bootstrap tokens where kubeadm prints them bare.

A bootstrap token (``abcdef.0123456789abcdef``: a public id, a dot, a 16-character secret)
lets a machine join the cluster. Behind ``--token`` or ``token:`` the key rules take it;
kubeadm also prints it with no key: ``kubeadm token create`` and ``generate`` write it
alone on a line, ``kubeadm token list`` in the first column of a table (no dashes under the
header, so :mod:`.tables` does not read it). The shape alone is no anchor (a host name, a
Java package can look alike), so the rule starts from the command or the table's header.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..rules import Hit, Rule, View, holds_block, line_end_or_hold

_TOKEN = re.compile(rb"[a-z0-9]{6}\.[a-z0-9]{16}")
_FIRST_WORD = re.compile(rb"[ \t]*([^ \t\r\n]+)")
LIST_MAX = 1 << 20
"""The most text of a token list read (kubeadm prints a line a token)."""
AFTER_COMMAND = 3
"""Lines read after ``kubeadm token create``: the token, or a warning then the token."""


def _lines(data: bytes, pos: int, limit: int) -> Iterable[tuple[int, int]]:
    while pos < min(limit, len(data)):
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        yield pos, end
        pos = end + 1


def _bootstrap(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    line_end = line_end_or_hold(view, match.end(), match.start())
    if line_end is None:
        return
    hits = []
    if match.group().startswith(b"TOKEN"):
        stop = len(data)
        for start, end in _lines(data, line_end + 1, match.start() + LIST_MAX):
            word = _FIRST_WORD.match(data, start, end)
            if word is None:
                stop = start
                break  # a blank line ends the list
            if _TOKEN.fullmatch(word.group(1)):
                hits.append(Hit(word.start(1), word.end(1), rule.kind, rule.id))
        if holds_block(view, match.start(), stop, LIST_MAX):
            return
    else:
        argument = _FIRST_WORD.match(data, match.end(), line_end)
        if argument is not None and _TOKEN.fullmatch(argument.group(1)):
            hits.append(Hit(argument.start(1), argument.end(1), rule.kind, rule.id))
        start = line_end + 1
        for _ in range(AFTER_COMMAND):
            if start >= len(data):
                break
            output_end = line_end_or_hold(view, start, match.start())
            if output_end is None:
                return
            line = data[start:output_end].strip()
            if _TOKEN.fullmatch(line):
                offset = data.index(line, start)
                hits.append(Hit(offset, offset + len(line), rule.kind, rule.id))
            start = output_end + 1
    yield from hits


KUBEADM_TOKEN = Rule(
    "kubeadm-token",
    "bootstrap-token",
    "cloud",
    "Kubernetes bootstrap tokens kubeadm prints bare: after `kubeadm token create|generate`"
    " and in the TOKEN column of `kubeadm token list`.",
    rb"TOKEN[ \t]+TTL[ \t]+EXPIRES|kubeadm[ \t]+token[ \t]+(?:create|generate)(?![a-z-])",
    handler=_bootstrap,
    examples=(
        ("$ kubeadm token create\nk9x2mq.7f3a9c1e5b2d4f6g\n", "k9x2mq.7f3a9c1e5b2d4f6g"),
        (
            "TOKEN                     TTL   EXPIRES                USAGES\n"
            "k9x2mq.7f3a9c1e5b2d4f6g   23h   2026-12-08T10:00:00Z   authentication,signing\n"
            "p0q1r2.s3t4u5v6w7x8y9z0   1h    2026-12-07T20:00:00Z   authentication\n",
            "p0q1r2.s3t4u5v6w7x8y9z0",
        ),
        ("kubeadm token create k9x2mq.7f3a9c1e5b2d4f6g --ttl 2h", "k9x2mq.7f3a9c1e5b2d4f6g"),
    ),
    decoys=(
        "$ kubeadm token create\nfailed to load admin kubeconfig\n",
        "TOKEN   TTL   EXPIRES\n<none>\n",
        "kubeadm token create --help",
    ),
)
