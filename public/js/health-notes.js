// A change of a handler's health, as it comes on the stream: a line in the log; a handler
// disabled by a 410 Gone is also a toast, on every open panel.

import { onRegistry } from "./store.js";
import { title } from "./names.js";
import { addNote } from "./log.js";
import { toast } from "./toast.js";
import { healthOf, healthWords } from "./health.js";

function same(a, b) {
  if (!a && !b) return true;
  return !!a && !!b && a.state === b.state && a.reason === b.reason && a.handler === b.handler;
}

/** Follows the registry from now on. `canEdit()` and `showDeliveries` as for the dialog. */
export function followHealth({ canEdit, showDeliveries }) {
  onRegistry((msg, previous) => {
    if (msg.op !== "put") return;
    const obj = msg[msg.kind];
    const before = healthOf(previous);
    const now = healthOf(obj);
    if (!previous || same(before, now)) return;
    const name = title(obj);
    if (now) {
      addNote({ subject: obj.id, name, type: healthWords(now), text: now.reason || "" });
    } else {
      addNote({ subject: obj.id, name, type: "handler ok", text: "deliveries succeed again", kind: "health-ok" });
    }
    const newlyDisabled = now && now.state === "disabled" && (!before || before.state !== "disabled");
    if (newlyDisabled && /\b410\b/.test(now.reason || "")) {
      toast(`${name}: handler disabled — ${now.reason}`, {
        kind: "error",
        timeout: 12000,
        action: canEdit() && now.handler
          ? { label: "Deliveries", run: () => showDeliveries({ id: now.handler, owner: name }) }
          : undefined,
      });
    }
  });
}
