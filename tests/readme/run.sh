#!/usr/bin/env bash
# The shell blocks of README.md and docs/*.md, run as pasted against the real binary (installs
# pytest if missing). How a block is marked (skip, own-server, expect): tests/readme/test_readme.py.
#   BUTTOND_BIN  the server binary (default: .build/release/buttond in the repo)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python3}
"$PY" -c "import pytest" >/dev/null 2>&1 || "$PY" -m pip install -q pytest || "$PY" -m pip install -q --break-system-packages pytest
export BUTTOND_BIN="${BUTTOND_BIN:-$PWD/.build/release/buttond}"
exec "$PY" -m pytest -q -p no:cacheprovider -o console_output_style=classic "$@" tests/readme
