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

    def settle(self, port, type_, want=None, timeout=30):
        """Waits until the count of `type_` events reaches `want`, or stops moving for 0.5 s."""
        last, still = event_count(port, type_), time.monotonic()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(0.1)
            n = event_count(port, type_)
            if want is not None and n >= want:
                return n
            if n != last:
                last, still = n, time.monotonic()
            elif time.monotonic() - still >= 0.5:
                break
        return last

    # -- scenario 13 -----------------------------------------------------------------------
    def s13(self):
        log("scenario 13: OSC presses over UDP to durable events")
        sc = "13 OSC in (UDP)"
        port = osc_port()
        srv = Buttond(self, "s13", extra=["--threads", str(self.args.threads), "--osc-port", str(port)])
        try:
            self.create_buttons(srv, "o", 64)
            rates = [int(r) for r in self.args.osc_rates.split(",")]
            sockets = self.args.osc_sockets
            # Ramp: 1 s at each offered rate, up to the first the server does not keep up with.
            # Every touch-down is one `/press` message that became a durable event.
            self.osc_send(port, 2000, 1, sockets)  # warm-up
            self.settle(srv.port, "touch-down")
            ramp, offered = [], rates[-1]
            for rate in rates:
                before = event_count(srv.port, "touch-down")
                s = self.osc_send(port, rate, 1, sockets)
                stored = self.settle(srv.port, "touch-down") - before
                ramp.append({"offered": rate, "sent": s["sent"], "stored": stored})
                if stored < 0.99 * s["sent"]:
                    offered = rate
                    break
            kept = [r["offered"] for r in ramp if r["stored"] >= 0.99 * r["sent"]]
            # The measured run at the first offered rate it did not keep up with (or the last):
            # the durable rate is what the server stored while the sender ran.
            m0, drops0 = metrics(srv.port), udp_drops()
            s = self.osc_send(port, offered, self.d, sockets)
            at_end = event_count(srv.port, "touch-down")
            final = self.settle(srv.port, "touch-down")
            m1, drops1 = metrics(srv.port), udp_drops()
            key = 'buttond_control_events_total{type="touch-down"}'
            during = at_end - int(m0.get(key, 0))
            stored = final - int(m0.get(key, 0))
            rate = during / s["elapsed"]
            got_in = int(m1.get("buttond_osc_messages_in_total", 0) - m0.get("buttond_osc_messages_in_total", 0))
            refused = int(m1.get("buttond_osc_refused_total", 0) - m0.get("buttond_osc_refused_total", 0))
            shortfall = s["sent"] - stored
            self.raw["s13_saturation"] = {"ramp": ramp, "sender": s, "stored": stored, "during": during,
                                          "messages_in": got_in, "refused": refused, "udp_rcvbuf_errors": drops1 - drops0}
            self.row(sc, "durable inputs/s at saturation", rate, "/s", target="≥ 20,000/s", ok=rate >= 20000)
            self.row(sc, f"stored/sent @ {offered:,} offered/s", f"{stored:,}/{s['sent']:,}", "",
                     target="info", ok=None)
            self.note("13", f"osc_send: /buttond/button/oN/press (no args) round-robin over 64 buttons from "
                            f"{sockets} UDP sockets; ramp (1 s each) " +
                            ", ".join(f"{r['offered']:,}/s → {r['stored']:,}/{r['sent']:,}" for r in ramp) +
                            f"; kept up with up to {max(kept) if kept else 0:,}/s")
            self.note("13", f"measured run: {s['sent']:,} sent in {s['elapsed']:.1f}s at {offered:,}/s offered, "
                            f"{stored:,} durable touch-down events ({during:,} while sending: {rate:,.0f}/s), "
                            f"{got_in:,} decoded by buttond, {refused} refused, shortfall {shortfall:,} "
                            f"(UDP RcvbufErrors on the machine +{drops1 - drops0:,})")
            log(f"scenario 13: {rate:.0f} durable inputs/s at {offered}/s offered; stored {stored}/{s['sent']}")

            # Lag at a steady rate: one socket, so the k-th touch-down (by seq) is the k-th message sent.
            lag_rate = self.args.paced_rate
            out = os.path.join(self.work, "s13-sse.txt")
            sendlog = os.path.join(self.work, "s13-sent.txt")
            clients = SSEClients(self.tool("sse_clients"), srv.port, "/api/v1/events/stream", 1, out, 30)
            before = event_count(srv.port, "touch-down")
            p = self.osc_send(port, lag_rate, self.d, 1, sendlog=sendlog)
            self.settle(srv.port, "touch-down", want=before + p["sent"], timeout=10)
            time.sleep(0.5)
            status, recs = clients.finish("STOP", 30)
        finally:
            srv.stop()
        downs = sorted((seq, arr) for _, seq, _, arr, typ in recs if typ == "touch-down")
        with open(sendlog) as f:
            sent_us = [int(line.split()[1]) for line in f]
        lags = []
        if len(downs) == len(sent_us):
            lags = [(arr - t) / 1000 for (_, arr), t in zip(downs, sent_us)]
        med, p99 = (statistics.median(lags) if lags else None), pct(lags, 99)
        self.raw["s13_lag"] = {"sender": p, "events": len(downs), "sse": status}
        self.row(sc, f"lag median @ {lag_rate:,}/s (sent → SSE)", med, "ms", target="info", ok=None)
        self.row(sc, f"lag p99 @ {lag_rate:,}/s (sent → SSE)", p99, "ms", target="info", ok=None)
        self.note("13", f"lag: {p['sent']:,} presses at {lag_rate:,}/s from one socket ({p['late']} sent > 1 ms late), "
                        f"{len(downs):,} touch-down events on one /api/v1/events/stream client; lag = SSE arrival − "
                        f"the moment osc_send handed the datagram to the kernel; max "
                        f"{max(lags) if lags else float('nan'):.2f} ms")
        if not lags:
            self.note("13", f"lag not measured: {len(downs)} touch-down events for {len(sent_us)} messages sent")
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
            p = self.paced(srv.port, self.args.paced_rate, self.d)
            drained, info = srv.wait_outbox_empty(self.args.drain_timeout)
            time.sleep(0.3)
            m = metrics(srv.port)
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
        log(f"scenario 14: lag median {med} ms, p99 {p99} ms, {len(first)}/{taps} arrived, {dupes} duplicates")
