#!/usr/bin/env bash
# The MQTT suite: the real buttond binary against a real mosquitto broker (Debian `mosquitto`,
# started by the tests on a free loopback port with a config file of their own; never the
# system service), checked with paho-mqtt. Installs what is missing.
#   BUTTOND_BIN  the server binary (default: .build/release/buttond in the repo)
set -euo pipefail
cd "$(dirname "$0")/../.."

PY=${PYTHON:-python3}
if ! command -v mosquitto >/dev/null 2>&1 && [ ! -x /usr/sbin/mosquitto ]; then
  echo "installing mosquitto"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq mosquitto >/dev/null
fi
if ! "$PY" -c "import pytest, paho.mqtt" >/dev/null 2>&1; then
  echo "installing paho-mqtt and pytest"
  "$PY" -m pip install -q "paho-mqtt>=2,<3" pytest || "$PY" -m pip install -q --break-system-packages "paho-mqtt>=2,<3" pytest
fi

export BUTTOND_BIN="${BUTTOND_BIN:-$PWD/.build/release/buttond}"
cd tests/mqtt
exec "$PY" -m pytest -q -p no:cacheprovider -o console_output_style=classic "$@" .
