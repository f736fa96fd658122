// Action sheets: launchers on the page, and the bottom sheet shown on every panel while a sheet
// is open (opened here, in another browser, or through the API).

import { post, enc } from "./api.js";
import { el, icon, showError, openModal, closeModal } from "./ui.js";
import { sheets, onEvent, ingest, loadSheets } from "./store.js";
import { mode } from "./mode.js";
import { healthOf, openHealth } from "./health.js";

const openDialogs = new Map(); // sheet id -> dialog

export function renderSheetList() {
  const section = document.getElementById("sheets-section");
  const host = document.getElementById("sheet-list");
  const list = [...sheets.values()].sort((a, b) => (a.title || a.id).localeCompare(b.title || b.id));
  section.hidden = list.length === 0;
  host.replaceChildren(...list.map((s) => {
    const h = healthOf(s);
    const n = (s.options || []).length;
    const launch = el("button.sheet-launch", {
      type: "button",
      dataset: { sheet: s.id },
      on: { click: () => (mode.editing ? mode.openEditor("sheet", s.id) : openSheetRemote(s.id)) },
    },
    el("span.sheet-launch-icon", {}, icon(mode.editing ? "edit" : "sheet")),
    el("span.sheet-launch-text", {},
      el("span.sheet-launch-title", { text: s.title || s.id }),
      el("span.sheet-launch-sub", { text: `${n} option${n === 1 ? "" : "s"}` })));
    const mark = h ? el("button.health-mark", {
      type: "button", "aria-label": `${s.title || s.id}: handler ${h.state}. Show why`, title: `handler ${h.state}: ${h.reason || ""}`,
      on: { click: () => openHealth(s.id, "sheet") },
    }, el("span.health-dot", {}, icon(h.state === "disabled" ? "ban" : "alert"))) : null;
    return el("div.sheet-cell", { dataset: { sheet: s.id, health: h ? h.state : "ok" } }, launch, mark);
  }));
  // Sheets marked open on the server are shown (first load, reconnect).
  for (const s of list) {
    if (s.state && s.state.open) showSheet(s.id);
    else if (openDialogs.has(s.id)) closeSheet(s.id);
  }
  for (const id of [...openDialogs.keys()]) if (!sheets.has(id)) closeSheet(id);
}

async function openSheetRemote(id) {
  try {
    const res = await post(`sheets/${enc(id)}/open`);
    if (res && res.events) ingest(res.events, "response");
    showSheet(id);
  } catch (err) {
    showError(err, `Opening ${id}`);
  }
}

function showSheet(id) {
  const s = sheets.get(id);
  if (!s) { loadSheets().then(() => sheets.has(id) && showSheet(id)).catch((e) => showError(e, "Loading sheets")); return; }
  if (openDialogs.has(id)) return;
  const busy = (on) => dlg.querySelectorAll("button").forEach((b) => { b.disabled = on; });
  const choose = async (opt, index) => {
    busy(true);
    try {
      const res = await post(`sheets/${enc(id)}/choose`, { option: opt.id ?? index });
      if (res && res.events) ingest(res.events, "response");
      closeSheet(id);
    } catch (err) {
      busy(false);
      showError(err, s.title || id);
      if (err.status === 409) closeSheet(id);
    }
  };
  const cancel = async () => {
    busy(true);
    try {
      const res = await post(`sheets/${enc(id)}/cancel`);
      if (res && res.events) ingest(res.events, "response");
    } catch (err) {
      if (err.status !== 409) showError(err, s.title || id);
    }
    closeSheet(id);
  };
  const titleId = `sheet-title-${id}`;
  const options = (s.options || []).map((o, i) => el(`button.bs-option${o.destructive ? ".destructive" : ""}`, {
    type: "button", dataset: { option: o.id }, on: { click: () => choose(o, i) },
  }, o.label || o.id));
  const dlg = el("dialog.bottom-sheet", { "aria-labelledby": titleId, dataset: { sheet: id } },
    el("div.bs-panel", {},
      el("div.bs-group", {},
        el("div.bs-head", {}, el("p.bs-title", { id: titleId, text: s.title || id })),
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
  const dlg = openDialogs.get(id);
  if (!dlg) return;
  openDialogs.delete(id);
  dlg.classList.remove("in");
  dlg.classList.add("out");
  setTimeout(() => closeModal(dlg, { remove: true }), 220);
}

onEvent((ev, source) => {
  if (!ev.sheet || source === "history") return;
  const s = sheets.get(ev.sheet);
  if (ev.type === "sheet-open") {
    if (s) s.state = { ...(s.state || {}), open: true };
    showSheet(ev.sheet);
  } else if (ev.type === "select" || ev.type === "sheet-cancel") {
    if (s) s.state = { ...(s.state || {}), open: false };
    closeSheet(ev.sheet);
  }
});
