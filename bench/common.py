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


def default_threads():
    """`serve`'s default `--threads` (ServerConfiguration.defaultThreads): one a usable CPU, at
    least 2, at most 64. The baselines get as many, so they keep buttond's thread mode."""
    return min(64, max(2, len(os.sched_getaffinity(0))))


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


def merged(rounds):
    """wrk reports of the same load, taken in turns with other loads, as one report: requests
    and time summed, and the percentiles of all the rounds' requests together (each round's
    latency distribution, interpolated between its `pct` grid, weighted by its requests)."""
    out = {"rounds": rounds}
    for key in ("requests", "duration_us", "bytes", "connect_errors", "read_errors", "write_errors", "timeouts",
                "non2xx", "errors"):
        out[key] = sum(r[key] for r in rounds)
    out["rps"] = out["requests"] / (out["duration_us"] / 1e6)
    out["max_us"] = max(r["max_us"] for r in rounds)

    def below(r, x):  # the share of r's requests at or under x microseconds
        points = [(0.0, 0.0)] + [(p / 100, us) for p, us in r["pct"]] + [(1.0, r["max_us"])]
        if x >= r["max_us"]:
            return 1.0
        for (p0, x0), (p1, x1) in zip(points, points[1:]):
            if x < x1:
                return p0 + (p1 - p0) * ((x - x0) / (x1 - x0) if x1 > x0 else 1.0)
        return 1.0

    total = max(out["requests"], 1)
    for q in (50, 90, 99):
        lo, hi = 0.0, float(out["max_us"])
        for _ in range(60):
            mid = (lo + hi) / 2
            if sum(r["requests"] * below(r, mid) for r in rounds) / total >= q / 100:
                hi = mid
            else:
                lo = mid
        out[f"p{q}_us"] = hi
    return out


def cpu_seconds(pid):
    """User + system CPU of a process so far, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_a_request(rounds):
    """A process's CPU (user + system, µs) a request over `rounds` (reports with `cpu`)."""
    return sum(r["cpu"] for r in rounds) / max(1, sum(r["requests"] for r in rounds)) * 1e6


def alternating(loads, rounds, duration, pids=None):
    """Runs each load of `loads` ({name: (url, env)}) for `duration` seconds, in turn, `rounds`
    times over, and returns {name: merged report}: a change of the machine's speed during the
    run (other tenants of a shared host) then falls on every load alike, where measuring one
    after the other let it fall on one of them. A load named in `pids` ({name: pid}) also gets
    that process's CPU over its rounds (`cpu`, seconds; `cpu_us` a request)."""
    got = {name: [] for name in loads}
    for _ in range(rounds):
        for name, (url, env) in loads.items():
            pid = (pids or {}).get(name)
            before = cpu_seconds(pid) if pid else 0
            report = wrk(url, duration, env=env)
            if pid:
                report["cpu"] = cpu_seconds(pid) - before
            got[name].append(report)
    out = {name: merged(reports) for name, reports in got.items()}
    for name, reports in got.items():
        if all("cpu" in r for r in reports):
            out[name]["cpu_us"] = cpu_a_request(reports)
    return out


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
            # In large reads, as a log collector reads a pipe: a line at a time cost the
            # bench's Python more CPU than the server spent on its lines, on the same cores.
            while chunk := self.proc.stderr.read1(1 << 16):
                logf.write(chunk)
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

    def __init__(self, path, *args, keep_stderr=False):
        # With `keep_stderr`, its stderr goes to a file, read once it has stopped (`stop` returns
        # it; a pipe no one reads while it runs could fill and stop it); otherwise it is ours.
        self.err = tempfile.TemporaryFile() if keep_stderr else None
        self.proc = spawn([path, *args], stdout=subprocess.PIPE, stderr=self.err, text=True)
        line = self.proc.stdout.readline()
        m = re.match(r"port=(\d+)", line)
        if not m:
            raise RuntimeError(f"{path} did not start: {line!r}")
        self.port = int(m.group(1))

    def stop(self):
        """Stops it; what it wrote to stderr if kept, else ""."""
        stop(self.proc)
        if self.err is None or self.err.closed:
            return ""
        self.err.seek(0)
        text = self.err.read().decode(errors="replace")
        self.err.close()
        return text


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
