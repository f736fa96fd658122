// The grid: one key per button and per sheet, in its group and order; each group is a page when
// there is more than one. Keys follow control events from the stream; render() follows the
// registry and what listens for each button (listeners.js).

import { el } from "./dom.js";
import { icon } from "./icons.js";
import { showError } from "./toast.js";
import { buttons, sheets, groupedKeys, onEvent, loadButtons } from "./store.js";
import { KeyView } from "./key-view.js";
import { SheetKey } from "./sheet-key.js";
import { onListenersChange } from "./listeners.js";
import { choosePage, renderTabs, pageTitle, onPageChange, takeDirection } from "./pages.js";
import { onConnectionChange } from "./connection.js";

const views = new Map(); // "button:id" or "sheet:id" -> KeyView or SheetKey
const sectionIds = new Map(); // group name -> section id
let nextSection = 1;

let editing = false;
let actions = null;   // what the keys do in edit mode and on their health marks (initGrid)
let createInGroup = () => {};

export function setEditing(on) {
  editing = on;
  for (const v of views.values()) v.setEditing(on);
  render();
}
export function isEditing() { return editing; }

let reloadTimer = null;
function scheduleReload() {
  clearTimeout(reloadTimer);
  reloadTimer = setTimeout(() => loadButtons().catch((err) => showError(err, "Loading buttons")), 150);
}

/**
 * Starts the grid: its keys follow control events, pages and listeners from now on.
 * `openEditor(kind, id)` edits a key's button or sheet, `createInGroup(group)` makes a new
 * button on a page, `openHealth(id, kind)` tells why a key's handler is failing.
 */
export function initGrid({ openEditor, openHealth, createInGroup: create }) {
  actions = { editing: () => editing, openEditor, openHealth };
  createInGroup = create;
  onEvent((ev, source) => {
    if (!ev.button || source === "history") return;
    const view = views.get(`button:${ev.button}`);
    if (!view) { scheduleReload(); return; }
    view.apply(ev);
  });
  onPageChange(() => render());
  onConnectionChange(() => { for (const v of views.values()) v.applyConnection(); });
  onListenersChange(() => { for (const v of views.values()) if (v instanceof KeyView) v.update(v.b); });
}

function sectionId(name) {
  if (!sectionIds.has(name)) sectionIds.set(name, `page-${nextSection++}`);
  return sectionIds.get(name);
}

function section(host, g, paged, single) {
  const id = sectionId(g.name);
  let node = document.getElementById(id);
  if (!node) {
    node = el("section.group", { id, dataset: { group: g.name } },
      el("h2.group-title"), el("div.keys"));
  }
  const title = node.querySelector(".group-title");
  title.textContent = pageTitle(g.name);
  title.hidden = paged || (g.name === "" && single);
  if (paged) {
    node.setAttribute("role", "tabpanel");
    node.setAttribute("aria-labelledby", `tab-${id}`);
  } else {
    node.removeAttribute("role");
    node.removeAttribute("aria-labelledby");
  }
  return node;
}

/** The columns a page asks for in the URL: `?columns=4` (every page) or `?columns=lobby:3,stage:5`
 *  (by page; `main` is the ungrouped one), 1–12; nil: as many as the width fits (keys.css). */
export function pageColumns(name, search = location.search) {
  const value = new URLSearchParams(search).get("columns");
  if (!value) return null;
  let n = null;
  for (const part of value.split(",")) {
    const [page, count] = part.includes(":") ? part.split(/:(?=[^:]*$)/) : [null, part];
    if (page === null || page === name || (page.toLowerCase() === "main" && name === "")) n = Number(count);
  }
  return Number.isInteger(n) && n >= 1 && n <= 12 ? n : null;
}

function fillKeys(keysEl, g, alive) {
  const cols = pageColumns(g.name);
  if (cols) keysEl.style.setProperty("--cols", String(cols)); else keysEl.style.removeProperty("--cols");
  const nodes = [];
  for (const { kind, item } of g.keys) {
    const key = `${kind}:${item.id}`;
    alive.add(key);
    let v = views.get(key);
    if (!v) { v = kind === "sheet" ? new SheetKey(item, actions) : new KeyView(item, actions); views.set(key, v); }
    else if (kind === "sheet" ? v.s !== item : v.b !== item) v.update(item, { fromServer: true });
    v.setEditing(editing);
    nodes.push(v.cell);
  }
  if (editing) {
    const add = keysEl.querySelector(":scope > .key-add") ||
      el("button.key.key-add", { type: "button", on: { click: () => createInGroup(g.name) } },
        icon("plus"), el("span", { text: "New button" }));
    nodes.push(add);
  }
  // Reorder only when needed: moving a node would drop its pointer capture.
  const current = [...keysEl.children];
  const same = current.length === nodes.length && current.every((n, i) => n === nodes[i]);
  if (same) return;
  for (const n of current) if (!nodes.includes(n)) n.remove();
  nodes.forEach((n, i) => {
    if (keysEl.children[i] !== n) keysEl.insertBefore(n, keysEl.children[i] || null);
  });
}

export function render() {
  const host = document.getElementById("groups");
  const groups = groupedKeys();
  const paged = groups.length > 1;
  const shown = paged ? choosePage(groups.map((g) => g.name)) : null;
  const direction = takeDirection();
  const alive = new Set();
  const wanted = [];
  for (const g of groups) {
    const node = section(host, g, paged, groups.length === 1);
    fillKeys(node.querySelector(".keys"), g, alive);
    const hidden = paged && g.name !== shown;
    if (!hidden && node.hidden && direction) {
      node.classList.remove("slide-left", "slide-right");
      void node.offsetWidth;
      node.classList.add(direction > 0 ? "slide-left" : "slide-right");
    }
    node.hidden = hidden;
    wanted.push(node);
  }
  for (const [id, v] of views) {
    if (!alive.has(id)) { if (v.remove) v.remove(); else v.cell.remove(); views.delete(id); }
  }
  for (const s of [...host.children]) if (!wanted.includes(s)) s.remove();
  wanted.forEach((s, i) => { if (host.children[i] !== s) host.insertBefore(s, host.children[i] || null); });
  renderTabs(groups.map((g) => ({ name: g.name, id: sectionId(g.name) })), shown);
  document.getElementById("empty").hidden = buttons.size + sheets.size > 0;
}
