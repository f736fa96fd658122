// The live event log: newest first, bounded, filterable. By default it lists gestures (taps,
// n-taps, long presses, toggles, selections) and handler health; a switch shows the raw touches
// too. A separate polite live region announces gestures only. On a phone the log is a drawer
// at the bottom of the screen, always in reach.

import { el } from "./dom.js";
import { fmtTime } from "./format.js";
import { onEvent, buttons, sheets, lastSeq, subjectName } from "./store.js";
import { category, isGesture, spoken } from "./vocab.js";
import { faceLabel, optionLabel } from "./names.js";

const MAX = 300;
const RAW_KEY = "buttond.logRaw";
let list, empty, filterInput, rawSwitch, announcer, peek, logEl, toggleBtn;

function faceName(ev) {
  return faceLabel(buttons.get(ev.button), (ev.data || {}).face);
}

function optionName(ev) {
  const s = sheets.get(ev.sheet);
  const d = ev.data || {};
  const opt = s && s.options && s.options.find((o) => o.id === d.option);
  return opt ? optionLabel(opt) : String(d.option ?? "");
}

function describe(ev) {
  const d = ev.data || {};
  const bits = [];
  if (d.tapCount !== undefined && ev.type !== "tap") bits.push(`${d.tapCount} tap${d.tapCount === 1 ? "" : "s"}`);
  if (ev.type === "tap" && d.tapCount) bits.push(`#${d.tapCount}`);
  if (d.durationMs !== undefined) bits.push(`${d.durationMs} ms`);
  if (d.face !== undefined) bits.push(`face ${d.face} “${faceName(ev)}”`);
  if (d.repeat !== undefined) bits.push(`repeat ${d.repeat}`);
  if (d.option !== undefined) bits.push(`option “${optionName(ev)}”`);
  if (d.reason) bits.push(d.reason);
  if (d.pointer) bits.push(d.pointer);
  return bits.join(" · ");
}

function row(ev) {
  const subject = ev.button || ev.sheet || "";
  const name = subjectName(ev);
  const raw = !isGesture(ev.type);
  const item = el("li.log-item", { dataset: { seq: String(ev.seq), type: ev.type, subject, cat: category(ev.type) } },
  el("time.log-time", { datetime: ev.at || "", title: `seq ${ev.seq} · ${ev.at || ""}`, text: fmtTime(ev.t) }),
  el("span.log-type", { text: ev.type }),
  el("span.log-subject", { title: subject, text: name }),
  el("span.log-detail", { text: describe(ev) }));
  item.dataset.search = `${ev.type} ${subject} ${name}`.toLowerCase();
  if (raw) item.dataset.raw = "true";
  return item;
}

function applyFilter(item) {
  const q = (filterInput.value || "").trim().toLowerCase();
  item.hidden = q !== "" && !item.dataset.search.includes(q);
}

function updateEmpty() {
  const sel = rawSwitch.checked ? ".log-item:not([hidden])" : ".log-item:not([hidden]):not([data-raw])";
  empty.hidden = !!list.querySelector(sel);
}

function place(item, seq) {
  // Newest (highest seq) first, even if events arrive out of order.
  let before = list.firstElementChild;
  while (before && Number(before.dataset.seq) > seq) before = before.nextElementSibling;
  list.insertBefore(item, before);
  while (list.children.length > MAX) list.lastElementChild.remove();
  updateEmpty();
}

function insert(ev, source) {
  const item = row(ev);
  applyFilter(item);
  if (source !== "history") item.classList.add("fresh");
  place(item, ev.seq);
  if (source === "history" || item.dataset.raw) return;
  const text = `${subjectName(ev)}: ${ev.type === "toggle" ? faceName(ev) : ev.type === "select" ? optionName(ev) : ev.type}`;
  peek.textContent = text;
  const say = spoken(ev.type);
  if (say) announce(say.words ? `${subjectName(ev)}: ${say.words}` : text);
}

let announceTimer = null;
function announce(text) {
  // Cleared first, so the same words twice are announced twice; politely, never interrupting.
  announcer.textContent = "";
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => { announcer.textContent = text; }, 60);
}

/** A line that is not a control event (handler health): placed as the newest row. */
export function addNote({ subject, name, type, text, kind = "health" }) {
  if (!list) return;
  const item = el("li.log-item.fresh", { dataset: { seq: String(lastSeq() + 0.5), type, subject, cat: kind } },
    el("time.log-time", { text: fmtTime(Date.now()) }),
    el("span.log-type", { text: type }),
    el("span.log-subject", { title: subject, text: name }),
    el("span.log-detail", { text }));
  item.dataset.search = `${type} ${subject} ${name} ${text}`.toLowerCase();
  applyFilter(item);
  place(item, lastSeq() + 0.5);
  peek.textContent = `${name}: ${type}`;
}

function setRaw(on) {
  rawSwitch.checked = on;
  list.classList.toggle("show-raw", on);
  try { localStorage.setItem(RAW_KEY, on ? "1" : "0"); } catch { /* private mode */ }
  updateEmpty();
}

function setOpen(open) {
  logEl.dataset.open = String(open);
  toggleBtn.setAttribute("aria-expanded", String(open));
}

export function initLog() {
  logEl = document.getElementById("log");
  list = document.getElementById("log-list");
  empty = document.getElementById("log-empty");
  filterInput = document.getElementById("log-filter");
  rawSwitch = document.getElementById("log-raw");
  announcer = document.getElementById("announcer");
  peek = document.getElementById("log-peek");
  toggleBtn = document.getElementById("log-toggle");
  filterInput.addEventListener("input", () => {
    for (const item of list.children) applyFilter(item);
    updateEmpty();
  });
  document.getElementById("log-clear").addEventListener("click", () => {
    list.replaceChildren();
    updateEmpty();
  });
  let raw = false;
  try { raw = localStorage.getItem(RAW_KEY) === "1"; } catch { /* private mode */ }
  setRaw(raw);
  rawSwitch.addEventListener("change", () => setRaw(rawSwitch.checked));
  toggleBtn.addEventListener("click", () => setOpen(logEl.dataset.open !== "true"));
  logEl.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && logEl.dataset.open === "true" && getComputedStyle(toggleBtn).display !== "none") {
      setOpen(false);
      toggleBtn.focus();
    }
  });
  setOpen(false);
  onEvent((ev, source) => insert(ev, source));
}
