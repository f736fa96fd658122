"""Named, scoped tokens in the panel (SPEC §6, §7): the editor makes a token for a group and
shows its kiosk link; the link opens the lobby's keys alone, with the token gone from the
address bar; revoking is one click."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import start_server, stop_server
from panel_helpers import key, wait

ADMIN = {"authorization": "Bearer tok-admin"}


def keys_shown(driver):
    return sorted(k.get_attribute("data-id") for k in driver.find_elements(By.CSS_SELECTOR, "button.key[data-id]"))


def test_the_editor_makes_a_kiosk_link_that_shows_only_its_group(driver):
    srv = start_server("--admin-token", "tok-admin", name="server-tokens")
    try:
        for body in [{"id": "lobby-door", "label": "Door", "group": "lobby"},
                     {"id": "lobby-lights", "label": "Lights", "group": "lobby"},
                     {"id": "stage-go", "label": "GO", "group": "stage"}]:
            assert srv.call("POST", "/buttons", body, headers=ADMIN)[0] == 201
        driver.get(srv.url("/healthz"))
        driver.execute_script("localStorage.setItem('buttond.token', 'tok-admin')")
        driver.get(srv.url("/"))
        wait(driver).until(lambda d: d.execute_script("return document.body.dataset.role") == "admin")
        driver.find_element(By.ID, "edit-toggle").click()
        wait(driver).until(EC.element_to_be_clickable((By.ID, "tokens"))).click()
        form = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor form.editor-form")))
        form.find_element(By.NAME, "name").send_keys("lobby-kiosk")
        form.find_element(By.CSS_SELECTOR, "input[name=\"group:lobby\"]").click()
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        link = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, ".kiosk-link"))).get_attribute("value")
        assert "/?kiosk#token=bdt_" in link
        wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, 'li.token[data-token="lobby-kiosk"]'))
        listed = srv.call("GET", "/tokens", headers=ADMIN)[1]["tokens"]
        assert [t["name"] for t in listed] == ["lobby-kiosk"] and listed[0]["groups"] == ["lobby"]

        # A tablet opens the link: the lobby's keys alone, and no token in the address bar.
        driver.execute_script("localStorage.clear()")
        driver.get(link)
        wait(driver).until(lambda d: keys_shown(d) == ["lobby-door", "lobby-lights"])
        assert "token" not in driver.current_url
        assert driver.current_url.endswith("/?kiosk")
        assert driver.execute_script("return localStorage.getItem('buttond.token')").startswith("bdt_")
        key(driver, "lobby-door").click()

        def tapped_by_kiosk(_):
            page = srv.call("GET", "/events?after=0&button=lobby-door", headers=ADMIN)[1]
            return any(e["type"] == "tap" and e.get("by") == "lobby-kiosk" for e in page["events"])
        wait(driver).until(tapped_by_kiosk)

        # Revoking is one click in the editor (and a confirmation).
        driver.execute_script("localStorage.setItem('buttond.token', 'tok-admin')")
        driver.get(srv.url("/"))
        wait(driver).until(lambda d: d.execute_script("return document.body.dataset.role") == "admin")
        driver.find_element(By.ID, "edit-toggle").click()
        wait(driver).until(EC.element_to_be_clickable((By.ID, "tokens"))).click()
        revoke = wait(driver).until(EC.element_to_be_clickable(
            (By.CSS_SELECTOR, 'li.token[data-token="lobby-kiosk"] button')))
        revoke.click()
        wait(driver).until(EC.element_to_be_clickable((By.ID, "confirm-yes"))).click()
        wait(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, 'li.token[data-token="lobby-kiosk"]'))
        assert srv.call("GET", "/tokens", headers=ADMIN)[1]["tokens"] == []
    finally:
        driver.execute_script("localStorage.clear()")
        stop_server(srv)
