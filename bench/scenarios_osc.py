"""Scenarios of OSC (SPEC §10): OSC input over UDP to durable events (13), OSC handler lag (14)."""

import os
import random
import re
import socket
import statistics
import subprocess
import time

from common import *  # noqa: F401,F403


def osc_port():
    """A port free for both UDP and TCP, below the ephemeral range (a port bind(0) hands out may
    be taken by another process's client connection before buttond binds it)."""
    for _ in range(200):
        port = random.randint(20000, 30000)
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u, socket.socket() as t:
                u.bind(("127.0.0.1", port))
                t.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
    raise RuntimeError("no free port for OSC")


def udp_drops():
    """The kernel's UDP receive-buffer drops (all sockets of the machine: /proc/net/snmp)."""
    with open("/proc/net/snmp") as f:
        rows = [line.split() for line in f if line.startswith("Udp:")]
    return int(dict(zip(rows[0][1:], rows[1][1:])).get("RcvbufErrors", 0))


def event_count(port, type_):
    return int(metrics(port).get(f'buttond_control_events_total{{type="{type_}"}}', 0))


class OSCScenarios:
    def osc_send(self, port, rate, duration, sockets, sendlog=None, prefix="o"):
        cmd = [self.tool("osc_send"), str(port), str(rate), str(duration), str(sockets), "64", prefix]
        if sendlog:
            cmd.append(sendlog)
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 60)
        m = re.search(r"sent=(\d+) errors=(\d+) elapsed_s=([\d.]+) late=(\d+)", out.stdout)
        if not m:
            raise RuntimeError(f"osc_send: {out.stdout} {out.stderr}")
        return {"sent": int(m.group(1)), "errors": int(m.group(2)), "elapsed": float(m.group(3)),
                "late": int(m.group(4))}

    def drained(self, port, timeout=60):
        """Waits until every OSC message buttond has read is answered (each is a press on a
        known button: a touch-down event, or refused); returns the metrics then."""
        deadline = time.monotonic() + timeout
        while True:
            m = metrics(port)
            done = m.get('buttond_control_events_total{type="touch-down"}', 0) + m.get("buttond_osc_refused_total", 0)
            if done >= m.get("buttond_osc_messages_in_total", 0) or time.monotonic() > deadline:
                return m
            time.sleep(0.1)

    @staticmethod
    def cpu_ms(pid):
        """CPU time (user + system, ms) of each of a process's threads, summed by thread name."""
        out = {}
        tick = 1000 / os.sysconf("SC_CLK_TCK")
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            name = stat[stat.index("(") + 1:stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2:].split()
            out[name] = out.get(name, 0) + (int(fields[11]) + int(fields[12])) * tick
        return out

    # -- scenario 13 -----------------------------------------------------------------------
    def s13(self):
        log("scenario 13: OSC presses over UDP to durable events")
        sc = "13 OSC in (UDP)"
        key = 'buttond_control_events_total{type="touch-down"}'
        port = osc_port()
        srv = Buttond(self, "s13", extra=["--threads", str(self.args.threads), "--osc-port", str(port)])
        try:
            self.create_buttons(srv, "o", 64)
            self.osc_send(port, 2000, 1, 1)  # warm-up
            self.drained(srv.port)

            # Lag at a steady rate: one socket, so the k-th touch-down (by seq) is the k-th message sent.
            lag_rate = self.args.paced_rate
            out = os.path.join(self.work, "s13-sse.txt")
            sendlog = os.path.join(self.work, "s13-sent.txt")
            clients = SSEClients(self.tool("sse_clients"), srv.port, "/api/v1/events/stream", 1, out, 30)
            before = int(metrics(srv.port).get(key, 0))
            p = self.osc_send(port, lag_rate, self.d, 1, sendlog=sendlog)
            lag_stored = int(self.drained(srv.port).get(key, 0)) - before
            time.sleep(0.5)
            newest = must(srv.port, "GET", "/api/v1/events?limit=1")["events"]
            # The client reads on until it has the newest event (a loaded machine's stream trails).
            status, recs = clients.finish(f"UNTIL {newest[0]['seq']}" if newest else "STOP", 60)

            # Throughput: a ramp of 1 s at each offered rate, up to the first the server does not
            # keep up with (fewer stored than sent, or the sender held back by loopback: a UDP
            # socket's sends wait while its datagrams fill the receiver's buffer).
            rates = [int(r) for r in self.args.osc_rates.split(",")]
            sockets = self.args.osc_sockets
            ramp, offered = [], rates[-1]
            for rate in rates:
                before = int(self.drained(srv.port).get(key, 0))
                s = self.osc_send(port, rate, 1, sockets)
                stored = int(self.drained(srv.port).get(key, 0)) - before
                ramp.append({"offered": rate, "sent": s["sent"], "stored": stored})
                if stored < 0.99 * s["sent"] or s["sent"] < 0.95 * rate:
                    offered = rate
                    break
            kept = [r["offered"] for r in ramp if r["stored"] >= 0.99 * r["sent"] and r["sent"] >= 0.95 * r["offered"]]
            # The measured run, at the first offered rate it did not keep up with (or the last):
            # the durable rate is what became events while the sender ran.
            m0, drops0, cpu0 = self.drained(srv.port), udp_drops(), self.cpu_ms(srv.pid)
            s = self.osc_send(port, offered, self.d, sockets)
            at_end = event_count(srv.port, "touch-down")
            m1 = self.drained(srv.port)
            drops1, cpu1 = udp_drops(), self.cpu_ms(srv.pid)
        finally:
            srv.stop()
        during = at_end - int(m0.get(key, 0))
        stored = int(m1.get(key, 0) - m0.get(key, 0))
        rate = during / s["elapsed"]
        read = int(m1.get("buttond_osc_messages_in_total", 0) - m0.get("buttond_osc_messages_in_total", 0))
        refused = int(m1.get("buttond_osc_refused_total", 0) - m0.get("buttond_osc_refused_total", 0))
        waits = int(m1.get("buttond_osc_reader_waits_total", 0) - m0.get("buttond_osc_reader_waits_total", 0))
        cpu = {k: cpu1.get(k, 0) - cpu0.get(k, 0) for k in cpu1}
        # The sequencer applies a batch while its writer commits the one before (older builds: one
        # thread does both): the busier of the two bounds the rate.
        stage = max(("buttond.sequenc", "buttond.writer"), key=lambda k: cpu.get(k, 0))
        seq_us = cpu.get(stage, 0) * 1000 / stored if stored else None
        all_us = sum(cpu.values()) * 1000 / stored if stored else None
        self.raw["s13_saturation"] = {"ramp": ramp, "sender": s, "stored": stored, "during": during, "read": read,
                                      "refused": refused, "reader_waits": waits, "udp_rcvbuf_errors": drops1 - drops0,
                                      "cpu_ms": cpu}
        self.row(sc, "durable inputs/s at saturation", rate, "/s", target="≥ 20,000/s", ok=rate >= 20000)
        self.row(sc, f"stored/sent @ {offered:,}/s offered", f"{stored:,}/{s['sent']:,}", "", target="info", ok=None)
        self.note("13", f"osc_send: /buttond/button/oN/press (no args, one press = down + up, 3.5 events) round-robin "
                        f"over 64 buttons from {sockets} UDP sockets; ramp (1 s each, stored/sent) " +
                        ", ".join(f"{r['offered']:,}/s → {r['stored']:,}/{r['sent']:,}" for r in ramp) +
                        f"; kept up with {max(kept) if kept else 0:,}/s")
        self.note("13", f"measured run: {s['sent']:,} sent in {s['elapsed']:.1f}s ({s['sent'] / s['elapsed']:,.0f}/s; "
                        f"{offered:,}/s offered), {read:,} read by buttond, {stored:,} durable touch-down events "
                        f"({during:,} while sending: {rate:,.0f}/s), {refused} refused; shortfall {s['sent'] - stored:,} "
                        f"(not read: {s['sent'] - read:,}; UDP RcvbufErrors on the machine +{drops1 - drops0:,}); "
                        f"reader waited for the sequencer {waits:,} times")
        if seq_us:
            self.note("13", f"buttond CPU per durable input: {all_us:.1f} µs in all, {seq_us:.1f} µs on {stage}, the "
                            f"busier stage of the pipeline (its ceiling on one free core ≈ {1e6 / seq_us:,.0f}/s); by thread (ms): " +
                            ", ".join(f"{k} {v:.0f}" for k, v in sorted(cpu.items(), key=lambda kv: -kv[1]) if v >= 10))
        log(f"scenario 13: {rate:.0f} durable inputs/s at {offered}/s offered; stored {stored}/{s['sent']}")

        downs = sorted((seq, arr) for _, seq, _, arr, typ in recs if typ == "touch-down")
        with open(sendlog) as f:
            sent_us = [int(line.split()[1]) for line in f]
        lags = []
        if len(downs) == len(sent_us):
            lags = [(arr - t) / 1000 for (_, arr), t in zip(downs, sent_us)]
        med, p99 = (statistics.median(lags) if lags else None), pct(lags, 99)
        self.raw["s13_lag"] = {"sender": p, "stored": lag_stored, "events": len(downs), "sse": status}
        self.row(sc, f"lag median @ {lag_rate:,}/s (sent → SSE)", med, "ms", target="info", ok=None)
        self.row(sc, f"lag p99 @ {lag_rate:,}/s (sent → SSE)", p99, "ms", target="info", ok=None)
        self.note("13", f"lag: {p['sent']:,} presses at {lag_rate:,}/s from one socket ({p['late']} sent > 1 ms late), "
                        f"{len(downs):,} touch-down events on one /api/v1/events/stream client; lag = SSE arrival − "
                        f"the moment osc_send handed the datagram to the kernel; max "
                        f"{max(lags) if lags else float('nan'):.2f} ms")
        if not lags:
            self.note("13", f"lag not measured: {len(downs)} touch-down events on the stream, {lag_stored} stored, for "
                            f"{len(sent_us)} messages sent (matched by order, so only when none is lost)")
        log(f"scenario 13: lag median {med} ms, p99 {p99} ms")

    # -- scenario 14 -----------------------------------------------------------------------
    def s14(self):
        log("scenario 14: one OSC handler per button to a local UDP sink; lag at a steady rate")
        sc = "14 press + OSC out"
        out = os.path.join(self.work, "s14-sink.txt")
        sink = CTool(self.tool("osc_sink"), out)
        srv = Buttond(self, "s14", extra=["--threads", str(self.args.threads)])
        try:
            hook = {"on": ["tap"], "osc": {"url": f"osc.udp://127.0.0.1:{sink.port}", "address": "/bench/{button}",
                                           "args": [{"type": "h", "value": "{t}"}, {"type": "h", "value": "{seq}"}]}}
            self.create_buttons(srv, "b", 64, handler=hook)
            cpu0 = self.cpu_ms(srv.pid)
            p = self.paced(srv.port, self.args.paced_rate, self.d)
            drained, info = srv.wait_outbox_empty(self.args.drain_timeout)
            time.sleep(0.3)
            m = metrics(srv.port)
            cpu1 = self.cpu_ms(srv.pid)
        finally:
            srv.stop()
            sink.stop()
        taps = int(m.get('buttond_control_events_total{type="tap"}', 0))
        ok_sent = int(m.get('buttond_deliveries_total{kind="osc",outcome="ok"}', 0))
        other = int(sum(v for k, v in m.items()
                        if k.startswith('buttond_deliveries_total{kind="osc"') and 'outcome="ok"' not in k))
        first, dupes, bad = {}, 0, 0
        with open(out) as f:
            for line in f:
                seq, t, arr, _ = line.split(maxsplit=3)
                seq, t, arr = int(seq), int(t), int(arr)
                if seq < 0:
                    bad += 1
                elif seq in first:
                    dupes += 1
                else:
                    first[seq] = (t, arr)
        lags = [arr / 1000 - t for t, arr in first.values()]
        med, p99 = (statistics.median(lags) if lags else None), pct(lags, 99)
        self.raw["s14"] = {"client": p, "taps": taps, "deliveries_ok": ok_sent, "deliveries_other": other,
                           "arrived": len(first), "duplicates": dupes, "undecoded": bad, "drained": drained}
        self.row(sc, f"lag median @ {p['rate']:.0f} presses/s", med, "ms", target="≤ 5 ms",
                 ok=med is not None and med <= 5)
        self.row(sc, f"lag p99 @ {p['rate']:.0f} presses/s", p99, "ms", target="≤ 5 ms",
                 ok=p99 is not None and p99 <= 5)
        once = len(first) == taps and dupes == 0 and bad == 0 and taps > 0
        self.row(sc, "every tap arrived once", f"{len(first)}/{taps}", "", target="all, once", ok=once)
        self.note("14", f"paced HTTP presses ({p['sent']} sent, {p['errors']} errors, {p['late']} > 5 ms late) on 64 "
                        f"buttons, each with an OSC handler on tap (osc.udp, /bench/{{button}} ,hh {{t}} {{seq}}) to "
                        f"osc_sink; lag = sink arrival − event t (ms); max {max(lags) if lags else float('nan'):.1f} ms; "
                        f"deliveries ok {ok_sent}, not ok {other}, duplicates {dupes}, undecoded {bad}; outbox "
                        + (f"drained {info:.1f}s after the load" if drained else f"still {info:.0f} deep"))
        cpu = {}
        for k, v in cpu1.items():  # the sixteen senders as one
            name = "buttond.send.*" if k.startswith("buttond.send.") else k
            cpu[name] = cpu.get(name, 0) + v - cpu0.get(k, 0)
        if taps:
            self.note("14", f"buttond CPU per press (µs, thread: total over the run / taps): " +
                            ", ".join(f"{k} {v * 1000 / taps:.0f}" for k, v in sorted(cpu.items(), key=lambda kv: -kv[1])
                                      if v >= 10))
        self.raw["s14"]["cpu_ms"] = cpu
        log(f"scenario 14: lag median {med} ms, p99 {p99} ms, {len(first)}/{taps} arrived, {dupes} duplicates")
