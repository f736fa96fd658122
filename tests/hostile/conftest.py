"""Fixtures for the hostile-input suite: real buttond processes on 127.0.0.1 and a raw HTTP client.

Every server is the release binary (BUTTOND_BIN, default .build/release/buttond) started with
`serve --port 0 --data-dir <tmp> --public-dir <repo>/public`; the port is read from the
`msg=listening url=http://127.0.0.1:PORT/` log line. Nothing here talks to any other address.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import sys
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import buttond_process  # noqa: E402

REPO = buttond_process.REPO
ARTIFACTS = buttond_process.ARTIFACTS
ADMIN_TOKEN = "hostile-admin-token-0123456789"
# What the schemathesis run sent (reported at the end of the session).
STATS: dict = {"cases": 0, "statuses": Counter()}
PRESS_TOKEN = "hostile-press-token-9876543210"


# ---- raw HTTP ------------------------------------------------------------------------------


@dataclass
class Reply:
    status: int
    reason: str
    headers: dict[str, str]
    body: bytes
    raw: bytes = field(repr=False, default=b"")

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    @property
    def json(self):
        return json.loads(self.body)

    def error(self) -> dict:
        """The `error` object of the JSON error shape; fails the test if the body is not that shape."""
        ctype = self.header("content-type") or ""
        assert ctype.startswith("application/json"), f"{self.status} error is not JSON ({ctype!r}): {self.body[:200]!r}"
        doc = json.loads(self.body)
        assert isinstance(doc, dict) and set(doc) == {"error"}, f"not the error shape: {doc!r}"
        err = doc["error"]
        assert isinstance(err.get("code"), str) and err["code"], f"error without code: {doc!r}"
        assert isinstance(err.get("message"), str) and err["message"], f"error without message: {doc!r}"
        assert set(err) <= {"code", "message", "field", "index", "parameter"}, f"unexpected error members: {doc!r}"
        if "field" in err:
            assert isinstance(err["field"], str)
        if "index" in err:
            assert isinstance(err["index"], int)
        return err


def parse_reply(data: bytes) -> Reply:
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep:
        raise AssertionError(f"no complete HTTP response: {data[:300]!r}")
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    status = int(parts[1])
    reason = parts[2].decode("latin-1") if len(parts) > 2 else ""
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    if "chunked" in headers.get("transfer-encoding", "").lower():
        out, rest = b"", body
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0] or b"0", 16)
            if size == 0:
                break
            out, rest = out + rest[:size], rest[size + 2:]
        body = out
    elif "content-length" in headers:
        body = body[: int(headers["content-length"])]
    return Reply(status, reason, headers, body, data)


def send_raw(port: int, data: bytes, timeout: float = 10.0) -> Reply:
    """Sends bytes as they are (the request must say `Connection: close`) and reads to EOF."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        chunks = []
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    return parse_reply(b"".join(chunks))


class Server:
    def __init__(self, base: str, proc: subprocess.Popen, log_path: Path, data_dir: str, log_file):
        self.base = base.rstrip("/")
        self.port = int(base.rsplit(":", 1)[1].rstrip("/"))
        self.proc = proc
        self.log_path = log_path
        self.data_dir = data_dir
        self._log_file = log_file
        self.token: str | None = None

    def request(self, method: str, path: str, body: bytes | str | None = None, headers: dict[str, str] | None = None,
                content_type: str | None = "application/json", token: str | None = "default", timeout: float = 10.0) -> Reply:
        if isinstance(body, str):
            body = body.encode()
        hdrs = {"Host": f"127.0.0.1:{self.port}", "Connection": "close"}
        tok = self.token if token == "default" else token
        if tok:
            hdrs["Authorization"] = f"Bearer {tok}"
        if body is not None:
            if content_type:
                hdrs["Content-Type"] = content_type
            hdrs["Content-Length"] = str(len(body))
        hdrs.update(headers or {})
        head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items()) + "\r\n"
        return send_raw(self.port, head.encode("latin-1") + (body or b""), timeout=timeout)

    def json_call(self, method: str, path: str, doc=None, **kw) -> Reply:
        return self.request(method, path, None if doc is None else json.dumps(doc), **kw)

    def alive(self) -> bool:
        if self.proc.poll() is not None:
            return False
        try:
            r = self.request("GET", "/healthz", token=None, timeout=5)
        except OSError:
            return False
        return r.status == 200 and r.body == b"ok"

    def assert_alive(self):
        assert self.proc.poll() is None, f"buttond exited with {self.proc.returncode}; log:\n{self.log_tail()}"
        assert self.alive(), f"buttond no longer answers /healthz; log:\n{self.log_tail()}"

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""


def start_server(name: str, *extra: str) -> Server:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BUTTOND_")}
    started = buttond_process.start_server("hostile", name, "--log-level", "warn", *extra, data_subdir="/data",
                                           env=env, cwd_in_data=True)
    srv = Server(started.base, started.proc, started.log_path, started.data_dir, started.log)
    srv._started = started
    return srv


def stop_server(srv: Server) -> None:
    buttond_process.stop_server(srv._started)


@pytest.fixture(scope="session")
def server():
    """No tokens, loopback: nothing asks for auth."""
    srv = start_server("open")
    yield srv
    stop_server(srv)


@pytest.fixture(scope="session")
def auth_server():
    """Admin and press tokens set; requests carry the admin token unless told otherwise."""
    srv = start_server("auth", "--admin-token", ADMIN_TOKEN, "--press-token", PRESS_TOKEN)
    srv.token = ADMIN_TOKEN
    yield srv
    stop_server(srv)


@pytest.fixture(scope="session")
def scripts_server():
    """Script handlers enabled: --scripts-dir holds one executable, `ok.sh`."""
    scripts = tempfile.mkdtemp(prefix="buttond-hostile-scripts-")
    script = Path(scripts) / "ok.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    srv = start_server("scripts", "--scripts-dir", scripts)
    yield srv
    stop_server(srv)
    shutil.rmtree(scripts, ignore_errors=True)


def pytest_terminal_summary(terminalreporter):
    if STATS["cases"]:
        by_status = Counter()
        for key, n in STATS["statuses"].items():
            by_status[key.rsplit(" ", 1)[1]] += n
        terminalreporter.write_line(
            f"schemathesis: {STATS['cases']} requests over {len({k.rsplit(' ', 1)[0] for k in STATS['statuses']})} operations; "
            f"statuses {dict(sorted(by_status.items()))}")
