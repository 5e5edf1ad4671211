"""How often ``bundler review`` refuses what ``bundler redact`` just wrote, on texts built to
make the rules meet: run on demand after a rule is added, never in CI.

Redacted output should be a fixed point of review's checks (review relies on it: what it
finds there is residue). Texts written by hand rarely put two rules on one line; this
composes random lines of fragments every rule anchors on (key words, separators, quotes,
XML tags, command words, encodings, token prefixes) under the names whose scanners read
them (``.pgpass``, ``.csv``, ``spark-defaults.conf``...), redacts each, reviews the output,
and prints how many were refused, by member name and by check, with an example of each
(and any text that broke either with an exception: a bug, exit 70 on the command line).

A count is a comparison, not a verdict: review also runs a check the redactor does not
(``entropy``: a high-entropy run near a secret word), and random fragments make such runs.
Run it before and after a change (``git archive REV | tar -x -C /tmp/base``, then
``PYTHONPATH=/tmp/base``) and read the examples the change added::

    .venv/bin/python bench/fixed_point.py --cases 4000 --seed 7
"""

from __future__ import annotations

import argparse
import collections
import random

from bundler.source import MemorySource
from redactors import BundleRedactor, MemberRefused
from redactors.errors import MemberUnreadable
from redactors.review import review_source

FRAGMENTS = [
    *(b"password", b"token", b"secret", b"api_key", b"x", b"abc", b"42", b"Qm7rT5vW"),
    *(b",", b"\t", b";", b"\n", b"\r\n", b'"', b"'", b" ", b"=", b":", b"|", b"}", b"{"),
    *(b"<value>", b"</value>", b"<name>", b"</name>", b"<password>", b"</password>"),
    *(b"<key>", b"</key>", b'name="password">', b'<<"', b'">>', b"{default_pass, "),
    *(b":6379> AUTH ", b'"AUTH" "', b"db.auth(", b"ALTER USER a IDENTIFIED BY "),
    *(b"CREATE USER x ", b"ConvertTo-SecureString ", b"-AsPlainText", b"--value "),
    *(b"gh secret set ", b"kubectl create secret generic x --from-literal="),
    *(b"RequestHeader set ", b"X-Api-Key ", b"spark.authenticate.secret ", b"::add-mask::"),
    *(b"N'", b"E'", b"b'", b"eJy", b"eNq", b"H4sI", b"eyJ", b"sha256~", b"1//0", b"A3-"),
    *(b"Authorization: Bearer ", b"https://u:", b"@host "),
]
NAMES = ["a.csv", "b.tsv", "c.properties", "spark-defaults.conf", "d.xml", "e.log", ".pgpass"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--examples", type=int, default=2, help="shown per (name, check)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    read: collections.Counter[str] = collections.Counter()
    refused: collections.Counter[tuple[str, str]] = collections.Counter()
    for _ in range(args.cases):
        data = b"".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 40)))
        name = rng.choice(NAMES)
        try:
            out = b"".join(BundleRedactor(key=b"k" * 32).transform(name, [data]))
            result = review_source(MemorySource({name: out}))
        except (MemberRefused, MemberUnreadable):
            continue
        except Exception as exc:  # a bug: the CLI would exit 70; say what broke, go on
            refused[(name, f"error {type(exc).__name__}")] += 1
            print(f"{name} internal error {type(exc).__name__}: {exc}\n    {data[:200]!r}")
            continue
        read[name] += 1
        if result.clean:
            continue
        finding = result.findings[0]
        key = (name, finding.check)
        refused[key] += 1
        if refused[key] <= args.examples:
            line = out.split(b"\n")[finding.line - 1] if finding.line else b""
            print(f"{name} {finding.check} {finding.kind} {finding.preview}\n    {line[:200]!r}")
    total = sum(refused.values())
    print(f"review refused {total} of {sum(read.values())} redacted texts")
    for (name, check), count in sorted(refused.items()):
        print(f"  {name:22} {check:16} {count}")


if __name__ == "__main__":
    main()
