"""Fixtures for the MQTT suite: a real mosquitto broker on a free loopback port, the real
buttond binary pointed at it, a paho-mqtt client that records what arrives, and HTTP calls.

Nothing here talks to anything but 127.0.0.1.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import paho.mqtt.client as paho
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import buttond_process  # noqa: E402


def mosquitto_binary() -> str:
    found = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not Path(found).exists():
        pytest.fail("mosquitto is not installed: run `make test` (it installs Debian's mosquitto)")
    return found


class Broker:
    """mosquitto with its own config (no persistence, anonymous, loopback); stop/start keep the port."""

    def __init__(self, workdir: Path):
        self.port = buttond_process.free_port()
        self.dir = workdir
        self.conf = workdir / "mosquitto.conf"
        # Persistence, so a subscriber's session (and what was queued for it) outlives a restart.
        # mosquitto started as root runs as the `mosquitto` user: its directory must be writable.
        store = workdir / "broker"
        store.mkdir(exist_ok=True)
        store.chmod(0o777)
        workdir.chmod(0o755)
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
            f"persistence_location {store}/\nautosave_interval 1\n")
        self.proc: subprocess.Popen | None = None
        self.start()

    def start(self):
        self.log = open(self.dir / "mosquitto.log", "ab")
        self.proc = subprocess.Popen([mosquitto_binary(), "-c", str(self.conf)], stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None


class Recorder:
    """A paho client subscribed to `topics`, keeping (topic, payload bytes, retain) in order."""

    def __init__(self, port: int, topics: list[str]):
        self.messages: list[tuple[str, bytes, bool]] = []
        self.lock = threading.Lock()
        self.ready = threading.Event()
        # A lasting session: across a broker restart, what was published meanwhile is kept for it.
        self.client = paho.Client(
            paho.CallbackAPIVersion.VERSION2, client_id=f"rec-{time.monotonic_ns()}", clean_session=False)
        self.client.reconnect_delay_set(0.2, 1)
        self.client.on_message = self._message
        self.client.on_connect = lambda c, u, f, rc, p: (
            [c.subscribe(t, qos=1) for t in topics], self.ready.set())
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert self.ready.wait(10), "the test client did not connect"
        time.sleep(0.2)  # the SUBACKs

    def _message(self, client, userdata, msg):
        with self.lock:
            self.messages.append((msg.topic, bytes(msg.payload), bool(msg.retain)))

    def on(self, topic: str) -> list[bytes]:
        with self.lock:
            return [p for t, p, _ in self.messages if t == topic]

    def json_on(self, topic: str) -> list:
        return [json.loads(p) for p in self.on(topic) if p]

    def wait(self, condition, timeout: float = 15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                snapshot = list(self.messages)
            if condition(snapshot):
                return snapshot
            time.sleep(0.05)
        with self.lock:
            raise AssertionError(f"timed out; got {len(self.messages)} messages: {self.messages[-10:]}")

    def publish(self, topic: str, payload, retain: bool = False):
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        info.wait_for_publish(5)

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


class Buttond:
    def __init__(self, workdir: Path, data_dir: Path, broker_port: int, *extra: str):
        data_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = workdir / f"buttond-{time.monotonic_ns()}.log"
        self.log = open(self.log_path, "wb")
        self.proc, self.base = buttond_process.launch(
            str(data_dir), self.log, "--mqtt-url", f"mqtt://127.0.0.1:{broker_port}", "--instance", "lab", *extra)
        if self.base is None:
            raise RuntimeError(f"buttond did not start: {self.log_path.read_text(errors='replace')[-2000:]}")

    def call(self, method: str, path: str, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, self._body(r.read(), r.headers.get("content-type", ""))
        except urllib.error.HTTPError as e:
            return e.code, self._body(e.read(), e.headers.get("content-type", ""))

    @staticmethod
    def _body(raw: bytes, content_type: str):
        if not raw:
            return None
        return json.loads(raw) if "json" in content_type else raw.decode(errors="replace")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture
def workdir():
    path = Path(tempfile.mkdtemp(prefix="buttond-mqtt-"))
    yield path
    if not os.environ.get("KEEP"):
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def broker(workdir):
    b = Broker(workdir)
    yield b
    b.stop()


@pytest.fixture
def recorder(broker):
    made = []

    def make(*topics: str) -> Recorder:
        r = Recorder(broker.port, list(topics) or ["#"])
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()


@pytest.fixture
def server(workdir, broker):
    made = []

    def make(*extra: str, data_dir: Path | None = None) -> Buttond:
        s = Buttond(workdir, data_dir or (workdir / "data"), broker.port, *extra)
        made.append(s)
        return s

    yield make
    for s in made:
        s.stop()
