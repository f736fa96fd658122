"""Fixtures for the browser tests: the real buttond binary, a webhook sink, headless Chromium."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import sys
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import buttond_process  # noqa: E402

REPO = buttond_process.REPO
ARTIFACTS = buttond_process.ARTIFACTS


# ---- the server ---------------------------------------------------------------------------


class Server:
    def __init__(self, base: str, proc: subprocess.Popen, log_path: Path):
        self.base = base.rstrip("/")
        self.proc = proc
        self.log_path = log_path

    def url(self, path: str = "/") -> str:
        return self.base + path

    def call(self, method: str, path: str, body=None, headers=None):
        """Returns (status, parsed JSON or None). Never raises for HTTP errors."""
        data = None
        hdrs = {"accept": "application/json"}
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["content-type"] = "application/json"
        hdrs.update(headers or {})
        req = urllib.request.Request(self.base + "/api/v1" + path, data=data, method=method, headers=hdrs)
        try:
            with urllib.request.urlopen(req, timeout=10) as res:
                raw = res.read()
                return res.status, (json.loads(raw) if raw else None)
        except urllib.error.HTTPError as err:
            raw = err.read()
            try:
                return err.code, json.loads(raw) if raw else None
            except ValueError:
                return err.code, None

    def ok(self, method: str, path: str, body=None):
        status, data = self.call(method, path, body)
        assert 200 <= status < 300, f"{method} {path} -> {status} {data}"
        return data

    def events(self, button=None, after=0):
        q = f"?after={after}&limit=1000"
        if button:
            q += f"&button={button}"
        return self.ok("GET", "/events" + q)["events"]

    def wait_events(self, predicate, button=None, timeout=10.0, what="events"):
        deadline = time.monotonic() + timeout
        evs = []
        while time.monotonic() < deadline:
            evs = self.events(button)
            if predicate(evs):
                return evs
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; got {[e['type'] for e in evs]}")


def start_server(*extra: str, name: str = "server") -> Server:
    started = buttond_process.start_server("browser", name, *extra, cwd_in_data=True)
    srv = Server(started.base, started.proc, started.log_path)
    srv._started = started
    return srv


def stop_server(srv: Server) -> None:
    buttond_process.stop_server(srv._started, timeout=10)


@pytest.fixture(scope="session")
def server():
    srv = start_server()
    yield srv
    stop_server(srv)


# ---- the webhook sink ----------------------------------------------------------------------


class Sink:
    def __init__(self):
        self.posts: list[dict] = []
        self.cond = threading.Condition()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                n = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(n)
                try:
                    parsed = json.loads(body)
                except ValueError:
                    parsed = None
                with sink.cond:
                    sink.posts.append({"path": self.path, "headers": dict(self.headers), "body": body, "json": parsed})
                    sink.cond.notify_all()
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def wait_for(self, predicate, timeout=10.0):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for p in self.posts:
                    if predicate(p):
                        return p
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no matching webhook post; got {[p['json'] for p in self.posts]}")
                self.cond.wait(left)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="session")
def sink():
    s = Sink()
    yield s
    s.close()


class StatusSink:
    """A webhook receiver that answers each path with a chosen status (500 fails, 410 disables)."""

    def __init__(self):
        self.status: dict[str, int] = {}
        self.hits: list[str] = []
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                self.rfile.read(int(self.headers.get("content-length") or 0))
                sink.hits.append(self.path)
                code = sink.status.get(self.path, 204)
                self.send_response(code)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, path: str, status: int) -> str:
        self.status[path] = status
        return self.base + path

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="session")
def status_sink():
    s = StatusSink()
    yield s
    s.close()


def registry_events_supported(srv: Server, timeout: float = 3.0) -> bool:
    """Whether the server announces registry changes on the stream (`event: registry`)."""
    probe = f"registry-probe-{int(time.time() * 1000) % 100000}"
    srv.call("POST", "/buttons", {"id": probe, "label": "probe"})
    seen = threading.Event()

    def read():
        try:
            with urllib.request.urlopen(srv.base + "/api/v1/events/stream?after=999999999", timeout=timeout + 1) as res:
                while not seen.is_set():
                    line = res.readline()
                    if not line:
                        return
                    if line.strip() == b"event: registry":
                        seen.set()
        except Exception:
            return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(0.3)
    srv.call("PATCH", f"/buttons/{probe}", {"label": "probe 2"})
    seen.wait(timeout)
    srv.call("DELETE", f"/buttons/{probe}")
    return seen.is_set()


# ---- the browser ------------------------------------------------------------------------


def chrome(width: int | None = None, height: int = 800):
    """Headless Chromium; with `width`, a phone: Chrome's mobile emulation (deviceMetrics, touch)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800",
                "--disable-gpu", "--no-first-run", "--disable-extensions", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            opts.binary_location = path
            break
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if width:
        opts.add_experimental_option("mobileEmulation", {
            "deviceMetrics": {"width": width, "height": height, "pixelRatio": 2, "touch": True},
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                         "Chrome/130.0 Mobile Safari/537.36",
        })
    driver_path = shutil.which("chromedriver") or "/usr/lib/chromium/chromedriver"
    service = Service(executable_path=driver_path) if os.path.exists(driver_path) else Service()
    drv = webdriver.Chrome(options=opts, service=service)
    if not width:
        drv.set_window_size(1280, 800)
    return drv


@pytest.fixture(scope="session")
def driver():
    drv = chrome()
    yield drv
    drv.quit()
