// Handler health as a key shows it: a key (or sheet) whose handlers are failing or disabled
// shows a mark, and the reason is one tap away (health-dialog.js). Changes of health are lines
// in the log and, for a 410, a toast (health-notes.js).

import { el } from "./dom.js";
import { icon } from "./icons.js";

/** The health worth showing ({state: failing|disabled, reason, handler}), or null when fine. */
export function healthOf(obj) {
  const h = obj && obj.health;
  if (!h || typeof h !== "object" || !h.state || h.state === "ok") return null;
  return h;
}

/** "handler disabled" or "handler failing". */
export function healthWords(h) {
  return h.state === "disabled" ? "handler disabled" : "handler failing";
}

/** Shows `obj`'s health (called `name`) on its key cell and the cell's health mark button. */
export function showHealthMark(cell, mark, name, obj) {
  const h = healthOf(obj);
  cell.dataset.health = h ? h.state : "ok";
  mark.hidden = !h;
  if (!h) return;
  mark.setAttribute("aria-label", `${name}: ${healthWords(h)}. Show why`);
  mark.title = `${healthWords(h)}: ${h.reason || ""}`;
  mark.replaceChildren(el("span.health-dot", {}, icon(h.state === "disabled" ? "ban" : "alert")));
}
