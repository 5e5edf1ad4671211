"""Secrets found by their key: ``key=value`` in every syntax, whatever the value looks like.

The value's shape is not trusted (``hunter2`` and ``P@ss w0rd!`` are real
passwords), so these rules find a *secret-looking key* and then take the
value by syntax (:mod:`redactors.values`). The key is judged on its whole
name by :func:`redactors.keys.secret_kind`, found by walking back from the
keyword that anchored the match: ``FLUX_WORKERS__BOOTSTRAP_TOKEN=``,
``"client_secret":``, ``--password x``, ``<password>x</password>``,
``<add key="ClearTextPassword" value="x"/>``, ``.netrc`` lines, and
``{"name": "DB_PASSWORD", "value": "x"}`` pairs.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterable

from ..entropy import run_after
from ..keys import (
    BARE_KEY_NAMES,
    WEAK_KINDS,
    generated_secret,
    is_code_reference,
    is_placeholder,
    names_a_secret_id,
    plain_word,
    secret_kind,
    states_a_state,
)
from ..rules import ALNUM, Hit, Rule, View
from ..tokens import TOKEN_MARK
from ..values import (
    MAX_VALUE,
    TERMINAL_ESCAPE,
    NeedMore,
    ValueSpan,
    value_spans,
    without_trailing_escapes,
)
from .codeshapes import ANNOTATION, close_unopened, code_shape_holds, var_dump_value
from .commands import known_command

KEY_CHARS = ALNUM | frozenset(b"_.-")
_SCHEME_KINDS = {b"basic": "basic-auth", b"bearer": "bearer-token", b"token": "bearer-token"}


def _key_start(data: bytes, pos: int) -> int:
    while pos > 0 and data[pos - 1] in KEY_CHARS:
        pos -= 1
    return pos


def _basic_extra(value: bytes) -> tuple[bytes, ...]:
    """A Basic credential decodes to ``user:password``: propagate both forms."""
    try:
        decoded = base64.b64decode(value + b"=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return ()
    if b":" not in decoded or not decoded.isascii():
        return ()
    password = decoded.split(b":", 1)[1]
    return (decoded, password) if len(password) >= 4 else (decoded,)


def _key_name(data: bytes, start: int, end: int) -> str:
    """The key a match stands on, without the quotes and escapes around it."""
    return data[start:end].strip(b"\\\"'&;").decode("latin-1")


def _kv_hits(
    view: View,
    key_start: int,
    key_end: int,
    value_pos: int,
    rule: Rule,
    *,
    next_line: bool = True,
    classify: Callable[[str], str | None] = secret_kind,
    whole_line: bool = False,
    assignment: bool = False,
    in_structure: bool = False,
    element: bool = False,
) -> Iterable[Hit]:
    data = view.data
    key = _key_name(data, key_start, key_end)
    if (not element and _names_a_file(key)) or _in_authority(view.low, key_start):
        # "auth-cache.db: database disk image is malformed"; URLs: the URL rule. An element's
        # name is no file's (Hadoop's <name>fs.s3a.secret.key</name>)
        return
    kind = classify(key)
    bare = kind is None and key.lower() in BARE_KEY_NAMES
    if bare:
        kind = "secret-key"
    if kind is None:
        return
    expansion = data[max(0, key_start - 2) : key_start] == b"${"
    if expansion:  # ${TOKEN:?message}, ${TOKEN:-default}, ${TOKEN:=$2}
        value_pos = _expansion_default(data, key_end)
        if value_pos < 0:
            return
    try:
        spans = value_spans(data, value_pos, final=view.final, allow_next_line=next_line)
    except NeedMore:
        view.need_more_from(key_start)
        return
    lowered = key.lower().lstrip("-")
    if whole_line and len(spans) == 1 and not bare and kind not in WEAK_KINDS:
        try:
            spans = [_to_line_end(data, spans[0], final=view.final, assignment=assignment)]
        except NeedMore:
            view.need_more_from(key_start)
            return
    if len(spans) == 1 and not bare and data[key_end:value_pos].strip() == b"=":
        spans = [_to_pair_end(data, key_start, spans[0])]
    if element:  # <password>correct horse</password>: to the tag
        try:
            if len(spans) == 1:
                spans = [_to_closing_tag(data, spans[0], final=view.final)]
            elif not spans:
                spans = _text_on_its_own_lines(data, value_pos, final=view.final)
        except NeedMore:
            view.need_more_from(key_start)
            return
    if in_structure:  # declare -A db=([password]=x), Map(password -> x)
        spans = [close_unopened(data, span) for span in spans]
    for span in spans:
        value = data[span.start : span.end]
        if expansion and value.endswith(b"}"):
            value = value[:-1]
            span = ValueSpan(span.start, span.end - 1)
        if is_placeholder(value) or (value.isdigit() and len(value) < 4):
            continue  # a count or a flag ("attempts: 3"), not a credential (PINs have 4+ digits)
        if _template_or_reference(data, span.start, span.end, key):
            continue  # {hunter2}, get_secret_key(), request.headers["apikey"], ACCESS_TOKEN
        if bare and not generated_secret(value):
            continue  # "key": "cache-entry-1": only a generated key under a bare "key"
        if kind in WEAK_KINDS and plain_word(value):
            continue  # "session: closed", "credentials: default": a state, not a credential
        if kind in _TOKEN_KINDS and plain_word(value) and _error_label(data, key_start):
            continue  # "Invalid token: Signature has expired": the error's words, no token
        if states_a_state(value):
            continue  # "token: expired at 10:00", "password: not set": said of it, not it
        if names_a_secret_id(key, value):
            continue  # aws secretsmanager get-secret-value --secret-id prod/etl/db: a name
        if lowered in ("pwd", "oldpwd") and value[:1] in (b"/", b"~"):
            continue  # the shell's working directory, not a password
        if kind in _KEPT_IN_FILES and _FILE_PATH.fullmatch(value):
            continue  # GOOGLE_APPLICATION_CREDENTIALS=/etc/gcp/key.json: where, not what
        if data[key_end:value_pos] == b":" and _NESTED_PAIR.match(value):
            continue  # boto's Credentials:gs_service_key_file=…: the inner pair is judged alone
        hit_kind, extra = kind, tuple[bytes, ...]()
        lead = TERMINAL_ESCAPE.sub(b"", data[value_pos : span.start]).strip(b" \t\"'\\").lower()
        scheme = lead.split()[-1] if lead.split() else b""
        if scheme == b"digest":
            yield from _digest_response(view, span.start)
            continue
        if scheme in _SCHEME_KINDS:
            hit_kind = _SCHEME_KINDS[scheme]
            if scheme == b"basic":
                extra = _basic_extra(value)
        elif kind == "auth" and len(value) < 8:
            continue  # "auth: ok", "auth=none": a state, not a credential
        yield Hit(span.start, span.end, hit_kind, rule.id, extra=extra)


_KEPT_IN_FILES = frozenset({"credential", "auth"})
"""Kinds whose keys also name where the secret is kept (``GOOGLE_APPLICATION_CREDENTIALS``,
``auth: /etc/nginx/.htpasswd``): a file's path under them is evidence, not the secret."""
_FILE_PATH = re.compile(
    rb"(?:/|~/|[A-Za-z]:\\)(?:[A-Za-z0-9_.-]+[/\\])+[A-Za-z0-9_.-]*\.[A-Za-z0-9]{1,10}"
)
"""An absolute or home path to a file with an extension: no secret has that shape (a
generated one holds ``+``, ``=`` or no directory and extension)."""
_NESTED_PAIR = re.compile(rb"[a-z][a-z0-9]*(?:_[a-z0-9]+)+=")
"""``option_name=`` opening a value: a ``Section:option=value`` pair (``gsutil -o``), whose
option the key rules judge on their own (a refresh token's value, not the name, is secret)."""


_DIGEST_RESPONSE = re.compile(
    rb"(?<![a-z])response[ \t]*=[ \t]*\"?([0-9a-f]{16,128})", re.IGNORECASE
)


_LINE_LEAD = re.compile(rb"[ \t]*(?:(?:#+|;+|//)[ \t]*)?(?:(?:export|set)[ \t]+|-[ \t]+)?")
"""What may stand before a key that owns its line: indentation, a comment marker (an old
password commented out is still one), ``export``/``set``, a list dash."""
_ANOTHER_PAIR = re.compile(rb"(?:^|[ \t,;&])[A-Za-z_][A-Za-z0-9_.-]*[ \t]*(?:=|:(?![/0-9]))")
"""A second ``key=``/``key:`` on the line: the line holds several fields (logfmt), not one value."""
_INLINE_COMMENT = re.compile(rb"[ \t][#;]")
_PAIR_AFTER = re.compile(rb";[ \t]*(?:[A-Za-z][A-Za-z0-9 _.-]*=|[\"']|\r?$)")
_PAIR_VALUE_MAX = 256


def _to_pair_end(data: bytes, key_start: int, span: ValueSpan) -> ValueSpan:
    """A value in a connection string's ``Key=Value;`` pairs, taken to its ``;``.

    ADO.NET, ODBC and JDBC-style strings (``Server=db;User Id=sa;Password=two words;``)
    end a value at ``;``, not at a blank, so ``correct horse battery`` would otherwise lose
    only ``correct``. Taken further only when the key opens the string or follows a ``;``,
    the ``;`` after the value opens another pair (or ends the string or line), and nothing
    between the blank and that ``;`` looks like more syntax (a ``=``, a quote): a log
    line's ``login password=x rejected; retrying`` keeps its prose.
    """
    end = span.end
    if end >= len(data) or data[end] not in b" \t":
        return span
    line_end = data.find(b"\n", end)
    line_end = len(data) if line_end < 0 else line_end
    semi = data.find(b";", end, min(line_end, end + _PAIR_VALUE_MAX))
    if semi < 0:
        return span
    rest = data[end:semi]
    if any(c in rest for c in b"=\"'`") or not rest.strip():
        return span
    line_start = data.rfind(b"\n", 0, key_start) + 1
    if _PAIR_AFTER.match(data, semi, line_end) is None:
        return span
    lead = data[line_start:key_start].rstrip(b" \t")
    # after a pair, or the string's first pair: at the line's start, or after an opening quote
    opens = lead in (b"", b'"', b"'") or lead.endswith((b";", b'="', b"='"))
    if not opens:
        return span
    return ValueSpan(span.start, semi - (len(rest) - len(rest.rstrip())))


"""An inline comment (``password = x y # rotated``): kept, as INI and env readers drop it."""
_COMMAND_AFTER = re.compile(rb"(?:^|[ \t])(?:--?[A-Za-z]|\|\|?|&&|[<>])")
"""An option or a shell operator: ``PGPASSWORD=pw psql -h db`` runs a command after the
assignment, which is not more of its value."""
_ASSIGNMENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*=")
_BLOCK_ITEM = re.compile(rb"[ \t]*-[ \t]+[\"']?")
"""What stands before a flag that is an item of a YAML block list (``    - --password``): its
value is the next item (a command line written as a list, as in a pod's ``args``)."""
_OPENERS = (b'"', b"'", b"{", b"[")
_TEMPLATES = (b"${", b"{{")
WHOLE_LINE_WORD_MAX = 16
"""A first word this long is a token in its own right (``token: 9f8ZqA... (expires in 1h)``):
a note in parentheses after it is about it, not more of it."""
_NOTE = b"("
"""How such a note opens. Judged on what follows the first word, never on the word itself:
a redaction token (always 16+ characters) hides how long the word it replaced was, so
``bundler review`` of ``password = [REDACTED:...] horse battery`` must reach the verdict the
redactor reached on the original (docs/redaction.md, "old redactions")."""


def _owns_line(data: bytes, key_start: int) -> bool:
    """Whether the key at ``key_start`` begins its line (``password = ...`` in an INI file,
    ``DB_PASSWORD=...`` in an env file, ``  token: ...`` in notes)."""
    line_start = data.rfind(b"\n", 0, key_start) + 1
    lead = _LINE_LEAD.match(data, line_start, key_start)
    return lead is not None and lead.end() == key_start


def _to_line_end(
    data: bytes, span: ValueSpan, *, final: bool, assignment: bool = False
) -> ValueSpan:
    """An unquoted value of a line-owning key, taken to the end of its line.

    In INI, ``.properties`` and env files a value runs to the end of the line,
    spaces included: ``password = correct horse battery staple`` would otherwise
    lose only its first word. Not taken further when the value was quoted or
    bracketed, stopped at something other than a blank, starts with a word that
    is a token by itself followed by a note in parentheses, or the rest of the
    line holds another ``key=`` (a logfmt line that happens to start with
    ``password=``) or a redaction token (a secret found there on its own: the
    line was already cut into values), or a shell ``assignment`` (``NAME=value``,
    no blanks) is followed by a command: options or operators (``PGPASSWORD=pw
    psql -h db``), or a program's path or a name the catalog knows as a tool
    (``PGPASSWORD=pw psql mydb``, :mod:`.commands`); an inline comment (`` # ...``, `` ; ...``)
    ends it, and the terminal escapes that close the line (a colour's reset) stay out of
    it. Every test reads only what a redaction leaves in place, so the rule gives the same
    extent over ``password = [REDACTED:...] horse battery`` as over the original line, and
    takes the clear tail an older redaction left.
    """
    end = span.end
    if end >= len(data) or data[end] not in b" \t":
        return span
    if data[span.start - 1 : span.start] in _OPENERS or data.startswith(_TEMPLATES, span.start):
        return span
    line_end = data.find(b"\n", end)
    if line_end < 0:
        if not final:
            raise NeedMore
        line_end = len(data)
    comment = _INLINE_COMMENT.search(data, end, line_end)
    rest_end = without_trailing_escapes(data, end, comment.start() if comment else line_end)
    rest = data[end:rest_end].rstrip()
    if not rest or _ANOTHER_PAIR.search(rest) or len(rest) > MAX_VALUE or TOKEN_MARK in rest:
        return span  # a token there: a secret found on its own, so the line is no one value
    if end - span.start >= WHOLE_LINE_WORD_MAX and rest.lstrip().startswith(_NOTE):
        return span
    if assignment and (_COMMAND_AFTER.search(rest) or known_command(rest.split()[0])):
        return span
    return ValueSpan(span.start, end + len(rest))


def _digest_response(view: View, pos: int) -> Iterable[Hit]:
    """``Authorization: Digest username="u", ..., response="<hash>"``: the parameters are
    evidence; the response is a hash of the password (cracked offline), so it goes."""
    line_end = view.data.find(b"\n", pos)
    found = _DIGEST_RESPONSE.search(view.data, pos, len(view.data) if line_end < 0 else line_end)
    if found:
        yield Hit(found.start(1), found.end(1), "auth", "kv-auth")


FILE_EXTENSIONS = frozenset(
    {"db", "sqlite", "log", "json", "yaml", "yml", "toml", "ini", "conf", "cfg", "txt", "pem",
     "crt", "key", "py", "go", "js", "ts", "sh", "lock", "pid", "sock", "gz", "zip", "tar"}
)  # fmt: skip
_EXPANSION_OPS = (b":-", b":=", b":+", b"-", b"=", b"+")


HEX_PROSE_RULES = frozenset({"kv-token", "kv-secret", "kv-pass", "kv-cred"})
"""Prose keywords after which a long hex run is a secret ("joined with bootstrap token
3f9a..."); not ``key`` (cache keys and digests are hex too)."""
_HEX_RUN = re.compile(rb"(?<![A-Za-z0-9_-])[0-9a-fA-F]{32,128}(?![A-Za-z0-9_-])")
_DIGEST_WORDS = re.compile(
    rb"sha|digest|hash|checksum|commit|fingerprint|uuid|md5|(?<![a-z])ids?(?![a-z])|[=\"'\[{]"
)
"""Between the prose word and the hex run: a digest or id says what the run is, and a new
``key=`` or quote means the run belongs to another field (``msg="secret rotated" request_id=``)."""


def _hex_after(view: View, pos: int) -> tuple[int, int] | None:
    """A 32-128 digit hex run in the window after a prose secret word, unless the words
    between them say it is a digest or an id."""
    found = _HEX_RUN.search(view.data, pos, min(len(view.data), pos + 160))
    if found is None or found.start() > pos + 48:
        return None
    if b"\n" in view.data[pos : found.start()] or _DIGEST_WORDS.search(
        view.low, pos, found.start()
    ):
        return None
    value = found.group()
    if len(set(value.lower())) < 8:
        return None  # 0000...0, deadbeefdeadbeef...: not random
    return found.span()


def _names_a_file(key: str) -> bool:
    """``auth-cache.db``, ``secrets.yaml``: a file name standing before a colon, not a key.

    Java and Hadoop name properties with dots, and theirs end in ``.key`` too
    (``fs.s3a.secret.key``, ``spark.ssl.key``...): a ``.key`` name whose stem holds a dot as
    well is such a property (``server.key``, ``tls.key`` stay files)."""
    stem, dot, ext = key.rpartition(".")
    if ext.lower() == "key" and "." in stem:
        return False
    return bool(dot and stem and ext.lower() in FILE_EXTENSIONS)


def _to_closing_tag(data: bytes, span: ValueSpan, *, final: bool) -> ValueSpan:
    """An XML element's text runs to its closing tag, blanks and punctuation in it: the first
    word alone (``<password>correct horse battery</password>``) left the rest in clear. A
    ``CDATA`` section is already whole, and an element whose closing tag is not on its line
    keeps the first word (its text spans lines: not a value this rule can bound)."""
    if data.startswith(b"]]>", span.end):
        return span
    inside = data.find(b"</", span.start, span.end)
    if inside > span.start:  # <password>"unclosed</password>: the tag is no part of the value
        end = inside
        while end > span.start and data[end - 1] in b" \t\r":
            end -= 1
        return ValueSpan(span.start, end) if end > span.start else span
    opener = data[span.start - 1 : span.start]
    if opener in (b'"', b"'") and data[span.end : span.end + 1] == opener:
        rest = data[span.end + 1 : data.find(b"<", span.end + 1, span.end + 1 + MAX_VALUE)]
        if not rest.strip():
            return span  # <password>"correct horse"</password>: the quoted text
        span = ValueSpan(span.start - 1, span.end)  # "a" b</password>: the quotes are text
    line_end = data.find(b"\n", span.start, span.start + MAX_VALUE)
    limit = line_end if line_end >= 0 else min(len(data), span.start + MAX_VALUE)
    close = data.find(b"</", span.start, limit)
    if close < 0:
        if line_end < 0 and limit == len(data) and not final:
            raise NeedMore
        return span
    end = close
    while end > span.end and data[end - 1] in b" \t\r":
        end -= 1
    return ValueSpan(span.start, max(end, span.end))


def _text_on_its_own_lines(data: bytes, pos: int, *, final: bool) -> list[ValueSpan]:
    """``<password>`` + newline + the text + newline + ``</password>`` (pretty-printed XML):
    the text between the tags, without the blanks around it; nothing when an element opens
    there (the tag holds elements, not a value)."""
    close = data.find(b"</", pos, pos + MAX_VALUE)
    if close < 0:
        if len(data) < pos + MAX_VALUE and not final:
            raise NeedMore
        return []
    text = data[pos:close]
    body = text.strip()
    if not body or b"<" in body:
        return []
    start = pos + text.index(body[:1])
    return [ValueSpan(start, start + len(body))]


def _in_authority(low: bytes, pos: int) -> bool:
    """A key inside ``scheme://user:password@host``: the URL rule redacts the password only;
    or a resource type inside an AWS ARN (``arn:aws:secretsmanager:eu-west-1:1234:secret:db``),
    whose ``secret:`` names what follows and is no key."""
    if low[max(0, pos - 3) : pos] == b"://":
        return True
    if pos == 0 or low[pos - 1] != 0x3A:  # ":"
        return False
    token = max(low.rfind(c, max(0, pos - 256), pos) for c in _ARN_BEFORE) + 1
    return low.startswith(b"arn:", token)


_ARN_BEFORE = (b" ", b"\t", b"\n", b'"', b"'", b"=", b",", b"(", b"[")
"""What may stand before an ARN: it runs from there to the key."""


def _expansion_default(data: bytes, key_end: int) -> int:
    """Where the default of ``${KEY<op>default}`` starts, or -1 when it has none to redact.

    ``${KEY:?message}`` holds an error message and ``${KEY}`` nothing; a
    default (``:-``, ``:=``, ``:+``) may be a literal secret.
    """
    for op in _EXPANSION_OPS:
        if data.startswith(op, key_end):
            return key_end + len(op)
    return -1


_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_.-]*")
_UPPER_NAME = re.compile(rb"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _template_or_reference(data: bytes, start: int, end: int, key: str) -> bool:
    """A value that names or fetches a secret instead of holding it."""
    value = data[start:end]
    if (
        data[start - 1 : start] == b"{"
        and data[end : end + 1] == b"}"
        and data[end + 1 : end + 2] != b";"  # ODBC: Pwd={...};
        and _IDENT.fullmatch(value)
    ):
        return True  # {hunter2}, {SumoAccessKey}: a template field
    if is_code_reference(value, data[end : end + 2]):
        return True
    if value[:1].isalpha() and (b"_" in value or value.isupper()):
        plain = value.lower().translate(None, b"_-.")
        if len(plain) >= 4 and key.lower().replace("_", "").replace("-", "").endswith(
            plain.decode("latin-1")
        ):
            return True  # access_token=ACCESS_TOKEN: the key's own name
        if _UPPER_NAME.fullmatch(value) and secret_kind(value.decode("latin-1")) is not None:
            return True  # password=DB_PASSWORD: the name of another secret
    return False


def _names_a_secret(word: bytes, rule: Rule) -> bool:
    """Whether the word around a prose keyword is the keyword itself or a secret's key name."""
    bare = word.strip(b"-_.")
    if any(bare in (anchor, anchor + b"s") for anchor in rule.anchors or ()):
        return True
    return secret_kind(word.decode("latin-1")) is not None


def _attached_value(flag: bytes) -> bool:
    """A short flag with its value glued on (``-pS3cret-pw``, ``-ahunter2pass``): one dash and
    a digit in the "name". Secret options named with one dash (``-storepass``, ``-pw``,
    ``-passin``) have none."""
    return not flag.startswith(b"--") and any(0x30 <= c <= 0x39 for c in flag)


_REPORT_WORDS = rb"(?:id|key|token|secret|access|[0-9]{1,2})"
"""The words that may follow a key word in a report line's key (``Secret ID``, ``Secret Access
Key``, ``Unseal Key 1``): a closed set, so the key rules try them cheaply wherever a key word
stands (20,000 times in a Flux server log's ``Auth disabled``)."""
_REPORT_KEY_TAIL = rb"(?:[ ]" + _REPORT_WORDS + rb"){1,2}"
_REPORT_SEPARATOR = rb"[ \t]{0,32}[:=](?!=)"
"""After a key word, the rest of a report line's spaced key and its separator: looked ahead
for by the key rules' pattern, read again by :data:`_WORDS_THEN_SEP` in their handler."""
_WORDS_THEN_SEP = re.compile(rb"(" + _REPORT_KEY_TAIL + rb")" + _REPORT_SEPARATOR, re.IGNORECASE)
_VALUE_ELEMENT = re.compile(rb"[ \t\r\n]{0,256}<value>")
"""A ``<Value>`` child that holds a secret-named element's text (Windows ``unattend.xml``'s
``<Password>`` and ``<AdministratorPassword>``, on the same line or the next)."""
_REPORT_KEY = re.compile(rb"[A-Z][A-Za-z0-9]*(?: [A-Z0-9][A-Za-z0-9]*){1,3}")
"""A key of a CLI's report line: two to four capitalized words (``Secret ID``, ``API Key``,
``Unseal Key 1``, ``Initial Root Token``)."""


def _report_key(data: bytes, start: int, words_end: int) -> int | None:
    """Where a report line's spaced key begins, when the key word at ``start`` (or the words
    after it, up to ``words_end``) is part of one: the line holds nothing before it but
    indentation, and the key is capitalized words (``Secret ID    = …`` from ``nomad acl
    bootstrap``, ``API Key: …``). Prose has lower-case words (``Reset your password: …``)."""
    lead = data.rfind(b"\n", 0, start) + 1
    while lead < start and data[lead] in b" \t":
        lead += 1
    if lead == start and words_end < 0:
        return None  # the key word begins the line and no words follow it: a plain key
    end = max(words_end, start)
    while end < len(data) and data[end] in KEY_CHARS:
        end += 1
    return lead if _REPORT_KEY.fullmatch(data, lead, end) else None


def _kv(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    start = _key_start(data, match.start())
    key_end = match.end("rest")
    words = _WORDS_THEN_SEP.match(data, key_end) if match.start("ahead") >= 0 else None
    if words is not None or (data[start - 1 : start] == b" " and 0x41 <= data[start] <= 0x5A):
        report = _report_key(data, start, words.end(1) if words else -1)
        if report is None and words is not None:
            return  # "token has: x" in prose: words after a key word are a report's only
        if report is not None:
            start = report
            key_end = words.end(1) if words else key_end
    if match.groupdict().get("prose") is not None:
        if not _names_a_secret(view.low[start : match.end("rest")], rule):
            return  # "keyboard layout ...", "monkey ...": the keyword inside another word
        span = run_after(data, match.start("prose"))
        if span is not None:
            yield Hit(span[0], span[1], "high-entropy", rule.id)
        elif rule.id in HEX_PROSE_RULES:
            hexed = _hex_after(view, match.start("prose"))
            if hexed is not None:
                yield Hit(hexed[0], hexed[1], "high-entropy", rule.id)
        return
    key = _key_name(data, start, key_end)
    if words is not None:  # "Secret ID    = …": the words, then the separator they precede
        if secret_kind(key) is None:
            if "prose" in match.re.groupindex and (span := run_after(data, words.end())):
                yield Hit(span[0], span[1], "high-entropy", rule.id)  # the prose branch's take
            return
        yield from _kv_hits(
            view, start, key_end, words.end(), rule, whole_line=_owns_line(data, start)
        )
        return
    if secret_kind(key) is None and key.lower() not in BARE_KEY_NAMES:
        # what _kv_hits decides first, asked before the shape checks below: most matches
        # stand on a key that names no secret (a metric's ``api_key_configured``, a
        # listing's ``session_id``), and those checks cost more than the answer
        return
    sep = match.group("sep")
    if sep == b":" and start >= 4 and _GO_TEST_VERDICT.match(data, start - 4) is not None:
        return  # "--- PASS: TestLogin (0.01s)": go test's verdict names a test, not a password
    if sep == b":" and start >= 7 and _MYSQL_USING.match(data, start - 7) is not None:
        return  # MySQL's "Access denied ... (using password: YES)": whether one was sent
    subscript = False
    if sep is not None:
        if sep[0] == 0x28:
            sep = b"="  # password (string) = "...": a typed dump's type note, then its "="
        elif b"]" in match.group():
            subscript = True  # the pattern lets a "]" stand only between a key and its "="
    if (subscript or sep == b"->") and not code_shape_holds(
        data, match, start, subscript=subscript
    ):
        return  # a "]" that closes no subscript, a Markdown link label, an arrow in a chain
    if sep is None and data[start : start + 1] != b"-":
        return  # "--password value" is a flag; "split-pw-64 tail" is not
    if sep is None and _attached_value(data[start:key_end]):
        return  # "sshpass -pS3cret-pw ssh": the flag's value, not a key named "...pw"
    if match.group("item") is not None and not _BLOCK_ITEM.fullmatch(
        data, data.rfind(b"\n", 0, start) + 1, start
    ):
        return  # the value on the next line is a list item: so must the flag be
    if sep == b">" and (start == 0 or data[start - 1] != 0x3C) and not _keyed_element(view, start):
        return  # only <password>value</password> and <entry key="password">value</entry>
    if sep == b"=" and view.low[start : match.end()] == b"key=":
        yield from _xml_pair(view, match.end(), rule)
        return
    if sep in (b":", b"=") and _ends_its_string(data, start, key_end, match.end()):
        return  # read -p "Token: " token: a prompt or a label, with no value in it
    value_pos = match.end()
    if sep == b">" and (inner := _VALUE_ELEMENT.match(view.low, value_pos)) is not None:
        value_pos = inner.end()  # Windows unattend.xml: <Password><Value>…</Value><PlainText>
    elif (
        sep == b":"
        and data[value_pos : value_pos + 1] == b":"
        and data[value_pos + 1 : value_pos + 2] in (b" ", b"\t")
    ):
        value_pos += 1  # LDIF: "userPassword:: <base64>", the value base64-encoded
    if sep == b"=>" and subscript:
        value_pos = var_dump_value(data, value_pos)  # ["password"]=>\n  string(8) "..."
    elif sep == b":" and (note := ANNOTATION.match(view.low, value_pos)) is not None:
        value_pos = note.end()  # password: str = "...": the type names no secret
    yield from _kv_hits(
        view,
        start,
        key_end,
        value_pos,
        rule,
        next_line=sep not in (None, b">", b"->"),
        whole_line=sep in (b"=", b":", b":=") and _owns_line(data, start),
        element=sep == b">",
        assignment=_ASSIGNMENT.fullmatch(data, start, match.end()) is not None,
        in_structure=sep == b"->" or subscript,
    )


_TOKEN_KINDS = frozenset({"token", "bearer-token", "session-token", "api-key"})
"""Kinds whose values are generated, never a plain word: after an error's label, a word is the
error's text. Not passwords: ``wrong password: hunter`` may print the password tried."""
_ERROR_LABEL = re.compile(
    rb"(?:invalid|expired|missing|malformed|bad|unknown|revoked|rejected)[ \t]+", re.IGNORECASE
)


def _error_label(data: bytes, key_start: int) -> bool:
    """Whether the key is named by an error's adjective just before it (``invalid token``)."""
    line_start = data.rfind(b"\n", max(0, key_start - 24), key_start) + 1
    words = data[max(line_start, key_start - 24) : key_start]
    return any(m.end() == len(words) for m in _ERROR_LABEL.finditer(words))


_MYSQL_USING = re.compile(rb"\(using password: (?:YES|NO)\)")
"""MySQL's access-denied error says whether the client sent a password, not which."""
_GO_TEST_VERDICT = re.compile(rb"--- PASS: [^ \t\r\n]+ \([0-9]+(?:\.[0-9]+)?s\)[ \t\r]*(?:\n|\Z)")
"""A ``go test -v`` result line, read from the ``---`` before its ``PASS`` key."""


_STRING_OPENERS = frozenset(b" \t=([{,:")
"""What stands before a quote that opens a string (``-p "...``, ``msg="...``, ``("...``)."""
_AFTER_A_STRING = frozenset({b"", b" ", b"\t", b"\r", b"\n", b",", b";", b")", b"]", b"}"})
"""What follows a quote that closes a string; a quote that opens a value has the value."""
STRING_LOOKBACK = 512
"""How far before a key the quote that opens the string it stands in is looked for."""


def _ends_its_string(data: bytes, key_start: int, key_end: int, value_pos: int) -> bool:
    """Whether the quote after a key's separator closes a string the key stands in.

    ``read -p "Token: " token`` and ``printf 'Password: '`` hold a key at the end of a
    quoted prompt: the quote after ``Token: `` ends the string, it opens no value, and
    reading one from there took the words between this quote and the next, on the next
    line too (and a key inside a base64 string, ``…PwQ="``, took the JSON after it). The
    key is in a string when it is not quoted itself (``"token": "x"`` is), the nearest
    quote of that kind before it, on its line, opens a string (a blank, ``=``, a bracket
    or the line's start before it: not an apostrophe in ``can't``), and the quote after the
    separator is followed by what follows a string's end (a blank, the line's end, a
    comma or a closing bracket), not by a value. Judged on the few
    bytes around the key, never by counting quotes from a line's start: a minified
    megabyte is one line, read a window at a time.
    """
    while value_pos < len(data) and data[value_pos] in b" \t":
        value_pos += 1
    quote = data[value_pos : value_pos + 1]
    if quote not in (b'"', b"'") or data[value_pos - 1 : value_pos] == b"\\":
        return False
    if data.find(quote, key_end, value_pos) >= 0:
        return False  # "token": "x": the key is quoted, the quote after it opens the value
    if data[value_pos + 1 : value_pos + 2] not in _AFTER_A_STRING:
        return False  # x=" " password="pw": a value follows the quote, so it opens one
    low = max(0, key_start - STRING_LOOKBACK)
    opener = data.rfind(quote, low, key_start)
    if opener < 0 or data.find(b"\n", opener, key_start) >= 0:
        return False
    return opener == 0 or data[opener - 1] in _STRING_OPENERS or data[opener - 1] == 0x0A


def kv_rule(
    keyword: str,
    kind: str,
    examples: tuple[tuple[str, str], ...] = (),
    decoys: tuple[str, ...] = (),
    *,
    prose: bool = False,
) -> Rule:
    """``<...keyword...><sep><value>``; a bare space separates only after ``-`` (CLI flags).

    With ``prose``, a random-looking run shortly after the keyword is taken too
    ("token is 9f8ZqA7b..."): the high-entropy fallback.
    """
    kw = re.escape(keyword.encode())
    prose_branch = rb"|(?P<prose>[^\n]{0,40}?[ \t:=])(?=[a-z0-9+/_=-]{24})" if prose else b""
    # ``rest`` and the blanks before a separator are possessive (``{m,n}+``), which finds the
    # same matches: after a shorter ``rest`` comes a byte of the name, where neither a
    # separator, a quote nor a blank can start, and the prose branch's separator (never a
    # name byte) could only be sought in a window that ends sooner. Backtracking tried every
    # branch again for each byte of "auth_service": 4 ms per MiB of a Flux server log that
    # logs "Auth disabled" on every request, a fifth of its pass one.
    pattern = (
        kw + rb"(?:(?<=-" + kw + rb")(?P<cli>))?(?P<rest>[a-z0-9_.-]{0,48}+)"
        rb"(?:(?:\\*[\"']\]?|&quot;|\\u0022|\])?[ \t]{0,32}+(?P<sep>=>|:=|->|\|\|=|[:=](?!=)|>"
        rb"|\((?P<typed>[a-z*\[][a-z0-9_.:<>*\[\]]{0,39})\)[ \t]{0,4}+=(?!=))"
        rb"|(?(cli)(?:[ \t\0]+(?=[^ \t\r\n\0-]|-[^ \t\r\n\0-]{5})"
        rb"|\\*[\"'](?:,[ \t]*|[ \t]+)(?=\\*[\"'](?:[^\"'\\ \t\r\n-]|-[^\"'\\ \t\r\n-]{5}))"
        rb"|(?P<item>[\"']?[ \t]*\r?\n[ \t]*-[ \t]+)"
        rb"(?=[\"']?(?:[^\"' \t\r\n#-]|-[^\"' \t\r\n-]{5})))"
        rb"|(?!))"
        rb"|(?P<ahead>(?=" + _REPORT_KEY_TAIL + _REPORT_SEPARATOR + rb"))" + prose_branch + rb")"
    )
    return Rule(
        f"kv-{keyword.strip('-')}",
        kind,
        "key-value",
        f"Value of a key, flag or header whose name contains '{keyword}'.",
        pattern,
        lower=True,
        handler=_kv,
        examples=examples,
        decoys=decoys,
    )


def _netrc(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``.netrc``: ``machine h login u password p`` (tokens, possibly over several lines)."""
    low = view.low
    end = min(len(low), match.end() + 1024)
    nxt = low.find(b"machine ", match.end(), end)
    end = nxt if nxt >= 0 else end
    for found in re.finditer(
        rb"(?:^|\s)(?:password|passwd|account)[ \t]+(\S+)", low[match.end() : end]
    ):
        start, stop = match.end() + found.start(1), match.end() + found.end(1)
        if not is_placeholder(view.data[start:stop]):
            yield Hit(start, stop, rule.kind, rule.id)


def _xml_name_value(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """Hadoop's ``<property><name>fs.s3a.secret.key</name><value>X</value></property>``
    (core-site.xml, hive-site.xml, hbase-site.xml), a ``<key>`` of a map entry, or the
    ``name`` attribute of a Spring bean property or a .NET setting: the ``<value>`` after a
    secret-named name."""
    group = "n" if match.start("n") >= 0 else "a"
    name_start, name_end = match.span(group)
    yield from _kv_hits(
        view, name_start, name_end, match.end(), rule, next_line=False, element=True
    )


def _name_value(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``{"name": "DB_PASSWORD", "value": "..."}`` and ``- name: X\\n  value: Y``."""
    name_start, name_end = match.span("n")
    yield from _kv_hits(view, name_start, name_end, match.end(), rule, next_line=False)


_DEFINE = re.compile(rb"[\"']([A-Za-z0-9_.-]{2,80})[\"'][ \t]*,[ \t]*")


def _php_define(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``define('DB_PASSWORD', 'value');`` (PHP constants: WordPress's wp-config.php)."""
    found = _DEFINE.match(view.data, match.end())
    if found and view.data[found.end() : found.end() + 1] in (b"'", b'"'):  # not getenv(...)
        yield from _kv_hits(view, found.start(1), found.end(1), found.end(), rule, next_line=False)


_KEYED_ELEMENT = re.compile(rb"<[a-z][a-z0-9_.:-]*[ \t]+(?:key|name)=[\"']")


def _keyed_element(view: View, key_start: int) -> bool:
    """The key is an element's ``key``/``name`` attribute and its text the value: Java's XML
    properties (``<entry key="db.password">value</entry>``)."""
    found = _KEYED_ELEMENT.search(view.low, max(0, key_start - 64), key_start)
    return found is not None and found.end() == key_start


_XML_PAIR = re.compile(rb"[\"']([A-Za-z0-9_.:-]{2,80})[\"'][ \t]+value=")


def _xml_pair(view: View, pos: int, rule: Rule) -> Iterable[Hit]:
    """``<add key="ClearTextPassword" value="..."/>`` (NuGet, .NET app settings)."""
    found = _XML_PAIR.match(view.data, pos)
    if found:
        yield from _kv_hits(view, found.start(1), found.end(1), found.end(), rule, next_line=False)


KV_RULES: tuple[Rule, ...] = (
    kv_rule(
        "pass",
        "password",
        examples=(
            ("db_password=hunter2", "hunter2"),
            ("<password>correct horse, battery</password>", "correct horse, battery"),
            ('{"password": "P@ss w0rd!#"}', "P@ss w0rd!#"),
            ("--password hunter2", "hunter2"),
            ("PGPASSWORD=Winter2026!", "Winter2026!"),
            ("<password>p4ss</password>", "p4ss"),
            ('<entry key="db.password">s3cret-x</entry>', "s3cret-x"),
            ("<password><![CDATA[c<d@ta]]></password>", "c<d@ta"),
            ("password: >-\n  folded-secret\n", "folded-secret"),
            ('{"password":"$YMQd5JQHOz0"}', "$YMQd5JQHOz0"),
            ("$db['default']['password'] = 'Php-s3cret';", "Php-s3cret"),
            ("declare -A db=([password]=Bash-s3cret)", "Bash-s3cret"),
            ('password (string) = "Dump-s3cret"', "Dump-s3cret"),
            ("Map(user -> u, password -> Arrow-s3cret)", "Arrow-s3cret"),
            ("--- PASS: Go-s3cret (said anything else)", "Go-s3cret"),
        ),
        decoys=(
            "$cfg['password_min_length'] = 8;",
            "if password == other:",
            "Settings -> Password -> Reset",
            "[password]: https://docs.example.com/pw",
            "passthrough=true",
            "password=",
            "password: ${DB_PASSWORD}",
            "password=$DB_PASSWORD",
            "password_file=/etc/pw",
            '<entry key="password_file">/etc/pw</entry>',
            "password reset email sent",
            "tests passed=12",
            "--- PASS: TestLogin (0.01s)",
            "    --- PASS: TestAuth/valid_token (0.00s)",
            "ERROR 1045 (28000): Access denied for user 'etl'@'10.0.0.5' (using password: YES)",
        ),
        prose=True,
    ),
    kv_rule(
        "secret",
        "secret",
        examples=(
            ("client_secret: s3cr3t-value", "s3cr3t-value"),
            ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG", "wJalrXUtnFEMI/K7MDENG"),
            (
                '"SecretID": "45a3bd52-07c7-47a4-52fd-0745e0cfe967"',
                "45a3bd52-07c7-47a4-52fd-0745e0cfe967",
            ),
        ),
        decoys=(
            "secretary=bob",
            "secret rotation completed",
            "secret_name: db-creds",
            '"AccessorID": "6a1253d2-1785-24fd-91c2-f8e78c745511"',
        ),
        prose=True,
    ),
    kv_rule(
        "token",
        "token",
        examples=(
            ("FLUX_WORKERS__BOOTSTRAP_TOKEN=Zx81kQ", "Zx81kQ"),
            ("session_token: 0f8a9b7c6d5e4f3a2b1c0d9e8f7a6b5c", "0f8a9b7c6d5e4f3a2b1c0d9e8f7a6b5c"),
            ("--token abc123def456", "abc123def456"),
            ("token:abc123def456,next=1", "abc123def456"),
            ("the token is 9f8ZqA7bC6dE5fG4hI3jK2lM1nO0pQ here", "9f8ZqA7bC6dE5fG4hI3jK2lM1nO0pQ"),
            ("invalid token: Zq81xLmN0pQ", "Zq81xLmN0pQ"),
        ),
        decoys=(
            "max_tokens=4096",
            "token refresh scheduled",
            "tokenizer=bpe",
            "token_ttl=3600",
            "ERROR invalid token: Signature has expired",
        ),
        prose=True,
    ),
    kv_rule(
        "key",
        "secret-key",
        examples=(
            ("x-api-key: 9f8e7d6c5b4a", "9f8e7d6c5b4a"),
            ('"sharedKey": "abc+/def=="', "abc+/def=="),
            ('<add key="ClearTextPassword" value="nuget-p4ss" />', "nuget-p4ss"),
            ("LYFTDATA_AUTO_ENROLLMENT_KEY=ab12cd34", "ab12cd34"),
        ),
        decoys=("cache_key=abc", "keyboard=us", "monkey=see", "key: value"),
        prose=True,
    ),
    kv_rule(
        "auth",
        "auth",
        examples=(
            ("Authorization: Bearer abcdefghij0123456789XYZ", "abcdefghij0123456789XYZ"),
            ('"auth": "dXNlcjpzM2NyM3Q="', "dXNlcjpzM2NyM3Q="),
            ("Proxy-Authorization: Basic dXNlcjpzM2NyM3Q=", "dXNlcjpzM2NyM3Q="),
            (
                'Authorization: Digest username="u", nonce="n1", '
                'response="6629fae49393a05397450978507c4ef1"',
                "6629fae49393a05397450978507c4ef1",
            ),
        ),
        decoys=("authorName=bob", "auth=ok", "auth_method: oidc"),
    ),
    kv_rule(
        "cred",
        "credential",
        examples=(("credentials=u1:p2-secret", "u1:p2-secret"),),
        decoys=("credential_id=42",),
        prose=True,
    ),
    kv_rule(
        "session",
        "session-token",
        examples=(
            ("sessionid=8f14e45fceea167a5a36dedd4bea2543", "8f14e45fceea167a5a36dedd4bea2543"),
            ("JSESSIONID=6A1F0C8E2B9D4F7A3C5E1B8D0F2A4C6E", "6A1F0C8E2B9D4F7A3C5E1B8D0F2A4C6E"),
        ),
        decoys=("session_count=3",),
    ),
    kv_rule(
        "sessid",
        "cookie",
        examples=(("PHPSESSID=9c1b5a0e4d3f2a1b8c7d6e5f4a", "9c1b5a0e4d3f2a1b8c7d6e5f4a"),),
        decoys=("sessid_len=26",),
    ),
    kv_rule(
        "webhook",
        "webhook-url",
        examples=(("NOTIFY_WEBHOOK_URLS=https://h.example/x/y", "https://h.example/x/y"),),
    ),
    kv_rule("psk", "psk", examples=(("LYFTDATA_JWT_PSK=deadbeefcafe", "deadbeefcafe"),)),
    kv_rule(
        "pw",
        "password",
        examples=(('{"pw": "tiny-pw-1"}', "tiny-pw-1"), ("Pwd={x}}y};", "x}}y")),
        decoys=("pwm=3", "PWD=/home/alice"),
    ),
)
