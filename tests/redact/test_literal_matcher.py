"""The literal matcher: the automaton over 16-byte prefixes finds what a find() loop finds;
a short text's substrings looked up, and a member's own set's shorter prefixes, find the same."""

from __future__ import annotations

import random

from redactors import literals
from redactors.literals import LiteralSet


def _values(rng: random.Random) -> list[bytes]:
    alphabet = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/=-_.@:% "
    shared = b"postgres://admin:"  # longer than the indexed prefix: one prefix, many forms
    values = [shared + bytes(rng.choice(alphabet) for _ in range(12)) for _ in range(20)]
    values += [bytes(rng.choice(alphabet) for _ in range(rng.randrange(4, 40))) for _ in range(200)]
    return values


def test_automaton_matches_the_find_loop_on_many_forms(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(7)
    learned = LiteralSet()
    for value in _values(rng):
        learned.learn(value, "password", value)
    text = b" ".join(
        rng.choice([*learned.originals(), b"ordinary words here", b"postgres://admin:"])
        for _ in range(3000)
    )
    assert len(learned._forms) > literals.FIND_LOOP_MAX
    with_automaton = learned.find(text)
    assert learned._matcher is not None
    assert learned._matcher.automaton is not None

    monkeypatch.setattr(literals, "ahocorasick_rs", None)
    fallback = LiteralSet()
    for value, (kind, identity) in learned.originals().items():
        fallback.learn(value, kind, identity)
    expected = fallback.find(text)
    assert fallback._matcher is not None
    assert fallback._matcher.automaton is None
    assert with_automaton == expected
    assert len(expected) > 1000


def test_values_learned_after_the_automaton_was_built_are_found_as_after_a_rebuild() -> None:
    rng = random.Random(11)
    values = _values(rng)
    text = b" ".join(rng.choice([*values, b"ordinary words here"]) for _ in range(3000))
    growing = LiteralSet()
    for value in values[:120]:
        growing.learn(value, "password", value)
    growing.find(text[:200])  # builds the automaton over the first values
    built = growing._matcher
    assert built is not None
    assert built.automaton is not None
    for value in values[120:]:
        growing.learn(value, "token", value)
    growing.find(b"a member name.log")
    assert growing._matcher is built  # not rebuilt for a short name
    assert built.pending
    short = growing.find(text[:200])
    fresh = LiteralSet()
    for value, (kind, identity) in growing.originals().items():
        fresh.learn(value, kind, identity)
    assert short == fresh.find(text[:200])
    assert growing.find(text) == fresh.find(text)  # a long text: rebuilt, the same hits
    assert growing._matcher is not built


def test_a_short_text_is_searched_without_an_automaton_and_finds_the_same() -> None:
    rng = random.Random(5)
    values = _values(rng)
    learned = LiteralSet()
    for value in values:
        learned.learn(value, "password", value)
    pieces = [*values, b"x", b"-", b" ", b"name.log", b"postgres://admin:", b"ab"]
    texts = [
        b"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 8)))[: literals.SHORT_TEXT]
        for _ in range(400)
    ]
    early = LiteralSet()
    for value in values[:100]:
        early.learn(value, "password", value)
    assert early.find(texts[0][:20]) is not None  # searched once: its heads are built here
    for value in values[100:]:
        early.learn(value, "password", value)  # ...and kept up to date from here on
    found = [learned.find(t) for t in texts]
    assert learned._matcher is None  # short texts never built one
    reference = literals._Matcher(learned._forms)
    assert reference.automaton is not None
    assert found == [reference.find(t) for t in texts]
    assert [early.find(t) for t in texts] == found
    assert sum(map(len, found)) > 300  # the texts do hold forms, overlapping ones among them
    assert learned.max_len() == max(map(len, learned._forms))


def test_an_automaton_over_longer_prefixes_finds_the_same() -> None:
    rng = random.Random(9)
    values = _values(rng)
    text = b" ".join(rng.choice([*values, b"ordinary words here"]) for _ in range(3000))
    narrow = LiteralSet()
    for value in values:
        narrow.learn(value, "password", value, force=True)
    wide = literals._Matcher(narrow._forms, prefix=2 * literals.PREFIX)
    assert wide.automaton is not None
    assert narrow.find(text) == wide.find(text)
    assert narrow._matcher is not None
    assert narrow._matcher.automaton is not None


def test_a_worker_started_from_a_snapshot_finds_what_one_that_learned_every_value_finds() -> None:
    import pickle

    from redactors import BundleRedactor

    rng = random.Random(13)
    values = _values(rng)
    text = b" ".join(rng.choice([*values, b"ordinary words here"]) for _ in range(3000))
    coordinator = BundleRedactor(key=b"k" * 32)
    for value in values:
        coordinator.literals.learn(value, "password", value)
    coordinator.literals.find(text)  # the coordinator's automaton exists; a snapshot drops it
    snapshot = pickle.loads(pickle.dumps(coordinator.export_learned()))  # noqa: S301 (our own)
    assert snapshot._matcher is None

    started = BundleRedactor(key=b"k" * 32)
    started.start_from(snapshot)
    relearned = BundleRedactor(key=b"k" * 32)
    for value, (kind, identity) in coordinator.literals.originals().items():
        relearned.literals.learn(value, kind, identity, force=True)
    assert started.literals._forms == relearned.literals._forms
    assert started.literals.find(text) == relearned.literals.find(text)
    assert len(started.literals.find(text)) > 1000

    assert started.literals.learn(b"only-the-worker-knows-this-1", "password", b"x", force=True)
    assert b"only-the-worker-knows-this-1" not in coordinator.literals.originals()
    assert started.literals.learned_since(len(coordinator.literals)) == [
        (b"only-the-worker-knows-this-1", "password", b"x")
    ]
    assert coordinator.literals.learned_since(len(coordinator.literals)) == []
