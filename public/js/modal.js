// Modal dialogs: a modal makes the rest of the page inert and covers it (the top layer), so the
// toast region moves into the topmost open modal: toasts stay visible and dismissable above
// dialogs. Every modal of the panel is opened here, so this knows which is on top.

const modals = [];

/** Moves the toast region into the topmost modal (or back to the page). */
export function homeToasts() {
  const host = document.getElementById("toasts");
  if (!host) return;
  const top = modals[modals.length - 1] || document.body;
  if (host.parentNode !== top) top.append(host);
}

/** Closes a modal opened with openModal and, with `remove`, takes it out of the page; the
 *  toasts move out of it first (its `close` event comes too late for a removed dialog). */
export function closeModal(dlg, { remove = false } = {}) {
  const i = modals.indexOf(dlg);
  if (i >= 0) modals.splice(i, 1);
  homeToasts();
  if (dlg.open) dlg.close();
  if (remove) dlg.remove();
}

/** showModal(), keeping track of the topmost modal for the toasts. */
export function openModal(dlg) {
  if (!dlg.open) dlg.showModal();
  if (!modals.includes(dlg)) {
    modals.push(dlg);
    dlg.addEventListener("close", () => {
      const i = modals.indexOf(dlg);
      if (i >= 0) modals.splice(i, 1);
      homeToasts();
    }, { once: true });
  }
  homeToasts();
}
