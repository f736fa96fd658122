"""The harness's parts: processes, HTTP, wrk, the servers and tools it starts, the table rows."""

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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
LUA = os.path.join(BENCH, "lua")

# ----------------------------------------------------------------------------- processes

_procs = []


def spawn(cmd, **kw):
    p = subprocess.Popen(cmd, **kw)
    _procs.append(p)
    return p


def stop(p, timeout=10):
    if p is None or p.poll() is not None:
        return
    try:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    except ProcessLookupError:
        pass


def stop_all():
    for p in reversed(_procs):
        stop(p, timeout=5)


def _on_signal(signum, frame):
    raise SystemExit(128 + signum)


atexit.register(stop_all)
signal.signal(signal.SIGTERM, _on_signal)
signal.signal(signal.SIGINT, _on_signal)

# ----------------------------------------------------------------------------- helpers


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def pct(values, p):
    """Nearest-rank percentile of a list (p in 0..100)."""
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100.0 * len(s) + 0.5)) - 1))
    return s[k]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Ports served over HTTPS (scenario 11): `request` speaks TLS to them, trusting any certificate.
TLS_PORTS = set()


def request(port, method, path, body=None, timeout=30):
    if port in TLS_PORTS:
        import ssl
        conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout, context=ssl._create_unverified_context())
    else:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=headers)
    r = conn.getresponse()
    raw = r.read()
    conn.close()
    ctype = r.getheader("Content-Type") or ""
    return r.status, (json.loads(raw) if "json" in ctype and raw else raw.decode(errors="replace"))


def must(port, method, path, body=None, ok=(200, 201)):
    status, data = request(port, method, path, body)
    if status not in ok:
        raise RuntimeError(f"{method} {path} -> {status}: {data}")
    return data


def metrics(port):
    """Prometheus text -> {'name{labels}': value}."""
    _, text = request(port, "GET", "/metrics")
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        key, _, value = line.rpartition(" ")
        try:
            out[key] = float(value)
        except ValueError:
            pass
    return out


def rss_kb(pid):
    got = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                got[line.split(":")[0]] = int(line.split()[1])
    return got


def run_threads(target, n):
    """Runs target(0) … target(n - 1) on n threads and waits for all of them."""
    threads = [threading.Thread(target=target, args=(k,), daemon=True) for k in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()


def wrk(url, duration, conns=50, threads=2, script="press.lua", env=None, timeout_s=5):
    cmd = ["wrk", "-t", str(threads), "-c", str(conns), "-d", f"{duration}s", "--timeout", f"{timeout_s}s",
           "-s", os.path.join(LUA, script), url]
    e = dict(os.environ)
    e.update(env or {})
    out = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=duration + 60)
    m = re.search(r"^BENCHJSON (.*)$", out.stdout, re.M)
    if not m:
        raise RuntimeError(f"wrk gave no report: {out.stdout}\n{out.stderr}")
    r = json.loads(m.group(1))
    r["rps"] = r["requests"] / (r["duration_us"] / 1e6)
    r["errors"] = r["connect_errors"] + r["read_errors"] + r["write_errors"] + r["timeouts"]
    return r


def wrk_background(url, duration, conns=50, threads=2, script="press.lua", env=None):
    """Starts wrk and returns a function that waits for it and returns its report."""
    result = {}

    def run():
        try:
            result["r"] = wrk(url, duration, conns, threads, script, env)
        except Exception as ex:  # reported by the caller
            result["error"] = ex

    th = threading.Thread(target=run, daemon=True)
    th.start()

    def join():
        th.join()
        if "error" in result:
            raise result["error"]
        return result["r"]

    return join


class Buttond:
    """One buttond process on a free port with its own data directory."""

    def __init__(self, bench, name, data_dir=None, extra=(), scheme="http"):
        """`serve`'s default flags (what `make run` gives a user) but for `extra`."""
        self.bench = bench
        self.scheme = scheme
        self.data_dir = data_dir or os.path.join(bench.work, name + "-data")
        os.makedirs(self.data_dir, exist_ok=True)
        self.log_path = os.path.join(bench.work, name + ".log")
        cmd = [bench.buttond, "serve", "--port", "0", "--data-dir", self.data_dir,
               "--public-dir", os.path.join(ROOT, "public"), *extra]
        self.started = time.monotonic()
        self.proc = spawn(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, cwd=bench.work)
        self.port = None
        logf = open(self.log_path, "wb")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            logf.write(line)
            logf.flush()
            m = re.search(rb"msg=listening url=https?://127\.0\.0\.1:(\d+)/", line)
            if m:
                self.port = int(m.group(1))
                if scheme == "https":
                    TLS_PORTS.add(self.port)
                break
        if self.port is None:
            logf.close()
            stop(self.proc)
            raise RuntimeError(f"buttond did not start; see {self.log_path}")
        self.listening = time.monotonic()

        def drain():
            for line in self.proc.stderr:
                logf.write(line)
            logf.close()

        threading.Thread(target=drain, daemon=True).start()

    @property
    def pid(self):
        return self.proc.pid

    def url(self, path="/"):
        return f"{self.scheme}://127.0.0.1:{self.port}{path}"

    def stop(self):
        stop(self.proc, timeout=15)

    def wait_outbox_empty(self, timeout):
        t0 = time.monotonic()
        depth = None
        while time.monotonic() - t0 < timeout:
            depth = metrics(self.port).get("buttond_outbox_depth", 0)
            if depth == 0:
                return True, time.monotonic() - t0
            time.sleep(0.25)
        return False, depth


class CTool:
    """A helper from .build/bench that prints port=N on its first line."""

    def __init__(self, path, *args):
        self.proc = spawn([path, *args], stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.match(r"port=(\d+)", line)
        if not m:
            raise RuntimeError(f"{path} did not start: {line!r}")
        self.port = int(m.group(1))

    def stop(self):
        stop(self.proc)


class SSEClients:
    def __init__(self, path_to_tool, port, path, n, out, timeout):
        self.out = out
        self.proc = spawn([path_to_tool, str(port), path, str(n), out, str(timeout)],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if line.strip() != "READY":
            raise RuntimeError(f"sse_clients: {line!r}")

    def finish(self, command, timeout):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        self.proc.wait(timeout=timeout)
        records = []
        with open(self.out) as f:
            for row in f:
                c, seq, t, arr, typ = row.split()
                records.append((int(c), int(seq), int(t), int(arr), typ))
        return line.strip(), records


# ----------------------------------------------------------------------------- results


class Row:
    def __init__(self, scenario, metric, value, unit, baseline=None, ratio=None, target="", ok=None, note="",
                 durable=None, durable_ratio=None):
        # durable / durable_ratio: scenario 12's C program doing a press's durable work (scenario 1 only)
        self.__dict__.update(scenario=scenario, metric=metric, value=value, unit=unit, baseline=baseline,
                             ratio=ratio, target=target, ok=ok, note=note, durable=durable,
                             durable_ratio=durable_ratio)


def fmt(v, unit=""):
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if abs(v) >= 1000:
            s = f"{v:,.0f}"
        elif abs(v) >= 100:
            s = f"{v:.0f}"
        elif abs(v) >= 10:
            s = f"{v:.1f}"
        else:
            s = f"{v:.2f}"
    elif isinstance(v, int):
        s = f"{v:,}"
    else:
        s = str(v)
    return f"{s} {unit}".strip()


# ----------------------------------------------------------------------------- the bench
