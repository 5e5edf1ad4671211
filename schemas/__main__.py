"""``python -m schemas [--check]``: regenerate or check the JSON Schema files."""

from __future__ import annotations

import sys

from ._export import JSON_DIR, stale_files, write_schemas


def main(argv: list[str]) -> int:
    if argv and argv[0] in {"-h", "--help"}:
        print("usage: python -m schemas [--check]")
        print("  regenerate schemas/json/*.schema.json; --check exits 1 if they are stale")
        return 0
    if argv and argv[0] == "--check":
        stale = stale_files()
        if stale:
            print(f"stale JSON Schemas in {JSON_DIR}: {', '.join(stale)}", file=sys.stderr)
            print("run: python -m schemas", file=sys.stderr)
            return 1
        print("JSON Schemas are up to date")
        return 0
    names = write_schemas()
    print(f"wrote {len(names)} schemas to {JSON_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
