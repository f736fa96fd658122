// Every icon of the panel, drawn one way: an SVG file (line drawings) used as a CSS mask, so it
// takes the text colour wherever it stands, on any key colour. Two sets of files: the key icons
// a button may show (public/icons/NAME.svg, listed by GET /api/v1/icons) and the panel's own
// glyphs (public/icons/ui/NAME.svg: edit, close, plus…).

import { get } from "./api.js";
import { el } from "./dom.js";

// Used when the server does not list its icons (GET /api/v1/icons), e.g. an older server.
const FALLBACK = [
  "alarm", "bed", "bell", "blind", "bolt", "camera", "car", "door", "fan", "garage", "heat", "home",
  "light", "lock", "mic", "moon", "music", "mute", "next", "pause", "play", "plug", "power", "previous",
  "record", "scene", "stop", "sun", "thermometer", "tv", "unlock", "volume", "wifi",
];

let names = null;

/** The key icon names the server knows (sorted). */
export async function iconNames() {
  if (names) return names;
  try {
    const res = await get("icons");
    names = Array.isArray(res && res.icons) ? [...res.icons].sort() : FALLBACK;
  } catch {
    names = FALLBACK;
  }
  return names;
}

function draw(node, url) {
  const value = url ? `url("${url}")` : "";
  node.style.webkitMaskImage = value;
  node.style.maskImage = value;
}

/** Shows the key icon `name` (or nothing) in an icon span. */
export function setIcon(node, name) {
  draw(node, name ? `icons/${encodeURIComponent(name)}.svg` : "");
  node.dataset.icon = name || "";
  node.hidden = !name;
}

/** A span showing the key icon `name`. */
export function iconSpan(name, cls = "key-icon") {
  const node = el(`span.${cls}`, { "aria-hidden": "true" });
  setIcon(node, name);
  return node;
}

function setGlyph(node, name) {
  draw(node, `icons/ui/${encodeURIComponent(name)}.svg`);
  node.dataset.glyph = name;
}

/** One of the panel's own glyphs (edit, close, plus, trash, up, down, sheet, alert, ban,
 *  chevron, expand, exit). */
export function icon(name) {
  const node = el("span.icon", { "aria-hidden": "true" });
  setGlyph(node, name);
  return node;
}

/** Draws the glyphs the page itself names (`<span class="icon" data-glyph="close">`). */
export function drawGlyphs(root = document) {
  for (const node of root.querySelectorAll(".icon[data-glyph]")) setGlyph(node, node.dataset.glyph);
}
