"""The literal matcher: the automaton over 16-byte prefixes finds what a find() loop finds."""

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
    growing.find(b"a member name.log")  # builds the automaton over the first values
    built = growing._matcher
    assert built is not None
    assert built.automaton is not None
    for value in values[120:]:
        growing.learn(value, "token", value)
    assert growing._matcher is built  # not rebuilt for a short name
    assert built.pending
    short = growing.find(text[:200])
    fresh = LiteralSet()
    for value, (kind, identity) in growing.originals().items():
        fresh.learn(value, kind, identity)
    assert short == fresh.find(text[:200])
    assert growing.find(text) == fresh.find(text)  # a long text: rebuilt, the same hits
    assert growing._matcher is not built
