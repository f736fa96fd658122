"""The panel shows state from outside on its keys: looks, status, handler health, the delivery log."""

from __future__ import annotations

import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import registry_events_supported
from panel_helpers import new_id, wait, open_panel, key, log_has, description


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
