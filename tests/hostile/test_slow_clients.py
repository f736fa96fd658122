"""Slow clients (slowloris): 100 connections each sending one byte a second, of the request head or
of a declared body, while other clients are still served quickly."""

from __future__ import annotations

import socket
import statistics
import threading
import time

from conftest import send_raw

SLOW_CONNECTIONS = 100
DURATION = 8.0  # seconds of trickling
FAST_LIMIT = 0.5  # seconds one ordinary request may take meanwhile


def trickle(port: int, source: str, payload: bytes, stop: threading.Event, opened: list, errors: list):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    except OSError as e:
        errors.append(e)
        return
    opened.append(s)
    try:
        for byte in payload:
            if stop.is_set():
                break
            s.sendall(bytes([byte]))
            stop.wait(1.0)
    except OSError:
        pass  # the server may hang up on a slow client; that is allowed
    finally:
        s.close()


def test_slow_clients_do_not_starve_others(server):
    port = server.port
    head = b"GET /api/v1/buttons HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"s" * 64 + b"\r\n\r\n"
    body_head = (b"POST /api/v1/buttons HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n")
    stop = threading.Event()
    opened: list = []
    errors: list = []
    threads = []
    for i in range(SLOW_CONNECTIONS):
        source = f"127.0.1.{i % 4 + 1}"  # the per-address limit (64) would refuse more from one
        if i % 2:
            # The request head a byte a second.
            t = threading.Thread(target=trickle, args=(port, source, head, stop, opened, errors), daemon=True)
        else:
            # The head at once, then the declared body a byte a second.
            t = threading.Thread(target=_slow_body, args=(port, source, body_head, b"{" + b" " * 498 + b"}", stop, opened, errors),
                                 daemon=True)
        threads.append(t)
        t.start()
    time.sleep(1.5)  # every slow connection is open and mid-request
    assert not errors, f"could not open the slow connections: {errors[:3]}"
    assert len(opened) == SLOW_CONNECTIONS

    latencies = []
    deadline = time.monotonic() + DURATION
    try:
        while time.monotonic() < deadline:
            for method, path, body in [("GET", "/healthz", None), ("GET", "/api/v1/buttons", None),
                                       ("POST", "/api/v1/input", b"[]")]:
                start = time.monotonic()
                r = server.request(method, path, body, timeout=5)
                latencies.append(time.monotonic() - start)
                assert r.status == 200, (method, path, r.status, r.body[:200])
            time.sleep(0.05)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=5)
    assert latencies
    worst = max(latencies)
    assert worst < FAST_LIMIT, f"an ordinary request took {worst:.3f}s with {SLOW_CONNECTIONS} slow clients " \
                               f"(median {statistics.median(latencies) * 1000:.1f} ms, {len(latencies)} requests)"
    server.assert_alive()


def _slow_body(port: int, source: str, head: bytes, body: bytes, stop: threading.Event, opened: list, errors: list):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    except OSError as e:
        errors.append(e)
        return
    opened.append(s)
    try:
        s.sendall(head)
        for byte in body:
            if stop.is_set():
                break
            s.sendall(bytes([byte]))
            stop.wait(1.0)
    except OSError:
        pass
    finally:
        s.close()


def test_many_idle_connections_do_not_block_new_ones(server):
    """200 connections from four addresses that send nothing at all; new clients are still served."""
    socks = []
    try:
        for i in range(200):
            socks.append(socket.create_connection(("127.0.0.1", server.port), timeout=5, source_address=(f"127.0.2.{i % 4 + 1}", 0)))
        start = time.monotonic()
        r = send_raw(server.port, b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", timeout=5)
        assert r.status == 200
        assert time.monotonic() - start < FAST_LIMIT
    finally:
        for s in socks:
            s.close()
    server.assert_alive()


# ---- many slow clients from a few addresses (SPEC §6) ------------------------------------------

ATTACKERS = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]
PER_ATTACKER = 250
ATTACK_SECONDS = 24.0


def _open_from(source: str, port: int):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    s.bind((source, 0))
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    return s


def _attack(port: int, stop: threading.Event, held: list):
    """1 000 connections from four addresses: half send a head a byte every 2 s, half a whole
    head with Content-Length: 60000 and then a body byte every 2 s. A closed one is reopened."""
    slow_head = b"GET /api/v1/buttons HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"s" * 200 + b"\r\n\r\n"
    slow_body = b"POST /api/v1/buttons HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n"
    slots = [(source, i % 2) for source in ATTACKERS for i in range(PER_ATTACKER)]
    conns: list = [None] * len(slots)
    sent = [0] * len(slots)
    while not stop.is_set():
        alive = 0
        for n, (source, kind) in enumerate(slots):
            s = conns[n]
            try:
                if s is None:
                    s = conns[n] = _open_from(source, port)
                    sent[n] = 0
                    continue
                if kind == 1 and sent[n] == 0:
                    s.send(slow_body)
                    sent[n] = 1
                else:
                    s.send(slow_head[sent[n] % len(slow_head):][:1] if kind == 0 else b" ")
                    sent[n] += 1
                alive += 1
            except OSError:
                s.close()
                conns[n] = None
        held.append(alive)
        stop.wait(2.0)
    for s in conns:
        if s is not None:
            s.close()


def test_four_addresses_with_a_thousand_slow_connections_cannot_starve_a_victim(server):
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    port = server.port
    server.json_call("POST", "/api/v1/buttons", {"id": "victim"})
    stop = threading.Event()
    held: list = []
    attacker = threading.Thread(target=_attack, args=(port, stop, held), daemon=True)
    attacker.start()
    time.sleep(4.0)  # every slot tried twice: each head or body has begun
    answered = total = 0
    slowest = 0.0
    try:
        deadline = time.monotonic() + ATTACK_SECONDS - 4.0
        while time.monotonic() < deadline:
            total += 1
            start = time.monotonic()
            try:
                r = server.request("POST", "/api/v1/buttons/victim/press", b"{}", timeout=1.0)
                took = time.monotonic() - start
                slowest = max(slowest, took)
                if r.status == 200 and took <= 1.0:
                    answered += 1
            except OSError:
                pass
            time.sleep(0.1)
    finally:
        stop.set()
        attacker.join(timeout=10)
    assert max(held) > 0, "the attack opened no connection"
    assert total >= 50
    assert answered >= 0.95 * total, f"{answered} of {total} presses answered within 1 s " \
                                     f"(slowest {slowest:.2f} s; attacker connections alive per round {held})"
    server.assert_alive()
