"""Issue 39, the panel (SPEC §7 "A panel for a live show", guard lines): an armed key shows it
on every open panel (a pulse, the seconds left, "armed" in its description), a disabled key
looks disabled, is aria-disabled and sends nothing, a refusal flashes its reason on the key,
and the editor sets the guards."""

from __future__ import annotations

import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import chrome
from panel_helpers import description, edit_button, key, new_id, open_panel, types, wait


def click(driver, el):
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].click()", el)


def press(driver, el, hold_s=0.05):
    """A real pointer press on the key: down, a hold, up (Pointer Events, as a finger)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    ActionChains(driver).move_to_element(el).click_and_hold().pause(hold_s).release().perform()


def test_an_armed_key_shows_on_a_second_panel_and_closes_by_itself(server, driver):
    bid = new_id("blackout")
    server.ok("POST", "/buttons", {"id": bid, "label": "Blackout", "confirmMs": 3000})
    open_panel(driver, server)
    second = chrome()
    try:
        open_panel(second, server)
        # Armed from the first panel, by a real press.
        press(driver, key(driver, bid))
        server.wait_events(lambda evs: "armed" in types(evs), button=bid, what="armed")
        # The second panel, which did nothing, shows it: the pulse, the seconds left, the words.
        other = key(second, bid)
        wait(second).until(lambda d: "armed" in other.get_attribute("class").split())
        counter = other.find_element(By.CSS_SELECTOR, ".key-armed")
        wait(second).until(lambda d: counter.is_displayed() and counter.text.endswith(" s"))
        left = int(counter.text.split()[0])
        assert 1 <= left <= 3, counter.text
        assert "armed" in description(second, other).lower(), description(second, other)
        animation = second.execute_script("return getComputedStyle(arguments[0]).animationName", other)
        assert animation == "armed", animation
        # The seconds count down on their own.
        wait(second, 4).until(lambda d: counter.text and int(counter.text.split()[0]) < left)
        # The window closes by itself (the server's `disarmed` `timeout`) on every panel.
        server.wait_events(lambda evs: "disarmed" in types(evs), button=bid, timeout=6, what="disarmed")
        assert server.events(bid)[-1]["data"] == {"reason": "timeout"}
        for d in (driver, second):
            k = key(d, bid)
            wait(d).until(lambda _: "armed" not in k.get_attribute("class").split())
            assert not k.find_element(By.CSS_SELECTOR, ".key-armed").is_displayed()
            assert "armed" not in description(d, k).lower()
    finally:
        second.quit()


def test_a_disabled_key_looks_disabled_and_sends_nothing(server, driver):
    bid = new_id("go")
    server.ok("POST", "/buttons", {"id": bid, "label": "GO", "lockoutMs": 2000})
    open_panel(driver, server)
    k = key(driver, bid)
    assert k.get_attribute("aria-disabled") is None
    # Disabled elsewhere (a PATCH): the open panel follows without a reload.
    server.ok("PATCH", f"/buttons/{bid}", {"enabled": False})
    wait(driver).until(lambda d: k.get_attribute("aria-disabled") == "true")
    assert "disabled" in k.get_attribute("class").split()
    assert "disabled" in description(driver, k).lower()
    opacity = float(driver.execute_script("return getComputedStyle(arguments[0]).opacity", k))
    assert opacity < 0.8, opacity
    before = len(server.events())
    press(driver, k)
    k.send_keys(" ")  # Space on a focused key presses it too, when it is enabled
    time.sleep(0.5)
    assert len(server.events()) == before, "a disabled key sent input"
    badge = k.find_element(By.CSS_SELECTOR, ".key-badge")
    assert badge.get_attribute("textContent") == "disabled"
    # Enabled again, it presses; then a second GO within the lockout flashes "locked".
    server.ok("PATCH", f"/buttons/{bid}", {"enabled": True})
    wait(driver).until(lambda d: k.get_attribute("aria-disabled") is None)
    press(driver, k)
    server.wait_events(lambda evs: "tap" in types(evs), button=bid, what="the tap")
    press(driver, k)
    server.wait_events(lambda evs: "refused" in types(evs), button=bid, what="the refusal")
    assert server.events(bid)[-1]["data"]["reason"] == "locked-out"
    wait(driver).until(lambda d: badge.get_attribute("textContent") == "locked")


def test_a_brush_flashes_too_short(server, driver):
    bid = new_id("brush")
    server.ok("POST", "/buttons", {"id": bid, "label": "Brush", "minPressMs": 2000, "maxTaps": 1})
    open_panel(driver, server)
    k = key(driver, bid)
    press(driver, k, hold_s=0.05)
    server.wait_events(lambda evs: "refused" in types(evs), button=bid, what="the refusal")
    assert server.events(bid)[-1]["data"]["reason"] == "too-short"
    badge = k.find_element(By.CSS_SELECTOR, ".key-badge")
    wait(driver).until(lambda d: badge.get_attribute("textContent") == "too short")


def test_the_editor_sets_the_guards(server, driver):
    bid = new_id("cue")
    server.ok("POST", "/buttons", {"id": bid, "label": "Cue"})
    open_panel(driver, server)
    edit_button(driver, bid)
    form = wait(driver).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#editor form [name=confirmMs]"))) \
        .find_element(By.XPATH, "ancestor::form")
    confirm = form.find_element(By.NAME, "confirmMs")
    confirm.clear()
    confirm.send_keys("4000")
    # A confirm window fires on single taps: the form holds Max taps at 1.
    assert form.find_element(By.NAME, "maxTaps").get_attribute("value") == "1"
    minimum = form.find_element(By.NAME, "minPressMs")
    minimum.clear()
    minimum.send_keys("40")
    enabled = form.find_element(By.NAME, "enabled")
    assert enabled.is_selected()
    click(driver, enabled)
    click(driver, form.find_element(By.CSS_SELECTOR, "[type=submit]"))

    def saved(_):
        b = server.ok("GET", f"/buttons/{bid}")
        return b if b["confirmMs"] == 4000 else None
    b = wait(driver).until(saved)
    assert b["minPressMs"] == 40 and b["maxTaps"] == 1 and b["enabled"] is False and b["lockoutMs"] == 0
    # Out of range: the server's 422 is shown beside its field.
    form = wait(driver).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#editor form [name=lockoutMs]"))) \
        .find_element(By.XPATH, "ancestor::form")
    lockout = form.find_element(By.NAME, "lockoutMs")
    lockout.clear()
    lockout.send_keys("20")
    click(driver, form.find_element(By.CSS_SELECTOR, "[type=submit]"))
    error = wait(driver).until(EC.visibility_of_element_located(
        (By.XPATH, "//dialog[@id='editor']//input[@name='lockoutMs']/ancestor::div[contains(@class, 'field')][1]"
                   "//*[contains(@class, 'field-error')]")))
    assert "lockoutMs" in error.text
    assert form.find_element(By.NAME, "lockoutMs").get_attribute("aria-invalid") == "true"
