"""buttond on a real mosquitto broker (SPEC §9): events, state, availability, Home Assistant
discovery and commands, and nothing lost when the broker or buttond goes away."""
from __future__ import annotations

import json
import time

BASE = "buttond/lab"


def events_of(recorder, button: str) -> list[dict]:
    return recorder.json_on(f"{BASE}/button/{button}/event")


def first_arrivals(seqs: list[int]) -> list[int]:
    """Each seq where it first arrived: QoS 1 is at-least-once, and a message whose
    acknowledgement was lost with the broker is sent again (after the ones before it)."""
    seen: set[int] = set()
    return [s for s in seqs if not (s in seen or seen.add(s))]


def wait_connection(server, connected: bool, timeout: float = 15):
    deadline = time.monotonic() + timeout
    while (server.call("GET", "/api/v1/mqtt")[1]["connection"] == "connected") != connected:
        assert time.monotonic() < deadline, "the broker connection did not change"
        time.sleep(0.05)


def history(server, button: str) -> list[dict]:
    status, body = server.call("GET", f"/api/v1/events?button={button}&limit=1000")
    assert status == 200, body
    return body["events"]


def test_every_gesture_arrives_on_its_topic_as_the_event_json(server, recorder):
    rec = recorder(f"{BASE}/button/+/event", f"{BASE}/button/+/gesture")
    s = server()
    assert s.call("POST", "/api/v1/buttons", {"id": "door", "maxTaps": 2, "longPressMs": 300})[0] == 201
    assert s.call("POST", "/api/v1/buttons/door/press", {})[0] == 200
    time.sleep(0.6)  # the tap series ends: single-tap
    assert s.call("POST", "/api/v1/buttons/door/press", {"holdMs": 500})[0] == 200
    time.sleep(0.6)
    assert s.call("POST", "/api/v1/buttons/door/press", {})[0] == 200
    assert s.call("POST", "/api/v1/buttons/door/press", {})[0] == 200
    expected = ["single-tap", "long-press", "long-press-end", "double-tap"]
    rec.wait(lambda m: [e["type"] for e in events_of(rec, "door") if e["type"] in expected] == expected)
    got = events_of(rec, "door")
    # Byte for byte what the HTTP history holds, in seq order, every one of them.
    assert got == history(s, "door")
    assert [e["seq"] for e in got] == sorted(e["seq"] for e in got)
    rec.wait(lambda m: len(rec.json_on(f"{BASE}/button/door/gesture")) == 4)
    assert [g["event_type"] for g in rec.json_on(f"{BASE}/button/door/gesture")] == expected


def test_state_and_availability_are_retained(server, recorder, broker):
    s = server()
    assert s.call("POST", "/api/v1/buttons", {"id": "lamp", "kind": "toggle"})[0] == 201
    assert s.call("POST", "/api/v1/buttons/lamp/press", {})[0] == 200
    late = recorder(f"{BASE}/status", f"{BASE}/button/lamp/state")  # subscribes after: gets the retained ones
    late.wait(lambda m: late.on(f"{BASE}/status") == [b"online"] and late.json_on(f"{BASE}/button/lamp/state"))
    state = late.json_on(f"{BASE}/button/lamp/state")[-1]
    assert state["face"] == 1 and state["held"] is False and set(state) == {"held", "face", "status", "color", "enabled", "armed"}
    s.stop()
    late.wait(lambda m: late.on(f"{BASE}/status")[-1:] == [b"offline"])
    status, body = 0, None


TOLERANT = "{{ value_json.%s if value_json is defined and value_json.%s is defined else '' }}"


def test_discovery_has_what_home_assistant_requires(server, recorder):
    rec = recorder("homeassistant/#")
    s = server("--mqtt-commands", "--public-url", "http://panel.example:8080/")
    s.call("POST", "/api/v1/buttons", {"id": "door", "label": "Front door", "maxTaps": 3})
    s.call("POST", "/api/v1/buttons", {"id": "lamp", "kind": "toggle"})
    s.call("POST", "/api/v1/sheets", {"id": "scene", "title": "Scene",
                                      "options": [{"id": "day", "label": "Daylight"}, {"id": "night", "label": "Night"}]})
    rec.wait(lambda m: any(t.startswith("homeassistant/select/") for t, _, _ in m)
             and any(t.startswith("homeassistant/switch/") for t, _, _ in m))
    configs = {t: json.loads(p) for t, p, _ in rec.messages if p}
    triggers = {c["type"]: c for t, c in configs.items()
                if t.startswith("homeassistant/device_automation/") and c["device"]["identifiers"] == ["buttond_lab_door"]}
    assert set(triggers) == {"button_short_press", "button_double_press", "button_triple_press",
                             "button_long_press", "button_long_release"}
    for type_, c in triggers.items():
        assert c["automation_type"] == "trigger"
        assert c["topic"] == f"{BASE}/button/door/event"
        assert c["subtype"] == "button_1"
        assert c["device"]["name"] == "Front door"
        assert c["value_template"] == TOLERANT % ("type", "type")  # an empty payload logs no error in HA
        assert c["device"]["configuration_url"] == "http://panel.example:8080/"
    assert triggers["button_triple_press"]["payload"] == "triple-tap"
    assert triggers["button_long_release"]["payload"] == "long-press-end"
    event = configs["homeassistant/event/buttond_lab/door/config"]
    assert event["state_topic"] == f"{BASE}/button/door/gesture"
    assert event["unique_id"] and event["device_class"] == "button"
    assert event["event_types"] == ["single-tap", "double-tap", "triple-tap", "long-press", "long-press-end"]
    switch = configs["homeassistant/switch/buttond_lab/lamp/config"]
    assert switch["command_topic"] == f"{BASE}/button/lamp/set"
    assert switch["state_topic"] == f"{BASE}/button/lamp/state" and switch["unique_id"]
    assert switch["value_template"] == TOLERANT % ("face", "face")
    # One entity per role: the switch is the device's main one, the event entity says what it is.
    assert switch["name"] is None
    assert configs["homeassistant/event/buttond_lab/lamp/config"]["name"] == "Gesture"
    select = configs["homeassistant/select/buttond_lab/scene/config"]
    assert select["command_topic"] == f"{BASE}/sheet/scene/set"
    assert select["options"] == ["Daylight", "Night"] and select["unique_id"]
    assert select["state_topic"] == f"{BASE}/sheet/scene/state" and "optimistic" not in select
    assert select["value_template"] == TOLERANT % ("label", "label")
    status = configs["homeassistant/binary_sensor/buttond_lab/status/config"]
    assert status["name"] == "Connection" and status["device"]["configuration_url"] == "http://panel.example:8080/"
    # maxTaps lowered: the triple-press trigger is cleared (an empty retained payload).
    assert s.call("PATCH", "/api/v1/buttons/door", {"maxTaps": 2})[0] == 200
    triple = "homeassistant/device_automation/buttond_lab/door_button_triple_press/config"
    rec.wait(lambda m: rec.on(triple)[-1:] == [b""])


def test_a_deleted_button_clears_its_discovery_and_ha_online_republishes(server, recorder):
    rec = recorder("homeassistant/#")
    s = server()
    s.call("POST", "/api/v1/buttons", {"id": "bell", "maxTaps": 1})
    s.call("POST", "/api/v1/buttons", {"id": "stays", "maxTaps": 1})
    event = "homeassistant/event/buttond_lab/bell/config"
    rec.wait(lambda m: rec.on(event) and rec.on(event)[-1] != b"")
    bell_topics = {t for t, p, _ in rec.messages if "/bell" in t and p}
    assert s.call("DELETE", "/api/v1/buttons/bell")[0] == 204
    rec.wait(lambda m: all(rec.on(t)[-1:] == [b""] for t in bell_topics))
    before = len(rec.on("homeassistant/event/buttond_lab/stays/config"))
    rec.publish("homeassistant/status", "online")
    rec.wait(lambda m: len(rec.on("homeassistant/event/buttond_lab/stays/config")) > before)
    # A deleted button stays deleted: its tombstone is told again and cleared a moment later.
    rec.wait(lambda m: rec.on(event)[-1] == b"", timeout=10)


def test_events_published_while_the_broker_is_down_arrive_in_order(server, recorder, broker):
    rec = recorder(f"{BASE}/button/+/event")
    s = server()
    s.call("POST", "/api/v1/buttons", {"id": "door", "maxTaps": 1})
    s.call("POST", "/api/v1/buttons/door/press", {})
    rec.wait(lambda m: len(events_of(rec, "door")) >= 4)
    broker.stop()
    for _ in range(5):
        assert s.call("POST", "/api/v1/buttons/door/press", {})[0] == 200  # input never waits for the broker
    assert s.call("GET", "/healthz")[0] == 200
    status, body = s.call("GET", "/api/v1/mqtt")
    assert body["connection"] != "connected"
    time.sleep(1)
    broker.start()
    want = history(s, "door")
    assert len(want) == 24
    rec.wait(lambda m: [e["seq"] for e in events_of(rec, "door")][-20:] == [e["seq"] for e in want][-20:], timeout=30)
    seqs = [e["seq"] for e in events_of(rec, "door")]
    assert sorted(set(seqs)) == [e["seq"] for e in want]  # none lost
    assert first_arrivals(seqs) == sorted(set(seqs))  # in order (at-least-once: a resend may repeat one)


def test_events_unpublished_at_a_kill_are_published_after_the_restart(server, recorder, broker, workdir):
    rec = recorder(f"{BASE}/button/+/event")
    s = server()
    s.call("POST", "/api/v1/buttons", {"id": "door", "maxTaps": 1})
    broker.stop()
    for _ in range(3):
        assert s.call("POST", "/api/v1/buttons/door/press", {})[0] == 200
    want = [e["seq"] for e in history(s, "door")]
    s.kill()
    broker.start()
    again = server(data_dir=workdir / "data")
    rec.wait(lambda m: sorted({e["seq"] for e in events_of(rec, "door")}) == want, timeout=30)
    seqs = [e["seq"] for e in events_of(rec, "door")]
    assert first_arrivals(seqs) == sorted(set(seqs))
    # The recorder can see a message a moment before the broker's acknowledgement is back
    # and the delivery finished: wait for that, well under the 1 s a retry would take.
    deadline = time.monotonic() + 0.5
    while again.call("GET", "/api/v1/mqtt")[1]["pending"] != 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert again.call("GET", "/api/v1/mqtt")[1]["pending"] == 0


def test_commands_go_through_the_same_validation_and_order(server, recorder):
    rec = recorder(f"{BASE}/button/+/event", f"{BASE}/error", f"{BASE}/button/+/state")
    s = server("--mqtt-commands")
    s.call("POST", "/api/v1/buttons", {"id": "door", "maxTaps": 1})
    s.call("POST", "/api/v1/buttons", {"id": "lamp", "kind": "toggle"})
    s.call("POST", "/api/v1/sheets", {"id": "scene", "options": [{"id": "day", "label": "Daylight"}]})
    time.sleep(0.3)
    rec.publish(f"{BASE}/button/door/set", "press")
    rec.wait(lambda m: "single-tap" in [e["type"] for e in events_of(rec, "door")])
    assert [e["type"] for e in history(s, "door")] == ["touch-down", "touch-up-inside", "tap", "single-tap"]
    rec.publish(f"{BASE}/button/lamp/set", json.dumps({"face": 1}))
    rec.wait(lambda m: any(st["face"] == 1 for st in rec.json_on(f"{BASE}/button/lamp/state")))
    rec.publish(f"{BASE}/sheet/scene/set", "open")
    rec.publish(f"{BASE}/sheet/scene/set", "Daylight")  # not JSON and not a word: refused
    rec.publish(f"{BASE}/sheet/scene/set", json.dumps({"option": "Daylight"}))  # Home Assistant's select sends labels
    rec.publish(f"{BASE}/button/door/set", json.dumps({"type": "up"}))  # not down: 409
    rec.publish(f"{BASE}/button/ghost/set", "press")
    rec.wait(lambda m: len(rec.json_on(f"{BASE}/error")) >= 3)
    errors = {e["topic"]: e for e in rec.json_on(f"{BASE}/error")}
    assert errors[f"{BASE}/button/ghost/set"]["error"]["code"] == "not_found"
    assert errors[f"{BASE}/button/door/set"]["status"] == 409
    assert errors[f"{BASE}/sheet/scene/set"]["status"] == 422
    status, body = s.call("GET", "/api/v1/events?sheet=scene")
    assert [e["type"] for e in body["events"]] == ["sheet-open", "select"]
    assert body["events"][1]["data"]["option"] == "day"


def test_commands_are_ignored_without_the_switch(server, recorder):
    rec = recorder(f"{BASE}/error", "homeassistant/#")
    s = server()
    s.call("POST", "/api/v1/buttons", {"id": "door"})
    config = "homeassistant/event/buttond_lab/door/config"
    rec.wait(lambda m: rec.on(config) and rec.on(config)[-1] != b"")
    before = len(rec.on(config))
    rec.publish(f"{BASE}/button/door/set", "press")
    # A later message buttond does act on: Home Assistant's birth message makes it publish its
    # discovery again. Once that has come back, buttond has taken everything published before
    # it, the command included (one connection, messages in order).
    rec.publish("homeassistant/status", "online")
    rec.wait(lambda m: len(rec.on(config)) > before)
    assert history(s, "door") == []
    assert rec.on(f"{BASE}/error") == []
    assert s.call("GET", "/api/v1/mqtt")[1]["commands"] is False


def test_status_endpoint_and_metrics(server, broker):
    s = server()
    status, body = s.call("GET", "/api/v1/mqtt")
    assert status == 200
    deadline = time.monotonic() + 10
    while body["connection"] != "connected" and time.monotonic() < deadline:
        time.sleep(0.1)
        body = s.call("GET", "/api/v1/mqtt")[1]
    assert body["connection"] == "connected" and body["instance"] == "lab" and body["topics"] == BASE
    with __import__("urllib.request").request.urlopen(s.base + "/metrics") as r:
        text = r.read().decode()
    assert "buttond_mqtt_connected 1" in text


def test_look_commands_put_state_on_a_key(server, recorder):
    rec = recorder(f"{BASE}/button/+/state", f"{BASE}/error")
    s = server("--mqtt-commands")
    s.call("POST", "/api/v1/buttons", {"id": "onair"})
    time.sleep(0.3)
    rec.publish(f"{BASE}/button/onair/set", json.dumps({"status": "ON AIR", "color": "#ff0000"}))
    rec.wait(lambda m: any(st.get("status") == "ON AIR" for st in rec.json_on(f"{BASE}/button/onair/state")))
    state = rec.json_on(f"{BASE}/button/onair/state")[-1]
    assert state["color"] == "#ff0000"
    status, button = s.call("GET", "/api/v1/buttons/onair")
    assert button["status"] == "ON AIR" and button["color"] == "#ff0000"
    rec.publish(f"{BASE}/button/onair/set", json.dumps({"status": None}))
    rec.wait(lambda m: rec.json_on(f"{BASE}/button/onair/state")[-1].get("status") is None)
    assert "status" not in s.call("GET", "/api/v1/buttons/onair")[1]
    rec.publish(f"{BASE}/button/onair/set", json.dumps({"color": "red"}))
    rec.publish(f"{BASE}/button/onair/set", json.dumps({"status": "x", "label": "sneaky"}))
    rec.wait(lambda m: len(rec.json_on(f"{BASE}/error")) >= 2)
    assert [e["status"] for e in rec.json_on(f"{BASE}/error")] == [422, 422]
    assert s.call("GET", "/api/v1/buttons/onair")[1]["label"] == "onair"


def test_what_changed_while_away_from_the_broker_is_cleared_when_back(server, recorder, workdir):
    """A button deleted, or a gesture dropped, while buttond could not reach the broker: the
    retained discovery and state it left are cleared once buttond is back."""
    s = server()
    s.call("POST", "/api/v1/buttons", {"id": "ghost", "maxTaps": 1})
    s.call("POST", "/api/v1/buttons", {"id": "five", "maxTaps": 3})
    triple = "homeassistant/device_automation/buttond_lab/five_button_triple_press/config"
    ghost = ["homeassistant/event/buttond_lab/ghost/config", f"{BASE}/button/ghost/state"]
    rec = recorder("homeassistant/#", f"{BASE}/button/+/state")
    rec.wait(lambda m: all(rec.on(t) for t in [triple, *ghost]))
    s.stop()
    away = server("--mqtt-url", "mqtt://127.0.0.1:9", data_dir=workdir / "data")  # nothing listens on 9
    assert away.call("DELETE", "/api/v1/buttons/ghost")[0] == 204
    assert away.call("PATCH", "/api/v1/buttons/five", {"maxTaps": 2})[0] == 200
    away.stop()
    assert all(rec.on(t)[-1] != b"" for t in [triple, *ghost])  # the broker still keeps them
    server(data_dir=workdir / "data")
    rec.wait(lambda m: all(rec.on(t)[-1:] == [b""] for t in [triple, *ghost]))
    kept = "homeassistant/event/buttond_lab/five/config"
    assert rec.on(kept)[-1] != b""  # what still exists stays


def test_names_that_differ_in_a_dot_get_devices_of_their_own(server, recorder):
    rec = recorder("homeassistant/#")
    s = server()
    s.call("POST", "/api/v1/buttons", {"id": "hall.light", "maxTaps": 1})
    s.call("POST", "/api/v1/buttons", {"id": "hall_light", "maxTaps": 1})
    rec.wait(lambda m: len({t for t, p, _ in m if t.startswith("homeassistant/event/") and p}) >= 2)
    events = {t: json.loads(p) for t, p, _ in rec.messages if t.startswith("homeassistant/event/") and p}
    assert len(events) == 2, events.keys()
    assert sorted(c["device"]["identifiers"][0] for c in events.values()) == ["buttond_lab_hall.light", "buttond_lab_hall_light"]
    assert len({c["unique_id"] for c in events.values()}) == 2
    assert s.call("DELETE", "/api/v1/buttons/hall.light")[0] == 204
    dotted = next(t for t, c in events.items() if c["device"]["identifiers"] == ["buttond_lab_hall.light"])
    other = next(t for t in events if t != dotted)
    rec.wait(lambda m: rec.on(dotted)[-1:] == [b""])
    assert rec.on(other)[-1] != b""  # the other one's discovery is untouched


def test_every_device_is_via_the_instance_which_is_a_device_too(server, recorder):
    rec = recorder("homeassistant/#")
    s = server()
    s.call("POST", "/api/v1/buttons", {"id": "door", "maxTaps": 1})
    rec.wait(lambda m: rec.on("homeassistant/event/buttond_lab/door/config"))
    configs = {t: json.loads(p) for t, p, _ in rec.messages if p}
    door = configs["homeassistant/event/buttond_lab/door/config"]
    instance = [c for t, c in configs.items() if c.get("device", {}).get("identifiers") == [door["device"]["via_device"]]]
    assert len(instance) == 1, "via_device names a device that is announced"
    sensor = instance[0]
    assert sensor["state_topic"] == f"{BASE}/status" and sensor["payload_on"] == "online" and sensor["unique_id"]


def test_while_the_broker_is_away_deliveries_wait_without_attempts(server, broker):
    s = server()
    s.call("POST", "/api/v1/buttons", {"id": "door", "maxTaps": 1})
    wait_connection(s, True)
    broker.stop()
    wait_connection(s, False)
    for _ in range(3):
        assert s.call("POST", "/api/v1/buttons/door/press", {})[0] == 200
    time.sleep(3)  # the fixed retry is a second: three rounds, had they been tried
    did = s.call("GET", "/api/v1/deliveries?handler=mqtt&limit=1")[1]["deliveries"][0]["id"]
    assert s.call("POST", f"/api/v1/deliveries/{did}/redeliver")[0] == 503  # it cannot go now
    status, body = s.call("GET", "/api/v1/deliveries?handler=mqtt&limit=100")
    assert status == 200 and len(body["deliveries"]) == 12
    assert max(d.get("attempts", 0) for d in body["deliveries"]) == 0, body["deliveries"][:2]
    broker.start()
    deadline = time.monotonic() + 20
    while s.call("GET", "/api/v1/mqtt")[1]["pending"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert s.call("GET", "/api/v1/mqtt")[1]["pending"] == 0


def test_commands_are_refused_as_over_http_and_retained_ones_not_run_again(server, recorder, workdir):
    rec = recorder(f"{BASE}/error", f"{BASE}/button/+/state")
    s = server("--mqtt-commands")
    s.call("POST", "/api/v1/buttons", {"id": "lamp", "kind": "toggle"})
    s.call("POST", "/api/v1/buttons", {"id": "door", "maxTaps": 1})
    s.call("POST", "/api/v1/sheets", {"id": "scene", "options": [{"id": "day"}, {"id": "night"}]})
    wait_connection(s, True)
    time.sleep(0.3)  # the command subscriptions are acknowledged
    rec.publish(f"{BASE}/button/lamp/set", json.dumps({"face": 2}))
    rec.publish(f"{BASE}/button/lamp/set", "{oops")
    rec.wait(lambda m: len(rec.json_on(f"{BASE}/error")) >= 2)
    face, malformed = rec.json_on(f"{BASE}/error")[:2]
    assert face["status"] == 422 and face["error"]["field"] == "face"
    assert malformed["status"] == 400 and malformed["error"]["message"].startswith("malformed JSON at byte 1")
    rec.publish(f"{BASE}/sheet/scene/set", json.dumps({"option": 1}))  # an index, as over HTTP
    deadline = time.monotonic() + 5
    def selects():
        return [e["data"]["option"] for e in s.call("GET", "/api/v1/events?sheet=scene")[1]["events"] if e["type"] == "select"]
    while not selects() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert selects() == ["night"]
    rec.publish(f"{BASE}/button/door/set", "press", retain=True)  # runs now, and the broker keeps it
    deadline = time.monotonic() + 5
    while len(history(s, "door")) < 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(history(s, "door")) == 4
    s.stop()
    again = server("--mqtt-commands", data_dir=workdir / "data")
    wait_connection(again, True)
    # The broker hands the kept command to the new subscription at once; a live one sent
    # after it is run, and the kept one is not: one more press, not two.
    rec.publish(f"{BASE}/button/door/set", "press")
    deadline = time.monotonic() + 10
    while len(history(again, "door")) < 8 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    assert len(history(again, "door")) == 8, "a kept command is not run again at a reconnect"
    rec.publish(f"{BASE}/button/door/set", "", retain=True)  # the broker forgets it


def test_without_commands_nothing_is_advertised_with_a_command_topic(server, recorder):
    rec = recorder("homeassistant/#")
    s = server()
    s.call("POST", "/api/v1/buttons", {"id": "lamp", "kind": "toggle"})
    s.call("POST", "/api/v1/sheets", {"id": "scene", "options": [{"id": "day", "label": "Daylight"}]})
    face = "homeassistant/binary_sensor/buttond_lab/lamp/config"
    choice = "homeassistant/sensor/buttond_lab/scene/config"
    rec.wait(lambda m: rec.on(face) and rec.on(choice))
    configs = {t: json.loads(p) for t, p, _ in rec.messages if p}
    assert not any("command_topic" in c for c in configs.values()), [t for t, c in configs.items() if "command_topic" in c]
    assert not any(t.startswith(("homeassistant/switch/", "homeassistant/select/")) for t in configs)
    assert configs[face]["state_topic"] == f"{BASE}/button/lamp/state"
    assert configs[face]["payload_on"] == "1" and configs[face]["value_template"] == TOLERANT % ("face", "face")
    assert configs[choice]["state_topic"] == f"{BASE}/sheet/scene/state"


def test_a_sheet_keeps_its_last_choice_on_a_retained_state_topic(server, recorder):
    s = server()
    s.call("POST", "/api/v1/sheets", {"id": "scene", "options": [{"id": "day", "label": "Daylight"},
                                                                 {"id": "cool", "label": "Cool"}]})
    assert s.call("POST", "/api/v1/sheets/scene/open", {})[0] == 200
    assert s.call("POST", "/api/v1/sheets/scene/choose", {"option": "cool"})[0] == 200
    late = recorder(f"{BASE}/sheet/scene/state")  # subscribes after: the retained one comes
    late.wait(lambda m: late.json_on(f"{BASE}/sheet/scene/state"))
    assert late.json_on(f"{BASE}/sheet/scene/state")[-1] == {"open": False, "option": "cool", "label": "Cool"}
    assert s.call("DELETE", "/api/v1/sheets/scene")[0] == 204
    late.wait(lambda m: late.on(f"{BASE}/sheet/scene/state")[-1:] == [b""])


def test_a_sheets_last_choice_outlives_a_restart(server, recorder, workdir):
    """The choice is in the history, not only in memory: after a restart the state published
    on connect, and at the next open, still names it (SPEC §9: "what was last chosen")."""
    s = server()
    s.call("POST", "/api/v1/sheets", {"id": "scene", "options": [{"id": "day", "label": "Daylight"},
                                                                 {"id": "cool", "label": "Cool"}]})
    assert s.call("POST", "/api/v1/sheets/scene/open", {})[0] == 200
    assert s.call("POST", "/api/v1/sheets/scene/choose", {"option": "cool"})[0] == 200
    s.stop()
    topic = f"{BASE}/sheet/scene/state"
    rec = recorder(topic)
    rec.wait(lambda m: rec.json_on(topic))  # the retained one, from before
    seen = len(rec.json_on(topic))
    again = server(data_dir=workdir / "data")
    rec.wait(lambda m: len(rec.json_on(topic)) > seen)  # published on connect
    assert rec.json_on(topic)[-1] == {"open": False, "option": "cool", "label": "Cool"}
    assert again.call("POST", "/api/v1/sheets/scene/open", {})[0] == 200
    rec.wait(lambda m: rec.json_on(topic)[-1]["open"] is True)
    assert rec.json_on(topic)[-1] == {"open": True, "option": "cool", "label": "Cool"}


def test_a_button_deleted_while_home_assistant_was_away_is_removed_when_it_is_back(server, recorder, workdir):
    s = server()
    s.call("POST", "/api/v1/buttons", {"id": "gone", "maxTaps": 1})
    event = "homeassistant/event/buttond_lab/gone/config"
    rec = recorder("homeassistant/#")
    rec.wait(lambda m: rec.on(event) and rec.on(event)[-1] != b"")
    assert s.call("DELETE", "/api/v1/buttons/gone")[0] == 204
    rec.wait(lambda m: rec.on(event)[-1:] == [b""])
    # buttond restarts (the tombstone is in its database), then Home Assistant comes back.
    s.stop()
    with rec.lock:
        heard = len(rec.messages)
    s = server(data_dir=workdir / "data")
    # Home Assistant's birth message is not retained: send it once the new buttond has
    # subscribed, which it does before it announces its devices again (one connection keeps
    # the order). Sent sooner, it could reach the broker first and be lost (seen under load).
    rec.wait(lambda m: len(m) > heard, timeout=10)
    before = len(rec.on(event))
    rec.publish("homeassistant/status", "online")
    # The config is told again (so HA knows the device in this run), then cleared: HA removes it.
    rec.wait(lambda m: len(rec.on(event)) >= before + 2 and rec.on(event)[-1] == b"", timeout=10)
    replayed = [p for p in rec.on(event)[before:] if p]
    assert replayed and json.loads(replayed[0])["unique_id"]
    # Made again, a button of that name is not removed by its old tombstone.
    s.call("POST", "/api/v1/buttons", {"id": "gone", "maxTaps": 1})
    rec.wait(lambda m: rec.on(event)[-1] != b"")
    rec.publish("homeassistant/status", "online")
    time.sleep(2.5)
    assert rec.on(event)[-1] != b""


def test_a_failed_and_a_recovered_broker_connection_are_logged(server, broker):
    broker.stop()
    s = server()
    deadline = time.monotonic() + 5
    while "mqtt connection failed" not in s.log_path.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    log = s.log_path.read_text()
    assert "level=warn msg=\"mqtt connection failed\"" in log and "Connection refused" in log, log[-2000:]
    broker.start()
    deadline = time.monotonic() + 40
    while "mqtt connection recovered" not in s.log_path.read_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "level=warn msg=\"mqtt connection recovered\"" in s.log_path.read_text()


def test_status_is_a_sensor_and_a_status_patch_publishes_the_state_topic_and_no_config(server, recorder):
    """SPEC §9: a key's `status` is a `sensor` entity read from the button's state topic; a change
    of look or status publishes that state topic only, and discovery configs go again only when
    what they say changes (a label: the device's name)."""
    rec = recorder("homeassistant/#", f"{BASE}/button/+/state")
    s = server()
    assert s.call("POST", "/api/v1/buttons", {"id": "studio", "label": "Studio", "maxTaps": 1})[0] == 201
    sensor_topic = "homeassistant/sensor/buttond_lab/studio_STATUS/config"
    rec.wait(lambda m: rec.on(sensor_topic) and rec.json_on(f"{BASE}/button/studio/state"))
    sensor = json.loads(rec.on(sensor_topic)[-1])
    assert sensor["name"] == "Status" and sensor["unique_id"] == "buttond_lab_studio_status"
    assert sensor["state_topic"] == f"{BASE}/button/studio/state"
    assert "value_json.status" in sensor["value_template"] and "is not none" in sensor["value_template"]
    assert sensor["device"]["identifiers"] == ["buttond_lab_studio"]
    assert sensor["availability_topic"] == f"{BASE}/status"
    assert "command_topic" not in sensor
    time.sleep(0.5)  # anything still on its way from the create

    def configs_sent() -> int:
        with rec.lock:
            return sum(1 for t, _, _ in rec.messages if t.startswith("homeassistant/") and t.endswith("/config"))

    configs_before = configs_sent()
    states_before = len(rec.on(f"{BASE}/button/studio/state"))
    for status in ["ON AIR", "OFF AIR", None]:
        assert s.call("PATCH", "/api/v1/buttons/studio", {"status": status})[0] == 200
    assert s.call("PATCH", "/api/v1/buttons/studio", {"color": "#ff0000"})[0] == 200
    rec.wait(lambda m: len(rec.on(f"{BASE}/button/studio/state")) >= states_before + 4)
    states = rec.json_on(f"{BASE}/button/studio/state")[states_before:]
    assert [st["status"] for st in states] == ["ON AIR", "OFF AIR", None, None]
    assert states[-1]["color"] == "#ff0000"
    time.sleep(1.0)  # a config republished would be here by now
    assert configs_sent() == configs_before, [t for t, _, _ in rec.messages if t.endswith("/config")][-8:]

    # A new label is what the configs say (the device's name): they go again.
    assert s.call("PATCH", "/api/v1/buttons/studio", {"label": "Studio A"})[0] == 200
    rec.wait(lambda m: json.loads(rec.on(sensor_topic)[-1])["device"]["name"] == "Studio A")
    assert configs_sent() > configs_before


def test_a_guarded_key_on_mqtt_and_its_enabled_switch(server, recorder):
    """SPEC §9's guard lines: the event entity lists armed, disarmed and refused; the armed
    window's events arrive as any; with --mqtt-commands `enabled` is a configuration switch
    whose command disables the key, and a disabled key refuses a command as HTTP does."""
    rec = recorder("homeassistant/#", f"{BASE}/button/+/event", f"{BASE}/button/+/gesture",
                   f"{BASE}/button/+/state", f"{BASE}/error")
    s = server("--mqtt-commands")
    assert s.call("POST", "/api/v1/buttons", {"id": "blackout", "confirmMs": 500})[0] == 201
    event_config = "homeassistant/event/buttond_lab/blackout/config"
    switch_config = "homeassistant/switch/buttond_lab/blackout_Enabled/config"
    rec.wait(lambda m: rec.json_on(event_config) and rec.json_on(switch_config))
    assert rec.json_on(event_config)[-1]["event_types"] == [
        "single-tap", "long-press", "long-press-end", "armed", "disarmed", "refused"]
    switch = rec.json_on(switch_config)[-1]
    assert switch["name"] == "Enabled" and switch["entity_category"] == "config"
    assert switch["command_topic"] == f"{BASE}/button/blackout/set"
    assert switch["state_topic"] == f"{BASE}/button/blackout/state"
    # Arm it, and let the window close by itself.
    rec.publish(f"{BASE}/button/blackout/set", "press")
    rec.wait(lambda m: "disarmed" in [e["type"] for e in events_of(rec, "blackout")], timeout=5)
    assert [e["type"] for e in events_of(rec, "blackout")] == ["touch-down", "touch-up-inside", "armed", "disarmed"]
    assert events_of(rec, "blackout")[-1]["data"] == {"reason": "timeout"}
    rec.wait(lambda m: [g["event_type"] for g in rec.json_on(f"{BASE}/button/blackout/gesture")] == ["armed", "disarmed"])
    assert any(st["armed"] is True for st in rec.json_on(f"{BASE}/button/blackout/state"))
    # Home Assistant's switch turned off: the key is disabled, says so, and refuses input.
    rec.publish(f"{BASE}/button/blackout/set", switch["payload_off"])
    rec.wait(lambda m: rec.json_on(f"{BASE}/button/blackout/state")[-1]["enabled"] is False)
    assert s.call("GET", "/api/v1/buttons/blackout")[1]["enabled"] is False
    rec.publish(f"{BASE}/button/blackout/set", "press")
    rec.wait(lambda m: rec.json_on(f"{BASE}/error"))
    error = rec.json_on(f"{BASE}/error")[-1]
    assert error["status"] == 409 and error["error"]["code"] == "button_disabled"
    rec.publish(f"{BASE}/button/blackout/set", switch["payload_on"])
    rec.wait(lambda m: rec.json_on(f"{BASE}/button/blackout/state")[-1]["enabled"] is True)
    assert s.call("POST", "/api/v1/buttons/blackout/press", {})[0] == 200
