"""The panel as an app: pages, kiosk, the manifest and service worker, tokens, a server that
goes away, no CSP violations."""

from __future__ import annotations

import signal
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from conftest import start_server, stop_server
from panel_helpers import new_id, wait, open_panel, key, log_has, types


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
    listed = set(re.findall(r'"((?:js|css|icons/ui)/[\w.-]+)"', worker))
    public = REPO / "public"
    on_disk = {str(p.relative_to(public)) for d in ("js", "css", "icons/ui") for p in (public / d).glob("*.*")}
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
        # its way to another token: sign out, and the panel asks for one
        driver.find_element(By.ID, "sign-out").click()
        wait(driver).until(EC.visibility_of_element_located((By.ID, "token-dialog")))
        assert driver.execute_script("return localStorage.getItem('buttond.token')") is None

        # the same page with the admin token offers it
        driver.execute_script("localStorage.setItem('buttond.token', 'adm-tok')")
        driver.refresh()
        wait(driver).until(lambda d: d.execute_script("return document.body.dataset.role") == "admin")
        assert driver.find_element(By.ID, "edit-toggle").is_displayed()
    finally:
        driver.execute_script("localStorage.clear()")
        stop_server(srv)


def press_fails(driver, el, within: float, toast: str):
    """Clicks a key and checks it shows as failed within `within` seconds, with `toast` said."""
    started = time.monotonic()
    el.click()
    wait(driver, within + 2).until(lambda d: "failed" in el.get_attribute("class"))
    assert time.monotonic() - started < within
    # textContent: .text is empty while the toast is still fading in (opacity 0).
    wait(driver, 3).until(lambda d: any(toast in t.get_attribute("textContent")
                                        for t in d.find_elements(By.CSS_SELECTOR, ".toast-error")))


def test_press_that_cannot_reach_the_server_fails_at_once(driver):
    srv = start_server(name="server-offline")
    try:
        srv.ok("POST", "/buttons", {"id": "away", "label": "Away"})
        open_panel(driver, srv)
        el = key(driver, "away")
        stop_server(srv)
        srv = None
        wait(driver).until(lambda d: d.find_element(By.ID, "conn").get_attribute("data-state") in ("reconnecting", "offline"))
        # The page already says the server is gone (connection.js): the key refuses at once.
        started = time.monotonic()
        el.click()
        wait(driver, 4).until(lambda d: "failed" in el.get_attribute("class"))
        assert time.monotonic() - started < 2
        assert "offline" in driver.find_element(By.CSS_SELECTOR, 'button.key[data-id="away"] .key-badge').get_attribute("textContent")
        assert driver.find_element(By.ID, "conn-lost").is_displayed()
        assert "held" not in el.get_attribute("class")
    finally:
        if srv:
            stop_server(srv)
        driver.get("about:blank")


def test_press_to_a_server_that_stopped_answering_fails_and_the_link_shows_it(driver):
    """A stalled server (SIGSTOP: the connection stays open, nothing answers) must not hold a
    press to be carried out whenever it wakes: the key fails within the input timeout."""
    srv = start_server(name="server-stalled")
    try:
        srv.ok("POST", "/buttons", {"id": "stall", "label": "Stall"})
        open_panel(driver, srv)
        el = key(driver, "stall")
        srv.proc.send_signal(signal.SIGSTOP)
        press_fails(driver, el, within=6, toast="no answer")
        # the stream is silent too: within the silence check it no longer says Live
        wait(driver, 40).until(lambda d: d.find_element(By.ID, "conn").get_attribute("data-state") != "live")
        srv.proc.send_signal(signal.SIGCONT)
        wait(driver, 30).until(lambda d: d.find_element(By.ID, "conn").get_attribute("data-state") == "live")
        # The down had reached the stalled server, which applies it when it wakes: the panel
        # cancels it, so the key is not left held (and no tap comes of the given-up press).
        held = lambda: srv.call("GET", "/buttons/stall")[1]["state"]["held"]  # noqa: E731
        wait(driver, 15).until(lambda d: not held())
        time.sleep(1)
        assert not held()
        types_seen = [e["type"] for e in srv.events() if e.get("button") == "stall"]
        assert "tap" not in types_seen, types_seen
    finally:
        srv.proc.send_signal(signal.SIGCONT)
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
