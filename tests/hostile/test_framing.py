"""Framing as strict as the RFCs' MUSTs (SPEC §6, "Framing is strict"; issue 38 item 6).

Each request below is sent on a raw socket with a second request pipelined behind it that
creates a button. The first must be refused (400 `bad_request`, 421 `host_refused` or 400
`duplicate_parameter`) with `Connection: close`, the connection must close, and the hidden
button must not exist afterwards: had the server read past the refusal, it would.
"""

from __future__ import annotations

import itertools
import json
import socket

import pytest

from conftest import parse_reply

_ids = itertools.count()


def _hidden(port: int) -> tuple[str, bytes]:
    """A request that creates a button with a fresh id: proof, if it exists later, that it ran."""
    bid = f"hidden-{next(_ids)}"
    body = json.dumps({"id": bid}).encode()
    head = (f"POST /api/v1/buttons HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    return bid, head + body


def _exchange(port: int, data: bytes) -> tuple[bytes, bool]:
    """Sends `data`, reads until the server closes (or 5 s pass): the bytes and whether it closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(data)
        out = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    return out, True
                out += chunk
        except ConnectionResetError:
            return out, True
        except socket.timeout:
            return out, False


def _refused_and_nothing_behind_it_ran(server, head: bytes, status: int, code: str):
    bid, hidden = _hidden(server.port)
    data, closed = _exchange(server.port, head + hidden)
    reply = parse_reply(data)
    assert reply.status == status, f"{reply.status} {reply.body[:200]!r}"
    assert reply.error()["code"] == code
    assert (reply.header("connection") or "").lower() == "close"
    assert closed, "the connection stayed open after the refusal"
    assert data.count(b"HTTP/1.1 ") == 1, f"more than one answer: {data!r}"
    assert server.request("GET", f"/api/v1/buttons/{bid}").status == 404, "the request hidden behind it ran"
    return reply


def _chunked(body: bytes) -> bytes:
    return b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"


def _host(server) -> bytes:
    return f"127.0.0.1:{server.port}".encode()


def _healthz_with(line: bytes):
    """A head builder: `GET /healthz` with a good Host, then `line` (which may hold its own CR
    and LF) as the last header."""
    return lambda h: b"GET /healthz HTTP/1.1\r\nHost: " + h + b"\r\n" + line + b"\r\n\r\n"


# (name, head builder): each is refused 400 bad_request.
BAD_REQUESTS = {
    "NUL in a header value": _healthz_with(b"X-A: a\x00b"),
    "NUL at the end of a header value": _healthz_with(b"X-A: a\x00"),
    "NUL at the end of a header before Host": lambda h: b"GET /healthz HTTP/1.1\r\nX-A: a\x00\r\nHost: " + h + b"\r\n\r\n",
    "bare CR inside a header value": _healthz_with(b"X-A: a\rb"),
    "bare CR as a line end": _healthz_with(b"X-A: a\rX-Evil: b"),
    "control byte in a header value": _healthz_with(b"X-A: a\x01b"),
    "ESC in a header value": _healthz_with(b"X-A: \x1b[31mred"),
    "DEL in a header value": _healthz_with(b"X-A: a\x7fb"),
    "obs-fold with a space": _healthz_with(b"X-A: a\r\n b"),
    "obs-fold with a tab": _healthz_with(b"X-A: a\r\n\tb"),
    "obs-fold continuing Host": _healthz_with(b" evil.example"),
    "bare LF line ends": lambda h: b"GET /healthz HTTP/1.1\nHost: " + h + b"\nX-A: a\n\n",
    "one bare LF line end": lambda h: b"GET /healthz HTTP/1.1\r\nHost: " + h + b"\nX-A: a\r\n\r\n",
    "Transfer-Encoding on HTTP/1.0": lambda h: (b"POST /api/v1/buttons HTTP/1.0\r\nHost: " + h +
                                                b"\r\nConnection: keep-alive\r\nContent-Type: application/json\r\n"
                                                b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    "two Origin headers": lambda h: (b"GET /healthz HTTP/1.1\r\nHost: " + h + b"\r\nOrigin: http://" + h +
                                     b"\r\nOrigin: http://evil.example\r\n\r\n"),
    "two Host headers on HTTP/1.1": _healthz_with(b"Host: evil.example"),
    "two Host headers on HTTP/1.0": lambda h: (b"GET /healthz HTTP/1.0\r\nHost: " + h +
                                               b"\r\nHost: evil.example\r\nConnection: keep-alive\r\n\r\n"),
}


@pytest.mark.parametrize("name", list(BAD_REQUESTS))
def test_a_lenient_framing_is_400_and_closed(server, name):
    reply = _refused_and_nothing_behind_it_ran(server, BAD_REQUESTS[name](_host(server)), 400, "bad_request")
    assert reply.error()["message"]


@pytest.mark.parametrize("host", [b"[::1]evil.example", b"127.0.0.1:{port}, evil.example", b"a b", b"[::1", b"127.0.0.1:",
                                  b"127.0.0.1:99999", b"evil.example:80:80", b"evil/example", b"a,b"])
def test_a_host_that_is_not_host_and_port_is_421_and_closed(server, host):
    host = host.replace(b"{port}", str(server.port).encode())
    head = b"GET /healthz HTTP/1.1\r\nHost: " + host + b"\r\n\r\n"
    _refused_and_nothing_behind_it_ran(server, head, 421, "host_refused")


@pytest.mark.parametrize("query", ["limit=1&limit=2", "limit=1&after=0&limit=1", "a&a", "x=1&x"])
def test_a_repeated_query_parameter_is_400_duplicate_parameter(server, query):
    head = f"GET /api/v1/buttons?{query} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode()
    reply = _refused_and_nothing_behind_it_ran(server, head, 400, "duplicate_parameter")
    name = query.split("&")[-1].split("=")[0]
    assert reply.error()["parameter"] == name
    assert f"'{name}'" in reply.error()["message"]


# What stays allowed: these are answered, and the request pipelined behind each runs.
GOOD_REQUESTS = {
    "plain": lambda h: b"GET /healthz HTTP/1.1\r\nHost: " + h + b"\r\n\r\n",
    "an empty line before the request line": lambda h: b"\r\nGET /healthz HTTP/1.1\r\nHost: " + h + b"\r\n\r\n",
    "empty and blank values, tabs": lambda h: (b"GET /healthz HTTP/1.1\r\nHost: " + h +
                                               b"\r\nX-A:\r\nX-B:   \r\nX-C: \tv\t \r\n\r\n"),
    "UTF-8 in a value": _healthz_with(b"X-A: caf\xc3\xa9"),
    "a head of 22 KB": lambda h: (b"GET /healthz HTTP/1.1\r\nHost: " + h + b"\r\n" +
                                  b"".join(b"X-%d: " % i + b"v" * 900 + b"\r\n" for i in range(24)) + b"\r\n"),
    "HTTP/1.0 with one Host, kept alive": lambda h: b"GET /healthz HTTP/1.0\r\nHost: " + h + b"\r\nConnection: keep-alive\r\n\r\n",
    "a chunked body": lambda h: (b"POST /api/v1/buttons HTTP/1.1\r\nHost: " + h + b"\r\nContent-Type: application/json\r\n"
                                 b"Transfer-Encoding: chunked\r\n\r\n" + _chunked(json.dumps({"id": f"chunked-{next(_ids)}"}).encode())),
    "IPv6 loopback Host": lambda h: b"GET /healthz HTTP/1.1\r\nHost: [::1]:" + h.split(b":")[1] + b"\r\n\r\n",
    "localhost Host without a port": lambda h: b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n",
}


@pytest.mark.parametrize("name", list(GOOD_REQUESTS))
def test_ordinary_requests_still_work(server, name):
    bid, hidden = _hidden(server.port)
    hidden = hidden.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1)
    data, _ = _exchange(server.port, GOOD_REQUESTS[name](_host(server)) + hidden)
    first = parse_reply(data)
    assert first.status < 400, f"{first.status} {first.body[:200]!r}"
    assert server.request("GET", f"/api/v1/buttons/{bid}").status == 200, "the request behind it did not run"
