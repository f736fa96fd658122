// The confirm dialog: "Delete this?" answered yes or no.

import { openModal } from "./modal.js";

/** Resolves true when the user agrees. */
export function confirmAction(text, yesLabel = "Delete") {
  const dlg = document.getElementById("confirm-dialog");
  document.getElementById("confirm-text").textContent = text;
  document.getElementById("confirm-yes").textContent = yesLabel;
  dlg.returnValue = "";
  return new Promise((resolve) => {
    dlg.addEventListener("close", () => resolve(dlg.returnValue === "yes"), { once: true });
    openModal(dlg);
  });
}
