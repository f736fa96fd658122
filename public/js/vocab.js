// The control-event vocabulary: which event types, handler kinds and placeholders there are
// comes from the server (GET /api/v1/vocabulary, loaded at start), so the panel cannot drift
// from it; what the panel says of each (the editor's words, the log's colour category, whether
// it is a gesture, how the live region says it, how a key flashes and advertises it) is here.
// A type the server has and this table does not is offered under its own name.

import { get } from "./api.js";

let words = null; // the server's vocabulary, once loaded

/** Loads the server's vocabulary; the editor offers what it lists. Never throws. */
export async function loadVocabulary() {
  try {
    words = await get("vocabulary");
  } catch (err) {
    console.warn("vocabulary", err);
  }
  return words;
}

/** The server's list under `key` (e.g. "placeholders", "handlerKinds"), or `fallback`. */
export function serverWords(key, fallback = []) {
  const v = words && words[key];
  return Array.isArray(v) ? v : fallback;
}

function labelOf(type) {
  const t = ALL.get(type);
  if (t) return t.label;
  const text = type.replace(/-/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** [type, editor label, log category, gesture?, spoken, key flash, key hint] in the editor's
 *  order. The flash is what a key shows for an n-tap of more than one tap; the hint is how a
 *  key advertises the most taps it counts. */
const TYPES = [
  ["tap", "Tap (every tap, at once)", "tap", true, ""],
  ["single-tap", "Single tap", "tap", true, "single tap", "single"],
  ["double-tap", "Double tap", "tap", true, "double tap", "double", "double-tap"],
  ["triple-tap", "Triple tap", "tap", true, "triple tap", "triple", "triple-tap"],
  ["quadruple-tap", "Quadruple tap", "tap", true, "4 taps", "×4", "4× tap"],
  ["quintuple-tap", "Quintuple tap", "tap", true, "5 taps", "×5", "5× tap"],
  ["long-press", "Long press", "long", true, "long press"],
  ["long-press-end", "Long press released", "long", true, ""],
  ["repeat", "Repeat while held", "long", false, ""],
  ["toggle", "Toggle flipped", "toggle", true, ""],
  ["touch-down", "Touch down", "touch", false, ""],
  ["touch-up-inside", "Touch up inside", "touch", false, ""],
  ["touch-up-outside", "Touch up outside", "touch", false, ""],
  ["touch-cancel", "Touch cancelled", "cancel", false, ""],
  ["touch-drag-exit", "Drag exit", "touch", false, ""],
  ["touch-drag-enter", "Drag enter", "touch", false, ""],
  // The guards' events (SPEC §4 "Guards"): a confirm key armed and disarmed, a press refused.
  ["armed", "Armed (a confirm key's first tap)", "guard", true, "armed"],
  ["disarmed", "Disarmed (fired, timed out or cancelled)", "guard", true, "disarmed"],
  ["refused", "Refused by a guard (too short, locked out)", "cancel", true, "refused"],
];
const SHEET_TYPES = [
  ["select", "Option chosen", "sheet", true, ""],
  ["sheet-open", "Sheet opened", "sheet", false, ""],
  ["sheet-cancel", "Sheet cancelled", "cancel", false, ""],
];
const ALL = new Map([...TYPES, ...SHEET_TYPES].map(([type, label, cat, gesture, spoken, flash = "", hint = ""]) =>
  [type, { label, cat, gesture, spoken, flash, hint }]));

/** The n-tap events by tap count (2 → "double-tap"). */
export const N_TAPS = ["", "single-tap", "double-tap", "triple-tap", "quadruple-tap", "quintuple-tap"];

/** [type, label] pairs a handler of this owner may listen for, as the server lists them (a
 *  toggle's `toggle` only on a toggle). */
export function handlerEvents(ownerKind, owner) {
  const types = words && words.eventTypes && words.eventTypes[ownerKind === "sheet" ? "sheet" : "button"];
  const list = Array.isArray(types) ? types : (ownerKind === "sheet" ? SHEET_TYPES : TYPES).map(([t]) => t);
  if (ownerKind === "sheet") return list.map((t) => [t, labelOf(t)]);
  // the editor's order: gestures first, as the table has them, then what the server adds
  const known = TYPES.map(([t]) => t).filter((t) => list.includes(t));
  const ordered = [...known, ...list.filter((t) => !known.includes(t))];
  return ordered.filter((t) => t !== "toggle" || owner.kind === "toggle").map((t) => [t, labelOf(t)]);
}

/** The event a new handler listens for: what the owner is for (a toggle flips, a sheet selects). */
export function naturalEvent(ownerKind, owner) {
  if (ownerKind === "sheet") return "select";
  return owner.kind === "toggle" ? "toggle" : "tap";
}

export function category(type) { return (ALL.get(type) || {}).cat || "other"; }
export function isGesture(type) { return !!(ALL.get(type) || {}).gesture; }
/** Whether the live region says it, and how ("" = in the log's own words). */
export function spoken(type) {
  const t = ALL.get(type);
  return t && t.gesture && type !== "tap" && type !== "long-press-end" ? { words: t.spoken } : null;
}
export function nTapFlash(type) { return (ALL.get(type) || {}).flash || ""; }
/** How a key that counts up to `n` taps advertises them ("double-tap", "4× tap"), or "". */
export function nTapHint(n) { return (ALL.get(N_TAPS[n]) || {}).hint || ""; }
