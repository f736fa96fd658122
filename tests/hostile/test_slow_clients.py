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


def trickle(port: int, payload: bytes, stop: threading.Event, opened: list, errors: list):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
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
        if i % 2:
            # The request head a byte a second.
            t = threading.Thread(target=trickle, args=(port, head, stop, opened, errors), daemon=True)
        else:
            # The head at once, then the declared body a byte a second.
            t = threading.Thread(target=_slow_body, args=(port, body_head, b"{" + b" " * 498 + b"}", stop, opened, errors),
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


def _slow_body(port: int, head: bytes, body: bytes, stop: threading.Event, opened: list, errors: list):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
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
    """200 connections that send nothing at all; new clients are still served."""
    socks = []
    try:
        for _ in range(200):
            socks.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
        start = time.monotonic()
        r = send_raw(server.port, b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", timeout=5)
        assert r.status == 200
        assert time.monotonic() - start < FAST_LIMIT
    finally:
        for s in socks:
            s.close()
    server.assert_alive()
