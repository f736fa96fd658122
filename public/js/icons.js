// The bundled key icons: public/icons/NAME.svg, line drawings in currentColor. A key draws its
// icon as a CSS mask, so the icon takes the key's text colour on any key colour.

import { get } from "./api.js";
import { el } from "./ui.js";

// Used when the server does not list its icons (GET /api/v1/icons), e.g. an older server.
const FALLBACK = [
  "alarm", "bed", "bell", "blind", "bolt", "camera", "car", "door", "fan", "garage", "heat", "home",
  "light", "lock", "mic", "moon", "music", "mute", "next", "pause", "play", "plug", "power", "previous",
  "record", "scene", "stop", "sun", "thermometer", "tv", "unlock", "volume", "wifi",
];

let names = null;

/** The icon names the server knows (sorted). */
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

export function iconURL(name) {
  return `icons/${encodeURIComponent(name)}.svg`;
}

/** Shows `name` (or nothing) in an icon span. */
export function setIcon(node, name) {
  const value = name ? `url("${iconURL(name)}")` : "";
  node.style.webkitMaskImage = value;
  node.style.maskImage = value;
  node.dataset.icon = name || "";
  node.hidden = !name;
}

export function iconSpan(name, cls = "key-icon") {
  const node = el(`span.${cls}`, { "aria-hidden": "true" });
  setIcon(node, name);
  return node;
}
