#!/usr/bin/env python3
"""A/B: two or more buttond binaries side by side, in interleaved rounds, against the same
ceilings measured in the same rounds (a shared host's speed drifts by half within minutes, so
only figures taken in turns compare).

    python3 bench/ab.py press OLD NEW            # raw libmicrohttpd, the C program, each binary: 1 and 16 buttons
    python3 bench/ab.py hook OLD NEW             # raw libmicrohttpd, then each binary with a webhook a button
    python3 bench/ab.py press --rounds 8 --seconds 3 OLD NEW@--log-level,error

A binary may carry `serve` flags after `@`, comma-separated. Each binary runs with `serve`'s
default flags otherwise (and `--max-connections-per-ip 128`, for wrk's connections). `hook` is
scenario 2's load (64 buttons, a webhook each to tools/sink): each binary's round is followed by
its outbox's drain, and its CPU, read from /proc over the round and the drain, is a press's and
its delivery's. Needs the tools `bash bench/run.sh` builds into .build/bench/.
"""
import argparse
import os
import shutil
import sys
import tempfile
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, Buttond, CTool, alternating, cpu_a_request, cpu_seconds, default_threads, must, wrk  # noqa: E402

TOOLS = os.path.join(ROOT, ".build", "bench")


def server(spec, name, work, handler_url=None):
    """A buttond from `BIN[@flag,flag]` with 64 buttons (a webhook each to `handler_url`)."""
    path, _, flags = spec.partition("@")
    bench = types.SimpleNamespace(buttond=os.path.abspath(path), work=work)
    s = Buttond(bench, name, extra=["--max-connections-per-ip", "128"] + [f for f in flags.split(",") if f])
    for i in range(64):
        must(s.port, "POST", "/api/v1/buttons", {"id": f"b{i}"})
        if handler_url:
            must(s.port, "POST", f"/api/v1/buttons/b{i}/handlers", {"on": ["tap"], "webhook": {"url": handler_url}})
    return s


def rate(rounds):
    return sum(r["requests"] for r in rounds) / (sum(r["duration_us"] for r in rounds) / 1e6)


def spread(ratios):
    """The median of a binary's per-round ratios and their middle half: on a host whose speed
    moves by half within minutes, the rounds' spread says how far apart two binaries must be
    before a difference means anything."""
    ordered = sorted(ratios)
    n = len(ordered)
    median = (ordered[(n - 1) // 2] + ordered[n // 2]) / 2
    return f"{median:.3f}, middle half {ordered[n // 4]:.3f}–{ordered[(3 * n) // 4 - (1 if n % 4 == 0 else 0)]:.3f}"


def press(args, work):
    # The C program writes into a database buttond made, with its 64 buttons.
    first = server(args.binaries[0], "c-data", work)
    first.stop()
    # The baselines at serve's default thread count, which each binary runs with.
    c = CTool(os.path.join(TOOLS, "durable_press"), os.path.join(first.data_dir, "buttond.sqlite3"), str(default_threads()))
    raw = CTool(os.path.join(TOOLS, "mhd_baseline"), str(default_threads()))
    servers = [server(spec, f"s{k}", work) for k, spec in enumerate(args.binaries)]
    loads = [("raw", raw.port, raw.proc.pid), ("C", c.port, c.proc.pid)]
    loads += [(f"b{k}", s.port, s.pid) for k, s in enumerate(servers)]
    try:
        for buttons in ("1", "16"):
            env = {"BENCH_BUTTONS": buttons}
            for _, port, _ in loads:
                wrk(f"http://127.0.0.1:{port}/", 1, env=env)
            measured = alternating({name: (f"http://127.0.0.1:{port}/", env) for name, port, _ in loads}, args.rounds,
                                   args.seconds, pids={name: pid for name, _, pid in loads})
            got = {name: report["rounds"] for name, report in measured.items()}
            line = (f"{buttons:>2} buttons: raw {rate(got['raw']):.0f}, C {rate(got['C']):.0f} "
                    f"({cpu_a_request(got['C']):.1f} us CPU a press)")
            for k in range(len(servers)):
                rounds = got[f"b{k}"]
                us = cpu_a_request(rounds)
                line += (f" | b{k} {rate(rounds):.0f} = {rate(rounds) / rate(got['C']):.3f} x C, "
                         f"{rate(rounds) / rate(got['raw']):.3f} x raw, {us:.1f} us CPU a press, "
                         f"p99 max {max(r['p99_us'] for r in rounds) / 1000:.1f} ms")
            print(line, flush=True)
            for k in range(len(servers)):
                ratios = [b["requests"] / b["duration_us"] / (c["requests"] / c["duration_us"]) for b, c in zip(got[f"b{k}"], got["C"])]
                print(f"    b{k} x C by round: " + " ".join(f"{r:.3f}" for r in ratios) + f" (median {spread(ratios)})", flush=True)
    finally:
        for s in servers:
            s.stop()
        raw.stop()
        c.stop()


def hook(args, work):
    sink = CTool(os.path.join(TOOLS, "sink"))
    raw = CTool(os.path.join(TOOLS, "mhd_baseline"), str(default_threads()))
    servers = [server(spec, f"s{k}", work, f"http://127.0.0.1:{sink.port}/hook") for k, spec in enumerate(args.binaries)]
    try:
        for s in servers:
            wrk(s.url(), 1)
            s.wait_outbox_empty(60)
        wrk(f"http://127.0.0.1:{raw.port}/", 1)
        raws, got = [], {k: [] for k in range(len(servers))}
        for _ in range(args.rounds):
            raws.append(wrk(f"http://127.0.0.1:{raw.port}/", args.seconds))
            for k, s in enumerate(servers):
                before = cpu_seconds(s.pid)
                report = wrk(s.url(), args.seconds)
                drained, after = s.wait_outbox_empty(120)
                report["cpu"] = cpu_seconds(s.pid) - before
                report["drain"] = after if drained else None
                got[k].append(report)
        line = f"raw {rate(raws):.0f}"
        for k, rounds in got.items():
            us = cpu_a_request(rounds)
            drains = [r["drain"] for r in rounds]
            slowest = "not drained" if None in drains else f"drained within {max(drains):.1f} s"
            line += f" | b{k} {rate(rounds):.0f} = {rate(rounds) / rate(raws):.3f} x raw, {us:.1f} us CPU a press and its delivery, {slowest}"
        print(line, flush=True)
        for k, rounds in got.items():
            ratios = [b["requests"] / b["duration_us"] / (r["requests"] / r["duration_us"]) for b, r in zip(rounds, raws)]
            print(f"    b{k} x raw by round: " + " ".join(f"{r:.3f}" for r in ratios) + f" (median {spread(ratios)})")
    finally:
        for s in servers:
            s.stop()
        raw.stop()
        sink.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("load", choices=["press", "hook"])
    parser.add_argument("binaries", nargs="+", help="buttond binaries, each BIN or BIN@flag,flag")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=None, help="each load's turn (press: 2, hook: 3)")
    args = parser.parse_args()
    args.seconds = args.seconds or (2 if args.load == "press" else 3)
    for tool in ("mhd_baseline", "durable_press", "sink"):
        if not os.path.exists(os.path.join(TOOLS, tool)):
            sys.exit(f"{TOOLS}/{tool} is missing: run `bash bench/run.sh --only 12` once to build the tools")
    work = tempfile.mkdtemp(prefix="ab-")
    try:
        (press if args.load == "press" else hook)(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
