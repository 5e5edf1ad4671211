"""A deterministic corpus shaped like a real support bundle, for the redaction benchmarks.

``bench/logdata.py`` makes one kind of text (mixed log lines). A bundle that
a support engineer receives is mostly other shapes, and those are what cost:
Flux server and worker logs full of base64 pagination cursors (``eyJ...``,
base64 of JSON: what the JWT rule and the decoders look at), request ids and
sha256 checksums; pretty-printed JSON listings of executions and workers; a
HAR capture with headers, cookies and JSON-escaped bodies; a SQLite dump with
hex blobs; journal exports in JSON (a hex cursor, boot and machine ids on
every line); Prometheus text; Kubernetes YAML with base64 data; configs; keys.

Secrets are planted where real bundles have them (a bearer JWT in a HAR
header, a bootstrap token in an env file, a Secret's data, a private key);
decoys are what must survive (cursors, JWT-lookalikes without a JWT header,
checksums, certificates, public keys). :func:`write_corpus` returns both
lists; ``bench/redact.py`` checks that no planted value survives and counts
the decoys kept.

Default ~33 MB over ~58 files; ``scale`` N writes N copies (``copy1/`` ...)
from different seeds, so values do not repeat across copies (N=5: ~165 MB).

    .venv/bin/python bench/corpus.py [--scale 1] [--seed 19]   # prints the directory
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import random
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
MB = 1_000_000
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
WORKFLOWS = ("hello_world", "etl_daily", "ingest_events", "train_model", "reindex", "backfill")
STATES = ("COMPLETED", "COMPLETED", "COMPLETED", "RUNNING", "FAILED", "CREATED", "CLAIMED")


@dataclass
class Truth:
    """What was planted (must not survive redaction), what must survive (decoys), and
    what the catalog replaces by design though nobody planted it as a secret (opaque).

    Every decoy is listed, however many (an earlier cap of 20,000 counted only the
    first files' decoys and hid that later ones were replaced). A value that is
    written only inside another encoding (a cursor in a base64 HAR body) never
    occurs literally; :func:`literal_only` leaves those out before counting.
    """

    planted: list[str] = field(default_factory=list)
    decoys: list[str] = field(default_factory=list)
    kinds: dict[str, str] = field(default_factory=dict)
    """member path -> file type (the per-type rows of the benchmark)."""
    opaque: list[str] = field(default_factory=list)
    """Random key material under a bare ``value`` key (Flux event payloads here): a
    generated key there is a secret to the catalog (Ceph's ``{"key": "AQ..=="}``), and
    random bytes cannot show they are not one. Reported as replaced, not as decoys."""

    def secret(self, value: str) -> str:
        self.planted.append(value)
        return value

    def decoy(self, value: str) -> str:
        self.decoys.append(value)
        return value

    def opaque_value(self, value: str) -> str:
        self.opaque.append(value)
        return value


class Gen:
    """Random values of the shapes that appear in bundles, from one seeded generator."""

    def __init__(self, seed: int, truth: Truth) -> None:
        self.rng = random.Random(seed)
        self.truth = truth
        self.clock: float = 1_764_435_600 + self.rng.randrange(86400)

    def hex(self, n: int) -> str:
        return f"{self.rng.getrandbits(4 * n):0{n}x}"

    def b64(self, raw: bytes, url: bool = False, pad: bool = True) -> str:
        text = (base64.urlsafe_b64encode if url else base64.b64encode)(raw).decode()
        return text if pad else text.rstrip("=")

    def alnum(self, n: int) -> str:
        return "".join(self.rng.choices(ALNUM, k=n))

    def stamp(self, step: float = 0.05) -> str:
        self.clock += self.rng.random() * step * 2
        whole = int(self.clock)
        day = 29 + (whole - 1_764_374_400) // 86400
        rest = whole % 86400
        return (
            f"2026-11-{min(day, 30):02d} {rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}"
        )

    def worker(self) -> str:
        return f"w{self.rng.randrange(1, 9)}"

    def cursor(self) -> str:
        """A pagination cursor: base64(url) of JSON (``eyJ...``), never a secret."""
        state = {
            "offset": self.rng.randrange(0, 50000, 50),
            "sort": "created_at",
            "id": self.hex(32),
        }
        if self.rng.random() < 0.5:
            state["ts"] = f"{self.clock:.6f}"
        return self.truth.decoy(self.b64(json.dumps(state).encode(), url=True, pad=False))

    def lookalike(self) -> str:
        """Three base64url JSON parts joined by dots but no JWT header: a trace context."""
        parts = [
            self.b64(
                json.dumps({"trace": self.hex(16), "span": self.hex(8)}).encode(), True, False
            ),
            self.b64(
                json.dumps({"sampled": True, "n": self.rng.randrange(99)}).encode(), True, False
            ),
            self.b64(self.rng.randbytes(12), True, False),
        ]
        return self.truth.decoy(".".join(parts))

    def jwt(self) -> str:
        """A real JWT (HS256 header verified by the rule): planted."""
        header = self.b64(b'{"alg":"HS256","typ":"JWT"}', True, False)
        claims = json.dumps({"sub": f"worker:{self.worker()}", "exp": int(self.clock) + 3600})
        body = self.b64(claims.encode(), True, False)
        return self.truth.secret(f"{header}.{body}.{self.b64(self.rng.randbytes(32), True, False)}")

    def sha256(self) -> str:
        return self.truth.decoy(hashlib.sha256(self.rng.randbytes(16)).hexdigest())


# -- logs ------------------------------------------------------------------------------------
AUTH_SPAM = (
    "flux.security.auth_service - WARNING - Auth disabled — request treated as admin (anonymous)"
)


def server_lines(g: Gen) -> Iterator[str]:
    rng = g.rng
    while True:
        r = rng.random()
        t = g.stamp()
        if r < 0.40:
            yield f"{t} - {AUTH_SPAM}"
        elif r < 0.55:
            port = rng.randrange(30000, 65000)
            path = rng.choice(("/executions", "/workers", "/workflows", "/executions/running"))
            page = f"&cursor={g.cursor()}" if rng.random() < 0.4 else ""
            yield f'INFO:     127.0.0.1:{port} - "GET {path}?limit=50{page} HTTP/1.1" 200 OK'
        elif r < 0.65:
            yield f"{t} - flux.server - INFO - Worker progress for execution {g.hex(32)}"
        elif r < 0.72:
            yield (
                f"{t} - flux.api.worker_routes - INFO - Execution {g.hex(32)} claimed by worker "
                f"{g.worker()} request_id={g.hex(32)}"
            )
        elif r < 0.78:
            yield (
                f"{t} - flux.api.workflow_routes - INFO - Received file: workflows.py with size: "
                f"{rng.randrange(900, 9000)} bytes: sha256={g.sha256()}"
            )
        elif r < 0.815:
            yield (
                f"{t} - flux.api.execution_routes - DEBUG - list executions page "
                f"next_cursor={g.cursor()} prev_cursor={g.cursor()} total={rng.randrange(9999)}"
            )
        elif r < 0.88:
            yield (
                f"{t} - flux.tracing - DEBUG - propagated context traceparent=00-{g.hex(32)}-"
                f"{g.hex(16)}-01 baggage={g.lookalike()}"
            )
        elif r < 0.92:
            yield (
                f"{t} - flux.api.worker_routes - INFO - Worker {g.worker()} heartbeat "
                f"(cpu_available=1.{rng.randrange(999):03d}, session age {rng.randrange(9999)}s)"
            )
        elif r < 0.95:
            yield (
                f"{t} - flux.server - WARNING - Worker {g.worker()} missed heartbeat, marked STALE "
                f"(grace period: 30s)"
            )
        elif r < 0.97:
            yield (
                f"{t} - flux.security.tokens - INFO - token refresh scheduled in "
                f"{rng.randrange(60, 900)}s for session key fingerprint SHA256:"
                f"{g.truth.decoy(g.b64(g.rng.randbytes(32), pad=False))}"
            )
        elif r < 0.9985:
            yield (
                f"{t} - flux.scheduler_loop - DEBUG - evaluated {rng.randrange(99)} candidates "
                f"in {rng.random() * 9:.3f} ms (queue depth {rng.randrange(500)})"
            )
        else:
            yield from planted_log_line(g, t)


def planted_log_line(g: Gen, t: str) -> Iterator[str]:
    k = g.rng.randrange(6)
    if k == 0:
        yield (
            f"{t} - flux.api.auth - DEBUG - request headers: Authorization: Bearer {g.jwt()} "
            f"x-request-id={g.hex(32)}"
        )
    elif k == 1:
        token = g.truth.secret(g.alnum(43))
        yield f"{t} - flux.worker - DEBUG - environment FLUX_WORKERS__BOOTSTRAP_TOKEN={token}"
    elif k == 2:
        password = g.truth.secret(g.alnum(18))
        yield (
            f"{t} - flux.database - INFO - connecting to "
            f"postgresql://flux:{password}@db.internal:5432/flux"
        )
    elif k == 3:
        token = g.truth.secret("ghp_" + g.alnum(36))
        yield f"{t} - flux.catalog - INFO - git clone https://x:{token}@github.com/acme/flows.git"
    elif k == 4:
        key = g.truth.secret(g.alnum(40))
        yield f'{t} - flux.storage - DEBUG - s3 client config {{"aws_secret_access_key": "{key}"}}'
    else:
        token = g.truth.secret(g.hex(64))
        yield f"{t} - flux.api.worker_routes - DEBUG - registered worker session_token={token}"


def worker_lines(g: Gen, name: str) -> Iterator[str]:
    rng = g.rng
    while True:
        r = rng.random()
        t = g.stamp(0.2)
        execution = g.hex(32)
        if r < 0.20:
            workflow = rng.choice(WORKFLOWS)
            yield f"{t} - flux.worker - INFO - Execution {execution} started (workflow {workflow})"
        elif r < 0.35:
            yield (
                f"{t} - flux.worker - INFO - Checkpoint stored for {execution}: "
                f"sha256:{g.sha256()} ({rng.randrange(99999)} bytes)"
            )
        elif r < 0.50:
            yield (
                f"{t} - flux.worker - DEBUG - Heartbeat sent to http://flux-server:8000/workers/"
                f"{name}/heartbeat (cpu=0.{rng.randrange(99):02d}, mem={rng.randrange(10**10)})"
            )
        elif r < 0.56:
            yield (
                f"{t} - flux.worker - DEBUG - GET /executions?state=CREATED&cursor={g.cursor()} "
                f"-> {rng.randrange(50)} items"
            )
        elif r < 0.62:
            yield f"{t} - flux.worker - DEBUG - GET /executions?state=CREATED -> 0 items"
        elif r < 0.72:
            payload = g.b64(json.dumps({"execution_id": execution, "input": g.alnum(24)}).encode())
            yield f"{t} - flux.worker - DEBUG - task payload (base64) {g.truth.decoy(payload)}"
        elif r < 0.80:
            yield (
                f"{t} - flux.worker - INFO - Artifact uploaded: s3://flux-artifacts/{execution}/"
                f"out.parquet etag={g.hex(32)} md5={g.hex(32)}"
            )
        elif r < 0.88:
            took = rng.random() * 90
            yield f"{t} - flux.worker - INFO - Execution {execution} COMPLETED in {took:.2f}s"
        elif r < 0.93:
            yield (
                f"{t} - flux.worker - WARNING - retrying claim for {execution} after 409 "
                f"(request_id={g.hex(8)}-{g.hex(4)}-{g.hex(4)}-{g.hex(4)}-{g.hex(12)})"
            )
        elif r < 0.97:
            yield (
                f'  File "/opt/flux/lib/python3.12/site-packages/flux/worker.py", line '
                f"{rng.randrange(900)}, in _run_task"
            )
        elif r < 0.9985:
            slot, free = rng.randrange(8), rng.randrange(8)
            yield f"{t} - flux.worker - DEBUG - slot {slot} released; {free} free"
        else:
            yield from planted_log_line(g, t)


# -- JSON documents --------------------------------------------------------------------------
def execution(g: Gen, detailed: bool) -> dict[str, object]:
    rng = g.rng
    item: dict[str, object] = {
        "execution_id": g.hex(32),
        "workflow_id": g.hex(32),
        "workflow_namespace": "default",
        "workflow_name": rng.choice(WORKFLOWS),
        "state": rng.choice(STATES),
        "worker_name": g.worker(),
        "name": None,
        "created_at": g.stamp(1).replace(" ", "T") + "Z",
        "input_checksum": g.sha256(),
    }
    if not detailed:
        item["cursor"] = g.cursor()  # relay-style listings: every edge has its cursor
    if detailed:
        item["input"] = g.truth.decoy(
            g.b64(json.dumps({"rows": rng.randrange(9999), "source": g.alnum(20)}).encode())
        )
        item["events"] = [
            {
                "id": g.hex(32),
                "type": rng.choice(("WORKFLOW_STARTED", "TASK_STARTED", "TASK_COMPLETED")),
                "time": g.stamp(1),
                "value": g.truth.opaque_value(g.b64(g.rng.randbytes(rng.randrange(24, 96)))),
            }
            for _ in range(rng.randrange(3, 9))
        ]
        if rng.random() < 0.01:
            item["input"] = {"api_token": g.truth.secret(g.alnum(32))}
    return item


def executions_page(g: Gen, size: int, detailed: bool) -> str:
    items: list[dict[str, object]] = []
    text = ""
    while True:
        items.extend(execution(g, detailed) for _ in range(50))
        page = {
            "executions": items,
            "total": len(items) * 7,
            "limit": len(items),
            "next_cursor": g.cursor(),
            "auth_filtered": False,
        }
        text = json.dumps(page, indent=4)
        if len(text) >= size:
            return text + "\n"


def workers_listing(g: Gen, size: int) -> str:
    rng = g.rng
    packages = [
        {"name": n, "version": f"{rng.randrange(9)}.{rng.randrange(40)}.{rng.randrange(9)}"}
        for n in (
            "httpx",
            "pydantic",
            "cryptography",
            "opentelemetry-sdk",
            "uvicorn",
            "fastapi",
            "sqlalchemy",
            "psutil",
            "numpy",
            "pandas",
            "pyarrow",
            "boto3",
            "grpcio",
        )
    ]
    workers: list[dict[str, Any]] = []
    text = ""
    while len(text) < size:
        for _ in range(20):
            workers.append(
                {
                    "name": f"w{len(workers) + 1}",
                    "status": rng.choice(("online", "online", "offline", "stale")),
                    "session_id": g.truth.decoy(g.hex(32)),
                    "labels": {"zone": rng.choice("abc"), "pool": rng.choice(("gpu", "cpu"))},
                    "runtime": {"os_name": "Linux", "python_version": "3.12.1"},
                    "resources": {"cpu_total": 2.0, "memory_total": 25276510208.0, "gpus": []},
                    "packages": packages,
                    "last_heartbeat": g.stamp(1),
                    "image_digest": f"sha256:{g.sha256()}",
                }
            )
        text = json.dumps(workers, indent=4)
    return text + "\n"


def har(g: Gen, size: int) -> str:
    rng = g.rng
    entries, length = [], 0
    while length < size:
        cursor = g.cursor()
        body = json.dumps(
            {"executions": [execution(g, False) for _ in range(8)], "next_cursor": g.cursor()}
        )
        auth = g.jwt() if rng.random() < 0.02 else None
        headers = [
            {"name": "Accept", "value": "application/json"},
            {"name": "User-Agent", "value": "flux-cli/0.87.5 httpx/0.27.2"},
            {"name": "X-Request-Id", "value": g.hex(32)},
            {"name": "traceparent", "value": f"00-{g.hex(32)}-{g.hex(16)}-01"},
        ]
        if auth:
            headers.append({"name": "Authorization", "value": f"Bearer {auth}"})
        if rng.random() < 0.02:
            headers.append(
                {
                    "name": "Cookie",
                    "value": f"flux_session={g.truth.secret(g.alnum(40))}; theme=dark",
                }
            )
        encoded = rng.random() < 0.3
        entry = {
            "startedDateTime": g.stamp(1).replace(" ", "T") + ".000Z",
            "time": round(rng.random() * 90, 3),
            "request": {
                "method": "GET",
                "url": f"http://flux-server:8000/executions?limit=8&cursor={cursor}",
                "httpVersion": "HTTP/1.1",
                "headers": headers,
                "queryString": [
                    {"name": "limit", "value": "8"},
                    {"name": "cursor", "value": cursor},
                ],
                "headersSize": -1,
                "bodySize": 0,
            },
            "response": {
                "status": 200,
                "statusText": "OK",
                "headers": [
                    {"name": "content-type", "value": "application/json"},
                    {"name": "etag", "value": f'W/"{g.hex(40)}"'},
                ],
                "content": {
                    "size": len(body),
                    "mimeType": "application/json",
                    **(
                        {"text": g.b64(body.encode()), "encoding": "base64"}
                        if encoded
                        else {"text": body}
                    ),
                },
                "redirectURL": "",
            },
            "cache": {},
            "timings": {"send": 0.1, "wait": round(rng.random() * 80, 3), "receive": 0.4},
        }
        entries.append(entry)
        length += len(json.dumps(entry))
    document = {
        "log": {
            "version": "1.2",
            "creator": {"name": "Chromium", "version": "131"},
            "entries": entries,
        }
    }
    return json.dumps(document, indent=2) + "\n"


def journal(g: Gen, size: int, unit: str) -> Iterator[str]:
    rng = g.rng
    boot, machine, stream = g.hex(32), g.hex(32), g.hex(32)
    lines = worker_lines(g, "w1")
    total, seq = 0, rng.randrange(10**6)
    while total < size:
        seq += 1
        message = next(lines)
        record = {
            "__CURSOR": f"s={g.hex(32)};i={seq:x};b={boot};m={g.hex(8)};t={g.hex(13)};"
            f"x={g.hex(16)}",
            "__REALTIME_TIMESTAMP": str(int(g.clock * 1e6)),
            "__MONOTONIC_TIMESTAMP": str(rng.randrange(10**11)),
            "_BOOT_ID": boot,
            "_MACHINE_ID": machine,
            "_HOSTNAME": f"node-{rng.randrange(9)}",
            "PRIORITY": str(rng.choice((6, 6, 6, 4, 7))),
            "_SYSTEMD_UNIT": unit,
            "_PID": str(1000 + rng.randrange(9000)),
            "_COMM": "flux",
            "_TRANSPORT": "stdout",
            "_STREAM_ID": stream,
            "SYSLOG_IDENTIFIER": "flux",
            "MESSAGE": message,
        }
        line = json.dumps(record, ensure_ascii=False)
        total += len(line) + 1
        yield line


def prometheus(g: Gen, size: int) -> Iterator[str]:
    rng = g.rng
    total = 0
    buckets = (
        "0.005",
        "0.01",
        "0.025",
        "0.05",
        "0.1",
        "0.25",
        "0.5",
        "1.0",
        "2.5",
        "5.0",
        "10.0",
        "+Inf",
    )
    families = [
        ("http_request_duration_seconds", "histogram", 'handler="{h}",method="{m}",status="200"'),
        ("flux_execution_duration_seconds", "histogram", 'workflow="{wf}",worker="{w}"'),
        ("flux_worker_session_age_seconds", "gauge", 'worker="{w}",session="{s}"'),
        ("flux_auth_requests_total", "counter", 'result="anonymous",api_key_configured="false"'),
        ("flux_execution_state", "gauge", 'execution_id="{e}",state="{st}",worker="{w}"'),
        ("flux_http_requests_total", "counter", 'method="GET",path="/executions?cursor={c}"'),
    ]
    while total < size:
        name, kind, labels = rng.choice(families)
        lines = [f"# HELP {name} {name.replace('_', ' ')}", f"# TYPE {name} {kind}"]
        for _ in range(rng.randrange(5, 30)):
            text = labels.format(
                h=rng.choice(("/workers/{name}/claim", "/executions", "/workers/{name}/heartbeat")),
                m=rng.choice(("GET", "POST")),
                wf=rng.choice(WORKFLOWS),
                w=g.worker(),
                s=g.hex(32),
                e=g.hex(32),
                st=rng.choice(STATES),
                c=g.cursor() if "{c}" in labels else "",
            )
            if kind == "histogram":
                count = 0
                for le in buckets:
                    count += rng.randrange(50)
                    lines.append(f'{name}_bucket{{{text},le="{le}"}} {count}.0')
                lines.append(f"{name}_sum{{{text}}} {rng.random() * 999:.6f}")
                lines.append(f"{name}_count{{{text}}} {count}.0")
            else:
                lines.append(f"{name}{{{text}}} {rng.random() * 9999:.3f}")
        block = "\n".join(lines)
        total += len(block) + 1
        yield block


def sql_dump(g: Gen, size: int) -> Iterator[str]:
    rng = g.rng
    yield "PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;"
    yield (
        "CREATE TABLE executions (\n\texecution_id VARCHAR NOT NULL, \n\tworkflow_id VARCHAR NOT "
        "NULL, \n\tstate VARCHAR NOT NULL, \n\tworker_name VARCHAR, \n\tinput BLOB, \n\tcreated_at "
        "DATETIME, \n\tPRIMARY KEY (execution_id)\n);"
    )
    yield (
        "CREATE TABLE execution_events (\n\tid VARCHAR NOT NULL, \n\texecution_id VARCHAR NOT NULL,"
        " \n\ttype VARCHAR NOT NULL, \n\tvalue TEXT, \n\ttime DATETIME\n);"
    )
    total = 0
    while total < size:
        if rng.random() < 0.5:
            blob = g.rng.randbytes(rng.randrange(40, 200)).hex()
            line = (
                f"INSERT INTO executions VALUES('{g.hex(32)}','{g.hex(32)}','"
                f"{rng.choice(STATES)}','{g.worker()}',X'{blob}','{g.stamp(1)}.{rng.randrange(10**6):06d}');"
            )
        else:
            value = json.dumps({"cursor": g.cursor(), "checksum": g.sha256()})
            line = (
                f"INSERT INTO execution_events VALUES('{g.hex(32)}','{g.hex(32)}','TASK_COMPLETED',"
                f"'{value}','{g.stamp(1)}');"
            )
        if rng.random() < 0.002:
            line = (
                "INSERT INTO secrets VALUES('github', 'GITHUB_TOKEN="
                + g.truth.secret("ghp_" + g.alnum(36))
                + "');"
            )
        total += len(line) + 1
        yield line
    yield "COMMIT;"


# -- YAML, configs, keys ---------------------------------------------------------------------
def pods_yaml(g: Gen, size: int) -> str:
    rng = g.rng
    docs, total = [], 0
    while total < size:
        applied = json.dumps(
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"flux-worker-{g.hex(5)}"}}
        )
        doc = (
            f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: flux-worker-{g.hex(10)}-{g.hex(5)}\n"
            f"  namespace: flux\n  uid: {g.hex(8)}-{g.hex(4)}-{g.hex(4)}-{g.hex(4)}-{g.hex(12)}\n"
            f"  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{applied}'\n"
            f"    checksum/config: {g.sha256()}\nspec:\n  containers:\n  - name: worker\n"
            f"    image: registry.example.com/flux/worker@sha256:{g.sha256()}\n    env:\n"
            f"    - name: FLUX_WORKER_NAME\n      value: w{rng.randrange(1, 99)}\n"
            f"    - name: FLUX_WORKERS__BOOTSTRAP_TOKEN\n      valueFrom:\n        secretKeyRef:\n"
            f"          name: flux-bootstrap\n          key: token\n"
            f"status:\n  phase: Running\n  podIP: 10.{rng.randrange(255)}.{rng.randrange(255)}."
            f"{rng.randrange(255)}\n"
            f"  containerStatuses:\n  - containerID: containerd://{g.hex(64)}\n    ready: true\n"
            f"    restartCount: {rng.randrange(5)}\n"
        )
        docs.append(doc)
        total += len(doc) + 4
    return "---\n".join(docs)


def configmap_yaml(g: Gen, size: int) -> str:
    blob = g.truth.decoy(g.b64(g.rng.randbytes(size * 3 // 4)))
    lines = [blob[i : i + 76] for i in range(0, len(blob), 76)]
    body = "\n".join("    " + line for line in lines)
    return (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flux-workflows\n  namespace: flux\n"
        "data:\n  log_level: info\n  scheduler.poll_interval: '30'\nbinaryData:\n"
        f"  workflows.tar: |\n{body}\n"
    )


def secret_yaml(g: Gen) -> str:
    token = g.truth.secret(g.alnum(43))
    password = g.truth.secret(g.alnum(20))
    return (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: flux-bootstrap\n  namespace: flux\n"
        "type: Opaque\ndata:\n"
        f"  token: {g.b64(token.encode())}\n  db-password: {g.b64(password.encode())}\n"
    )


def flux_toml(g: Gen) -> str:
    key = g.truth.secret(g.b64(g.rng.randbytes(32)))
    return (
        '[flux]\ndebug = false\nlog_level = "INFO"\n\n[flux.workers]\nheartbeat_interval = 10\n'
        "heartbeat_timeout = 30\n\n[flux.security.encryption]\n"
        f'encryption_key = "{key}"\n\n[flux.database]\nurl = "sqlite:///.flux/flux.db"\n'
    )


def worker_env(g: Gen) -> str:
    token = g.truth.secret(g.alnum(43))
    return (
        "FLUX_SERVER_URL=http://flux-server:8000\nFLUX_WORKER_NAME=w1\n"
        f"FLUX_WORKERS__BOOTSTRAP_TOKEN={token}\nFLUX_LOG_LEVEL=INFO\nPATH=/usr/local/bin:/usr/bin\n"
    )


def docker_config(g: Gen) -> str:
    password = g.truth.secret(g.alnum(24))
    auth = g.b64(f"ci-bot:{password}".encode())
    return json.dumps({"auths": {"registry.example.com": {"auth": auth}}}, indent=2) + "\n"


def pem_key(g: Gen) -> str:
    body = g.b64(g.rng.randbytes(400))
    lines = [body[i : i + 70] for i in range(0, len(body), 70)]
    for line in lines:
        g.truth.secret(line)
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "\n".join(lines)
        + "\n-----END OPENSSH PRIVATE KEY-----\n"
    )


def certificates(g: Gen, count: int) -> str:
    out = []
    for _ in range(count):
        body = g.b64(g.rng.randbytes(900))
        lines = [g.truth.decoy(body[i : i + 64]) for i in range(0, len(body), 64)]
        out.append(
            "-----BEGIN CERTIFICATE-----\n" + "\n".join(lines) + "\n-----END CERTIFICATE-----"
        )
    return "\n".join(out) + "\n"


def authorized_keys(g: Gen) -> str:
    lines = []
    for i in range(40):
        key = g.truth.decoy(g.b64(b"\0\0\0\x0bssh-ed25519\0\0\0 " + g.rng.randbytes(32)))
        lines.append(f"ssh-ed25519 {key} ops{i}@bastion")
    return "\n".join(lines) + "\n"


def nginx_conf(g: Gen) -> str:
    return (
        "upstream flux { server 127.0.0.1:8000; }\nserver {\n  listen 443 ssl;\n"
        "  ssl_certificate /etc/ssl/flux.crt;\n  location / { proxy_pass http://flux; }\n}\n"
    )


def evidence(g: Gen, kind: str) -> str:
    return json.dumps(
        {
            "kind": kind,
            "complete": True,
            "items": [{"id": g.hex(32), "sha256": g.sha256()} for _ in range(40)],
        },
        indent=2,
    )


# -- the corpus ------------------------------------------------------------------------------
Writer = Callable[[Gen, int], "str | Iterator[str]"]


def _worker_log(name: str) -> Callable[[Gen], Iterator[str]]:
    return lambda g: worker_lines(g, name)


def _journal(unit: str) -> Writer:
    return lambda g, n: journal(g, n, unit)


def _evidence(kind: str) -> Writer:
    return lambda g, n: evidence(g, kind)


def plan(scale_bytes: float = 1.0) -> list[tuple[str, str, int, Writer]]:
    """(member path, file type, target bytes, writer): ~33 MB over 58 files at 1.0."""

    def size(mb: float) -> int:
        return int(mb * MB * scale_bytes)

    def lines_of(source: Callable[[Gen], Iterator[str]]) -> Writer:
        def write(g: Gen, n: int) -> Iterator[str]:
            total = 0
            for line in source(g):
                total += len(line) + 1
                yield line
                if total >= n:
                    return

        return write

    items: list[tuple[str, str, int, Writer]] = [
        ("hosts/h01/logs/server.log", "server log", size(7.0), lines_of(server_lines)),
    ]
    for i in range(1, 9):
        name = f"w{i}"
        items.append(
            (
                f"hosts/h{i + 1:02d}/logs/worker.log",
                "worker log",
                size(1.0),
                lines_of(_worker_log(name)),
            )
        )
    for i in range(10):
        items.append(
            (
                f"raw/http/executions/{i}.json",
                "JSON listing",
                size(0.42),
                lambda g, n: executions_page(g, n, False),
            )
        )
    items.append(("raw/http/workers.json", "JSON listing", size(1.0), workers_listing))
    for i in range(4):
        items.append(
            (
                f"raw/http/executions_detailed/{i}.json",
                "JSON listing",
                size(0.3),
                lambda g, n: executions_page(g, n, True),
            )
        )
    items.append(("raw/capture.har", "HAR", size(2.5), har))
    items.append(("hosts/h01/flux-db.sql", "SQL dump", size(2.5), sql_dump))
    for i, unit in enumerate(("flux-worker.service", "flux-server.service", "containerd.service")):
        items.append(
            (
                f"hosts/h0{i + 2}/journal.json",
                "journal JSON",
                size(1.2),
                _journal(unit),
            )
        )
    for i in range(2):
        items.append((f"hosts/h0{i + 1}/metrics.txt", "Prometheus", size(1.2), prometheus))
    items.append(("k8s/pods.yaml", "kube YAML", size(0.6), pods_yaml))
    items.append(("k8s/configmap-workflows.yaml", "kube YAML", size(0.3), configmap_yaml))
    items.append(("k8s/secret-bootstrap.yaml", "kube YAML", 0, lambda g, n: secret_yaml(g)))
    items.append(("k8s/deployment.yaml", "kube YAML", size(0.05), pods_yaml))
    items.append(("k8s/services.yaml", "kube YAML", size(0.02), pods_yaml))
    items.append(("k8s/statefulset.yaml", "kube YAML", size(0.02), pods_yaml))
    for path, writer in (
        ("config/flux.toml", lambda g, n: flux_toml(g)),
        ("config/worker.env", lambda g, n: worker_env(g)),
        ("config/docker-config.json", lambda g, n: docker_config(g)),
        ("config/nginx.conf", lambda g, n: nginx_conf(g)),
        (
            "config/app.ini",
            lambda g, n: f"[db]\nhost = db.internal\npassword = {g.truth.secret(g.alnum(16))}\n",
        ),
        ("config/bootstrap-token", lambda g, n: g.truth.secret(g.alnum(64)) + "\n"),
        (
            "config/settings.yaml",
            lambda g, n: "flux:\n  log_level: INFO\n  workers:\n    heartbeat_interval: 10\n",
        ),
        ("config/logging.json", lambda g, n: json.dumps({"version": 1, "root": {"level": "INFO"}})),
    ):
        items.append((path, "config", 0, writer))
    for path, writer in (
        ("keys/id_ed25519", lambda g, n: pem_key(g)),
        ("keys/server-chain.pem", lambda g, n: certificates(g, 3)),
        ("keys/authorized_keys", lambda g, n: authorized_keys(g)),
        ("keys/ca-bundle.pem", lambda g, n: certificates(g, 40)),
    ):
        items.append((path, "keys", 0, writer))
    for kind in ("server", "workers", "executions", "placement", "capacity", "logs"):
        items.append((f"evidence/{kind}.json", "evidence", 0, _evidence(kind)))
    return items


def write_corpus(root: Path, seed: int = 19, scale: int = 1) -> Truth:
    """Write the corpus under ``root`` (replaced); ``scale`` copies from different seeds."""
    if root.exists():
        shutil.rmtree(root)
    truth = Truth()
    items = plan()
    for copy in range(scale):
        base = root if scale == 1 else root / f"copy{copy + 1}"
        for index, (rel, kind, target, writer) in enumerate(items):
            g = Gen(seed * 1000 + copy * 100 + index, truth)
            out = base / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            produced = writer(g, target)
            with out.open("w", encoding="utf-8") as handle:
                if isinstance(produced, str):
                    handle.write(produced)
                else:
                    batch: list[str] = []
                    for line in produced:
                        batch.append(line)
                        if len(batch) >= 5000:
                            handle.write("\n".join(batch) + "\n")
                            batch = []
                    if batch:
                        handle.write("\n".join(batch) + "\n")
            truth.kinds[str(out.relative_to(root))] = kind
    return truth


def corpus(scale: int = 1, seed: int = 19) -> tuple[Path, Truth]:
    """The cached corpus directory and its truth (generated on first use, in ``bench/out``)."""
    root = OUT / f"corpus-x{scale}-{seed}"
    truth_path = OUT / f"corpus-x{scale}-{seed}.truth2.json"  # 2: every decoy, opaque apart
    if not root.is_dir() or not truth_path.exists():
        OUT.mkdir(exist_ok=True)
        truth = literal_only(write_corpus(root, seed, scale), root)
        truth_path.write_text(
            json.dumps(
                {
                    "planted": truth.planted,
                    "decoys": truth.decoys,
                    "kinds": truth.kinds,
                    "opaque": truth.opaque,
                }
            )
        )
    loaded = json.loads(truth_path.read_text())
    return root, Truth(loaded["planted"], loaded["decoys"], loaded["kinds"], loaded["opaque"])


def literal_only(truth: Truth, root: Path) -> Truth:
    """``truth`` with its decoys and opaque values cut to those written literally under ``root``.

    A planted secret is kept whatever happens: one that occurs only inside another
    encoding must still be gone after redaction, and :func:`write_corpus` plants none so.
    """
    import ahocorasick_rs

    wanted = sorted({v.encode() for v in truth.decoys} | {v.encode() for v in truth.opaque})
    matcher = ahocorasick_rs.BytesAhoCorasick(wanted)
    seen: set[int] = set()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        seen.update(i for i, _, _ in matcher.find_matches_as_indexes(data, overlapping=True))
    written = {wanted[i].decode() for i in seen}
    return Truth(
        truth.planted,
        [v for v in dict.fromkeys(truth.decoys) if v in written],
        truth.kinds,
        [v for v in dict.fromkeys(truth.opaque) if v in written],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--seed", type=int, default=19)
    args = parser.parse_args()
    root, truth = corpus(args.scale, args.seed)
    files = [p for p in root.rglob("*") if p.is_file()]
    total = sum(p.stat().st_size for p in files)
    print(
        f"{root}: {len(files)} files, {total / MB:.1f} MB, {len(truth.planted)} planted, "
        f"{len(truth.decoys)} decoys"
    )


if __name__ == "__main__":
    main()
