// Pages: when the buttons are in more than one group, each group is a page with a tab. A swipe
// across the page (not on a key) goes to the next or previous page, and the URL keeps the page:
// #/page/NAME (#kiosk/page/NAME in a kiosk opened with #kiosk). The ungrouped buttons are the
// page with no name (#/page/).

import { el } from "./dom.js";

const MAIN = "Main";
let names = [];
let current = null;
let direction = 0;
let changed = () => {};

export function onPageChange(fn) { changed = fn; }
export function pageTitle(name) { return name || MAIN; }

function fromHash() {
  const m = /^#(?:kiosk)?\/page\/(.*)$/.exec(location.hash);
  if (!m) return null;
  try { return decodeURIComponent(m[1]); } catch { return null; }
}

function hashFor(name) {
  const prefix = location.hash.startsWith("#kiosk") ? "#kiosk" : "#";
  return `${prefix}/page/${encodeURIComponent(name)}`;
}

/** The page to show among `list` (group names in order): the URL's, else the first. */
export function choosePage(list) {
  names = list;
  const wanted = fromHash();
  // A hash that names no page (the skip link's #grid, say) keeps the page shown.
  current = wanted !== null && list.includes(wanted) ? wanted : list.includes(current) ? current : list[0];
  return current;
}

/** -1, 0 or 1: where the page just shown came from (for the slide), read once. */
export function takeDirection() {
  const d = direction;
  direction = 0;
  return d;
}

export function goTo(name, dir = 0) {
  if (!names.includes(name)) return;
  direction = dir || Math.sign(names.indexOf(name) - names.indexOf(current));
  history.replaceState(history.state, "", `${location.pathname}${location.search}${hashFor(name)}`);
  changed();
}

function step(delta) {
  const i = names.indexOf(current) + delta;
  if (i >= 0 && i < names.length) goTo(names[i], delta);
}

/** The tab bar for `groups` ({name, id} with the id of each page's section). */
export function renderTabs(groups, shown) {
  const bar = document.getElementById("tabs");
  const list = bar.querySelector("[role=tablist]");
  const paged = groups.length > 1;
  bar.hidden = !paged;
  document.body.classList.toggle("paged", paged);
  if (!paged) { list.replaceChildren(); return; }
  const existing = new Map([...list.children].map((a) => [a.dataset.page, a]));
  const tabs = groups.map((g) => {
    const tab = existing.get(g.name) || el("a.tab", { role: "tab", dataset: { page: g.name } });
    const selected = g.name === shown;
    tab.id = `tab-${g.id}`;
    tab.href = hashFor(g.name);
    tab.textContent = pageTitle(g.name);
    tab.setAttribute("aria-controls", g.id);
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    return tab;
  });
  const same = list.children.length === tabs.length && tabs.every((t, i) => list.children[i] === t);
  if (!same) list.replaceChildren(...tabs);
  bar.classList.toggle("overflowing", bar.scrollWidth > bar.clientWidth + 1);
  markEnd(bar);
  const active = tabs.find((t) => t.dataset.page === shown);
  if (active && bar.scrollWidth > bar.clientWidth) {
    const left = active.offsetLeft - (bar.clientWidth - active.offsetWidth) / 2;
    bar.scrollTo({ left, behavior: "smooth" });
  }
}

// The tab bar fades out at the right while more tabs are hidden there.
function markEnd(bar) {
  bar.classList.toggle("at-end", bar.scrollLeft + bar.clientWidth >= bar.scrollWidth - 2);
}

export function initPages() {
  const bar = document.getElementById("tabs");
  bar.addEventListener("scroll", () => markEnd(bar), { passive: true });
  bar.addEventListener("click", (e) => {
    const tab = e.target.closest("[role=tab]");
    if (!tab) return;
    e.preventDefault();
    goTo(tab.dataset.page);
  });
  bar.addEventListener("keydown", (e) => {
    const keys = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
    if (!(e.key in keys) || !e.target.closest("[role=tab]")) return;
    e.preventDefault();
    const i = Math.min(names.length - 1, Math.max(0, names.indexOf(current) + keys[e.key]));
    goTo(names[i]);
    const tab = [...bar.querySelectorAll("[role=tab]")].find((t) => t.dataset.page === names[i]);
    if (tab) tab.focus();
  });
  window.addEventListener("hashchange", () => changed());

  // Swipe: a horizontal stroke that starts off the keys (touch-action: pan-y on the grid area
  // leaves horizontal strokes to us, vertical ones scroll).
  const area = document.getElementById("grid");
  let start = null;
  area.addEventListener("pointerdown", (e) => {
    if (e.pointerType === "mouse" || names.length < 2) return;
    if (e.target.closest(".key, .key-cell button, a, button, input, select, textarea, [role=tablist]")) return;
    start = { x: e.clientX, y: e.clientY, t: e.timeStamp, id: e.pointerId };
  });
  area.addEventListener("pointerup", (e) => {
    if (!start || e.pointerId !== start.id) return;
    const dx = e.clientX - start.x;
    const dy = e.clientY - start.y;
    const dt = e.timeStamp - start.t;
    start = null;
    if (Math.abs(dx) < 50 || Math.abs(dx) < 1.5 * Math.abs(dy) || dt > 800) return;
    step(dx < 0 ? 1 : -1);
  });
  area.addEventListener("pointercancel", () => { start = null; });
}
