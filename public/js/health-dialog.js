// The health dialog: why a key's handler is failing or disabled, with the way to its deliveries
// for a session that may edit.

import { openModal } from "./modal.js";
import { buttons, sheets } from "./store.js";
import { title } from "./names.js";
import { healthOf, healthWords } from "./health.js";

/** Wires the dialog; returns open(id, kind) for the health marks. `canEdit()` says whether this
 *  session may see deliveries, `showDeliveries({id, owner})` shows them. */
export function healthDialog({ canEdit, showDeliveries }) {
  const $ = (id) => document.getElementById(id);
  const dlg = $("health-dialog");
  $("health-close").addEventListener("click", () => dlg.close());
  return function openHealth(id, kind = "button") {
    const obj = (kind === "sheet" ? sheets : buttons).get(id);
    const h = healthOf(obj);
    if (!h) return;
    dlg.dataset.state = h.state;
    $("health-title").textContent = `${title(obj)}: ${healthWords(h)}`;
    $("health-reason").textContent = h.reason || "No reason given.";
    $("health-handler").textContent = h.handler ? `Handler ${h.handler}` : "";
    const show = $("health-deliveries");
    show.hidden = !(canEdit() && h.handler);
    show.onclick = () => {
      dlg.close();
      showDeliveries({ id: h.handler, owner: title(obj) });
    };
    openModal(dlg);
  };
}
