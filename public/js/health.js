// Handler health where you press: a key (or sheet) whose handlers are failing or disabled shows
// a mark, and the reason is one tap away. A change of health is a line in the log; a handler
// disabled by a 410 Gone is also a toast, on every open panel.

import { toast, openModal } from "./ui.js";
import { buttons, sheets, onRegistry, title } from "./store.js";
import { addNote } from "./log.js";
import { mode } from "./mode.js";

/** The health worth showing ({state: failing|disabled, reason, handler}), or null when fine. */
export function healthOf(obj) {
  const h = obj && obj.health;
  if (!h || typeof h !== "object" || !h.state || h.state === "ok") return null;
  return h;
}

export function openHealth(id, kind = "button") {
  const obj = (kind === "sheet" ? sheets : buttons).get(id);
  const h = healthOf(obj);
  if (!h) return;
  const dlg = document.getElementById("health-dialog");
  dlg.dataset.state = h.state;
  document.getElementById("health-title").textContent =
    `${title(obj)}: ${h.state === "disabled" ? "handler disabled" : "handler failing"}`;
  document.getElementById("health-reason").textContent = h.reason || "No reason given.";
  document.getElementById("health-handler").textContent = h.handler ? `Handler ${h.handler}` : "";
  const show = document.getElementById("health-deliveries");
  show.hidden = !(mode.canEdit && h.handler);
  show.onclick = () => {
    dlg.close();
    mode.showDeliveries({ id: h.handler, owner: title(obj) });
  };
  openModal(dlg);
}

function same(a, b) {
  if (!a && !b) return true;
  return !!a && !!b && a.state === b.state && a.reason === b.reason && a.handler === b.handler;
}

onRegistry((msg, previous) => {
  if (msg.op !== "put") return;
  const obj = msg[msg.kind];
  const before = healthOf(previous);
  const now = healthOf(obj);
  if (!previous || same(before, now)) return;
  const name = title(obj);
  if (now) {
    addNote({ subject: obj.id, name, type: now.state === "disabled" ? "handler disabled" : "handler failing", text: now.reason || "" });
  } else {
    addNote({ subject: obj.id, name, type: "handler ok", text: "deliveries succeed again", kind: "health-ok" });
  }
  const newlyDisabled = now && now.state === "disabled" && (!before || before.state !== "disabled");
  if (newlyDisabled && /\b410\b/.test(now.reason || "")) {
    toast(`${name}: handler disabled — ${now.reason}`, {
      kind: "error",
      timeout: 12000,
      action: mode.canEdit && now.handler
        ? { label: "Deliveries", run: () => mode.showDeliveries({ id: now.handler, owner: name }) }
        : undefined,
    });
  }
});
