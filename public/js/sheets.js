// Action sheets on every panel: the bottom sheet this panel opens, and, for a sheet opened
// somewhere else (another panel, the API, MQTT), a banner to join it: it never blocks this panel.
// The keys that open sheets stand in the grid (sheet-key.js).

import { post, enc } from "./api.js";
import { el } from "./dom.js";
import { icon } from "./icons.js";
import { showError } from "./toast.js";
import { openModal, closeModal } from "./modal.js";
import { sheets, onEvent, ingest, loadSheets } from "./store.js";
import { title, optionLabel } from "./names.js";

const openDialogs = new Map(); // sheet id -> dialog
const banners = new Map();     // sheet id -> banner
const openingHere = new Set(); // sheets this panel asked to open: theirs is the sheet, not a banner

/** Follows the registry: a sheet open on the server and not shown here is a banner to join. */
export function syncSheets() {
  for (const s of sheets.values()) {
    if (s.state && s.state.open) { if (!openDialogs.has(s.id)) showBanner(s.id); }
    else closeSheet(s.id);
  }
  for (const id of new Set([...openDialogs.keys(), ...banners.keys()])) if (!sheets.has(id)) closeSheet(id);
}

/** Opens the sheet for everyone, and here as the bottom sheet. */
export async function openSheetHere(id) {
  openingHere.add(id);
  try {
    const res = await post(`sheets/${enc(id)}/open`);
    if (res && res.events) ingest(res.events, "response");
    showSheet(id);
  } catch (err) {
    showError(err, `Opening ${id}`);
  } finally {
    openingHere.delete(id);
  }
}

function showBanner(id) {
  const s = sheets.get(id);
  if (!s || banners.has(id) || openDialogs.has(id)) return;
  const name = title(s);
  const banner = el("div.sheet-banner", { role: "status", dataset: { sheet: id } },
    el("span.sheet-banner-icon", { "aria-hidden": "true" }, icon("sheet")),
    el("span.sheet-banner-text", {}, el("strong", { text: name }), " is open on another panel"),
    el("button.btn.btn-primary.btn-small", { type: "button", dataset: { join: id }, on: { click: () => { removeBanner(id); showSheet(id); } } }, "Join"),
    el("button.icon-btn", { type: "button", "aria-label": `Hide: ${name}`, on: { click: () => removeBanner(id) } }, icon("close")));
  banners.set(id, banner);
  document.getElementById("sheet-banners").append(banner);
}

function removeBanner(id) {
  const banner = banners.get(id);
  if (!banner) return;
  banners.delete(id);
  banner.remove();
}

function showSheet(id) {
  const s = sheets.get(id);
  if (!s) { loadSheets().then(() => sheets.has(id) && showSheet(id)).catch((e) => showError(e, "Loading sheets")); return; }
  if (openDialogs.has(id)) return;
  removeBanner(id);
  const busy = (on) => dlg.querySelectorAll("button").forEach((b) => { b.disabled = on; });
  const choose = async (opt, index) => {
    busy(true);
    try {
      const res = await post(`sheets/${enc(id)}/choose`, { option: opt.id ?? index });
      if (res && res.events) ingest(res.events, "response");
      closeSheet(id);
    } catch (err) {
      busy(false);
      showError(err, title(s));
      if (err.status === 409) closeSheet(id);
    }
  };
  const cancel = async () => {
    busy(true);
    try {
      const res = await post(`sheets/${enc(id)}/cancel`);
      if (res && res.events) ingest(res.events, "response");
    } catch (err) {
      if (err.status !== 409) showError(err, title(s));
    }
    closeSheet(id);
  };
  const titleId = `sheet-title-${id}`;
  const options = (s.options || []).map((o, i) => el(`button.bs-option${o.destructive ? ".destructive" : ""}`, {
    type: "button", dataset: { option: o.id }, on: { click: () => choose(o, i) },
  }, optionLabel(o)));
  const dlg = el("dialog.bottom-sheet", { "aria-labelledby": titleId, dataset: { sheet: id } },
    el("div.bs-panel", {},
      el("div.bs-group", {},
        el("div.bs-head", {}, el("p.bs-title", { id: titleId, text: title(s) })),
        ...options),
      el("button.bs-cancel", { type: "button", on: { click: cancel } }, s.cancelLabel || "Cancel")));
  dlg.addEventListener("cancel", (e) => { e.preventDefault(); cancel(); }); // Escape
  dlg.addEventListener("click", (e) => { if (e.target === dlg) cancel(); }); // the backdrop
  document.body.append(dlg);
  openDialogs.set(id, dlg);
  openModal(dlg);
  requestAnimationFrame(() => dlg.classList.add("in"));
  const first = dlg.querySelector(".bs-option") || dlg.querySelector(".bs-cancel");
  if (first) first.focus();
}

function closeSheet(id) {
  removeBanner(id);
  const dlg = openDialogs.get(id);
  if (!dlg) return;
  openDialogs.delete(id);
  dlg.classList.remove("in");
  dlg.classList.add("out");
  setTimeout(() => closeModal(dlg, { remove: true }), 220);
}

/** Follows the stream from now on: a sheet opened elsewhere is a banner, a closed one goes. */
export function followSheets() {
  onEvent((ev, source) => {
    if (!ev.sheet || source === "history") return;
    const s = sheets.get(ev.sheet);
    if (ev.type === "sheet-open") {
      if (s) s.state = { ...(s.state || {}), open: true };
      if (!openingHere.has(ev.sheet)) showBanner(ev.sheet);
    } else if (ev.type === "select" || ev.type === "sheet-cancel") {
      if (s) s.state = { ...(s.state || {}), open: false };
      closeSheet(ev.sheet);
    }
  });
}
