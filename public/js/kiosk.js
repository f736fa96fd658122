// Kiosk: /?kiosk or #kiosk — a wall tablet or a stage panel. The keys alone, no edit mode and no
// log, the screen kept awake (Wake Lock API, taken again whenever the page is visible again: the
// browser drops the lock when it is hidden). A corner holds its own controls, so no key press is
// ever spent on them: full screen (a tap), and the way out without an address bar (a 2 s hold,
// then the admin token if the server has one). Health marks are for whoever can act on them: a
// kiosk opened with a non-admin token shows none unless `?marks=on`; `?marks=off` hides them
// for anyone.

import { API, setToken } from "./api.js";
import { el } from "./dom.js";
import { icon } from "./icons.js";
import { openModal } from "./modal.js";

const EXIT_HOLD_MS = 2000;

export function isKiosk() {
  return new URLSearchParams(location.search).has("kiosk") || /^#kiosk(\/|$)/.test(location.hash);
}

/** Whether the grid shows no health marks: `?marks=off` (with the kiosk, or on its own), or
 *  a kiosk whose session is not an admin's, unless `?marks=on`. */
export function marksHidden(role = "admin") {
  const marks = new URLSearchParams(location.search).get("marks");
  if (marks === "off") return true;
  if (marks === "on") return false;
  return isKiosk() && role !== "admin";
}

let lock = null;
let pending = false;

function state(s) { document.body.dataset.wakeLock = s; }

async function acquire() {
  if (!("wakeLock" in navigator)) { state("unsupported"); return; }
  if (pending || document.visibilityState !== "visible" || (lock && !lock.released)) return;
  pending = true;
  try {
    lock = await navigator.wakeLock.request("screen");
    state("held");
    lock.addEventListener("release", () => state("released"));
  } catch {
    state("denied"); // battery saver, or not allowed yet: tried again on the next touch
  } finally {
    pending = false;
  }
}

function standalone() {
  return matchMedia("(display-mode: standalone), (display-mode: fullscreen)").matches;
}

function fullScreenControl() {
  const control = el("button.kiosk-control.kiosk-full", { type: "button", "aria-label": "Full screen", title: "Full screen" },
    icon("expand"), el("span.kiosk-control-text", { text: "Full screen" }));
  const sync = () => { control.hidden = !!document.fullscreenElement || standalone() || !document.documentElement.requestFullscreen; };
  control.addEventListener("click", () => {
    document.documentElement.requestFullscreen({ navigationUI: "hide" }).catch(() => {}).finally(sync);
    acquire();
  });
  document.addEventListener("fullscreenchange", sync);
  sync();
  return control;
}

/** The corner control held for 2 s (pointer, or Space/Enter) to leave the kiosk. */
function exitControl() {
  const control = el("button.kiosk-control.kiosk-exit", { type: "button", "aria-label": "Exit kiosk (hold 2 seconds)", title: "Hold 2 s to exit" },
    icon("exit"), el("span.kiosk-control-text", { text: "Hold to exit" }));
  control.style.setProperty("--hold-ms", `${EXIT_HOLD_MS}ms`);
  let timer = 0;
  const start = (e) => {
    if (timer) return;
    if (e.pointerId !== undefined) { try { control.setPointerCapture(e.pointerId); } catch { /* synthetic */ } }
    control.classList.add("holding");
    timer = setTimeout(() => { stop(); leave(); }, EXIT_HOLD_MS);
  };
  const stop = () => {
    clearTimeout(timer);
    timer = 0;
    control.classList.remove("holding");
  };
  control.addEventListener("pointerdown", (e) => { e.preventDefault(); start(e); });
  for (const ev of ["pointerup", "pointercancel", "lostpointercapture"]) control.addEventListener(ev, stop);
  control.addEventListener("contextmenu", (e) => e.preventDefault());
  control.addEventListener("keydown", (e) => { if ((e.key === " " || e.key === "Enter") && !e.repeat) { e.preventDefault(); start(e); } });
  control.addEventListener("keyup", (e) => { if (e.key === " " || e.key === "Enter") stop(); });
  control.addEventListener("blur", stop);
  return control;
}

/** The panel's own address without the kiosk. */
function panelURL() {
  const q = new URLSearchParams(location.search);
  q.delete("kiosk");
  q.delete("marks");
  const search = q.toString() ? `?${q}` : "";
  const hash = location.hash.replace(/^#kiosk/, "#").replace(/^#$/, "");
  return `${location.pathname}${search}${hash}`;
}

/** 200 for the admin token, 403 for any other, 401 for none or a wrong one (GET /api/v1/session:
 *  nothing is asked that a kiosk's own token would be refused). */
async function tokenStatus(token) {
  const headers = { accept: "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    const res = await fetch(`${API}/session`, { headers, cache: "no-store" });
    if (!res.ok) return res.status;
    const s = await res.json().catch(() => ({}));
    return s.role === "admin" ? 200 : 403;
  } catch {
    return 0;
  }
}

async function leave() {
  const open = await tokenStatus("");
  if (open === 200) { location.assign(panelURL()); return; } // no token asked here
  const dlg = document.getElementById("kiosk-exit-dialog");
  const form = document.getElementById("kiosk-exit-form");
  const input = document.getElementById("kiosk-exit-token");
  const error = document.getElementById("kiosk-exit-error");
  input.value = "";
  error.hidden = true;
  form.onsubmit = async (e) => {
    e.preventDefault();
    const token = input.value.trim();
    const status = await tokenStatus(token);
    if (status === 200) {
      setToken(token);
      dlg.close();
      location.assign(panelURL());
      return;
    }
    error.hidden = false;
    error.textContent = status === 403 ? "That token may not edit: leaving the kiosk needs the admin token."
      : status === 0 ? "The server cannot be reached." : "That token was refused.";
    input.select();
  };
  document.getElementById("kiosk-exit-stay").onclick = () => dlg.close();
  openModal(dlg);
  input.focus();
}

export function startKiosk() {
  document.body.classList.add("kiosk");
  document.body.append(el("div.kiosk-controls", { role: "group", "aria-label": "Kiosk" }, fullScreenControl(), exitControl()));
  acquire();
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") acquire();
  });
  // The wake lock may need a user gesture: any touch tries again. Full screen is its own control.
  document.addEventListener("pointerup", () => acquire(), { passive: true });
}
