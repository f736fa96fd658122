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
        self.bench = bench
        self.scheme = scheme
        self.data_dir = data_dir or os.path.join(bench.work, name + "-data")
        os.makedirs(self.data_dir, exist_ok=True)
        self.log_path = os.path.join(bench.work, name + ".log")
        cmd = [bench.buttond, "serve", "--port", "0", "--data-dir", self.data_dir,
               "--public-dir", os.path.join(ROOT, "public"), "--log-level", "error", *extra]
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
    def __init__(self, scenario, metric, value, unit, baseline=None, ratio=None, target="", ok=None, note=""):
        self.__dict__.update(scenario=scenario, metric=metric, value=value, unit=unit, baseline=baseline,
                             ratio=ratio, target=target, ok=ok, note=note)


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


class Bench:
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

    def s1_and_s7(self):
        srv = Buttond(self, "s1", extra=["--threads", str(self.args.threads)])
        try:
            self.create_buttons(srv, "b", 64)
            log("scenario 1: POST press, no handlers")
            wrk(srv.url(), 2)  # warm-up
            r = wrk(srv.url(), self.d)
            self.raw["s1"] = r
            ratio = r["rps"] / self.base["rps"]
            self.row("1 press, no handlers", "throughput", r["rps"], "req/s", self.base["rps"], ratio,
                     "≥ 50 % of baseline", ratio >= 0.5)
            p99 = r["p99_us"] / 1000
            self.row("1 press, no handlers", "p99 latency @50 conns", p99, "ms", self.base["p99_us"] / 1000,
                     p99 / max(self.base["p99_us"] / 1000, 1e-9), "≤ 10 ms", p99 <= 10)
            if r["non2xx"] or r["errors"]:
                self.note("1", f"{r['non2xx']} non-2xx answers and {r['errors']} socket errors")
            self.note("1", f"64 buttons round-robin, wrk -t2 -c50 -d{self.d}s; events durable "
                           "(SQLite WAL, committed before the answer); baseline: same wrk script")
            log(f"scenario 1: {r['rps']:.0f} req/s ({ratio:.1%} of baseline), p99 {p99:.2f} ms")
            if "7" in self.only:
                self.s7(srv)
        finally:
            srv.stop()

    def s7(self, srv):
        log("scenario 7: long-press timer precision under scenario 1's load")
        n, long_ms = 8, 50
        self.create_buttons(srv, "lp", n, {"longPressMs": long_ms})
        out = os.path.join(self.work, "s7-sse.txt")
        clients = SSEClients(self.tool("sse_clients"), srv.port, "/api/v1/events/stream?button=lp%d", n, out, 30)
        join = wrk_background(srv.url(), self.d)
        stop_at = time.monotonic() + self.d - 0.5
        time.sleep(0.5)
        presses = [0]
        lock = threading.Lock()

        def presser(i):
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
            hdr = {"Content-Type": "application/json"}
            rnd = random.Random(i)
            time.sleep(rnd.uniform(0, 0.1))
            while time.monotonic() < stop_at:
                conn.request("POST", f"/api/v1/buttons/lp{i}/down", body=b"{}", headers=hdr)
                conn.getresponse().read()
                time.sleep((long_ms + 150) / 1000)  # well past the deadline: the timer fires in real time
                conn.request("POST", f"/api/v1/buttons/lp{i}/up", body=b"{}", headers=hdr)
                conn.getresponse().read()
                with lock:
                    presses[0] += 1
                time.sleep(rnd.uniform(0.01, 0.06))
            conn.close()

        ths = [threading.Thread(target=presser, args=(i,), daemon=True) for i in range(n)]
        for th in ths:
            th.start()
        for th in ths:
            th.join()
        load = join()
        time.sleep(0.3)
        _, recs = clients.finish("STOP", 30)
        lags = [arr / 1000 - t for (_, _, t, arr, typ) in recs if typ == "long-press"]
        self.raw["s7"] = {"presses": presses[0], "long_presses": len(lags), "load": load}
        if not lags:
            self.row("7 long-press timer", "lag p99", None, "ms", target="≤ 5 ms", ok=False,
                     note="no long-press arrived")
            return
        p50, p99 = pct(lags, 50), pct(lags, 99)
        self.row("7 long-press timer", "lag p50 (SSE arrival − deadline)", p50, "ms", target="", ok=None)
        self.row("7 long-press timer", "lag p99 (SSE arrival − deadline)", p99, "ms", target="≤ 5 ms", ok=p99 <= 5)
        self.note("7", f"{len(lags)} long presses (longPressMs {long_ms}) on {n} buttons, one filtered SSE "
                       f"stream each, while wrk ran scenario 1's load at {load['rps']:.0f} req/s "
                       f"(p99 {load['p99_us'] / 1000:.1f} ms); max lag {max(lags):.1f} ms")
        log(f"scenario 7: long-press lag p50 {p50:.2f} ms, p99 {p99:.2f} ms over {len(lags)}")

    # -- scenario 2 ------------------------------------------------------------------------

    def paced(self, port, rate, duration, nthreads=16, buttons=64):
        """Sends presses at a steady `rate` per second (absolute schedule, keep-alive)."""
        sent, late, errors = [0] * nthreads, [0] * nthreads, [0] * nthreads
        t0 = time.monotonic() + 0.1
        total = int(rate * duration)

        def worker(k):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            hdr = {"Content-Type": "application/json"}
            for i in range(k, total, nthreads):
                due = t0 + i / rate
                now = time.monotonic()
                if due > now:
                    time.sleep(due - now)
                elif now - due > 0.005:
                    late[k] += 1
                conn.request("POST", f"/api/v1/buttons/b{i % buttons}/press", body=b"{}", headers=hdr)
                r = conn.getresponse()
                r.read()
                if r.status != 200:
                    errors[k] += 1
                sent[k] += 1
            conn.close()

        ths = [threading.Thread(target=worker, args=(k,), daemon=True) for k in range(nthreads)]
        for th in ths:
            th.start()
        for th in ths:
            th.join()
        elapsed = time.monotonic() - t0
        return {"sent": sum(sent), "late": sum(late), "errors": sum(errors), "rate": sum(sent) / elapsed}

    def sink_records(self, sink):
        _, text = request(sink.port, "GET", "/dump")
        recs = {}
        for line in text.splitlines():
            seq, t, arr = (int(x) for x in line.split())
            recs.setdefault(seq, (t, arr))  # the first arrival counts
        return recs

    def s2(self):
        log("scenario 2: one webhook handler per button to a local sink")
        sink = CTool(self.tool("sink"))
        srv = Buttond(self, "s2", extra=["--threads", str(self.args.threads)])
        try:
            hook = {"on": ["tap"], "webhook": {"url": f"http://127.0.0.1:{sink.port}/hook"}}
            self.create_buttons(srv, "b", 64, handler=hook)
            r = wrk(srv.url(), self.d)
            self.raw["s2_saturation"] = r
            ratio = r["rps"] / self.base["rps"]
            self.row("2 press + webhook", "input throughput at saturation", r["rps"], "req/s", self.base["rps"],
                     ratio, "≥ 40 % of baseline", ratio >= 0.4)
            drained, info = srv.wait_outbox_empty(self.args.drain_timeout)
            m = metrics(srv.port)
            taps = int(m.get('buttond_control_events_total{type="tap"}', 0))
            got = len(self.sink_records(sink))
            self.row("2 press + webhook", "outbox drained after the load", info if drained else None, "s",
                     target="≤ 1 s", ok=drained and info <= 1)
            all_in = drained and got == taps
            self.row("2 press + webhook", "every event delivered in the end", f"{got}/{taps}", "", target="all",
                     ok=all_in)
            if drained:
                self.note("2", f"saturation: {taps} taps in {self.d}s, outbox drained {info:.1f}s after the load "
                               f"(≈ {got / (self.d + info):.0f} deliveries/s overall)")
            else:
                self.note("2", f"saturation: outbox still {info:.0f} deep after {self.args.drain_timeout}s")
            if r["non2xx"]:
                self.note("2", f"{r['non2xx']} non-2xx answers at saturation (queue full → 503?)")
            log(f"scenario 2: saturation {r['rps']:.0f} req/s ({ratio:.1%}), delivered {got}/{taps}")

            request(sink.port, "GET", "/reset")
            p = self.paced(srv.port, self.args.paced_rate, self.d)
            drained2, _ = srv.wait_outbox_empty(self.args.drain_timeout)
            recs = self.sink_records(sink)
            lags = [arr / 1000 - t for (t, arr) in recs.values()]
            self.raw["s2_paced"] = {"client": p, "delivered": len(recs)}
            med, p99 = (statistics.median(lags) if lags else None), pct(lags, 99)
            self.row("2 press + webhook", f"lag median @ {p['rate']:.0f} inputs/s", med, "ms", target="≤ 5 ms",
                     ok=med is not None and med <= 5)
            self.row("2 press + webhook", f"lag p99 @ {p['rate']:.0f} inputs/s", p99, "ms", target="≤ 50 ms",
                     ok=p99 is not None and p99 <= 50)
            self.note("2", f"paced: {p['sent']} presses, {len(recs)} delivered, {p['late']} sent >5 ms behind "
                           f"schedule, {p['errors']} errors; lag = sink arrival − event t; max "
                           f"{max(lags) if lags else float('nan'):.1f} ms")
            if not drained2 or len(recs) != p["sent"] - p["errors"]:
                self.note("2", f"paced phase: delivered {len(recs)} of {p['sent'] - p['errors']}")
            log(f"scenario 2: lag median {med} ms, p99 {p99} ms")
        finally:
            srv.stop()
            sink.stop()

    # -- scenario 3 ------------------------------------------------------------------------

    def s3(self):
        log("scenario 3: no-op script handler vs adnanh/webhook")
        scripts = os.path.join(self.work, "scripts")
        os.makedirs(scripts, exist_ok=True)
        noop = os.path.join(scripts, "noop.sh")
        with open(noop, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(noop, 0o755)
        conc = self.args.script_concurrency

        # The peer: webhook runs the script per request and answers when it has finished.
        hooks = os.path.join(self.work, "hooks.json")
        with open(hooks, "w") as f:
            json.dump([{"id": "noop", "execute-command": noop, "command-working-directory": scripts,
                        "include-command-output-in-response": True}], f)
        port = free_port()
        wh = spawn(["webhook", "-hooks", hooks, "-ip", "127.0.0.1", "-port", str(port)],
                   stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.work, "webhook.log"), "wb"))
        try:
            for _ in range(200):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.05)
            url = f"http://127.0.0.1:{port}/hooks/noop"
            wrk(url, 2, conns=conc, script="get.lua")
            peer = wrk(url, self.d, conns=conc, script="get.lua")
        finally:
            stop(wh)
        self.raw["s3_webhook"] = peer
        if peer["non2xx"] or peer["errors"]:
            self.note("3", f"webhook: {peer['non2xx']} non-2xx, {peer['errors']} errors")
        peer_rate = (peer["requests"] - peer["non2xx"]) / (peer["duration_us"] / 1e6)

        srv = Buttond(self, "s3", extra=["--threads", str(self.args.threads), "--scripts-dir", scripts,
                                         "--delivery-concurrency", str(conc)])
        try:
            self.create_buttons(srv, "s", conc, handler={"on": ["tap"], "script": {"name": "noop.sh"}})
            # Fill the outbox, then count scripts finished while every worker still has work
            # (a backlog that runs dry inside the window would measure the backlog, not the rate).
            wrk(srv.url(), 4, conns=conc, env={"BENCH_PREFIX": "s", "BENCH_BUTTONS": str(conc)})
            key = 'buttond_deliveries_total{kind="script",outcome="ok"}'
            samples = []
            t_end = time.monotonic() + self.d
            while time.monotonic() < t_end:
                m = metrics(srv.port)
                samples.append((time.monotonic(), m.get(key, 0), m.get("buttond_outbox_depth", 0)))
                if samples[-1][2] <= 2 * conc:
                    break
                time.sleep(0.5)
            (t0, ok0, _), (t1, ok1, depth1) = samples[0], samples[-1]
            rate = (ok1 - ok0) / (t1 - t0) if t1 > t0 else 0
            failed = sum(v for k, v in metrics(srv.port).items()
                         if k.startswith('buttond_deliveries_total{kind="script"') and 'outcome="ok"' not in k)
        finally:
            srv.stop()
        self.raw["s3_buttond"] = {"rate": rate, "samples": samples}
        self.row("3 no-op script", "scripts completed", rate, "/s", peer_rate, rate / peer_rate if peer_rate else None,
                 "≥ webhook (1.0×)", rate >= peer_rate)
        self.note("3", f"both at concurrency {conc}: buttond {conc} buttons × 1 script handler, "
                       f"--delivery-concurrency {conc}, backlog filled first; webhook 2.x with "
                       f"include-command-output-in-response (waits for the script), wrk -c{conc}; "
                       f"script: #!/bin/sh exit 0")
        if failed:
            self.note("3", f"buttond: {failed:.0f} script attempts not ok")
        log(f"scenario 3: buttond {rate:.0f} scripts/s vs webhook {peer_rate:.0f}/s")

    # -- scenario 4 ------------------------------------------------------------------------

    def s4(self):
        n = self.args.buttons
        log(f"scenario 4: {n} buttons registered")
        data = os.path.join(self.work, "s4-data")
        srv = Buttond(self, "s4-init", data_dir=data)  # creates the schema
        srv.stop()
        db = sqlite3.connect(os.path.join(data, "buttond.sqlite3"))
        rows = []
        for i in range(n):
            bid = f"b{i}"
            cfg = json.dumps({"id": bid, "kind": "push", "label": bid, "longPressMs": 500, "maxHoldMs": 60000,
                              "maxTaps": 2, "multiTapMs": 300, "repeatMs": 0}, separators=(",", ":"))
            rows.append((bid, i, cfg))
        with db:
            db.executemany("INSERT INTO buttons (id, position, config) VALUES (?, ?, ?)", rows)
        db.close()

        t0 = time.monotonic()
        srv = Buttond(self, "s4", data_dir=data, extra=["--max-buttons", str(max(n, 100000))])
        try:
            up = None
            while time.monotonic() - t0 < 60:
                try:
                    if request(srv.port, "GET", "/healthz", timeout=2)[0] == 200:
                        up = time.monotonic() - t0
                        break
                except OSError:
                    pass
                time.sleep(0.002)
            rss_start = rss_kb(srv.pid)
            page = must(srv.port, "GET", "/api/v1/buttons?limit=100")
            total = page.get("total")
            first = wrk(srv.url("/api/v1/buttons?limit=100"), max(3, self.d // 2), conns=1, threads=1,
                        script="get.lua")
            deep = wrk(srv.url(f"/api/v1/buttons?offset={n - 100}&limit=100"), max(3, self.d // 2), conns=1,
                       threads=1, script="get.lua")
            rss_end = rss_kb(srv.pid)
        finally:
            srv.stop()
        rss_mb = max(rss_start.get("VmRSS", 0), rss_end.get("VmRSS", 0)) / 1024
        hwm_mb = rss_end.get("VmHWM", 0) / 1024
        self.raw["s4"] = {"startup_s": up, "rss_start_kb": rss_start, "rss_end_kb": rss_end, "first_page": first,
                          "deep_page": deep, "total": total}
        sc = f"4 {n:,} buttons"
        self.row(sc, "resident memory (VmRSS)", rss_mb, "MB", target="≤ 200 MB", ok=rss_mb <= 200)
        self.row(sc, "start-up (spawn → /healthz 200)", up * 1000 if up else None, "ms", target="≤ 2000 ms",
                 ok=up is not None and up <= 2)
        self.row(sc, "GET /buttons?limit=100 p99", first["p99_us"] / 1000, "ms", target="≤ 10 ms",
                 ok=first["p99_us"] <= 10000)
        self.row(sc, f"GET /buttons?offset={n - 100}&limit=100 p99", deep["p99_us"] / 1000, "ms", target="",
                 ok=None)
        self.note("4", f"buttons pre-built in SQLite (the schema from a first start); total reported: {total}; "
                       f"peak RSS (VmHWM) {hwm_mb:.0f} MB; page p50 {first['p50_us'] / 1000:.2f} ms at "
                       f"{first['rps']:.0f} req/s (wrk -c1)")
        log(f"scenario 4: start-up {up}s, RSS {rss_mb:.0f} MB, page p99 {first['p99_us'] / 1000:.2f} ms")

    # -- scenario 5 ------------------------------------------------------------------------

    def s5(self):
        nclients, nevents = self.args.sse_clients, 1000
        log(f"scenario 5: {nclients} SSE clients, burst of {nevents} events")
        srv = Buttond(self, "s5", extra=["--threads", str(self.args.threads)])
        try:
            nb = 50
            self.create_buttons(srv, "e", nb, {"maxTaps": 1})  # a press = 4 events at once
            out = os.path.join(self.work, "s5-sse.txt")
            clients = SSEClients(self.tool("sse_clients"), srv.port, "/api/v1/events/stream", nclients, out, 30)
            inputs = []
            for i in range(nevents // 4):
                inputs += [{"button": f"e{i % nb}", "type": "down"}, {"button": f"e{i % nb}", "type": "up"}]
            t_burst = time.monotonic()
            events = must(srv.port, "POST", "/api/v1/input", inputs)["events"]
            burst_ms = (time.monotonic() - t_burst) * 1000
            seqs = {e["seq"] for e in events}
            status, recs = clients.finish(f"UNTIL {max(seqs)}", 60)
        finally:
            srv.stop()
        per_client = {}
        lags = []
        for c, seq, t, arr, _ in recs:
            if seq in seqs:
                per_client.setdefault(c, set()).add(seq)
                lags.append(arr / 1000 - t)
        complete = sum(1 for c in range(nclients) if len(per_client.get(c, ())) == len(seqs))
        self.raw["s5"] = {"events": len(seqs), "complete_clients": complete, "status": status, "burst_ms": burst_ms}
        sc = "5 SSE fan-out"
        self.row(sc, f"clients that got all {len(seqs)} events", f"{complete}/{nclients}", "", target="all",
                 ok=complete == nclients)
        p99 = pct(lags, 99)
        self.row(sc, "lag p99 (arrival − event t)", p99, "ms", target="≤ 100 ms", ok=p99 is not None and p99 <= 100)
        self.note("5", f"burst = one POST /api/v1/input batch of {len(inputs)} inputs on {nb} buttons "
                       f"(maxTaps 1: 4 events a press), answered in {burst_ms:.0f} ms; lag median {statistics.median(lags) if lags else 0:.1f} ms, "
                       f"max {max(lags) if lags else 0:.1f} ms; clients: {status}")
        log(f"scenario 5: {complete}/{nclients} complete, lag p99 {p99} ms")

    # -- scenario 6 ------------------------------------------------------------------------

    def s6(self):
        sc = "6 engine alone"
        if not self.engine or not os.path.exists(self.engine):
            self.row(sc, "inputs/s on one core", None, "", target="≥ 1,000,000/s", ok=None,
                     note="skipped")
            self.note("6", "SKIPPED: no engine-bench target (add the executableTarget `engine-bench`, "
                           "path bench/engine, to Package.swift; see bench/README.md)")
            log("scenario 6: skipped (no engine-bench target)")
            return
        log("scenario 6: the gesture engine alone")
        out = subprocess.run(["taskset", "-c", "0", self.engine, "3"], capture_output=True, text=True, timeout=120)
        m = re.search(r"ENGINEJSON (.*)", out.stdout)
        if not m:
            raise RuntimeError(f"engine-bench: {out.stdout} {out.stderr}")
        r = json.loads(m.group(1))
        self.raw["s6"] = r
        self.row(sc, "inputs/s on one core", float(r["inputs_per_second"]), "/s", target="≥ 1,000,000/s",
                 ok=r["inputs_per_second"] >= 1_000_000)
        self.note("6", f"ButtonMachine.apply, taps/double taps/long presses/toggle mix, pinned to CPU 0; "
                       f"{r['events']} events from {r['inputs']} inputs")
        log(f"scenario 6: {r['inputs_per_second']} inputs/s")

    # -- scenario 8: presses while a client replays the whole history in a loop -----------

    def fill_history(self, srv, button, events):
        """Writes `events` events (4 a press on a one-tap button) with /api/v1/input batches."""
        presses = events // 4
        t0 = int(time.time() * 1000) - presses * 10 - 60_000
        done = 0
        while done < presses:
            n = min(500, presses - done)
            batch = []
            for k in range(done, done + n):
                batch.append({"button": button, "type": "down", "t": t0 + k * 10})
                batch.append({"button": button, "type": "up", "t": t0 + k * 10 + 5})
            must(srv.port, "POST", "/api/v1/input", batch)
            done += n
        return presses * 4

    def replay_once(self, port, last_seq, timeout=120):
        """Reads /events/stream?after=0 until the event with id last_seq; returns (bytes, seconds)."""
        marker = f"id: {last_seq}\n".encode()
        t0 = time.monotonic()
        total = 0
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(b"GET /api/v1/events/stream?after=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            tail = b""
            while True:
                chunk = s.recv(1 << 16)
                if not chunk:
                    raise RuntimeError(f"replay ended after {total} bytes without id {last_seq}")
                total += len(chunk)
                window = tail + chunk
                if marker in window:
                    return total, time.monotonic() - t0
                tail = window[-64:]

    def s8(self):
        log("scenario 8: presses while one client replays the whole history over the stream in a loop")
        history = 120_000
        # Retention well above what the load adds, so the history being replayed stays whole.
        srv = Buttond(self, "s8", extra=["--threads", str(self.args.threads), "--retention", "5000000"])
        try:
            self.create_buttons(srv, "b", 64)
            self.create_buttons(srv, "h", 1, {"maxTaps": 1})
            last = self.fill_history(srv, "h0", history)
            replays, replay_secs, replay_bytes = [], [], [0]
            stop = threading.Event()
            errors = []

            def replayer():
                while not stop.is_set():
                    try:
                        n, secs = self.replay_once(srv.port, last)
                        replays.append(n)
                        replay_secs.append(secs)
                    except Exception as ex:
                        errors.append(repr(ex))
                        return

            th = threading.Thread(target=replayer, daemon=True)
            th.start()
            time.sleep(0.5)
            r = wrk(srv.url(), self.d)
            stop.set()
            th.join(timeout=130)
            self.raw["s8"] = {"wrk": r, "replays": len(replays), "replay_seconds": replay_secs, "errors": errors}
            p99 = r["p99_us"] / 1000
            self.row("8 press during replay", "p99 latency @50 conns", p99, "ms", target="≤ 10 ms", ok=p99 <= 10)
            self.row("8 press during replay", "throughput", r["rps"], "req/s", self.base["rps"] if self.base else None,
                     r["rps"] / self.base["rps"] if self.base else None, target="", ok=None)
            self.row("8 press during replay", "whole-history replays completed", len(replays), "",
                     target="≥ 1", ok=len(replays) >= 1 and not errors)
            self.note("8", f"{last} events of history (retention 5000000); one client reads "
                           f"/events/stream?after=0 to the last event, again and again, while wrk -c50 presses 64 "
                           f"other buttons; replay took median {statistics.median(replay_secs) if replay_secs else 0:.2f} s"
                           + (f"; replay errors: {errors[:2]}" if errors else ""))
            log(f"scenario 8: p99 {p99:.2f} ms at {r['rps']:.0f} req/s with {len(replays)} replays")
            self.s8_follow(srv, last)
        finally:
            srv.stop()

    def s8_follow(self, srv, last):
        """`buttond events --follow --after 0` must print every event of the history."""
        cmd = [self.buttond, "events", "--follow", "--after", "0", "--server", f"http://127.0.0.1:{srv.port}"]
        p = spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        seen, t0 = 0, time.monotonic()
        deadline = t0 + 120
        try:
            for line in p.stdout:
                if line.strip():
                    seen += 1
                if seen >= last or time.monotonic() > deadline:
                    break
        finally:
            stop(p, timeout=5)
        secs = time.monotonic() - t0
        self.row("8 press during replay", "events --follow --after 0 lines", seen, f"/{last}", target="all",
                 ok=seen >= last)
        self.note("8", f"buttond events --follow --after 0 printed {seen} of {last} events in {secs:.1f} s")

    # -- scenario 9 ------------------------------------------------------------------------

    def seed_deliveries(self, data_dir, handler, n):
        """Writes n finished deliveries (each with one attempt) straight into a stopped
        server's database: far faster than delivering them."""
        import sqlite3
        db = sqlite3.connect(os.path.join(data_dir, "buttond.sqlite3"))
        first = int(time.time() * 1_000_000) - n * 1000
        now_ms = int(time.time() * 1000)
        rows, attempts = [], []
        for k in range(n):
            did = first + k * 1000
            event = f'{{"id":"evt_seed_{k}","seq":{k + 1},"type":"tap","button":"d0","t":{now_ms},"data":{{}}}}'
            rows.append((did, handler, 1, 1, now_ms, now_ms, k + 1, f"evt_seed_{k}", "tap", "d0", now_ms, event.encode()))
            attempts.append((did, 1, now_ms, 3, "ok", 204, ""))
        with db:
            db.executemany("INSERT INTO deliveries (id, handler, status, attempts, next_attempt_at, created_at, "
                           "event_seq, event_id, event_type, button, t, event) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", rows)
            db.executemany("INSERT INTO delivery_attempts (delivery, number, started_at, duration_ms, outcome, "
                           "status_code, output) VALUES (?,?,?,?,?,?,?)", attempts)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()

    def s9(self):
        log("scenario 9: presses while clients poll a delivery log of 500 000")
        n = 500_000
        data = os.path.join(self.work, "s9-data")
        extra = ["--threads", str(self.args.threads), "--delivery-retention", "1000000"]
        srv = Buttond(self, "s9", data_dir=data, extra=extra)
        try:
            self.create_buttons(srv, "b", 64)
            self.create_buttons(srv, "d", 1)
            _, text = request(srv.port, "POST", "/api/v1/buttons/d0/handlers",
                              {"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/unused"}, "enabled": False})
            handler = text["id"]
        finally:
            srv.stop()
        self.seed_deliveries(data, handler, n)
        srv = Buttond(self, "s9b", data_dir=data, extra=extra)
        try:
            _, page = request(srv.port, "GET", f"/api/v1/deliveries?handler={handler}&status=ok&limit=1000")
            seeded = len(page.get("deliveries", [])) if isinstance(page, dict) else 0
            stop = threading.Event()
            polls = {"pending": [], "newest": []}

            def poller(kind, path):
                while not stop.is_set():
                    t0 = time.monotonic()
                    code, _ = request(srv.port, "GET", path)
                    if code == 200:
                        polls[kind].append((time.monotonic() - t0) * 1000)

            threads = [threading.Thread(target=poller, args=("pending", "/api/v1/deliveries?status=pending&limit=10"),
                                        daemon=True),
                       threading.Thread(target=poller, args=("newest", "/api/v1/deliveries?limit=100"), daemon=True)]
            for th in threads:
                th.start()
            time.sleep(0.5)
            r = wrk(srv.url(), self.d)
            stop.set()
            for th in threads:
                th.join(timeout=30)
            self.raw["s9"] = {"wrk": r, "polls": {k: len(v) for k, v in polls.items()}}
            p99 = r["p99_us"] / 1000
            self.row("9 press while the log is polled", "p99 latency @50 conns", p99, "ms", target="≤ 10 ms", ok=p99 <= 10)
            self.row("9 press while the log is polled", "throughput", r["rps"], "req/s",
                     self.base["rps"] if self.base else None, r["rps"] / self.base["rps"] if self.base else None,
                     target="", ok=None)
            self.row("9 press while the log is polled", "seeded log answers a full page", seeded, "/1000", target="1000",
                     ok=seeded == 1000)
            for kind in ("pending", "newest"):
                v = polls[kind]
                self.note("9", f"{kind} polls: {len(v)} in {self.d}s, median {statistics.median(v) if v else 0:.2f} ms, "
                               f"p99 {pct(v, 99) or 0:.2f} ms")
            self.note("9", f"{n} finished deliveries in the log (--delivery-retention 1000000); two clients poll "
                           f"GET /api/v1/deliveries?status=pending&limit=10 and ?limit=100 in a loop while wrk -c50 "
                           f"presses 64 buttons")
            log(f"scenario 9: p99 {p99:.2f} ms at {r['rps']:.0f} req/s; polls {self.raw['s9']['polls']}")
        finally:
            srv.stop()

    # -- scenario 10 -----------------------------------------------------------------------

    def s10(self):
        log("scenario 10: presses at a steady rate with MQTT on; publish lag")
        conf = os.path.join(self.work, "mosquitto.conf")
        broker_port = free_port()
        with open(conf, "w") as f:
            f.write(f"listener {broker_port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
        broker = spawn([shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c", conf],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        # Arrival stamped by the subscriber (%U: Unix time with nanoseconds), then the payload.
        sub = spawn(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker_port), "-q", "1",
                     "-t", "buttond/bench/button/+/event", "-F", "%U %p"], stdout=subprocess.PIPE, text=True)
        arrivals = []

        def read():
            for line in sub.stdout:
                stamp, _, payload = line.partition(" ")
                try:
                    event = json.loads(payload)
                    arrivals.append((float(stamp) * 1000, event["t"], event["id"]))
                except ValueError:
                    pass

        threading.Thread(target=read, daemon=True).start()
        srv = Buttond(self, "s10", extra=["--threads", str(self.args.threads), "--mqtt-url",
                                          f"mqtt://127.0.0.1:{broker_port}", "--instance", "bench", "--no-ha-discovery"])
        try:
            self.create_buttons(srv, "b", 64)
            deadline = time.monotonic() + 10
            while request(srv.port, "GET", "/api/v1/mqtt")[1].get("connection") != "connected":
                if time.monotonic() > deadline:
                    raise RuntimeError("buttond did not connect to the broker")
                time.sleep(0.1)
            p = self.paced(srv.port, self.args.paced_rate, self.d)
            deadline = time.monotonic() + 60
            while request(srv.port, "GET", "/api/v1/mqtt")[1].get("pending", 1) > 0 and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(1)
            m = metrics(srv.port)
            emitted = int(sum(v for k, v in m.items() if k.startswith("buttond_control_events_total")))
        finally:
            srv.stop()
            stop(sub)
            stop(broker)
        got = len({a[2] for a in arrivals})
        lags = [arr - t for arr, t, _ in arrivals]
        med, p99 = (statistics.median(lags) if lags else None), pct(lags, 99)
        self.raw["s10"] = {"client": p, "emitted": emitted, "arrived": got}
        self.row("10 press + MQTT", f"publish lag median @ {p['rate']:.0f} presses/s", med, "ms", target="≤ 5 ms",
                 ok=med is not None and med <= 5)
        self.row("10 press + MQTT", f"publish lag p99 @ {p['rate']:.0f} presses/s", p99, "ms", target="≤ 50 ms",
                 ok=p99 is not None and p99 <= 50)
        self.row("10 press + MQTT", "every event on the broker", f"{got}/{emitted}", "", target="all",
                 ok=got == emitted and emitted > 0)
        self.note("10", f"paced presses ({p['sent']} sent, {p['errors']} errors) on 64 buttons, each event published "
                        f"QoS 1 to a local mosquitto; lag = mosquitto_sub arrival (%U) − event t")
        log(f"scenario 10: lag median {med} ms, p99 {p99} ms, {got}/{emitted} events")

    # -- scenario 11 -----------------------------------------------------------------------

    def s11(self):
        log("scenario 11: press over HTTPS (keep-alive) against raw libmicrohttpd over HTTPS")
        certs = os.path.join(self.work, "tls")
        os.makedirs(certs, exist_ok=True)
        cert, key = os.path.join(certs, "cert.pem"), os.path.join(certs, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                        "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
        b = CTool(self.tool("mhd_baseline"), str(self.args.threads), cert, key)
        try:
            wrk(f"https://127.0.0.1:{b.port}/", 2, script="press.lua")
            base = wrk(f"https://127.0.0.1:{b.port}/", self.d, script="press.lua")
        finally:
            b.stop()
        srv = Buttond(self, "s11", extra=["--threads", str(self.args.threads), "--tls-cert", cert, "--tls-key", key],
                      scheme="https")
        try:
            self.create_buttons(srv, "b", 64)
            wrk(srv.url(), 2, script="press.lua")
            r = wrk(srv.url(), self.d, script="press.lua")
        finally:
            srv.stop()
        self.raw["s11"] = {"baseline": base, "buttond": r}
        ratio = r["rps"] / base["rps"] if base["rps"] else None
        self.row("11 press over HTTPS", "throughput (keep-alive)", r["rps"], "req/s", base["rps"], ratio,
                 target="info", ok=None)
        self.row("11 press over HTTPS", "p99 latency @50 conns", r["p99_us"] / 1000, "ms", base["p99_us"] / 1000,
                 target="≤ 10 ms", ok=r["p99_us"] / 1000 <= 10)
        self.note("11", "wrk -t2 -c50 over TLS 1.3 (P-256 certificate), the same press.lua; the baseline is "
                        "mhd_baseline with the same certificate through libmicrohttpd's TLS")
        log(f"scenario 11: {r['rps']:.0f} req/s vs {base['rps']:.0f} over TLS")

    # -- run -------------------------------------------------------------------------------

    def run(self):
        self.only = set(self.args.only.split(",")) if self.args.only else set("123456789") | {"10", "11"}
        started = time.time()
        steps = []
        if self.only & {"1", "2", "7", "8", "9"}:  # scenario 10 needs no baseline
            steps.append(self.baseline)
        if self.only & {"1", "7"}:
            steps.append(self.s1_and_s7)
        for k, f in (("2", self.s2), ("3", self.s3), ("4", self.s4), ("5", self.s5), ("6", self.s6), ("8", self.s8), ("9", self.s9), ("10", self.s10), ("11", self.s11)):
            if k in self.only:
                steps.append(f)
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
        header = ["scenario", "metric", "buttond", "baseline", "ratio", "target", "result"]
        table = []
        for r in self.rows:
            ratio = "—" if r.ratio is None else (f"{r.ratio:.1%}" if r.ratio < 10 else f"{r.ratio:.1f}×")
            result = {True: "PASS", False: "MISS", None: "info" if r.note != "skipped" else "SKIP"}[r.ok]
            table.append([r.scenario, r.metric, fmt(r.value, r.unit), fmt(r.baseline, r.unit), ratio, r.target,
                          result])
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
    ap.add_argument("--threads", type=int, default=4, help="HTTP worker threads for buttond and the baseline")
    ap.add_argument("--only", default=os.environ.get("BENCH_ONLY", ""), help="e.g. 1,7 (default all)")
    ap.add_argument("--buttons", type=int, default=100000, help="scenario 4's registry size")
    ap.add_argument("--sse-clients", type=int, default=200)
    ap.add_argument("--paced-rate", type=int, default=1000)
    ap.add_argument("--script-concurrency", type=int, default=16)
    ap.add_argument("--drain-timeout", type=int, default=120)
    ap.add_argument("--keep", action="store_true", help="keep the work directory (logs, data)")
    args = ap.parse_args()
    Bench(args).run()


if __name__ == "__main__":
    main()
