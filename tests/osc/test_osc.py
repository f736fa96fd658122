"""OSC in and feedback against the real binary, with python-osc as the sender and receiver
(SPEC §10): what a TouchOSC button, a show controller over TCP, and a surface's feedback
widgets would do. Nothing here talks to anything but 127.0.0.1."""
from __future__ import annotations

import json
import socket
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from pythonosc import dispatcher as osc_dispatcher
from pythonosc import osc_message, osc_message_builder, osc_server, tcp_client, udp_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import buttond_process  # noqa: E402


def free_port(kind=socket.SOCK_STREAM) -> int:
    """A port free for both TCP and UDP on 127.0.0.1 (buttond binds both)."""
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            tcp.bind(("127.0.0.1", 0))
            port = tcp.getsockname()[1]
            try:
                udp.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port")


class Feedback:
    """A python-osc UDP server recording every message it gets."""

    def __init__(self):
        self.messages: list[tuple[str, tuple]] = []
        self.lock = threading.Lock()
        table = osc_dispatcher.Dispatcher()
        table.set_default_handler(self._record)
        self.server = osc_server.ThreadingOSCUDPServer(("127.0.0.1", 0), table)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _record(self, address, *args):
        with self.lock:
            self.messages.append((address, args))

    def wait_for(self, address, args, timeout=5.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if (address, args) in self.messages:
                    return True
            time.sleep(0.02)
        return False


class Server:
    def __init__(self, tmp: Path, feedback: Feedback):
        self.osc_port = free_port()
        self.log = open(tmp / "buttond.log", "w+")
        self.proc, self.url = buttond_process.launch(
            str(tmp), self.log, "--osc-port", str(self.osc_port),
            "--osc-feedback", f"osc.udp://127.0.0.1:{feedback.port}")
        assert self.url, Path(self.log.name).read_text()

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read() or b"null")

    def event_types(self, button, count, timeout=5.0) -> list[str]:
        """The button's event types, oldest first, once at least `count` are stored."""
        deadline = time.monotonic() + timeout
        types: list[str] = []
        while time.monotonic() < deadline:
            events = self.call("GET", f"/api/v1/events?button={button}")["events"]
            types = [e["type"] for e in sorted(events, key=lambda e: e["seq"])]
            if len(types) >= count:
                return types
            time.sleep(0.05)
        return types


@pytest.fixture
def feedback():
    fb = Feedback()
    yield fb
    fb.server.shutdown()


@pytest.fixture
def server(feedback):
    with tempfile.TemporaryDirectory() as tmp:
        s = Server(Path(tmp), feedback)
        s.call("POST", "/api/v1/buttons", {"id": "door", "maxTaps": 1})
        s.call("POST", "/api/v1/buttons", {"id": "lamp", "kind": "toggle"})
        yield s
        buttond_process.stop(s.proc)
        s.log.close()


def test_a_momentary_button_over_udp_is_a_tap(server):
    client = udp_client.SimpleUDPClient("127.0.0.1", server.osc_port)
    client.send_message("/buttond/button/door", 1.0)
    client.send_message("/buttond/button/door", 0.0)
    types = server.event_types("door", 3)
    assert types[:3] == ["touch-down", "touch-up-inside", "tap"], types


@pytest.mark.parametrize("mode", ["1.0", "1.1"])
def test_press_over_tcp_in_both_framings(server, mode):
    client = tcp_client.SimpleTCPClient("127.0.0.1", server.osc_port, mode=mode)
    try:
        client.send_message("/buttond/button/door/press", [])
        client.send_message("/buttond/button/door/press", [])
        types = server.event_types("door", 6)
        assert types.count("tap") == 2, types
    finally:
        client.close()


def test_a_refusal_is_answered_to_the_sender_and_nothing_is_stored(server):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.settimeout(5)
        message = osc_message_builder.OscMessageBuilder(address="/buttond/button/nope/press").build()
        sock.sendto(message.dgram, ("127.0.0.1", server.osc_port))
        reply = osc_message.OscMessage(sock.recvfrom(65536)[0])
    assert reply.address == "/buttond/error"
    code, text = reply.params
    assert code == "not_found" and "nope" in text
    assert server.call("GET", "/api/v1/events")["events"] == []


def test_feedback_follows_a_face_set_over_osc(server, feedback):
    udp_client.SimpleUDPClient("127.0.0.1", server.osc_port).send_message("/buttond/button/lamp/face", 1)
    assert feedback.wait_for("/buttond/button/lamp/face", (1,)), feedback.messages
    server.call("POST", "/api/v1/buttons/lamp/press", {})
    assert feedback.wait_for("/buttond/button/lamp/face", (0,)), feedback.messages
