// Toasts: short messages in the corner (above any open dialog), and API errors in words.

import { el } from "./dom.js";
import { icon } from "./icons.js";
import { homeToasts } from "./modal.js";

export function toast(message, { kind = "info", detail = "", timeout, action } = {}) {
  const host = document.getElementById("toasts");
  homeToasts();
  const close = el("button.toast-close", { type: "button", "aria-label": "Dismiss" }, icon("close"));
  const act = action ? el("button.btn.btn-small.toast-action", { type: "button", text: action.label }) : null;
  const node = el(`div.toast.toast-${kind}`, { role: kind === "error" ? "alert" : "status" },
    el("div.toast-text", {}, el("strong", { text: message }), detail ? el("span.toast-detail", { text: detail }) : null),
    act, close);
  const remove = () => {
    node.classList.add("toast-out");
    setTimeout(() => node.remove(), 200);
  };
  close.addEventListener("click", remove);
  if (act) act.addEventListener("click", () => { remove(); action.run(); });
  host.append(node);
  while (host.children.length > 4) host.firstElementChild.remove();
  const ms = timeout ?? (kind === "error" ? 8000 : 3500);
  if (ms > 0) setTimeout(remove, ms);
  return node;
}

/** Shows an API (or any) error in words. */
export function showError(err, context = "") {
  const msg = err && err.message ? err.message : String(err);
  const bits = [];
  if (err && err.code && err.code !== "network") bits.push(err.code);
  if (err && err.field) bits.push(`field: ${err.field}`);
  if (err && err.status) bits.push(`HTTP ${err.status}`);
  toast(context ? `${context}: ${msg}` : msg, { kind: "error", detail: bits.join(" · ") });
  console.warn(context, err);
}
