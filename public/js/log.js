// The live event log: newest first, bounded, filterable.

import { el, fmtTime } from "./ui.js";
import { onEvent, buttons, sheets } from "./store.js";

const MAX = 300;
let list, empty, filterInput;

const CATEGORY = {
  "touch-down": "touch", "touch-up-inside": "touch", "touch-up-outside": "touch", "touch-drag-exit": "touch",
  "touch-drag-enter": "touch", "touch-cancel": "cancel", "long-press": "long", "long-press-end": "long",
  repeat: "long", tap: "tap", toggle: "toggle", "single-tap": "tap", "double-tap": "tap", "triple-tap": "tap",
  "quadruple-tap": "tap", "quintuple-tap": "tap", "sheet-open": "sheet", select: "sheet", "sheet-cancel": "cancel",
};

function describe(ev) {
  const d = ev.data || {};
  const bits = [];
  if (d.tapCount !== undefined && ev.type !== "tap") bits.push(`${d.tapCount} tap${d.tapCount === 1 ? "" : "s"}`);
  if (ev.type === "tap" && d.tapCount) bits.push(`#${d.tapCount}`);
  if (d.durationMs !== undefined) bits.push(`${d.durationMs} ms`);
  if (d.face !== undefined) {
    const b = buttons.get(ev.button);
    const faces = (b && b.faces) || [];
    const name = faces[d.face] && faces[d.face].label;
    bits.push(`face ${d.face}${name ? ` “${name}”` : ""}`);
  }
  if (d.repeat !== undefined) bits.push(`repeat ${d.repeat}`);
  if (d.option !== undefined) {
    const s = sheets.get(ev.sheet);
    const opt = s && s.options && s.options.find((o) => o.id === d.option);
    bits.push(`option ${opt ? `“${opt.label}”` : d.option}`);
  }
  if (d.reason) bits.push(d.reason);
  if (d.pointer) bits.push(d.pointer);
  return bits.join(" · ");
}

function row(ev) {
  const subject = ev.button || ev.sheet || "";
  const b = ev.button ? buttons.get(ev.button) : null;
  const s = ev.sheet ? sheets.get(ev.sheet) : null;
  const name = (b && b.label) || (s && s.title) || subject;
  const item = el("li.log-item", { dataset: { seq: String(ev.seq), type: ev.type, subject, cat: CATEGORY[ev.type] || "other" } },
    el("time.log-time", { datetime: ev.at || "", title: `seq ${ev.seq} · ${ev.at || ""}`, text: fmtTime(ev.t) }),
    el("span.log-type", { text: ev.type }),
    el("span.log-subject", { title: subject, text: name }),
    el("span.log-detail", { text: describe(ev) }));
  item.dataset.search = `${ev.type} ${subject} ${name}`.toLowerCase();
  return item;
}

function applyFilter(item) {
  const q = (filterInput.value || "").trim().toLowerCase();
  item.hidden = q !== "" && !item.dataset.search.includes(q);
}

function insert(ev, source) {
  const item = row(ev);
  applyFilter(item);
  // Keep newest (highest seq) first, even if events arrive out of order.
  let before = list.firstElementChild;
  while (before && Number(before.dataset.seq) > ev.seq) before = before.nextElementSibling;
  list.insertBefore(item, before);
  if (source !== "history") item.classList.add("fresh");
  while (list.children.length > MAX) list.lastElementChild.remove();
  empty.hidden = list.children.length > 0;
}

export function initLog() {
  list = document.getElementById("log-list");
  empty = document.getElementById("log-empty");
  filterInput = document.getElementById("log-filter");
  filterInput.addEventListener("input", () => { for (const item of list.children) applyFilter(item); });
  document.getElementById("log-clear").addEventListener("click", () => {
    list.replaceChildren();
    empty.hidden = false;
  });
  onEvent((ev, source) => insert(ev, source));
}
