"""What each rule's pattern says about its literals is read once, not on every start-up.

``redactors/_pattern_facts.py`` holds the built-in rules' anchors, inner literals and
line-break bounds, keyed by each pattern's digest (``python -m redactors.catalog.facts``
writes it); a pattern it lacks is read from its parse tree as before. Rules compile their
pattern on first use, so a run that finds few of the catalog's literals compiles few.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

from redactors._pattern_facts import FACTS
from redactors.catalog import BUILTIN_RULES
from redactors.catalog.facts import TABLE, current_facts, render
from redactors.rules import (
    Rule,
    literal_prefixes,
    max_newlines,
    pattern_facts,
    pattern_facts_key,
    read_pattern_facts,
    required_literals,
)

_REGENERATE = "the built-in rules changed: run `python -m redactors.catalog.facts`"


def test_the_table_holds_the_facts_of_every_built_in_pattern_read_now() -> None:
    assert current_facts() == FACTS, _REGENERATE


def test_the_table_file_is_what_the_generator_writes() -> None:
    assert TABLE.read_text(encoding="utf-8") == render(current_facts()), _REGENERATE


def test_every_built_in_rule_carries_the_facts_its_pattern_gives() -> None:
    for rule in BUILTIN_RULES:
        if rule.pattern is None:
            assert (rule.anchors, rule.required, rule.newlines) == (None, (), None)
            continue
        compiled = re.compile(rule.pattern, rule.flags)
        assert rule.anchors == literal_prefixes(compiled), rule.id
        assert rule.newlines == max_newlines(compiled), rule.id
        assert set(rule.required) <= set(required_literals(compiled)), rule.id


def test_a_pattern_the_table_lacks_is_read_from_its_parse_tree() -> None:
    pattern = rb"zq-unlisted-(?:ab|cd)[0-9]{4}\n?--tail-literal"
    assert pattern_facts_key(pattern, 0) not in FACTS
    rule = Rule("unlisted", "token", "test", "a pattern no table lists", pattern)
    assert rule.anchors == (b"zq-unlisted-ab", b"zq-unlisted-cd")
    assert rule.required == (b"--tail-literal",)
    assert rule.newlines == 1
    assert pattern_facts(pattern) == read_pattern_facts(pattern)


def test_the_flags_are_part_of_the_key_and_the_compiled_pattern() -> None:
    pattern = BUILTIN_RULES[0].pattern
    assert pattern is not None
    assert pattern_facts_key(pattern, re.IGNORECASE) != pattern_facts_key(pattern, 0)
    folded = Rule("folded", "token", "test", "case-insensitive", rb"zq-fold-[0-9]+", flags=re.I)
    plain = Rule("folded", "token", "test", "case-insensitive", rb"zq-fold-[0-9]+")
    assert folded.anchors is None  # a literal folded to any case is not indexed
    assert plain.anchors == (b"zq-fold-",)
    assert folded.regex is not None
    assert folded.regex.search(b"x ZQ-FOLD-42 y") is not None
    assert folded.fingerprint() != plain.fingerprint()


def test_a_small_run_compiles_few_of_the_catalog_patterns() -> None:
    """One short text holds few of the catalog's literals, so few rules compile their
    pattern (every one did at import: ~60 ms of each start-up)."""
    script = textwrap.dedent(
        """
        from redactors import BundleRedactor
        from redactors.catalog import BUILTIN_RULES
        redactor = BundleRedactor(key=b"k" * 32)
        text = b"started worker 3; password=hunter2-hunter2\\n"
        out = b"".join(redactor.transform("app.log", [text]))
        assert b"hunter2" not in out and b"started worker 3" in out, out
        compiled = [r.id for r in BUILTIN_RULES if r.pattern is not None and "regex" in vars(r)]
        patterned = sum(r.pattern is not None for r in BUILTIN_RULES)
        print(len(compiled), patterned)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    compiled, patterned = map(int, done.stdout.split())
    assert patterned > 150
    assert 0 < compiled < patterned // 4
