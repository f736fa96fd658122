"""OSC in and feedback against the real binary, with python-osc as the sender and receiver
(SPEC §10): what a TouchOSC button, a show controller over TCP, and a surface's feedback
widgets would do. Nothing here talks to anything but 127.0.0.1."""
from __future__ import annotations

import json
import shlex
import socket
import subprocess
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


# --- Feedback as a surface sees it, through a real liblo peer (`oscdump`, liblo-tools) ------

class OscDump:
    """`oscdump -L PORT` (liblo-tools) as the feedback target: a real liblo receiver, its lines
    parsed into (address, types, args)."""

    def __init__(self):
        self.port = free_port()
        self.lines: list[tuple[str, str, tuple]] = []
        self.lock = threading.Lock()
        self.proc = subprocess.Popen(["oscdump", "-L", str(self.port)], stdout=subprocess.PIPE, text=True)
        threading.Thread(target=self._read, daemon=True).start()
        time.sleep(0.3)  # liblo binds before it prints anything; give it the moment

    def _read(self):
        for line in self.proc.stdout:
            parts = shlex.split(line.strip())
            if len(parts) < 3:
                continue
            _, address, types, *args = parts
            with self.lock:
                self.lines.append((address, types, tuple(args)))

    def clear(self):
        with self.lock:
            self.lines.clear()

    def seen(self) -> list[tuple[str, str, tuple]]:
        with self.lock:
            return list(self.lines)

    def wait_for(self, address, types, args, timeout=5.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if (address, types, tuple(args)) in self.seen():
                return True
            time.sleep(0.02)
        return False

    def last(self, address):
        matching = [line for line in self.seen() if line[0] == address]
        return matching[-1] if matching else None

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=5)


@pytest.fixture
def dump():
    d = OscDump()
    yield d
    d.stop()


class Started:
    """buttond with OSC in and `oscdump` as its feedback target, on a data dir kept across
    restarts."""

    def __init__(self, data: Path, dump: OscDump):
        self.data, self.dump = data, dump
        data.mkdir(parents=True, exist_ok=True)
        self.osc_port = free_port()
        self.log = open(data.parent / f"buttond-{time.monotonic_ns()}.log", "w+")
        self.proc, self.url = buttond_process.launch(
            str(data), self.log, "--osc-port", str(self.osc_port),
            "--osc-feedback", f"osc.udp://127.0.0.1:{dump.port}")
        assert self.url, Path(self.log.name).read_text()

    call = Server.call

    def stop(self):
        buttond_process.stop(self.proc)
        self.log.close()


LAMP = {"id": "lamp", "kind": "toggle", "color": "#222222",
        "faces": [{"label": "Off", "color": "#440000"}, {"label": "On", "color": "#00ff00"}]}


def test_color_is_the_colour_shown_a_toggles_face_else_the_keys(dump):
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        server = Started(data, dump)
        try:
            server.call("POST", "/api/v1/buttons", LAMP)
            server.call("POST", "/api/v1/buttons", {"id": "half", "kind": "toggle", "color": "#0000ff",
                                                    "faces": [{"label": "Off"}, {"label": "On", "color": "#ffff00"}]})
            server.call("POST", "/api/v1/buttons", {"id": "door", "maxTaps": 1, "color": "#123456"})
            server.call("POST", "/api/v1/buttons", {"id": "bare", "maxTaps": 1})
            for button in ["lamp", "half", "door", "bare"]:
                server.call("POST", f"/api/v1/buttons/{button}/press", {})
            assert dump.wait_for("/buttond/button/lamp/face", "i", ["1"]), dump.seen()
            assert dump.wait_for("/buttond/button/half/face", "i", ["1"]), dump.seen()
            assert dump.wait_for("/buttond/button/bare/held", "i", ["0"]), dump.seen()
            time.sleep(0.2)
            assert dump.last("/buttond/button/lamp/color") == ("/buttond/button/lamp/color", "s", ("#00ff00",))
            assert dump.last("/buttond/button/half/color") == ("/buttond/button/half/color", "s", ("#ffff00",))
            assert dump.last("/buttond/button/door/color") == ("/buttond/button/door/color", "s", ("#123456",))
            assert dump.last("/buttond/button/bare/color") == ("/buttond/button/bare/color", "s", ("",))
            # Back to face 0: lamp's face 0 has a colour of its own, half's falls back to the key's.
            server.call("PUT", "/api/v1/buttons/lamp/state", {"face": 0})
            server.call("PUT", "/api/v1/buttons/half/state", {"face": 0})
            assert dump.wait_for("/buttond/button/lamp/color", "s", ["#440000"]), dump.seen()
            assert dump.wait_for("/buttond/button/half/color", "s", ["#0000ff"]), dump.seen()
        finally:
            server.stop()


def snapshot_seen(dump: OscDump) -> bool:
    """Whether the dump holds the whole state of the buttons and sheet the resync tests make."""
    return all(line in dump.seen() for line in [
        ("/buttond/button/lamp/face", "i", ("1",)), ("/buttond/button/lamp/color", "s", ("#00ff00",)),
        ("/buttond/button/lamp/held", "i", ("0",)), ("/buttond/button/lamp/status", "s", ("",)),
        ("/buttond/button/door/status", "s", ("ON AIR",)), ("/buttond/button/door/face", "i", ("0",)),
        ("/buttond/sheet/scene/open", "i", ("0",)),
    ])


def test_a_restarted_buttond_sends_every_buttons_and_sheets_state_at_start(dump):
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        server = Started(data, dump)
        server.call("POST", "/api/v1/buttons", LAMP)
        server.call("POST", "/api/v1/buttons", {"id": "door", "maxTaps": 1, "status": "ON AIR"})
        server.call("POST", "/api/v1/sheets", {"id": "scene", "options": [{"id": "a"}]})
        server.call("PUT", "/api/v1/buttons/lamp/state", {"face": 1})
        assert dump.wait_for("/buttond/button/lamp/face", "i", ["1"]), dump.seen()
        server.stop()
        dump.clear()
        server = Started(data, dump)
        try:
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and not snapshot_seen(dump):
                time.sleep(0.05)
            assert snapshot_seen(dump), dump.seen()
            assert not any(address.endswith("/event") for address, _, _ in dump.seen()), "state, not events again"
        finally:
            server.stop()


def test_buttond_sync_resends_to_the_targets_and_answers_any_sender(dump):
    with tempfile.TemporaryDirectory() as tmp:
        server = Started(Path(tmp) / "data", dump)
        try:
            server.call("POST", "/api/v1/buttons", LAMP)
            server.call("POST", "/api/v1/buttons", {"id": "door", "maxTaps": 1, "status": "ON AIR"})
            server.call("POST", "/api/v1/sheets", {"id": "scene", "options": [{"id": "a"}]})
            server.call("PUT", "/api/v1/buttons/lamp/state", {"face": 1})
            assert dump.wait_for("/buttond/button/lamp/face", "i", ["1"]), dump.seen()
            time.sleep(0.3)
            dump.clear()
            # liblo's own sender, as a surface would send it.
            subprocess.run(["oscsend", "127.0.0.1", str(server.osc_port), "/buttond/sync"], check=True, timeout=10)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and not snapshot_seen(dump):
                time.sleep(0.05)
            assert snapshot_seen(dump), dump.seen()

            # Any sender gets the answer itself, at the address it sent from.
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                sock.bind(("127.0.0.1", 0))
                sock.settimeout(5)
                sync = osc_message_builder.OscMessageBuilder(address="/buttond/sync").build()
                sock.sendto(sync.dgram, ("127.0.0.1", server.osc_port))
                answers = {}
                try:
                    while "/buttond/sheet/scene/open" not in answers:  # the snapshot's last message
                        message = osc_message.OscMessage(sock.recvfrom(65536)[0])
                        answers[message.address] = tuple(message.params)
                except socket.timeout:
                    pass
            assert answers.get("/buttond/button/lamp/face") == (1,), answers
            assert answers.get("/buttond/button/lamp/color") == ("#00ff00",), answers
            assert answers.get("/buttond/button/door/status") == ("ON AIR",), answers
            assert answers.get("/buttond/sheet/scene/open") == (0,), answers
            # Nothing was taken as input.
            assert server.call("GET", "/api/v1/events?button=door")["events"] == []
        finally:
            server.stop()


def test_a_sheets_open_state_follows_its_events(dump):
    with tempfile.TemporaryDirectory() as tmp:
        server = Started(Path(tmp) / "data", dump)
        try:
            server.call("POST", "/api/v1/sheets", {"id": "scene", "options": [{"id": "a"}]})
            server.call("POST", "/api/v1/sheets/scene/open", {})
            assert dump.wait_for("/buttond/sheet/scene/event", "s", ["sheet-open"]), dump.seen()
            assert dump.wait_for("/buttond/sheet/scene/open", "i", ["1"]), dump.seen()
            server.call("POST", "/api/v1/sheets/scene/choose", {"option": "a"})
            assert dump.wait_for("/buttond/sheet/scene/open", "i", ["0"]), dump.seen()
        finally:
            server.stop()
