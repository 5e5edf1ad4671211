"""The independent residual-secret scan behind ``bundler review`` (what an upload pipeline runs).

It trusts nothing the redactor wrote. Over every member (and every member
name) it runs:

* ``detector``: the whole catalog again, with decode-and-rescan, so a secret
  that survives in any encoding is found; redacted output is a fixed point of
  the rules, so anything found is residue. JSON and YAML members are parsed as
  the redactor parses them, and a value under a secret key (a Kubernetes
  ``Secret``'s data, which no line rule can recognize) that still stands as
  written is residue too. To the rules a token is one piece of a value, so the
  clear tail an older redaction left beside one (``password = [REDACTED:...]
  horse battery``) is found where the current rule would have taken it whole.
  A file whose name says it is a secret (``.pgpass``, ``.flux/bootstrap-token``:
  :mod:`redactors.secretfiles`) is read as the redactor reads it, so one left
  in clear, which no rule can recognize by its text, is residue.
* ``entropy``: high-entropy runs near secret words, even without a
  separator ("token is 9f8Zq..."), skipping hex digests and UUIDs.
* ``encoded-literal``: the redacted *values* are not in the bundle (the report
  holds keyed tokens only), so two things stand in for them: *token-adjacent
  residue* (a token glued to base64/alnum characters means a value was only
  partly replaced), and, when the customer supplies the reversible map
  (``--map``), a search for every original value in all its encoded forms.
* ``manifest`` / ``report``: the same scans over those members, plus a check
  that the report's sha256 of each member matches the member.

Findings carry a masked preview: never more than two leading characters.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from schemas import RedactionReport, ResidualFinding, ReviewResult

from .binary import SNIFF_BYTES, WIDE_TEXT, opaque, sniff
from .catalog import BUILTIN_RULES
from .embedded import refuse_embedded
from .engine import Engine
from .entropy import run_after
from .errors import MemberUnreadable
from .keys import is_placeholder
from .literals import LiteralSet
from .residue import residue_spans, secret_word_ends
from .rules import Hit, View, line_ends
from .secretfiles import scanner_for
from .stream import redact_stream
from .structure import detect_format, structure_walk, value_spans
from .tarwalk import tar_text_only
from .textcodecs import GzipDamaged, gunzip_chunks, peek, wide_to_utf8
from .tokens import TOKEN_MARK, TOKEN_RE, is_token_only
from .walklimits import STRUCTURE_MAX, over_cap, walk_cap

MANIFEST = "manifest.json"
REPORT = "redaction-report.json"
CHECKS = ["detector", "entropy", "encoded-literal", "member-name", "manifest", "report"]


class Source(Protocol):
    def names(self) -> list[str]: ...
    def iter_chunks(self, name: str, chunk_size: int = ...) -> Iterator[bytes]: ...


def mask(value: bytes) -> str:
    """A preview that identifies nothing: two leading characters at most, and the length."""
    text = value.decode("utf-8", "replace")
    shown = text[:2] if len(text) >= 12 else ""
    return f"{shown}…({len(text)} chars)"


class Reviewer:
    def __init__(
        self,
        originals: Iterable[bytes] = (),
        engine: Engine | None = None,
        *,
        structure_max: int = STRUCTURE_MAX,
    ) -> None:
        self.engine = engine or Engine(BUILTIN_RULES)
        self.structure_max = structure_max
        self.literals = LiteralSet()
        for value in originals:
            self.literals.learn(value, "original", value, force=True)

    def scan(self, view: View) -> list[Hit]:
        hits = _not_from_token_words(self.engine, view, self.engine.scan(view))
        for start, end, _kind, _identity in self.literals.find(view.data):
            hits.append(Hit(start, end, "known-value", "encoded-literal", via="encoded-literal"))
        hits.extend(_entropy_hits(view))
        hits.extend(
            Hit(start, end, "token-residue", "encoded-literal", via="encoded-literal")
            for start, end in residue_spans(view.data)
        )
        hits.sort(key=lambda h: (h.start, -h.end))
        return hits

    def _scan_for(self, name: str) -> Callable[[View], list[Hit]]:
        """The scan of member ``name``: :meth:`scan`, and for a secret file its own scanner,
        whose every value is residue unless it is the redactor's token already."""
        special = scanner_for(name)
        if special is None:
            return self.scan

        def scan_secret_file(view: View) -> list[Hit]:
            data = view.data
            hits = self.scan(view)
            hits += [h for h in special(view) if not is_token_only(data[h.start : h.end])]
            hits.sort(key=lambda h: (h.start, -h.end))
            return hits

        return scan_secret_file

    def member(self, name: str, chunks: Iterable[bytes]) -> tuple[list[ResidualFinding], str, int]:
        findings: list[ResidualFinding] = []
        digest = hashlib.sha256()
        size = 0

        def counted(stream: Iterable[bytes]) -> Iterator[bytes]:
            nonlocal size
            for chunk in stream:
                digest.update(chunk)
                size += len(chunk)
                yield chunk

        label = "manifest" if name == MANIFEST else "report" if name == REPORT else None

        def record(hit: Hit, data: bytes, start: int, line: int) -> bytes:
            check = label or ("detector" if hit.via not in ("encoded-literal",) else hit.via)
            if hit.rule == "entropy":
                check = label or "entropy"
            findings.append(
                ResidualFinding(
                    member=name,
                    line=line,
                    kind=hit.kind,
                    check=check,  # type: ignore[arg-type]  # one of CHECKS by construction
                    preview=mask(data[start : hit.end]),
                )
            )
            return data[start : hit.end]

        head, stream = peek(counted(chunks), SNIFF_BYTES)
        try:
            found = sniff(head)
            if found.kind == "gzip":  # judged, like the redactor does, on what it holds
                head, stream = peek(gunzip_chunks(stream), SNIFF_BYTES)
                found = sniff(head)
                if opaque(found):
                    raise MemberUnreadable(
                        name, f"gzip of a {found.detail}: review cannot see inside it"
                    )
            if found.kind in WIDE_TEXT:  # as the redactor reads it: rules match UTF-8
                head, stream = peek(wide_to_utf8(stream, found.kind), SNIFF_BYTES)
            if found.kind == "binary":  # kept with --keep-binary, or put there by hand
                raise MemberUnreadable(
                    name,
                    f"binary ({found.detail}): review cannot vouch for what it holds",
                    hint="leave it out (bundler redact does, unless --keep-binary) "
                    "and review again",
                )
            if found.detail == "tar archive":  # scanned as it is, if every member is text
                stream = tar_text_only(name, stream)
            stream = refuse_embedded(name, stream)  # text with a gzip or a database appended
            if label is not None:
                stream = iter([_canonical(label, b"".join(stream))])
            elif (fmt := detect_format(name, "", head)) is not None:
                cap = walk_cap(fmt, self.structure_max)
                whole, stream = peek(stream, cap + 1)
                if len(whole) > cap:  # the line rules alone prove nothing about its Secrets
                    raise MemberUnreadable(name, _cannot_vouch(over_cap(fmt, cap)), _WALK_HINT)
                findings += _structure_findings(name, whole, fmt)
            for _ in redact_stream(stream, self._scan_for(name), record):
                pass
            for _ in stream:  # drain (a gzip that failed early)
                pass
        except GzipDamaged as exc:  # what it held past the damage was never read
            raise MemberUnreadable(name, str(exc)) from None
        return findings, digest.hexdigest(), size

    def name(self, name: str) -> list[ResidualFinding]:
        data = name.encode("utf-8", "surrogateescape")
        hits = self.engine.scan(View(data))
        if not hits:
            return []
        masked, cursor = [], 0  # the finding must not print the secret it found in the name
        for hit in hits:
            masked += [data[cursor : hit.start].decode("utf-8", "replace"), "…"]
            cursor = hit.end
        shown = "".join(masked) + data[cursor:].decode("utf-8", "replace")
        return [
            ResidualFinding(
                member=shown, kind=h.kind, check="member-name", preview=mask(data[h.start : h.end])
            )
            for h in hits
        ]


_WALK_HINT = "split it into smaller files (or leave it out) and review again"


def _cannot_vouch(why: str) -> str:
    return f"{why}: review cannot vouch that no value under a secret key is left"


def _structure_findings(name: str, data: bytes, fmt: str) -> list[ResidualFinding]:
    """The values the redactor's structure pass would replace in this member, still there.

    The line rules cannot see that ``db: aHVudGVy...`` under a Kubernetes ``Secret``'s
    ``data`` is a secret; the redactor's parse can. Its rule, the same function on
    both sides (:func:`~.structure.structure_walk`, :func:`~.structure.value_spans`),
    over the member as written: redacted output is a fixed point of it, since every
    value it would take has become a token. What the redactor leaves on purpose
    (a placeholder, ``"auth": "database"``, a block scalar's indented lines, which
    the line rules judge) is left here too.
    """
    walked = structure_walk(data, fmt)
    if walked.unwalked is not None:  # what it did not reach, no rule vouches for
        raise MemberUnreadable(name, _cannot_vouch(walked.unwalked), hint=_WALK_HINT)
    literals = walked.literals
    if not len(literals):
        return []
    return [
        ResidualFinding(
            member=name,
            line=line_ends(data, 0, start) + 1,
            kind=kind,
            check="detector",
            preview=mask(data[start:end]),
        )
        for start, end, kind, _identity in value_spans(data, fmt, literals)
    ]


def _neutral_token(match: re.Match[bytes]) -> bytes:
    return b"[REDACTED:" + b"x" * len(match[1]) + b":" + match[2] + b"]"


def _not_from_token_words(engine: Engine, view: View, hits: list[Hit]) -> list[Hit]:
    """Drop hits that exist only because of a word *inside* a redaction token.

    ``set-cookie: s=[REDACTED:cookie:0a1b2c3d]; Path=/; SameSite=Lax`` holds
    ``cookie:`` twice: the header's, whose value is the token (fine), and
    the token's own kind, after which the cookie rule would read ``Path=/``
    and ``SameSite=Lax`` as cookie values. A hit on a line with a token is
    kept only if the same rules still find it when every token's kind is
    replaced by ``x``s of the same length (offsets unchanged, the token still
    a token): words the redactor wrote never count as context.
    """
    if not hits or TOKEN_MARK not in view.data:
        return hits
    data = view.data
    kept: list[Hit] = []
    rescanned: dict[int, set[tuple[int, int]]] = {}
    for hit in hits:
        line_start = data.rfind(b"\n", 0, hit.start) + 1
        line_end = data.find(b"\n", hit.start)
        line_end = len(data) if line_end < 0 else line_end
        if hit.end > line_end or TOKEN_MARK not in data[line_start:line_end]:
            kept.append(hit)  # spans lines, or no token near: nothing to re-judge
            continue
        if line_start not in rescanned:
            neutral = TOKEN_RE.sub(_neutral_token, data[line_start:line_end])
            rescanned[line_start] = {
                (h.start + line_start, h.end + line_start) for h in engine.scan(View(neutral))
            }
        if (hit.start, hit.end) in rescanned[line_start]:
            kept.append(hit)
    return kept


def _entropy_hits(view: View) -> Iterator[Hit]:
    for end in secret_word_ends(view.low):
        if _ONE_TIME.search(view.low, max(0, end - 24), end):
            continue  # authenticity_token, csrf_token: kept on purpose by the redactor
        span = run_after(view.data, end)
        if span is not None and not is_placeholder(view.data[span[0] : span[1]]):
            # a documented example (``...EXAMPLEKEY``) or self-declared fake is kept by the
            # redactor on purpose (docs/redaction.md): flagging it failed every bundle with one
            yield Hit(span[0], span[1], "high-entropy", "entropy", via="entropy")


_ONE_TIME = re.compile(rb"(?:authenticity|csrf|xsrf|nonce)[_-]?(?:token|key|secret)?$")


def _canonical(label: str, data: bytes) -> bytes:
    """The manifest or report as scanned: validated, and with its count maps reduced to keys.

    ``{"password": 3}`` in ``by_kind`` is a count per kind, not a password;
    the schema guarantees the values are integers, so only the keys (kind
    names) are kept for scanning. A member that does not validate is scanned
    as it is.
    """
    from schemas import Manifest

    model = RedactionReport if label == "report" else Manifest
    try:
        parsed = model.model_validate_json(data)
    except ValueError:
        return data

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            if node and all(isinstance(v, int) and not isinstance(v, bool) for v in node.values()):
                return sorted(node)
            return {k: strip(v) for k, v in node.items()}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return json.dumps(strip(parsed.model_dump(mode="json", by_alias=True)), indent=2).encode()


def review_source(
    source: Source,
    *,
    originals: Iterable[bytes] = (),
    report: RedactionReport | None = None,
    engine: Engine | None = None,
    structure_max: int = STRUCTURE_MAX,
) -> ReviewResult:
    """Scan every member of ``source``; ``clean`` only when nothing residual is found.

    Raises :class:`~.errors.MemberUnreadable` for a member it cannot vouch for: one it
    could not read to its end, cannot see into, or a JSON/YAML/TOML member the structure
    walk does not read (over ``structure_max`` or its format's cap, :mod:`.walklimits`).
    """
    reviewer = Reviewer(originals, engine, structure_max=structure_max)
    findings: list[ResidualFinding] = []
    hashes: dict[str, str] = {}
    total = 0
    names = source.names()
    for name in names:
        findings += reviewer.name(name)
        found, sha256, size = reviewer.member(name, source.iter_chunks(name))
        findings += found
        hashes[name] = sha256
        total += size
    consistent = None
    mismatches: list[str] = []
    if report is not None:
        mismatches = report_mismatches(report, hashes)
        consistent = not mismatches
    return ReviewResult(
        clean=not findings and consistent is not False,
        members_checked=len(names),
        bytes_checked=total,
        checks=list(CHECKS),
        findings=findings,
        report_consistent=consistent,
        report_mismatches=mismatches,
    )


def report_mismatches(report: RedactionReport, hashes: dict[str, str]) -> list[str]:
    """One line per member where the report's sha256 and the reviewed bytes disagree."""
    lines = []
    for entry in report.files:
        if entry.sha256 is None:
            continue
        if entry.member not in hashes:
            lines.append(f"{entry.member}: in the redaction report, not in the bundle")
        elif hashes[entry.member] != entry.sha256:
            lines.append(f"{entry.member}: differs from the redaction report's checksum")
    return lines


def load_report(data: bytes) -> RedactionReport | None:
    try:
        return RedactionReport.model_validate_json(data)
    except ValueError:
        return None
