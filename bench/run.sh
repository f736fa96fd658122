#!/usr/bin/env bash
# `make bench`: builds the release binaries and the C helpers, installs the load tools when
# missing, then runs every scenario (bench/run.py) and prints the table. Results are saved as
# JSON under bench/results/ (git-ignored). Extra arguments go to bench/run.py, e.g.
#   bash bench/run.sh --only 1,7 --duration 5
# Environment: SWIFT (default swift), BENCH_DURATION (seconds per wrk run, default 10),
# BENCH_ONLY (e.g. "1,7").
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
TOOLS=.build/bench

say() { printf '[bench] %s\n' "$*" >&2; }

# --- what a fresh Debian machine with the Swift toolchain is missing --------------------
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v webhook >/dev/null 2>&1 || missing+=(webhook)
command -v mosquitto_sub >/dev/null 2>&1 || missing+=(mosquitto-clients)
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v taskset >/dev/null 2>&1 || missing+=(util-linux)
for p in libmicrohttpd-dev libsqlite3-dev libssl-dev libcurl4-openssl-dev libmosquitto-dev mosquitto liblo-dev libmimalloc-dev; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing: ${missing[*]}"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# --- builds --------------------------------------------------------------------------------
# The Makefile's release build, flags and all (`make release`), so that neither relinks the other's.
read -r -a RELEASE <<< "$(sed -n 's/^RELEASE := //p' Makefile)"
say "building buttond and engine-bench (release: ${RELEASE[*]})"
$SWIFT build "${RELEASE[@]}"

ENGINE_ARGS=()
if ! grep -q '"engine-bench"' Package.swift; then
    say "Package.swift has no engine-bench target: scenario 6 will be skipped"
    ENGINE_ARGS=(--engine-bench "")
fi

say "building the C baseline and helpers"
mkdir -p "$TOOLS"
MHD_FLAGS=$(pkg-config --cflags --libs libmicrohttpd)
# shellcheck disable=SC2086
gcc -O2 -pthread -o "$TOOLS/mhd_baseline" bench/baseline/mhd_baseline.c $MHD_FLAGS
# shellcheck disable=SC2086
gcc -O2 -pthread -o "$TOOLS/durable_press" bench/baseline/durable_press.c $MHD_FLAGS $(pkg-config --cflags --libs sqlite3)
# shellcheck disable=SC2086
gcc -O2 -pthread -o "$TOOLS/sink" bench/tools/sink.c $MHD_FLAGS
gcc -O2 -o "$TOOLS/sse_clients" bench/tools/sse_clients.c
gcc -O2 -pthread -o "$TOOLS/timer_probe" bench/baseline/timer_probe.c
gcc -O2 -o "$TOOLS/osc_send" bench/tools/osc_send.c
gcc -O2 -o "$TOOLS/osc_sink" bench/tools/osc_sink.c

# --- run -------------------------------------------------------------------------------------
# run.py stops every process it starts (atexit and on SIGINT/SIGTERM); the trap makes sure
# run.py itself is stopped if this script is interrupted.
python3 bench/run.py --tools "$TOOLS" "${ENGINE_ARGS[@]}" "$@" &
RUNPY=$!
trap 'kill -TERM "$RUNPY" 2>/dev/null; wait "$RUNPY" 2>/dev/null' INT TERM
trap 'kill -TERM "$RUNPY" 2>/dev/null || true' EXIT
wait "$RUNPY"
