#!/usr/bin/env bash
# Run bundler's whole test suite (sets up first; see scripts/setup.sh). Extra args go to pytest.
# Exit status is pytest's: "no tests ran" (5) fails like any other failure.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export BUNDLER_FLUX_VENV="${BUNDLER_FLUX_VENV:-$PWD/.cache/flux-venv}"
.venv/bin/python -m ruff check .
.venv/bin/python -m ruff format --check .
.venv/bin/python -m schemas --check
.venv/bin/python -m mypy  # [tool.mypy] in pyproject: bundler, redactors, schemas, samples, bench
.venv/bin/python -m mypy --strict schemas redactors
exec .venv/bin/python -m pytest "$@"
