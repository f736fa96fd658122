"""Issue 26, the editor (SPEC §10): an OSC handler made, shown and changed in the handler form,
its typed arguments reaching the server exactly as typed, and the server's refusals shown next
to the field they name (the address, an argument's value)."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from conftest import ARTIFACTS
from panel_helpers import edit_button as edit, new_id, open_panel, wait


def handler_form(driver):
    field = wait(driver).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#editor form [name=oscUrl]")))
    return field.find_element(By.XPATH, "ancestor::form")


def click(driver, el):
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].click()", el)


def type_into(el, text):
    el.clear()
    el.send_keys(text)


def rows(form):
    return form.find_elements(By.CSS_SELECTOR, "li.osc-arg")


def set_arg(row, type_, value=None):
    Select(row.find_element(By.NAME, "oscArgType")).select_by_value(type_)
    box = row.find_element(By.NAME, "oscArgValue")
    if value is None:
        assert not box.is_enabled(), f"{type_} carries no value"
    else:
        type_into(box, value)


def shown_args(form):
    return [(Select(r.find_element(By.NAME, "oscArgType")).first_selected_option.get_attribute("value"),
             r.find_element(By.NAME, "oscArgValue").get_attribute("value")) for r in rows(form)]


def submit_and_wait(driver, form):
    click(driver, form.find_element(By.CSS_SELECTOR, "[type=submit]"))
    wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor .handler-card")))


def open_edit(driver, hid, target):
    """Edit on the handler's card once the list shows it going to `target` (the list reloads)."""
    def go(d):
        card = d.find_element(By.CSS_SELECTOR, f'#editor .handler-card[data-handler="{hid}"]')
        if card.find_element(By.CSS_SELECTOR, ".handler-target").text != target:
            return False
        click(d, card.find_element(By.XPATH, ".//button[normalize-space()='Edit']"))
        return True
    wait(driver).until(go)
    return handler_form(driver)


def field_error(driver, name):
    return wait(driver).until(EC.visibility_of_element_located(
        (By.CSS_SELECTOR, f'#editor [data-field="{name}"] .field-error'))).text


def test_osc_handler_made_edited_and_refused_in_the_editor(server, driver):
    bid = new_id("cue")
    server.ok("POST", "/buttons", {"id": bid, "label": "Cue"})
    open_panel(driver, server)
    edit(driver, bid)
    click(driver, wait(driver).until(EC.element_to_be_clickable(
        (By.XPATH, "//dialog[@id='editor']//button[normalize-space()='Add handler']"))))
    form = handler_form(driver)
    click(driver, form.find_element(By.CSS_SELECTOR, "input[name=htype][value=osc]"))
    assert form.find_element(By.NAME, "oscUrl").is_displayed() and not form.find_element(By.NAME, "url").is_displayed()
    type_into(form.find_element(By.NAME, "oscUrl"), "osc.udp://127.0.0.1:53000")
    type_into(form.find_element(By.NAME, "oscAddress"), "/cue/{button}/start")
    # The address's help lists the server's placeholders, all 12 (GET /api/v1/vocabulary).
    help_text = driver.execute_script(
        "const i = arguments[0]; return (i.getAttribute('aria-describedby') || '').split(' ')"
        ".map((id) => (document.getElementById(id) || {}).textContent || '').join(' ')", form.find_element(By.NAME, "oscAddress"))
    vocabulary = server.ok("GET", "/vocabulary")["placeholders"]
    assert len(vocabulary) == 12
    for name in vocabulary:
        assert name in help_text, f"{name} missing from the address help: {help_text}"
    assert not form.find_element(By.NAME, "oscSlip").is_displayed(), "SLIP is for TCP only"
    add = form.find_element(By.CSS_SELECTOR, ".osc-add-arg")
    for _ in range(4):
        click(driver, add)
    r = rows(form)
    set_arg(r[0], "i", "{face}")
    set_arg(r[1], "s", "{button}")
    set_arg(r[2], "f", "1.5")
    set_arg(r[3], "T")
    submit_and_wait(driver, form)

    [h] = server.ok("GET", f"/buttons/{bid}/handlers")["handlers"]
    assert h["on"] == ["tap"] and "webhook" not in h and "script" not in h, h
    osc = server.ok("GET", f"/handlers/{h['id']}")["osc"]
    assert osc["url"] == "osc.udp://127.0.0.1:53000" and osc["address"] == "/cue/{button}/start" and osc["slip"] is False
    assert osc["args"] == [{"type": "i", "value": "{face}"}, {"type": "s", "value": "{button}"},
                           {"type": "f", "value": 1.5}, {"type": "T", "value": None}], osc["args"]
    chip = wait(driver).until(EC.visibility_of_element_located(
        (By.CSS_SELECTOR, f'#editor .handler-card[data-handler="{h["id"]}"] .kind-chip')))
    assert chip.text == "OSC"

    # editing shows every field as the server has it; a change is saved as typed
    form = open_edit(driver, h["id"], "osc.udp://127.0.0.1:53000 /cue/{button}/start")
    assert form.find_element(By.CSS_SELECTOR, "input[name=htype][value=osc]").is_selected()
    assert form.find_element(By.NAME, "oscUrl").get_attribute("value") == "osc.udp://127.0.0.1:53000"
    assert form.find_element(By.NAME, "oscAddress").get_attribute("value") == "/cue/{button}/start"
    assert shown_args(form) == [("i", "{face}"), ("s", "{button}"), ("f", "1.5"), ("T", "")]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", form.find_element(By.CSS_SELECTOR, ".osc-args"))
    driver.save_screenshot(str(ARTIFACTS / "panel-osc-handler-form.png"))
    type_into(form.find_element(By.NAME, "oscUrl"), "osc.tcp://127.0.0.1:53001")
    slip = wait(driver).until(lambda d: form.find_element(By.NAME, "oscSlip") if form.find_element(By.NAME, "oscSlip").is_displayed() else None)
    click(driver, slip)
    click(driver, rows(form)[3].find_element(By.CSS_SELECTOR, "button[aria-label='Remove argument']"))
    set_arg(rows(form)[2], "d", "-2.25")
    click(driver, form.find_element(By.CSS_SELECTOR, ".osc-add-arg"))
    set_arg(rows(form)[3], "h", "{seq}")
    click(driver, form.find_element(By.CSS_SELECTOR, ".osc-add-arg"))
    set_arg(rows(form)[4], "i", "42")
    submit_and_wait(driver, form)
    osc = server.ok("GET", f"/handlers/{h['id']}")["osc"]
    assert osc["url"] == "osc.tcp://127.0.0.1:53001" and osc["slip"] is True, osc
    assert osc["args"] == [{"type": "i", "value": "{face}"}, {"type": "s", "value": "{button}"},
                           {"type": "d", "value": -2.25}, {"type": "h", "value": "{seq}"},
                           {"type": "i", "value": 42}], osc["args"]

    # the server's refusals are shown next to the field they name, and nothing is changed
    form = open_edit(driver, h["id"], "osc.tcp://127.0.0.1:53001 /cue/{button}/start")
    type_into(form.find_element(By.NAME, "oscAddress"), "cue/go")
    click(driver, form.find_element(By.CSS_SELECTOR, "[type=submit]"))
    assert "must start with /" in field_error(driver, "osc.address")
    type_into(form.find_element(By.NAME, "oscAddress"), "/cue/go")
    set_arg(rows(form)[1], "i", "loud")
    click(driver, form.find_element(By.CSS_SELECTOR, "[type=submit]"))
    assert "osc.args[1].value" in field_error(driver, "osc.args[1].value")
    assert server.ok("GET", f"/handlers/{h['id']}")["osc"] == osc
