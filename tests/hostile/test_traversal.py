"""Path traversal: static files never come from outside public/, and script handlers never name a
file outside --scripts-dir."""

from __future__ import annotations

import pytest

from conftest import REPO, send_raw

SECRETS = [b"root:x:0:0", b"[package]", b"// swift-tools-version", b"import PackageDescription"]


def get(server, target: bytes):
    return send_raw(server.port, b"GET " + target + b" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")


def assert_refused(r, target):
    assert r.status in (400, 403, 404), (target, r.status, r.body[:200])
    for secret in SECRETS:
        assert secret not in r.body, (target, r.body[:200])
    r.error()


TRAVERSALS = [
    b"/../etc/passwd",
    b"/../../../../../../etc/passwd",
    b"/css/../../Package.swift",
    b"/%2e%2e/etc/passwd",
    b"/%2E%2E/%2E%2E/etc/passwd",
    b"/%2e%2e%2fetc%2fpasswd",
    b"/css%2f..%2f..%2fPackage.swift",
    b"/css/..%2f..%2fPackage.swift",
    b"/..%2f..%2f..%2fetc%2fpasswd",
    b"/.%2e/.%2e/etc/passwd",
    b"/%2e./Package.swift",
    b"/..%5c..%5cPackage.swift",
    b"/..\\..\\Package.swift",
    b"/%252e%252e/Package.swift",
    b"//etc/passwd",
    b"/etc/passwd",
    b"/%2fetc%2fpasswd",
    b"/%2Fetc/passwd",
    b"http://127.0.0.1/../../etc/passwd",
    b"/./../Package.swift",
    b"/index.html/../../Package.swift",
    b"/css/.",
    b"/..",
    b"/.git/config",
    b"/%c0%ae%c0%ae/etc/passwd",
    b"/%e0%80%ae%e0%80%ae/etc/passwd",
]


@pytest.mark.parametrize("target", TRAVERSALS, ids=[t.decode("latin-1") for t in TRAVERSALS])
def test_static_traversal_is_refused(server, target):
    assert_refused(get(server, target), target)
    server.assert_alive()


def test_absolute_request_target_for_an_outside_file(server):
    assert_refused(get(server, b"/" + str(REPO / "Package.swift").encode()), "absolute")


def test_directory_listing_is_not_served(server):
    for target in [b"/css/", b"/js/", b"/css", b"/js"]:
        r = get(server, target)
        assert r.status == 404, (target, r.status)
        r.error()


def test_static_file_headers(server):
    r = get(server, b"/")
    assert r.status == 200 and r.header("content-type").startswith("text/html")
    assert r.header("content-security-policy") == "default-src 'self'; frame-ancestors 'self'"
    assert r.header("x-frame-options") == "SAMEORIGIN"
    assert r.header("x-content-type-options") == "nosniff"
    assert r.header("referrer-policy") == "no-referrer"
    etag = r.header("etag")
    assert etag
    again = send_raw(server.port, b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nIf-None-Match: " + etag.encode() + b"\r\n\r\n")
    assert again.status == 304 and again.body == b""


NUL_TARGETS = [b"/index.html%00.js", b"/%00", b"/%00../../Package.swift", b"/css/%00"]


@pytest.mark.parametrize("target", NUL_TARGETS, ids=[t.decode() for t in NUL_TARGETS])
def test_nul_in_static_path_is_not_an_escape(server, target):
    """Whatever it answers, nothing from outside public/ and no crash."""
    r = get(server, target)
    assert r.status < 500
    for secret in SECRETS:
        assert secret not in r.body
    server.assert_alive()


@pytest.mark.parametrize("target", [b"/index.html%00.js", b"/api/v1/buttons/hb-trav%00zzz"], ids=["static", "api"])
def test_nul_in_path_is_a_4xx(server, target):
    server.json_call("POST", "/api/v1/buttons", {"id": "hb-trav"})
    r = get(server, target)
    assert r.status in (400, 404), r.status
    r.error()


def test_encoded_slash_in_a_path_parameter(server):
    """%2F in a name is decoded before routing: it can only reach another route's shape (405/404), never a file."""
    for target in [b"/api/v1/buttons/a%2Fdown", b"/api/v1/buttons/..%2F..%2Fhealthz", b"/api/v1/buttons/%2e%2e"]:
        r = get(server, target)
        assert r.status in (400, 404, 405), (target, r.status)
        r.error()


# ---- script names ---------------------------------------------------------------------------

SCRIPT_NAMES = ["../x", "../../bin/sh", "/bin/sh", "a/b", "./ok.sh", "..", ".", "ok.sh/", "ok.sh\u0000", "\u0000ok.sh",
                "..\\ok.sh", "~/ok.sh", "$(id)", "ok.sh;id", " ok.sh", "ok.sh ", "..ok.sh", "%2e%2e/ok.sh",
                "a" * 200, "", ".hidden"]


@pytest.mark.parametrize("name", SCRIPT_NAMES, ids=[repr(n)[:40] for n in SCRIPT_NAMES])
def test_script_name_traversal_is_refused(scripts_server, name):
    srv = scripts_server
    srv.json_call("POST", "/api/v1/buttons", {"id": "hs-btn"})
    r = srv.json_call("POST", "/api/v1/buttons/hs-btn/handlers", {"on": ["tap"], "script": {"name": name}})
    assert r.status == 422, (name, r.status, r.body)
    assert r.error()["field"] == "script.name"
    srv.assert_alive()


def test_script_name_in_the_directory_is_accepted_and_patch_is_checked_too(scripts_server):
    srv = scripts_server
    srv.json_call("POST", "/api/v1/buttons", {"id": "hs-btn"})
    r = srv.json_call("POST", "/api/v1/buttons/hs-btn/handlers", {"on": ["tap"], "script": {"name": "ok.sh"}, "enabled": False})
    assert r.status == 201, r.body
    hid = r.json["id"]
    for name in ["../x", "/bin/sh", "a/b", "missing.sh"]:
        p = srv.json_call("PATCH", f"/api/v1/handlers/{hid}", {"script": {"name": name}})
        assert p.status == 422 and p.error()["field"] == "script.name", (name, p.body)
    assert srv.request("GET", f"/api/v1/handlers/{hid}").json["script"]["name"] == "ok.sh"


def test_scripts_are_refused_without_scripts_dir(server):
    server.json_call("POST", "/api/v1/buttons", {"id": "hs-btn"})
    r = server.json_call("POST", "/api/v1/buttons/hs-btn/handlers", {"on": ["tap"], "script": {"name": "ok.sh"}})
    assert r.status == 422
    err = r.error()
    assert err["field"] == "script" and "--scripts-dir" in err["message"]
