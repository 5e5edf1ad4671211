"""``BundleRedactor``: the redaction hook of one bundle (``MemberTransform``, structurally).

One object per bundle. It owns the per-bundle HMAC key (so tokens are
consistent across members), the learned literals, and the report. Pass one
(:meth:`transform`) streams each member through structure and line rules and
learns every redacted value; pass two (:meth:`finalize`) removes every
learned value, in every encoded form, from every member.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace as with_span
from itertools import chain
from typing import Any, NoReturn

from schemas import RedactionReport, RedactionSummary, RuleInfo

from .binary import SNIFF_BYTES, WIDE_TEXT, opaque, sniff
from .catalog import BUILTIN_RULES, FORMAT_RULE_IDS, RULESET_ID, ruleset_sha256
from .embedded import refuse_embedded
from .engine import Engine, resolve
from .errors import MemberRefused, MemberUnreadable, SegmentMisaligned
from .keys import secret_kind
from .kinds import canonical_kind
from .literals import LiteralSet
from .names import component_hits, cut_at_separators
from .network import NetworkPseudonymizer
from .policy import Policy
from .report import MemberRecord, ReportBuilder
from .rules import Hit, Rule, View, line_pieces
from .secretfiles import scanner_for
from .sharing import SharedState
from .stream import Segment, redact_stream
from .structure import detect_format, redact_object, structure_walk, value_spans
from .textcodecs import GzipDamaged, gunzip_chunks, gzip_chunks, peek, wide_to_utf8
from .tokens import Tokenizer
from .values import YAML_PROPERTY
from .walklimits import over_cap, walk_cap

REPORT_MEMBER = "redaction-report.json"


class BundleRedactor(SharedState):
    """Redacts every member of one bundle consistently; see the module docstring."""

    def __init__(
        self, policy: Policy | None = None, *, key: bytes | None = None, keep_map: bool = False
    ) -> None:
        self.policy = policy or Policy()
        self.tokens = Tokenizer(key, keep_map=keep_map)
        self.literals = LiteralSet()
        custom = self.policy.custom
        rules: list[Rule] = list(BUILTIN_RULES)
        if custom is not None:
            rules += custom.rules
        rules += self.policy.keyword_rules(custom.keywords if custom else ())
        self.network = NetworkPseudonymizer(self.tokens) if self.policy.obfuscate_network else None
        self._pseudonym_rules: frozenset[str] = frozenset()
        if self.network is not None:
            network_rules = self.network.rules(self.policy.known_hosts)
            self._pseudonym_rules = frozenset(rule.id for rule in network_rules)
            rules += network_rules
        self.rules = tuple(rules)
        self.engine = Engine(
            self.rules,
            max_depth=self.policy.max_decode_depth,
            allowlist=custom.allowlist if custom else None,
        )
        self._scoped: dict[tuple[str, ...], Engine] = {}
        if custom is not None:
            for value, kind in custom.literals:
                self.literals.learn(value, kind, value, force=True)
        self.builder = ReportBuilder(
            RULESET_ID, ruleset_sha256(self.rules), _rule_infos(self.rules)
        )
        self.builder.obfuscate_network = self.policy.obfuscate_network
        self.builder.custom_rules_sha256 = custom.sha256 if custom else None
        self.builder.keywords = len(self.policy.keywords) + (len(custom.keywords) if custom else 0)
        self._names: dict[str, str] = {}
        self._state: dict[str, str] = {}

    # -- MemberTransform -------------------------------------------------------------------
    def member_name(self, name: str) -> str:
        """The name to store: secrets, e-mails (and with --obfuscate network, hosts) replaced,
        each path component on its own (:mod:`.names`)."""
        data = name.encode("utf-8", "surrogateescape")
        hits = component_hits(self.engine, data) + self._learned_in_name(data, network=False)
        if not hits:
            self._names[name] = name
            return name
        stored = self._name_replaced(data, hits)
        self._names[name] = stored
        self.builder.member(stored).name_redacted = True
        return stored

    def final_name(self, stored: str) -> str:
        """Pass two of a stored name: every value learned since it was made replaced.

        ``bundler redact`` names every file before any is read, so a password
        learned from one file's content was still in another file's name (in the
        zip's directory, the manifest and the report) while every content had
        it removed.
        """
        data = stored.encode("utf-8", "surrogateescape")
        hits = self._learned_in_name(data, network=True)
        return self._name_replaced(data, hits) if hits else stored

    def finalize_skipped_names(self) -> None:
        """:meth:`final_name` of every skipped file's name (a symlink named after a password
        learned from another file's content is listed under its final name)."""
        for name in sorted({s.member for s in self.builder.skipped}):
            final = self.final_name(name)
            if final != name:
                self.rename_member(name, final)

    def _learned_in_name(self, data: bytes, *, network: bool) -> list[Hit]:
        """Learned values (and with ``network``, learned host and user names) in a name,
        none running over a ``/``."""
        hits = [
            Hit(s, e, k, "literal", "literal", identity=i)
            for s, e, k, i in self.literals.find(data)
        ]
        if network and self.network is not None:
            hits += self.network.name_hits(View(data))
        return cut_at_separators(hits, data)

    def _name_replaced(self, data: bytes, hits: list[Hit]) -> str:
        """``data`` with each hit replaced by its name token (or pseudonym), values learned."""
        out, cursor = [], 0
        for hit in resolve(hits, data):
            out.append(data[cursor : hit.start])
            value = data[hit.start : hit.end]
            if hit.via == "pseudonym" and self.network is not None:
                out.append(self.network.replace(hit.kind, value))
            else:
                kind = canonical_kind(hit.kind, hit.identity or value)
                out.append(self.tokens.name_token(kind, hit.identity or value).encode())
                self._learn(value, kind, hit.identity or value)
            cursor = hit.end
        out.append(data[cursor:])
        return b"".join(out).decode("utf-8", "surrogateescape")

    def _admitted(self, name: str) -> str:
        """The stored name of member ``name``; :class:`MemberRefused` (recorded as skipped)
        when the rule file drops it."""
        stored = self._stored(name)
        if self.policy.custom is not None and self.policy.custom.dropped(name):
            self.builder.skip(stored, "policy", "dropped by the rule file")
            raise MemberRefused("policy", "dropped by the rule file")
        return stored

    def transform(
        self, name: str, chunks: Iterable[bytes], *, media_type: str = "application/octet-stream"
    ) -> Iterator[bytes]:
        stored = self._admitted(name)
        head, stream = peek(chunks, SNIFF_BYTES)
        kind = sniff(head)
        if kind.kind in ("archive", "binary"):
            yield from self._not_text(stored, kind.kind, kind.detail, stream)
            return
        if kind.kind == "gzip":
            yield from self._gzip(name, stored, stream, media_type)
            return
        record = self.builder.member(stored)
        if kind.kind in WIDE_TEXT:
            stream = wide_to_utf8(stream, kind.kind)
        self._state[stored] = "text"
        checked = refuse_embedded(stored, stream)  # text with a gzip or a database appended
        try:
            yield from self._hashed(stored, self._text(name, stored, checked, media_type, record))
        except MemberUnreadable as exc:
            self._refuse_embedded(stored, exc)

    def transform_derived(
        self, name: str, chunks: Iterable[bytes], *, media_type: str = "application/octet-stream"
    ) -> Iterator[bytes]:
        """Pass one over a text made only of what this bundle redacted already (doctor's
        evidence and live verdict): every rule but the pseudonymizer's.

        The secret rules find nothing in redacted text (redacted output is their fixed
        point, which ``bundler review`` relies on), except where the new document gives a
        value new context (a setting's source under a secret-looking key): that they
        redact and learn, as review would flag it. The pseudonyms were made where the
        text entered the bundle; an address pseudonym is an address, and the address
        rules would give it a pseudonym of its own.
        """
        stored = self._admitted(name)
        record = self.builder.member(stored)
        self._state[stored] = "text"
        engine = self._engine_for(name, pseudonyms=False)
        yield from self._hashed(
            stored, self._text(name, stored, chunks, media_type, record, engine=engine)
        )

    def _gzip(
        self, name: str, stored: str, stream: Iterator[bytes], media_type: str
    ) -> Iterator[bytes]:
        """A gzip member: what it holds is judged as a member would be (text, UTF-16 text,
        binary, archive). Only text is redacted and compressed again: a ``.tar.gz`` or a
        gzipped database rewritten as text came out corrupt (tar sizes and checksums no
        longer matching), and a gzip of a gzip or of bzip2 went through unread."""
        raw: list[bytes] | None = []  # the compressed chunks read while peeking, then None

        def remembered(chunks: Iterator[bytes]) -> Iterator[bytes]:
            for chunk in chunks:
                if raw is not None:
                    raw.append(chunk)
                yield chunk

        try:
            head, inner = peek(gunzip_chunks(remembered(stream)), SNIFF_BYTES)
        except GzipDamaged as exc:
            self._refuse_damaged(stored, exc)
        kind = sniff(head)
        peeked, raw = raw, None  # from here on a chunk is held only while it is inflated
        assert peeked is not None
        if kind.kind == "archive" or opaque(kind):  # a .tar.gz as a tar; an xz: nested archives
            yield from self._not_text(stored, "archive", f"gzip of a {kind.detail}", stream)
            return
        if kind.kind == "binary":  # kept as it came: the compressed bytes peeked, then the rest
            yield from self._not_text(
                stored, "binary", f"gzip of a {kind.detail}", chain(peeked, stream)
            )
            return
        del peeked
        if kind.kind in WIDE_TEXT:
            inner = wide_to_utf8(inner, kind.kind)
        record = self.builder.member(stored)
        self._state[stored] = "gzip"
        try:
            yield from self._hashed(
                stored,
                gzip_chunks(
                    self._text(name, stored, refuse_embedded(stored, inner), media_type, record)
                ),
            )
        except GzipDamaged as exc:
            self._refuse_damaged(stored, exc)
        except MemberUnreadable as exc:
            self._refuse_embedded(stored, exc)

    def _not_text(
        self, stored: str, kind: str, detail: str, stream: Iterable[bytes]
    ) -> Iterator[bytes]:
        """A member that is not text, the same for one that arrives gzipped: an ``archive`` is
        left out (a nested archive is not redacted), a ``binary`` too unless
        ``--keep-binary``, when it is stored unredacted, as it came."""
        if kind == "archive":
            self.builder.skip(stored, "policy", f"nested {detail}: not redacted, left out")
            raise MemberRefused("policy", f"nested {detail}")
        if not self.policy.keep_binary:
            self.builder.skip(stored, "binary", detail)
            raise MemberRefused("binary", detail)
        self.builder.skip(stored, "binary", f"{detail}; kept unredacted (--keep-binary)", kept=True)
        self._state[stored] = "binary"
        yield from self._hashed(stored, stream)

    def _refuse_embedded(self, stored: str, exc: MemberUnreadable) -> NoReturn:
        """Leave out text with a compressed stream or a database appended after its head
        (:mod:`.embedded`): what was appended cannot be redacted as text, and what came
        before it is not the whole file. ``bundler review`` refuses such a member too."""
        self.forget_member(stored)
        detail = f"{exc.reason.split(': review ')[0]}: not redacted, left out"
        self.builder.skip(stored, "policy", detail)
        raise MemberRefused("policy", detail) from None

    def _refuse_damaged(self, stored: str, exc: GzipDamaged) -> NoReturn:
        """Leave out a gzip member that does not decompress to its end: what came out before
        the damage is not the whole file, and a partial copy would pass for it."""
        self.forget_member(stored)
        self.builder.skip(stored, "decode_error", str(exc))
        raise MemberRefused("decode_error", str(exc)) from None

    def can_segment(self, name: str, head: bytes, media_type: str, size: int) -> bool:
        """Whether :meth:`transform_segment` may redact this member in parts, in parallel.

        Plain text only, streamed by line rules: not gzip, UTF-16 or binary
        (their bytes are not the text the rules see), not a secret file with
        its own scanner, not a structured file small enough to be parsed whole.
        ``head`` is the member's first bytes (at least ``SNIFF_BYTES``).
        """
        custom = self.policy.custom
        if custom is not None and custom.dropped(name):
            return False
        if sniff(head).kind != "text" or scanner_for(name) is not None:
            return False
        fmt = detect_format(name, media_type, head[:SNIFF_BYTES])
        return fmt is None or size > walk_cap(fmt, self.policy.structure_max)

    def transform_segment(
        self,
        name: str,
        chunks: Iterable[bytes],
        segment: Segment,
        *,
        head: bytes,
        media_type: str = "application/octet-stream",
    ) -> Iterator[bytes]:
        """Pass one over one segment of a member :meth:`can_segment` accepted.

        ``chunks`` are the segment's text plus up to ``overlap`` bytes of
        look-ahead; ``segment`` says where it stops and, once exhausted, how it
        ended (see :class:`~redactors.stream.Segment`). Report lines count from
        the segment's start; :meth:`import_member` shifts them. Raises
        :class:`~redactors.errors.SegmentMisaligned` if it cannot stop there.
        """
        stored = self._stored(name)
        self._state[stored] = "text"
        record = self.builder.member(stored)
        try:
            yield from self._text(
                name,
                stored,
                refuse_embedded(stored, chunks),
                media_type,
                record,
                head=head[:SNIFF_BYTES],
                segment=segment,
            )
        except MemberUnreadable as exc:  # redacted whole instead, which leaves it out
            raise SegmentMisaligned(exc.reason) from None

    def finalize(
        self, name: str, chunks: Iterable[bytes], *, media_type: str = "application/octet-stream"
    ) -> Iterator[bytes]:
        stored = self._stored(name)
        state = self._state.get(stored, "text")
        if state == "binary":
            yield from self._hashed(stored, chunks)
            return
        record = self.builder.member(stored)
        scan = self._literal_scan
        replace = self._replacer(record, None)
        if state == "gzip":
            inner = redact_stream(
                gunzip_chunks(chunks), scan, replace, chunk_size=self.policy.chunk_size
            )
            try:
                yield from self._hashed(stored, gzip_chunks(inner))
            except GzipDamaged as exc:
                self._refuse_damaged(stored, exc)
            return
        yield from self._hashed(stored, redact_stream(chunks, scan, replace, **self._sizes))

    def finalize_changes(self, name: str, chunks: Iterable[bytes]) -> bool:
        """Whether :meth:`finalize` would change this (pass-one) content at all.

        The same scan as :meth:`finalize`, with a replacement that stops at the
        first hit and records nothing: a caller holding pass one's output in a
        costlier form (already compressed) keeps it when this says False, and
        runs :meth:`finalize` otherwise. Re-gzipped members always count as
        changed; binary members never change. Reads ``chunks`` to the end when
        it returns False.
        """
        state = self._state.get(self._stored(name), "text")
        if state == "gzip":
            return True
        if state == "binary":
            for _ in chunks:
                pass
            return False

        def hit(*_: Any) -> bytes:
            raise _WouldChange

        try:
            for _ in redact_stream(chunks, self._literal_scan, hit, **self._sizes):
                pass
        except _WouldChange:
            return True
        return False

    def literal_straddles(self, before: bytes, after: bytes) -> bool:
        """Whether pass two would find a learned value across the join of two segments.

        ``before`` and ``after`` are the last and first bytes of pass one's
        output on either side of the join. :meth:`finalize_changes` over each
        segment alone sees every hit inside it; only one crossing the join
        needs this. A learned value too long for the window counts as found.
        """
        if self.literals.max_len() >= min(len(before), len(after)):
            return True
        join = len(before)
        return any(hit.start < join < hit.end for hit in self._literal_scan(View(before + after)))

    def redact_text(self, text: str) -> str:
        """Redact a short string (an error message, an option value) in one call."""
        data = text.encode("utf-8", "surrogateescape")
        return self.redact_bytes(data).decode("utf-8", "surrogateescape")

    def redact_bytes(self, data: bytes) -> bytes:
        record = MemberRecord("<text>")
        view = View(data)
        hits = self.engine.scan(view)
        hits += self._literal_scan(view)
        replace = self._replacer(record, None)
        out, cursor = [], 0
        for hit in resolve(hits, data):
            for piece in line_pieces(hit, data, hit.start):
                out.append(data[cursor : piece.start])
                out.append(replace(piece, data, piece.start, 1))
                cursor = piece.end
        out.append(data[cursor:])
        return b"".join(out)

    def finalize_text(self, text: str) -> str:
        """Pass two over a short string :meth:`redact_text` already redacted: every value
        learned since replaced, nothing else (as :meth:`finalize` does for a member).

        Not :meth:`redact_text` again: an address pseudonym is an address, and redacting
        it would give it a second pseudonym."""
        data = text.encode("utf-8", "surrogateescape")
        replace = self._replacer(MemberRecord("<text>"), None)
        out = b"".join(redact_stream([data], self._literal_scan, replace, **self._sizes))
        return out.decode("utf-8", "surrogateescape")

    def redact_object(self, obj: Any) -> Any:
        """A parsed JSON/YAML value with secrets replaced by tokens (for API responses)."""

        def token_for(kind: str, value: bytes, extra: tuple[bytes, ...]) -> str:
            kind = canonical_kind(kind, value)
            self._learn(value, kind, value)
            for form in extra:
                self._learn(form, kind, value)
            return self.tokens.token(kind, value).decode()

        return redact_object(obj, token_for, self.redact_text, self._classify)

    def report(self) -> RedactionReport:
        if self.network is not None:
            # Assigned, not added: counts() is the total so far, and the report is built
            # several times per bundle (report member, summary, outcome).
            self.builder.pseudonyms = Counter(self.network.counts())
        return self.builder.build()

    def summary(self) -> RedactionSummary:
        return self.builder.summary(REPORT_MEMBER)  # counted from the records, not built

    def skip(self, member: str, reason: str, detail: str | None = None) -> None:
        """Record a file left out by the caller (a symlink, a special file)."""
        self.builder.skip(member, reason, detail)

    def token_map(self) -> dict[str, tuple[str, bytes]]:
        """token -> (kind, original); only with ``keep_map=True`` (for ``--map-out``)."""
        return self.tokens.mapping()

    # -- internals -------------------------------------------------------------------------
    @property
    def _sizes(self) -> dict[str, Any]:
        return {"chunk_size": self.policy.chunk_size, "overlap": self.policy.overlap}

    def _stored(self, name: str) -> str:
        if name in self._names:
            return self._names[name]
        if name in self._names.values():
            return name
        return self.member_name(name)

    def _classify(self, key: str) -> str | None:
        custom = self.policy.custom
        if custom is not None and key.lower() in custom.key_names:
            return "custom"
        return secret_kind(key)

    def _engine_for(self, name: str, *, pseudonyms: bool = True) -> Engine:
        """The rules for ``name``: a rule file's scoped rules only where they apply, and
        without the pseudonymizer's rules when ``pseudonyms`` is False."""
        custom = self.policy.custom
        skip = set() if pseudonyms else set(self._pseudonym_rules)
        if custom is not None and custom.scoped:
            skip.update(r.id for r in custom.rules if not custom.applies(r.id, name))
        if not skip:
            return self.engine
        key = tuple(sorted(skip))
        if key not in self._scoped:
            rules = [r for r in self.rules if r.id not in skip]
            self._scoped[key] = Engine(
                rules,
                max_depth=self.policy.max_decode_depth,
                allowlist=custom.allowlist if custom else None,
            )
        return self._scoped[key]

    def _text(
        self,
        name: str,
        stored: str,
        chunks: Iterable[bytes],
        media_type: str,
        record: MemberRecord,
        *,
        head: bytes | None = None,
        segment: Segment | None = None,
        engine: Engine | None = None,
    ) -> Iterator[bytes]:
        engine = engine or self._engine_for(name)
        if head is None:
            head, chunks = peek(chunks, SNIFF_BYTES)
        fmt = detect_format(name, media_type, head)
        if segment is not None:  # can_segment: plain text or too big to parse
            if fmt is not None:
                self._not_walked(stored, over_cap(fmt, walk_cap(fmt, self.policy.structure_max)))
            replace = self._replacer(record, fmt)
            yield from redact_stream(chunks, engine.scan, replace, segment=segment, **self._sizes)
            return
        special = scanner_for(name)
        if special is not None:
            replace = self._replacer(record, None)

            def scan_special(view: View) -> list[Hit]:
                return resolve([*engine.scan(view), *special(view)], view.data)

            yield from redact_stream(chunks, scan_special, replace, **self._sizes)
            return
        if fmt is None:
            replace = self._replacer(record, None)
            yield from redact_stream(chunks, engine.scan, replace, **self._sizes)
            return
        cap = walk_cap(fmt, self.policy.structure_max)
        buffered, rest = peek(chunks, cap + 1)
        replace = self._replacer(record, fmt)
        if len(buffered) > cap:
            self._not_walked(stored, over_cap(fmt, cap))
            yield from redact_stream(rest, engine.scan, replace, **self._sizes)
            return
        yield from self._structured(stored, buffered, fmt, engine, replace)

    def _not_walked(self, stored: str, why: str) -> None:
        """Say in the report that a structured member got the line rules alone: a value only
        its parse could find (a ``Secret``'s ``data``) may be left, and ``bundler review``
        rejects the member for that reason, so the report must not let it pass unnoticed."""
        self.builder.skip(stored, "too_large", f"{why}: line rules only", kept=True)

    def _structured(
        self, stored: str, data: bytes, fmt: str, engine: Engine, replace: Any
    ) -> Iterator[bytes]:
        local = self._structure_literals(stored, data, fmt)

        def scan(view: View) -> list[Hit]:
            hits = engine.scan(view)
            hits += [
                Hit(s, e, k, "structure", "structure", identity=i)
                for s, e, k, i in value_spans(view.data, fmt, local)
            ]
            if fmt == "json":
                hits = outside_escapes(hits, view.data)
            if len(hits) > 1:
                return resolve(hits, view.data)
            return hits

        yield from redact_stream([data], scan, replace, **self._sizes)

    def _structure_literals(self, stored: str, data: bytes, fmt: str) -> LiteralSet:
        """The values this member's parse finds under secret keys, to redact where they stand
        (and in the report, that the walk did not reach all of it, when it did not).

        A function of its own so the parsed tree is gone before the member is redacted:
        a document's tree is about three times its text (a 1,000-worker fleet's
        ``evidence/workers.json``: 2.4 MB of JSON, 6.9 MB of objects), and holding it
        through the line pass was doctor's peak.
        """
        walked = structure_walk(data, fmt, self._classify)
        if walked.unwalked is not None:
            self._not_walked(stored, walked.unwalked)
        return walked.literals

    def _literal_scan(self, view: View) -> list[Hit]:
        hits = [
            Hit(s, e, k, "literal", "literal", identity=i)
            for s, e, k, i in self.literals.find(view.data)
        ]
        if self.network is not None:
            hits += self.network.name_hits(view)
            return resolve(hits, view.data)
        return hits

    def _learn(self, value: bytes, kind: str, identity: bytes, *, force: bool = False) -> None:
        self.literals.learn(value, kind, identity, force=force)

    def _replacer(self, record: MemberRecord, fmt: str | None) -> Any:
        def replace(hit: Hit, data: bytes, start: int, line: int) -> bytes:
            value = data[start : hit.end]
            if hit.via == "pseudonym" and self.network is not None:
                return self.network.replace(hit.kind, value)
            identity = hit.identity or value
            kind = canonical_kind(hit.kind, identity)
            token = self.tokens.token(kind, identity)
            self._learn(value, kind, identity, force=hit.rule in FORMAT_RULE_IDS)
            for form in hit.extra:
                self._learn(form, kind, identity)
            record.add(hit.rule, kind, line, token, hit.via, hit.decoders)
            if fmt is not None and _bare_scalar(data, start, hit.end, fmt):
                return (b'"%s"' if fmt == "json" else b"'%s'") % token
            return token

        return replace

    def _hashed(self, stored: str, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """Pass chunks through, recording sha256 and size of the stored content."""
        digest, size = hashlib.sha256(), 0
        for chunk in chunks:
            digest.update(chunk)
            size += len(chunk)
            yield chunk
        record = self.builder.member(stored)
        record.sha256, record.size = digest.hexdigest(), size


class _WouldChange(Exception):
    """Raised inside :meth:`BundleRedactor.finalize_changes` at the first literal hit."""


def outside_escapes(hits: list[Hit], data: bytes) -> list[Hit]:
    """Shrink spans so none starts or ends inside a JSON escape sequence.

    A line rule reads JSON as text: in ``"a\\n@host.example"`` it may take the
    ``n`` of the ``\\n`` escape as the first letter of an address. Replacing from
    there would leave a lone backslash before the token, which is invalid JSON and
    makes the whole record unreadable. The escape belongs to the text around the
    secret, so the span moves past it (or drops, when nothing is left).
    """
    adjusted: list[Hit] = []
    for hit in hits:
        start, end = hit.start, hit.end
        if _odd_backslashes_before(data, start):
            start += 5 if data[start : start + 1] == b"u" else 1
        if end > start and _odd_backslashes_before(data, end) and data[end - 1 : end] == b"\\":
            end -= 1
        if end <= start:
            continue
        adjusted.append(
            hit if (start, end) == (hit.start, hit.end) else with_span(hit, start=start, end=end)
        )
    return adjusted


def _odd_backslashes_before(data: bytes, index: int) -> bool:
    count = 0
    while index - count > 0 and data[index - count - 1] == 0x5C:
        count += 1
    return count % 2 == 1


_YAML_PROPERTY_TAIL = re.compile(rb"(?:^|[ \t])" + YAML_PROPERTY + rb"$")


def _bare_scalar(data: bytes, start: int, end: int, fmt: str) -> bool:
    """True when the span is a whole unquoted scalar (a JSON number, a plain YAML value).

    A token written there bare would change what the document holds (YAML reads
    ``[REDACTED:...]`` as a list), so it is quoted. In YAML a plain value also stands
    after an anchor or tag (``password: &pw x``), inside a flow collection (``{password:
    x}``, ending at ``,`` ``}`` ``]``) and alone on the line after its key's ``:``.
    """
    after = data[end : end + 2].lstrip(b" \t")
    if fmt == "json":
        before = data[max(0, start - 3) : start].rstrip(b" \t")
        return before[-1:] in (b":", b",", b"[") and (
            after[:1] in (b",", b"}", b"]", b"\n", b"\r", b"")
        )
    line_start = data.rfind(b"\n", 0, start) + 1
    lead = data[line_start:start].rstrip(b" \t")
    property_tail = _YAML_PROPERTY_TAIL.search(lead)
    if property_tail is not None:
        lead = lead[: property_tail.start()].rstrip(b" \t")
    flow = lead.count(b"{") + lead.count(b"[") > lead.count(b"}") + lead.count(b"]")
    ends = (b"\n", b"\r", b"", b"#", b",", b"}", b"]") if flow else (b"\n", b"\r", b"", b"#")
    if after[:1] not in ends:
        return False
    if not lead:  # alone on its line: a value only right under its key's ":"
        return data[:line_start].rstrip().endswith(b":")
    return lead[-1:] in ((b":", b"-", b"{", b"[", b",") if flow else (b":", b"-"))


def _rule_infos(rules: tuple[Rule, ...]) -> list[RuleInfo]:
    return [
        RuleInfo(id=r.id, kind=r.kind, description=r.description, source=r.source) for r in rules
    ]
