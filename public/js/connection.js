// Whether the panel has the server: when the event stream is lost, nothing on the page may look
// live (SPEC §7 "A panel for a live show"). Every key dims, is aria-disabled and says it cannot be
// pressed; a banner (role="alert") says since when; a press is refused on the key at once. When the
// stream is back, all of it goes.

import { el } from "./dom.js";
import { fmtTime } from "./format.js";

let lostSince = 0; // when the stream was lost (ms), 0 while connected
const listeners = new Set();

/** Whether the server is out of reach now. */
export function isDisconnected() { return lostSince > 0; }

/** What a key says while the server is out of reach (its accessible description). */
export const CANNOT_PRESS = "Cannot be pressed: the server is not connected.";

/** Calls `fn(disconnected)` at every change. */
export function onConnectionChange(fn) { listeners.add(fn); }

function banner() { return document.getElementById("conn-lost"); }

/** The stream's state ("connecting", "live", "reconnecting", "offline"): the page follows it.
 *  The first "connecting" is not a loss: nothing was shown as live yet. */
export function setConnectionState(state) {
  const lost = state === "reconnecting" || state === "offline";
  if (lost && !lostSince) lostSince = Date.now();
  else if (state === "live") lostSince = 0;
  else if (!lost) return;
  const node = banner();
  document.body.classList.toggle("disconnected", !!lostSince);
  if (lostSince) {
    node.replaceChildren(
      el("strong", { text: `Server not connected since ${fmtTime(lostSince).slice(0, 8)}.` }), " ",
      el("span", { text: state === "offline" ? "Buttons cannot be pressed. Trying again…" : "Buttons cannot be pressed. Reconnecting…" }));
    node.hidden = false;
  } else {
    node.hidden = true;
    node.replaceChildren();
  }
  for (const fn of listeners) fn(!!lostSince);
}
