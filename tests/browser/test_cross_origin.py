"""A web page from another origin cannot drive buttond (SPEC §6, "the browser is not a way in"):
not with 'simple' no-cors requests, not by framing the panel. Each refusal has a positive
control (the same page with the origin allowed) so the test cannot pass by doing nothing."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from selenium.webdriver.common.by import By

from conftest import start_server, stop_server
from panel_helpers import new_id, wait


ATTACK = """<!doctype html><title>a page from elsewhere</title><body>
<script>
const base = new URLSearchParams(location.search).get("target");
const id = new URLSearchParams(location.search).get("id");
const sink = new URLSearchParams(location.search).get("sink");
async function go() {
  const send = (path, body, type) => fetch(base + path, {method: "POST", mode: "no-cors",
      headers: type ? {"content-type": type} : {}, body: body});
  for (const type of ["text/plain", "application/x-www-form-urlencoded", null]) {
    await send("/api/v1/buttons", JSON.stringify({id: id + "-" + (type ? type.length : 0)}), type).catch(() => {});
  }
  await send("/api/v1/buttons/" + id + "/press", "{}", "application/x-www-form-urlencoded").catch(() => {});
  await send("/api/v1/buttons/" + id + "/handlers",
      JSON.stringify({on: ["tap"], webhook: {url: sink}}), "application/x-www-form-urlencoded").catch(() => {});
  document.title = "sent";
}
go();
</script>"""

FRAME = """<!doctype html><title>framing</title><body>
<iframe id="panel" width="800" height="600"></iframe>
<script>document.getElementById("panel").src = new URLSearchParams(location.search).get("target") + "/";</script>"""


class OtherOrigin:
    """A plain web server on another port: another origin, as a stranger's page would be."""

    def __init__(self):
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                page = FRAME if self.path.startswith("/frame") else ATTACK
                body = page.encode()
                self.send_response(200)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def other():
    o = OtherOrigin()
    yield o
    o.close()


def attack(driver, other, srv, button_id):
    """Opens the stranger's page, which fires its requests at `srv`, and waits for it to finish."""
    driver.get(f"{other.origin}/attack?target={srv.base}&id={button_id}&sink={other.origin}/hook")
    wait(driver).until(lambda d: d.title == "sent")
    time.sleep(0.3)  # no-cors answers are opaque: give the server a moment past the last one


def test_a_page_on_another_origin_cannot_press_create_or_attach(driver, other):
    srv = start_server(name="cross-origin")
    try:
        button_id = new_id("victim")
        srv.ok("POST", "/buttons", {"id": button_id})
        attack(driver, other, srv, button_id)
        buttons = [b["id"] for b in srv.ok("GET", "/buttons")["buttons"]]
        assert buttons == [button_id], f"the page created buttons: {buttons}"
        assert srv.events(button_id) == [], "the page pressed the button"
        assert srv.ok("GET", f"/buttons/{button_id}/handlers")["handlers"] == [], "the page attached a handler"
        # curl and scripts (no Origin) work as before.
        assert srv.call("POST", f"/buttons/{button_id}/press", {})[0] == 200
    finally:
        stop_server(srv)


def test_an_allowed_origin_may_call_the_api(driver, other):
    srv = start_server("--allow-origin", other.origin, name="allowed-origin")
    try:
        button_id = new_id("allowed")
        srv.ok("POST", "/buttons", {"id": button_id})
        attack(driver, other, srv, button_id)
        wait(driver).until(lambda d: len(srv.events(button_id)) > 0)
        assert srv.ok("GET", f"/buttons/{button_id}/handlers")["handlers"] != []
    finally:
        stop_server(srv)


def framed_keys(driver, other, srv):
    """The keys the panel shows inside another origin's iframe (none when framing is refused)."""
    driver.get(f"{other.origin}/frame?target={srv.base}")
    frame = wait(driver).until(lambda d: d.find_element(By.ID, "panel"))
    time.sleep(1.0)  # the frame loads (or is refused) on its own
    driver.switch_to.frame(frame)
    try:
        return len(driver.find_elements(By.CSS_SELECTOR, "button.key"))
    finally:
        driver.switch_to.default_content()
        driver.get_log("browser")  # the refusal is logged as a CSP violation: not the panel's


def test_another_origin_cannot_frame_the_panel(driver, other):
    srv = start_server(name="framing")
    try:
        srv.ok("POST", "/buttons", {"id": new_id("framed")})
        assert framed_keys(driver, other, srv) == 0
    finally:
        stop_server(srv)
    # --frame-ancestors lets the named page embed it (a Home Assistant dashboard's iframe card).
    srv = start_server("--frame-ancestors", f"'self' {other.origin}", name="framing-allowed")
    try:
        srv.ok("POST", "/buttons", {"id": new_id("framed")})
        wait(driver).until(lambda d: framed_keys(d, other, srv) > 0)
    finally:
        stop_server(srv)
