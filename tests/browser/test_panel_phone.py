"""The control panel on a phone (Chrome's mobile emulation at 360, 390 and 430 px), and the
screenshots (phone and desktop, light and dark) kept in test-artifacts/ for a person to look at.

A mobile viewport widens to fit content that overflows it, so "nothing overflows sideways" is
checked as document.documentElement.scrollWidth against the device width, never innerWidth.
"""

from __future__ import annotations

import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import ARTIFACTS, chrome, start_server, stop_server
from panel_helpers import key, wait

WIDTHS = (360, 390, 430)

# A panel as a user would have it: pages, colours, icons, sizes, status lines, a sheet.
LOOKS = [
    {"id": "door", "label": "Front door", "icon": "door", "color": "#d00000", "size": "2x1", "status": "ON AIR", "order": 1},
    {"id": "lamp", "label": "Desk lamp", "kind": "toggle", "icon": "light", "order": 2,
     "faces": [{"label": "Off"}, {"label": "On", "color": "#f59e0b"}],
     "flip": {"transition": "flip-from-left", "curve": "ease-in-out", "durationMs": 300}},
    {"id": "bell", "label": "Doorbell", "icon": "bell", "order": 3},
    {"id": "garage", "label": "Garage", "icon": "garage", "color": "#475569", "status": "closed", "order": 4,
     "longPressMs": 1000, "repeatMs": 200},
    {"id": "heat", "label": "Heating", "icon": "thermometer", "color": "#f97316", "size": "2x2", "status": "21.5 °C", "order": 5},
    {"id": "alarm", "label": "Alarm", "icon": "alarm", "order": 6, "maxTaps": 3},
    {"id": "fan", "label": "Fan", "kind": "toggle", "icon": "fan", "order": 7,
     "faces": [{"label": "Slow", "color": "#0ea5e9"}, {"label": "Fast", "color": "#7c3aed"}],
     "flip": {"transition": "curl-up", "curve": "ease-out", "durationMs": 400}},
    {"id": "a-very-long-name-that-does-not-fit-anywhere", "label": "A label long enough to wrap twice and then some",
     "status": "a status of 32 characters, full", "order": 8},
    {"id": "play", "label": "Play", "icon": "play", "color": "#16a34a", "group": "Stage", "order": 1},
    {"id": "stop", "label": "Stop", "icon": "stop", "color": "#d00000", "group": "Stage", "order": 2},
    {"id": "mic", "label": "Mic", "icon": "mic", "kind": "toggle", "group": "Stage", "order": 3,
     "faces": [{"label": "Muted"}, {"label": "Live", "color": "#d00000"}]},
    {"id": "record", "label": "Record", "icon": "record", "group": "Stage", "order": 4, "status": "00:12:31"},
    {"id": "movie", "label": "Movie night", "icon": "scene", "group": "Living room with a long name", "order": 1},
    {"id": "blinds", "label": "Blinds", "icon": "blind", "kind": "toggle", "group": "Living room with a long name", "order": 2,
     "faces": [{"label": "Open"}, {"label": "Closed", "color": "#6366f1"}]},
]
SHEET = {"id": "scenes", "title": "Pick a scene", "options": [
    {"id": "movie", "label": "Movie"}, {"id": "dinner", "label": "Dinner"},
    {"id": "off", "label": "Everything off", "destructive": True}]}


def seed(srv, status_sink=None):
    for b in LOOKS:
        status, data = srv.call("POST", "/buttons", b)
        if status == 422 and data and data["error"].get("field") in ("icon", "color", "size", "status"):
            b = {k: v for k, v in b.items() if k not in ("icon", "color", "size", "status")}
            status, data = srv.call("POST", "/buttons", b)
        assert status in (201, 409), data
    srv.call("POST", "/sheets", SHEET)
    srv.ok("POST", "/buttons/lamp/press", {})
    if status_sink:
        srv.call("POST", "/buttons/bell/handlers", {"on": ["tap"], "webhook": {"url": status_sink.url("/bell", 500)}})
        srv.call("POST", "/buttons/garage/handlers", {"on": ["tap"], "webhook": {"url": status_sink.url("/garage", 410)}})
        srv.ok("POST", "/buttons/bell/press", {})
        srv.ok("POST", "/buttons/garage/press", {})


def open_live(d, srv, path="/"):
    d.get(srv.url(path))
    wait(d).until(lambda x: x.execute_script("return document.body.classList.contains('ready')"))
    wait(d).until(lambda x: x.find_element(By.ID, "conn").get_attribute("data-state") == "live")


def widest(d):
    """scrollWidth, and what sticks out furthest (for the failure message)."""
    return d.execute_script("""
        const W = document.documentElement.clientWidth;
        const out = [];
        for (const n of document.querySelectorAll('body *')) {
          const r = n.getBoundingClientRect();
          if (r.width && r.right > W + 0.5) out.push([Math.round(r.right), n.tagName.toLowerCase() + (n.id ? '#' + n.id : '') + (n.className && n.className.baseVal === undefined ? '.' + String(n.className).trim().replace(/\\s+/g, '.') : '')]);
        }
        out.sort((a, b) => b[0] - a[0]);
        return [document.documentElement.scrollWidth, out.slice(0, 5)];
    """)


def assert_fits(d, width, state):
    scroll, offenders = widest(d)
    assert scroll <= width, f"{state}: the page is {scroll} px wide on a {width} px phone; sticking out: {offenders}"


def set_conn(d, state, text):
    d.execute_script("const c = document.getElementById('conn'); c.dataset.state = arguments[0];"
                     "c.querySelector('.conn-text').textContent = arguments[1];", state, text)


@pytest.fixture(scope="module", params=WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def phone(request):
    drv = chrome(width=request.param, height=800)
    drv.width = request.param
    yield drv
    drv.quit()


def test_nothing_overflows_sideways_in_any_state(phone):
    d, width = phone, phone.width
    srv = start_server(name=f"server-phone-{width}")
    try:
        seed(srv)
        open_live(d, srv)
        assert d.execute_script("return window.innerWidth") == width
        assert_fits(d, width, "live")
        for state, text in (("connecting", "Connecting…"), ("reconnecting", "Reconnecting…"), ("offline", "Offline")):
            set_conn(d, state, text)
            assert_fits(d, width, state)
        set_conn(d, "live", "Live")

        d.find_element(By.ID, "log-toggle").click()
        wait(d).until(lambda x: x.find_element(By.ID, "log-list").is_displayed())
        assert_fits(d, width, "log open")
        d.find_element(By.ID, "log-toggle").click()

        d.find_element(By.ID, "edit-toggle").click()
        wait(d).until(EC.visibility_of_element_located((By.ID, "editbar")))
        assert_fits(d, width, "editing")
        key(d, "heat").click()
        wait(d).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor .look")))
        assert_fits(d, width, "editor open")
        d.find_element(By.CSS_SELECTOR, "#editor [data-close]").click()
        d.find_element(By.ID, "add-sheet").click()
        wait(d).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor .option-rows")))
        assert_fits(d, width, "sheet editor open")
        d.find_element(By.CSS_SELECTOR, "#editor [data-close]").click()
        d.find_element(By.ID, "edit-toggle").click()

        srv.ok("POST", "/sheets/scenes/open")
        wait(d).until(EC.element_to_be_clickable((By.CSS_SELECTOR, '.sheet-banner[data-sheet="scenes"] [data-join]'))).click()
        sheet = wait(d).until(EC.visibility_of_element_located((By.CSS_SELECTOR, 'dialog.bottom-sheet[data-sheet="scenes"]')))
        wait(d).until(lambda x: x.execute_script("return getComputedStyle(arguments[0]).transform === 'none'", sheet))
        assert_fits(d, width, "sheet open")
        srv.ok("POST", "/sheets/scenes/cancel")
        wait(d).until(EC.invisibility_of_element_located((By.CSS_SELECTOR, 'dialog.bottom-sheet[data-sheet="scenes"]')))

        # the server goes away: the panel says so, and still fits
        stop_server(srv)
        srv = None
        wait(d).until(lambda x: x.find_element(By.ID, "conn").get_attribute("data-state") in ("reconnecting", "offline"))
        assert_fits(d, width, d.find_element(By.ID, "conn").get_attribute("data-state"))
    finally:
        if srv:
            stop_server(srv)
        d.get("about:blank")


def test_refused_value_shows_next_to_its_field_in_view(phone):
    d, width = phone, phone.width
    srv = start_server(name=f"server-form-{width}")
    try:
        seed(srv)
        open_live(d, srv)
        d.find_element(By.ID, "edit-toggle").click()
        key(d, "alarm").click()
        field = wait(d).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#editor [name=longPressMs]")))
        d.execute_script("arguments[0].value = '5'", field)
        d.find_element(By.CSS_SELECTOR, "#editor button[type=submit]").click()
        err = wait(d).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor .field-error")))
        assert "longPressMs" in err.text
        # next to its field: in the same field, right under the input
        assert d.execute_script("return arguments[0].closest('.field') === arguments[1].closest('.field')", err, field)
        box = d.execute_script("const r = arguments[0].getBoundingClientRect();"
                               "return [r.top, r.bottom, r.left, r.right, innerHeight, document.documentElement.clientWidth]", err)
        top, bottom, left, right, vh, vw = box
        assert 0 <= top and bottom <= vh and 0 <= left and right <= vw, f"error box {box} is not inside the {vw}×{vh} viewport"
        assert field.get_attribute("aria-invalid") == "true"
        assert err.get_attribute("id") in field.get_attribute("aria-describedby")
        # said once, beside its field: not repeated as a toast (SPEC §7 "A panel for a live show")
        time.sleep(0.4)
        assert d.find_elements(By.CSS_SELECTOR, ".toast-error") == []
        assert_fits(d, width, "form error")
    finally:
        stop_server(srv)
        d.get("about:blank")


CONTROLS = ("button, a[href], input:not([type=checkbox]):not([type=radio]):not([type=hidden]), select, textarea, "
            "label.check, label.swatch, .segmented label, .icon-choice")


def small_controls(d):
    return d.execute_script("""
        const small = [];
        for (const n of document.querySelectorAll(arguments[0])) {
          const r = n.getBoundingClientRect();
          if (!r.width || !r.height || r.bottom <= 0 || n.closest('[hidden], .key, .visually-hidden')) continue;
          if (getComputedStyle(n).visibility === 'hidden') continue;
          if (r.height < 44 || r.width < 44) small.push(`${n.tagName.toLowerCase()}${n.id ? '#' + n.id : ''}.${n.className} “${(n.textContent || n.name || '').trim().slice(0, 20)}” ${Math.round(r.width)}×${Math.round(r.height)}`);
        }
        return small;
    """, CONTROLS)


def test_controls_are_at_least_44px(phone):
    d = phone
    srv = start_server(name=f"server-touch-{phone.width}")
    try:
        seed(srv)
        for _ in range(20):  # a long log: the open drawer keeps its head (and its close) in view
            srv.ok("POST", "/buttons/lamp/press", {})
        open_live(d, srv)
        d.find_element(By.ID, "log-toggle").click()
        assert not small_controls(d), small_controls(d)
        top = d.execute_script("return document.getElementById('log-toggle').getBoundingClientRect().top")
        assert 0 <= top < d.execute_script("return innerHeight"), top
        # Measured once the toast has come in and been laid out (its entrance is animated: one CI
        # run measured its close at 44 px rounded, under 44, mid-way).
        d.execute_async_script(
            "const done = arguments[0]; import('/js/toast.js').then(async (t) => {"
            " t.toast('a toast', { timeout: 0 });"
            " await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {})));"
            " requestAnimationFrame(() => requestAnimationFrame(() => done())); })")
        assert not small_controls(d), small_controls(d)
        d.find_element(By.CSS_SELECTOR, ".toast-close").click()
        d.find_element(By.ID, "log-toggle").click()
        d.find_element(By.ID, "edit-toggle").click()
        assert not small_controls(d), small_controls(d)
        key(d, "lamp").click()
        wait(d).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor .look")))
        wait(d).until(lambda x: len(x.find_elements(By.CSS_SELECTOR, "#editor .icon-choice")) > 10)
        assert not small_controls(d), small_controls(d)
    finally:
        stop_server(srv)
        d.get("about:blank")


def swipe(d, x0, x1, y):
    d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y}]})
    for i in range(1, 9):
        d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x0 + (x1 - x0) * i / 8, "y": y}]})
    d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


@pytest.mark.parametrize("phone", [390], indirect=True, ids=["390px"])
def test_swipe_goes_to_the_next_page(phone):
    d = phone
    srv = start_server(name="server-swipe")
    try:
        seed(srv)
        open_live(d, srv, "/#/page/Stage")
        assert key(d, "play").is_displayed()
        # a stroke across the empty part of the page (on a key it would press the key)
        y = d.execute_script("const r = document.getElementById('groups').getBoundingClientRect(); return Math.min(innerHeight - 120, r.bottom + 40)")
        assert d.execute_script("const n = document.elementFromPoint(200, arguments[0]); return !!n.closest('#grid') && !n.closest('.key')", y)
        page = lambda: d.execute_script("return decodeURIComponent(location.hash)")  # noqa: E731
        swipe(d, 60, 320, y)  # to the right: the page before (Main, the living room, Stage)
        wait(d).until(lambda x: page() == "#/page/Living room with a long name")
        assert key(d, "blinds").is_displayed() and not d.find_element(By.CSS_SELECTOR, 'button.key[data-id="play"]').is_displayed()
        swipe(d, 320, 60, y)  # to the left: the next one
        wait(d).until(lambda x: page() == "#/page/Stage")
        swipe(d, 200, 190, y)  # too short to be a swipe
        time.sleep(0.3)
        assert page() == "#/page/Stage"
    finally:
        stop_server(srv)
        d.get("about:blank")


# ---- screenshots ---------------------------------------------------------------------------------


def settle(d, seconds=0.5):
    time.sleep(seconds)  # entry animations, before the picture (not a wait for state)


def test_screenshots(status_sink):
    ARTIFACTS.mkdir(exist_ok=True)
    srv = start_server(name="server-shots")
    drivers = []
    try:
        seed(srv, status_sink)
        wait_health = lambda d: d.execute_script(  # noqa: E731
            "return document.querySelector('.key-cell[data-id=\"garage\"]').dataset.health") == "disabled"

        def shoot(d, name):
            path = ARTIFACTS / f"panel-{name}.png"
            d.save_screenshot(str(path))
            assert path.stat().st_size > 10_000

        for scheme in ("light", "dark"):
            phone = chrome(width=390, height=844)
            drivers.append(phone)
            phone.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
            open_live(phone, srv)
            wait(phone, 15).until(wait_health)
            settle(phone)
            shoot(phone, f"390-{scheme}")
            phone.find_element(By.ID, "log-toggle").click()
            settle(phone, 0.3)
            shoot(phone, f"390-{scheme}-log")
            phone.find_element(By.ID, "log-toggle").click()
            srv.ok("POST", "/sheets/scenes/open")
            wait(phone).until(EC.element_to_be_clickable((By.CSS_SELECTOR, '.sheet-banner[data-sheet="scenes"] [data-join]'))).click()
            wait(phone).until(EC.visibility_of_element_located((By.CSS_SELECTOR, 'dialog.bottom-sheet[data-sheet="scenes"]')))
            settle(phone)
            shoot(phone, f"390-{scheme}-sheet")
            srv.ok("POST", "/sheets/scenes/cancel")
            wait(phone).until(EC.invisibility_of_element_located((By.CSS_SELECTOR, 'dialog.bottom-sheet[data-sheet="scenes"]')))
            phone.find_element(By.ID, "edit-toggle").click()
            settle(phone, 0.3)
            shoot(phone, f"390-{scheme}-editing")
            key(phone, "door").click()
            wait(phone).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor .look")))
            phone.execute_script("document.querySelector('#editor .look').scrollIntoView()")
            settle(phone)
            shoot(phone, f"390-{scheme}-editor")
            phone.find_element(By.CSS_SELECTOR, "#editor [data-close]").click()
            phone.find_element(By.ID, "edit-toggle").click()
            phone.find_element(By.CSS_SELECTOR, '.key-cell[data-id="garage"] .health-mark').click()
            wait(phone).until(EC.visibility_of_element_located((By.ID, "health-dialog")))
            settle(phone, 0.3)
            shoot(phone, f"390-{scheme}-health")

            desk = chrome()
            drivers.append(desk)
            desk.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
            desk.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
            open_live(desk, srv)
            wait(desk, 15).until(wait_health)
            srv.ok("POST", "/buttons/alarm/press", {})
            settle(desk)
            shoot(desk, f"1280-{scheme}")
            desk.find_element(By.ID, "edit-toggle").click()
            key(desk, "fan").click()
            wait(desk).until(EC.visibility_of_element_located((By.ID, "editor")))
            settle(desk)
            shoot(desk, f"1280-{scheme}-editor")
            desk.find_element(By.CSS_SELECTOR, "#editor [data-close]").click()
            desk.find_element(By.ID, "all-deliveries").click()
            wait(desk).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor .delivery")))
            settle(desk)
            shoot(desk, f"1280-{scheme}-deliveries")
            desk.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1024, "height": 768, "deviceScaleFactor": 1, "mobile": False})
            open_live(desk, srv, "/?kiosk#kiosk/page/Stage")
            settle(desk)
            shoot(desk, f"kiosk-1024-{scheme}")
            for d in (phone, desk):
                d.quit()
            drivers.clear()
    finally:
        for d in drivers:
            d.quit()
        stop_server(srv)
