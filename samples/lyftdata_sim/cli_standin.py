# ruff: noqa: S310
# The body of the `lyftdata` CLI stand-in that hostprep writes onto a prepared host's PATH,
# after a shebang and a `SIM = {...}` line (server URL, token, CA file). It only reads.
import json
import ssl
import sys
import urllib.error
import urllib.request

SIM: dict[str, str] = {}  # replaced by the line hostprep writes above this body


def fetch(path: str) -> dict:
    context = None
    if SIM["url"].startswith("https:"):
        context = ssl.create_default_context(cafile=SIM["ca_file"] or None)
    request = urllib.request.Request(SIM["url"] + path)
    if SIM["token"]:
        request.add_header("Authorization", "Bearer " + SIM["token"])
    try:
        with urllib.request.urlopen(request, timeout=10, context=context) as response:
            return json.load(response)
    except urllib.error.HTTPError as exc:
        print(f"lyftdata: server answered {exc.code} for {path}", file=sys.stderr)
        sys.exit(1)
    except (urllib.error.URLError, OSError) as exc:
        print(f"lyftdata: cannot reach the server: {exc}", file=sys.stderr)
        sys.exit(1)


def main(argv: list[str]) -> int:
    if argv[:2] == ["doctor", "--json"]:
        report = fetch("/_sim/doctor")
        print(json.dumps(report, indent=2))
        return 1 if report["summary"]["first_failing_layer"] else 0
    if len(argv) >= 3 and argv[0] == "workers" and argv[1] in ("status", "sysinfo", "logs"):
        worker, what = argv[2], argv[1]
        suffix = "?limit=" + argv[4] if what == "logs" and argv[3:4] == ["--limit"] else ""
        body = fetch(f"/api/workers/{worker}/{what}{suffix}")
        if what == "logs":
            for line in body["lines"]:
                print(f"{line['at']} {line['level']:<5} {line['target']} > {line['message']}")
        else:
            for key, value in body.items():
                print(f"{key}: {json.dumps(value) if isinstance(value, (dict, list)) else value}")
        return 0
    print("lyftdata stand-in: only doctor --json and workers status|sysinfo|logs", file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
