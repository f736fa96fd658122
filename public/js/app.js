// buttond control panel: the composition root. It makes the parts in order, passing each what
// it needs (no module subscribes or wires the page when imported), loads the registry and the
// recent history, follows the stream, and decides what this session offers: edit mode for an
// admin, pages when there are groups, the kiosk when asked for.

import { get, setToken, setTokenPrompt, currentToken, onTokenChange, onForbidden, probeRole, takeTokenFromLink } from "./api.js";
import { showError, toast } from "./toast.js";
import { openModal } from "./modal.js";
import { ingest, loadButtons, loadSheets, onChange, markSeen } from "./store.js";
import { initGrid, render, setEditing, isEditing } from "./grid.js";
import { syncSheets, followSheets } from "./sheets.js";
import { followLateDowns } from "./key-input.js";
import { reloadListeners } from "./listeners.js";
import { initLog } from "./log.js";
import { initPages } from "./pages.js";
import { startStream } from "./stream.js";
import { openEditor, createButton, createSheet, showDeliveries, closeEditor, initEditorDialog } from "./editor.js";
import { healthDialog } from "./health-dialog.js";
import { followHealth } from "./health-notes.js";
import { isKiosk, startKiosk, marksHidden } from "./kiosk.js";
import { showTokens } from "./tokens.js";
import { registerWorker } from "./pwa.js";
import { drawGlyphs } from "./icons.js";
import { refitWhenFontsLoad } from "./fit.js";
import { setConnectionState } from "./connection.js";
import { loadVocabulary } from "./vocab.js";

const $ = (id) => document.getElementById(id);

takeTokenFromLink();

// What this session is: a kiosk (asked for in the URL), and whether it may edit (an admin
// token, not in a kiosk).
const kiosk = isKiosk();
let canEdit = true;
const mayEdit = () => canEdit;

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
  openModal(dlg);
  input.focus();
}));

function updateTokenButton() {
  $("forget-token").hidden = !currentToken();
}
onTokenChange(() => { updateTokenButton(); checkRole(); });
function forgetToken() {
  setToken("");
  toast("Token forgotten in this browser.");
  boot();
}
$("forget-token").addEventListener("click", forgetToken);
// A press-token session has no edit bar: this is its way to another token.
$("sign-out").addEventListener("click", forgetToken);

// ---- connection status ------------------------------------------------------------------

function setConn(state) {
  const node = $("conn");
  node.dataset.state = state;
  node.querySelector(".conn-text").textContent = {
    connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…", offline: "Offline",
  }[state] || state;
  setConnectionState(state);
}

// ---- edit mode: offered to an admin session only -------------------------------------------

const editToggle = $("edit-toggle");

function setEditMode(on) {
  editToggle.setAttribute("aria-pressed", String(on));
  editToggle.textContent = on ? "Done" : "Edit";
  document.body.classList.toggle("editing", on);
  const bar = $("editbar");
  bar.hidden = !on;
  // Scrolled down, the bar would open behind the sticky header: bring it into view below it.
  if (on) {
    const hidden = document.querySelector(".topbar").getBoundingClientRect().bottom - bar.getBoundingClientRect().top;
    if (hidden > 0) window.scrollBy({ top: -hidden });
  }
  setEditing(on);
}

function applyRole(role) {
  canEdit = role === "admin" && !kiosk;
  editToggle.hidden = !canEdit;
  $("sign-out").hidden = role === "admin" || kiosk;
  document.body.dataset.role = role;
  if (!canEdit && isEditing()) {
    closeEditor();
    setEditMode(false);
  }
}

async function checkRole() {
  const role = await probeRole();
  const wasAdmin = canEdit;
  applyRole(role);
  return wasAdmin && !canEdit;
}

onForbidden(async () => {
  if (await checkRole()) toast("This token may press buttons but not change them.", { kind: "error" });
});

editToggle.addEventListener("click", () => setEditMode(!isEditing()));
$("add-button").addEventListener("click", () => createButton());
$("empty-create").addEventListener("click", () => createButton());
$("add-sheet").addEventListener("click", () => createSheet());
$("all-deliveries").addEventListener("click", () => showDeliveries(null));
$("tokens").addEventListener("click", () => showTokens());

// ---- data -----------------------------------------------------------------------------

onChange((what) => {
  render();
  if (what === "sheets" || what === "all") syncSheets();
});

async function resync() {
  await Promise.all([loadButtons(), loadSheets()]);
  reloadListeners();
}

let streamStarted = false;
let bootFailures = 0;
async function boot() {
  try {
    // History first (for the log), then the registry, then the stream from the last seq seen:
    // anything that happens in between is replayed by the stream.
    const [history] = await Promise.all([get("events?limit=80"), resync(), loadVocabulary()]);
    const events = (history && history.events) || [];
    ingest(events, "history");
    for (const ev of events) markSeen(ev.seq);
    document.body.classList.add("ready");
    if (!streamStarted) {
      streamStarted = true;
      startStream({ onStatus: setConn, onResync: resync });
    }
    if (!kiosk) await checkRole();
  } catch (err) {
    if (bootFailures++ === 0 || err.status !== 0) showError(err, "Loading the panel");
    setConn("offline");
    setTimeout(boot, Math.min(15000, 2000 * bootFailures));
  }
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && streamStarted) resync().catch((e) => showError(e, "Refreshing"));
});

// ---- the parts, in order ---------------------------------------------------------------

drawGlyphs();
refitWhenFontsLoad();
initEditorDialog();
followLateDowns();
followSheets();
initGrid({
  openEditor,
  createInGroup: (group) => createButton(group),
  openHealth: healthDialog({ canEdit: mayEdit, showDeliveries }),
});
followHealth({ canEdit: mayEdit, showDeliveries });

// Until the session is known a kiosk shows no marks (a guest panel never flashes them).
document.body.classList.toggle("no-marks", marksHidden(kiosk ? "press" : "admin"));
if (kiosk) probeRole().then((role) => document.body.classList.toggle("no-marks", marksHidden(role)));
if (kiosk) {
  startKiosk();
  applyRole("press");
  document.body.dataset.role = "kiosk";
}
initLog();
initPages();
updateTokenButton();
registerWorker();
boot();
