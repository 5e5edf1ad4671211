#!/usr/bin/env bash
# Idempotent set-up of everything bundler's tests and demo need on a fresh Debian machine:
#   * Debian packages: openssh-server (sshd for SSH tests), p7zip-full (7z interop),
#     sqlite3, iproute2 (network namespaces), chromium (headless: the HTML report's browser
#     tests), faketime (libfaketime: a Flux worker whose clock is off), when missing and we
#     are root;
#   * .venv: Python >= 3.11 with bundler installed editable plus test tools and the
#     redaction accelerator (the [fast] extra: hyperscan);
#   * .cache/flux-venv: Python >= 3.12 with flux-core (Flux needs 3.12; it gets its own venv);
#   * samples/keys/sample-identity made 0600 (a clone checks it out readable; bundler refuses that).
# Re-running it is cheap: every step checks before it acts.
set -euo pipefail
cd "$(dirname "$0")/.."

FLUX_VERSION="${BUNDLER_FLUX_VERSION:-0.87.5}"
FLUX_VENV="${BUNDLER_FLUX_VENV:-$PWD/.cache/flux-venv}"
say() { printf 'setup: %s\n' "$*" >&2; }

# --- Debian packages ------------------------------------------------------------------------
missing=()
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || missing+=(openssh-server)
command -v 7z >/dev/null 2>&1 || missing+=(p7zip-full)
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# libfaketime: the Flux lab runs one worker with a clock hours off (LD_PRELOAD, that process only).
command -v faketime >/dev/null 2>&1 || missing+=(faketime)
# PostgreSQL for the Flux fleet's server (samples/flux_fleet: Flux on SQLite slows with every worker).
command -v initdb >/dev/null 2>&1 || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null \
  || missing+=(postgresql)
# A font, so the report's screenshots show text (chromium only recommends one).
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    say "missing Debian packages (${missing[*]}); install them as root, or the tests needing them are skipped"
  fi
fi

# --- bundler's own venv -----------------------------------------------------------------------
find_python() {  # find_python MAJOR.MINOR -> path of a python >= that version, or nothing
  local want="$1" cand
  for cand in "python$want" python3 \
      "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$want"*/bin/python"$want" \
      /root/.pyenv/versions/"$want"*/bin/python"$want" /usr/local/bin/python"$want" /usr/bin/python"$want"; do
    if command -v "$cand" >/dev/null 2>&1 \
        && "$cand" -c "import sys; sys.exit(0 if sys.version_info >= tuple(map(int, '$want'.split('.'))) else 1)" 2>/dev/null; then
      command -v "$cand"; return 0
    fi
  done
  return 1
}

if [ ! -x .venv/bin/python ]; then
  py=$(find_python 3.11) || { say "Python >= 3.11 not found"; exit 2; }
  say "creating .venv with $py"
  "$py" -m venv .venv
fi
stamp=.venv/.bundler-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  say "installing bundler and test tools into .venv"
  # [fast]: the Hyperscan accelerator, so the test comparing it with the pure engine runs here.
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test,fast]' 2>&1 | grep -v "is ignored" >&2 || true
  .venv/bin/python -c "import bundler, pytest" || { say "pip install failed"; exit 2; }
  touch "$stamp"
fi

# --- Flux's venv (Python >= 3.12) -------------------------------------------------------------
if [ ! -x "$FLUX_VENV/bin/flux" ] || ! "$FLUX_VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('flux-core') != '$FLUX_VERSION')" 2>/dev/null; then
  if py312=$(find_python 3.12); then
    say "creating Flux venv at $FLUX_VENV with $py312 (flux-core $FLUX_VERSION)"
    rm -rf "$FLUX_VENV"
    mkdir -p "$(dirname "$FLUX_VENV")"
    "$py312" -m venv "$FLUX_VENV"
    "$FLUX_VENV/bin/python" -m pip install -q --disable-pip-version-check \
      "flux-core[observability]==$FLUX_VERSION" 2>&1 | grep -v "is ignored" >&2 || true
    if ! "$FLUX_VENV/bin/flux" --help >/dev/null 2>&1; then
      rm -rf "$FLUX_VENV"  # a half-installed venv must not look usable
      # scripts/demo.sh sets BUNDLER_FLUX_OPTIONAL=1: it falls back to the LyftData simulator.
      [ "${BUNDLER_FLUX_OPTIONAL:-0}" = 1 ] || { say "flux-core install failed"; exit 2; }
      say "flux-core could not be installed (no network access to PyPI?): the demo uses the LyftData simulator"
    fi
  else
    say "Python >= 3.12 not found: Flux cannot be installed (its tests are skipped, the demo uses the LyftData simulator)"
  fi
fi

# --- psycopg for the fleet's Flux server on PostgreSQL (samples/flux_fleet/postgres.py) -------
# Beside the Flux venv, not in it (the venv may be shared): only the fleet's server gets it on
# its PYTHONPATH. Flux's own extra pins it: flux-core[postgresql] -> psycopg[binary,pool]>=3.2,<4.
FLUX_PG=".cache/flux-postgres"
if [ -x "$FLUX_VENV/bin/python" ] && [ ! -d "$FLUX_PG/psycopg_pool" ]; then
  say "installing psycopg for the Flux fleet into $FLUX_PG"
  "$FLUX_VENV/bin/python" -m pip install -q --disable-pip-version-check --target "$FLUX_PG" \
    "psycopg[binary,pool]>=3.2,<4" 2>&1 | grep -v "is ignored" >&2 || true
  [ -d "$FLUX_PG/psycopg_pool" ] || say "psycopg could not be installed: the Flux fleet test is skipped"
fi

# --- the committed sample identity (a public test key) ----------------------------------------
if [ -f samples/keys/sample-identity ]; then chmod 600 samples/keys/sample-identity; fi
