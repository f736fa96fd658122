// The editor dialog: one modal that shows view after view (button, handler, deliveries…) with a
// Back button. On a phone it fills the screen.

import { el } from "./dom.js";
import { openModal } from "./modal.js";
import { toast, showError } from "./toast.js";
import { confirmAction } from "./confirm.js";
import { del, enc } from "./api.js";
import { changed } from "./store.js";

const dialog = () => document.getElementById("editor");
let stack = [];

/** Shows `body` under `title`; `replace` swaps the current view instead of stacking on it. */
export function show(title, body, { replace = false } = {}) {
  const dlg = dialog();
  if (replace) stack.pop();
  stack.push({ title, body });
  paint();
  if (!dlg.open) {
    openModal(dlg);
    dlg.classList.add("in");
  }
  const focusable = body.querySelector("[autofocus]") || body.querySelector("input:not([readonly]):not([type=hidden]), select, textarea, button");
  if (focusable) focusable.focus({ preventScroll: true });
}

/** Called when the current view is shown again (Back): it reloads what it lists. */
export function onReturn(fn) {
  const top = stack[stack.length - 1];
  if (top) top.refresh = fn;
}

function paint() {
  const top = stack[stack.length - 1];
  if (!top) return;
  const head = document.getElementById("editor-title");
  head.replaceChildren();
  if (stack.length > 1) {
    head.append(el("button.icon-btn.back", { type: "button", "aria-label": "Back", on: { click: back } },
      el("span.back-arrow", { "aria-hidden": "true", text: "‹" })));
  }
  head.append(el("span", { text: top.title }));
  const body = document.getElementById("editor-body");
  body.replaceChildren(top.body);
  body.scrollTop = 0;
}

export function back() {
  stack.pop();
  if (!stack.length) { closeEditor(); return; }
  const top = stack[stack.length - 1];
  if (top.refresh) top.refresh();
  paint();
}

export function closeEditor() {
  stack = [];
  const dlg = dialog();
  if (dlg.open) dlg.close();
}

/** Wires the dialog's close button, its backdrop and its Escape. */
export function initEditorDialog() {
  const dlg = dialog();
  dlg.querySelector("[data-close]").addEventListener("click", closeEditor);
  dlg.addEventListener("close", () => { stack = []; });
  dlg.addEventListener("click", (e) => { if (e.target === dlg) closeEditor(); });
}

/** Deletes a button or sheet (`collection` "buttons" or "sheets", its store map) and its
 * handlers once the user agrees, then closes the editor. */
export async function deleteEntry(collection, entries, item, name) {
  if (!(await confirmAction(`Delete the ${collection.slice(0, -1)} “${name}” and its handlers?`))) return;
  try {
    await del(`${collection}/${enc(item.id)}`);
    entries.delete(item.id);
    changed(collection);
    toast(`Deleted “${name}”`, { kind: "ok" });
    closeEditor();
  } catch (err) {
    showError(err, "Delete");
  }
}
