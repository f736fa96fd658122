#!/usr/bin/env python3
"""buttond benchmark harness (`make bench` -> bench/run.sh -> this file).

Runs every scenario of issue 9 against a baseline measured in the same run, prints a table
and saves it as JSON under bench/results/. Standard library only. Everything listens on
127.0.0.1; every process it starts is stopped when it ends (also on Ctrl-C / SIGTERM).

run.sh builds what this needs first:
  .build/release/buttond             swift build -c release --product buttond
  .build/release/engine-bench        swift build -c release --product engine-bench (scenario 6)
  .build/bench/mhd_baseline          bench/baseline/mhd_baseline.c (the HTTP ceiling)
  .build/bench/sink                  bench/tools/sink.c (webhook sink that records arrival times)
  .build/bench/sse_clients           bench/tools/sse_clients.c (many SSE clients in one epoll loop)
  .build/bench/durable_press         bench/baseline/durable_press.c (a press's durable work in C, scenario 12)
  .build/bench/osc_send              bench/tools/osc_send.c (paced OSC presses over UDP, scenario 13)
  .build/bench/osc_sink              bench/tools/osc_sink.c (OSC UDP sink that records arrival times, scenario 14)
"""

import argparse
import atexit
import datetime
import http.client
import json
import os
import platform
import random
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from common import *  # noqa: F401,F403
from scenarios_delivery import DeliveryScenarios
from scenarios_input import InputScenarios
from scenarios_osc import OSCScenarios


class Bench(InputScenarios, DeliveryScenarios, OSCScenarios):
    def __init__(self, args):
        self.args = args
        self.d = args.duration
        self.buttond = os.path.abspath(args.buttond)
        self.tools = os.path.abspath(args.tools)
        self.engine = args.engine_bench
        self.work = tempfile.mkdtemp(prefix="buttond-bench-")
        if not args.keep:
            atexit.register(shutil.rmtree, self.work, True)
        self.rows = []
        self.notes = {}
        self.raw = {}
        self.base = None  # the raw C baseline's scenario-1 figures
        self.durable = None  # scenario 12's figures: the same wrk run against durable_press.c

    def row(self, *a, **kw):
        self.rows.append(Row(*a, **kw))

    def note(self, scenario, text):
        self.notes.setdefault(scenario, []).append(text)

    def tool(self, name):
        return os.path.join(self.tools, name)

    def create_buttons(self, srv, prefix, n, config=None, handler=None):
        for i in range(n):
            body = {"id": f"{prefix}{i}"}
            body.update(config or {})
            must(srv.port, "POST", "/api/v1/buttons", body)
            if handler is not None:
                must(srv.port, "POST", f"/api/v1/buttons/{prefix}{i}/handlers", handler)

    # -- scenario 1 (+ the baseline) and 7, which needs scenario 1's load ------------------
    def baseline(self):
        log("baseline: raw libmicrohttpd server, fixed 200")
        b = CTool(self.tool("mhd_baseline"), str(self.args.threads))
        try:
            wrk(f"http://127.0.0.1:{b.port}/", 2, script="press.lua")  # warm-up
            self.base = wrk(f"http://127.0.0.1:{b.port}/", self.d, script="press.lua")
        finally:
            b.stop()
        self.raw["baseline"] = self.base
        log(f"baseline: {self.base['rps']:.0f} req/s, p99 {self.base['p99_us'] / 1000:.2f} ms")

    # -- run -------------------------------------------------------------------------------
    def run(self):
        self.only = set(self.args.only.split(",")) if self.args.only else set("123456789") | {"10", "11", "12", "13", "14"}
        started = time.time()
        steps = []
        if self.only & {"1", "7"}:
            steps.append(self.s1_and_s7)  # measures the baseline (and scenario 12) in turns with buttond
        elif "12" in self.only:
            steps.append(self.s12_measure)  # in turns with the baseline
        elif self.only & {"2", "8", "9"}:  # scenario 10 needs no baseline
            steps.append(self.baseline)
        for k, f in (("2", self.s2), ("3", self.s3), ("4", self.s4), ("5", self.s5), ("6", self.s6), ("8", self.s8), ("9", self.s9), ("10", self.s10), ("11", self.s11),
                     ("13", self.s13), ("14", self.s14)):
            if k in self.only:
                steps.append(f)
        if "12" in self.only:
            steps.append(self.s12_rows)  # its rows after the others, in scenario order
        for f in steps:
            try:
                f()
            except Exception as ex:  # one broken scenario must not hide the others
                name = f.__name__
                log(f"{name} FAILED: {ex!r}")
                self.rows.append(Row(name, "error", None, "", target="", ok=False, note=repr(ex)[:200]))
                self.note(name, f"ERROR: {ex!r}")
        self.report(time.time() - started)

    def machine(self):
        def sh(cmd):
            try:
                return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
            except Exception:
                return ""

        cpu = ""
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) // 1024
        return {"cpu": cpu, "cores": os.cpu_count(), "memory_mb": mem, "kernel": platform.release(),
                "swift": sh(["swift", "--version"]).splitlines()[0] if shutil.which("swift") else "",
                "libmicrohttpd": sh(["pkg-config", "--modversion", "libmicrohttpd"]),
                "sqlite": sqlite3.sqlite_version,
                "commit": sh(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]),
                "http_threads": self.args.threads}

    def report(self, elapsed):
        mach = self.machine()
        header = ["scenario", "metric", "buttond", "baseline", "ratio", "vs durable C", "target", "result"]
        table = []
        for r in self.rows:
            ratio = "—" if r.ratio is None else (f"{r.ratio:.1%}" if r.ratio < 10 else f"{r.ratio:.1f}×")
            result = {True: "PASS", False: "MISS", None: "info" if r.note != "skipped" else "SKIP"}[r.ok]
            durable = "—" if r.durable_ratio is None else f"{r.durable_ratio:.1%} of {fmt(r.durable, r.unit)}"
            table.append([r.scenario, r.metric, fmt(r.value, r.unit), fmt(r.baseline, r.unit), ratio, durable,
                          r.target, result])
        widths = [max(len(str(x)) for x in col) for col in zip(header, *table)]
        line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
        print()
        print(f"buttond benchmark — {datetime.datetime.now().isoformat(timespec='seconds')} — "
              f"{mach['cpu']}, {mach['cores']} cores, {mach['memory_mb']} MB, commit {mach['commit']}, "
              f"{elapsed:.0f}s")
        print(line(header))
        print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
        for row in table:
            print(line(row))
        print()
        for k in sorted(self.notes):
            for n in self.notes[k]:
                print(f"  [{k}] {n}")
        print()
        os.makedirs(os.path.join(BENCH, "results"), exist_ok=True)
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        path = os.path.join(BENCH, "results", f"bench-{stamp}.json")
        doc = {"when": datetime.datetime.now().isoformat(timespec="seconds"), "elapsed_s": round(elapsed, 1),
               "machine": mach, "duration_s": self.d,
               "rows": [r.__dict__ for r in self.rows], "notes": self.notes, "raw": self.raw}
        with open(path, "w") as f:
            json.dump(doc, f, indent=1, default=str)
        shutil.copyfile(path, os.path.join(BENCH, "results", "latest.json"))
        print(f"saved {os.path.relpath(path, ROOT)} (and bench/results/latest.json)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--buttond", default=os.path.join(ROOT, ".build/release/buttond"))
    ap.add_argument("--engine-bench", default=os.path.join(ROOT, ".build/release/engine-bench"))
    ap.add_argument("--tools", default=os.path.join(ROOT, ".build/bench"))
    ap.add_argument("--duration", type=int, default=int(os.environ.get("BENCH_DURATION", "10")),
                    help="seconds of each measured wrk run (default 10)")
    ap.add_argument("--threads", type=int, default=default_threads(),
                    help="HTTP worker threads for buttond and the baselines (default: serve's own, one a CPU, at least 2)")
    ap.add_argument("--only", default=os.environ.get("BENCH_ONLY", ""), help="e.g. 1,7 (default all)")
    ap.add_argument("--buttons", type=int, default=100000, help="scenario 4's registry size")
    ap.add_argument("--sse-clients", type=int, default=200)
    ap.add_argument("--paced-rate", type=int, default=1000)
    ap.add_argument("--osc-rates", default="5000,10000,20000,40000,80000",
                    help="scenario 13's ramp of offered OSC rates (/s); the measured run uses the first one "
                         "buttond does not keep up with, or the last")
    ap.add_argument("--osc-sockets", type=int, default=4, help="scenario 13's UDP sockets")
    ap.add_argument("--script-concurrency", type=int, default=16)
    ap.add_argument("--drain-timeout", type=int, default=120)
    ap.add_argument("--keep", action="store_true", help="keep the work directory (logs, data)")
    args = ap.parse_args()
    Bench(args).run()


if __name__ == "__main__":
    main()
