"""The structure walk reaches every part of a document, or the member is not passed off as redacted.

Before: a YAML member with over 10,000 ``*`` and one ``&`` was not walked at all (an
alias-bomb heuristic; every large listing of CronJobs has thousands of ``*`` in its
schedules), a small alias bomb under that threshold took the walk exponential time, and
containers nested past 64 levels were skipped, silently in each case: a ``Secret``'s data
stayed in clear and review called the member clean.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from bundler.jsondoc import MAX_JSON_DEPTH
from bundler.source import MemorySource
from redactors import structure
from redactors.errors import MemberUnreadable
from redactors.review import review_source
from tests.support.redaction import run

ENCODED = base64.b64encode(b"Zr8-UltraPrivate-Value-91x")
SECRET = f"kind: Secret\nmetadata:\n  name: db\ndata:\n  conn-extra: {ENCODED.decode()}\n"


def _walked_everywhere(name: str, data: bytes) -> None:
    """Redaction takes the value, review finds it in the raw member, and passes the output."""
    assert review_source(MemorySource({name: data})).findings
    outputs, redactor, _ = run({name: data})
    assert ENCODED not in outputs[name]
    assert redactor.report().skipped == []
    assert review_source(MemorySource(outputs)).findings == []


def test_a_listing_of_cron_jobs_is_walked() -> None:
    jobs = "".join(
        f"- kind: CronJob\n  metadata:\n    name: job-{i}\n  spec:\n    schedule: '*/5 * * * *'\n"
        for i in range(2100)
    )
    secret = "- " + SECRET.replace("\n", "\n  ").rstrip(" ")
    data = f"kind: List\nitems:\n{jobs}{secret}metadata:\n  selfLink: /api?a=1&b=2\n".encode()
    assert data.count(b"*") > 10_000
    _walked_everywhere("cronjobs.yaml", data)


def _alias_bomb(levels: int) -> bytes:
    """A ``Secret`` and lists of ten aliases of the level below: 10**levels paths to it."""
    lines = ["base: &a0\n  " + SECRET.replace("\n", "\n  ").rstrip(" ")]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 10) + "]\n")
    return "".join(lines).encode()


def test_an_alias_bomb_is_walked_once_per_container(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: how many containers the walk visits."""
    visits = 0
    walk = structure._walk

    def counted(*args: Any) -> None:
        nonlocal visits
        visits += 1
        walk(*args)

    monkeypatch.setattr(structure, "_walk", counted)
    _walked_everywhere("bomb.yaml", _alias_bomb(5))  # 10,000 paths to the Secret
    assert visits < 1000  # a few dozen per walk, three walks (10,000 paths each, before)


def test_aliases_in_the_items_of_a_large_document_are_walked() -> None:
    """The items of a large document are built one at a time: what the walk remembers of
    the containers of one (to walk a shared one once) must not hide another's."""
    items = "".join(
        f"- name: app-{i}\n  defaults: &d{i} {{pool: a, replicas: {i}}}\n  again: *d{i}\n"
        for i in range(20_000)
    )
    data = f"kind: List\nitems:\n{items}- {SECRET.replace(chr(10), chr(10) + '  ')}".encode()
    assert len(data) > 1 << 20
    _walked_everywhere("apps.yaml", data)


def test_an_alias_to_a_container_walked_already_is_not_too_deep() -> None:
    """Reached again past the walk's depth, it was walked whole where first reached."""
    from redactors.walklimits import WALK_DEPTH

    secret = SECRET.replace("\n", "\n  ").rstrip(" ")
    deep = "{w: " * (WALK_DEPTH - 1) + "*x" + "}" * (WALK_DEPTH - 1)
    _walked_everywhere("aliases.yaml", f"x: &x\n  {secret}deep: {deep}\n".encode())


def _nested(levels: int) -> bytes:
    document: Any = {"kind": "Secret", "data": {"conn-extra": ENCODED.decode()}}
    for _ in range(levels - 2):
        document = {"wrap": document}
    return json.dumps(document).encode()


def test_the_walk_reads_as_deep_as_bundlers_json_readers() -> None:
    from redactors.walklimits import WALK_DEPTH

    assert WALK_DEPTH == MAX_JSON_DEPTH
    _walked_everywhere("deep.json", _nested(MAX_JSON_DEPTH))  # its data 128 levels down


@pytest.mark.parametrize(
    "data",
    [_nested(MAX_JSON_DEPTH + 1), b"[" * 3000 + _nested(3) + b"]" * 3000],
    ids=["past the walk's depth", "too deep for the parser"],
)
def test_a_document_nested_deeper_is_named_in_the_report_and_rejected(data: bytes) -> None:
    why = "a JSON document nested deeper than the 128 levels the structure walk reads"
    outputs, redactor, _ = run({"deep.json": data})
    (skipped,) = redactor.report().skipped
    assert (skipped.reason, skipped.kept) == ("too_large", True)
    assert skipped.detail == f"{why}: line rules only"
    for reviewed in (data, outputs["deep.json"]):
        with pytest.raises(MemberUnreadable, match=why):
            review_source(MemorySource({"deep.json": reviewed}))
