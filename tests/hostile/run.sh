#!/usr/bin/env bash
# The hostile-input suite: schemathesis against the live server and the document it serves, slow
# clients, path traversal, header injection, malformed bodies and headers, auth. Installs pytest and
# schemathesis (PyPI) when missing, then runs pytest against the real binary on 127.0.0.1 only.
#   BUTTOND_BIN           the server binary (default: .build/release/buttond in the repo)
#   HOSTILE_MAX_EXAMPLES  schemathesis examples per operation and mode (default 12; the run also
#                         sends its coverage cases, about 3000 requests in all, ~1 minute)
#   HOSTILE_STRICT=1      also report where the server's validation and the schemas disagree
# schemathesis is pinned to 4.32.5 (works with Python 3.9+, tested on 3.11).
set -euo pipefail
cd "$(dirname "$0")/../.."

SCHEMATHESIS_VERSION=4.32.5
PY=${PYTHON:-python3}
if ! "$PY" -c "import pytest, schemathesis, sys; sys.exit(schemathesis.__version__ != '$SCHEMATHESIS_VERSION')" >/dev/null 2>&1; then
  echo "installing schemathesis==$SCHEMATHESIS_VERSION and pytest"
  "$PY" -m pip install -q "schemathesis==$SCHEMATHESIS_VERSION" pytest \
    || "$PY" -m pip install -q --break-system-packages "schemathesis==$SCHEMATHESIS_VERSION" pytest
fi

export BUTTOND_BIN="${BUTTOND_BIN:-$PWD/.build/release/buttond}"
mkdir -p test-artifacts
cd tests/hostile
exec "$PY" -m pytest -q -p no:cacheprovider -o console_output_style=classic "$@" .
