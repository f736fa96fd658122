// What listens for each button's gestures, so a key advertises only what does something: the
// event types its enabled handlers are on (GET /api/v1/config lists every handler, for any
// token), and with MQTT and Home Assistant discovery (GET /api/v1/mqtt, asked only by an admin
// session: anyone else would get a 403) every gesture, since each is a device trigger there.
// Handlers are not on the stream: this is loaded with the registry and again when this panel
// changes a handler.

import { get, probeRole } from "./api.js";

const byButton = new Map(); // button id -> Set of event types
let everyGesture = false;     // Home Assistant discovery advertises each button's gestures
const listeners = new Set();

export function onListenersChange(fn) { listeners.add(fn); }

/** The event types something listens for on this button. */
export function listenedTypes(id) {
  return byButton.get(id) || new Set();
}

/** Whether something acts on any of `types` from this button. */
export function listensFor(id, types) {
  if (everyGesture) return true;
  const set = byButton.get(id);
  return !!set && types.some((t) => set.has(t));
}

async function mqttAdvertises() {
  if ((await probeRole()) !== "admin") return false;
  try {
    const m = await get("mqtt");
    return !!(m && m.enabled && m.discovery);
  } catch {
    return false; // a press token (403), or no such route: the handlers alone say
  }
}

/** Loads the handlers (and the MQTT discovery switch) again; never throws. */
export async function reloadListeners() {
  const [config, ha] = await Promise.all([get("config").catch(() => null), mqttAdvertises()]);
  if (!config) return;
  byButton.clear();
  for (const h of config.handlers || []) {
    if (!h.button || h.enabled === false) continue;
    if (!byButton.has(h.button)) byButton.set(h.button, new Set());
    for (const t of h.on || []) byButton.get(h.button).add(t);
  }
  everyGesture = ha;
  for (const fn of listeners) fn();
}
