// The control-event vocabulary, written once: every event type with what the editor calls it,
// the log's colour category, whether it is a gesture (shown without "Raw"), how the live
// region says it, how a key flashes it and how a key advertises it. The log, the keys and the
// handler form read it.

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

/** [type, label] pairs a handler of this owner may listen for (a toggle's `toggle` only on a toggle). */
export function handlerEvents(ownerKind, owner) {
  if (ownerKind === "sheet") return SHEET_TYPES.map(([t, l]) => [t, l]);
  return TYPES.filter(([t]) => t !== "toggle" || owner.kind === "toggle").map(([t, l]) => [t, l]);
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
