"""The control panel in a real browser (headless Chromium) against the real server.

Run with tests/browser/run.sh (installs Chromium, chromedriver, selenium and pytest when missing).
"""

from __future__ import annotations

import itertools
import time

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from conftest import ARTIFACTS, registry_events_supported, start_server, stop_server

_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    return f"{prefix}-{next(_ids)}-{int(time.time() * 1000) % 100000}"


def wait(driver, timeout=10):
    return WebDriverWait(driver, timeout, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,))


def open_panel(driver, server):
    driver.get(server.url("/"))
    wait(driver).until(lambda d: d.execute_script("return document.body.classList.contains('ready')"))
    wait(driver).until(lambda d: d.find_element(By.ID, "conn").get_attribute("data-state") == "live")


def key(driver, button_id):
    return wait(driver).until(EC.element_to_be_clickable((By.CSS_SELECTOR, f'button.key[data-id="{button_id}"]')))


def log_has(driver, subject, type_):
    sel = f'#log-list li[data-subject="{subject}"][data-type="{type_}"]'
    return wait(driver).until(EC.presence_of_element_located((By.CSS_SELECTOR, sel)))


def description(driver, el):
    return driver.execute_script(
        "return arguments[0].getAttribute('aria-describedby').split(' ')"
        ".map((id) => document.getElementById(id).textContent).join(' ')", el)


def types(events):
    return [e["type"] for e in events]


def handlers_available(server, button_id, sink_url):
    status, data = server.call("POST", f"/buttons/{button_id}/handlers",
                               {"on": ["tap"], "webhook": {"url": sink_url}})
    if status in (404, 405):
        return None, f"handlers API not available yet ({status}: {(data or {}).get('error', {}).get('message', '')})"
    assert status == 201, f"creating a webhook handler -> {status} {data}"
    assert str(data.get("secret", "")).startswith("whsec_"), f"a new webhook handler returns its secret once: {data}"
    return data, ""


# ---- tests ---------------------------------------------------------------------------------


def test_click_fires_tap_that_reaches_webhook(server, sink, driver):
    bid = new_id("door")
    server.ok("POST", "/buttons", {"id": bid, "label": "Front door", "maxTaps": 1})
    handler, pending = handlers_available(server, bid, sink.url + "/" + bid)

    open_panel(driver, server)
    key(driver, bid).click()

    # The page shows it (from the stream) and the history has it.
    log_has(driver, bid, "tap")
    evs = server.wait_events(lambda e: "tap" in types(e), button=bid, what="tap")
    assert types(evs)[:3] == ["touch-down", "touch-up-inside", "tap"]
    assert evs[0]["data"].get("pointer") == "mouse"

    if handler is None:
        pytest.skip(f"tap fired and logged; webhook part pending: {pending}")
    post = sink.wait_for(lambda p: p["json"] and p["json"].get("type") == "tap" and p["json"].get("button") == bid)
    assert post["headers"].get("webhook-signature", post["headers"].get("Webhook-Signature", "")).startswith("v1,")
    assert post["path"].endswith("/" + bid)


def test_held_pointer_fires_long_press_before_release_and_no_tap(server, driver):
    bid = new_id("hold")
    server.ok("POST", "/buttons", {"id": bid, "label": "Hold me", "longPressMs": 300})
    open_panel(driver, server)
    el = key(driver, bid)

    ActionChains(driver).click_and_hold(el).perform()
    try:
        # While still held: the key shows pressed, and the long press arrives (no blind sleep).
        wait(driver).until(lambda d: "held" in el.get_attribute("class"))
        # held is exposed without changing the name (a push key is not a toggle: no aria-pressed)
        wait(driver).until(lambda d: description(d, el).startswith("Held."))
        assert el.get_attribute("aria-label") == "Hold me" and el.get_attribute("aria-pressed") is None
        log_has(driver, bid, "long-press")
        wait(driver).until(lambda d: "long" in el.get_attribute("class"))
        held = server.events(button=bid)
        assert types(held) == ["touch-down", "long-press"], types(held)
    finally:
        # release where the pointer is: a release(el) would first move with no button pressed
        ActionChains(driver).release().perform()

    evs = server.wait_events(lambda e: "long-press-end" in types(e), button=bid, what="long-press-end")
    t = types(evs)
    assert t.index("long-press") < t.index("touch-up-inside")
    assert "tap" not in t
    assert evs[1]["data"]["durationMs"] == 300
    wait(driver).until(lambda d: "held" not in el.get_attribute("class"))


def test_toggle_flips_and_shows_other_face(server, driver):
    bid = new_id("lamp")
    server.ok("POST", "/buttons", {
        "id": bid, "label": "Lamp", "kind": "toggle", "maxTaps": 1,
        "faces": [{"label": "Off"}, {"label": "On", "color": "#ffcc00"}],
        "flip": {"transition": "flip-from-left", "curve": "ease-in-out", "durationMs": 150},
    })
    open_panel(driver, server)
    el = key(driver, bid)
    assert el.get_attribute("aria-pressed") == "false"
    # The accessible name is the label alone; the face is in the description.
    assert el.get_attribute("aria-label") == "Lamp"
    assert "Off" in description(driver, el)

    el.click()
    wait(driver).until(lambda d: el.get_attribute("aria-pressed") == "true")
    assert "On" in description(driver, el)
    # The card has turned over: after the transition, the face-1 side faces the viewer.
    wait(driver).until(lambda d: d.execute_script(
        "const f = arguments[0].querySelector('.flipper');"
        "const m = new DOMMatrix(getComputedStyle(f).transform); return Math.abs(m.m11 + 1) < 0.01;", el))
    face1 = el.find_element(By.CSS_SELECTOR, ".face-1 .face-label")
    assert face1.text == "On"
    evs = server.wait_events(lambda e: "toggle" in types(e), button=bid, what="toggle")
    toggle = next(e for e in evs if e["type"] == "toggle")
    assert toggle["data"] == {"face": 1, "previousFace": 0} or (toggle["data"]["face"] == 1)

    # Keyboard: Space on the focused key flips it back.
    el.send_keys(Keys.SPACE)
    wait(driver).until(lambda d: el.get_attribute("aria-pressed") == "false")

    # A flip from outside (PUT state) shows here too.
    server.ok("PUT", f"/buttons/{bid}/state", {"face": 1})
    wait(driver).until(lambda d: el.get_attribute("aria-pressed") == "true")


def test_sheet_opened_via_api_shows_and_option_fires_select(server, driver):
    sid = new_id("scene")
    server.ok("POST", "/sheets", {"id": sid, "title": "Scene", "options": [
        {"id": "movie", "label": "Movie night"}, {"id": "off", "label": "All off", "destructive": True}]})
    open_panel(driver, server)

    server.ok("POST", f"/sheets/{sid}/open")
    sheet = wait(driver).until(EC.visibility_of_element_located(
        (By.CSS_SELECTOR, f'dialog.bottom-sheet[data-sheet="{sid}"][open]')))
    # wait for the slide-in to finish: until then part of the sheet (its Cancel button, last)
    # is still below the viewport, so not visible text, and a click may miss the option
    wait(driver).until(lambda d: d.execute_script(
        "return getComputedStyle(arguments[0]).transform === 'none'", sheet))
    assert "Scene" in sheet.text and "Movie night" in sheet.text and "Cancel" in sheet.text
    option = wait(driver).until(EC.element_to_be_clickable(
        (By.CSS_SELECTOR, f'dialog.bottom-sheet[data-sheet="{sid}"] .bs-option[data-option="movie"]')))
    option.click()

    evs = wait(driver).until(lambda d: [e for e in server.events() if e.get("sheet") == sid and e["type"] == "select"])
    assert evs[0]["data"]["option"] == "movie" and evs[0]["data"]["index"] == 0
    wait(driver).until(EC.invisibility_of_element_located((By.CSS_SELECTOR, f'dialog.bottom-sheet[data-sheet="{sid}"]')))
    log_has(driver, sid, "select")

    # Opened elsewhere and cancelled elsewhere: it closes here too.
    server.ok("POST", f"/sheets/{sid}/open")
    wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, f'dialog.bottom-sheet[data-sheet="{sid}"][open]')))
    server.ok("POST", f"/sheets/{sid}/cancel")
    wait(driver).until(EC.invisibility_of_element_located((By.CSS_SELECTOR, f'dialog.bottom-sheet[data-sheet="{sid}"]')))


def test_log_shows_event_sent_from_outside(server, driver):
    bid = new_id("bell")
    server.ok("POST", "/buttons", {"id": bid, "label": "Bell"})
    open_panel(driver, server)
    el = key(driver, bid)

    # Like `curl -X POST .../down`: the page shows the key held, then the tap in the log.
    server.ok("POST", f"/buttons/{bid}/down", {"pointer": "curl"})
    wait(driver).until(lambda d: "held" in el.get_attribute("class"))
    server.ok("POST", f"/buttons/{bid}/up", {})
    wait(driver).until(lambda d: "held" not in el.get_attribute("class"))
    row = log_has(driver, bid, "tap")
    assert "Bell" in row.text

    # gestures by default: the raw touches are there, hidden, until "Raw" is switched on
    down = log_has(driver, bid, "touch-down")
    assert row.is_displayed() and not down.is_displayed()
    raw = driver.find_element(By.ID, "log-raw")
    driver.execute_script("arguments[0].click()", raw)
    wait(driver).until(lambda d: down.is_displayed())
    driver.execute_script("arguments[0].click()", raw)
    wait(driver).until(lambda d: not down.is_displayed())
    # the log itself is not a live region; a polite one announces the gesture, once
    assert driver.find_element(By.ID, "log-list").get_attribute("aria-live") in (None, "off")
    announcer = driver.find_element(By.ID, "announcer")
    assert announcer.get_attribute("aria-live") == "polite"
    wait(driver).until(lambda d: announcer.get_attribute("textContent") == "Bell: single tap")
    # every key's accessible name is its label alone, the hints are its description
    assert el.get_attribute("aria-label") == "Bell"
    assert "hold 0.5 s" in description(driver, el)


def test_edit_mode_creates_a_button_that_works(server, driver):
    bid = new_id("made")
    open_panel(driver, server)
    driver.find_element(By.ID, "edit-toggle").click()
    wait(driver).until(EC.element_to_be_clickable((By.ID, "add-button"))).click()
    dialog = wait(driver).until(EC.visibility_of_element_located((By.ID, "editor")))
    dialog.find_element(By.NAME, "id").send_keys(bid)
    dialog.find_element(By.NAME, "label").send_keys("Made in edit mode")
    long_press = dialog.find_element(By.NAME, "longPressMs")
    long_press.clear()
    long_press.send_keys("800")
    dialog.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    # After creating, the editor shows the button with its handlers section.
    wait(driver).until(lambda d: "Made in edit mode" in d.find_element(By.ID, "editor-title").text)
    created = server.ok("GET", f"/buttons/{bid}")
    assert created["label"] == "Made in edit mode" and created["longPressMs"] == 800

    # A wrong value is refused by the server and said in words.
    lp = driver.find_element(By.CSS_SELECTOR, "#editor [name=longPressMs]")
    lp.clear()
    lp.send_keys("5")
    driver.find_element(By.CSS_SELECTOR, "#editor button[type=submit]").click()
    err = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor .form-error")))
    assert "longPressMs" in err.text
    wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, ".toast-error")))

    driver.find_element(By.CSS_SELECTOR, "#editor [data-close]").click()
    driver.find_element(By.ID, "edit-toggle").click()
    wait(driver).until(lambda d: d.find_element(By.ID, "editbar").get_attribute("hidden") is not None)

    key(driver, bid).click()
    server.wait_events(lambda e: "tap" in types(e), button=bid, what="tap on the new button")
    log_has(driver, bid, "tap")


def test_edit_mode_attaches_webhook_and_shows_secret_and_deliveries(server, sink, driver):
    bid = new_id("hooked")
    server.ok("POST", "/buttons", {"id": bid, "label": "Hooked", "maxTaps": 1})
    status, _ = server.call("GET", f"/buttons/{bid}/handlers")
    if status in (404, 405):
        pytest.skip(f"handlers API not available yet ({status})")
    open_panel(driver, server)
    driver.find_element(By.ID, "edit-toggle").click()
    key(driver, bid).click()
    wait(driver).until(EC.element_to_be_clickable((By.XPATH, "//dialog[@id='editor']//button[normalize-space()='Add handler']"))).click()
    url = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor [name=url]")))
    url.send_keys(sink.url + "/ui-" + bid)
    driver.find_element(By.CSS_SELECTOR, "#editor button[type=submit]").click()
    secret = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor input.secret")))
    assert secret.get_attribute("value").startswith("whsec_")
    driver.find_element(By.XPATH, "//dialog[@id='editor']//button[normalize-space()='Done']").click()
    card = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor .handler-card")))
    assert "ui-" + bid in card.text
    card.find_element(By.XPATH, ".//button[normalize-space()='Test']").click()
    sink.wait_for(lambda p: p["path"].endswith("/ui-" + bid))
    # the deliveries view lists it; open one to see its attempts
    row = wait(driver).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#editor .delivery-summary")))
    row.click()
    wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#editor .attempt") or
                       d.find_element(By.XPATH, "//dialog[@id='editor']//button[normalize-space()='Refresh']").click())
    driver.find_element(By.CSS_SELECTOR, "#editor [data-close]").click()
    driver.find_element(By.ID, "edit-toggle").click()


# ---- keys that show state from outside: look, status, health -------------------------------


def key_look(driver, bid):
    return driver.execute_script("""
        const k = document.querySelector(`button.key[data-id="${arguments[0]}"]`);
        if (!k) return null;
        const s = k.querySelector('.key-status');
        return {status: s.hidden ? '' : s.textContent, color: k.style.getPropertyValue('--key-color'),
                icon: (k.querySelector('.key-icon') || {dataset: {}}).dataset.icon || '',
                size: k.closest('.key-cell').dataset.size, health: k.closest('.key-cell').dataset.health};
    """, bid)


def test_patch_from_outside_shows_on_open_panel_without_reload(server, driver):
    if not registry_events_supported(server):
        pytest.skip("the server does not announce registry changes on the stream (no `event: registry`) yet")
    bid = new_id("onair")
    server.ok("POST", "/buttons", {"id": bid, "label": "Studio", "icon": "mic"})
    open_panel(driver, server)
    key(driver, bid)
    driver.execute_script("window.__noReload = true")
    # Like `curl -XPATCH …/buttons/ID -d '{"status":"ON AIR","color":"#d00000"}'`: timed in the page.
    driver.execute_script("""
        const bid = arguments[0];
        window.__shownAt = 0;
        new MutationObserver((_, obs) => {
          const k = document.querySelector(`button.key[data-id="${bid}"]`);
          if (k && k.querySelector('.key-status').textContent === 'ON AIR') { window.__shownAt = Date.now(); obs.disconnect(); }
        }).observe(document.getElementById('groups'), {subtree: true, childList: true, characterData: true});
    """, bid)
    sent = time.time() * 1000
    server.ok("PATCH", f"/buttons/{bid}", {"status": "ON AIR", "color": "#d00000", "size": "2x1"})
    wait(driver).until(lambda d: (key_look(d, bid) or {}).get("status") == "ON AIR")
    look = key_look(driver, bid)
    assert look["color"] == "#d00000" and look["size"] == "2x1" and look["icon"] == "mic", look
    latency = driver.execute_script("return window.__shownAt") - sent
    print(f"PATCH → key updated in {latency:.0f} ms")
    assert latency < 500, f"the status showed {latency:.0f} ms after the PATCH (SPEC: within 100 ms)"
    assert driver.execute_script("return window.__noReload === true"), "the page reloaded"
    el = key(driver, bid)
    assert el.get_attribute("aria-label") == "Studio", "the accessible name is the label alone"
    assert "ON AIR" in description(driver, el)

    # null clears; a new button and a deleted one follow too, still without a reload
    server.ok("PATCH", f"/buttons/{bid}", {"status": None, "color": None})
    wait(driver).until(lambda d: key_look(d, bid) == {**look, "status": "", "color": ""})
    other = new_id("newkey")
    server.ok("POST", "/buttons", {"id": other, "label": "Arrived"})
    key(driver, other)
    server.ok("DELETE", f"/buttons/{other}")
    wait(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, f'button.key[data-id="{other}"]'))
    assert driver.execute_script("return window.__noReload === true")


def test_failing_webhook_marks_key_and_410_disables_it(server, status_sink, driver):
    failing, gone = new_id("failing"), new_id("gone")
    server.ok("POST", "/buttons", {"id": failing, "label": "Porch light", "maxTaps": 1})
    server.ok("POST", "/buttons", {"id": gone, "label": "Front door", "maxTaps": 1})
    status, data = server.call("POST", f"/buttons/{failing}/handlers",
                               {"on": ["tap"], "webhook": {"url": status_sink.url(f"/{failing}", 500), "maxAttempts": 5}})
    if status in (404, 405):
        pytest.skip(f"handlers API not available yet ({status})")
    assert status == 201, data
    server.ok("POST", f"/buttons/{gone}/handlers", {"on": ["tap"], "webhook": {"url": status_sink.url(f"/{gone}", 410)}})
    open_panel(driver, server)
    key(driver, failing)
    server.ok("POST", f"/buttons/{failing}/press", {})
    server.ok("POST", f"/buttons/{gone}/press", {})

    def health(d, bid):
        return (key_look(d, bid) or {}).get("health")

    try:
        wait(driver, 15).until(lambda d: health(d, failing) == "failing" and health(d, gone) == "disabled")
    except Exception:
        api = [server.ok("GET", f"/buttons/{b}").get("health") for b in (failing, gone)]
        if not any(api):
            pytest.skip(f"the server does not report handler health on buttons yet (GET /buttons/ID has no `health`)")
        driver.refresh()
        wait(driver).until(lambda d: d.execute_script("return document.body.classList.contains('ready')"))
        raise AssertionError(f"the open panel did not follow the health change (API says {api}); "
                             f"after a reload: {[health(driver, b) for b in (failing, gone)]}")

    # a 410 disables the handler: every open panel says so in a toast
    toast = wait(driver).until(EC.visibility_of_element_located(
        (By.XPATH, "//div[contains(@class,'toast')][contains(., 'Front door: handler disabled')]")))
    assert "410" in toast.text, toast.text
    # the reason is one tap away
    mark = driver.find_element(By.CSS_SELECTOR, f'.key-cell[data-id="{gone}"] .health-mark')
    assert "disabled" in mark.get_attribute("aria-label")
    mark.click()
    dialog = wait(driver).until(EC.visibility_of_element_located((By.ID, "health-dialog")))
    assert "disabled" in dialog.find_element(By.ID, "health-title").text
    assert "410" in dialog.find_element(By.ID, "health-reason").text
    driver.find_element(By.ID, "health-close").click()
    driver.find_element(By.CSS_SELECTOR, f'.key-cell[data-id="{failing}"] .health-mark').click()
    reason = wait(driver).until(EC.visibility_of_element_located((By.ID, "health-reason")))
    assert "500" in reason.text, reason.text
    driver.find_element(By.ID, "health-close").click()
    # the log says it too
    log_has(driver, gone, "handler disabled")

    # the delivery log reads "button · event → target · outcome", newest first
    driver.find_element(By.ID, "edit-toggle").click()
    driver.find_element(By.ID, "all-deliveries").click()
    row = wait(driver).until(EC.visibility_of_element_located(
        (By.XPATH, f"//li[contains(@class,'delivery')][.//strong[normalize-space()='Front door']]")))
    line = row.find_element(By.CSS_SELECTOR, ".delivery-line").text
    assert "Front door · tap →" in line and f"/{gone}" in line, line
    driver.find_element(By.CSS_SELECTOR, "#editor [data-close]").click()
    driver.find_element(By.ID, "edit-toggle").click()


def test_edit_mode_sets_and_clears_the_look(server, driver):
    bid = new_id("looks")
    server.ok("POST", "/buttons", {"id": bid, "label": "Plain", "status": "old"})
    open_panel(driver, server)
    driver.find_element(By.ID, "edit-toggle").click()
    key(driver, bid).click()
    wait(driver).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#editor .icon-choice")) > 10)
    pick = lambda css: driver.execute_script("arguments[0].click()", driver.find_element(By.CSS_SELECTOR, css))  # noqa: E731
    pick('#editor .swatches input[value="#16a34a"]')
    pick('#editor .icon-picker input[value="bell"]')
    pick('#editor .size-seg input[value="2x2"]')
    status = driver.find_element(By.CSS_SELECTOR, "#editor [name=status]")
    status.clear()
    status.send_keys("READY")
    # the preview follows before saving
    assert driver.find_element(By.CSS_SELECTOR, "#editor .preview-key .key-status").text == "READY"
    driver.find_element(By.CSS_SELECTOR, "#editor button[type=submit]").click()
    wait(driver).until(lambda d: (key_look(d, bid) or {}).get("status") == "READY")
    saved = server.ok("GET", f"/buttons/{bid}")
    assert (saved.get("color"), saved.get("icon"), saved.get("size"), saved.get("status")) == ("#16a34a", "bell", "2x2", "READY"), saved
    assert key_look(driver, bid) == {"status": "READY", "color": "#16a34a", "icon": "bell", "size": "2x2", "health": "ok"}

    # none of them: cleared on the server (null), plain on the panel
    wait(driver).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#editor .icon-choice")) > 10)
    pick('#editor .swatches input[value=""]')
    pick('#editor .icon-picker input[value=""]')
    pick('#editor .size-seg input[value="1x1"]')
    driver.find_element(By.CSS_SELECTOR, "#editor [name=status]").clear()
    driver.find_element(By.CSS_SELECTOR, "#editor button[type=submit]").click()
    wait(driver).until(lambda d: (key_look(d, bid) or {}).get("status") == "")
    saved = server.ok("GET", f"/buttons/{bid}")
    assert not {"color", "icon", "status"} & saved.keys() and saved.get("size", "1x1") == "1x1", saved
    driver.find_element(By.CSS_SELECTOR, "#editor [data-close]").click()
    driver.find_element(By.ID, "edit-toggle").click()


def test_delivery_log_reads_newest_first_and_pages_back(server, sink, driver):
    bid = new_id("many")
    server.ok("POST", "/buttons", {"id": bid, "label": "Busy key", "maxTaps": 1})
    status, handler = server.call("POST", f"/buttons/{bid}/handlers", {"on": ["tap"], "webhook": {"url": sink.url + "/" + bid}})
    if status in (404, 405):
        pytest.skip(f"handlers API not available yet ({status})")
    now = int(time.time() * 1000)
    inputs = []
    for i in range(56):
        inputs += [{"button": bid, "type": "down", "t": now + 2 * i}, {"button": bid, "type": "up", "t": now + 2 * i + 1}]
    server.ok("POST", "/input", inputs)
    open_panel(driver, server)
    driver.find_element(By.ID, "edit-toggle").click()
    key(driver, bid).click()
    wait(driver).until(EC.element_to_be_clickable((By.XPATH, "//dialog[@id='editor']//button[normalize-space()='Deliveries']"))).click()
    wait(driver).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#editor li.delivery")) == 50)
    older = driver.find_element(By.CSS_SELECTOR, "#editor button.older")
    assert older.is_displayed()
    older.click()
    wait(driver).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#editor li.delivery")) == 56)
    assert not older.is_displayed()
    rows = driver.find_elements(By.CSS_SELECTOR, "#editor li.delivery")
    ids = [r.get_attribute("data-delivery") for r in rows]
    assert len(set(ids)) == 56, "no row twice across pages"
    first = rows[0].find_element(By.CSS_SELECTOR, ".delivery-line").text
    assert first.startswith("Busy key · tap → POST http://127.0.0.1:"), first
    # newest first: the API's order, kept across the pages
    api = [d["id"] for d in server.ok("GET", f"/deliveries?limit=100&handler={handler['id']}")["deliveries"]]
    assert ids == api, (ids[:3], api[:3])
    driver.find_element(By.CSS_SELECTOR, "#editor [data-close]").click()
    driver.find_element(By.ID, "edit-toggle").click()


# ---- pages, kiosk, the installable app ---------------------------------------------------------


def test_pages_switch_by_tab_and_keep_the_url(server, driver):
    a, b = new_id("pga"), new_id("pgb")
    ga, gb = f"Alpha {a}", f"Beta {b}"
    server.ok("POST", "/buttons", {"id": a, "label": "On alpha", "group": ga})
    server.ok("POST", "/buttons", {"id": b, "label": "On beta", "group": gb})
    open_panel(driver, server)
    tabs = wait(driver).until(EC.visibility_of_element_located((By.ID, "tabs")))
    tab = tabs.find_element(By.XPATH, f".//a[@role='tab'][normalize-space()='{gb}']")
    tab.click()
    wait(driver).until(lambda d: tab.get_attribute("aria-selected") == "true")
    assert key(driver, b).is_displayed()
    assert not driver.find_element(By.CSS_SELECTOR, f'button.key[data-id="{a}"]').is_displayed()
    assert driver.execute_script("return decodeURIComponent(location.hash)") == f"#/page/{gb}"

    # the URL keeps the page: a reload (or a shared link) opens it
    driver.refresh()
    wait(driver).until(lambda d: d.find_element(By.ID, "conn").get_attribute("data-state") == "live")
    assert key(driver, b).is_displayed()
    assert not driver.find_element(By.CSS_SELECTOR, f'button.key[data-id="{a}"]').is_displayed()

    # keyboard: arrows move between tabs (Alpha comes just before Beta)
    selected = driver.find_element(By.CSS_SELECTOR, "#tabs [role=tab][aria-selected=true]")
    selected.send_keys(Keys.ARROW_LEFT)
    wait(driver).until(lambda d: key(d, a).is_displayed())
    assert driver.execute_script("return decodeURIComponent(location.hash)") == f"#/page/{ga}"
    driver.get(server.url("/"))


def test_kiosk_is_the_grid_alone_and_keeps_the_screen_on(server, driver):
    bid = new_id("kiosk")
    server.ok("POST", "/buttons", {"id": bid, "label": "Stage"})
    for url in ("/?kiosk", "/#kiosk"):
        driver.get(server.url(url))
        wait(driver).until(lambda d: d.execute_script("return document.body.classList.contains('ready')"))
        assert driver.execute_script("return document.body.classList.contains('kiosk')")
        assert not driver.find_element(By.ID, "edit-toggle").is_displayed(), "no edit mode in a kiosk"
        assert not driver.find_element(By.ID, "log").is_displayed(), "no log in a kiosk"
        assert not driver.find_element(By.CSS_SELECTOR, ".brand").is_displayed()
        el = key(driver, bid)
        # Wake Lock API asked for (headless Chromium may grant or refuse it; it must have been tried)
        wait(driver).until(lambda d: d.execute_script("return document.body.dataset.wakeLock") in ("held", "denied", "unsupported"))
        el.click()
        server.wait_events(lambda e: "tap" in types(e), button=bid, what="a tap in the kiosk")
    lock = driver.execute_script("return document.body.dataset.wakeLock")
    print(f"wake lock in headless Chromium: {lock}")
    driver.get(server.url("/"))


def test_manifest_and_service_worker_are_served_and_registered(server, driver):
    import json
    import re
    import urllib.request
    from conftest import REPO

    with urllib.request.urlopen(server.url("/manifest.webmanifest")) as res:
        assert res.headers["content-type"].startswith("application/manifest+json")
        manifest = json.loads(res.read())
    assert manifest["display"] == "standalone" and manifest["start_url"] and manifest["name"]
    assert manifest["theme_color"] and manifest["background_color"]
    purposes = {i.get("purpose", "any") for i in manifest["icons"]}
    assert {"any", "maskable"} <= purposes
    for icon in manifest["icons"]:
        with urllib.request.urlopen(server.url("/" + icon["src"])) as res:
            assert res.headers["content-type"].startswith("image/svg+xml")
    with urllib.request.urlopen(server.url("/sw.js")) as res:
        assert "javascript" in res.headers["content-type"]
        worker = res.read().decode()
    # the worker keeps every file of the panel (a new module must not be forgotten)
    listed = set(re.findall(r'"((?:js|css)/[\w.-]+)"', worker))
    on_disk = {f"{p.parent.name}/{p.name}" for d in ("js", "css") for p in (REPO / "public" / d).glob("*.*")}
    assert on_disk <= listed, f"missing from sw.js: {sorted(on_disk - listed)}"

    open_panel(driver, server)
    state = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        navigator.serviceWorker.ready.then((reg) => done(reg.active ? reg.active.state : 'none')).catch((e) => done('error ' + e));
    """)
    assert state in ("activated", "activating"), state
    driver.refresh()
    open_panel(driver, server)
    assert driver.execute_script("return !!navigator.serviceWorker.controller"), "the page is served through the worker"
    # the API went through the page many times by now: none of it is cached
    urls = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        (async () => {
          const out = [];
          for (const name of await caches.keys()) for (const req of await (await caches.open(name)).keys()) out.push(req.url);
          return out;
        })().then(done, (e) => done(['error ' + e]));
    """)
    assert any(u.endswith("/js/app.js") for u in urls), urls
    assert not [u for u in urls if "/api/" in u or u.endswith("/metrics")], urls


def test_press_token_session_offers_no_edit_mode(driver):
    srv = start_server("--admin-token", "adm-tok", "--press-token", "prs-tok", name="server-press")
    try:
        status, _ = srv.call("GET", "/mqtt", headers={"authorization": "Bearer prs-tok"})
        if status != 403:
            pytest.skip(f"GET /api/v1/mqtt with a press token answers {status}, not 403")
        srv.call("POST", "/buttons", {"id": "pressable", "label": "Pressable"}, headers={"authorization": "Bearer adm-tok"})
        driver.get(srv.url("/healthz"))
        driver.execute_script("localStorage.setItem('buttond.token', 'prs-tok')")
        driver.get(srv.url("/"))
        wait(driver).until(lambda d: d.find_element(By.ID, "conn").get_attribute("data-state") == "live")
        wait(driver).until(lambda d: d.execute_script("return document.body.dataset.role") == "press")
        assert not driver.find_element(By.ID, "edit-toggle").is_displayed()
        key(driver, "pressable").click()
        log_has(driver, "pressable", "tap")

        # the same page with the admin token offers it
        driver.execute_script("localStorage.setItem('buttond.token', 'adm-tok')")
        driver.refresh()
        wait(driver).until(lambda d: d.execute_script("return document.body.dataset.role") == "admin")
        assert driver.find_element(By.ID, "edit-toggle").is_displayed()
    finally:
        driver.execute_script("localStorage.clear()")
        stop_server(srv)


def test_press_that_cannot_reach_the_server_fails_at_once(driver):
    srv = start_server(name="server-offline")
    try:
        srv.ok("POST", "/buttons", {"id": "away", "label": "Away"})
        open_panel(driver, srv)
        el = key(driver, "away")
        stop_server(srv)
        srv = None
        wait(driver).until(lambda d: d.find_element(By.ID, "conn").get_attribute("data-state") in ("reconnecting", "offline"))
        started = time.monotonic()
        el.click()
        wait(driver, 3).until(lambda d: "failed" in el.get_attribute("class"))
        assert time.monotonic() - started < 2
        # textContent: .text is empty while the toast is still fading in (opacity 0).
        wait(driver, 3).until(lambda d: any("not sent" in t.get_attribute("textContent")
                                            for t in d.find_elements(By.CSS_SELECTOR, ".toast-error")))
        assert "held" not in el.get_attribute("class")
    finally:
        if srv:
            stop_server(srv)
        driver.get("about:blank")


def test_token_is_asked_on_401_and_kept(driver):
    srv = start_server("--admin-token", "panel-admin-token", name="server-auth")
    try:
        status, _ = srv.call("GET", "/buttons")
        if status != 401:
            pytest.skip(f"auth not enforced by this server yet (GET /api/v1/buttons without a token -> {status})")
        bearer = {"authorization": "Bearer panel-admin-token"}
        status, data = srv.call("POST", "/buttons", {"id": "guarded", "label": "Guarded"}, headers=bearer)
        assert status == 201, data

        driver.get(srv.url("/"))
        token_input = wait(driver).until(EC.visibility_of_element_located((By.ID, "token-input")))
        token_input.send_keys("wrong-token")
        token_input.submit()
        # refused: asked again, saying so
        wait(driver).until(EC.visibility_of_element_located((By.ID, "token-error")))
        token_input = wait(driver).until(EC.visibility_of_element_located((By.ID, "token-input")))
        token_input.send_keys("panel-admin-token")
        token_input.submit()
        wait(driver).until(lambda d: d.execute_script("return document.body.classList.contains('ready')"))
        wait(driver).until(lambda d: d.find_element(By.ID, "conn").get_attribute("data-state") == "live")
        assert driver.execute_script("return localStorage.getItem('buttond.token')") == "panel-admin-token"

        # kept: a reload does not ask again, and the stream (access_token) delivers
        driver.refresh()
        wait(driver).until(lambda d: d.find_element(By.ID, "conn").get_attribute("data-state") == "live")
        assert not driver.find_element(By.ID, "token-dialog").is_displayed()
        status, _ = srv.call("POST", "/buttons/guarded/press", {}, headers=bearer)
        assert status == 200
        log_has(driver, "guarded", "tap")
        driver.execute_script("localStorage.clear()")
    finally:
        stop_server(srv)


def test_no_csp_violations_or_script_errors(server, driver):
    open_panel(driver, server)
    logs = driver.get_log("browser")
    bad = [entry["message"] for entry in logs
           if entry["level"] == "SEVERE" and ("Content Security Policy" in entry["message"]
                                                or "Uncaught" in entry["message"]
                                                or "SyntaxError" in entry["message"])]
    assert not bad, bad
