"""A panel for a live show (SPEC §7), in headless Chromium at a phone's 390 px and a tablet's
820 px: losing the server is unmissable and everything returns when it is back; toasts never
cover an open dialog's title or fields; a field's error is not repeated as a toast; a kiosk with
a press token shows no health marks; the token dialog's QR code decodes (zbarimg) to the kiosk
link; a tablet's keys fill the screen. Screenshots of each view go to test-artifacts/live-*.png.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

import buttond_process
from conftest import ARTIFACTS, StatusSink, chrome, start_server, stop_server
from panel_helpers import key, wait

PHONE, TABLET = 390, 820
HEIGHTS = {PHONE: 844, TABLET: 1180}


def shot(driver, name):
    ARTIFACTS.mkdir(exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"live-{name}.png"))


def open_live(driver, srv, path="/"):
    driver.get(srv.url(path))
    wait(driver, 20).until(lambda d: d.execute_script("return document.body.classList.contains('ready')"))
    wait(driver, 20).until(lambda d: d.find_element(By.ID, "conn").get_attribute("data-state") == "live")


def rect(driver, element):
    return driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom];", element)


def overlap(a, b):
    """The area two [left, top, right, bottom] boxes share."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0, w) * max(0, h)


@pytest.fixture(params=[PHONE, TABLET], ids=["phone390", "tablet820"])
def device(request):
    drv = chrome(width=request.param, height=HEIGHTS[request.param])
    yield drv, request.param
    drv.quit()


@pytest.fixture
def phone():
    drv = chrome(width=PHONE, height=HEIGHTS[PHONE])
    yield drv
    drv.quit()


# ---- losing the server -------------------------------------------------------------------------

def all_keys(driver):
    return driver.find_elements(By.CSS_SELECTOR, "button.key[data-id], button.key-sheet")


def test_losing_the_server_is_unmissable_and_all_returns_on_reconnect(device):
    driver, width = device
    srv = start_server(name=f"live-lost-{width}")
    started = srv._started
    port = srv.base.rsplit(":", 1)[1]
    log = None
    try:
        srv.ok("POST", "/buttons", {"id": "go", "label": "GO", "color": "#16a34a", "maxTaps": 1})
        srv.ok("POST", "/buttons", {"id": "lamp", "label": "Stage lamp", "kind": "toggle"})
        srv.ok("POST", "/buttons", {"id": "fog", "label": "Fog machine", "status": "warming"})
        srv.ok("POST", "/sheets", {"id": "scene", "title": "Scene", "options": [{"id": "a", "label": "Act one"}]})
        open_live(driver, srv)
        assert len(all_keys(driver)) == 4
        assert all(k.get_attribute("aria-disabled") is None for k in all_keys(driver))
        assert not driver.find_element(By.ID, "conn-lost").is_displayed()
        shot(driver, f"connected-{width}")

        buttond_process.stop(started.proc)  # the server goes away; its data directory stays
        wait(driver, 30).until(lambda d: all(k.get_attribute("aria-disabled") == "true" for k in all_keys(d)))
        banner = driver.find_element(By.ID, "conn-lost")
        assert banner.is_displayed() and banner.get_attribute("role") == "alert"
        assert "since" in banner.text and "cannot be pressed" in banner.text, banner.text
        since = banner.text.split("since ", 1)[1][:8]
        assert len(since) == 8 and since.count(":") == 2, banner.text
        for k in all_keys(driver):
            described = driver.execute_script(
                "return (arguments[0].getAttribute('aria-describedby') || '').split(' ')"
                ".map((id) => (document.getElementById(id) || {}).textContent || '').join(' ')", k)
            assert "Cannot be pressed" in described, described
            assert float(k.value_of_css_property("opacity")) < 0.6, "a key looks live"
        # The title stays, on a phone too.
        title = driver.find_element(By.CSS_SELECTOR, ".brand h1")
        box = rect(driver, title)
        assert title.is_displayed() and box[2] - box[0] > 40, box
        assert driver.execute_script("return getComputedStyle(arguments[0]).position", title) != "absolute"
        # A press is refused on the key at once, and sends nothing.
        key(driver, "go").click()
        wait(driver).until(lambda d: "offline" in d.find_element(By.CSS_SELECTOR, 'button.key[data-id="go"] .key-badge').text)
        shot(driver, f"disconnected-{width}")

        log = open(ARTIFACTS / f"browser-live-lost-{width}-again.log", "w")
        proc, base = buttond_process.launch(started.data_dir, log, "--port", port, cwd=started.data_dir)
        assert base, (ARTIFACTS / f"browser-live-lost-{width}-again.log").read_text()
        started.proc = proc
        wait(driver, 40).until(lambda d: d.find_element(By.ID, "conn").get_attribute("data-state") == "live")
        wait(driver, 10).until(lambda d: all(k.get_attribute("aria-disabled") is None for k in all_keys(d)))
        assert not driver.find_element(By.ID, "conn-lost").is_displayed()
        assert srv.events("go") == [], "the press while disconnected was never sent"
        key(driver, "go").click()
        srv.wait_events(lambda evs: "tap" in [e["type"] for e in evs], button="go")
        shot(driver, f"reconnected-{width}")
    finally:
        stop_server(srv)
        if log:
            log.close()


# ---- toasts and dialogs --------------------------------------------------------------------------

TOASTS_JS = """
const done = arguments[arguments.length - 1];
import('/js/toast.js').then((m) => {
  for (const text of ['Redeliver: the delivery queue is full', 'Token: refused by the server, try again later',
                      'Deliveries: cannot reach the server. Is buttond running?'])
    m.toast(text, { kind: 'error', detail: 'HTTP 503 · unavailable' });
  done(document.querySelectorAll('.toast').length);
});
"""


def assert_toasts_clear_of(driver, dialog_sel, title_sel):
    toasts = [rect(driver, t) for t in driver.find_elements(By.CSS_SELECTOR, f"{dialog_sel} .toast")]
    assert len(toasts) == 3, "the toasts are in the open dialog"
    title = rect(driver, driver.find_element(By.CSS_SELECTOR, title_sel))
    for t in toasts:
        assert overlap(t, title) == 0, f"a toast {t} covers the dialog's title {title}"
    # Every field as far as it shows in the dialog's scrolling body.
    body = driver.find_elements(By.CSS_SELECTOR, f"{dialog_sel} .dialog-body")
    clip = rect(driver, body[0]) if body else rect(driver, driver.find_element(By.CSS_SELECTOR, dialog_sel))
    fields = driver.find_elements(By.CSS_SELECTOR, f"{dialog_sel} input:not([type=hidden]), {dialog_sel} select, {dialog_sel} textarea")
    checked = 0
    for f in fields:
        if not f.is_displayed():
            continue
        r = rect(driver, f)
        shown = [max(r[0], clip[0]), max(r[1], clip[1]), min(r[2], clip[2]), min(r[3], clip[3])]
        if shown[2] <= shown[0] or shown[3] <= shown[1]:
            continue
        checked += 1
        for t in toasts:
            assert overlap(t, shown) == 0, f"a toast {t} covers a field {shown}"
    return checked


def test_toasts_never_cover_an_open_dialogs_title_or_fields(phone):
    driver = phone
    srv = start_server(name="live-toasts")
    try:
        srv.ok("POST", "/buttons", {"id": "go", "label": "GO", "maxTaps": 1})
        open_live(driver, srv)
        driver.find_element(By.ID, "edit-toggle").click()
        wait(driver).until(EC.element_to_be_clickable((By.ID, "all-deliveries"))).click()
        wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor .delivery-filters")))
        assert driver.execute_async_script(TOASTS_JS) == 3
        time.sleep(0.4)  # their entrance
        assert assert_toasts_clear_of(driver, "#editor", "#editor-title") >= 3, "the filters were checked"
        shot(driver, "toasts-deliveries-390")

        # The button editor: a long form under three toasts.
        driver.execute_script("document.querySelectorAll('.toast').forEach((t) => t.remove())")
        driver.find_element(By.CSS_SELECTOR, "#editor [data-close]").click()
        wait(driver).until(EC.element_to_be_clickable((By.ID, "add-button"))).click()
        wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor form input[name=id]")))
        assert driver.execute_async_script(TOASTS_JS) == 3
        time.sleep(0.4)
        assert assert_toasts_clear_of(driver, "#editor", "#editor-title") >= 2
        shot(driver, "toasts-editor-390")
    finally:
        stop_server(srv)


def test_a_fields_error_shows_beside_it_not_as_a_toast_and_goes_when_fixed(phone):
    driver = phone
    srv = start_server(name="live-field-error")
    try:
        open_live(driver, srv)
        driver.find_element(By.ID, "edit-toggle").click()
        wait(driver).until(EC.element_to_be_clickable((By.ID, "add-button"))).click()
        form = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor form")))
        form.find_element(By.NAME, "id").send_keys("cue")
        long_press = form.find_element(By.CSS_SELECTOR, "[name=longPressMs]")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", long_press)
        long_press.clear()
        long_press.send_keys("10")  # the server's range is 50–60000: a 422 naming longPressMs
        driver.execute_script("arguments[0].requestSubmit()", form)
        error = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor .field-error")))
        assert "longPressMs" in error.text or "50" in error.text, error.text
        assert long_press.get_attribute("aria-invalid") == "true"
        time.sleep(0.5)
        assert driver.find_elements(By.CSS_SELECTOR, ".toast") == [], "the field's error is not repeated as a toast"
        shot(driver, "field-error-390")
        long_press.send_keys("00")  # 1000: fixed
        wait(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#editor .field-error"))
        assert long_press.get_attribute("aria-invalid") is None
    finally:
        stop_server(srv)


# ---- a kiosk for a guest -----------------------------------------------------------------------

def marks_shown(driver):
    return [m for m in driver.find_elements(By.CSS_SELECTOR, ".health-mark") if m.is_displayed()]


def test_a_kiosk_with_a_press_token_shows_no_marks_unless_marks_on(device):
    driver, width = device
    sink = StatusSink()
    srv = start_server("--admin-token", "tok-admin", "--press-token", "tok-press", name=f"live-kiosk-{width}")
    admin = {"authorization": "Bearer tok-admin"}
    try:
        assert srv.call("POST", "/buttons", {"id": "lobby", "label": "Lobby lights on the long wall", "maxTaps": 1}, headers=admin)[0] == 201
        assert srv.call("POST", "/buttons/lobby/handlers", {"on": ["tap"], "webhook": {"url": sink.url("/lobby", 500)}},
                        headers=admin)[0] == 201
        assert srv.call("POST", "/buttons/lobby/press", {}, headers=admin)[0] == 200
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            b = srv.call("GET", "/buttons/lobby", headers=admin)[1]
            if (b.get("health") or {}).get("state") == "failing":
                break
            time.sleep(0.2)
        assert (b.get("health") or {}).get("state") == "failing", b

        driver.get(srv.url("/healthz"))
        driver.execute_script("localStorage.setItem('buttond.token', 'tok-press')")
        driver.get_log("browser")  # what came before
        open_live(driver, srv, "/?kiosk")
        key(driver, "lobby")
        time.sleep(1.0)  # the session is asked; nothing may appear after it
        assert marks_shown(driver) == [], "a guest's kiosk shows no health marks"
        shot(driver, f"kiosk-press-token-{width}")
        refused = [e["message"] for e in driver.get_log("browser") if "403" in e["message"]]
        assert refused == [], f"the kiosk asked for what its token may not see: {refused}"

        open_live(driver, srv, "/?kiosk&marks=on")
        wait(driver).until(lambda d: len(marks_shown(d)) == 1)
        # The label keeps out of the mark's corner.
        dot = rect(driver, driver.find_element(By.CSS_SELECTOR, ".health-mark .health-dot"))
        label = rect(driver, driver.find_element(By.CSS_SELECTOR, 'button.key[data-id="lobby"] .key-label'))
        assert overlap(dot, label) == 0, f"the label {label} runs under the mark {dot}"
        shot(driver, f"kiosk-marks-on-{width}")

        driver.execute_script("localStorage.setItem('buttond.token', 'tok-admin')")
        open_live(driver, srv, "/?kiosk")
        wait(driver).until(lambda d: len(marks_shown(d)) == 1)  # an admin's kiosk shows them
        open_live(driver, srv, "/?kiosk&marks=off")
        time.sleep(0.5)
        assert marks_shown(driver) == []
    finally:
        stop_server(srv)
        sink.close()


# ---- the token dialog's QR code -----------------------------------------------------------------

def test_the_token_dialog_takes_groups_copies_and_its_qr_code_decodes_to_the_kiosk_link(phone):
    driver = phone
    zbarimg = shutil.which("zbarimg")
    assert zbarimg, "zbarimg (Debian zbar-tools) is needed: `make deps` installs it"
    srv = start_server("--admin-token", "tok-admin", name="live-qr")
    admin = {"authorization": "Bearer tok-admin"}
    try:
        for body in [{"id": "door", "group": "lobby"}, {"id": "go", "group": "stage"}, {"id": "fx", "group": "effects"}]:
            assert srv.call("POST", "/buttons", body, headers=admin)[0] == 201
        driver.get(srv.url("/healthz"))
        driver.execute_script("localStorage.setItem('buttond.token', 'tok-admin')")
        open_live(driver, srv)
        wait(driver).until(lambda d: d.execute_script("return document.body.dataset.role") == "admin")
        driver.find_element(By.ID, "edit-toggle").click()
        wait(driver).until(EC.element_to_be_clickable((By.ID, "tokens"))).click()
        form = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor form.editor-form")))
        form.find_element(By.NAME, "name").send_keys("front-of-house")
        for group in ["lobby", "stage"]:
            box = form.find_element(By.CSS_SELECTOR, f'input[name="group:{group}"]')
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
            box.click()
        driver.execute_script("arguments[0].requestSubmit()", form)
        link_field = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, ".kiosk-link")))
        link = link_field.get_attribute("value")
        assert link.startswith(srv.base + "/?kiosk#token=bdt_"), link
        listed = srv.call("GET", "/tokens", headers=admin)[1]["tokens"]
        assert listed[0]["name"] == "front-of-house" and sorted(listed[0]["groups"]) == ["lobby", "stage"]

        copy = driver.find_element(By.CSS_SELECTOR, ".copy-link")
        assert copy.text == "Copy link"
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", copy)
        copy.click()
        wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, ".copy-note").text != "")

        qr = wait(driver, 15).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "svg.qr-code")))
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", qr)
        time.sleep(0.3)
        shot(driver, "token-dialog-390")
        with tempfile.TemporaryDirectory() as tmp:
            png = Path(tmp) / "qr.png"
            png.write_bytes(qr.screenshot_as_png)
            shutil.copy(png, ARTIFACTS / "live-token-qr.png")
            out = subprocess.run([zbarimg, "--quiet", "--raw", str(png)], capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, f"zbarimg read no code: {out.stderr}"
        assert out.stdout.strip() == link
    finally:
        stop_server(srv)


# ---- a tablet's keys ---------------------------------------------------------------------------

def key_widths(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('section.group:not([hidden]) .key-cell[data-size=\"1x1\"] > .key')]"
        ".map((k) => k.getBoundingClientRect().width)")


def columns(driver):
    return driver.execute_script(
        "const k = document.querySelector('section.group:not([hidden]) .keys');"
        "return getComputedStyle(k).gridTemplateColumns.split(' ').length")


def test_a_tablets_keys_fill_the_screen_and_a_page_may_set_columns():
    driver = chrome(width=TABLET, height=HEIGHTS[TABLET])
    srv = start_server(name="live-tablet")
    try:
        for i in range(12):
            srv.ok("POST", "/buttons", {"id": f"cue-{i}", "label": f"Cue {i + 1}", "order": i})
        open_live(driver, srv)
        widths = key_widths(driver)
        assert len(widths) == 12
        assert min(widths) >= 120, f"keys of {min(widths):.0f} px at 820 px"
        assert columns(driver) <= 6
        used = driver.execute_script(
            "const r = document.querySelector('section.group .keys').getBoundingClientRect(); return r.width")
        assert used >= 0.9 * TABLET - 40, f"the grid uses {used} of {TABLET} px"
        shot(driver, "tablet-820")

        open_live(driver, srv, "/?kiosk")
        assert min(key_widths(driver)) >= 120
        shot(driver, "tablet-kiosk-820")

        open_live(driver, srv, "/?columns=3")
        wait(driver).until(lambda d: columns(d) == 3)
        assert min(key_widths(driver)) >= 200
        open_live(driver, srv, "/?columns=main:4,stage:2")
        wait(driver).until(lambda d: columns(d) == 4)
        shot(driver, "tablet-columns-820")
    finally:
        stop_server(srv)
        driver.quit()


# ---- the deliveries view on a phone -------------------------------------------------------------

def test_the_deliveries_view_filters_and_reads_on_a_phone(phone):
    driver = phone
    sink = StatusSink()
    srv = start_server(name="live-deliveries")
    try:
        srv.ok("POST", "/buttons", {"id": "go", "label": "GO", "maxTaps": 1})
        srv.ok("POST", "/buttons", {"id": "house", "label": "House lights", "maxTaps": 1})
        srv.ok("POST", "/buttons/go/handlers", {"on": ["tap"], "webhook": {"url": sink.url("/cue/go/with/a/long/path", 204)}})
        srv.ok("POST", "/buttons/house/handlers", {"on": ["tap"], "webhook": {"url": sink.url("/house", 500), "maxAttempts": 1}})
        srv.ok("POST", "/buttons/go/press", {})
        srv.ok("POST", "/buttons/house/press", {})
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            rows = srv.ok("GET", "/deliveries")["deliveries"]
            if len(rows) == 2 and all(r["status"] in ("ok", "failed") for r in rows):
                break
            time.sleep(0.2)
        open_live(driver, srv)
        driver.find_element(By.ID, "edit-toggle").click()
        wait(driver).until(EC.element_to_be_clickable((By.ID, "all-deliveries"))).click()
        wait(driver).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#editor li.delivery")) == 2)
        for name in ["kind", "handler", "source", "status"]:
            assert driver.find_element(By.CSS_SELECTOR, f"#editor .delivery-filters select[name={name}]").is_displayed()
        driver.find_element(By.CSS_SELECTOR, "#editor select[name=status] option[value=failed]").click()
        wait(driver).until(lambda d: [li.get_attribute("data-status") for li in d.find_elements(By.CSS_SELECTOR, "#editor li.delivery")] == ["failed"])
        driver.find_element(By.CSS_SELECTOR, "#editor select[name=status] option[value='']").click()
        driver.find_element(By.CSS_SELECTOR, "#editor select[name=source] option[value='button:go']").click()
        wait(driver).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#editor li.delivery")) == 1
                           and "GO" in d.find_element(By.CSS_SELECTOR, "#editor li.delivery").text)
        overflow = driver.execute_script("return document.documentElement.scrollWidth")
        assert overflow <= PHONE, f"the page is {overflow} px wide on a {PHONE} px phone"
        line = driver.find_element(By.CSS_SELECTOR, "#editor .delivery-line")
        assert line.text.endswith("/cue/go/with/a/long/path"), line.text
        clipped = driver.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth + 1", line)
        assert not clipped, "the whole line reads on a phone, not cut"
        shot(driver, "deliveries-390")
    finally:
        stop_server(srv)
        sink.close()
