#!/usr/bin/env bash
# Runs the browser tests: installs headless Chromium + chromedriver (Debian) and selenium + pytest
# (PyPI) when missing, then runs pytest against the real server binary.
#   BUTTOND_BIN   the server binary (default: .build/release/buttond in the repo)
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  echo "installing chromium and chromium-driver"
  SUDO=""
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver
fi

PY=${PYTHON:-python3}
if ! "$PY" -c 'import selenium, pytest' >/dev/null 2>&1; then
  echo "installing selenium and pytest"
  "$PY" -m pip install -q selenium pytest || "$PY" -m pip install -q --break-system-packages selenium pytest
fi

export BUTTOND_BIN="${BUTTOND_BIN:-$PWD/.build/release/buttond}"
mkdir -p test-artifacts
exec "$PY" -m pytest -q -p no:cacheprovider tests/browser "$@"
