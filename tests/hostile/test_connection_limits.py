"""No silent drops (SPEC §6, "Slow clients cannot starve others"; issue 38 item 5).

A connection over `--max-connections-per-ip` or `--max-connections` is answered 503
`too_many_connections` with `Retry-After` and `Connection: close` (not reset, not closed
unanswered), logged at most once a second per address, and counted in /metrics.
`--trusted-proxy` peers have no per-address limit, and the request log's `remote` is the client
their `X-Forwarded-For` names. All traffic is loopback: clients bind 127.0.0.x source addresses.
"""

from __future__ import annotations

import re
import socket
import time

import pytest

from conftest import parse_reply, start_server, stop_server


def _connect(port: int, source: str) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    return s


def _get(s: socket.socket, port: int, path: str = "/healthz", headers: str = "", close: bool = False):
    """One request on an open connection; returns the reply and whether the server then closed."""
    extra = "Connection: close\r\n" if close else ""
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{headers}{extra}\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        assert chunk, f"closed without an answer after {data!r}"
        data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].lower()
    m = re.search(rb"content-length: (\d+)", head)
    want = len(head) + 4 + (int(m.group(1)) if m else 0)
    while len(data) < want:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    return parse_reply(data)


def _closed_cleanly(s: socket.socket) -> bool:
    """True when the server closed with a FIN (recv gives b""), False on a reset or if it stays open."""
    s.settimeout(3)
    try:
        return s.recv(1) == b""
    except (ConnectionResetError, socket.timeout):
        return False


def _refused_counts(server) -> dict[str, int]:
    text = server.request("GET", "/metrics").body.decode()
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r'^buttond_connections_refused_total\{reason="(\w+)"\} (\d+)$', text, re.M)}


def _wait_for_log(server, pattern: str, timeout: float = 3.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while True:
        lines = [l for l in server.log_path.read_text(errors="replace").splitlines() if re.search(pattern, l)]
        if lines or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


def _assert_503(reply):
    assert reply.status == 503, f"{reply.status} {reply.body[:200]!r}"
    assert reply.error()["code"] == "too_many_connections"
    assert reply.header("retry-after") and int(reply.header("retry-after")) >= 1
    assert (reply.header("connection") or "").lower() == "close"


@pytest.fixture
def default_limits():
    srv = start_server("limits-default")
    yield srv
    stop_server(srv)


def test_the_65th_connection_from_one_address_gets_503_logged_and_counted(default_limits):
    server = default_limits
    port = server.port
    held = [_connect(port, "127.0.0.6") for _ in range(64)]
    try:
        # Every one of the 64 is served (one request each, kept open).
        for s in held:
            assert _get(s, port).status == 200
        before = _refused_counts(server)
        assert before == {"per_address": 0, "total": 0}, before
        over = _connect(port, "127.0.0.6")
        _assert_503(_get(over, port))
        assert _closed_cleanly(over), "the refused connection was reset or left open, not closed after its answer"
        over.close()
        # Four more at once: refused too, counted each, but logged once within the second.
        for _ in range(4):
            again = _connect(port, "127.0.0.6")
            _assert_503(_get(again, port))
            again.close()
        # Another address is not held back by the first one's limit.
        other = _connect(port, "127.0.0.7")
        assert _get(other, port, close=True).status == 200
        other.close()
        assert _refused_counts(server) == {"per_address": 5, "total": 0}
        lines = _wait_for_log(server, r"connection refused")
        assert len(lines) == 1, lines
        assert "level=warn" in lines[0] and "remote=127.0.0.6" in lines[0] and "max=64" in lines[0], lines[0]
        # A connection freed makes room: the next one from that address is served again.
        held.pop().close()
        time.sleep(0.3)
        back = _connect(port, "127.0.0.6")
        assert _get(back, port, close=True).status == 200
        back.close()
    finally:
        for s in held:
            s.close()
    server.assert_alive()


def test_a_connection_over_max_connections_gets_503():
    server = start_server("limits-total", "--max-connections", "6")
    try:
        port = server.port
        held = [_connect(port, f"127.0.3.{i + 1}") for i in range(6)]
        for s in held:
            assert _get(s, port).status == 200
        over = _connect(port, "127.0.3.200")
        _assert_503(_get(over, port))
        assert _closed_cleanly(over)
        over.close()
        for s in held:
            s.close()
        time.sleep(0.3)
        assert _refused_counts(server)["total"] == 1
        assert _wait_for_log(server, r"connection refused.*remote=127\.0\.3\.200.*limit=max-connections ")
    finally:
        stop_server(server)


def test_a_trusted_proxy_has_no_per_address_limit_while_others_keep_theirs():
    server = start_server("limits-proxy", "--max-connections-per-ip", "4", "--trusted-proxy", "127.0.4.2")
    try:
        port = server.port
        proxy = [_connect(port, "127.0.4.2") for _ in range(20)]
        assert all(_get(s, port).status == 200 for s in proxy), "a trusted proxy's connection was refused"
        others = [_connect(port, "127.0.4.3") for _ in range(4)]
        assert all(_get(s, port).status == 200 for s in others)
        over = _connect(port, "127.0.4.3")
        _assert_503(_get(over, port))
        over.close()
        # The proxy's 20 are still open and still served.
        assert all(_get(s, port).status == 200 for s in proxy)
        for s in proxy + others:
            s.close()
        assert _refused_counts(server) == {"per_address": 1, "total": 0}
    finally:
        stop_server(server)


def test_the_request_log_takes_the_client_from_a_trusted_proxys_x_forwarded_for():
    server = start_server("limits-xff", "--log-level", "info", "--trusted-proxy", "127.0.5.2,127.0.5.8/29")
    try:
        port = server.port

        def logged_remote(source: str, xff: str | None, marker: str) -> str:
            s = _connect(port, source)
            headers = f"X-Forwarded-For: {xff}\r\n" if xff is not None else ""
            # The path names the request in the log (an unknown button: 404 is fine).
            assert _get(s, port, f"/api/v1/buttons/xff-{marker}", headers, close=True).status == 404
            s.close()
            lines = _wait_for_log(server, rf"msg=request .*path=/api/v1/buttons/xff-{marker} ")
            assert lines, f"no request line for xff-{marker}"
            m = re.search(r"remote=(\S+)", lines[-1])
            assert m, lines[-1]
            return m.group(1)

        # From a trusted proxy: the client it names.
        assert logged_remote("127.0.5.2", "203.0.113.7", "a") == "203.0.113.7"
        # A chain: proxies (trusted, 127.0.5.8/29) are skipped from the right; what the client
        # itself wrote to the left of the first untrusted hop is not believed.
        assert logged_remote("127.0.5.2", "198.51.100.1, 203.0.113.8, 127.0.5.9", "b") == "203.0.113.8"
        # Two X-Forwarded-For headers are one list.
        assert logged_remote("127.0.5.2", "198.51.100.2\r\nX-Forwarded-For: 203.0.113.10", "c") == "203.0.113.10"
        # A hop that is not an address: the proxy's own address.
        assert logged_remote("127.0.5.2", "203.0.113.9, not-an-address", "d") == "127.0.5.2"
        # From anyone else, X-Forwarded-For is ignored.
        assert logged_remote("127.0.5.3", "203.0.113.11", "e") == "127.0.5.3"
        # From a trusted proxy without the header: the proxy.
        assert logged_remote("127.0.5.2", None, "f") == "127.0.5.2"
    finally:
        stop_server(server)


def test_trusted_proxy_takes_only_addresses_and_cidrs():
    import subprocess
    from conftest import buttond_process  # the binary path
    for bad in ["example.com", "10.0.0.0/33", "::1/129", "10.0.0.1/x"]:
        out = subprocess.run([buttond_process.binary(), "serve", "--port", "0", "--trusted-proxy", bad],
                             capture_output=True, text=True, timeout=20)
        assert out.returncode != 0
        assert "--trusted-proxy" in out.stderr, out.stderr
