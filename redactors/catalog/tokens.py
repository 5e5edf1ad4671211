"""Known-format credentials: fixed prefixes, lengths and alphabets (redaction.md §1.7 rows 1-4, 7).

Each pattern starts with its literal prefix so ``re`` can skip ahead at
memory speed; boundaries are checked after the literal (``left_boundary``
or a handler), never with a leading ``\\b``. Examples are synthetic values
with the right prefix, length and alphabet.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable
from itertools import filterfalse

from ..decode import PROVE_MIN
from ..rules import ALNUM, Hit, MatchHandler, Rule, View, runs_past_view
from .glued import glued_hit

A36 = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)
AGE_KEY = "AGE-SECRET-KEY-1" + ("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2)[:58]


def _prefixed(prefixes: dict[str, str], default: str) -> MatchHandler:
    """Handler: kind chosen by the matched prefix; left boundary checked, or a distinctive
    prefix found glued to the word before it (:mod:`.glued`): the longest of the rule's
    literals and ``prefixes`` the token starts with (``sk-proj-``, not the rule's ``sk-``)."""

    known = tuple(p.encode() for p in prefixes)

    def handler(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
        start, end = match.span()
        text = match.group().decode("latin-1")
        kind = next((k for p, k in prefixes.items() if text.startswith(p)), default)
        found = Hit(start, end, kind, rule.id)
        if not view.left_ok(start):
            prefix = _prefix_of(rule, match.group(), known)
            glued = glued_hit(view, start, end, prefix, kind, rule.id)
            if glued is None:
                return
            found = glued
        if runs_past_view(view, end, found.start):
            return
        yield found

    handler.__qualname__ = f"prefixed:{default}"
    return handler


def _prefix_of(rule: Rule, token: bytes, known: tuple[bytes, ...] = ()) -> bytes:
    """The rule's literal prefix, or a ``known`` longer one, ``token`` starts with (the longest)."""
    literals = (*(rule.anchors or ()), *known)
    return max((a for a in literals if token.startswith(a)), key=len, default=b"")


def _stripe(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    start = match.start() - 1
    if start < 0 or view.data[start] not in b"sr":
        return
    if view.left_ok(start):
        yield Hit(start, match.end(), rule.kind, rule.id)
        return
    prefix = view.data[start : start + 1] + _prefix_of(rule, match.group())
    glued = glued_hit(view, start, match.end(), prefix, rule.kind, rule.id)
    if glued is not None:
        yield glued


def _azure_ad(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    start = match.start() - 4
    head = view.data[max(start, 0) : match.start()]
    if start < 0 or not re.fullmatch(rb"[A-Za-z0-9_~.-]{3}[0-9]", head) or not view.left_ok(start):
        return
    yield Hit(start, match.end(), rule.kind, rule.id)


_TFC_HEAD = re.compile(rb"[A-Za-z0-9]{14}")


def _terraform_cloud(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """A Terraform Cloud / Enterprise API token is 14 letters and digits, ``.atlasv1.``, then
    its body: the rule is anchored on the literal in the middle, and the 14 before it are
    checked here."""
    start = match.start() - 14
    if start < 0 or not _TFC_HEAD.fullmatch(view.data, start, match.start()):
        return
    if not view.left_ok(start):
        return
    if runs_past_view(view, match.end(), start):
        return
    yield Hit(start, match.end(), rule.kind, rule.id)


_HEADER_KEYS = frozenset({"alg", "typ", "enc", "kid"})
_HEADER_KEY_TEXTS = (b'"alg"', b'"typ"', b'"enc"', b'"kid"')


def _jwt_header(part: bytes) -> bool:
    """Whether ``part`` is base64url of a JSON object with a JWT/JWE header key.

    Decoded, it starts with ``{"`` (``eyJ``), so ``json.loads`` reads it as UTF-8,
    where such a key is spelled out or escaped: text with neither (tracing baggage,
    a cursor with dots) is refused without parsing.
    """
    try:
        raw = base64.urlsafe_b64decode(part + b"=" * (-len(part) % 4))
    except (binascii.Error, ValueError):
        return False
    if b"\\" not in raw and not any(key in raw for key in _HEADER_KEY_TEXTS):
        return False
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(value, dict) and not _HEADER_KEYS.isdisjoint(value)


def _jwt(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """A JWT/JWE (its header is verified); otherwise base64 of JSON, decoded and rescanned.

    ``eyJ`` is base64 of ``{"``: one pass finds both, and a Docker
    ``config.json`` or an API payload logged in base64 is searched for secrets.
    """
    start, end = match.span()
    if not view.left_ok(start, ALNUM | frozenset(b"-_+/")):
        return
    if runs_past_view(view, end, start):
        return
    text = view.data[start:end]
    if text.count(b".") in (2, 4) and _jwt_header(text[: text.index(b".")]):
        yield Hit(start, end, rule.kind, rule.id)
        return
    if view.rescan is None:
        return
    if b"." not in text:
        yield from view.rescan_block(start, end)
        return
    # JWT-shaped but no JOSE header (tracing baggage, a signed session cookie): its parts
    # that are base64 of JSON are decoded and rescanned as a cursor is, each replaced whole
    # if it holds a secret; the others (a signature, a timestamp) are kept as they are
    at = start
    for part in text.split(b"."):
        if part.startswith(b"eyJ"):
            yield from view.rescan_block(at, at + len(part))
        at += len(part) + 1


def unproven_cursors(view: View, starts: list[int]) -> list[int]:
    """The ``jwt`` rule's starts without the cursors its decoders proved harmless for this
    view (:meth:`~redactors.decode.Decoders.proven_starts`): there the handler would decode
    nothing new and yield nothing. A start inside a skipped cursor is tried again, and its
    handler refuses it (no boundary before it), as the match it sits in would have."""
    if view.rescan is None or len(starts) < PROVE_MIN:
        return starts
    decoders, depth = view.rescan
    if depth or decoders.prover is None:
        return starts
    skip = decoders.proven_starts(view)
    return list(filterfalse(skip.__contains__, starts)) if skip else starts


def _after_paren(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """LyftData prints ``API-KEY(name;role;scope) F4177-AM9PZIEW7MPI7IL28ERE``."""
    close = view.data.find(b")", match.end(), match.end() + 200)
    if close < 0:
        return
    found = re.compile(rb"[ \t]*([A-Z0-9]{3,10}-[A-Z0-9]{8,64})").match(view.data, close + 1)
    if found:
        yield Hit(found.start(1), found.end(1), rule.kind, rule.id)


_CRYPT = rb"[./0-9A-Za-z]"
TOKEN_RULES: tuple[Rule, ...] = (
    Rule(
        "telegram-bot-token",
        "telegram-bot-token",
        "chat",
        "Telegram bot API tokens in the Bot API's URLs (api.telegram.org/bot..., also as"
        " urllib3's debug log parts host and request line); a bare one"
        " under a key name is found by the key rules.",
        rb"telegram\.org(?:/|:443 \"[A-Z]{3,7} /)(?:file/)?bot([0-9]{5,16}:[A-Za-z0-9_-]{35})"
        rb"(?![A-Za-z0-9_-])",  # urllib3's DEBUG line parts the host from the request line
        lower=False,
        group=1,
        examples=(
            (
                "GET https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq/getMe",
                "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq",
            ),
            (
                'https://api.telegram.org:443 "POST /bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALD'
                'sawq/sendMessage HTTP/1.1" 200 None',
                "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq",
            ),
        ),
        decoys=("https://core.telegram.org/bots/api", "api.telegram.org/bot123:short/getMe"),
    ),
    Rule(
        "password-hash",
        "password-hash",
        "credential",
        "crypt(3) password hashes (shadow, htpasswd, Dovecot, app databases): MD5, SHA-256/512,"
        " bcrypt, yescrypt, Argon2. A hash is cracked offline, so it is a credential.",
        rb"\$(?:(?:1|apr1)\$" + _CRYPT + rb"{1,8}\$" + _CRYPT + rb"{22}"
        rb"|[56]\$(?:rounds=[0-9]{1,9}\$)?" + _CRYPT + rb"{1,16}\$" + _CRYPT + rb"{43,86}"
        rb"|2[abxy]?\$[0-9]{2}\$" + _CRYPT + rb"{53}"
        rb"|y\$" + _CRYPT + rb"{1,16}\$" + _CRYPT + rb"{1,64}\$" + _CRYPT + rb"{43}"
        rb"|argon2(?:id|i|d)\$v=[0-9]{1,3}\$m=[0-9]{1,9},t=[0-9]{1,9},p=[0-9]{1,3}"
        rb"\$[A-Za-z0-9+/]{11,64}\$[A-Za-z0-9+/]{16,128})(?![./0-9A-Za-z+])",
        examples=(
            (
                "deploy:$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/",
                "$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/",
            ),
            (
                "root:$6$Zq8rT5vW$" + "Kx9wLm2pQ7Rt5vW8sN3mL" * 4 + "ab:19000:0:99999:7:::",
                "$6$Zq8rT5vW$" + "Kx9wLm2pQ7Rt5vW8sN3mL" * 4 + "ab",
            ),
            (
                '"password_hash": "$2b$12$'
                + "R9h/cIPz0gi.URNNX3kh2O"
                + "PST9/PgBkqquzi.Ss7KIUgO2t0jWMUW"
                + '"',
                "$2b$12$" + "R9h/cIPz0gi.URNNX3kh2O" + "PST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
            ),
            (
                "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0$"
                + "Zq8rT5vWKx9wLm2pQ7Rt5vW8sN3mL12",
                "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0$"
                + "Zq8rT5vWKx9wLm2pQ7Rt5vW8sN3mL12",
            ),
        ),
        decoys=("echo $1$2 costs $5$", "root:*:19000:0:99999:7:::", "deploy:!:19000::::::"),
    ),
    Rule(
        "a-prefixed-keys",
        "aws-access-key-id",
        "cloud",
        "AWS access key ids (AKIA, ASIA, ABIA, ACCA, A3T), Google API keys (AIza) and age"
        " identities.",
        rb"A(?:(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z2-7]{16}(?![A-Za-z0-9])"
        rb"|Iza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"
        rb"|GE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})",
        handler=_prefixed({"AIza": "gcp-api-key", "AGE-": "age-secret-key"}, "aws-access-key-id"),
        examples=(
            ("aws_access_key_id=AKIAQWERTYUIOPASDF23", "AKIAQWERTYUIOPASDF23"),
            ("creds ASIAZXCVBNMASDFGHJ45 expire", "ASIAZXCVBNMASDFGHJ45"),
            ("old key A3TXZXCVBNMASDFGHJ45 rotated", "A3TXZXCVBNMASDFGHJ45"),
            (
                "key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
                "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
            ),
            (AGE_KEY, AGE_KEY),
        ),
        decoys=("AKIA is a prefix", "XAKIAQWERTYUIOPASDF23X"),
    ),
    Rule(
        "azure-ad-client-secret",
        "azure-client-secret",
        "cloud",
        "Azure AD application secret.",
        rb"Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
        handler=_azure_ad,
        examples=(
            (
                "secret Abc8Q~dEf3gHi7jKl1mNo5pQr9sTu3vWx7yZa1bC",
                "Abc8Q~dEf3gHi7jKl1mNo5pQr9sTu3vWx7yZa1bC",
            ),
        ),
    ),
    Rule(
        "terraform-cloud-token",
        "terraform-token",
        "cloud",
        "Terraform Cloud / Enterprise API tokens (14 characters, .atlasv1., the body).",
        rb"\.atlasv1\.[A-Za-z0-9_=-]{60,70}(?![A-Za-z0-9_=-])",
        handler=_terraform_cloud,
        examples=(
            (
                "TF_TOKEN_app_terraform_io: kL9mN2pQ4rS6tU.atlasv1." + "aB3dE5fG7h" * 6 + "x1",
                "kL9mN2pQ4rS6tU.atlasv1." + "aB3dE5fG7h" * 6 + "x1",
            ),
            (
                "uploaded with s7d8f9g0h1j2k3.atlasv1." + "Zx9Yw8Vu7T" * 6 + "s6Q",
                "s7d8f9g0h1j2k3.atlasv1." + "Zx9Yw8Vu7T" * 6 + "s6Q",
            ),
        ),
        decoys=(
            "docs mention .atlasv1. tokens",
            "x.atlasv1." + "a" * 64,
            "toolongprefix12345.atlasv1." + "aB3dE5fG7h" * 6 + "x1",
        ),
    ),
    Rule(
        "github-token",
        "github-token",
        "vcs",
        "GitHub personal, OAuth, app and refresh tokens.",
        rb"gh[pousr]_[A-Za-z0-9]{36,251}(?![A-Za-z0-9])",
        handler=_prefixed({}, "github-token"),
        examples=(
            ("token ghp_" + A36, "ghp_" + A36),
            ("https://x:ghs_" + A36 + "@github.com", "ghs_" + A36),
        ),
        decoys=("ghp_short",),
    ),
    Rule(
        "github-fine-grained-pat",
        "github-token",
        "vcs",
        "GitHub fine-grained personal access token.",
        rb"github_pat_[A-Za-z0-9_]{50,255}",
        handler=_prefixed({}, "github-token"),
        examples=(
            (
                "github_pat_11ABCDEFG0" + "a1B2c3D4e5" * 7 + "xY",
                "github_pat_11ABCDEFG0" + "a1B2c3D4e5" * 7 + "xY",
            ),
        ),
    ),
    Rule(
        "gitlab-grafana-token",
        "gitlab-token",
        "vcs",
        "GitLab tokens (glpat-, glrt-, ...) and Grafana service tokens.",
        rb"gl(?:pat|dt|ptt|rt|cbt|soat|ft|imt|oas|agent|rtr)-[A-Za-z0-9_-]{20,}|glsa_[A-Za-z0-9_]{32,}|glc_[A-Za-z0-9+/=_-]{32,}",
        handler=_prefixed({"glsa_": "grafana-token", "glc_": "grafana-token"}, "gitlab-token"),
        examples=(
            ("PRIVATE-TOKEN: glpat-Ab3dEf6hIj9kLm2nOp5q", "glpat-Ab3dEf6hIj9kLm2nOp5q"),
            ("runner glrt-t1_Ab3dEf6hIj9kLm2nOp5q", "glrt-t1_Ab3dEf6hIj9kLm2nOp5q"),
        ),
        decoys=("glance-at-this-string-here",),
    ),
    Rule(
        "npm-token",
        "npm-token",
        "vcs",
        "npm access token.",
        rb"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])",
        left_boundary=True,
        examples=(("//registry.npmjs.org/:_authToken=npm_" + A36, "npm_" + A36),),
    ),
    Rule(
        "pypi-token",
        "pypi-token",
        "vcs",
        "PyPI upload token.",
        rb"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
        examples=(
            ("password = pypi-AgEIcHlwaS5vcmc" + "Ab9_" * 15, "pypi-AgEIcHlwaS5vcmc" + "Ab9_" * 15),
        ),
    ),
    Rule(
        "slack-token",
        "slack-token",
        "saas",
        "Slack bot, user, config and app-level tokens.",
        # gitleaks slack-*-token / trufflehog slack: a digit run after the type, so
        # "xoxo-indieweb" and "xoxb-abcdef-abcdef" are not tokens
        rb"x(?:ox[abposr]-(?:[0-9]-)?[0-9]{8,14}-[A-Za-z0-9-]{6,}"
        rb"|ox[ar]-[0-9]-[A-Za-z0-9]{8,48}"
        rb"|oxe\.xox[bp]-[0-9]-[A-Za-z0-9]{100,}|oxe-[0-9]-[A-Za-z0-9]{100,}"
        rb"|app-[0-9]-[A-Za-z0-9]+-[0-9]+-[A-Za-z0-9]+)(?![A-Za-z0-9-])",
        handler=_prefixed({}, "slack-token"),
        examples=(
            (
                "SLACK=xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUv",
                "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUv",
            ),
            (
                "xapp-1-A0123456789-1234567890123-abcdef0123456789",
                "xapp-1-A0123456789-1234567890123-abcdef0123456789",
            ),
            (
                "xoxs-416843729158-132049654-5609968301-e708ba56e1",
                "xoxs-416843729158-132049654-5609968301-e708ba56e1",
            ),
        ),
        decoys=(
            "https://example.org/images/2018-250-xoxo-indieweb-1.jpg",
            "xoxb-abcdef-abcdef",
            "xoxb-12345-abcd234",
        ),
    ),
    Rule(
        "stripe-key",
        "stripe-key",
        "saas",
        "Stripe secret and restricted keys (live and test).",
        rb"k_(?:live|test|prod)_[A-Za-z0-9]{10,99}(?![A-Za-z0-9])",
        handler=_stripe,
        examples=(
            (
                "Stripe.api_key='sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc'",
                "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
            ),
            ("rk_test_" + "51AbCdEfGhIjKlMnOpQrStUv", "rk_test_51AbCdEfGhIjKlMnOpQrStUv"),
        ),
        decoys=("pk_live_publishablekey0123456789ab",),
    ),
    Rule(
        "stripe-webhook-secret",
        "stripe-key",
        "saas",
        "Stripe webhook signing secret.",
        rb"whsec_[A-Za-z0-9]{32,}",
        handler=_prefixed({}, "stripe-key"),
        examples=(("whsec_" + "AbCd0123" * 4, "whsec_" + "AbCd0123" * 4),),
    ),
    Rule(
        "sendgrid-key",
        "sendgrid-key",
        "saas",
        "SendGrid API key.",
        rb"SG\.[A-Za-z0-9_=-]{16,32}\.[A-Za-z0-9_=-]{30,64}(?![A-Za-z0-9_=-])",
        left_boundary=True,
        examples=(
            (
                "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",
                "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",
            ),
        ),
    ),
    Rule(
        "twilio-api-key",
        "twilio-key",
        "saas",
        "Twilio API key SID.",
        rb"SK[0-9a-fA-F]{32}(?![0-9a-fA-F])",
        left_boundary=True,
        examples=(("TWILIO_API_KEY=SK" + "0123456789abcdef" * 2, "SK" + "0123456789abcdef" * 2),),
        decoys=("TASKS" + "0" * 10,),
    ),
    Rule(
        "ai-api-key",
        "openai-key",
        "saas",
        "OpenAI (sk-proj-, legacy T3BlbkFJ) and Anthropic (sk-ant-) keys.",
        rb"sk-(?:ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{80,}|(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})",
        handler=_prefixed(
            {key: "openai-key" for key in ("sk-proj-", "sk-svcacct-", "sk-admin-")}
            | {"sk-ant-": "anthropic-key"},
            "openai-key",
        ),
        examples=(
            ("OPENAI_API_KEY=sk-proj-" + "Ab1_Cd2-" * 8, "sk-proj-" + "Ab1_Cd2-" * 8),
            ("sk-ant-api03-" + "Ab1_Cd2-Ef" * 9, "sk-ant-api03-" + "Ab1_Cd2-Ef" * 9),
            (
                "sk-AbCdEfGhIj0123456789T3BlbkFJAbCdEfGhIj0123456789",
                "sk-AbCdEfGhIj0123456789T3BlbkFJAbCdEfGhIj0123456789",
            ),
        ),
        decoys=("disk-usage-report",),
    ),
    Rule(
        "huggingface-token",
        "huggingface-token",
        "saas",
        "Hugging Face access token.",
        rb"hf_[A-Za-z]{34}(?![A-Za-z0-9])",
        left_boundary=True,
        examples=(("HF_TOKEN=hf_" + "AbCdEfGhIj" * 3 + "KlMn", "hf_" + "AbCdEfGhIj" * 3 + "KlMn"),),
        decoys=("- (id)hf_requiredCharacteristicTypesForDisplayMetadata;",),
    ),
    Rule(
        "vault-token",
        "vault-token",
        "saas",
        "HashiCorp Vault service, batch and recovery tokens.",
        rb"hv[sbr]\.[A-Za-z0-9_-]{24,}",
        left_boundary=True,
        examples=(
            ("VAULT_TOKEN=hvs.CAESIAbCdEfGhIjKlMnOpQrStUvWx", "hvs.CAESIAbCdEfGhIjKlMnOpQrStUvWx"),
        ),
    ),
    Rule(
        "jwt",
        "jwt",
        "token",
        "JSON Web Token / JWE (signed, unsigned or encrypted), header verified.",
        rb"eyJ[A-Za-z0-9_+/-]{4,}"
        rb"(?:\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+)?|={0,2})",
        handler=_jwt,
        narrow=unproven_cursors,
        examples=(
            (
                "Bearer " + JWT,
                JWT,
            ),
            (
                "unsigned eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
                "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
            ),
        ),
        decoys=("eyJustAWord.here.too",),
    ),
    Rule(
        "lyftdata-api-key",
        "lyftdata-api-key",
        "product",
        "LyftData API key, as the CLI prints it after API-KEY(name;role;scope).",
        rb"api-key\(",
        lower=True,
        handler=_after_paren,
        examples=(
            (
                "API-KEY(worker1;api_read;default) F4177-AM9PZIEW7MPI7IL28ERE",
                "F4177-AM9PZIEW7MPI7IL28ERE",
            ),
        ),
    ),
)
