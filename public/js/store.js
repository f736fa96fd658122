// The client's view of the server: buttons, sheets, and a de-duplicated event feed.
// Events arrive from the SSE stream and from input responses; each is handled once (by seq).

import { get } from "./api.js";
import { title } from "./names.js";

export const buttons = new Map(); // id -> button object (with state)
export const sheets = new Map();  // id -> sheet object

const seen = new Set();
const seenOrder = [];
let maxSeq = 0;

const eventListeners = new Set();
const changeListeners = new Set();
const registryListeners = new Set();

export function onEvent(fn) { eventListeners.add(fn); }
/** fn(message, previous): after a registry change from the stream is applied. */
export function onRegistry(fn) { registryListeners.add(fn); }
export function onChange(fn) { changeListeners.add(fn); }
export function lastSeq() { return maxSeq; }
export function markSeen(seq) {
  if (seq > maxSeq) maxSeq = seq;
}

export function changed(what = "all") {
  for (const fn of changeListeners) fn(what);
}

/** Feeds events (from anywhere); each seq is delivered to listeners once. Returns the new ones. */
export function ingest(events, source = "stream") {
  const fresh = [];
  for (const ev of events || []) {
    if (!ev || typeof ev.seq !== "number") continue;
    if (seen.has(ev.seq)) continue;
    seen.add(ev.seq);
    seenOrder.push(ev.seq);
    if (seenOrder.length > 5000) seen.delete(seenOrder.shift());
    if (ev.seq > maxSeq) maxSeq = ev.seq;
    fresh.push(ev);
  }
  for (const ev of fresh) {
    for (const fn of eventListeners) {
      try { fn(ev, source); } catch (err) { console.error(err); }
    }
  }
  return fresh;
}

/**
 * Applies an `event: registry` message: `{op: put|delete, kind: button|sheet, id, button|sheet}`.
 * A put keeps the live state this page already follows from control events (the stream orders
 * those by seq; a registry message has none), so a look change never un-presses a held key.
 */
export function applyRegistry(msg) {
  if (!msg || typeof msg.id !== "string") return;
  const map = msg.kind === "button" ? buttons : msg.kind === "sheet" ? sheets : null;
  if (!map) return;
  const previous = map.get(msg.id);
  if (msg.op === "delete") {
    if (!previous) return;
    map.delete(msg.id);
  } else if (msg.op === "put") {
    const next = msg[msg.kind];
    if (!next || next.id !== msg.id) return;
    if (previous && previous.state) next.state = previous.state;
    map.set(msg.id, next);
  } else return;
  for (const fn of registryListeners) {
    try { fn(msg, previous); } catch (err) { console.error(err); }
  }
  changed(msg.kind === "button" ? "buttons" : "sheets");
}

/** Fetches one button again (after a refused input) and shows the server's state of it. */
export async function reloadButton(id) {
  try {
    const b = await get(`buttons/${encodeURIComponent(id)}`);
    buttons.set(id, b);
  } catch (err) {
    if (err.status !== 404) return;
    buttons.delete(id);
  }
  changed("buttons");
}

/** Loads every button (all pages). */
export async function loadButtons() {
  const all = [];
  let offset = 0;
  const limit = 200;
  for (let guard = 0; guard < 100; guard++) {
    const page = await get(`buttons?offset=${offset}&limit=${limit}`);
    const list = (page && page.buttons) || [];
    all.push(...list);
    offset += list.length;
    const total = page && typeof page.total === "number" ? page.total : all.length;
    if (!list.length || all.length >= total) break;
  }
  buttons.clear();
  for (const b of all) buttons.set(b.id, b);
  changed("buttons");
  return all;
}

export async function loadSheets() {
  const page = await get("sheets");
  sheets.clear();
  for (const s of (page && page.sheets) || []) sheets.set(s.id, s);
  changed("sheets");
}

/** The name of what an event or a delivery is about (`{button}` or `{sheet}`), as shown. */
export function subjectName(ref) {
  if (ref.button) return title(buttons.get(ref.button)) || ref.button;
  if (ref.sheet) return title(sheets.get(ref.sheet)) || ref.sheet;
  return "";
}

/**
 * The grid's keys grouped by `group` (ungrouped first), each group sorted by `order` then name:
 * buttons and sheets alike (`{kind: "button" | "sheet", item}`), so a sheet stands beside the
 * buttons its `group` and `order` put it with.
 */
export function groupedKeys() {
  const groups = new Map();
  const add = (kind, item) => {
    const g = item.group || "";
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push({ kind, item });
  };
  for (const b of buttons.values()) add("button", b);
  for (const s of sheets.values()) add("sheet", s);
  const ord = (k) => (typeof k.item.order === "number" ? k.item.order : Number.MAX_SAFE_INTEGER);
  for (const list of groups.values()) {
    list.sort((a, b) => ord(a) - ord(b) || title(a.item).localeCompare(title(b.item)) ||
      a.kind.localeCompare(b.kind) || a.item.id.localeCompare(b.item.id));
  }
  const names = [...groups.keys()].sort((a, b) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b)));
  return names.map((name) => ({ name, keys: groups.get(name) }));
}
