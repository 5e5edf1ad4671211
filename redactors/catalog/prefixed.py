"""Vendor tokens with a fixed prefix, recognised wherever they stand (prose, paths, file names).

The formats are facts published in the public rule catalogs of gitleaks
(``cmd/generate/config/rules/*.go``) and trufflehog (``pkg/detectors/*``):
a literal prefix, then a body of a known alphabet and length. The rules are
written here from those facts, literal first (the Aho-Corasick index of
:mod:`redactors.anchors` finds every prefix in one pass; a rule's regex only
runs where its prefix occurs), and each must sit at a token boundary: no
letter or digit before it (``2018-250-xoxo-indieweb-1.jpg`` is a file name,
not a Slack token) and none of its own alphabet after it (so a longer
identifier that merely starts like a token is left alone).

A row is ``(prefix, body, kind, strict)``. The body is a sequence of pieces,
each a literal or ``(alphabet, min, max)``; the regex and the rule's
synthetic example are both built from it, so they cannot disagree. ``strict``
rows have a prefix that is also an ordinary word part (``key-``, ``pat.``):
they also refuse ``_``, ``-`` and ``.`` before the prefix and need a digit in
the body. A distinctive prefix (:mod:`.glued`) is found glued to a word before it too.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence

from ..rules import ALNUM, Hit, Rule, View, runs_past_view
from .glued import distinctive, glued_hit

ALPHABETS = {
    "hex": "0123456789abcdef",
    "HEX": "0123456789ABCDEF",
    "Hex": "0123456789abcdefABCDEF",
    "lower": "abcdefghijklmnopqrstuvwxyz0123456789",
    "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "alnum": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "alpha": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "word": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_",
    "urlsafe": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
    "b64": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    "b64eq": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=",
    "tok": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_=-",
    "tokdot": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_=.-",
    "b64tok": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-",
    "digit": "0123456789",
}
_CLASSES = {name: "[" + re.escape(chars) + "]" for name, chars in ALPHABETS.items()}

Piece = str | tuple[str, int, int]

# fmt: off
ROWS: tuple[tuple[str, Sequence[Piece], str, bool], ...] = (
    # source control, registries, CI
    ("glffct-", (("urlsafe", 20, 20),), "gitlab-token", False),
    ("GR1348941", (("urlsafe", 20, 20),), "gitlab-token", False),
    ("rubygems_", (("hex", 48, 48),), "rubygems-token", False),
    ("CLOJARS_", (("lower", 60, 60),), "clojars-token", False),
    ("oy2", (("lower", 43, 43),), "nuget-key", False),
    ("dckr_pat_", (("urlsafe", 27, 27),), "docker-token", False),
    ("dckr_oat_", (("urlsafe", 27, 64),), "docker-token", False),
    ("sgp_", (("Hex", 16, 16), "_", ("Hex", 40, 40)), "sourcegraph-token", False),
    ("sgp_local_", (("Hex", 40, 40),), "sourcegraph-token", False),
    ("sgp_", (("Hex", 40, 40),), "sourcegraph-token", False),
    ("API-", (("upper", 26, 26),), "octopus-deploy-key", True),
    ("AKCp", (("alnum", 69, 69),), "artifactory-token", False),
    ("cmVmdGtuOjAxOj", (("alnum", 40, 80),), "artifactory-token", False),
    # cloud and infrastructure
    ("ABSK", (("b64", 109, 269), ("b64eq", 0, 2)), "aws-bedrock-key", False),
    ("bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t", (("tokdot", 0, 2000),), "aws-bedrock-key",
     False),
    ("LTAI", (("alnum", 20, 20),), "alibaba-key", False),
    ("dop_v1_", (("hex", 64, 64),), "digitalocean-token", False),
    ("doo_v1_", (("hex", 64, 64),), "digitalocean-token", False),
    ("dor_v1_", (("hex", 64, 64),), "digitalocean-token", False),
    ("dapi", (("hex", 32, 32),), "databricks-token", False),
    ("pul-", (("hex", 40, 40),), "pulumi-token", False),
    ("dp.pt.", (("alnum", 43, 43),), "doppler-token", False),
    ("dp.st.", (("alnum", 40, 64),), "doppler-token", False),
    ("dp.ct.", (("alnum", 40, 64),), "doppler-token", False),
    ("dp.sa.", (("alnum", 40, 64),), "doppler-token", False),
    ("fo1_", (("urlsafe", 43, 43),), "flyio-token", False),
    ("fm1a_", (("b64", 100, 4096), ("b64eq", 0, 3)), "flyio-token", False),
    ("fm1r_", (("b64", 100, 4096), ("b64eq", 0, 3)), "flyio-token", False),
    ("fm2_", (("b64", 100, 4096), ("b64eq", 0, 3)), "flyio-token", False),
    ("HRKU-AA", (("urlsafe", 58, 58),), "heroku-token", False),
    ("tk-us-", (("urlsafe", 48, 48),), "scalingo-token", False),
    ("sha256~", (("urlsafe", 43, 43),), "openshift-token", False),
    ("4b1d", (("alnum", 38, 38),), "clickhouse-key", True),
    ("tskey-", (("lower", 3, 16), "-", ("urlsafe", 16, 200)), "tailscale-key", False),
    ("pscale_tkn_", (("tokdot", 32, 64),), "planetscale-token", False),
    ("pscale_pw_", (("tokdot", 32, 64),), "planetscale-token", False),
    ("pscale_oauth_", (("tokdot", 32, 64),), "planetscale-token", False),
    ("sbp_", (("lower", 40, 40),), "supabase-token", False),
    ("nfp_", (("alnum", 36, 36),), "netlify-token", False),
    ("v1.0-", (("hex", 24, 24), "-", ("hex", 146, 146)), "cloudflare-key", False),
    ("dnkey-", (("tok", 26, 26), "-", ("tok", 52, 52)), "defined-networking-token", False),
    ("ATATT3", (("tok", 186, 186),), "atlassian-token", False),
    ("ops_eyJ", (("b64", 250, 4096), ("b64eq", 0, 3)), "1password-token", False),
    ("A3-", (("upper", 6, 6), "-", ("upper", 11, 11), "-", ("upper", 5, 5), "-", ("upper", 5, 5),
             "-", ("upper", 5, 5)), "1password-secret-key", True),
    ("A3-", (("upper", 6, 6), "-", ("upper", 6, 6), "-", ("upper", 5, 5), "-", ("upper", 5, 5),
             "-", ("upper", 5, 5), "-", ("upper", 5, 5)), "1password-secret-key", True),
    ("ya29.", (("urlsafe", 30, 2048),), "google-oauth-token", False),
    ("1//0", (("urlsafe", 30, 512),), "google-oauth-token", False),
    ("GOCSPX-", (("urlsafe", 28, 28),), "google-oauth-secret", False),
    ("AKID", (("alnum", 32, 40),), "tencent-key", False),
    # observability
    ("NRAK-", (("upper", 27, 27),), "newrelic-key", False),
    ("NRJS-", (("hex", 19, 19),), "newrelic-key", False),
    ("NRII-", (("urlsafe", 32, 32),), "newrelic-key", False),
    ("dt0c01.", (("alnum", 24, 24), ".", ("alnum", 64, 64)), "dynatrace-token", False),
    ("sntrys_eyJpYXQiO", (("b64eq", 50, 1024), "_", ("b64eq", 20, 64)), "sentry-token", False),
    ("sntryu_", (("hex", 64, 64),), "sentry-token", False),
    ("phx_", (("word", 40, 64),), "posthog-key", False),
    # collaboration, payments, e-mail, SaaS
    ("shpat_", (("Hex", 32, 32),), "shopify-token", False),
    ("shpca_", (("Hex", 32, 32),), "shopify-token", False),
    ("shppa_", (("Hex", 32, 32),), "shopify-token", False),
    ("shpss_", (("Hex", 32, 32),), "shopify-token", False),
    ("shippo_live_", (("Hex", 40, 40),), "shippo-token", False),
    ("shippo_test_", (("Hex", 40, 40),), "shippo-token", False),
    ("rzp_live_", (("alnum", 14, 14),), "razorpay-key", False),
    ("rzp_test_", (("alnum", 14, 14),), "razorpay-key", False),
    ("sq0atp-", (("urlsafe", 22, 22),), "square-token", False),
    ("sq0csp-", (("urlsafe", 43, 43),), "square-token", False),
    ("sq0ige-", (("urlsafe", 22, 43),), "square-token", False),
    ("sq0idp-", (("urlsafe", 22, 43),), "square-token", False),
    ("EAAA", (("tok", 60, 60),), "square-token", False),
    ("EAAM", (("alnum", 100, 400),), "facebook-token", False),
    ("EAAC", (("alnum", 100, 400),), "facebook-token", False),
    ("pat", (("alnum", 14, 14), ".", ("hex", 64, 64)), "airtable-token", True),
    ("duffel_live_", (("tok", 43, 43),), "duffel-token", False),
    ("duffel_test_", (("tok", 43, 43),), "duffel-token", False),
    ("EZAK", (("alnum", 54, 54),), "easypost-token", False),
    ("EZTK", (("alnum", 54, 54),), "easypost-token", False),
    ("FLWSECK_TEST-", (("hex", 32, 32), "-X"), "flutterwave-key", False),
    ("FLWSECK-", (("hex", 32, 32), "-X"), "flutterwave-key", False),
    ("access-sandbox-", (("hex", 8, 8), "-", ("hex", 4, 4), "-", ("hex", 4, 4), "-",
                         ("hex", 4, 4), "-", ("hex", 12, 12)), "plaid-token", False),
    ("access-production-", (("hex", 8, 8), "-", ("hex", 4, 4), "-", ("hex", 4, 4), "-",
                            ("hex", 4, 4), "-", ("hex", 12, 12)), "plaid-token", False),
    ("xkeysib-", (("hex", 64, 64), "-", ("alnum", 16, 16)), "sendinblue-key", False),
    ("key-", (("lower", 32, 32),), "mailgun-key", True),
    ("PMAK-", (("hex", 24, 24), "-", ("hex", 34, 34)), "postman-key", False),
    ("lin_api_", (("alnum", 40, 40),), "linear-key", False),
    ("pplx-", (("alnum", 48, 48),), "perplexity-key", False),
    ("pnu_", (("alnum", 36, 36),), "prefect-token", False),
    ("rdme_", (("lower", 70, 70),), "readme-key", False),
    ("sm_pat_", (("alnum", 16, 16),), "settlemint-token", False),
    ("sm_aat_", (("alnum", 16, 16),), "settlemint-token", False),
    ("sm_sat_", (("alnum", 16, 16),), "settlemint-token", False),
    ("ico-", (("alnum", 32, 32),), "infracost-token", True),
    ("tfp_", (("tokdot", 59, 59),), "typeform-token", False),
    ("fio-u-", (("tok", 64, 64),), "frameio-token", False),
    ("p8e-", (("alnum", 32, 32),), "adobe-secret", False),
    ("api_org_", (("alpha", 34, 34),), "huggingface-token", False),
    ("ntn_", (("digit", 11, 11), ("alnum", 35, 35)), "notion-token", False),
    ("secret_", (("alnum", 43, 43),), "notion-token", True),
    ("pcsk_", (("word", 60, 90),), "pinecone-key", False),
    ("r8_", (("alnum", 37, 37),), "replicate-token", False),
    ("ptr_", (("b64tok", 32, 48),), "portainer-token", False),
    ("pat.", (("urlsafe", 22, 22), ".", ("alnum", 24, 24), ".", ("alnum", 20, 20)),
     "harness-token", True),
    ("sat.", (("urlsafe", 22, 22), ".", ("alnum", 24, 24), ".", ("alnum", 20, 20)),
     "harness-token", True),
    ("xai-", (("alnum", 80, 80),), "xai-key", False),
    ("gsk_", (("alnum", 52, 52),), "groq-key", False),
    ("sk-or-v1-", (("hex", 64, 64),), "openrouter-key", False),
)
# fmt: on

_LOOSE_LEFT = ALNUM
_STRICT_LEFT = ALNUM | frozenset(b"_-.")
_DIGITS = frozenset(b"0123456789")


def _regex(prefix: str, body: Sequence[Piece]) -> bytes:
    parts = [re.escape(prefix)]
    last_class = "[A-Za-z0-9]"
    for piece in body:
        if isinstance(piece, str):
            parts.append(re.escape(piece))
            continue
        name, low, high = piece
        last_class = _CLASSES[name]
        parts.append(f"{last_class}{{{low},{high}}}" if low != high else f"{last_class}{{{low}}}")
    tail = "(?![A-Za-z0-9])" if last_class.startswith("[A") else f"(?!{last_class})"
    return ("".join(parts) + tail).encode()


def _example(prefix: str, body: Sequence[Piece], seed: str) -> str:
    rng = random.Random(seed)  # noqa: S311 - a fixed synthetic example, not a secret
    out = [prefix]
    for piece in body:
        if isinstance(piece, str):
            out.append(piece)
            continue
        name, low, _high = piece
        chars = ALPHABETS[name].strip("=_-.+/")
        text = "".join(rng.choice(chars) for _ in range(low))
        if low > 2 and "7" in chars:  # a digit, so the value is neither a mask nor a word
            text = text[:-2] + "7" + text[-1]
        out.append(text)
    return "".join(out)


def _handler(strict: bool, prefix: bytes) -> object:
    left = _STRICT_LEFT if strict else _LOOSE_LEFT
    glues = not strict and distinctive(prefix, b"")

    def handler(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
        start, end = match.span()
        found = Hit(start, end, rule.kind, rule.id)
        if start > 0 and view.data[start - 1] in left:
            glued = glued_hit(view, start, end, prefix, rule.kind, rule.id) if glues else None
            if glued is None:
                return
            found = glued
        if runs_past_view(view, end, found.start):
            return
        if strict and not any(c in _DIGITS for c in view.data[start + 4 : end]):
            return  # "key-" + 32 letters is a word run, not a Mailgun key
        yield found

    handler.__qualname__ = (
        "prefixed-strict" if strict else "prefixed-glued" if glues else "prefixed"
    )
    return handler


def _min_body(body: Sequence[Piece]) -> int:
    return sum(len(p) if isinstance(p, str) else p[1] for p in body)


def _description(prefix: str, kind: str) -> str:
    """What the report says about the rule: the prefix when it is short (a long fixed prefix,
    like Bedrock's, would look like a credential in the report itself)."""
    what = kind.replace("-", " ")
    if len(prefix) <= 10:
        return f"A {what} that starts with {prefix} (gitleaks / trufflehog format)."
    return f"A {what} with its documented prefix (gitleaks / trufflehog format)."


def _rules() -> tuple[Rule, ...]:
    rules = []
    seen: dict[str, int] = {}
    for prefix, body, kind, strict in ROWS:
        slug = re.sub(r"[^a-z0-9]+", "-", prefix.lower()).strip("-")
        seen[slug] = seen.get(slug, 0) + 1
        rule_id = f"prefixed-{slug}" + (f"-{seen[slug]}" if seen[slug] > 1 else "")
        example = _example(prefix, body, rule_id)
        glues = not strict and distinctive(prefix.encode(), b"")
        rules.append(
            Rule(
                rule_id,
                kind,
                "vendor-token",
                _description(prefix, kind),
                _regex(prefix, body),
                handler=_handler(strict, prefix.encode()),  # type: ignore[arg-type]
                examples=(
                    (f"upstream rejected {example} (HTTP 401)", example),
                    (f"/var/cache/{example}/state", example),
                    *(((f"got token{example} from", example),) if glues else ()),
                ),
                decoys=(() if glues else (f"x{example}",))
                + ((f"{prefix}abc short",) if _min_body(body) > 3 else ()),
            )
        )
    return tuple(rules)


PREFIXED_RULES: tuple[Rule, ...] = _rules()
