"""Deterministic mixed logs with planted secrets and decoys, for benchmarks.

Mix (by line): syslog 30 %, JSON app log 25 %, logfmt 20 %, nginx access 15 %,
Java/Python stack frames 10 %; about 5 % of lines carry a harmless keyword
("token refresh scheduled", "cache key computed") and about 0.5 % carry a
planted secret of one of many kinds. ``generate`` returns the text and the
list of planted secret values (the ground truth for the leak check).
"""

from __future__ import annotations

import base64
import random
import string
import uuid
from collections.abc import Iterator

ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
_SENTENCE = (
    "worker heartbeat received execution completed scheduled claim released request served "
    "connection pool checkpoint stored lease renewed job queued placement evaluated runner "
    "started metrics flushed shutdown signal reconnect backoff slot acquired"
)
WORDS = _SENTENCE.split()
DECOYS = (
    "token refresh scheduled in 300s",
    "cache key computed for partition 7",
    "keyboard layout set to us",
    "password policy requires 12 characters",
    "secret rotation completed without errors",
    "tokenizer loaded vocabulary of 50257 entries",
    "session token rejected mid-operation, re-registering",
)


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _secret(rng: random.Random) -> tuple[str, list[str]]:
    """One line with a planted secret, and the secret values it holds."""
    k = rng.randrange(18)
    if k == 0:
        a, s = "AKIA" + _r(rng, string.ascii_uppercase + "234567", 16), _r(rng, B64, 40)
        return f"aws_access_key_id={a} aws_secret_access_key={s}", [a, s]
    if k == 1:
        t = "ghp_" + _r(rng, ALNUM, 36)
        return f"git clone https://x-access-token:{t}@github.com/acme/app.git", [t]
    if k == 2:
        t = "xoxb-" + _r(rng, string.digits, 11) + "-" + _r(rng, ALNUM, 24)
        return f'{{"level":"warn","msg":"slack notify","slack_token":"{t}"}}', [t]
    if k == 3:
        head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').rstrip(b"=").decode()
        body = base64.urlsafe_b64encode(
            f'{{"sub":"{uuid.UUID(int=rng.getrandbits(128))}"}}'.encode()
        )
        jwt = f"{head}.{body.rstrip(b'=').decode()}.{_r(rng, ALNUM + '-_', 43)}"
        return f"GET /api/v1/jobs Authorization: Bearer {jwt}", [jwt]
    if k == 4:
        p = _r(rng, ALNUM + "!#%^*", 14)
        return f"connecting to postgres://app:{p}@db-{rng.randrange(9)}.internal:5432/flux", [p]
    if k == 5:
        p = _r(rng, ALNUM + "!@#$ ", 12).strip() or "x1y2z3w4"
        return f'{{"ts":"2026-11-29T12:00:00Z","event":"config","password":"{p}"}}', [p]
    if k == 6:
        s = "sk_live_" + _r(rng, ALNUM, 24)
        return f'time=2026-11-29T12:00:00Z level=info msg="billing" stripe_key={s}', [s]
    if k == 7:
        g = "AIza" + _r(rng, ALNUM + "-_", 35)
        return f"maps client configured key={g}", [g]
    if k == 8:
        p = _r(rng, ALNUM, 10)
        return f"exec: mysql --password={p} -h db flux", [p]
    if k == 9:
        a = _r(rng, B64, 86) + "=="
        return f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={a};", [a]
    if k == 10:
        t = "glpat-" + _r(rng, ALNUM + "-_", 20)
        return f"PRIVATE-TOKEN: {t}", [t]
    if k == 11:
        c = _r(rng, ALNUM, 32)
        return f"Cookie: session={c}; theme=dark", [c]
    if k == 12:
        t = "SG." + _r(rng, ALNUM + "-_", 22) + "." + _r(rng, ALNUM + "-_", 43)
        return f"sendgrid api_key={t}", [t]
    if k == 13:
        t = _r(rng, string.hexdigits.lower(), 32)
        return f"worker registered session_token={t} labels=zone:a", [t]
    if k == 14:
        t = _r(rng, ALNUM, 64)
        return f"FLUX_WORKERS__BOOTSTRAP_TOKEN={t}", [t]
    if k == 15:
        t = (
            "F"
            + _r(rng, string.digits, 4)
            + "-"
            + _r(rng, string.ascii_uppercase + string.digits, 20)
        )
        return f"API-KEY(worker{rng.randrange(9)};api_read;default) {t}", [t]
    if k == 16:
        lower = string.ascii_lowercase
        e = f"{_r(rng, lower, 6)}.{_r(rng, lower, 5)}@corp.example.com"
        return f"notification sent to {e}", [e]
    s = _r(rng, ALNUM, 32)
    return f"client_secret: {s}", [s]


def _pem(rng: random.Random) -> tuple[list[str], list[str]]:
    body = [_r(rng, B64, 64) for _ in range(6)]
    lines = ["-----BEGIN RSA PRIVATE KEY-----", *body, "-----END RSA PRIVATE KEY-----"]
    return lines, body


def lines(seed: int = 12345, distinct: int = 0) -> Iterator[tuple[str, list[str]]]:
    """Log lines; with ``distinct``, planted secrets repeat from a pool of that many values
    (real logs repeat the same few credentials; the default plants a new value every time)."""
    rng = random.Random(seed)
    n = 0
    while True:
        n += 1
        r = rng.random()
        ts = f"2026-11-29T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.{n % 1000:03d}Z"
        u = uuid.UUID(int=rng.getrandbits(128))
        words = " ".join(rng.sample(WORDS, 4))
        if rng.random() < 0.05:
            words = rng.choice(DECOYS)
        if rng.random() < 0.005:
            source = random.Random(rng.randrange(distinct)) if distinct else rng
            if source.random() < 0.06:
                pem, body = _pem(source)
                for i, line in enumerate(pem):
                    yield line, body if i == 0 else []
                continue
            yield _secret(source)
            continue
        if r < 0.30:
            yield (
                (
                    f"Nov 29 {n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d} node-{n % 7} "
                    f"flux-worker[{1000 + n % 977}]: {words} execution={u}"
                ),
                [],
            )
        elif r < 0.55:
            yield (
                (
                    f'{{"ts":"{ts}","level":"info","logger":"flux.worker","msg":"{words}",'
                    f'"execution_id":"{u}","duration_ms":{n % 997},"worker":"w{n % 5}"}}'
                ),
                [],
            )
        elif r < 0.75:
            yield (
                (
                    f'time={ts} level=debug msg="{words}" request_id={u.hex} '
                    f"latency={n % 97}ms component=scheduler"
                ),
                [],
            )
        elif r < 0.90:
            yield (
                (
                    f"10.{n % 7}.{n % 250}.{n % 200 + 1} - - "
                    f"[29/Nov/2026:12:00:{n % 60:02d} +0000] "
                    f'"GET /api/v1/workers?page={n % 9}&q=%22w{n % 5}%22 HTTP/1.1" '
                    f'{200 + n % 3} {n % 9000} "-" "curl/8.5"'
                ),
                [],
            )
        else:
            yield f"    at io.flux.worker.Runner.step{n % 40}(Runner.java:{n % 900})", []


def write(path: str, size: int, seed: int = 12345, distinct: int = 0) -> list[str]:
    """Stream ``size`` bytes of logs to ``path`` (for files too big to build in memory)."""
    planted: list[str] = []
    total = 0
    batch: list[str] = []
    with open(path, "w", encoding="utf-8") as out:
        for line, secrets in lines(seed, distinct):
            batch.append(line)
            planted.extend(secrets)
            total += len(line) + 1
            if len(batch) >= 10000 or total >= size:
                out.write("\n".join(batch) + "\n")
                batch = []
            if total >= size:
                return planted
    return planted


def generate(size: int, seed: int = 12345) -> tuple[bytes, list[str]]:
    out: list[str] = []
    planted: list[str] = []
    total = 0
    for line, secrets in lines(seed):
        out.append(line)
        planted.extend(secrets)
        total += len(line) + 1
        if total >= size:
            break
    return ("\n".join(out) + "\n").encode(), planted
