"""Hostile request bodies and headers: each is a clear 4xx with the JSON error shape, and the
server still answers afterwards."""

from __future__ import annotations

import json

import pytest

from conftest import send_raw


@pytest.fixture(scope="module")
def door(server):
    r = server.json_call("POST", "/api/v1/buttons", {"id": "hb-door"})
    assert r.status in (201, 409), r.body
    return "/api/v1/buttons/hb-door"


def release(server, door):
    server.request("POST", door + "/cancel", b"{}")


# (name, body bytes, expected status, expected error code)
MALFORMED = [
    ("invalid-utf8-in-string", b'{"pointer":"a\xff\xfe"}', 400, "bad_request"),
    ("invalid-utf8-in-key", b'{"\xc3\x28":1}', 400, "bad_request"),
    ("overlong-utf8", b'{"pointer":"\xc0\xaf"}', 400, "bad_request"),
    ("utf8-surrogate-bytes", b'{"pointer":"\xed\xa0\x80"}', 400, "bad_request"),
    ("lone-surrogate-escape", b'{"pointer":"\\ud800"}', 400, "bad_request"),
    ("raw-nul-in-string", b'{"pointer":"a\x00b"}', 400, "bad_request"),
    ("nul-after-value", b'{}\x00', 400, "bad_request"),
    ("nul-only", b'\x00', 400, "bad_request"),
    ("number-1e400", b'{"t":1e400}', 400, "bad_request"),
    ("number-minus-1e400", b'{"t":-1e400}', 400, "bad_request"),
    ("nan", b'{"t":NaN}', 400, "bad_request"),
    ("infinity", b'{"t":Infinity}', 400, "bad_request"),
    ("deep-array-10000", b"[" * 10000 + b"]" * 10000, 400, "bad_request"),
    ("deep-object-10000", b'{"a":' * 10000 + b"1" + b"}" * 10000, 400, "bad_request"),
    ("deep-unclosed-60000", b"[" * 60000, 400, "bad_request"),
    ("duplicate-keys", b'{"t":1,"t":2}', 400, "bad_request"),
    ("duplicate-keys-nested", b'{"pointer":"a","t":5,"pointer":"b"}', 400, "bad_request"),
    ("trailing-data", b"{} {}", 400, "bad_request"),
    ("whitespace-only", b"   ", 400, "bad_request"),
    ("byte-order-mark", b"\xef\xbb\xbf{}", 400, "bad_request"),
    ("single-quotes", b"{'t':1}", 400, "bad_request"),
    ("trailing-comma", b'{"t":1,}', 400, "bad_request"),
    ("not-an-object", b"[]", 400, "bad_request"),
    ("wrong-type", b'{"t":"5"}', 400, "bad_request"),
    ("huge-integer", b'{"t":99999999999999999999}', 422, "invalid_value"),
    ("huge-negative-integer", b'{"t":-99999999999999999999}', 422, "invalid_value"),
    ("int64-max-plus-one", b'{"t":9223372036854775808}', 422, "invalid_value"),
    ("t-over-2^53", b'{"t":9007199254740993}', 422, "invalid_value"),
    ("fractional", b'{"t":1.5}', 422, "invalid_value"),
    ("negative", b'{"t":-1}', 422, "invalid_value"),
    ("unknown-field", b'{"tt":1}', 422, "invalid_value"),
    ("escaped-nul-in-unknown-key", b'{"t\\u0000":1}', 422, "invalid_value"),
    ("pointer-too-long", b'{"pointer":"' + b"p" * 65 + b'"}', 422, "invalid_value"),
]


@pytest.mark.parametrize("name,body,status,code", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_body_is_a_clear_4xx(server, door, name, body, status, code):
    r = server.request("POST", door + "/down", body)
    release(server, door)
    assert r.status == status, (r.status, r.body[:300])
    err = r.error()
    assert err["code"] == code
    if status == 422 or name == "wrong-type":
        assert err.get("field"), err
    server.assert_alive()


@pytest.mark.parametrize("path", ["/api/v1/buttons", "/api/v1/sheets", "/api/v1/input", "/api/v1/config"])
@pytest.mark.parametrize("body", [b'{"a":' * 5000 + b"1" + b"}" * 5000, b"[" * 10000 + b"]" * 10000],
                         ids=["deep-object", "deep-array"])
def test_deep_json_everywhere(server, path, body):
    method = "PUT" if path.endswith("config") else "POST"
    r = server.request(method, path, body)
    assert r.status == 400, (r.status, r.body[:200])
    assert r.error()["code"] == "bad_request"
    server.assert_alive()


def test_batch_error_names_the_index(server, door):
    batch = [{"button": "hb-door", "type": "down", "t": 10}, {"button": "hb-door", "type": "up", "t": 1e400}]
    raw = json.dumps(batch).replace("Infinity", "1e400").encode()
    r = server.request("POST", "/api/v1/input", raw)
    assert r.status == 400 and r.error()["code"] == "bad_request"
    r = server.json_call("POST", "/api/v1/input", [{"button": "hb-door", "type": "down"}, {"button": "hb-door", "type": "jump"}])
    assert r.status == 422
    err = r.error()
    assert err["index"] == 1 and err["field"] == "[1].type"
    r = server.json_call("POST", "/api/v1/input", [{"button": "hb-door", "type": "down"}, {"button": "nope", "type": "up"}])
    assert r.status == 404 and r.error()["index"] == 1
    # All or nothing: the first input was not applied.
    assert server.request("GET", door).json["state"]["held"] is False


def test_nul_in_strings_is_refused_or_kept_whole(server):
    """An escaped NUL is valid JSON; where a name is expected it is a 422, elsewhere it must
    round-trip intact (no C-string truncation in storage)."""
    r = server.json_call("POST", "/api/v1/buttons", {"id": "hb-\u0000x"})
    assert r.status == 422 and r.error()["field"] == "id"
    r = server.json_call("POST", "/api/v1/buttons", {"id": "hb-nul", "label": "a\u0000b"})
    assert r.status in (201, 422), r.body
    if r.status == 201:
        assert server.request("GET", "/api/v1/buttons/hb-nul").json["label"] == "a\u0000b"
        exported = [b for b in server.request("GET", "/api/v1/config").json["buttons"] if b["id"] == "hb-nul"]
        assert exported and exported[0]["label"] == "a\u0000b"
    else:
        assert r.error()["field"] == "label"
    server.assert_alive()


def test_huge_numbers_in_config_fields(server):
    for value in ["1e400", "99999999999999999999", "-99999999999999999999", "1e308", "4.9e-324", "-0"]:
        r = server.request("POST", "/api/v1/buttons", f'{{"id":"hb-num","longPressMs":{value}}}')
        assert 400 <= r.status < 500, (value, r.status, r.body)
        err = r.error()
        assert err["code"] in ("bad_request", "invalid_value"), (value, err)
    server.assert_alive()


def test_empty_body_with_json_content_type(server, door):
    # All-optional bodies read an empty body as {}.
    r = server.request("POST", door + "/down", b"", content_type="application/json")
    assert r.status == 200, r.body
    release(server, door)
    # Bodies with a required member: 422 naming it, or 400 for the batch (not an array).
    r = server.request("POST", door + "/move", b"")
    assert r.status == 422 and r.error()["field"] == "inside"
    r = server.request("POST", "/api/v1/buttons", b"")
    assert r.status == 422 and r.error()["field"] == "id"
    r = server.request("POST", "/api/v1/input", b"")
    assert r.status == 400 and r.error()["code"] == "bad_request"
    server.assert_alive()


@pytest.mark.parametrize("ctype", ["text/plain", "multipart/form-data; boundary=x",
                                   "application/xml", "application/jsonx", "json", ""])
def test_wrong_content_type_is_415(server, door, ctype):
    r = server.request("POST", door + "/down", b"{}", content_type=ctype)
    release(server, door)
    if ctype == "":
        # An empty Content-Type header is not a media type; refusing or accepting is fine, not a 5xx.
        assert r.status in (200, 415), r.body
        if r.status == 415:
            r.error()
        return
    assert r.status == 415, (ctype, r.status, r.body)
    assert r.error()["code"] == "unsupported_media_type"


@pytest.mark.parametrize("ctype", ["application/json; charset=utf-8", "APPLICATION/JSON", "application/merge-patch+json"])
def test_json_content_types_are_accepted(server, door, ctype):
    r = server.request("POST", door + "/down", b"{}", content_type=ctype)
    release(server, door)
    assert r.status == 200, (ctype, r.body)


def test_form_content_type_is_taken_only_when_the_body_is_json(server, door):
    """curl -d's default type: a JSON body is read, anything else is 415."""
    form = "application/x-www-form-urlencoded"
    r = server.request("POST", door + "/down", b"{}", content_type=form)
    release(server, door)
    assert r.status == 200, r.body
    for body in [b"a=b", b"t=1&pointer=x", b'{"t":1', b"\xff"]:
        r = server.request("POST", door + "/down", body, content_type=form)
        release(server, door)
        assert r.status == 415, (body, r.status, r.body)
        assert r.error()["code"] == "unsupported_media_type"


def test_missing_content_type_is_read_as_json(server, door):
    r = server.request("POST", door + "/down", b"{}", content_type=None)
    release(server, door)
    assert r.status == 200


def test_body_over_64k_declared_is_413(server):
    body = b'{"id":"hb-big","label":"' + b"a" * 70000 + b'"}'
    r = server.request("POST", "/api/v1/buttons", body)
    assert r.status == 413
    assert r.error()["code"] == "payload_too_large"
    server.assert_alive()


def test_body_over_64k_declared_but_not_sent_is_413_at_once(server):
    """Refused from the Content-Length alone: the client never sends the body."""
    head = (f"POST /api/v1/buttons HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n"
            f"Content-Length: {10 * 1024 * 1024}\r\n\r\n").encode()
    r = send_raw(server.port, head, timeout=5)
    assert r.status == 413 and r.error()["code"] == "payload_too_large"


def test_body_over_64k_chunked_is_413(server):
    chunk = b" " * 70000
    raw = (b"POST /api/v1/buttons HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n"
           b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % len(chunk) + chunk + b"\r\n0\r\n\r\n")
    r = send_raw(server.port, raw)
    assert r.status == 413 and r.error()["code"] == "payload_too_large"
    server.assert_alive()


def test_body_exactly_64k_is_read(server):
    prefix, suffix = b'{"id":"hb-64k","label":"x"', b"}"
    body = prefix + b" " * (65536 - len(prefix) - len(suffix)) + suffix
    assert len(body) == 65536
    r = server.request("POST", "/api/v1/buttons", body)
    assert r.status in (201, 409), r.body


def _big_header_request():
    return (b"GET /api/v1/buttons HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n")


def test_headers_over_the_memory_limit_are_431(server):
    r = send_raw(server.port, _big_header_request())
    assert r.status == 431, (r.status, r.body[:200])
    many = b"".join(b"X-H%d: %s\r\n" % (i, b"b" * 100) for i in range(400))
    r = send_raw(server.port, b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" + many + b"\r\n")
    assert r.status == 431
    server.assert_alive()


@pytest.mark.xfail(strict=True, reason="FINDING: libmicrohttpd answers 431 (and 414 for a long URL) itself with an HTML "
                   "page, not the JSON error shape; the request never reaches Callbacks.swift")
def test_headers_over_the_memory_limit_get_the_json_error_shape(server):
    r = send_raw(server.port, _big_header_request())
    assert r.status == 431
    r.error()


def test_long_url_is_refused(server):
    r = send_raw(server.port, b"GET /api/v1/buttons?x=" + b"a" * 40000 + b" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    assert r.status in (414, 431), r.status
    server.assert_alive()


@pytest.mark.parametrize("raw", [
    b"GARBAGE\r\n\r\n",
    b"GET / HTTP/9.9\r\nHost: localhost\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: -1\r\nConnection: close\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 99999999999999999999999\r\nConnection: close\r\n\r\n",
    b"POST /api/v1/input HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nBad Header\r\nConnection: close\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Nul: a\x00b\r\nConnection: close\r\n\r\n",
    b"GET /api/v1/buttons\xff\xfe HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
], ids=["garbage", "bad-version", "negative-length", "huge-length", "bad-chunk", "header-without-colon", "nul-in-header",
        "invalid-utf8-path"])
def test_malformed_requests_do_not_crash(server, raw):
    try:
        r = send_raw(server.port, raw, timeout=5)
        assert r.status < 500 or r.status in (501, 505), (r.status, r.body[:200])
    except (AssertionError, OSError, ValueError):
        pass  # closing the connection is a fine answer to garbage
    server.assert_alive()


@pytest.mark.parametrize("value", ["x\r\nEvil: 1", "x\nEvil: 1", "x\rEvil: 1", "a\u0000b", "\r\n\r\nGET / HTTP/1.1"])
def test_webhook_header_injection_is_refused(server, value):
    server.json_call("POST", "/api/v1/buttons", {"id": "hb-hook"})
    hook = {"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/x", "headers": {"X-Ok": value}}}
    r = server.json_call("POST", "/api/v1/buttons/hb-hook/handlers", hook)
    assert r.status == 422, r.body
    assert r.error()["field"] == "webhook.headers.X-Ok"
    # The same through PATCH of an existing handler.
    made = server.json_call("POST", "/api/v1/buttons/hb-hook/handlers",
                            {"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/x"}, "enabled": False})
    assert made.status == 201, made.body
    r = server.json_call("PATCH", f"/api/v1/handlers/{made.json['id']}", {"webhook": {"headers": {"X-Ok": value}}})
    assert r.status == 422 and r.error()["field"] == "webhook.headers.X-Ok"
    server.request("DELETE", f"/api/v1/handlers/{made.json['id']}")


@pytest.mark.parametrize("name", ["X-Ok\r\nEvil", "X Ok", "X:Ok", "", "Host", "content-length", "Transfer-Encoding",
                                  "CONNECTION", "webhook-signature", "Webhook-Id", "X-\u00e9"])
def test_webhook_bad_header_names_are_refused(server, name):
    server.json_call("POST", "/api/v1/buttons", {"id": "hb-hook"})
    hook = {"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/x", "headers": {name: "v"}}}
    r = server.json_call("POST", "/api/v1/buttons/hb-hook/handlers", hook)
    assert r.status == 422, (name, r.body)
    assert r.error()["field"].startswith("webhook.headers")


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/x", "file:///etc/passwd", "http://user:pw@127.0.0.1/x", "javascript:alert(1)",
                                 "http://127.0.0.1/\r\nx", "/relative", "http://", "http://127.0.0.1/" + "a" * 2100,
                                 "gopher://127.0.0.1:25/x"])
def test_webhook_bad_urls_are_refused(server, url):
    server.json_call("POST", "/api/v1/buttons", {"id": "hb-hook"})
    r = server.json_call("POST", "/api/v1/buttons/hb-hook/handlers", {"on": ["tap"], "webhook": {"url": url}})
    assert r.status == 422, (url, r.body)
    assert r.error()["field"] == "webhook.url"
