"""Scenarios of what follows input: webhooks (2), scripts against adnanh/webhook (3), a large delivery
log (9), MQTT (10), HTTPS (11)."""

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


class DeliveryScenarios:
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

        run_threads(worker, nthreads)
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
            # Raw libmicrohttpd and buttond in turns, three rounds, the outbox drained after each
            # of buttond's (so deliveries never overlap the raw rounds): the ratio then compares
            # the same stretch of a shared host's time.
            base = CTool(self.tool("mhd_baseline"), str(self.args.threads))
            raws, rounds, drains = [], [], []
            each = max(2, round(self.d / 3))
            try:
                wrk(f"http://127.0.0.1:{base.port}/", 2)
                for _ in range(3):
                    raws.append(wrk(f"http://127.0.0.1:{base.port}/", each))
                    rounds.append(wrk(srv.url(), each))
                    drains.append(srv.wait_outbox_empty(self.args.drain_timeout))
            finally:
                base.stop()
            r, raw = merged(rounds), merged(raws)
            self.raw["s2_saturation"] = {"buttond": r, "raw": raw, "drains": drains}
            ratio = r["rps"] / raw["rps"]
            self.row("2 press + webhook", "input throughput at saturation", r["rps"], "req/s", raw["rps"],
                     ratio, "≥ 40 % of baseline", ratio >= 0.4)
            self.row("2 press + webhook", "input throughput at saturation (issue 43)", r["rps"], "req/s", raw["rps"],
                     ratio, "≥ 22 % of baseline", ratio >= 0.22)
            drained = all(d for d, _ in drains)
            info = max(i for _, i in drains)
            m = metrics(srv.port)
            taps = int(m.get('buttond_control_events_total{type="tap"}', 0))
            got = len(self.sink_records(sink))
            self.row("2 press + webhook", "outbox drained after the load", info if drained else None, "s",
                     target="≤ 1 s", ok=drained and info <= 1)
            all_in = drained and got == taps
            self.row("2 press + webhook", "every event delivered in the end", f"{got}/{taps}", "", target="all",
                     ok=all_in)
            self.row("2 press + webhook", "every event delivered within 15 s (issue 25)", info if drained else None,
                     "s", target="≤ 15 s, all", ok=all_in and info <= 15)
            if drained:
                self.note("2", f"saturation: three rounds of {each} s, each after {each} s of raw libmicrohttpd "
                               f"(baseline: those rounds, {raw['rps']:.0f} req/s); {taps} taps, the outbox drained "
                               + ", ".join(f"{i:.1f}" for _, i in drains) + " s after each round "
                               f"(≈ {got / (3 * each + sum(i for _, i in drains)):.0f} deliveries/s overall)")
            else:
                self.note("2", f"saturation: outbox still {info:.0f} deep after {self.args.drain_timeout}s")
            if r["non2xx"]:
                self.note("2", f"{r['non2xx']} non-2xx answers at saturation (queue full → 503?)")
            log(f"scenario 2: saturation {r['rps']:.0f} req/s ({ratio:.1%} of {raw['rps']:.0f}), delivered {got}/{taps}")

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
