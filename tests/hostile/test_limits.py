"""Limits that must hold whatever the route: registry size, handlers per button, open streams, and an
import that must not wipe the registry by accident."""

from __future__ import annotations

import socket
import time

import pytest

from conftest import start_server, stop_server

HOOK = {"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/x"}, "enabled": False}


@pytest.fixture(scope="module")
def small():
    srv = start_server("limits", "--max-buttons", "2", "--max-streams", "3")
    yield srv
    stop_server(srv)


def test_button_and_handler_limits_hold_on_create(small):
    small.request("PUT", "/api/v1/config", '{"buttons": [], "sheets": [], "handlers": []}')
    assert small.json_call("POST", "/api/v1/buttons", {"id": "l1"}).status == 201
    assert small.json_call("POST", "/api/v1/buttons", {"id": "l2"}).status == 201
    r = small.json_call("POST", "/api/v1/buttons", {"id": "l3"})
    assert r.status == 409 and r.error()["code"] == "limit_reached"
    for _ in range(32):
        assert small.json_call("POST", "/api/v1/buttons/l1/handlers", HOOK).status == 201
    r = small.json_call("POST", "/api/v1/buttons/l1/handlers", HOOK)
    assert r.status == 409 and r.error()["code"] == "limit_reached"


def test_config_import_respects_the_limits(small):
    buttons = [{"id": f"c{i}"} for i in range(4)]
    r = small.json_call("PUT", "/api/v1/config", {"buttons": buttons})
    assert r.status in (409, 422), r.status
    r = small.json_call("PUT", "/api/v1/config", {"buttons": [{"id": "c0"}], "handlers": [{**HOOK, "button": "c0"}] * 40})
    assert r.status in (409, 422), r.status


@pytest.mark.parametrize("body", [b"", b"{}"], ids=["empty", "empty-object"])
def test_empty_config_import_is_refused(small, body):
    small.request("PUT", "/api/v1/config", '{"buttons": [{"id": "keep"}]}')
    r = small.request("PUT", "/api/v1/config", body)
    kept = [b["id"] for b in small.request("GET", "/api/v1/buttons").json["buttons"]]
    assert 400 <= r.status < 500 and kept == ["keep"], (r.status, kept)


def open_stream(port: int) -> tuple[socket.socket, bytes]:
    s = socket.create_connection(("127.0.0.1", port), timeout=3)
    s.sendall(b"GET /api/v1/events/stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
    return s, s.recv(300).split(b"\r\n", 1)[0]


def test_stream_limit_answers_503_with_retry_after(small):
    held = []
    try:
        for _ in range(3):
            s, status = open_stream(small.port)
            held.append(s)
            assert b" 200 " in status, status
        r = small.request("GET", "/api/v1/events/stream")
        assert r.status == 503 and r.header("retry-after")
        assert r.error()["code"] == "unavailable"
    finally:
        for s in held:
            s.close()


def test_stream_slot_is_freed_when_the_client_leaves():
    # A fresh server, so that no heartbeat (the first comes 15 s after start) frees the slots by chance.
    srv = start_server("streams", "--max-streams", "3")
    try:
        held = [open_stream(srv.port)[0] for _ in range(3)]
        for s in held:
            s.close()
        time.sleep(1.0)
        s, status = open_stream(srv.port)
        s.close()
        assert b" 200 " in status, status
    finally:
        stop_server(srv)
