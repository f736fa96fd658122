// buttond control panel: wiring.

import { get, setToken, setTokenPrompt, currentToken, onTokenChange } from "./api.js";
import { showError, toast } from "./ui.js";
import { ingest, loadButtons, loadSheets, onChange, markSeen } from "./store.js";
import { render, setEditing, isEditing, setEditorHooks } from "./grid.js";
import { renderSheetList, setSheetEditorHook } from "./sheets.js";
import { initLog } from "./log.js";
import { startStream } from "./stream.js";
import { openEditor, createButton, createSheet, showDeliveries } from "./editor.js";

const $ = (id) => document.getElementById(id);

// ---- token prompt (401) ----------------------------------------------------------------

setTokenPrompt((reason) => new Promise((resolve) => {
  const dlg = $("token-dialog");
  const input = $("token-input");
  const error = $("token-error");
  error.hidden = !reason;
  error.textContent = reason || "";
  input.value = "";
  const form = $("token-form");
  const onSubmit = (e) => {
    e.preventDefault();
    const value = input.value.trim();
    if (!value) return;
    form.removeEventListener("submit", onSubmit);
    dlg.close();
    setToken(value);
    resolve(value);
  };
  form.addEventListener("submit", onSubmit);
  dlg.addEventListener("cancel", (e) => e.preventDefault(), { once: true });
  if (!dlg.open) dlg.showModal();
  input.focus();
}));

function updateTokenButton() {
  $("forget-token").hidden = !currentToken();
}
onTokenChange(updateTokenButton);
$("forget-token").addEventListener("click", () => {
  setToken("");
  toast("Token forgotten in this browser.");
  boot();
});

// ---- connection status ------------------------------------------------------------------

function setConn(state) {
  const node = $("conn");
  node.dataset.state = state;
  node.querySelector(".conn-text").textContent = {
    connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…", offline: "Offline",
  }[state] || state;
}

// ---- edit mode, log drawer ----------------------------------------------------------------

const editToggle = $("edit-toggle");
editToggle.addEventListener("click", () => {
  const on = !isEditing();
  editToggle.setAttribute("aria-pressed", String(on));
  editToggle.textContent = on ? "Done" : "Edit";
  document.body.classList.toggle("editing", on);
  $("editbar").hidden = !on;
  setEditing(on);
  renderSheetList();
});
$("add-button").addEventListener("click", () => createButton());
$("empty-create").addEventListener("click", () => createButton());
$("add-sheet").addEventListener("click", () => createSheet());
$("all-deliveries").addEventListener("click", () => showDeliveries(null));
setEditorHooks(openEditor, (group) => createButton(group));
setSheetEditorHook(openEditor);

// ---- data -----------------------------------------------------------------------------

onChange((what) => {
  if (what === "buttons" || what === "all") render();
  if (what === "sheets" || what === "all") renderSheetList();
});

async function resync() {
  await Promise.all([loadButtons(), loadSheets()]);
}

let streamStarted = false;
let bootFailures = 0;
async function boot() {
  try {
    // History first (for the log), then the registry, then the stream from the last seq seen:
    // anything that happens in between is replayed by the stream.
    const [history] = await Promise.all([get("events?limit=80"), resync()]);
    const events = (history && history.events) || [];
    ingest(events, "history");
    for (const ev of events) markSeen(ev.seq);
    document.body.classList.add("ready");
    if (!streamStarted) {
      streamStarted = true;
      startStream({ onStatus: setConn, onResync: resync });
    }
  } catch (err) {
    if (bootFailures++ === 0 || err.status !== 0) showError(err, "Loading the panel");
    setConn("offline");
    setTimeout(boot, Math.min(15000, 2000 * bootFailures));
  }
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && streamStarted) resync().catch((e) => showError(e, "Refreshing"));
});

initLog();
updateTokenButton();
boot();
