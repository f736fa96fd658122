#!/usr/bin/env bash
# The OSC suite (SPEC §10) with PyPI python-osc as the peer: the real buttond binary taking
# OSC over UDP and TCP (OSC 1.0 size-prefixed and 1.1 SLIP), answering refusals to the sender,
# and telling a feedback target of changes. Installs what is missing. Loopback only.
#   BUTTOND_BIN  the server binary (default: .build/release/buttond in the repo)
set -euo pipefail
cd "$(dirname "$0")/../.."

PY=${PYTHON:-python3}
if ! "$PY" -c "import pytest, pythonosc" >/dev/null 2>&1; then
  echo "installing python-osc and pytest"
  "$PY" -m pip install -q "python-osc>=1.8" pytest || "$PY" -m pip install -q --break-system-packages "python-osc>=1.8" pytest
fi

export BUTTOND_BIN="${BUTTOND_BIN:-$PWD/.build/release/buttond}"
cd tests/osc
exec "$PY" -m pytest -q -p no:cacheprovider -o console_output_style=classic "$@" .
