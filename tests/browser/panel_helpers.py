"""What the panel tests share: ids, waits, finding keys and log rows."""

from __future__ import annotations

import itertools
import time

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait


_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    return f"{prefix}-{next(_ids)}-{int(time.time() * 1000) % 100000}"


def wait(driver, timeout=10):
    return WebDriverWait(driver, timeout, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,))


def open_panel(driver, server):
    driver.get(server.url("/"))
    wait(driver).until(lambda d: d.execute_script("return document.body.classList.contains('ready')"))
    wait(driver).until(lambda d: d.find_element(By.ID, "conn").get_attribute("data-state") == "live")


def edit_button(driver, bid):
    """Edit mode on, then the button's editor open on its handlers."""
    if driver.find_element(By.ID, "edit-toggle").get_attribute("aria-pressed") != "true":
        driver.find_element(By.ID, "edit-toggle").click()
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].click()", key(driver, bid))
    return wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor .handlers")))


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
